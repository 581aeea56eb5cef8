"""Cost functions 1 and 2: pricing the slot model's outcomes by what they do to the system.

The system's cost matrix prices the *system's* outcomes; to judge one member model (the
"slot") without running the system for every candidate, we turn the slot's interventional
error rates ::

    e_P(x) = P(Conf^S = FN | Class = P, do(Pred^M = x))
    e_N(x) = P(Conf^S = FP | Class = N, do(Pred^M = x))

into a cost per *model* outcome (thesis §3.1, §3.2).

**Cost function 1** (expected system cost of each model outcome) weights every class-P outcome
by the positive-class costs and every class-N outcome by the negative-class costs::

    C1_TP = e_P(P) c_FN + (1 - e_P(P)) c_TP      C1_FN = e_P(N) c_FN + (1 - e_P(N)) c_TP
    C1_FP = e_N(P) c_FP + (1 - e_N(P)) c_TN      C1_TN = e_N(N) c_FP + (1 - e_N(N)) c_TN

(the thesis's formulas swap ``Costo_FN`` and ``Costo_FP`` in two cells; its worked examples use
the reading above). ``Eval1 = sum(C1 x model counts)`` is the system's real cost whenever the
slot's errors are independent of the rest of the system given the class.

**Cost function 2** (error transition) keeps only what a model mistake adds::

    C2_TP = C2_TN = 0
    C2_FN = (e_P(N) - e_P(P)) (c_FN - c_TP)      C2_FP = (e_N(P) - e_N(N)) (c_FP - c_TN)

so ``Eval1 = Eval2 + (system cost with a perfect model in the slot)``.

Neither is a bound: when the slot's errors are correlated with the rest of the system the real
cost can be anywhere between :func:`causalcost.pricing.bounds.bound`'s best and worst case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd

from causalcost.confusion import (
    CELLS,
    CLASSES,
    Confusion,
    CostMatrix,
    _as_count,
    _num,
)
from causalcost.confusion import format_number as _fmt
from causalcost.display import html_table
from causalcost.errors import CountError, InputTypeError, OverflowInputError
from causalcost.inference.table import ErrorRates
from causalcost.pricing.model_costs import MODEL_COST_KINDS, ModelCostMatrix, model_cost_matrices

__all__ = [
    "MODEL_COST_KINDS",
    "CostEvaluation",
    "ModelCostMatrix",
    "error_transition_matrix",
    "evaluate_costs",
    "expected_cost_matrix",
    "expected_system_confusion",
    "perfect_slot_cost",
]

def _is_label_table(rates: object) -> bool:
    """A K-label table ``T[c, j, s]`` (an object with ``probabilities`` or a 3-D array)."""
    if isinstance(rates, ErrorRates):
        return False
    if type(rates).__name__ == "InterventionalTable":
        return not rates.is_binary  # type: ignore[attr-defined]
    return hasattr(rates, "probabilities") or getattr(rates, "ndim", 0) == 3 or (
        isinstance(rates, (list, tuple)) and len(rates) > 0 and isinstance(rates[0], (
            list, tuple)) and len(rates[0]) > 0 and isinstance(rates[0][0], (list, tuple)))


def _label_costs(table: object, costs: object, kind: str) -> Any:
    """Cost function 1 or 2 of a table ``T[c, j, s]`` as a :class:`ModelCostMatrix` with the
    table's labels: for K = 2 by the binary closed forms (the fast path), else
    ``M1[c, j] = sum_s T[c, j, s] C[c, s]`` (and ``M2 = M1 - diag``)."""
    from causalcost.pricing.inputs import as_table_array, check_costs
    from causalcost.pricing.views import binary_costs, binary_rates, matrix_of

    t = as_table_array(table)
    if t.shape[0] == 2:
        c = binary_costs(check_costs(matrix_of(costs), 2))
        rates = binary_rates(table=t)
        fn = expected_cost_matrix if kind == "expected" else error_transition_matrix
        labels = getattr(table, "labels", None)
        out = fn(rates, c)
        return out if labels is None or tuple(labels) == out.labels else out.with_labels(labels)
    both = model_cost_matrices(table, matrix_of(costs))
    return both.expected if kind == "expected" else both.transition


def _binary_view(rates: Any) -> Any:
    """A binary InterventionalTable's error rates (the closed forms read them)."""
    if type(rates).__name__ == "InterventionalTable" and rates.is_binary:
        return rates.error_rates
    return rates


def _check_inputs(rates: ErrorRates, costs: CostMatrix) -> None:
    if not isinstance(rates, ErrorRates):
        raise InputTypeError(f"rates must be ErrorRates, got {type(rates).__name__}")
    if not isinstance(costs, CostMatrix):
        raise InputTypeError(f"costs must be a CostMatrix, got {type(costs).__name__}")


