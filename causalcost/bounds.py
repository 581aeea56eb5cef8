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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .confusion import CELLS, Confusion, CostMatrix
from .confusion import format_number as _fmt
from .costs import expected_cost_matrix, expected_system_confusion
from .errors import (
    CountError,
    InfeasibleInputError,
    MonotonicityError,
    ValidationError,
)
from .table import ErrorRates, InterventionalTable

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

#: Accepted values of ``assumption``.
ASSUMPTIONS: tuple[str, str] = ("monotone", "none")
#: Instance kinds, by how the system reacts to the slot.
KINDS: tuple[str, str, str, str] = ("never", "wrong_only", "always", "right_only")
#: What each kind means.
KIND_LABELS: dict[str, str] = {
    "never": "never fails",
    "wrong_only": "fails only when the slot is wrong",
    "always": "always fails",
    "right_only": "fails only when the slot is right",
}
_UNIT = CostMatrix(fn=1, fp=1)
_Pair = tuple[float, float]


# ------------------------------------------------------------------ closed forms (scalar or array)
def _extremes(fc: Any, fw: Any, nc: Any, nw: Any, assumption: str) -> tuple[Any, Any]:
    """Worst and best errors of one class; numpy-broadcasting. Assumes validated arguments."""
    if assumption == "monotone":
        return np.minimum(fw, fc + nw), np.maximum(fc, fw - nc)
    worst = np.minimum(fc, nc) + np.minimum(fw, nw)
    return worst, np.maximum(0.0, fc - nw) + np.maximum(0.0, fw - nc)


def _split(size: float, in_fc: float, in_fw: float) -> dict[str, float]:
    """Split a group into kinds given how many of it fail forced-correct / forced-wrong."""
    always = max(0.0, in_fc + in_fw - size)
    return {"never": max(0.0, size - in_fc - in_fw + always),
            "wrong_only": max(0.0, in_fw - always), "always": always,
            "right_only": max(0.0, in_fc - always)}


def _class_witness(fc: float, fw: float, nc: float, nw: float, assumption: str,
                   worst: bool) -> ClassWitness:
    if assumption == "monotone":  # hits: on always (c), never (a), wrong_only (b)
        spare = nc + nw - fw
        if worst:  # hits where the system fails anyway, then where it never fails
            hc = min(nc, fc)
            ha = min(nc - hc, spare)
            hb = max(0.0, nc - hc - ha)
        else:  # hits where they rescue the system first
            hb = min(nc, fw - fc)
            ha = min(nc - hb, spare)
            hc = max(0.0, nc - hb - ha)
        return ClassWitness(never=(ha, max(0.0, spare - ha)),
                            wrong_only=(hb, max(0.0, fw - fc - hb)),
                            always=(hc, max(0.0, fc - hc)))
    hits_fc = min(nc, fc) if worst else max(0.0, fc - nw)
    mistakes_fw = min(nw, fw) if worst else max(0.0, fw - nc)
    h = _split(nc, hits_fc, max(0.0, fw - mistakes_fw))
    m = _split(nw, max(0.0, fc - hits_fc), mistakes_fw)
    return ClassWitness(**{k: (h[k], m[k]) for k in KINDS})


