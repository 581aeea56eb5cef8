"""Pictures of a threshold sweep: the ROC in system terms, and system cost against threshold.

:func:`draw_system_roc` draws the candidate's ROC curve (notes 001: TPR against FPR, one point
per threshold) with the chance diagonal, the line of equal expected system cost through the
expected optimum (its slope is the sheet's, :attr:`~causalcost.ThresholdSweep.iso_cost_slope`:
every ROC point lies on or above-left of it in cost), and the operating points marked: the
two the system prefers (lowest expected and lowest worst-case cost) and the model-only one
(highest accuracy), with Youden's J. :func:`draw_cost_by_threshold` draws the expected system
cost against the threshold inside the band from best to worst case, the chosen thresholds
marked.

Only :class:`matplotlib.figure.Figure` is used (no pyplot, no GUI backend), as
:class:`~causalcost.plotting.figure.NotebookFigure`, which Jupyter displays. Every drawn artist
carries a ``gid`` naming what it is (``"roc"``, ``"chance"``, ``"iso-cost"``,
``"point:<criterion>"``, ``"expected_cost"``, ``"worst_cost"``, ``"best_cost"``, ``"band"``,
``"threshold:<criterion>"``, ``"marker:<criterion>"``), so a figure can be inspected
programmatically.

Two rules keep every drawn thing visible. Criteria that pick the same point (the expected and
the worst-case optimum often coincide) are drawn as concentric hollow markers of distinct sizes
(the larger below) and share one legend entry naming them all, one a line (``"lowest expected
system cost"``, ``"= lowest worst-case system cost"``). The legend sits outside the axes, to
their right, so it never hides a curve; the figure's constrained layout keeps it inside the
picture.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from causalcost.confusion import format_number as _fmt
from causalcost.errors import InputTypeError
from causalcost.evaluation.thresholds import ThresholdSweep
from causalcost.plotting.figure import new_figure

__all__ = ["draw_system_roc", "draw_cost_by_threshold"]

_STYLE = {  # criterion: (label, colour, marker)
    "expected": ("lowest expected system cost", "#55a868", "o"),
    "worst": ("lowest worst-case system cost", "#c44e52", "s"),
    "accuracy": ("highest accuracy (model only)", "#4c72b0", "D"),
    "youden": ("highest Youden's J (model only)", "#8172b2", "^"),
}
_SIZE = {"expected": 15, "worst": 11, "accuracy": 9, "youden": 7}  # a point's own marker
_STEP = 5.0  # marker sizes of coincident points: smallest _SIZE["youden"], then +_STEP each
_LEGEND = {"fontsize": 7, "loc": "upper left", "bbox_to_anchor": (1.04, 1.0),
           "borderaxespad": 0.0, "markerscale": 0.7}  # outside the axes, to their right,
# clear of a marker (unclipped) on the right edge
_DASH = {"expected": "--", "worst": ":", "accuracy": "-."}
_CURVE, _GREY = "#3b3b3b", "#999999"


def _check(sweep: object) -> ThresholdSweep:
    if not isinstance(sweep, ThresholdSweep):
        raise InputTypeError(f"sweep must be a ThresholdSweep (causalcost.system_thresholds), "
                             f"got {type(sweep).__name__}")
    return sweep


def _iso_segment(fpr: float, tpr: float, slope: float) -> tuple[list[float], list[float]] | None:
    """The part inside the unit square of the line of ``slope`` through ``(fpr, tpr)``."""
    if math.isnan(slope):
        return None
    if math.isinf(slope):
        return [fpr, fpr], [0.0, 1.0]
    xs = np.array([0.0, 1.0])
    ys = tpr + slope * (xs - fpr)
    if slope != 0:  # clip where the line leaves through the top or the bottom
        lo, hi = sorted(((0.0 - tpr) / slope + fpr, (1.0 - tpr) / slope + fpr))
        xs = np.clip(xs, lo, hi)
        ys = tpr + slope * (xs - fpr)
    return xs.tolist(), ys.tolist()


def _coincident(where: dict[str, tuple[float, ...]]) -> list[list[str]]:
    """The criteria grouped by equal position, in the order of ``where``."""
    groups: dict[tuple[float, ...], list[str]] = {}
    for key, position in where.items():
        groups.setdefault(position, []).append(key)
    return list(groups.values())


def _sizes(groups: list[list[str]]) -> dict[str, float]:
    """Marker size per criterion: its own alone, distinct and decreasing inside a group."""
    sizes = {}
    for group in groups:
        if len(group) == 1:
            sizes[group[0]] = float(_SIZE[group[0]])
        else:
            for i, key in enumerate(group):
                sizes[key] = _SIZE["youden"] + _STEP * (len(group) - 1 - i)
    return sizes


def _thresholds_text(points: list[Any]) -> str:
    return " / ".join(dict.fromkeys(f"{p.threshold:.4g}" for p in points))


def _legend(ax: Any, fixed: list[Any], groups: list[list[str]], markers: dict[str, Any],
            text: Any) -> None:
    """The legend, outside the axes: the ``fixed`` artists, then one entry per group."""
    handles = list(fixed)
    labels = [h.get_label() for h in fixed]
    for group in groups:
        handles.append(tuple(markers[k] for k in group) if len(group) > 1
                       else markers[group[0]])
        labels.append(text(group))
    ax.legend(handles, labels, **_LEGEND)


def draw_system_roc(sweep: ThresholdSweep) -> Figure:
    """The candidate's ROC with the system's iso-cost line and operating points.

    Parameters
    ----------
    sweep : ThresholdSweep
        From :func:`~causalcost.system_thresholds`.

    Returns
    -------
    matplotlib.figure.Figure
        A :class:`~causalcost.plotting.figure.NotebookFigure`: Jupyter shows it as a picture.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.evaluation.thresholds import system_thresholds
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> sweep = system_thresholds(sheet, [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.4, 0.2])
    >>> ax = draw_system_roc(sweep).axes[0]
    >>> sorted(line.get_gid() for line in ax.get_lines())  # doctest: +NORMALIZE_WHITESPACE
    ['chance', 'iso-cost', 'point:accuracy', 'point:expected', 'point:worst', 'point:youden',
     'roc']

    The expected, worst-case and Youden optima coincide here: three concentric markers, one
    legend entry.

    >>> print(ax.get_legend().get_texts()[3].get_text())
    lowest expected system cost
    = lowest worst-case system cost
    = highest Youden's J (model only)
    t = 0.6, expected 3.2, worst 3.6
    """
    s = _check(sweep)
    fig = new_figure(figsize=(9.6, 6.0), layout="constrained")
    ax = fig.subplots()
    f = s.frame
    fixed = [ax.plot([0, 1], [0, 1], ls=":", color=_GREY, lw=1, gid="chance", label="chance")[0],
             ax.plot(f["fpr"], f["tpr"], "-", color=_CURVE, lw=1.6, gid="roc",
                     label=f"ROC (AUC = {s.auc:.3f})", drawstyle="default")[0]]
    e = s.expected_optimum
    segment = _iso_segment(e.fpr, e.tpr, s.iso_cost_slope)
    if segment is not None:
        fixed += ax.plot(*segment, ls="--", color=_STYLE["expected"][1], lw=1, gid="iso-cost",
                         label=f"equal expected system cost ({_fmt(e.expected_cost)}),\n"
                               f"slope {s.iso_cost_slope:.3g}")
    points = s.points
    groups = _coincident({k: (p.fpr, p.tpr) for k, p in points.items()})
    sizes = _sizes(groups)
    markers = {}
    for key, point in points.items():  # hollow markers, the larger below, so all show
        name, colour, marker = _STYLE[key]
        (markers[key],) = ax.plot(
            [point.fpr], [point.tpr], ls="none", marker=marker, ms=sizes[key], mfc="none",
            mec=colour, mew=2, gid=f"point:{key}", zorder=3 + 1 / sizes[key], clip_on=False,
            label=f"{name}: t = {point.threshold:.4g}, expected {_fmt(point.expected_cost)}, "
                  f"worst {_fmt(point.worst_cost)}")

    def text(group: list[str]) -> str:
        p = points[group[0]]
        return ("\n= ".join(_STYLE[k][0] for k in group)
                + f"\nt = {_thresholds_text([points[k] for k in group])}, expected "
                  f"{_fmt(p.expected_cost)}, worst {_fmt(p.worst_cost)}"
                + (f"\n(slot always {p.constant}: the system as with it forced)"
                   if p.constant else ""))

    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_aspect("equal")
    ax.set_anchor("W")  # the square axes at the left of its space, the legend beside it
    ax.set_xlabel("false positive rate of the candidate")
    ax.set_ylabel("true positive rate of the candidate")
    ax.set_title(f"Candidate for slot {s.slot!r}: ROC in system terms", fontsize=11)
    _legend(ax, fixed, groups, markers, text)
    return fig


def draw_cost_by_threshold(sweep: ThresholdSweep) -> Figure:
    """Expected system cost against threshold, in the band between best and worst case.

    The costs are step functions of the threshold (they change only at a score); the step at
    ``t`` holds for thresholds just below ``t`` down to the next score. The row at
    ``threshold = inf`` (predict nothing positive) is left out. Each chosen threshold is a
    vertical line and a hollow marker on the expected cost; criteria choosing the same
    threshold get concentric markers of distinct sizes and one legend entry.

    Parameters
    ----------
    sweep : ThresholdSweep
        From :func:`~causalcost.system_thresholds`.

    Returns
    -------
    matplotlib.figure.Figure
        A :class:`~causalcost.plotting.figure.NotebookFigure`: Jupyter shows it as a picture.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.evaluation.thresholds import system_thresholds
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> sweep = system_thresholds(sheet, [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.4, 0.2])
    >>> ax = draw_cost_by_threshold(sweep).axes[0]
    >>> [line.get_gid() for line in ax.get_lines()][:3]
    ['worst_cost', 'expected_cost', 'best_cost']
    """
    s = _check(sweep)
    f = s.frame[np.isfinite(s.frame["threshold"])].sort_values("threshold")
    fig = new_figure(figsize=(10.0, 4.6), layout="constrained")
    ax = fig.subplots()
    t = f["threshold"].to_numpy()
    fixed: list[Any] = [
        ax.fill_between(t, f["best_cost"], f["worst_cost"], step="pre", color="#f2c4a0",
                        alpha=0.5, gid="band", label="best to worst case"),
        ax.plot(t, f["worst_cost"], drawstyle="steps-pre", color="#c44e52", lw=1,
                gid="worst_cost", label="worst case")[0],
        ax.plot(t, f["expected_cost"], drawstyle="steps-pre", color=_CURVE, lw=1.6,
                gid="expected_cost", label="expected (Eval1)")[0],
        ax.plot(t, f["best_cost"], drawstyle="steps-pre", color="#dd8452", lw=1,
                gid="best_cost", label="best case")[0]]
    shown = {k: s.points[k] for k in ("expected", "worst", "accuracy")
             if math.isfinite(s.points[k].threshold)}
    groups = _coincident({k: (p.threshold,) for k, p in shown.items()})
    sizes = _sizes(groups)
    markers = {}
    for key, point in shown.items():
        name, colour, marker = _STYLE[key]
        ax.axvline(point.threshold, color=colour, ls=_DASH[key], lw=1.2,
                   gid=f"threshold:{key}", label=f"{name} (t = {point.threshold:.4g})")
        (markers[key],) = ax.plot(
            [point.threshold], [point.expected_cost], ls="none", marker=marker, ms=sizes[key],
            mfc="none", mec=colour, mew=2, gid=f"marker:{key}", zorder=3 + 1 / sizes[key],
            clip_on=False,
            label=f"{name} (t = {point.threshold:.4g})")

    def text(group: list[str]) -> str:
        return ("\n= ".join(_STYLE[k][0] for k in group)
                + f"\n(t = {_thresholds_text([shown[k] for k in group])}"
                + (f", slot always {shown[group[0]].constant})" if shown[group[0]].constant
                   else ")"))

    ax.set_xlabel("threshold (the candidate predicts P when score >= threshold)")
    ax.set_ylabel("system cost")
    ax.set_title(f"System cost of the candidate for slot {s.slot!r} by threshold", fontsize=11)
    _legend(ax, fixed, groups, markers, text)
    return fig