def _model_costs(cells: tuple[float, float, float, float], kind: str,
                 costs: CostMatrix) -> ModelCostMatrix:
    """A ModelCostMatrix, refusing cells that overflowed (costs near float64's limit)."""
    if not all(math.isfinite(v) for v in cells):
        raise OverflowInputError(
            f"system costs too large: cost function {'1' if kind == 'expected' else '2'} "
            f"overflows float64 with {costs!r}; rescale the costs")
    return ModelCostMatrix.trusted([cells[:2], cells[2:]], CLASSES, kind)


def expected_cost_matrix(rates: ErrorRates, costs: CostMatrix) -> ModelCostMatrix:
    """Cost function 1: the expected system cost of each outcome of the slot model.

    Parameters
    ----------
    rates : ErrorRates, InterventionalTable, or a K-label table
        The slot's interventional error rates ``e_P(P), e_P(N), e_N(P), e_N(N)`` (or a binary
        table holding them); or, for any K, a table ``T[c, j, s]`` (array or table object)
        with ``costs`` a (K, K) matrix: ``M1[c, j] = sum_s T[c, j, s] C[c, s]``.
    costs : CostMatrix
        The system's cost matrix.

    Returns
    -------
    ModelCostMatrix
        ``kind="expected"``; e.g. ``tp = e_P(P) c_FN + (1 - e_P(P)) c_TP``; for a table, the
        (K, K) matrix ``M1`` with the table's labels.

    Examples
    --------
    Thesis §4, cost function 1, example 1 (AND fusioner, 80 % images model):

    >>> rates = ErrorRates(fn_forced_p=0.2, fn_forced_n=1.0, fp_forced_p=0.2, fp_forced_n=0.0)
    >>> expected_cost_matrix(rates, CostMatrix(fn=5, fp=1))
    ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')
    """
    if _is_label_table(rates):
        return _label_costs(rates, costs, "expected")
    rates = _binary_view(rates)
    _check_inputs(rates, costs)
    r, c = rates, costs
    return _model_costs((
        r.fn_forced_p * c.fn + (1.0 - r.fn_forced_p) * c.tp,
        r.fn_forced_n * c.fn + (1.0 - r.fn_forced_n) * c.tp,
        r.fp_forced_p * c.fp + (1.0 - r.fp_forced_p) * c.tn,
        r.fp_forced_n * c.fp + (1.0 - r.fp_forced_n) * c.tn,
    ), "expected", costs)


def error_transition_matrix(rates: ErrorRates, costs: CostMatrix) -> ModelCostMatrix:
    """Cost function 2: the price of the system errors a model mistake adds (zero diagonal).

    ``fn = (e_P(N) - e_P(P)) (c_FN - c_TP)`` and ``fp = (e_N(P) - e_N(N)) (c_FP - c_TN)``; a cell
    is negative when the system fails *more* often with the slot right than wrong.

    Parameters
    ----------
    rates : ErrorRates
        The slot's interventional error rates.
    costs : CostMatrix
        The system's cost matrix.

    Returns
    -------
    ModelCostMatrix
        ``kind="transition"`` with ``tp = tn = 0``.

    Examples
    --------
    Thesis §4, cost function 2, example 2 (OR fusioner, 25 %/50 % images model):

    >>> rates = ErrorRates(fn_forced_p=0.0, fn_forced_n=0.75, fp_forced_p=1.0, fp_forced_n=0.5)
    >>> error_transition_matrix(rates, CostMatrix(fn=5, fp=1))
    ModelCostMatrix(tp=0, fn=3.75, fp=0.5, tn=0, kind='transition')
    """
    if _is_label_table(rates):
        return _label_costs(rates, costs, "transition")
    rates = _binary_view(rates)
    _check_inputs(rates, costs)
    r, c = rates, costs
    return _model_costs((
        0.0,
        (r.fn_forced_n - r.fn_forced_p) * (c.fn - c.tp),
        (r.fp_forced_p - r.fp_forced_n) * (c.fp - c.tn),
        0.0,
    ), "transition", costs)


def perfect_slot_cost(
    rates: ErrorRates, costs: CostMatrix, positives: float, negatives: float
) -> float:
    """Expected system cost with a perfect model in the slot.

    That is cost function 1 evaluated on the confusion ``tp=positives, tn=negatives``.

    Parameters
    ----------
    rates : ErrorRates
        The slot's interventional error rates.
    costs : CostMatrix
        The system's cost matrix.
    positives, negatives : float
        Class sizes (non-negative).

    Returns
    -------
    float

    Raises
    ------
    CountError
        If a class size is negative or not finite.
    OverflowInputError
        If the cost overflows float64.

    Examples
    --------
    >>> rates = ErrorRates(0.2, 1.0, 0.2, 0.0)
    >>> perfect_slot_cost(rates, CostMatrix(fn=5, fp=1), positives=100, negatives=200)
    100.0
    """
    sizes = {}
    for name, value in (("positives", positives), ("negatives", negatives)):
        sizes[name] = _as_count(name, value, CountError)
        if sizes[name] < 0:
            raise CountError(f"{name} (a class size) must be >= 0, got {_fmt(sizes[name])}")
    perfect = Confusion(tp=sizes["positives"], fn=0.0, fp=0.0, tn=sizes["negatives"])
    return expected_cost_matrix(rates, costs).evaluate(perfect)