# ------------------------------------------------------------------------------ witnesses
@dataclass(frozen=True)
class ClassWitness:
    """Instances of one class by kind, each as ``(model hits, model mistakes)``.

    Examples
    --------
    >>> w = ClassWitness(never=(0, 0), wrong_only=(0, 50), always=(50, 0))
    >>> w.fails_forced_correct, w.fails_forced_wrong, w.hits, w.mistakes, w.errors
    (50.0, 100.0, 50.0, 50.0, 100.0)
    """

    never: _Pair = (0.0, 0.0)
    wrong_only: _Pair = (0.0, 0.0)
    always: _Pair = (0.0, 0.0)
    right_only: _Pair = (0.0, 0.0)

    def __post_init__(self) -> None:
        for kind in KINDS:
            pair = tuple(float(v) for v in getattr(self, kind))
            if len(pair) != 2 or not all(np.isfinite(pair)) or min(pair) < 0:
                raise CountError(f"witness {kind} must be (hits, mistakes) >= 0, got {pair!r}")
            object.__setattr__(self, kind, pair)

    @property
    def size(self) -> float:
        """Instances of the class."""
        return self.hits + self.mistakes

    @property
    def hits(self) -> float:
        """Instances the model gets right (``nc``)."""
        return sum(getattr(self, k)[0] for k in KINDS)

    @property
    def mistakes(self) -> float:
        """Instances the model gets wrong (``nw``)."""
        return sum(getattr(self, k)[1] for k in KINDS)

    @property
    def fails_forced_correct(self) -> float:
        """System failures with the slot forced to the correct class (``fc``)."""
        return sum(self.always) + sum(self.right_only)

    @property
    def fails_forced_wrong(self) -> float:
        """System failures with the slot forced to the wrong class (``fw``)."""
        return sum(self.always) + sum(self.wrong_only)

    def errors_by_kind(self) -> dict[str, float]:
        """System errors each kind contributes under this placement of the model's outcomes."""
        return {"never": 0.0, "wrong_only": self.wrong_only[1], "always": sum(self.always),
                "right_only": self.right_only[0]}

    @property
    def errors(self) -> float:
        """System errors in the class under this placement."""
        return sum(self.errors_by_kind().values())

    def __repr__(self) -> str:
        shown = [k for k in KINDS if k != "right_only" or any(self.right_only)]
        inner = ", ".join(f"{k}=({_fmt(getattr(self, k)[0])}, {_fmt(getattr(self, k)[1])})"
                          for k in shown)
        return f"ClassWitness({inner})"


@dataclass(frozen=True)
class Witness:
    """An instance-level assignment attaining a bound: per class, kind -> (hits, mistakes).

    Its kind totals reproduce the forced failure counts, its hit/mistake totals the model's
    confusion, and the system errors it implies equal the bound it witnesses.

    Attributes
    ----------
    positives, negatives : ClassWitness
        The assignment on each class.
    assumption : str
        ``"monotone"`` (no ``right_only`` instances) or ``"none"``.

    Examples
    --------
    >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
    >>> b.worst_witness.positives
    ClassWitness(never=(0, 0), wrong_only=(0, 50), always=(50, 0))
    >>> b.worst_witness.system_confusion()
    Confusion(tp=0, fn=100, fp=0, tn=0)
    """

    positives: ClassWitness
    negatives: ClassWitness
    assumption: str

    def __post_init__(self) -> None:
        _check_assumption(self.assumption)
        if self.assumption == "monotone" and (any(self.positives.right_only)
                                              or any(self.negatives.right_only)):
            raise ValidationError("a monotone witness cannot hold 'right_only' instances")

    def system_confusion(self) -> Confusion:
        """The system confusion this assignment produces."""
        fn, fp = self.positives.errors, self.negatives.errors
        return Confusion(tp=max(0.0, self.positives.size - fn), fn=fn, fp=fp,
                         tn=max(0.0, self.negatives.size - fp))

    def _kinds(self) -> tuple[str, ...]:
        return KINDS if self.assumption == "none" else KINDS[:3]

    def to_dict(self) -> dict[str, Any]:
        """``{"assumption": .., "positives": {kind: {"hits", "mistakes"}}, "negatives": ..}``."""
        out: dict[str, Any] = {"assumption": self.assumption}
        for name, cw in (("positives", self.positives), ("negatives", self.negatives)):
            out[name] = {k: dict(zip(("hits", "mistakes"), getattr(cw, k), strict=True))
                         for k in self._kinds()}
        return out

    def to_frame(self) -> pd.DataFrame:
        """Rows (class, kind); columns hits, mistakes, system_errors."""
        rows, index = [], []
        for cls, cw in (("P", self.positives), ("N", self.negatives)):
            errors = cw.errors_by_kind()
            for k in self._kinds():
                rows.append([*getattr(cw, k), errors[k]])
                index.append((cls, k))
        return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["class", "kind"]),
                            columns=["hits", "mistakes", "system_errors"])

    def __repr__(self) -> str:
        return (f"Witness(assumption={self.assumption!r}, positives={self.positives!r}, "
                f"negatives={self.negatives!r})")

    def _repr_html_(self) -> str:
        return self.to_frame().to_html(float_format=_fmt)


