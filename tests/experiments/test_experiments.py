"""The seeds' experiments (causalcost.experiments): laws, engines, coverage and ratios.

Sources: the slides, "Experimentación" and "Resultados" — experiment 1 (two 50 % models,
correctness correlation +0.95 on positives and -0.95 on negatives, OR; 1000 repetitions per
(n1, n2)): the plain worst case's hold probability approaches 1 as both sizes grow; experiment
2 (random systems, n1 = n2 = 20000, 100000 repetitions): real / worst is at most 1 up to a few
outliers slightly above.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import causalcost as cc
from causalcost.experiments.coverage import COVERAGE_COLUMNS, coverage_experiment
from causalcost.experiments.engines import draw, resolve_system
from causalcost.experiments.law import InstanceLaw, random_two_model_laws, two_model_law
from causalcost.experiments.network_law import law_from_system, sample_instances
from causalcost.experiments.ratio import RATIO_COLUMNS, ratio_experiment
from causalcost.experiments.simulate import draw_stages

NETWORKS = ["thesis_and", "thesis_or", "anticorrelated_and", "experiment_or", "majority3",
            "population_and"]


@pytest.mark.parametrize("name", NETWORKS)
def test_the_law_gives_the_exact_interventional_rates(name: str) -> None:
    """Independent routes: the law's forced failure rates equal the exact table's."""
    system = cc.load_network(name)
    law, rates = law_from_system(system), cc.error_rates(system)
    by_kind_p, by_kind_n = law.positive.sum(axis=0), law.negative.sum(axis=0)
    assert by_kind_p[2] + by_kind_p[3] == pytest.approx(rates.fn_forced_p, abs=1e-12)
    assert by_kind_p[2] + by_kind_p[1] == pytest.approx(rates.fn_forced_n, abs=1e-12)
    assert by_kind_n[2] + by_kind_n[3] == pytest.approx(rates.fp_forced_n, abs=1e-12)
    assert by_kind_n[2] + by_kind_n[1] == pytest.approx(rates.fp_forced_p, abs=1e-12)
    assert law.prior == pytest.approx(cc.class_prior(system), abs=1e-12)


def test_the_shipped_experiment_network_is_the_slides_two_model_law() -> None:
    network = law_from_system(cc.load_network("experiment_or"))
    written = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    np.testing.assert_allclose(network.positive, written.positive, atol=1e-12)
    np.testing.assert_allclose(network.negative, written.negative, atol=1e-12)


def test_a_non_monotone_system_has_right_only_instances() -> None:
    law = two_model_law(0.7, 0.6, correlation=0.1, fusioner=lambda other, slot: other != slot)
    assert not law.monotone and law.positive[:, 3].sum() > 0


@pytest.mark.parametrize("name", ["majority3", "population_and"])
def test_ancestral_sampling_matches_the_exact_law(name: str) -> None:
    """Chi-square goodness of fit of 200,000 sampled instances to the exact cell law."""
    system = cc.load_network(name)
    law = law_from_system(system)
    pos, neg = sample_instances(system, 200_000, np.random.default_rng(7)).cell_counts()
    for observed, table in ((pos, law.positive), (neg, law.negative)):
        keep = table.ravel() > 0
        assert observed.ravel()[~keep].sum() == 0  # impossible cells never drawn
        expected = table.ravel()[keep] * observed.sum()
        assert stats.chisquare(observed.ravel()[keep], expected).pvalue > 1e-3


def test_the_two_engines_agree_in_distribution() -> None:
    """Counts engine against per-instance engine on the same network: the real system cost
    and the stage-1 forced failures have the same law (two-sample KS at a fixed seed; with
    600 repetitions each the test detects a shift of 0.1 standard deviations with power
    about 0.6, and a 0.2 shift with power above 0.99)."""
    system = resolve_system("experiment_or", "experiment_or")
    fast = draw(system, 40, 40, 600, np.random.default_rng(1), "counts")
    slow = draw(system, 40, 40, 600, np.random.default_rng(2), "instances")
    for column in range(4):
        assert stats.ks_2samp(fast.system[:, column], slow.system[:, column]).pvalue > 1e-3
    for column in range(8):
        assert stats.ks_2samp(fast.stage_one[:, column], slow.stage_one[:, column]).pvalue > 1e-3


def test_draws_count_every_instance_once() -> None:
    law = two_model_law(0.8, 0.6, correlation=(0.2, -0.1), fusioner="and", prior=0.3)
    d = draw_stages(law, 123, 77, 50, np.random.default_rng(0))
    assert (d.stage_one[:, :4].sum(axis=1) == 123).all()
    assert (d.stage_one[:, 4:].sum(axis=1) == 123).all()
    assert (d.model.sum(axis=1) == 77).all() and (d.system.sum(axis=1) == 77).all()
    # class sizes agree between the candidate and the real system on stage 2
    assert (d.model[:, :2].sum(axis=1) == d.system[:, :2].sum(axis=1)).all()


def test_the_real_cost_never_exceeds_the_worst_case_on_the_same_instances() -> None:
    """When stage 1 and stage 2 are the same instances the plain bound is exact: build the
    forced runs from the stage-2 cells themselves and the count-form bound always holds."""
    law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    rng = np.random.default_rng(4)
    for _ in range(30):
        pos = rng.binomial(60, law.prior)
        cells_p = rng.multinomial(pos, law.positive.ravel()).reshape(1, 2, 4)
        cells_n = rng.multinomial(60 - pos, law.negative.ravel()).reshape(1, 2, 4)
        from causalcost.experiments.simulate import stages_from_cells

        d = stages_from_cells(cells_p, cells_n, cells_p, cells_n)
        s = d.stage_one[0]
        b = cc.bound(cc.Confusion(*s[:4]), cc.Confusion(*s[4:]), cc.Confusion(*d.model[0]))
        assert d.system[0][1] + d.system[0][2] <= b.worst_cost + 1e-9
        assert d.system[0][1] + d.system[0][2] >= b.best_cost - 1e-9


def test_experiment_one_reproduces_the_slides_and_the_high_confidence_bound_holds() -> None:
    result = coverage_experiment(n1=[10, 100, 1000, 10_000], n2=[10, 100, 1000, 10_000],
                                 repetitions=1000, seed=11)
    f = result.frame
    assert list(f.columns[:6]) == list(COVERAGE_COLUMNS) and len(f) == 16
    corner = f[(f.n1 == 10_000) & (f.n2 == 10_000)].p_plain.item()
    small = f[(f.n1 == 10) & (f.n2 == 10)].p_plain.item()
    assert small < 0.5 < 0.9 < corner  # rises toward 1 with both sizes (slides)
    tolerance = 3 * np.sqrt(0.95 * 0.05 / 1000)
    assert (f.p_high_confidence >= 0.95 - tolerance).all()
    assert (f.tightness_high_confidence >= 1).all()


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    kwargs = {"n1": [10, 300], "n2": [20, 500], "repetitions": 200, "seed": 5}
    one = coverage_experiment(workers=1, **kwargs).frame
    two = coverage_experiment(workers=2, **kwargs).frame
    assert one.equals(two)
    assert not one.equals(coverage_experiment(workers=1, **{**kwargs, "seed": 6}).frame)


def test_experiment_two_real_over_worst_is_at_most_one_up_to_rare_outliers() -> None:
    result = ratio_experiment(n=20_000, repetitions=20_000, seed=2)
    s = result.summary()
    assert list(result.frame.columns) == list(RATIO_COLUMNS) and len(result.frame) == 20_000
    assert s.loc["ratio_plain", "share_above_1"] < 0.01
    assert 1 < s.loc["ratio_plain", "max"] < 1.1           # slight outliers (slides)
    assert s.loc["ratio_high_confidence", "share_above_1"] < 0.05
    assert s.loc["ratio_expected", "share_above_1"] > 0.2   # cost function 1 is optimistic


def test_any_system_can_be_the_experiment() -> None:
    system = cc.load_network("majority3")
    r = coverage_experiment(system, n1=[200], n2=[200], repetitions=100, seed=0)
    assert r.system == system.name and r.frame.p_high_confidence.item() >= 0.9
    law = InstanceLaw(prior=0.4, positive=np.array([[0.5, 0.2, 0.1, 0.0], [0.1, 0.1, 0.0, 0.0]]),
                      negative=np.array([[0.3, 0.3, 0.1, 0.0], [0.2, 0.1, 0.0, 0.0]]))
    assert len(ratio_experiment(law, n=100, repetitions=50).frame) == 50


def test_random_laws_are_valid_and_monotone_for_and_or() -> None:
    for rule in ("and", "or"):
        laws = random_two_model_laws(1000, np.random.default_rng(0), fusioner=rule)
        assert laws.monotone
        for t in (laws.positive, laws.negative):
            assert (t >= 0).all() and np.allclose(t.sum(axis=(1, 2)), 1)


@pytest.mark.parametrize(
    ("call", "message"),
    [(lambda: coverage_experiment(repetitions=0), "repetitions"),
     (lambda: coverage_experiment(seed=-1), "seed"),
     (lambda: coverage_experiment(n1=[]), "at least one size"),
     (lambda: coverage_experiment(engine="fast"), "engine"),
     (lambda: coverage_experiment(confidence=1), "confidence"),
     (lambda: ratio_experiment(engine="instances"), "random systems"),
     (lambda: two_model_law(0.9, 0.5, correlation=0.9), "not reachable")],
)
def test_bad_settings_are_refused(call: object, message: str) -> None:
    with pytest.raises(cc.CausalCostError, match=message):
        call()  # type: ignore[operator]


def test_ratio_repetitions_beyond_memory_are_refused() -> None:
    with pytest.raises(cc.CausalCostError, match="keeps in memory"):
        ratio_experiment(n=100, repetitions=10**12)