def expected_system_confusion(rates: ErrorRates, model: Confusion) -> Confusion:
    """The system confusion cost function 1 predicts, assuming independent errors.

    ``FN^S = tp e_P(P) + fn e_P(N)``, ``FP^S = tn e_N(N) + fp e_N(P)``; the rest of each class
    are hits. Its cost under any cost matrix equals ``Eval1``. Cells are usually fractional.

    Parameters
    ----------
    rates : ErrorRates
        The slot's interventional error rates.
    model : Confusion
        The slot model's confusion on the instances of interest.

    Returns
    -------
    Confusion

    Examples
    --------
    Thesis §4, example 1: 60 % of 100 positives and 10 % of 200 negatives fail.

    >>> expected_system_confusion(ErrorRates(0.2, 1.0, 0.2, 0.0), Confusion(50, 50, 100, 100))
    Confusion(tp=40, fn=60, fp=20, tn=180)
    """
    if not isinstance(rates, ErrorRates):
        raise InputTypeError(f"rates must be ErrorRates, got {type(rates).__name__}")
    if not isinstance(model, Confusion):
        raise InputTypeError(f"model must be a Confusion, got {type(model).__name__}")
    fn = model.tp * rates.fn_forced_p + model.fn * rates.fn_forced_n
    fp = model.tn * rates.fp_forced_n + model.fp * rates.fp_forced_p
    # clip rounding (fn <= positives holds exactly in real arithmetic)
    fn = min(fn, model.positives)
    fp = min(fp, model.negatives)
    return Confusion(tp=model.positives - fn, fn=fn, fp=fp, tn=model.negatives - fp)


def _expected_cells_exact(fails: tuple[Any, Any, Any, Any], model: Confusion
                          ) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """Cost function 1's system confusion ``(tp, fn, fp, tn)`` with the rates ``F / n`` of
    count-form failures, as exact rationals. ``fails`` are ``(F_P(P), F_P(N), F_N(N),
    F_N(P))``: the failures among the positives with the slot forced to P and to N, then among
    the negatives forced to N and to P."""
    tp, fn, fp, tn = (Fraction(c) for c in model.cells())
    n_p, n_n = tp + fn, tn + fp

    def rate(failures: Any, n: Fraction) -> Fraction:
        return min(Fraction(1), Fraction(failures) / n) if n > 0 else Fraction(0)

    f_pp, f_pn, f_nn, f_np = fails
    system_fn = min(tp * rate(f_pp, n_p) + fn * rate(f_pn, n_p), n_p)
    system_fp = min(tn * rate(f_nn, n_n) + fp * rate(f_np, n_n), n_n)
    return n_p - system_fn, system_fn, system_fp, n_n - system_fp


def _expected_from_counts(fails: tuple[Any, Any, Any, Any], model: Confusion,
                          costs: CostMatrix) -> tuple[Confusion, float]:
    """:func:`expected_system_confusion` and its cost (``Eval1``) for count-form failures, in
    exact rational arithmetic rounded once: counts beyond 2**53 are not rounded on the way
    (``tp = 2**53 + 1`` stays odd, not one less). Integral cells come back exact (Python ints
    beyond 2**53), fractional ones as the float nearest the exact value; the cost is refused
    (:class:`~causalcost.errors.OverflowInputError`) if it overflows float64.

    Examples
    --------
    >>> n = 2**53 + 1
    >>> conf, cost = _expected_from_counts((0, n, 0, n), Confusion(n, 0, 0, n), CostMatrix())
    >>> conf.tp == n, cost
    (True, 0.0)
    >>> _expected_from_counts((20, 100, 40, 0), Confusion(50, 50, 100, 100),
    ...                       CostMatrix(fn=5, fp=1))
    (Confusion(tp=40, fn=60, fp=20, tn=180), 320.0)
    """
    if not isinstance(model, Confusion):
        raise InputTypeError(f"model must be a Confusion, got {type(model).__name__}")
    cells = _expected_cells_exact(fails, model)
    exact_cost = sum(Fraction(c) * v for c, v in zip(costs.cells(), cells, strict=True))
    try:
        cost = float(exact_cost)
    except OverflowError:
        cost = math.inf
    if not math.isfinite(cost):
        raise OverflowInputError(
            f"costs too large: the expected system cost overflows float64 ({costs!r} with "
            f"{_fmt(model.positives)} positives and {_fmt(model.negatives)} negatives); "
            "rescale the costs (divide them all by the same factor)")
    conf = Confusion(*(_num(int(c)) if c.denominator == 1 else float(c) for c in cells))
    return conf, cost


