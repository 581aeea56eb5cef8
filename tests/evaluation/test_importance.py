"""cc.slot_importance: the system cost with each slot as is, perfect, constant P / N, removed.

Every column is recomputed by brute force on random logs (the rule re-applied with numpy to
the log with the slot's column replaced), the intervals from statsmodels' Wilson interval
directly, and the network form against pgmpy's VariableElimination on ``model.do([slot])``.
"""

from __future__ import annotations

import json
import math
import warnings
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from owner_reference import SPECS, confusion_cells, cost_of, random_log, reference_fuse
from statsmodels.stats.proportion import proportion_confint

import causalcost as cc
from causalcost.errors import CausalCostError, InputTypeError

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.inference import VariableElimination

MODELS = ["a", "b", "c", "d"]
COSTS = cc.CostMatrix(fn=5, fp=1, tp=0.5)
VERSIONS = ("as_is", "perfect", "constant_p", "constant_n", "removed")


def brute_force(log: pd.DataFrame, models: list[str], rule: str, options: dict,
                removal_tie: str | None) -> dict[tuple[str, str], tuple[int, int, int, int]]:
    """Every (model, version) confusion by re-running the rule on modified logs."""
    y = log["y"].to_numpy().astype(bool)
    votes = {m: log[m].to_numpy().astype(bool) for m in models}
    out = {}
    for slot in models:
        variants = {"as_is": votes[slot], "perfect": y, "constant_p": np.ones_like(y),
                    "constant_n": np.zeros_like(y)}
        for version, column in variants.items():
            out[slot, version] = confusion_cells(
                y, reference_fuse(votes | {slot: column}, models, rule, **options))
        others = [m for m in models if m != slot]
        if rule in ("and", "or") or (rule == "majority"
                                     and (len(others) % 2 == 1 or removal_tie)):
            tie = {"tie": removal_tie} if removal_tie else {}
            out[slot, "removed"] = confusion_cells(
                y, reference_fuse(votes, others, rule, **tie))
    return out


@pytest.mark.parametrize("removal_tie", [None, "negative", "positive"])
@pytest.mark.parametrize(("rule", "options"), SPECS, ids=[f"{r}{o}" for r, o in SPECS])
def test_every_column_against_brute_force(rule: str, options: dict,
                                          removal_tie: str | None) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{rule}{options}{removal_tie}".encode()))
    log = random_log(rng, 500, MODELS)
    result = cc.slot_importance(log, truth="y", models=MODELS, fusioner=rule, costs=COSTS,
                                removal_tie=removal_tie, **options)
    frame = result.to_frame()
    assert list(frame.index) == MODELS
    assert any("perfect" in c for c in frame.columns)
    expected = brute_force(log, MODELS, rule, options, removal_tie)
    for slot in MODELS:
        for version in VERSIONS:
            value = frame.loc[slot, f"{version}_cost"]
            if (slot, version) not in expected:
                assert math.isnan(value) and slot in result.notes
                assert "not defined" in result.notes[slot]
                continue
            cells = expected[slot, version]
            assert result.confusions[slot, version].cells() == cells
            assert value == pytest.approx(cost_of(cells, COSTS), rel=1e-12)
        row = frame.loc[slot]
        assert row["perfect_gain"] == pytest.approx(row["as_is_cost"] - row["perfect_cost"],
                                                    rel=1e-12, abs=1e-12)
        if not math.isnan(row["removed_cost"]):
            assert row["removal_loss"] == pytest.approx(
                row["removed_cost"] - row["as_is_cost"], rel=1e-12, abs=1e-12)
    # the as-is system is the same whichever slot is looked at
    assert frame["as_is_cost"].nunique() == 1
    if rule in ("k_of_n", "weighted"):  # removal is never defined there
        assert frame["removed_cost"].isna().all()


