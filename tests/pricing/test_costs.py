"""Tests of cost functions 1 and 2 (causalcost.pricing.costs).

Expected numbers come from the thesis (seeds/002_c815aea2daaf5faa.txt): §4 "FUNCIÓN DE COSTO
NUMERO 1/2", examples 1 (AND fusioner, 80 %/80 % images model) and 2 (OR fusioner, 25 %/50 %
images model), §3.3 (AND, 50 % model 1), and from the formulas of design/METHOD.md.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import CostMatrixError, ValidationError
from causalcost.inference.table import ErrorRates
from causalcost.pricing.costs import (
    CostEvaluation,
    ModelCostMatrix,
    error_transition_matrix,
    evaluate_costs,
    expected_cost_matrix,
    expected_system_confusion,
    perfect_slot_cost,
)

REL = 1e-12

# Thesis §4, example 1: AND fusioner, images model 80 % on both classes.
AND_RATES = ErrorRates(fn_forced_p=0.2, fn_forced_n=1.0, fp_forced_p=0.2, fp_forced_n=0.0)
# Thesis §4, example 2: OR fusioner, images model 25 % on positives, 50 % on negatives.
OR_RATES = ErrorRates(fn_forced_p=0.0, fn_forced_n=0.75, fp_forced_p=1.0, fp_forced_n=0.5)
THESIS_COSTS = CostMatrix(fn=5, fp=1)
# Thesis §4, example 1: slot model 50 % accuracy on 100 positives and 200 negatives.
AND_MODEL = Confusion(tp=50, fn=50, fp=100, tn=100)
# Thesis §4, example 2: slot model 40 % on 100 positives, 50 % on 200 negatives.
OR_MODEL = Confusion(tp=40, fn=60, fp=100, tn=100)


def cells(m: ModelCostMatrix) -> dict[str, float]:
    return m.to_dict()


# ------------------------------------------------------------------------ thesis §4, exact
def test_cost_function_1_example_1_matrix() -> None:
    # thesis §4, cost function 1, example 1: TP 1, TN 0, FP 0.2, FN 5
    m = expected_cost_matrix(AND_RATES, THESIS_COSTS)
    assert m.kind == "expected"
    assert cells(m) == pytest.approx({"tp": 1.0, "fn": 5.0, "fp": 0.2, "tn": 0.0}, rel=REL)


def test_cost_function_1_example_1_eval_is_320() -> None:
    # thesis §4, cost function 1, example 1: 320
    assert expected_cost_matrix(AND_RATES, THESIS_COSTS).evaluate(AND_MODEL) == pytest.approx(
        320.0, rel=REL)


def test_cost_function_1_example_2_matrix_and_eval_375() -> None:
    # thesis §4, cost function 1, example 2: TP 0, TN 0.5, FP 1, FN 3.75; total 375
    m = expected_cost_matrix(OR_RATES, THESIS_COSTS)
    assert cells(m) == pytest.approx({"tp": 0.0, "fn": 3.75, "fp": 1.0, "tn": 0.5}, rel=REL)
    assert m.evaluate(OR_MODEL) == pytest.approx(375.0, rel=REL)


def test_cost_function_2_example_1_matrix_and_eval_220() -> None:
    # thesis §4, cost function 2, example 1: TP 0, TN 0, FP 0.2, FN 4; total 220
    m = error_transition_matrix(AND_RATES, THESIS_COSTS)
    assert m.kind == "transition"
    assert cells(m) == pytest.approx({"tp": 0.0, "fn": 4.0, "fp": 0.2, "tn": 0.0}, rel=REL)
    assert m.evaluate(AND_MODEL) == pytest.approx(220.0, rel=REL)


def test_cost_function_2_example_2_matrix_and_eval_275() -> None:
    # thesis §4, cost function 2, example 2: FP 0.5, FN 3.75; total 275
    m = error_transition_matrix(OR_RATES, THESIS_COSTS)
    assert cells(m) == pytest.approx({"tp": 0.0, "fn": 3.75, "fp": 0.5, "tn": 0.0}, rel=REL)
    assert m.evaluate(OR_MODEL) == pytest.approx(275.0, rel=REL)


@pytest.mark.parametrize(
    ("rates", "model", "eval1", "eval2", "perfect"),
    [
        # thesis §4 example 1: 320 and 220; perfect slot: 20 % of 100 positives x 5 = 100
        (AND_RATES, AND_MODEL, 320.0, 220.0, 100.0),
        # thesis §4 example 2: 375 and 275; perfect slot: 50 % of 200 negatives x 1 = 100
        (OR_RATES, OR_MODEL, 375.0, 275.0, 100.0),
    ],
)
def test_evaluate_costs_thesis_examples(
    rates: ErrorRates, model: Confusion, eval1: float, eval2: float, perfect: float
) -> None:
    ev = evaluate_costs(rates, THESIS_COSTS, model)
    assert isinstance(ev, CostEvaluation)
    assert ev.eval1 == pytest.approx(eval1, rel=REL)
    assert ev.eval2 == pytest.approx(eval2, rel=REL)
    assert ev.perfect_slot_cost == pytest.approx(perfect, rel=REL)
    assert ev.identity_gap == pytest.approx(0.0, abs=1e-9)
    assert ev.model == model


@pytest.mark.parametrize(
    ("rates", "model", "fn", "fp"),
    [
        # thesis §4 example 1: P(FN|P) = 60 % of 100, P(FP|N) = 10 % of 200
        (AND_RATES, AND_MODEL, 60.0, 20.0),
        # thesis §4 example 2: P(FN|P) = 45 % of 100, P(FP|N) = 75 % of 200
        (OR_RATES, OR_MODEL, 45.0, 150.0),
    ],
)
def test_expected_system_confusion_thesis(
    rates: ErrorRates, model: Confusion, fn: float, fp: float
) -> None:
    s = expected_system_confusion(rates, model)
    assert s.fn == pytest.approx(fn, rel=REL)
    assert s.fp == pytest.approx(fp, rel=REL)
    assert s.positives == pytest.approx(model.positives, rel=REL)
    assert s.negatives == pytest.approx(model.negatives, rel=REL)
    # thesis: "esta igualdad se mantiene dentro de cada clase" -> the total is Eval1 as well
    assert s.cost(THESIS_COSTS) == pytest.approx(
        expected_cost_matrix(rates, THESIS_COSTS).evaluate(model), rel=REL)


def test_thesis_3_3_cost_function_1_predicts_75() -> None:
    # thesis §3.3: AND, model 1 50 % on positives, c_FN = 1: C1_TP = 1/2, C1_FN = 1, and a
    # 50 % slot model on 100 positives is estimated at 75
    rates = ErrorRates(fn_forced_p=0.5, fn_forced_n=1.0, fp_forced_p=0.0, fp_forced_n=0.0)
    m = expected_cost_matrix(rates, CostMatrix(fn=1, fp=1))
    assert (m.tp, m.fn) == (0.5, 1.0)
    assert m.evaluate(Confusion(tp=50, fn=50, fp=0, tn=0)) == 75.0


def test_perfect_slot_cost_is_eval1_of_a_perfect_model() -> None:
    # definition (METHOD.md, cost function 2): Eval1 of tp = positives, tn = negatives
    got = perfect_slot_cost(OR_RATES, THESIS_COSTS, positives=100, negatives=200)
    want = expected_cost_matrix(OR_RATES, THESIS_COSTS).evaluate(Confusion(100, 0, 0, 200))
    assert got == want == pytest.approx(100.0, rel=REL)


# ------------------------------------------------------------- general costs, independence
def test_general_costs_by_hand() -> None:
    # METHOD.md formulas with c_TP=1, c_FN=5, c_FP=3, c_TN=0.5 and the AND rates:
    # C1_TP = .2*5 + .8*1 = 1.8; C1_FN = 5; C1_FP = .2*3 + .8*.5 = 1.0; C1_TN = .5
    # C2_FN = (1 - .2)(5 - 1) = 3.2; C2_FP = (.2 - 0)(3 - .5) = 0.5
    costs = CostMatrix(tp=1, fn=5, fp=3, tn=0.5)
    c1 = expected_cost_matrix(AND_RATES, costs)
    c2 = error_transition_matrix(AND_RATES, costs)
    assert cells(c1) == pytest.approx({"tp": 1.8, "fn": 5.0, "fp": 1.0, "tn": 0.5}, rel=REL)
    assert cells(c2) == pytest.approx({"tp": 0.0, "fn": 3.2, "fp": 0.5, "tn": 0.0}, rel=REL)


def _fuse(kind: str, a: str, b: str) -> str:
    if kind == "and":
        return "P" if a == b == "P" else "N"
    return "P" if "P" in (a, b) else "N"


def _independent_system_cost(kind: str, acc1: tuple[float, float], model: Confusion,
                             costs: CostMatrix) -> float:
    """Exact expected cost of a two-model system whose models err independently given the class.

    Model 1 is right with probability acc1[0] on positives and acc1[1] on negatives; the slot's
    outcomes are the counts of ``model``. Computed from the fusioner's truth table, not from
    the rates, so it checks cost function 1 independently.
    """
    price = {("P", "P"): costs.tp, ("P", "N"): costs.fn, ("N", "P"): costs.fp,
             ("N", "N"): costs.tn}
    total = 0.0
    for true, acc, outcomes in (("P", acc1[0], ((model.tp, "P"), (model.fn, "N"))),
                                ("N", acc1[1], ((model.tn, "N"), (model.fp, "P")))):
        wrong = "N" if true == "P" else "P"
        for count, slot in outcomes:
            for pred1, prob in ((true, acc), (wrong, 1.0 - acc)):
                total += count * prob * price[(true, _fuse(kind, pred1, slot))]
    return total


def _rates_of_fusioner(kind: str, acc1: tuple[float, float]) -> ErrorRates:
    """do(slot = x) on the two-model system: e_c(x) = P(fusion(pred1, x) wrong | class c)."""
    def e(true: str, forced: str, acc: float) -> float:
        wrong = "N" if true == "P" else "P"
        return sum(p for pred1, p in ((true, acc), (wrong, 1 - acc))
                   if _fuse(kind, pred1, forced) != true)
    return ErrorRates(e("P", "P", acc1[0]), e("P", "N", acc1[0]), e("N", "P", acc1[1]),
                      e("N", "N", acc1[1]))


def test_fusioner_rates_reproduce_thesis_rates() -> None:
    # thesis §4 examples: AND with 80 %/80 % -> 20 %, 100 %, 20 %, 0 %; OR with 25 %/50 %
    # -> 0 %, 75 %, 100 %, 50 %
    def four(r: ErrorRates) -> list[float]:
        return [r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n]

    assert four(_rates_of_fusioner("and", (0.8, 0.8))) == pytest.approx(
        [0.2, 1.0, 0.2, 0.0], rel=REL, abs=1e-15)
    assert four(_rates_of_fusioner("or", (0.25, 0.5))) == pytest.approx(
        [0.0, 0.75, 1.0, 0.5], rel=REL, abs=1e-15)


costs_st = st.builds(
    lambda tp, dfn, tn, dfp: CostMatrix(tp=tp, fn=tp + dfn, fp=tn + dfp, tn=tn),
    st.floats(0, 10), st.floats(0, 10), st.floats(0, 10), st.floats(0, 10),
)
rates_st = st.builds(ErrorRates, *(st.floats(0, 1) for _ in range(4)))
models_st = st.builds(Confusion, *(st.integers(0, 10**6) for _ in range(4)))


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["and", "or"]), a=st.floats(0, 1), b=st.floats(0, 1),
       model=models_st, costs=costs_st)
def test_eval1_is_exact_under_independence(kind: str, a: float, b: float, model: Confusion,
                                           costs: CostMatrix) -> None:
    # METHOD.md: Eval1 equals the system's real cost when the slot's errors are independent
    want = _independent_system_cost(kind, (a, b), model, costs)
    got = expected_cost_matrix(_rates_of_fusioner(kind, (a, b)), costs).evaluate(model)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-6)


@settings(max_examples=300, deadline=None)
@given(rates=rates_st, costs=costs_st, model=models_st)
def test_identities(rates: ErrorRates, costs: CostMatrix, model: Confusion) -> None:
    ev = evaluate_costs(rates, costs, model)
    scale = 1.0 + abs(ev.eval1)
    # METHOD.md cost function 2: Eval2 = Eval1 - (cost with a perfect model in the slot)
    assert ev.identity_gap == pytest.approx(0.0, abs=1e-9 * scale)
    # cost function 1's system confusion costs exactly Eval1 (task brief)
    expected = expected_system_confusion(rates, model)
    assert expected.cost(costs) == pytest.approx(ev.eval1, rel=1e-9, abs=1e-9 * scale)
    assert expected.positives == pytest.approx(model.positives, rel=1e-12)
    assert expected.negatives == pytest.approx(model.negatives, rel=1e-12)
    # the transition matrix has a zero diagonal and its cells are C1 differences
    c1, c2 = ev.expected_cost_matrix, ev.error_transition_matrix
    assert c2.tp == c2.tn == 0.0
    assert c2.fn == pytest.approx(c1.fn - c1.tp, abs=1e-9 * (1 + abs(c1.fn)))
    assert c2.fp == pytest.approx(c1.fp - c1.tn, abs=1e-9 * (1 + abs(c1.fp)))


# ----------------------------------------------------------------- non-monotone systems
def test_non_monotone_rates_give_information_not_errors() -> None:
    # an XOR-like slot: the system fails more with the slot right than wrong
    rates = ErrorRates(fn_forced_p=0.9, fn_forced_n=0.1, fp_forced_p=0.3, fp_forced_n=0.6)
    c1 = expected_cost_matrix(rates, THESIS_COSTS)
    c2 = error_transition_matrix(rates, THESIS_COSTS)
    assert c1.tp > c1.fn  # 4.5 > 0.5
    assert c1.tn > c1.fp  # 0.6 > 0.3
    assert c2.fn == pytest.approx((0.1 - 0.9) * 5, rel=REL)
    assert c2.fp == pytest.approx((0.3 - 0.6) * 1, rel=REL)
    assert c2.fn < 0 and c2.fp < 0


# ---------------------------------------------------------------------- the value types
def test_model_cost_matrix_conversions() -> None:
    m = ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind="expected")
    assert m.cells() == (1.0, 5.0, 0.2, 0.0)
    assert m.to_dict() == {"tp": 1.0, "fn": 5.0, "fp": 0.2, "tn": 0.0}
    assert m.to_array().tolist() == [[1.0, 5.0], [0.2, 0.0]]
    frame = m.to_frame()
    assert frame.loc["P", "N"] == 5.0 and frame.loc["N", "P"] == 0.2  # rows true, cols pred
    assert frame.equals(CostMatrix(tp=1, fn=5, fp=0.2, tn=0).to_frame())
    assert repr(m) == "ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')"
    assert "<table" in m._repr_html_() and "cost function 1" in m._repr_html_()
    assert isinstance(m.tp, float)


def test_model_cost_matrix_allows_non_monotone_cells() -> None:
    m = ModelCostMatrix(tp=3, fn=-1, fp=0, tn=2, kind="transition")
    assert m.evaluate(Confusion(1, 1, 1, 1)) == 4.0


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_model_cost_matrix_rejects_non_finite(bad: float) -> None:
    with pytest.raises(CostMatrixError, match="fn must be finite"):
        ModelCostMatrix(tp=0, fn=bad, fp=0, tn=0, kind="expected")


def test_model_cost_matrix_rejects_bad_kind_and_types() -> None:
    with pytest.raises(ValidationError, match=r"kind \('cost1'\) must be one of 'expected'"):
        ModelCostMatrix(0, 1, 1, 0, kind="cost1")
    with pytest.raises(TypeError, match="tp must be a real number"):
        ModelCostMatrix("1", 1, 1, 0, kind="expected")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tp must be a real number"):
        ModelCostMatrix(True, 1, 1, 0, kind="expected")
    with pytest.raises(TypeError, match="model must be a Confusion"):
        ModelCostMatrix(0, 1, 1, 0, kind="expected").evaluate((1, 1, 1, 1))  # type: ignore


def test_cost_evaluation_views() -> None:
    ev = evaluate_costs(AND_RATES, THESIS_COSTS, AND_MODEL)
    d = ev.to_dict()
    assert d["eval1"] == pytest.approx(320.0, rel=REL)  # thesis §4 example 1
    assert d["eval2"] == pytest.approx(220.0, rel=REL)
    assert d["expected_cost_matrix"] == pytest.approx(
        {"tp": 1.0, "fn": 5.0, "fp": 0.2, "tn": 0.0}, rel=REL)
    assert d["model"] == AND_MODEL.to_dict()
    frame = ev.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == ["expected", "transition"]
    assert list(frame.columns) == ["tp", "fn", "fp", "tn", "evaluation"]
    assert frame.loc["transition", "evaluation"] == pytest.approx(220.0, rel=REL)
    assert repr(ev).startswith("CostEvaluation(eval1=320, eval2=220, perfect_slot_cost=100")
    assert "<table" in ev._repr_html_()


# ----------------------------------------------------------------------------- bad input
def test_rates_outside_unit_interval_are_rejected() -> None:
    with pytest.raises(ValidationError, match=r"probability in \[0, 1\], got 1.2"):
        ErrorRates(fn_forced_p=1.2, fn_forced_n=1.0, fp_forced_p=0.0, fp_forced_n=0.0)
    with pytest.raises(ValidationError, match=r"probability in \[0, 1\], got -0.1"):
        ErrorRates(0.0, 1.0, -0.1, 0.0)


def test_cost_matrix_where_a_hit_costs_more_is_rejected() -> None:
    with pytest.raises(CostMatrixError, match="cost tp=2 exceeds cost fn=1"):
        CostMatrix(tp=2, fn=1, fp=1)
    with pytest.raises(CostMatrixError, match="cost tn=3 exceeds cost fp=1"):
        CostMatrix(fn=1, fp=1, tn=3)


def test_wrong_types_are_type_errors() -> None:
    with pytest.raises(TypeError, match="rates must be ErrorRates"):
        expected_cost_matrix({"P": {"P": 0.2}}, THESIS_COSTS)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="costs must be a CostMatrix"):
        error_transition_matrix(AND_RATES, np.array([[0, 5], [1, 0]]))  # type: ignore
    with pytest.raises(TypeError, match="model must be a Confusion"):
        evaluate_costs(AND_RATES, THESIS_COSTS, [50, 50, 100, 100])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model must be a Confusion"):
        expected_system_confusion(AND_RATES, None)  # type: ignore[arg-type]
