"""Worst and best system cost of a slot model, from its confusion alone (thesis §3.3, slides).

Cost function 1 is exact only when the slot's errors are independent of the rest of the system.
Without that, two candidates with the same confusion matrix can lead the system to very
different results, so we ask instead: over every way the system could behave on each instance,
and every placement of the model's hits and mistakes on the instances, what are the worst and
the best system confusion?

Per class write ``fc`` / ``fw`` for the system's failures with the slot forced to the correct /
wrong class and ``nc`` / ``nw`` for the instances the model gets right / wrong (positives:
``fc = F_P(P)``, ``fw = F_P(N)``, ``nc = tp``, ``nw = fn``; negatives: ``fc = F_N(N)``,
``fw = F_N(P)``, ``nc = tn``, ``nw = fp``). Each instance is of one *kind*:

==============  =======================================  ===================
kind            system fails on it ...                   allowed under
==============  =======================================  ===================
``never``       never                                    both assumptions
``wrong_only``  only when the slot is wrong              both assumptions
``always``      whatever the slot says                   both assumptions
``right_only``  only when the slot is right              ``"none"`` only
==============  =======================================  ===================

A system is *monotone* in the slot (the specification: evidence for the right class never
hurts) when no instance is ``right_only``. Then ``fc <= fw`` and::

    worst errors = min(fw, fc + nw)      best errors = max(fc, fw - nc)

Without the assumption (``"none"``) the sets failing under each forced value are unrelated::

    worst errors = min(fc, nc) + min(fw, nw)      best = max(0, fc - nw) + max(0, fw - nc)

Every integer in between is attained, and cost function 1's estimate always lies between the
two. Costs follow because a mistake never costs less than a hit: the system's cost grows with its
errors in each class. A :class:`Witness` records an instance-level assignment attaining a bound.

Two forms: the **count form** (:func:`bound`, slides) takes the system's confusion matrices with
the slot forced to P and to N on the *same* instances as the model's confusion; the
**probability form** (:func:`bound_from_rates`, thesis) uses ``F = e x n`` from the network's
interventional rates, so its results are expected counts and may be fractional.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from causalcost.confusion import CELLS, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.bounds_many import bound_many, bound_many_from_rates
from causalcost.pricing.closed_forms import (
    _UNIT,
    ASSUMPTIONS,
    _check_assumption,
    _check_monotonicity,
    _check_type,
    _extremes,
    _failures_from_counts,
    _rates_of,
    _ratio,
)
from causalcost.pricing.costs import expected_cost_matrix, expected_system_confusion
from causalcost.pricing.witness import KIND_LABELS, KINDS, ClassWitness, Witness, _class_witness

__all__ = [
    "ASSUMPTIONS",
    "KINDS",
    "KIND_LABELS",
    "Bound",
    "ClassWitness",
    "Witness",
    "best_case_confusion",
    "bound",
    "bound_from_rates",
    "bound_many",
    "bound_many_from_rates",
    "worst_case_confusion",
]


# ----------------------------------------------------------------------------------- result
_ASSUMPTION_TEXT = {
    "monotone": "the system is monotone in the slot (a right slot prediction never makes it "
                "fail where a wrong one would not)",
    "none": "no assumption on how the system reacts to the slot",
}


_FORM_TEXT = {
    "counts": "counts from forced runs on the model's instances",
    "probability": "expected counts from interventional rates (may be fractional)",
    "high-confidence": "forced runs counted on other instances than the model's",
}


@dataclass(frozen=True)
class Bound:
    """Worst, expected (cost function 1) and best system confusion for one slot model.

    Attributes
    ----------
    worst, best : Confusion
        System confusion in the worst / best case compatible with the inputs and assumption.
    worst_cost, best_cost : float
        Their costs under ``costs``.
    expected : Confusion
        Cost function 1's system confusion (exact under independent errors).
    expected_cost : float
        Its cost, ``Eval1``.
    assumption : str
        ``"monotone"`` or ``"none"``: what the bounds rest on.
    form : str
        ``"counts"`` (forced runs on the model's instances) or ``"probability"`` (``F = e n``;
        cells may be fractional).
    worst_witness, best_witness : Witness
        Instance-level assignments attaining the two cases.
    costs : CostMatrix
        The system's cost matrix.
    model : Confusion
        The slot model's confusion.
    confidence, method : float and str, or None
        For a high-confidence bound (:func:`~causalcost.high_confidence_bound`): the
        probability that the real system cost on the candidate's instances stays at or under
        ``worst_cost``, and the prediction limit used; ``None`` for the plain bounds.

    Examples
    --------
    Thesis §3.3: AND fusioner, model 1 right on 50 of 100 positives, slot model 50 %:

    >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
    >>> b.worst_cost, b.expected_cost, b.best_cost
    (100.0, 75.0, 50.0)
    >>> b.to_dict()["worst"]
    {'tp': 0.0, 'fn': 100.0, 'fp': 0.0, 'tn': 0.0, 'cost': 100.0}
    """

    worst: Confusion
    best: Confusion
    worst_cost: float
    best_cost: float
    expected: Confusion
    expected_cost: float
    assumption: str
    form: str
    worst_witness: Witness
    best_witness: Witness
    costs: CostMatrix
    model: Confusion
    confidence: float | None = None
    method: str | None = None

    def _rows(self) -> dict[str, dict[str, float]]:
        return {name: {**m.to_dict(), "cost": c} for name, m, c in (
            ("worst", self.worst, self.worst_cost), ("expected", self.expected, self.expected_cost),
            ("best", self.best, self.best_cost))}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; keys ``assumption``, ``worst``, ``best``, ``expected`` are a contract."""
        rows = self._rows()
        return {"assumption": self.assumption, "form": self.form, "worst": rows["worst"],
                "best": rows["best"], "expected": rows["expected"],
                "costs": self.costs.to_dict(), "model": self.model.to_dict(),
                "witnesses": {"worst": self.worst_witness.to_dict(),
                              "best": self.best_witness.to_dict()},
                "confidence": self.confidence, "method": self.method}

    def to_frame(self) -> pd.DataFrame:
        """Rows worst / expected / best; columns tp, fn, fp, tn, cost."""
        return pd.DataFrame.from_dict(self._rows(), orient="index")[[*CELLS, "cost"]]

    def __repr__(self) -> str:
        return (f"Bound(assumption={self.assumption!r}, form={self.form!r}, "
                f"worst_cost={_fmt(self.worst_cost)}, expected_cost={_fmt(self.expected_cost)}, "
                f"best_cost={_fmt(self.best_cost)}, worst={self.worst!r}, best={self.best!r})")

    def _header(self) -> str:
        form = _FORM_TEXT.get(self.form, self.form)
        if self.confidence is not None:
            form += (f"; the worst case holds on the candidate's instances with probability "
                     f"at least {self.confidence:.0%} ({self.method} prediction limits)")
        return (f"System cost bounds for model {self.model!r} under {self.costs!r}\n"
                f"assumption {self.assumption!r}: {_ASSUMPTION_TEXT[self.assumption]}; {form}")

    def __str__(self) -> str:
        return "\n".join([
            self._header(), self.to_frame().to_string(float_format=_fmt),
            "How the worst case can happen:", _indent(self.worst_witness.describe()),
            "How the best case can happen:", _indent(self.best_witness.describe()),
        ])

    def _repr_html_(self) -> str:
        return f"<p>{self._header()}</p>" + self.to_frame().to_html(float_format=_fmt)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines()) or "  (no instances)"