def test_per_class_costs_and_wilson_intervals() -> None:
    rng = np.random.default_rng(21)
    log = random_log(rng, 400, ["a", "b", "c"])
    result = cc.slot_importance(log, truth="y", models=["a", "b", "c"], fusioner="majority",
                                costs=COSTS, confidence=0.9)
    frame, classes = result.frame, result.per_class
    for (slot, version), m in result.confusions.items():
        tp, fn, fp, tn = m.cells()
        costs_by_class = {}
        total_low = total_high = 0.0
        for cname, n, errors, wrong, right in (("P", tp + fn, fn, COSTS.fn, COSTS.tp),
                                               ("N", fp + tn, fp, COSTS.fp, COSTS.tn)):
            row = classes.loc[(slot, version, cname)]
            assert row["n"] == n and row["errors"] == errors
            assert row["error_rate"] == pytest.approx(errors / n, rel=1e-12)
            costs_by_class[cname] = errors * wrong + (n - errors) * right
            assert row["cost"] == pytest.approx(costs_by_class[cname], rel=1e-12)
            low, high = proportion_confint(errors, n, alpha=0.1, method="wilson")
            assert row["rate_ci_low"] == pytest.approx(low, rel=1e-9, abs=1e-12)
            assert row["rate_ci_high"] == pytest.approx(high, rel=1e-9, abs=1e-12)
            ends = sorted(n * (r * wrong + (1 - r) * right) for r in (low, high))
            assert row["cost_ci_low"] == pytest.approx(ends[0], rel=1e-9, abs=1e-12)
            assert row["cost_ci_high"] == pytest.approx(ends[1], rel=1e-9, abs=1e-12)
            assert row["cost_ci_low"] <= row["cost"] <= row["cost_ci_high"]
            # the total's interval: the class intervals at sqrt(confidence), summed
            low, high = proportion_confint(errors, n, alpha=1 - math.sqrt(0.9),
                                           method="wilson")
            ends = sorted(n * (r * wrong + (1 - r) * right) for r in (low, high))
            total_low, total_high = total_low + ends[0], total_high + ends[1]
        assert sum(costs_by_class.values()) == pytest.approx(
            frame.loc[slot, f"{version}_cost"], rel=1e-12)
        assert frame.loc[slot, f"{version}_ci_low"] == pytest.approx(total_low, rel=1e-9)
        assert frame.loc[slot, f"{version}_ci_high"] == pytest.approx(total_high, rel=1e-9)
    # removal is undefined here (two others can tie): no interval either
    assert frame["removed_ci_low"].isna().all()
    no_ci = cc.slot_importance(log, truth="y", models=["a", "b", "c"], fusioner="majority",
                               costs=COSTS, confidence=None)
    assert not any("ci" in c for c in no_ci.frame.columns)
    pd.testing.assert_series_equal(no_ci.frame["perfect_cost"], frame["perfect_cost"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(SPECS), st.integers(4, 30))
def test_orderings_that_always_hold(seed: int, spec, n: int) -> None:
    """For monotone rules a perfect slot is never worse than constant P on positives and
    constant N on negatives; every version's cost is between the all-right and all-wrong
    system; the interval contains the point."""
    rule, options = spec
    log = random_log(np.random.default_rng(seed), n, MODELS)
    log.loc[0, "y"], log.loc[1, "y"] = 1, 0
    result = cc.slot_importance(log, truth="y", models=MODELS, fusioner=rule, costs=COSTS,
                                removal_tie="negative", **options)
    for slot in MODELS:
        perfect = result.confusions[slot, "perfect"]
        assert perfect.fn == result.confusions[slot, "constant_p"].fn
        assert perfect.fp == result.confusions[slot, "constant_n"].fp
        assert perfect.fn <= result.confusions[slot, "constant_n"].fn
        assert perfect.fp <= result.confusions[slot, "constant_p"].fp
        for version in VERSIONS:
            low = result.frame.loc[slot, f"{version}_ci_low"]
            if not math.isnan(low):
                point = result.frame.loc[slot, f"{version}_cost"]
                high = result.frame.loc[slot, f"{version}_ci_high"]
                assert low - 1e-9 <= point <= high + 1e-9


def error_rate(ve: VariableElimination, system: cc.System, cls: str, forced: str) -> float:
    """P(system wrong | Class = cls, do(slot = forced))."""
    f = ve.query([system.confusion_node],
                 evidence={system.slot: forced, system.class_node: cls}, show_progress=False)
    wrong = "FN" if cls == system.positive else "FP"
    return float(f.get_value(**{system.confusion_node: wrong}))


def pgmpy_importance(system: cc.System, n: float) -> dict[tuple[str, str], tuple]:
    """Expected confusions per slot and version by VariableElimination on do([slot])."""
    ve = VariableElimination(system.network)
    prior = ve.query([system.class_node], show_progress=False)
    p_pos = float(prior.get_value(**{system.class_node: system.positive}))
    pos, neg = p_pos * n, (1 - p_pos) * n
    joint = ve.query([system.class_node, system.confusion_node], show_progress=False)
    observed = {k: float(joint.get_value(**{system.class_node: c, system.confusion_node: k}))
                * n for c, ks in ((system.positive, ("TP", "FN")),
                                  (system.negative(), ("FP", "TN"))) for k in ks}
    out = {}
    for slot in system.models:
        one = system.with_slot(slot)
        mutilated = VariableElimination(one.network.do([slot]))

        P, N = one.positive, one.negative()
        for version, (x_pos, x_neg) in {"perfect": (P, N), "constant_p": (P, P),
                                        "constant_n": (N, N)}.items():
            fn = pos * error_rate(mutilated, one, P, x_pos)
            fp = neg * error_rate(mutilated, one, N, x_neg)
            out[slot, version] = (pos - fn, fn, fp, neg - fp)
        out[slot, "as_is"] = (observed["TP"], observed["FN"], observed["FP"], observed["TN"])
    return out


@pytest.mark.parametrize("name", ["thesis_and", "thesis_or", "majority3", "anticorrelated_and",
                                  "population_and"])
def test_network_form_against_variable_elimination(name: str) -> None:
    system = cc.load_network(name)
    result = cc.slot_importance(system, costs=COSTS, n=300)
    assert result.source == "network" and result.confidence is None
    reference = pgmpy_importance(system, 300)
    for (slot, version), cells in reference.items():
        got = result.confusions[slot, version].cells()
        assert got == pytest.approx(cells, rel=1e-9, abs=1e-9)
        assert result.frame.loc[slot, f"{version}_cost"] == pytest.approx(
            cost_of(cells, COSTS), rel=1e-9)
    assert result.frame["removed_cost"].isna().all()
    assert set(result.notes) == set(system.models)


def test_thesis_and_worked_numbers() -> None:
    """Thesis AND system, 300 instances (100 P): images catches 80 % of positives, the
    clinical history half; a perfect model in one slot leaves the other's misses (x 5)."""
    result = cc.slot_importance(cc.load_network("thesis_and"), costs=cc.CostMatrix(fn=5, fp=1),
                                n=300)
    assert result.frame.loc["clinical_history", "perfect_cost"] == pytest.approx(100.0)
    assert result.frame.loc["images", "perfect_cost"] == pytest.approx(250.0)


def test_outputs_and_bad_input() -> None:
    rng = np.random.default_rng(2)
    log = random_log(rng, 200, ["a", "b"])
    result = cc.slot_importance(log, truth="y", models=["a", "b"], fusioner="and", costs=COSTS)
    record = json.loads(json.dumps(result.to_dict()))
    assert [m["model"] for m in record["models"]] == ["a", "b"]
    assert set(record["models"][0]["confusions"]) == set(VERSIONS)
    assert "a perfect" in repr(result) and "<table" in result._repr_html_()
    single = cc.slot_importance(log, truth="y", models=["a"], fusioner="or", costs=COSTS)
    assert math.isnan(single.frame.loc["a", "removed_cost"])
    assert "only model" in single.notes["a"]
    with pytest.raises(InputTypeError, match="costs must be a CostMatrix"):
        cc.slot_importance(log, truth="y", models=["a", "b"], fusioner="and", costs=None)
    with pytest.raises(CausalCostError, match="needs truth= and fusioner="):
        cc.slot_importance(log, models=["a", "b"], fusioner="and", costs=COSTS)
    with pytest.raises(CausalCostError, match="removal_tie must be"):
        cc.slot_importance(log, truth="y", models=["a", "b"], fusioner="and", costs=COSTS,
                           removal_tie="up")
    with pytest.raises(CausalCostError, match="positive number"):
        cc.slot_importance(cc.load_network("thesis_and"), costs=COSTS, n=0)
    with pytest.raises(CausalCostError, match="'zz'"):
        cc.slot_importance(log, truth="y", models=["a", "zz"], fusioner="and", costs=COSTS)


def test_a_function_fusioner_has_no_removal_but_every_other_version() -> None:
    rng = np.random.default_rng(13)
    log = random_log(rng, 300, ["a", "b", "c"])
    xor = lambda a, b, c: a ^ b ^ c  # noqa: E731 - a rule in one line
    result = cc.slot_importance(log, truth="y", models=["a", "b", "c"], fusioner="function",
                                function=xor, costs=COSTS)
    y = log["y"].to_numpy().astype(bool)
    votes = {m: log[m].to_numpy().astype(bool) for m in "abc"}
    for slot in "abc":
        for version, column in (("perfect", y), ("constant_p", np.ones_like(y)),
                                ("constant_n", np.zeros_like(y)), ("as_is", votes[slot])):
            v = votes | {slot: column}
            system = (v["a"].astype(int) + v["b"] + v["c"]) % 2 == 1
            assert result.confusions[slot, version].cells() == confusion_cells(y, system)
        assert math.isnan(result.frame.loc[slot, "removed_cost"])
        assert "needs every vote" in result.notes[slot]
