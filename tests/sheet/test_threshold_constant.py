"""A threshold optimum at which the slot votes one label on every instance is flagged, with what
the system becomes there (issue 16).

Reference: the system computed by hand on the logged rows, with the slot's column replaced by
a constant (a majority of three with one vote fixed to P is the OR of the other two, fixed to
N the AND), and its cost summed row by row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.sheet.thresholds import system_thresholds


def logs(seed: int, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pd.DataFrame({"y": y, **{m: np.where(rng.random(n) < acc, y, ~y)
                                    for m, acc in (("a", 0.8), ("b", 0.7), ("c", 0.75))}})


def hand_cost(y: np.ndarray, system: np.ndarray, costs: cc.CostMatrix) -> float:
    cells = {"tp": y & system, "fn": y & ~system, "fp": ~y & system, "tn": ~y & ~system}
    return float(sum(getattr(costs, k) * int(v.sum()) for k, v in cells.items()))


@pytest.mark.parametrize(("costs", "vote", "rule", "combine"), [
    (cc.CostMatrix(fn=50, fp=1), "P", "majority of 3 acts as OR of the other two", np.logical_or),
    (cc.CostMatrix(fn=1, fp=50), "N", "majority of 3 acts as AND of the other two",
     np.logical_and),
])
def test_a_constant_optimum_is_flagged_with_what_the_system_becomes(costs, vote, rule,
                                                                    combine) -> None:
    data = logs(0)
    sheet = cc.sheet_from_data(data, costs, truth="y", models=["a", "b", "c"], slot="b",
                               fusioner="majority")
    scores = np.random.default_rng(1).random(len(data))  # a scorer that knows nothing
    sweep = system_thresholds(sheet, data.y, scores, same_instances=True)
    point = sweep.expected_optimum
    assert point.constant_vote == vote
    y = data.y.to_numpy()
    real = hand_cost(y, combine(data.a.to_numpy(), data.c.to_numpy()), costs)
    assert point.expected_cost == pytest.approx(real, rel=1e-12)
    flagged = [w for w in sweep.warnings if "votes " + vote + " on every instance" in w]
    assert flagged and rule in flagged[0] and "lowest expected system cost" in flagged[0]
    assert rule in str(sweep)


def test_no_flag_when_the_optimum_uses_the_scores() -> None:
    data = logs(2)
    costs = cc.CostMatrix(fn=2, fp=1)
    sheet = cc.sheet_from_data(data, costs, truth="y", models=["a", "b", "c"], slot="b",
                               fusioner="majority")
    y = data.y.to_numpy()
    scores = np.clip(0.6 * y + 0.4 * np.random.default_rng(3).random(len(y)), 0, 1)
    sweep = system_thresholds(sheet, y, scores, same_instances=True)
    assert sweep.expected_optimum.constant_vote is None
    assert sweep.worst_case_optimum.constant_vote is None
    assert not any("on every instance" in w for w in sweep.warnings)


def test_a_network_sheet_says_the_forced_run_it_becomes() -> None:
    sheet = cc.sheet_from_network("thesis_or", cc.CostMatrix(fn=50, fp=1))
    y = np.r_[np.ones(20, bool), np.zeros(40, bool)]
    scores = np.full(60, 0.5)  # a scorer that says nothing: all P (>= 0.5) or all N (inf)
    sweep = system_thresholds(sheet, y, scores)
    assert sweep.expected_optimum.constant_vote == "P"
    text = next(w for w in sweep.warnings if "on every instance" in w)
    rates = sheet.rates
    assert f"misses {rates.fn_forced_p:.0%} of positives and flags {rates.fp_forced_p:.0%}" \
        .replace("%", " %") in text
    assert "forced to P" in text