# --------------------------------------------------------------------------------- scalar API
def _build(fails: tuple[float, float, float, float], rates: ErrorRates, model: Confusion,
           costs: CostMatrix, assumption: str, form: str) -> Bound:
    fcp, fwp, fcn, fwn = fails
    extremes_p = _extremes(fcp, fwp, model.tp, model.fn, assumption)
    extremes_n = _extremes(fcn, fwn, model.tn, model.fp, assumption)
    cases = {}
    for i, case in enumerate(("worst", "best")):
        fn, fp = float(extremes_p[i]), float(extremes_n[i])
        conf = Confusion(tp=max(0.0, model.positives - fn), fn=fn, fp=fp,
                         tn=max(0.0, model.negatives - fp))
        wit = Witness(_class_witness(fcp, fwp, model.tp, model.fn, assumption, i == 0),
                      _class_witness(fcn, fwn, model.tn, model.fp, assumption, i == 0), assumption)
        cases[case] = (conf, conf.cost(costs), wit)
    (worst, worst_cost, worst_wit), (best, best_cost, best_wit) = cases["worst"], cases["best"]
    return Bound(worst=worst, best=best, worst_cost=worst_cost, best_cost=best_cost,
                 expected=expected_system_confusion(rates, model),
                 expected_cost=expected_cost_matrix(rates, costs).evaluate(model),
                 assumption=assumption, form=form, worst_witness=worst_wit,
                 best_witness=best_wit, costs=costs, model=model)


