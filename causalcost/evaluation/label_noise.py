"""What a candidate costs the system when the labels it was counted against are not all right.

The candidate's confusion is counted against labels, and some labels are wrong (article 003).
With at least a fraction ``label_accuracy`` of them right, the true confusion is any one of a
polygon of confusions (:func:`~causalcost.stats.noisy_labels.confusion_range`); every cost the
sheet gives -- ``Eval1``, the worst and the best case -- is then a range, and
:func:`label_noise_range` computes it exactly: "worst case between X and Y given labels that
are 96 % right".

Exact, because each cost is piecewise linear in the true confusion: ``Eval1`` is linear, and
the worst and best cases are sums of minima and maxima of linear functions of the cells and
class sizes (:mod:`~causalcost.pricing.closed_forms`). On the polygon the pieces meet along
straight lines ("kinks"), so each cost takes its extremes at a corner of the polygon, where a
kink line crosses an edge, or where two kink lines cross. All those points are priced at once
(:func:`~causalcost.pricing.bounds_many.bound_many_from_rates`) and the extremes read off.

A sheet of K labels gets the K-label form (:class:`TransitionRange`): the candidate corrected
for each label transition ``P(observed label | true class)`` of a set (symmetric noise up to a
rate, the way to given error rates, or a given list), priced by the sheet, and the lowest and
highest cost over the set; with ``label_accuracy`` also Eval1's range with no assumption on
the label errors (:func:`eval1_any_errors`). See :func:`label_noise_range`.

The sheet's rates are taken to be about the true class (a sheet derived from a network is;
one counted on data with the same noisy labels would need its forced runs corrected too, with
:func:`~causalcost.stats.noisy_labels.correct_confusion`, before it is derived). The worst and
best cases use the probability form on the true class sizes, which the noise changes.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> r = label_noise_range(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100), 0.96)
>>> print(r)  # doctest: +NORMALIZE_WHITESPACE
Given labels that are at least 96% right (at most 12 of 300 wrong):
  Eval1 between 260 and 380 (as counted 320, estimate 307.391)
  worst case between 320.4 and 459.6 (as counted 390, estimate 375.652)
  best case between 190 and 310 (as counted 250, estimate 239.13)
  estimate: corrected for independent label errors, one rate for both classes
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.display import html_table
from causalcost.errors import InputTypeError, ValidationError
from causalcost.pricing.bounds_many import bound_many_from_rates
from causalcost.sheet.costsheet import CostSheet
from causalcost.stats.noisy_labels import (
    ConfusionRange,
    LabelNoiseError,
    LabelTransition,
    as_label_errors,
    confusion_range,
    correct_confusion,
)

__all__ = ["LabelNoiseRange", "TransitionRange", "label_noise_range", "eval1_any_errors"]

_COSTS = ("eval1", "worst_cost", "best_cost")


def _cost_dicts(frame: pd.DataFrame) -> dict[str, Any]:
    """Per cost ``{"low", "high", "observed", "estimate"}`` (None for NaN)."""
    return {cost: {k: (None if np.isnan(frame.loc[cost, k]) else float(frame.loc[cost, k]))
                   for k in ("low", "high", "observed", "estimate")} for cost in _COSTS}


def _cost_lines(frame: pd.DataFrame) -> list[str]:
    """One line per cost: its range, as counted and the estimate."""
    lines = []
    for cost, name in zip(_COSTS, ("Eval1", "worst case", "best case")):
        r = frame.loc[cost]
        tail = f", estimate {_fmt(r.estimate)}" if not np.isnan(r.estimate) else ""
        lines.append(f"  {name} between {_fmt(r.low)} and {_fmt(r.high)} "
                     f"(as counted {_fmt(r.observed)}{tail})")
    return lines


class _CostRanges:
    """What both range types share: a frame of ``low``/``high`` per cost."""

    frame: pd.DataFrame

    def range_of(self, cost: str) -> tuple[float, float]:
        """``(low, high)`` of ``"eval1"``, ``"worst_cost"`` or ``"best_cost"``."""
        if cost not in _COSTS:
            raise ValidationError(f"cost must be one of {', '.join(_COSTS)}, got {cost!r}")
        return float(self.frame.loc[cost, "low"]), float(self.frame.loc[cost, "high"])


@dataclass(frozen=True, eq=False)
class LabelNoiseRange(_CostRanges):
    """The sheet's costs of a candidate over every true confusion the label noise allows.

    Attributes
    ----------
    frame : pandas.DataFrame
        Rows ``eval1``, ``worst_cost``, ``best_cost``; columns ``low`` and ``high`` (the
        range), ``observed`` (as counted against the labels) and ``estimate`` (under
        independent label errors; NaN when that correction needs negative counts).
    confusions : ConfusionRange
        The true confusions the costs range over.
    estimate : Confusion or None
        The corrected confusion behind the ``estimate`` column.
    estimate_basis : str
        What the estimate assumes.
    slot, assumption : str
    """

    frame: pd.DataFrame = field(repr=False)
    confusions: ConfusionRange
    estimate: Confusion | None
    estimate_basis: str
    slot: str = ""
    assumption: str = "monotone"

    @property
    def label_accuracy(self) -> float:
        """The fraction of right labels the range assumes (at least)."""
        return self.confusions.label_accuracy

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """:attr:`frame`, with the label accuracy in ``attrs``."""
        frame = self.frame.copy()
        frame.attrs.update(label_accuracy=self.label_accuracy, slot=self.slot,
                           assumption=self.assumption, estimate_basis=self.estimate_basis)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per cost ``{"low", "high", "observed", "estimate"}`` (estimate None when
        there is none), the label accuracy, the estimate's basis and the extreme confusions."""
        out: dict[str, Any] = {"label_accuracy": self.label_accuracy,
                               "max_wrong_labels": self.confusions.max_wrong,
                               "estimate_basis": self.estimate_basis, **_cost_dicts(self.frame)}
        out["low_accuracy_confusion"] = self.confusions.low.to_dict()
        out["high_accuracy_confusion"] = self.confusions.high.to_dict()
        return out

    def __str__(self) -> str:
        c = self.confusions
        lines = [f"Given labels that are at least {100 * c.label_accuracy:.4g}% right (at most "
                 f"{_fmt(c.max_wrong)} of {_fmt(c.observed.total)} wrong):",
                 *_cost_lines(self.frame)]
        if self.estimate is not None:
            lines.append(f"  estimate: corrected for {self.estimate_basis}")
        elif c.note:
            lines.append(f"  {c.note}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        lo, hi = self.range_of("worst_cost")
        e_lo, e_hi = self.range_of("eval1")
        return (f"LabelNoiseRange(slot={self.slot!r}, label_accuracy={self.label_accuracy:.4g}, "
                f"eval1=({_fmt(e_lo)}, {_fmt(e_hi)}), worst_cost=({_fmt(lo)}, {_fmt(hi)}))")


# ------------------------------------------------------------------------ the kink points
def _kink_lines(sheet: CostSheet, o: Confusion) -> list[tuple[float, float, float]]:
    """Lines ``c0 + c1 d1 + c2 d2 = 0`` across which a closed form changes its piece.

    The true confusion is ``tp0 + d1, fn0 + d2, fp0 - d1, tn0 - d2``; the class sizes are
    ``P0 + d1 + d2`` and ``N0 - d1 - d2``. The closed forms compare a forced-failure count
    ``e x class size`` (or a difference of two) with a cell, for every rate and cell of a class.
    """
    r = sheet.rates
    tp, fn, fp, tn = (np.array(v, dtype=float) for v in (
        (o.tp, 1, 0), (o.fn, 0, 1), (o.fp, -1, 0), (o.tn, 0, -1)))
    n_p = np.array((o.positives, 1, 1), dtype=float)
    n_n = np.array((o.negatives, -1, -1), dtype=float)
    lines = []
    for size, cells, e_right, e_wrong in ((n_p, (tp, fn), r.fn_forced_p, r.fn_forced_n),
                                          (n_n, (tn, fp), r.fp_forced_n, r.fp_forced_p)):
        for rate in (e_right, e_wrong, e_wrong - e_right):
            for cell in cells:
                line = rate * size - cell
                if line[1] != 0 or line[2] != 0:
                    lines.append((float(line[0]), float(line[1]), float(line[2])))
    return lines


def _candidate_points(sheet: CostSheet, rng: ConfusionRange) -> np.ndarray:
    """Every point where a cost can take an extreme over the polygon, as ``(d1, d2)`` rows."""
    corners = [np.array(p) for p in rng.corners]
    points = list(corners)
    lines = _kink_lines(sheet, rng.observed)

    def f(line: tuple[float, float, float], p: np.ndarray) -> float:
        return line[0] + line[1] * p[0] + line[2] * p[1]

    for line in lines:  # kink lines across the polygon's edges
        for i, p in enumerate(corners):
            q = corners[(i + 1) % len(corners)]
            fp_, fq = f(line, p), f(line, q)
            if fp_ * fq < 0:
                points.append(p + fp_ / (fp_ - fq) * (q - p))
    for a, b in itertools.combinations(lines, 2):  # two kink lines crossing inside
        det = a[1] * b[2] - a[2] * b[1]
        if det != 0:
            points.append(np.array([(-a[0] * b[2] + a[2] * b[0]) / det,
                                    (-a[1] * b[0] + a[0] * b[1]) / det]))
    pts = np.array(points, dtype=float)
    return pts[_inside(rng, pts)]


def _inside(rng: ConfusionRange, pts: np.ndarray) -> np.ndarray:
    o = rng.observed
    tol = 1e-9 * max(1.0, float(o.total))
    d1, d2 = pts[:, 0], pts[:, 1]
    return ((np.abs(d1) + np.abs(d2) <= rng.max_wrong + tol)
            & (d1 >= -float(o.tp) - tol) & (d1 <= float(o.fp) + tol)
            & (d2 >= -float(o.fn) - tol) & (d2 <= float(o.tn) + tol))


def _cells(o: Confusion, pts: np.ndarray) -> np.ndarray:
    d1, d2 = pts[:, 0], pts[:, 1]
    m = np.column_stack([o.tp + d1, o.fn + d2, o.fp - d1, o.tn - d2]).astype(float)
    return np.maximum(m, 0.0)  # only rounding below 0 inside the polygon


def _price(sheet: CostSheet, m: np.ndarray) -> np.ndarray:
    """``(n, 3)``: Eval1, worst and best cost of each row (probability form)."""
    df = bound_many_from_rates(sheet.rates, m, sheet.costs, assumption=sheet.assumption,
                               monotonicity=sheet.monotonicity_check)
    return df[["expected_cost", "worst_cost", "best_cost"]].to_numpy()


def label_noise_range(sheet: CostSheet, candidate: Confusion, label_accuracy: float | None = None,
                      *, label_errors: Any = None, transitions: Any = None,
                      steps: int | None = None) -> LabelNoiseRange | TransitionRange:
    """Eval1 and the worst and best system cost of a candidate as ranges over label noise.

    Parameters
    ----------
    sheet : CostSheet
        The slot's cost sheet (its rates about the true class).
    candidate : Confusion
        The candidate's confusion, counted against the labels.
    label_accuracy : float, optional
        At least this fraction of the labels is right, in (0.5, 1]. The range makes no
        assumption on how the labels' errors relate to the candidate's.
    label_errors : LabelErrors, pair of float or Confusion, optional
        The labels' error rates per true class (or a label audit,
        :class:`~causalcost.stats.noisy_labels.LabelErrors`): the ``estimate`` then corrects
        the candidate with them (independent errors), and without ``label_accuracy`` the range
        uses the label accuracy they imply on the corrected class sizes. Without them the
        estimate uses one rate ``1 - label_accuracy`` for both classes.
    transitions : sequence, optional
        K labels only: the range over exactly these label transitions (each a
        :class:`~causalcost.stats.noisy_labels.LabelTransition` or K x K matrix of
        ``P(observed label | true class)``).
    steps : int, optional
        K labels only: how many evenly spaced members of a continuous family of transitions
        are priced (default 101).

    Returns
    -------
    LabelNoiseRange or TransitionRange
        :class:`TransitionRange` for a sheet of K labels.

    Notes
    -----
    **K labels.** A sheet of K labels gets the K-label form of the independent-errors
    correction: each label transition ``P(observed label | true class)`` in a set turns the
    candidate's counts into a corrected confusion
    (:func:`~causalcost.stats.noisy_labels.correct_confusion`), which the sheet prices; the
    range is the lowest and highest cost over the set. The set is ``transitions`` when given;
    otherwise, with ``label_accuracy``, labels right with probability ``a`` and wrong evenly
    for every ``a`` from 1 down to ``label_accuracy`` (a symmetric noise rate from 0 up to
    ``1 - label_accuracy``); otherwise the way ``(1 - t) I + t E`` from clean labels to
    ``label_errors`` ``E`` (``t`` from 0 to 1). A continuous family is priced at ``steps``
    evenly spaced members (the costs between two of them can pass the range by the change
    over one step); a given list is priced exactly. A transition whose correction would need
    negative counts cannot have produced the counts and is left out (``note`` says how many).
    Unlike the binary range, which holds for any relation between the labels' errors and the
    candidate's, the K-label range assumes they are independent given the true class.

    Raises
    ------
    LabelNoiseError
        If the labels are no better than a coin, or ``label_errors`` would need negative counts.
    ValidationError
        If neither ``label_accuracy`` nor ``label_errors`` is given.

    Examples
    --------
    Labels that miss 5 % of the positives and flag 2 % of the negatives:

    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> r = label_noise_range(sheet, cc.Confusion(tp=80, fn=20, fp=30, tn=170),
    ...                       label_errors=(0.05, 0.02))
    >>> round(r.label_accuracy, 4), [round(v, 2) for v in r.range_of("worst_cost")]
    (0.9699, [175.81, 284.19])
    >>> r.frame.loc["worst_cost", ["observed", "estimate"]].round(2).tolist()
    [230.0, 214.52]

    Three labels, labels at least 90 % right and wrong evenly:

    >>> from causalcost.sheet.derivation import derive_labelled_sheet
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1.0      # the system outputs what the slot says
    >>> sheet = derive_labelled_sheet(t, [[0, 1, 1], [1, 0, 1], [5, 5, 0]], slot="m",
    ...                               labels=["a", "b", "c"], created="2026-01-01T00:00:00+00:00")
    >>> r = label_noise_range(sheet, [[80, 10, 10], [5, 40, 5], [2, 3, 45]], 0.9)
    >>> [round(v, 3) for v in r.range_of("eval1")]
    [35.818, 55.0]
    """
    from causalcost.evaluation.label_report import is_label_sheet

    if is_label_sheet(sheet):
        return _transition_range(sheet, candidate, label_accuracy, label_errors, transitions,
                                 steps)
    if transitions is not None or steps is not None:
        raise ValidationError("transitions= and steps= apply to a sheet of K labels; for two "
                              "labels the range is exact over every relabelling "
                              "(label_accuracy=)")
    if not isinstance(sheet, CostSheet):
        raise InputTypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    if not isinstance(candidate, Confusion):
        raise InputTypeError(f"candidate must be a Confusion, got {type(candidate).__name__}")
    estimate: Confusion | None
    if label_errors is not None:
        errors = as_label_errors(label_errors)
        estimate = correct_confusion(candidate, errors)
        basis = "the given label error rates (independent errors)"
        if label_accuracy is None:
            label_accuracy = errors.accuracy(float(estimate.positives), float(estimate.negatives))
            if label_accuracy <= 0.5:
                raise LabelNoiseError(
                    f"the label error rates {errors!r} make the labels right only "
                    f"{label_accuracy:.4g} of the time on these class sizes: no better than a "
                    "coin")
    elif label_accuracy is None:
        raise ValidationError("give label_accuracy (the fraction of right labels) or "
                              "label_errors (their error rates per true class)")
    rng = confusion_range(candidate, label_accuracy)
    if label_errors is None:
        estimate = rng.estimate
        basis = "independent label errors, one rate for both classes"
    pts = _candidate_points(sheet, rng)
    costs = _price(sheet, _cells(candidate, pts))
    fixed = [candidate] + ([estimate] if estimate is not None else [])
    known = _price(sheet, np.array([m.cells() for m in fixed], dtype=float))
    frame = pd.DataFrame({
        "low": costs.min(axis=0), "high": costs.max(axis=0), "observed": known[0],
        "estimate": known[1] if estimate is not None else np.full(3, np.nan),
    }, index=list(_COSTS))
    return LabelNoiseRange(frame=frame, confusions=rng, estimate=estimate, estimate_basis=basis,
                           slot=sheet.slot, assumption=sheet.assumption)


# ------------------------------------------------------------------------------ K labels
@dataclass(frozen=True, eq=False)
class TransitionRange(_CostRanges):
    """The sheet's costs of a K-label candidate over a set of label transitions.

    Attributes
    ----------
    frame : pandas.DataFrame
        Rows ``eval1``, ``worst_cost``, ``best_cost``; columns ``low`` and ``high`` (over the
        set), ``observed`` (as counted against the labels) and ``estimate`` (corrected with
        ``label_errors``; NaN without them).
    labels : tuple of str
    observed : Confusion
        The candidate as counted against the labels.
    transitions : tuple of LabelTransition
        The transitions priced (those whose correction needs no negative count).
    corrected : numpy.ndarray
        ``(len(transitions), K, K)``: the corrected confusion under each.
    costs : numpy.ndarray
        ``(len(transitions), 3)``: Eval1, worst and best cost under each.
    estimate : Confusion or None
    family : str
        What set was priced.
    note : str
        Transitions left out, if any.
    slot, assumption : str
    eval1_any_errors : (float, float) or None
        With ``label_accuracy``: the lowest and highest Eval1 over every true confusion
        reachable by relabelling at most ``(1 - label_accuracy) n`` instances, with no
        assumption on how the labels' errors relate to the candidate's (the binary range's
        reading; exact, Eval1 being linear in the confusion). The worst and best cases have
        no such range for K labels.
    """

    frame: pd.DataFrame = field(repr=False)
    labels: tuple[str, ...]
    observed: Confusion
    transitions: tuple[LabelTransition, ...] = field(repr=False)
    corrected: np.ndarray = field(repr=False)
    costs: np.ndarray = field(repr=False)
    estimate: Confusion | None
    family: str
    note: str = ""
    slot: str = ""
    assumption: str = "none"
    eval1_any_errors: tuple[float, float] | None = None

    def extreme(self, cost: str, high: bool = True) -> LabelTransition:
        """The transition at which ``cost`` is highest (or lowest)."""
        self.range_of(cost)  # checks the name
        i = _COSTS.index(cost)
        column = self.costs[:, i]
        return self.transitions[int(np.argmax(column) if high else np.argmin(column))]

    def to_frame(self) -> pd.DataFrame:
        """:attr:`frame`, with the family in ``attrs``."""
        frame = self.frame.copy()
        frame.attrs.update(family=self.family, slot=self.slot, assumption=self.assumption,
                           labels=list(self.labels), transitions=len(self.transitions))
        return frame

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per cost ``{"low", "high", "observed", "estimate"}``, the family, the
        number of transitions priced and the note."""
        free = self.eval1_any_errors
        return {"labels": list(self.labels), "family": self.family,
                "transitions": len(self.transitions), "note": self.note,
                **_cost_dicts(self.frame),
                "eval1_any_errors": None if free is None else list(free)}

    def __str__(self) -> str:
        lines = [f"Over {self.family} ({len(self.transitions)} label transitions priced, "
                 "independent label errors):", *_cost_lines(self.frame)]
        if self.eval1_any_errors is not None:
            lo, hi = self.eval1_any_errors
            lines.append(f"  with no assumption on the label errors: Eval1 between {_fmt(lo)} "
                         f"and {_fmt(hi)}")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        lo, hi = self.range_of("worst_cost")
        e_lo, e_hi = self.range_of("eval1")
        return (f"TransitionRange(slot={self.slot!r}, labels={list(self.labels)}, "
                f"transitions={len(self.transitions)}, eval1=({_fmt(e_lo)}, {_fmt(e_hi)}), "
                f"worst_cost=({_fmt(lo)}, {_fmt(hi)}))")


def _price_k(sheet: CostSheet, n: np.ndarray) -> np.ndarray:
    """``(m, 3)``: Eval1, worst and best cost of K x K confusions on other instances."""
    from causalcost.evaluation.label_pricing import price_many

    priced = price_many(sheet, n, [f"t{i}" for i in range(len(n))], np.zeros(len(n), bool))
    return np.column_stack([priced[c] for c in _COSTS]).astype(float)


def _transition_range(sheet: CostSheet, candidate: Any, label_accuracy: Any, label_errors: Any,
                      transitions: Any, steps: int | None) -> TransitionRange:
    from causalcost.evaluation.label_candidates import candidate_matrices
    from causalcost.stats.noisy_labels import as_transition, corrected_counts

    labels = tuple(map(str, sheet.labels))
    if steps is None:
        steps = 101
    if isinstance(steps, bool) or not isinstance(steps, int) or not 2 <= steps <= 100_000:
        raise ValidationError(f"steps must be a whole number from 2 to 100000, got {steps!r}")
    _, n = candidate_matrices({"candidate": candidate}, list(labels), None, None)
    o = np.asarray(n[0], dtype=float)
    if o.sum() <= 0:
        raise ValidationError("the candidate's confusion has no instances")
    observed = Confusion.from_matrix(o, labels=list(labels))
    estimate = None
    if label_errors is not None:
        errors = as_transition(label_errors, labels)
        estimate = correct_confusion(observed, errors)
    grid = np.linspace(0.0, 1.0, steps)
    if transitions is not None:
        if isinstance(transitions, (str, LabelTransition)) or not hasattr(transitions, "__len__"):
            raise InputTypeError("transitions must be a list of label transitions (each a "
                                 "LabelTransition or K x K matrix)")
        family = "the given transitions"
        chosen = [as_transition(t, labels) for t in transitions]
        if not chosen:
            raise ValidationError("transitions is empty: give at least one label transition")
    elif label_accuracy is not None:
        top = LabelTransition.symmetric(label_accuracy, labels)
        a = float(label_accuracy)
        family = (f"labels right with probability from {_fmt(a)} to 1, wrong evenly "
                  f"(symmetric noise up to {_fmt(1 - a)})")
        chosen = [top.mixed(t) for t in grid]
    elif label_errors is not None:
        family = "label noise from none to the given label_errors"
        chosen = [errors.mixed(t) for t in grid]
    else:
        raise ValidationError("give label_accuracy (the fraction of right labels), "
                              "label_errors (a K x K label transition) or transitions=")
    tol = 1e-9 * max(1.0, float(o.sum()))
    kept, fixed = [], []
    for t in chosen:
        true = corrected_counts(o, t)
        if (true >= -tol).all():
            kept.append(t)
            fixed.append(np.maximum(true, 0.0))
    note = ""
    if len(kept) < len(chosen):
        note = (f"{len(chosen) - len(kept)} of {len(chosen)} transitions left out: their "
                "correction needs negative counts (they cannot have produced these counts)")
    if not kept:
        raise LabelNoiseError(f"every transition given needs negative counts to correct "
                              f"{observed!r}: none can have produced these counts")
    corrected = np.array(fixed)
    costs = _price_k(sheet, corrected)
    known = _price_k(sheet, np.array([o] + ([estimate.to_numpy()] if estimate is not None
                                             else []), dtype=float))
    frame = pd.DataFrame({
        "low": costs.min(axis=0), "high": costs.max(axis=0), "observed": known[0],
        "estimate": known[1] if estimate is not None else np.full(3, np.nan),
    }, index=list(_COSTS))
    free = None
    if label_accuracy is not None:
        m1 = np.einsum("cjs,cs->cj", sheet.table_array,
                       sheet.costs_array)
        free = eval1_any_errors(m1, o, label_accuracy)
    return TransitionRange(frame=frame, labels=labels, observed=observed,
                           transitions=tuple(kept), corrected=corrected, costs=costs,
                           estimate=estimate, family=family, note=note, slot=sheet.slot,
                           assumption=str(sheet.assumption), eval1_any_errors=free)


def eval1_any_errors(m1: np.ndarray, observed: np.ndarray,
                     label_accuracy: float) -> tuple[float, float]:
    """Lowest and highest ``sum(N * m1)`` over the true confusions ``N`` reachable from the
    counts ``observed`` by relabelling at most ``(1 - label_accuracy) n`` instances.

    A wrong label moves one instance within its predicted column, from its label's row to its
    true class's row; Eval1 is linear, so the highest moves the instances whose move gains most
    (each into its column's dearest row), up to the budget, and the lowest mirrors it.

    >>> m1 = np.array([[0.0, 2.0], [5.0, 1.0]])
    >>> eval1_any_errors(m1, np.array([[45.0, 5], [5, 45]]), 0.96)  # 4 of 100 labels wrong
    (60.0, 100.0)
    """
    from fractions import Fraction

    o = np.asarray(observed, dtype=float)
    budget = float((1 - Fraction(repr(float(label_accuracy)))) * Fraction(float(o.sum())))
    base = float((o * m1).sum())
    out = []
    for sign in (-1.0, 1.0):
        target = m1.max(axis=0) if sign > 0 else m1.min(axis=0)
        gain = sign * (target[None, :] - m1)  # per instance moved out of cell (a, j)
        order = np.argsort(-gain, axis=None)
        left, total = budget, 0.0
        for flat in order:
            a, j = np.unravel_index(flat, gain.shape)
            if left <= 0 or gain[a, j] <= 0:
                break
            take = min(left, o[a, j])
            total += float(take * gain[a, j])
            left -= take
        out.append(float(base + sign * total))
    return out[0], out[1]