# ----------------------------------------------------------------------------------- result
_ASSUMPTION_TEXT = {
    "monotone": "the system is monotone in the slot (a right slot prediction never makes it "
                "fail where a wrong one would not)",
    "none": "no assumption on how the system reacts to the slot",
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
                              "best": self.best_witness.to_dict()}}

    def to_frame(self) -> pd.DataFrame:
        """Rows worst / expected / best; columns tp, fn, fp, tn, cost."""
        return pd.DataFrame.from_dict(self._rows(), orient="index")[[*CELLS, "cost"]]

    def __repr__(self) -> str:
        return (f"Bound(assumption={self.assumption!r}, form={self.form!r}, "
                f"worst_cost={_fmt(self.worst_cost)}, expected_cost={_fmt(self.expected_cost)}, "
                f"best_cost={_fmt(self.best_cost)}, worst={self.worst!r}, best={self.best!r})")

    def _header(self) -> str:
        form = ("counts from forced runs on the model's instances" if self.form == "counts"
                else "expected counts from interventional rates (may be fractional)")
        return (f"System cost bounds for model {self.model!r} under {self.costs!r}\n"
                f"assumption {self.assumption!r}: {_ASSUMPTION_TEXT[self.assumption]}; {form}")

    def __str__(self) -> str:
        return self._header() + "\n" + self.to_frame().to_string(float_format=_fmt)

    def _repr_html_(self) -> str:
        return f"<p>{self._header()}</p>" + self.to_frame().to_html(float_format=_fmt)


# ------------------------------------------------------------------------------ validation
def _check_assumption(assumption: object) -> None:
    if assumption not in ASSUMPTIONS:
        raise ValidationError(f"assumption ({assumption!r}) must be one of 'monotone' or 'none'")


def _check_monotonicity(monotonicity: object | None, assumption: str) -> None:
    if monotonicity is None or assumption == "none":
        return
    try:
        is_monotone, violation = monotonicity.is_monotone, monotonicity.violation  # type: ignore
    except AttributeError:
        raise TypeError("monotonicity must be a network-check result with attributes "
                        f"is_monotone and violation, got {type(monotonicity).__name__}") from None
    if not isinstance(is_monotone, (bool, np.bool_)):
        raise TypeError(f"monotonicity.is_monotone must be a bool, got {is_monotone!r}")
    if not is_monotone:
        if isinstance(violation, Mapping) and violation:
            where = " (violated with " + ", ".join(f"{k}={v}" for k, v in violation.items()) + ")"
        else:
            where = f" (violated with {violation})" if violation else ""
        raise MonotonicityError(
            f"the network check found the system is not monotone in the slot{where}, so the "
            "monotone bounds do not hold; pass assumption='none' (--assumption none)")


def _check_type(name: str, value: object, kind: type) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {kind.__name__}, got {type(value).__name__}")


def _monotone_message(cls: str, fc: str, fw: str, vc: float, vw: float) -> str:
    return ("with the slot forced to the correct class the system fails more often than forced "
            f"to the wrong class ({cls}: {fc}={_fmt(vc)} > {fw}={_fmt(vw)}): the system is not "
            "monotone in the slot; use assumption='none' (--assumption none)")


