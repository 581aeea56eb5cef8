"""The coverage experiment on a K-label system: the function and ``experiment coverage
--labels K`` (few repetitions)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli.app import main
from causalcost.errors import ValidationError


def test_high_confidence_holds_at_its_level() -> None:
    r = cc.coverage_experiment(labels=3, n1=[20, 200], n2=[50], repetitions=60, seed=2,
                               confidence=0.9)
    f = r.frame
    assert f[["n1", "n2"]].values.tolist() == [[20, 50], [200, 50]]
    assert (f["repetitions"] == 60).all()
    # the high-confidence worst case is never below the plain one, so it holds as often
    assert (f["p_high_confidence"] >= f["p_plain"]).all()
    # at least 90 % in truth; 60 repetitions put the observed share above 0.75 but for 1e-4
    assert (f["p_high_confidence"] >= 0.75).all()
    assert (f["tightness_high_confidence"] >= f["tightness_plain"] - 1e-12).all()
    assert "3 labels" in repr(r) and "<table" in r._repr_html_()


def test_seed_fixes_the_result_and_costs_matter() -> None:
    a = cc.coverage_experiment(labels=3, n1=[40], n2=[40], repetitions=15, seed=7)
    b = cc.coverage_experiment(labels=3, n1=[40], n2=[40], repetitions=15, seed=7)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    c = cc.coverage_experiment(labels=3, n1=[40], n2=[40], repetitions=15, seed=7,
                               costs=[[0, 1, 9], [1, 0, 1], [1, 1, 0]])
    assert c.frame["tightness_plain"].iloc[0] != a.frame["tightness_plain"].iloc[0]
    two = cc.coverage_experiment(labels=2, n1=[40], n2=[40], repetitions=10, seed=1)
    assert two.k == 2 and 0 <= two.frame["p_plain"].iloc[0] <= 1


@pytest.mark.parametrize("kwargs,message", [
    ({"labels": 1}, "labels \\(the number of labels K"),
    ({"labels": ["a", "a"]}, "2 distinct labels"),
    ({"labels": 11}, "at most 10 labels"),
    ({"labels": 3, "system": "thesis_and"}, "leave out system"),
    ({"labels": None, "others": [0.5]}, "give them with labels=K"),
    ({"repetitions": 0}, "repetitions"),
    ({"confidence": 1.0}, "confidence"),
    ({"others": [1.5]}, "others"),
    ({"costs": np.eye(3)}, "right output must not cost more"),
])
def test_refusals(kwargs, message) -> None:
    labels = kwargs.pop("labels", 3)
    with pytest.raises(cc.CausalCostError, match=message):
        cc.coverage_experiment(labels=labels, n1=[10], n2=[10],
                               repetitions=kwargs.pop("repetitions", 2), **kwargs)
    assert issubclass(ValidationError, cc.CausalCostError)


def test_cli_writes_the_csv(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    code = main(["experiment", "coverage", "--labels", "3", "--n1", "30", "--n2", "30,60",
                 "--repetitions", "5", "--quiet", "-o", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "coverage.csv")
    python = cc.coverage_experiment(labels=3, n1=[30], n2=[30, 60], repetitions=5, seed=0).frame
    np.testing.assert_allclose(frame["p_plain"], python["p_plain"])
    assert (tmp_path / "coverage_heatmap.png").exists()
    code = main(["experiment", "coverage", "thesis_and", "--labels", "3", "-o", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "leave out NETWORK" in err


def test_one_result_type_and_the_old_names_warn() -> None:
    three = cc.coverage_experiment(labels=3, n1=[20], n2=[20], repetitions=3, seed=4)
    assert type(three) is cc.CoverageResult and three.k == 3
    assert cc.coverage_experiment(n1=[10], n2=[10], repetitions=5).k == 2
    named = cc.coverage_experiment(labels=["ok", "flu", "covid"], n1=[20], n2=[20],
                                   repetitions=3, seed=4)
    pd.testing.assert_frame_equal(named.frame, three.frame)
    for old in ("label_coverage", "multiclass_coverage"):
        with pytest.warns(DeprecationWarning, match=r"coverage_experiment\(labels=K"):
            function = getattr(cc, old)
        pd.testing.assert_frame_equal(
            function(3, n1=[20], n2=[20], repetitions=3, seed=4).frame, three.frame)
    for old in ("LabelCoverageResult", "MulticlassCoverageResult"):
        with pytest.warns(DeprecationWarning, match="causalcost.CoverageResult"):
            assert getattr(cc, old) is cc.CoverageResult


def test_hold_rates_against_an_independent_count() -> None:
    """One cell recomputed by hand from the same draws: the plurality system counted with
    numpy, the plain worst case by brute force over the candidate's possible system outputs
    (its stage-1 rates on its class sizes) -- for K = 3 and 4."""
    from causalcost.experiments.plurality import _Law

    for k in (3, 4):
        result = cc.coverage_experiment(labels=k, n1=[40], n2=[30], repetitions=6, seed=9)
        child = np.random.SeedSequence(9).spawn(1)[0]
        rng = np.random.default_rng(child)
        law = _Law(k, (0.7, 0.6, 0.65), 0.3)
        costs = 1 - np.eye(k)
        held = 0
        for _ in range(6):
            while True:
                y1, v1 = law.draw(40, rng)
                if len(np.unique(y1)) == k:
                    break
            y2, v2 = law.draw(30, rng)
            real = costs[y2, _plurality(v2, k)].sum()
            worst = cc.bound(_forced(y1, v1, k).tolist(), _confusion(y2, v2[:, -1], k).tolist(),
                             costs).worst_cost
            held += real <= worst + 1e-9
        assert result.frame["p_plain"].iloc[0] == pytest.approx(held / 6, abs=1e-12)


def _plurality(votes: np.ndarray, k: int) -> np.ndarray:
    counts = np.stack([(votes == c).sum(axis=1) for c in range(k)], axis=1)
    return counts.argmax(axis=1)  # ties to the first label


def _forced(y: np.ndarray, votes: np.ndarray, k: int) -> np.ndarray:
    forced = np.zeros((k, k, k), dtype=int)
    for j in range(k):
        v = votes.copy()
        v[:, -1] = j
        for c, s in zip(y, _plurality(v, k)):
            forced[j, c, s] += 1
    return forced


def _confusion(y: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    n = np.zeros((k, k), dtype=int)
    for c, j in zip(y, pred):
        n[c, j] += 1
    return n
