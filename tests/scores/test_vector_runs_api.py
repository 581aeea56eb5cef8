"""The K-label face of ScoreRuns: every method takes probability vectors and agrees with the
row-by-row decision; the two-label runs read the same way through their offset view."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.errors import ScoreValueError, ValidationError
from causalcost.pricing.score_vector_price import price_vectors
from causalcost.pricing.score_vectors import decide_rows

LABELS = ["cat", "dog", "fox"]


def _log(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    columns: dict[str, object] = {"y": rng.choice(LABELS, n)}
    for model in ("m1", "m2", "m3"):
        p = rng.dirichlet(np.ones(3), n)
        columns.update({f"{model}_{label}": p[:, c] for c, label in enumerate(LABELS)})
    return pd.DataFrame(columns, index=[f"r{i}" for i in range(n)])


@pytest.fixture(scope="module")
def runs() -> cc.ScoreRuns:
    return cc.forced_runs(_log(60, 1), truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="mean", labels=LABELS, weights={"m1": 1, "m2": 2, "m3": 1},
                          scores={label: "{model}_" + label for label in LABELS})


def _candidate(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(3), n)


def test_the_runs_decide_row_by_row_as_the_weighted_mean(runs: cc.ScoreRuns) -> None:
    log = _log(60, 1)
    vectors = {m: log[[f"{m}_{label}" for label in LABELS]].to_numpy()
               for m in ("m1", "m2", "m3")}
    mean = (vectors["m1"] + 2 * vectors["m2"] + vectors["m3"]) / 4
    said = mean.argmax(axis=1)
    truth = pd.Index(LABELS).get_indexer(log["y"])
    cells = np.zeros((3, 3))
    np.add.at(cells, (truth, said), 1)
    assert runs.k == 3 and runs.labels == tuple(LABELS)
    assert np.array_equal(runs.observed.to_numpy(), cells)
    assert np.allclose(runs.offsets, vectors["m1"] + vectors["m3"], rtol=0, atol=1e-15)
    assert np.array_equal(runs.slot_matrix, 2 * np.eye(3))


def test_forced_at_is_every_row_with_the_same_vector(runs: cc.ScoreRuns) -> None:
    vector = [0.2, 0.5, 0.3]
    tiled = np.tile(vector, (60, 1))
    assert runs.forced_at(vector) == runs.with_candidate(tiled)
    with pytest.raises(ScoreValueError, match="2 columns for the K = 3 labels"):
        runs.forced_at([0.5, 0.5])


def test_frames_and_dicts_show_the_same_decisions(runs: cc.ScoreRuns) -> None:
    frame = runs.to_frame()
    assert list(frame.columns) == ["truth", *(f"observed[{x}]" for x in LABELS),
                                   *(f"offset[{x}]" for x in LABELS), "system"]
    crossed = pd.crosstab(frame["truth"], frame["system"]).reindex(
        index=LABELS, columns=LABELS, fill_value=0)
    assert np.array_equal(crossed.to_numpy(), runs.observed.to_numpy())
    plain = json.loads(json.dumps(runs.to_dict()))
    assert plain["labels"] == LABELS and plain["matrix"] == (2 * np.eye(3)).tolist()
    assert sum(len(v) for v in plain["offsets"].values()) == 60
    assert "K=3" in repr(runs)


def test_binary_only_views_are_refused_with_the_k_label_name(runs: cc.ScoreRuns) -> None:
    with pytest.raises(ValidationError, match="K = 3 labels.*use offsets_by_class"):
        runs.critical_by_class  # noqa: B018


def test_candidates_by_name_and_by_index_are_the_same(runs: cc.ScoreRuns) -> None:
    vectors = _candidate(60, 2)
    frame = pd.DataFrame(vectors, columns=LABELS, index=runs.index)
    shuffled = frame.iloc[::-1][["fox", "cat", "dog"]]
    assert runs.with_candidate(shuffled) == runs.with_candidate(vectors)
    with pytest.raises(ScoreValueError, match="no column for the label 'dog'"):
        runs.with_candidate(frame.rename(columns={"dog": "wolf"}))
    bad = vectors.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ScoreValueError, match="row 'r7'"):
        runs.with_candidate(pd.DataFrame(bad, columns=LABELS, index=runs.index))
    with pytest.raises(ScoreValueError, match="sums to"):
        runs.with_candidate(vectors * 0.5)


def test_price_scores_on_k_label_runs_is_the_runs_price(runs: cc.ScoreRuns) -> None:
    vectors = _candidate(60, 3)
    costs = cc.CostMatrix([[0, 1, 5], [1, 0, 1], [2, 2, 0]], labels=LABELS)
    direct = runs.price(vectors, costs)
    through = cc.price_scores(runs, runs.candidate_by_class(vectors), costs)
    assert direct.to_dict() == through.to_dict()
    real = runs.with_candidate(vectors).cost(costs)
    assert direct.best_cost <= real <= direct.worst_cost
    assert direct.best_cost <= direct.expected_cost <= direct.worst_cost


def test_the_two_label_offset_view_prices_as_the_critical_scores() -> None:
    rng = np.random.default_rng(5)
    n = 80
    log = pd.DataFrame({"y": rng.integers(0, 2, n), "a": rng.random(n), "b": rng.random(n),
                        "c": rng.random(n)})
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    scores = rng.random(n)
    assert not np.isclose(scores[:, None], runs.critical[None, :], atol=1e-9).any()
    by_class = runs.candidate_by_class(scores)
    vectors = [np.column_stack([s, 1 - s]) for s in by_class]
    said = [decide_rows(runs.slot_matrix, r, v)
            for r, v in zip(runs.offsets_by_class, vectors)]
    critical = [runs.critical[runs.truth], runs.critical[~runs.truth]]
    for s, t, g in zip(by_class, critical, said):
        assert np.array_equal(g == 0, s >= t)
    binary = runs.price(scores, cc.CostMatrix(fn=5, fp=1))
    general = price_vectors(runs.slot_matrix, runs.offsets_by_class, vectors,
                            [[0, 5], [1, 0]], labels=runs.labels)
    for name in ("expected_cost", "worst_cost", "best_cost"):
        assert getattr(general, name) == pytest.approx(getattr(binary, name), rel=1e-12)


@pytest.mark.parametrize("fusion", ["max", "min"])
def test_max_and_min_fusions_price_as_every_pairing(fusion: str) -> None:
    import itertools

    rng = np.random.default_rng(11 if fusion == "max" else 12)
    log = _log(11, 7 if fusion == "max" else 8)
    runs = cc.forced_runs(log, truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner=fusion, labels=LABELS,
                          scores={label: "{model}_" + label for label in LABELS})
    vectors = {m: log[[f"{m}_{label}" for label in LABELS]].to_numpy()
               for m in ("m1", "m2", "m3")}
    combine = np.maximum if fusion == "max" else np.minimum
    truth = pd.Index(LABELS).get_indexer(log["y"])
    said = combine.reduce(list(vectors.values())).argmax(axis=1)
    cells = np.zeros((3, 3))
    np.add.at(cells, (truth, said), 1)
    assert runs.fusion == fusion and np.array_equal(runs.observed.to_numpy(), cells)
    candidate = rng.dirichlet(np.ones(3), 11)
    costs = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [3.0, 1.0, 0.0]])
    bound = runs.price(candidate, costs)
    worst = best = expected = 0.0
    for c in range(3):
        rows = np.flatnonzero(truth == c)
        totals = []
        for pairing in itertools.permutations(rows):
            out = combine.reduce([vectors["m1"][rows], candidate[list(pairing)],
                                  vectors["m3"][rows]]).argmax(axis=1)
            totals.append(costs[c, out].sum())
        worst, best = worst + max(totals), best + min(totals)
        every = combine(combine(vectors["m1"][rows][:, None], candidate[rows][None]),
                        vectors["m3"][rows][:, None]).argmax(axis=2)
        expected += costs[c, every].mean() * rows.size
    assert bound.worst_cost == pytest.approx(worst, rel=1e-12)
    assert bound.best_cost == pytest.approx(best, rel=1e-12)
    assert bound.expected_cost == pytest.approx(expected, rel=1e-12)
    assert bound.worst.cost(cc.CostMatrix(costs, labels=LABELS)) == pytest.approx(worst)
    other = cc.price_scores(runs, runs.candidate_by_class(candidate), costs,
                            same_instances=False)
    assert other.best_cost <= bound.best_cost + 1e-9
    assert other.worst_cost >= bound.worst_cost - 1e-9


def test_a_function_of_vectors_and_weights_with_max_are_refused() -> None:
    log = _log(10, 9)
    kw = dict(truth="y", models=["m1", "m2", "m3"], slot="m2", labels=LABELS,
              scores={label: "{model}_" + label for label in LABELS})
    with pytest.raises(ValidationError, match="weights= is an option of fusioner='mean'"):
        cc.forced_runs(log, fusioner="max", weights=[1, 2, 1], **kw)
    with pytest.raises(ValidationError, match="a function of probability vectors is not "
                                              "priced"):
        cc.forced_runs(log, fusioner=np.mean, **kw)


def test_the_high_confidence_case_on_other_rows(runs: cc.ScoreRuns) -> None:
    other = _log(90, 21)
    truth = other["y"].to_numpy()
    vectors = _candidate(90, 22)
    table = cc.compare(runs, y_true=truth, scores={"new": vectors}, confidence=0.8)
    row = table.loc["new"]
    assert row["high_confidence_worst_cost"] >= row["worst_cost"] >= row["eval1"]
    assert row["eval1"] >= row["best_cost"] >= row["high_confidence_best_cost"]
    report = cc.evaluate(runs, (truth, vectors), confidence=0.8)
    assert report.high_confidence_worst_cost == pytest.approx(row["high_confidence_worst_cost"])
    with pytest.raises(ValidationError, match="on the same rows the worst and best case are "
                                              "exact"):
        cc.compare(runs, scores={"own": _candidate(60, 23)}, confidence=0.8)