def _failures_from_counts(forced_p: Confusion, forced_n: Confusion, model: Confusion | None,
                          assumption: str) -> tuple[float, float, float, float]:
    """Check the count form; return ``(F_P(P), F_P(N), F_N(N), F_N(P))``."""
    named = [("forced_p", forced_p), ("forced_n", forced_n)]
    if model is not None:
        named.append(("model", model))
    for name, m in named:
        _check_type(name, m, Confusion)
        bad = [f"{k}={_fmt(v)}" for k, v in m.to_dict().items() if not float(v).is_integer()]
        if bad:
            raise CountError(f"{name} must hold integer counts in the count form, got "
                             f"{', '.join(bad)}; for expected (fractional) counts use "
                             "bound_from_rates")
    if len({(m.positives, m.negatives) for _, m in named}) > 1:
        totals = "; ".join(f"{n} has {_fmt(m.positives)} positives and {_fmt(m.negatives)} "
                           "negatives" for n, m in named)
        raise InfeasibleInputError(
            f"class totals disagree: {totals}; the forced runs and the model must be counted on "
            "the same instances")
    if assumption == "monotone":
        if forced_p.fn > forced_n.fn:
            raise InfeasibleInputError(
                _monotone_message("positives", "F_P(P)", "F_P(N)", forced_p.fn, forced_n.fn))
        if forced_n.fp > forced_p.fp:
            raise InfeasibleInputError(
                _monotone_message("negatives", "F_N(N)", "F_N(P)", forced_n.fp, forced_p.fp))
    return forced_p.fn, forced_n.fn, forced_n.fp, forced_p.fp


def _rates_of(rates: ErrorRates | InterventionalTable, assumption: str) -> ErrorRates:
    if isinstance(rates, InterventionalTable):
        rates = rates.error_rates
    _check_type("rates", rates, ErrorRates)
    if assumption == "monotone":
        if rates.fn_forced_p > rates.fn_forced_n:
            raise InfeasibleInputError(_monotone_message(
                "positives", "e_P(P)", "e_P(N)", rates.fn_forced_p, rates.fn_forced_n))
        if rates.fp_forced_n > rates.fp_forced_p:
            raise InfeasibleInputError(_monotone_message(
                "negatives", "e_N(N)", "e_N(P)", rates.fp_forced_n, rates.fp_forced_p))
    return rates


def _ratio(a: float, n: float) -> float:
    return min(1.0, a / n) if n > 0 else 0.0


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
    _check_monotonicity(monotonicity, assumption)
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


# ------------------------------------------------------------------------------ vectorised API
_MANY_COLUMNS = [f"{case}_{c}" for case in ("worst", "expected", "best") for c in (*CELLS, "cost")]


def _models_array(models: object, integral: bool) -> np.ndarray:
    m = np.asarray(models, dtype=float)
    if m.ndim != 2 or m.shape[1] != 4:
        raise ValidationError(f"models must have shape (n, 4) with columns tp, fn, fp, tn, "
                              f"got shape {m.shape}")
    checks = [((~np.isfinite(m) | (m < 0)).any(axis=1), "must be finite and >= 0")]
    if integral:
        fractional = (m != np.round(m)).any(axis=1)
        checks.append((fractional, ("must be integer counts in the count form (use "
                                   "bound_many_from_rates for expected counts)")))
    for bad, what in checks:
        rows = np.flatnonzero(bad)
        if rows.size:
            raise CountError(f"models row {rows[0]} {m[rows[0]].tolist()}: counts {what}; "
                             f"{rows.size} bad row(s) in all")
    return m


def _many(fails: tuple[Any, Any, Any, Any], rates: tuple[Any, Any, Any, Any], m: np.ndarray,
          costs: CostMatrix, assumption: str) -> pd.DataFrame:
    tp, fn, fp, tn = m.T
    n_p, n_n = tp + fn, fp + tn
    wp, bp = _extremes(fails[0], fails[1], tp, fn, assumption)
    wn, bn = _extremes(fails[2], fails[3], tn, fp, assumption)
    ep = np.minimum(tp * rates[0] + fn * rates[1], n_p)
    en = np.minimum(tn * rates[3] + fp * rates[2], n_n)
    out = np.empty((15, m.shape[0]))
    c = costs
    for i, (errs_p, errs_n) in enumerate(((wp, wn), (ep, en), (bp, bn))):
        block = out[5 * i: 5 * i + 5]
        block[0] = np.maximum(n_p - errs_p, 0.0)
        block[1] = errs_p
        block[2] = errs_n
        block[3] = np.maximum(n_n - errs_n, 0.0)
        block[4] = c.tp * block[0] + c.fn * block[1] + c.fp * block[2] + c.tn * block[3]
    return pd.DataFrame(out.T, columns=_MANY_COLUMNS, copy=False)


