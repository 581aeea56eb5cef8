"""Pictures of a score slot: where the system switches, and what each candidate costs it.

:func:`draw_critical_scores` draws, per class (one panel for P, one for N), the distribution
of the critical scores of a :class:`~causalcost.ScoreSheet` or :class:`~causalcost.ScoreRuns`
as a step ECDF over the slot's score range, with the candidates' score distributions over it
on the same axis. Read at a slot score ``s``, the critical scores' curve is the share of the
class the system says P on when the slot is forced to ``s`` (the instances with ``t <= s``);
a candidate's curve is the share of its scores at or below ``s``. A positive is right when
the candidate's score reaches the instance's critical score, a negative when it stays below:
the legend gives, per class, the share said P when the candidate's scores are independent of
the instance, ``P(S >= T)`` (the expected cost's reading). Critical scores outside the range
(``-inf`` or below it: P at every score; ``+inf`` or above it: P at no score) are counted in
the panel's note. A sheet on breakpoints is drawn with both roundings and the band between
them.

:func:`draw_candidate_costs` draws, one row per candidate, the expected system cost (cost
function 1) with its interval from the best to the worst case, the high-confidence worst case
when the table has it, and the real system cost beside them when it is known: a table of
:func:`~causalcost.compare` (votes or scores), with a ``real_cost`` column when the real system
was run, or a :class:`~causalcost.Backtest`.

Both figures are :class:`~causalcost.plotting.figure.NotebookFigure` (no pyplot), shown as
pictures in Jupyter. Every drawn artist carries a ``gid``: ``"critical:<class>"`` (on
breakpoints ``"critical:<class>:worse"`` and ``"critical:<class>:better"``, and
``"band:<class>"``), ``"candidate:<name>:<class>"``, ``"note:<class>"`` (the title of the
panel's legend, below the panel); ``"interval:<name>"``, ``"expected:<name>"``,
``"hc_worst:<name>"``, ``"real:<name>"``.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES
from causalcost.data.score_runs import ScoreRuns
from causalcost.errors import InputTypeError, ValidationError
from causalcost.evaluation.backtest_result import Backtest
from causalcost.evaluation.score_inputs import given_by_class, scores_by_class
from causalcost.plotting.figure import NotebookFigure, new_figure
from causalcost.sheet.score_sheet import ScoreSheet

__all__ = ["draw_critical_scores", "draw_candidate_costs"]

_CRITICAL = "#3b3b3b"
_PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
            "#8c8c8c", "#ccb974", "#64b5cd")
_READING = {"P": "right when s \u2265 t", "N": "right when s < t"}


def _critical(source: Any) -> tuple[dict[str, np.ndarray], ...]:
    """Per rounding (one on an exact source, ``worse`` and ``better`` on breakpoints), per
    class, the sorted critical scores."""
    if isinstance(source, ScoreRuns):
        return (dict(zip(CLASSES, source.critical_by_class)),)
    if isinstance(source, ScoreSheet):
        if source.exact:
            return (dict(zip(CLASSES, source.critical_by_class("worse"))),)
        return tuple(dict(zip(CLASSES, source.critical_by_class(case)))
                     for case in ("worse", "better"))
    raise InputTypeError(f"source must be a ScoreSheet or ScoreRuns (causalcost.sheet_from_data "
                         f"or causalcost.forced_runs with a score rule), got "
                         f"{type(source).__name__}")


def _candidates(scores: Mapping[str, Any] | None, y_true: Any, positive: Any
                ) -> dict[str, dict[str, np.ndarray]]:
    if scores is None:
        return {}
    if not isinstance(scores, Mapping):
        raise InputTypeError(f"scores must map each candidate's name to its scores, got "
                             f"{type(scores).__name__}")
    out = {}
    for name, value in scores.items():
        if y_true is not None:
            p, n = scores_by_class(y_true, value, positive, what=f"scores[{name!r}]")
        elif isinstance(value, Mapping):
            p, n = given_by_class(value)
        else:
            raise InputTypeError(f"scores[{name!r}]: give y_true= with one score per row, or "
                                 "the scores per class, {'P': [...], 'N': [...]}")
        out[str(name)] = {"P": np.sort(p), "N": np.sort(n)}
    return out


def _range(source: Any, score_range: tuple[float, float] | None) -> tuple[float, float]:
    given = score_range if score_range is not None else getattr(source, "score_range", None)
    low, high = (0.0, 1.0) if given is None else (float(given[0]), float(given[1]))
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValidationError(f"score_range must be two finite numbers, low < high; got "
                              f"{score_range!r}")
    return low, high


def _ecdf(values: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """The step ECDF ``x -> #(values <= x) / n`` on ``[low, high]``, as points for
    ``drawstyle="steps-post"``: the range's ends and every value inside it."""
    inside = np.unique(values[(values > low) & (values < high)])
    x = np.concatenate([[low], inside, [high]])
    y = np.searchsorted(values, x, side="right") / max(values.size, 1)
    return x, y