def bound(forced_p: Confusion, forced_n: Confusion, model: Confusion,
          costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
          monotonicity: object | None = None) -> Bound:
    """Worst and best system confusion and cost of a slot model (count form, slides).

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P / to N, on the model's instances.
    model : Confusion
        The candidate's confusion on the same instances (integer counts).
    costs : CostMatrix, default ``CostMatrix(fn=1, fp=1)``
        The system's cost matrix (counting errors by default).
    assumption : {"monotone", "none"}
        ``"monotone"``: the system never fails on an instance only because the slot is right
        (the specification; tighter bounds). ``"none"``: bounds valid for any system.
    monotonicity : object, optional
        Result of the network's monotonicity check (attributes ``is_monotone`` and
        ``violation``). If it says the system is not monotone, ``"monotone"`` is refused.

    Returns
    -------
    Bound
        ``expected`` is cost function 1 with rates ``F / n`` from the forced runs.

    Raises
    ------
    CountError
        If a count is not an integer (negative counts are refused by ``Confusion``).
    InfeasibleInputError
        If the three matrices count different class totals, or, under ``"monotone"``, the
        system fails more often with the slot forced to the correct class than the wrong one.
    MonotonicityError
        If ``monotonicity`` says the system is not monotone and ``assumption="monotone"``.
    ValidationError
        If ``assumption`` is unknown.

    Examples
    --------
    >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
    >>> b.worst, b.best
    (Confusion(tp=0, fn=100, fp=0, tn=0), Confusion(tp=50, fn=50, fp=0, tn=0))
    >>> bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0),
    ...       assumption="none").best_cost
    50.0
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    fails = _failures_from_counts(forced_p, forced_n, model, assumption)
    n_p, n_n = model.positives, model.negatives
    rates = ErrorRates(_ratio(fails[0], n_p), _ratio(fails[1], n_p),
                       _ratio(fails[3], n_n), _ratio(fails[2], n_n))
    return _build(fails, rates, model, costs, assumption, "counts")


def bound_from_rates(rates: ErrorRates | InterventionalTable, model: Confusion,
                     costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                     monotonicity: object | None = None) -> Bound:
    """Worst and best system confusion from interventional rates (probability form, thesis).

    The forced failure counts are taken as ``F = e x n`` with ``n`` the model's class sizes, so
    they are expected counts and every result may be fractional.

    Parameters
    ----------
    rates : ErrorRates or InterventionalTable
        The slot's interventional error rates.
    model : Confusion
        The candidate's confusion (fractional cells allowed).
    costs, assumption, monotonicity
        As in :func:`bound`.

    Returns
    -------
    Bound

    Raises
    ------
    InfeasibleInputError
        Under ``"monotone"``, if ``e_P(P) > e_P(N)`` or ``e_N(N) > e_N(P)``.
    MonotonicityError, ValidationError
        As in :func:`bound`.

    Examples
    --------
    >>> b = bound_from_rates(ErrorRates(0.5, 1.0, 0.0, 0.0), Confusion(50, 50, 0, 0))
    >>> b.worst_cost, b.expected_cost, b.best_cost
    (100.0, 75.0, 50.0)
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption, rates)
    _check_type("costs", costs, CostMatrix)
    _check_type("model", model, Confusion)
    r = _rates_of(rates, assumption)
    n_p, n_n = model.positives, model.negatives
    fails = (r.fn_forced_p * n_p, r.fn_forced_n * n_p, r.fp_forced_n * n_n, r.fp_forced_p * n_n)
    return _build(fails, r, model, costs, assumption, "probability")


def worst_case_confusion(forced_p: Confusion, forced_n: Confusion, model: Confusion,
                         costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                         monotonicity: object | None = None) -> Confusion:
    """The worst system confusion; ``bound(...).worst``.

    Examples
    --------
    >>> worst_case_confusion(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                      Confusion(50, 50, 0, 0))
    Confusion(tp=0, fn=100, fp=0, tn=0)
    """
    return bound(forced_p, forced_n, model, costs, assumption=assumption,
                 monotonicity=monotonicity).worst


def best_case_confusion(forced_p: Confusion, forced_n: Confusion, model: Confusion,
                        costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                        monotonicity: object | None = None) -> Confusion:
    """The best system confusion; ``bound(...).best``.

    Examples
    --------
    >>> best_case_confusion(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                     Confusion(50, 50, 0, 0))
    Confusion(tp=50, fn=50, fp=0, tn=0)
    """
    return bound(forced_p, forced_n, model, costs, assumption=assumption,
                 monotonicity=monotonicity).best
