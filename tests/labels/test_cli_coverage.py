"""The coverage experiment on a K-label system: the function and ``experiment coverage
--labels K`` (few repetitions)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli.app import main
from causalcost.errors import ValidationError
from causalcost.experiments.label_coverage import label_coverage


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
    ({"k": 1}, "k \\(the number of labels\\)"),
    ({"repetitions": 0}, "repetitions"),
    ({"confidence": 1.0}, "confidence"),
    ({"others": [1.5]}, "others"),
    ({"costs": np.eye(3)}, "right output must not cost more"),
])
def test_refusals(kwargs, message) -> None:
    k = kwargs.pop("k", 3)
    with pytest.raises(cc.CausalCostError, match=message):
        label_coverage(k, n1=[10], n2=[10], repetitions=kwargs.pop("repetitions", 2), **kwargs)
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