def said_p(critical: np.ndarray, scores: np.ndarray) -> float:
    """``P(S >= T)``: the share of (candidate score, critical score) pairs in which the score
    reaches the critical score (both arrays sorted).

    >>> said_p(np.array([0.2, 0.6]), np.array([0.1, 0.5, 0.9]))
    0.5
    """
    if not critical.size or not scores.size:
        return math.nan
    reaching = scores.size - np.searchsorted(scores, critical, side="left")
    return float(reaching.mean() / scores.size)


def draw_critical_scores(source: ScoreSheet | ScoreRuns, scores: Mapping[str, Any] | None = None,
                         *, y_true: Any = None, positive: Any = None,
                         score_range: tuple[float, float] | None = None) -> NotebookFigure:
    """The critical scores per class with the candidates' score distributions over them.

    Parameters
    ----------
    source : ScoreSheet or ScoreRuns
        A score sheet (:func:`~causalcost.sheet_from_data` on score runs) or the runs
        themselves (:func:`~causalcost.forced_runs` with a score rule,
        :func:`~causalcost.ensemble_runs`).
    scores : mapping of str to scores, optional
        Per candidate, its scores: per class (``{"P": [...], "N": [...]}``), or one per row of
        ``y_true``.
    y_true : array-like, optional
        The true classes of the rows the candidates' scores are on (booleans, 0/1, or two
        labels with ``positive=``).
    positive : object, optional
        The positive label of ``y_true`` when it is not boolean or 0/1.
    score_range : (float, float), optional
        The axis: the slot's score range (default: the source's, else ``(0, 1)``).

    Returns
    -------
    NotebookFigure
        Two panels (classes P and N) on one shared axis.

    Examples
    --------
    >>> import pandas as pd
    >>> import causalcost as cc
    >>> log = pd.DataFrame({"y": [1, 1, 0, 0], "a": [0.9, 0.3, 0.2, 0.6],
    ...                     "b": [0.6, 0.5, 0.1, 0.7]})
    >>> runs = cc.forced_runs(log, truth="y", models=["a", "b"], slot="b", fusioner="mean")
    >>> fig = draw_critical_scores(runs, {"new": {"P": [0.8, 0.5], "N": [0.3, 0.6]}})
    >>> [ax.get_title() for ax in fig.axes]
    ['class P (2 instances): right when s ≥ t', 'class N (2 instances): right when s < t']
    >>> [line.get_gid() for line in fig.axes[0].get_lines()]
    ['critical:P', 'candidate:new:P']
    >>> fig.axes[0].get_lines()[1].get_label()
    'new: says P on 75 %'
    """
    roundings = _critical(source)
    candidates = _candidates(scores, y_true, positive)
    low, high = _range(source, score_range)
    fig = new_figure(figsize=(10.0, 4.6 + 0.15 * len(candidates)), layout="constrained")
    axes = fig.subplots(1, 2, sharex=True, sharey=True)
    for ax, c in zip(axes, CLASSES):
        t = roundings[0][c]
        if len(roundings) == 1:
            x, y = _ecdf(t, low, high)
            ax.plot(x, y, drawstyle="steps-post", color=_CRITICAL, lw=2, gid=f"critical:{c}",
                    label="critical scores t: share said P with the slot forced to s")
        else:
            (xw, yw), (xb, yb) = (_ecdf(r[c], low, high) for r in roundings)
            grid = np.union1d(xw, xb)
            at = (np.searchsorted(r[c], grid, side="right") / max(r[c].size, 1)
                  for r in roundings)
            ax.fill_between(grid, *at, step="post", color="#bbbbbb", alpha=0.6,
                            gid=f"band:{c}", label="critical scores rounded to breakpoints")
            for (x, y), case, style in (((xw, yw), "worse", "-"), ((xb, yb), "better", ":")):
                ax.plot(x, y, drawstyle="steps-post", color=_CRITICAL, lw=1.4, ls=style,
                        gid=f"critical:{c}:{case}",
                        label=f"critical scores, rounded to make the system {case}")
        for (name, s), colour in zip(candidates.items(), _PALETTE * 10):
            x, y = _ecdf(s[c], low, high)
            share = said_p(t, s[c])
            ax.plot(x, y, drawstyle="steps-post", color=colour, lw=1.4, ls="--",
                    gid=f"candidate:{name}:{c}",
                    label=f"{name}: says P on {share:.0%}".replace("%", " %"))
        every = roundings[0][c].size
        always = int(np.searchsorted(t, low, side="right"))
        never = int(t.size - np.searchsorted(t, high, side="right"))
        note = (f"t \u2264 {low:g} (P at every score): {always / max(every, 1):.0%}\n"
                f"t > {high:g} (P at no score): {never / max(every, 1):.0%}").replace("%", " %")
        if len(roundings) > 1:
            note += "\n(rounded to make the system worse)"
        ax.set_title(f"class {c} ({every} instances): {_READING[c]}", fontsize=10)
        ax.set_xlabel("the slot's score s")
        ax.grid(color="#eeeeee", lw=0.6)
        legend = ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                           frameon=False, title=note, title_fontsize=8, alignment="left")
        legend.get_title().set_gid(f"note:{c}")  # below the panel: clear of every curve
    axes[0].set_xlim(low, high)
    axes[0].set_ylim(0.0, 1.0)
    axes[0].set_ylabel("share of the class at or below s")
    slot = getattr(source, "slot", "")
    rule = getattr(source, "rule", "")
    title = f"Critical scores of slot {slot!r} ({rule}) and the candidates' scores"
    fig.suptitle("\n".join(textwrap.wrap(title, 110)), fontsize=11)
    return fig


