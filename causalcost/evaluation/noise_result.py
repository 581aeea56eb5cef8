"""The value :func:`~causalcost.evaluation.label_noise.label_noise_range` returns for any K:
a candidate's costs as ranges over label noise (:class:`LabelNoiseRange`).

Two routes make it (:mod:`~causalcost.evaluation.label_noise`): for two labels the exact
range over every relabelling of at most a share of the instances (the polygon, :attr:`~
LabelNoiseRange.confusions`); for K labels the range over a set of label transitions
(:attr:`~LabelNoiseRange.transitions`). The frame, the printing and ``to_dict`` are one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.cells import CLASSES
from causalcost.confusion import Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.display import html_table
from causalcost.errors import ValidationError
from causalcost.stats.noisy_labels import ConfusionRange, LabelTransition

__all__ = ["COSTS", "LabelNoiseRange", "cost_frame"]

#: The costs a range is given for: rows of :attr:`LabelNoiseRange.frame`.
COSTS = ("eval1", "worst_cost", "best_cost")


def cost_frame(costs: np.ndarray, known: np.ndarray, has_estimate: bool) -> pd.DataFrame:
    """The frame of a range: ``costs`` (m, 3) priced over the noise, ``known`` the observed
    row then (when ``has_estimate``) the estimate's.

    >>> cost_frame(np.array([[1.0, 4, 0], [3, 6, 2]]), np.array([[2.0, 5, 1]]), False).low.tolist()
    [1.0, 4.0, 0.0]
    """
    return pd.DataFrame({
        "low": costs.min(axis=0), "high": costs.max(axis=0), "observed": known[0],
        "estimate": known[1] if has_estimate else np.full(len(COSTS), np.nan),
    }, index=list(COSTS))


def _or_none(value: Any) -> float | None:
    return None if np.isnan(value) else float(value)


@dataclass(frozen=True, eq=False)
class LabelNoiseRange:
    """The sheet's costs of a candidate over the true confusions the label noise allows.

    Attributes
    ----------
    frame : pandas.DataFrame
        Rows ``eval1``, ``worst_cost``, ``best_cost``; columns ``low`` and ``high`` (the
        range), ``observed`` (as counted against the labels) and ``estimate`` (corrected for
        independent label errors; NaN when there is none).
    labels : tuple of str
        The K labels (``("P", "N")`` for a binary sheet).
    observed : Confusion
        The candidate as counted against the labels.
    estimate : Confusion or None
        The corrected confusion behind the ``estimate`` column.
    estimate_basis : str
        What the estimate assumes ("" without one).
    family : str
        What the range is over: every relabelling of at most a number of instances (the exact
        two-label range) or a set of label transitions.
    label_accuracy : float or None
        At least this fraction of the labels is right (None when the range is over given
        transitions only).
    confusions : ConfusionRange or None
        The exact two-label route: the polygon of true confusions the costs range over.
    transitions : tuple of LabelTransition
        The transition route: the transitions priced (those whose correction needs no
        negative count); empty on the exact route.
    corrected, costs : numpy.ndarray or None
        The transition route: ``(len(transitions), K, K)`` corrected confusions and their
        ``(len(transitions), 3)`` Eval1, worst and best cost.
    note : str
        What was left out or could not be estimated, if anything.
    slot, assumption : str
    eval1_any_errors : (float, float) or None
        The lowest and highest Eval1 over every true confusion reachable by relabelling at
        most ``(1 - label_accuracy) n`` instances, with no assumption on how the labels'
        errors relate to the candidate's (exact, Eval1 being linear). On the exact route it is
        the ``eval1`` range itself.
    """

    frame: pd.DataFrame = field(repr=False)
    labels: tuple[str, ...]
    observed: Confusion
    estimate: Confusion | None
    estimate_basis: str
    family: str
    label_accuracy: float | None = None
    confusions: ConfusionRange | None = None
    transitions: tuple[LabelTransition, ...] = field(default=(), repr=False)
    corrected: np.ndarray | None = field(default=None, repr=False)
    costs: np.ndarray | None = field(default=None, repr=False)
    note: str = ""
    slot: str = ""
    assumption: str = "monotone"
    eval1_any_errors: tuple[float, float] | None = None

    @property
    def exact(self) -> bool:
        """Whether this is the exact range over every relabelling (two labels)."""
        return self.confusions is not None

    def range_of(self, cost: str) -> tuple[float, float]:
        """``(low, high)`` of ``"eval1"``, ``"worst_cost"`` or ``"best_cost"``."""
        if cost not in COSTS:
            raise ValidationError(f"cost must be one of {', '.join(COSTS)}, got {cost!r}")
        return float(self.frame.loc[cost, "low"]), float(self.frame.loc[cost, "high"])

    def extreme(self, cost: str, high: bool = True) -> LabelTransition:
        """The transition at which ``cost`` is highest (or lowest); the transition route only
        (the exact range's extremes are confusions: see :attr:`confusions`)."""
        self.range_of(cost)  # checks the name
        if self.costs is None:
            raise ValidationError("this range is exact over every relabelling and priced no "
                                  "transitions; its extreme confusions are in .confusions")
        column = self.costs[:, COSTS.index(cost)]
        return self.transitions[int(np.argmax(column) if high else np.argmin(column))]

    def to_frame(self) -> pd.DataFrame:
        """:attr:`frame`, with the settings in ``attrs``."""
        frame = self.frame.copy()
        frame.attrs.update(label_accuracy=self.label_accuracy, slot=self.slot,
                           assumption=self.assumption, estimate_basis=self.estimate_basis,
                           family=self.family, labels=list(self.labels),
                           transitions=len(self.transitions))
        return frame

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per cost ``{"low", "high", "observed", "estimate"}`` (None where there
        is none), the labels, label accuracy, family, estimate basis, note and
        ``eval1_any_errors``; the exact route adds the most wrong labels and the extreme
        confusions, the transition route the number of transitions priced."""
        costs = {cost: {k: _or_none(self.frame.loc[cost, k])
                        for k in ("low", "high", "observed", "estimate")} for cost in COSTS}
        free = self.eval1_any_errors
        out: dict[str, Any] = {
            "labels": list(self.labels), "label_accuracy": self.label_accuracy,
            "family": self.family, "estimate_basis": self.estimate_basis, "note": self.note,
            **costs, "eval1_any_errors": None if free is None else list(free)}
        if self.confusions is not None:
            out["max_wrong_labels"] = self.confusions.max_wrong
            out["low_accuracy_confusion"] = self.confusions.low.to_dict()
            out["high_accuracy_confusion"] = self.confusions.high.to_dict()
        else:
            out["transitions"] = len(self.transitions)
        return out

    def __str__(self) -> str:
        if self.confusions is not None:
            c = self.confusions
            head = (f"Given labels that are at least {100 * c.label_accuracy:.4g}% right (at "
                    f"most {_fmt(c.max_wrong)} of {_fmt(c.observed.total)} wrong):")
        else:
            head = (f"Over {self.family} ({len(self.transitions)} label transitions priced, "
                    "independent label errors):")
        lines = [head]
        for cost, name in zip(COSTS, ("Eval1", "worst case", "best case")):
            r = self.frame.loc[cost]
            tail = f", estimate {_fmt(r.estimate)}" if not np.isnan(r.estimate) else ""
            lines.append(f"  {name} between {_fmt(r.low)} and {_fmt(r.high)} "
                         f"(as counted {_fmt(r.observed)}{tail})")
        if self.estimate is not None:
            lines.append(f"  estimate: corrected for {self.estimate_basis}")
        free = self.eval1_any_errors
        if free is not None and free != self.range_of("eval1"):
            lines.append(f"  with no assumption on the label errors: Eval1 between "
                         f"{_fmt(free[0])} and {_fmt(free[1])}")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        lo, hi = self.range_of("worst_cost")
        e_lo, e_hi = self.range_of("eval1")
        parts = [f"slot={self.slot!r}"]
        if self.labels != CLASSES:
            parts.append(f"labels={list(self.labels)}")
        if self.label_accuracy is not None:
            parts.append(f"label_accuracy={self.label_accuracy:.4g}")
        if self.confusions is None:
            parts.append(f"transitions={len(self.transitions)}")
        return (f"LabelNoiseRange({', '.join(parts)}, eval1=({_fmt(e_lo)}, {_fmt(e_hi)}), "
                f"worst_cost=({_fmt(lo)}, {_fmt(hi)}))")