@dataclass(frozen=True)
class CostEvaluation:
    """Cost functions 1 and 2 applied to one slot model.

    Attributes
    ----------
    eval1 : float
        Cost function 1's evaluation: the expected system cost (exact under independence).
    eval2 : float
        Cost function 2's evaluation: the cost of the system errors the model's mistakes add.
    perfect_slot_cost : float
        Expected system cost with a perfect model in the slot.
    expected_cost_matrix, error_transition_matrix : ModelCostMatrix
        The per-outcome costs behind ``eval1`` and ``eval2``.
    model : Confusion
        The evaluated model's confusion.

    Examples
    --------
    >>> ev = evaluate_costs(ErrorRates(0.2, 1.0, 0.2, 0.0), CostMatrix(fn=5, fp=1),
    ...                     Confusion(50, 50, 100, 100))
    >>> ev.eval1, ev.eval2, ev.perfect_slot_cost, ev.identity_gap
    (320.0, 220.0, 100.0, 0.0)
    """

    eval1: float
    eval2: float
    perfect_slot_cost: float
    expected_cost_matrix: ModelCostMatrix
    error_transition_matrix: ModelCostMatrix
    model: Confusion

    @property
    def identity_gap(self) -> float:
        """``eval1 - (eval2 + perfect_slot_cost)``: zero up to rounding."""
        return self.eval1 - (self.eval2 + self.perfect_slot_cost)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the three numbers, both matrices and the model's confusion."""
        return {
            "eval1": self.eval1,
            "eval2": self.eval2,
            "perfect_slot_cost": self.perfect_slot_cost,
            "expected_cost_matrix": self.expected_cost_matrix.to_dict(),
            "error_transition_matrix": self.error_transition_matrix.to_dict(),
            "model": self.model.to_dict(),
        }

    def to_frame(self) -> pd.DataFrame:
        """Rows ``expected`` (cost function 1) and ``transition`` (cost function 2).

        Columns: the four per-outcome costs and the evaluation.
        """
        rows = [
            [*self.expected_cost_matrix.cells(), self.eval1],
            [*self.error_transition_matrix.cells(), self.eval2],
        ]
        return pd.DataFrame(
            rows,
            index=pd.Index(list(MODEL_COST_KINDS), name="cost function"),
            columns=[*CELLS, "evaluation"],
        )

    def __repr__(self) -> str:
        return (
            f"CostEvaluation(eval1={_fmt(self.eval1)}, eval2={_fmt(self.eval2)}, "
            f"perfect_slot_cost={_fmt(self.perfect_slot_cost)}, model={self.model!r})"
        )

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))


def evaluate_costs(rates: ErrorRates, costs: CostMatrix, model: Confusion) -> CostEvaluation:
    """Evaluate a slot model with cost functions 1 and 2.

    Parameters
    ----------
    rates : ErrorRates
        The slot's interventional error rates.
    costs : CostMatrix
        The system's cost matrix.
    model : Confusion
        The candidate's confusion on the evaluation instances.

    Returns
    -------
    CostEvaluation

    Examples
    --------
    Thesis §4, example 2 (OR fusioner): cost function 1 gives 375, cost function 2 gives 275.

    >>> ev = evaluate_costs(ErrorRates(0.0, 0.75, 1.0, 0.5), CostMatrix(fn=5, fp=1),
    ...                     Confusion(tp=40, fn=60, fp=100, tn=100))
    >>> ev.eval1, ev.eval2
    (375.0, 275.0)
    """
    if not isinstance(model, Confusion):
        raise InputTypeError(f"model must be a Confusion, got {type(model).__name__}")
    c1 = expected_cost_matrix(rates, costs)
    c2 = error_transition_matrix(rates, costs)
    result = CostEvaluation(
        eval1=c1.evaluate(model),
        eval2=c2.evaluate(model),
        perfect_slot_cost=perfect_slot_cost(rates, costs, model.positives, model.negatives),
        expected_cost_matrix=c1,
        error_transition_matrix=c2,
        model=model,
    )
    if not math.isfinite(result.identity_gap):
        raise OverflowInputError(
            f"system costs too large: Eval2 + the perfect-slot cost overflows float64 with "
            f"{costs!r} on {_fmt(model.total)} instances; rescale the costs")
    return result