_COSTS = ("expected_cost", "best_cost", "worst_cost")


def _cost_frame(table: Any) -> pd.DataFrame:
    frame = table.frame if isinstance(table, Backtest) else table
    if not isinstance(frame, pd.DataFrame):
        raise InputTypeError(f"table must be a table of causalcost.compare or a "
                             f"causalcost.Backtest, got {type(table).__name__}")
    frame = frame.copy()
    if "expected_cost" not in frame and "eval1" in frame:
        frame["expected_cost"] = frame["eval1"]
    missing = [c for c in _COSTS if c not in frame]
    if missing:
        raise ValidationError(f"table: no column {missing[0]!r}; its columns are "
                              f"{list(map(str, frame.columns))} (a table of causalcost.compare "
                              "or causalcost.backtest)")
    return frame


def draw_candidate_costs(table: pd.DataFrame | Backtest) -> NotebookFigure:
    """Each candidate's system cost: expected, from best to worst case, and the real one.

    Parameters
    ----------
    table : pandas.DataFrame or Backtest
        A table of :func:`~causalcost.compare` (one row per candidate; its
        ``high_confidence_worst_cost`` is drawn when present, and a ``real_cost`` column
        added to it, the system run with each candidate, is drawn beside), or the result of
        :func:`~causalcost.backtest`.

    Returns
    -------
    NotebookFigure
        One row per candidate, in the table's order from the top.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"eval1": [105.2, 107.2], "best_cost": [29.0, 29.0],
    ...                       "worst_cost": [328.0, 348.0], "real_cost": [136, 136]},
    ...                      index=["new2", "new1"])
    >>> ax = draw_candidate_costs(table).axes[0]
    >>> [line.get_gid() for line in ax.get_lines()]
    ['expected:new2', 'real:new2', 'expected:new1', 'real:new1']
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['new2', 'new1']
    """
    frame = _cost_frame(table)
    names = [str(n) for n in frame.index]
    fig = new_figure(figsize=(8.0, 1.2 + 0.55 * max(len(names), 1)), layout="constrained")
    ax = fig.subplots()
    labelled: set[str] = set()

    def once(key: str, text: str) -> str:
        if key in labelled:
            return "_nolegend_"
        labelled.add(key)
        return text

    real = "real_cost" in frame
    hc = "high_confidence_worst_cost" in frame
    for row, name in enumerate(names):
        y = -row
        best, expected, worst = (float(frame[c].iloc[row]) for c in
                                 ("best_cost", "expected_cost", "worst_cost"))
        ax.hlines(y, best, worst, color="#c44e52", lw=3, alpha=0.5, gid=f"interval:{name}",
                  label=once("interval", "best to worst case"))
        ax.plot([expected], [y], ls="none", marker="o", ms=8, color=_CRITICAL,
                gid=f"expected:{name}", label=once("expected", "expected (Eval1)"))
        if hc and not math.isnan(float(frame["high_confidence_worst_cost"].iloc[row])):
            ax.plot([float(frame["high_confidence_worst_cost"].iloc[row])], [y], ls="none",
                    marker="|", ms=14, mew=2, color="#8172b3", gid=f"hc_worst:{name}",
                    label=once("hc", "high-confidence worst case"))
        if real:
            ax.plot([float(frame["real_cost"].iloc[row])], [y - 0.18], ls="none", marker="D",
                    ms=7, mfc="#55a868", mec="#2d6b3c", gid=f"real:{name}",
                    label=once("real", "real system cost"))
    ax.set_yticks([-i for i in range(len(names))], names)
    ax.set_ylim(-len(names) + 0.4, 0.6)
    values = frame[[c for c in (*_COSTS, "real_cost", "high_confidence_worst_cost")
                    if c in frame]].to_numpy(dtype=float)
    top = float(np.nanmax(values)) if values.size else 1.0
    ax.set_xlim(min(0.0, float(np.nanmin(values))) if values.size else 0.0, top * 1.05 or 1.0)
    ax.set_xlabel("system cost")
    ax.set_title("System cost with each candidate in the slot", fontsize=11)
    ax.grid(axis="x", color="#eeeeee", lw=0.6)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return fig