def bound_many(forced_p: Confusion, forced_n: Confusion, models: np.ndarray,
               costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
               monotonicity: object | None = None) -> pd.DataFrame:
    """:func:`bound` for many candidates at once, fully vectorised (count form).

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P / N on the candidates' instances.
    models : array_like, shape (n, 4)
        One candidate per row, columns ``tp, fn, fp, tn`` (integer counts, each row with the
        forced runs' class totals).
    costs, assumption, monotonicity
        As in :func:`bound`.

    Returns
    -------
    pandas.DataFrame
        One row per candidate; columns ``{worst,expected,best}_{tp,fn,fp,tn,cost}``. The
        ``expected`` columns are cost function 1 (``expected_cost`` is ``Eval1``). No witnesses.

    Raises
    ------
    CountError
        If a row holds negative, non-finite or fractional counts (the message names the row).
    InfeasibleInputError
        If a row's class totals differ from the forced runs', or as in :func:`bound`.

    Examples
    --------
    >>> df = bound_many(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                 [[50, 50, 0, 0], [100, 0, 0, 0], [0, 100, 0, 0]])
    >>> df["worst_cost"].tolist(), df["expected_cost"].tolist(), df["best_cost"].tolist()
    ([100.0, 50.0, 100.0], [75.0, 50.0, 100.0], [50.0, 50.0, 100.0])
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    fails = _failures_from_counts(forced_p, forced_n, None, assumption)
    m = _models_array(models, integral=True)
    n_p, n_n = forced_p.positives, forced_p.negatives
    rows = np.flatnonzero((m[:, 0] + m[:, 1] != n_p) | (m[:, 2] + m[:, 3] != n_n))
    if rows.size:
        r = m[rows[0]]
        raise InfeasibleInputError(
            f"models row {rows[0]} {r.tolist()} has {_fmt(r[0] + r[1])} positives and "
            f"{_fmt(r[2] + r[3])} negatives but forced_p and forced_n count {_fmt(n_p)} and "
            f"{_fmt(n_n)}; {rows.size} row(s) disagree: count every model on the same instances")
    rates = (_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
             _ratio(fails[2], n_n))
    return _many(fails, rates, m, costs, assumption)


def bound_many_from_rates(rates: ErrorRates | InterventionalTable, models: np.ndarray,
                          costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                          monotonicity: object | None = None) -> pd.DataFrame:
    """:func:`bound_from_rates` for many candidates at once (probability form).

    Each row's forced failures are ``F = e x n`` with that row's class sizes, so rows may have
    different sizes and results may be fractional. Columns as in :func:`bound_many`.

    Examples
    --------
    >>> df = bound_many_from_rates(ErrorRates(0.5, 1.0, 0.0, 0.0), [[50, 50, 0, 0], [5, 5, 0, 0]])
    >>> df["worst_fn"].tolist(), df["expected_fn"].tolist(), df["best_fn"].tolist()
    ([100.0, 10.0], [75.0, 7.5], [50.0, 5.0])
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    r = _rates_of(rates, assumption)
    m = _models_array(models, integral=False)
    n_p, n_n = m[:, 0] + m[:, 1], m[:, 2] + m[:, 3]
    fails = (r.fn_forced_p * n_p, r.fn_forced_n * n_p, r.fp_forced_n * n_n, r.fp_forced_p * n_n)
    return _many(fails, (r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n), m, costs,
                 assumption)
