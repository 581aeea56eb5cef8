"""Pictures of the seeds' experiments: hold probabilities over the stage sizes, and ratios.

Experiment 1 (:func:`~causalcost.coverage_experiment`) is drawn as two heat maps over
``(n1, n2)`` — how often the plain and the high-confidence worst case hold — and as curves
against ``n2``, one per ``n1``, with the confidence level marked. Experiment 2
(:func:`~causalcost.ratio_experiment`) is drawn as histograms of real cost / worst case, with
the line at 1 that the worst case must not cross.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from causalcost.errors import ValidationError
from causalcost.plotting.figure import new_figure

__all__ = ["draw_coverage_curves", "draw_coverage_heatmap", "draw_ratio_histogram"]

_PLAIN, _HIGH, _EXPECTED = "#4c72b0", "#dd8452", "#55a868"


def _frame(result: object, columns: tuple[str, ...]) -> pd.DataFrame:
    frame = getattr(result, "frame", result)
    if not isinstance(frame, pd.DataFrame) or not set(columns) <= set(frame.columns):
        raise ValidationError(f"expected an experiment result or a frame with columns "
                              f"{', '.join(columns)}")
    return frame


def draw_coverage_heatmap(result: object, *, confidence: float | None = None) -> Figure:
    """Two heat maps over (n1, n2): P(plain worst >= real) and P(high-confidence worst >= real).

    Parameters
    ----------
    result : CoverageResult or DataFrame
        From :func:`~causalcost.coverage_experiment` (or its ``coverage.csv``).
    confidence : float, optional
        The high-confidence bound's level, for the title (read from ``result`` when it has it).

    Returns
    -------
    matplotlib.figure.Figure
        A :class:`~causalcost.plotting.figure.NotebookFigure`: Jupyter shows it as a picture.

    Examples
    --------
    >>> import causalcost as cc
    >>> r = cc.coverage_experiment(n1=[10, 100], n2=[10, 100], repetitions=50)
    >>> [ax.get_title() for ax in draw_coverage_heatmap(r).axes[:2]]
    ['plain worst case holds', 'high-confidence (95%) worst case holds']
    """
    f = _frame(result, ("n1", "n2", "p_plain", "p_high_confidence"))
    level = confidence if confidence is not None else getattr(result, "confidence", None)
    fig = new_figure(figsize=(10, 4.2), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    n1s, n2s = sorted(f.n1.unique()), sorted(f.n2.unique())
    image = None
    for ax, column, title in ((axes[0], "p_plain", "plain worst case holds"),
                              (axes[1], "p_high_confidence",
                               "high-confidence" + (f" ({level:.0%})" if level else "")
                               + " worst case holds")):
        grid = f.pivot(index="n1", columns="n2", values=column).reindex(index=n1s, columns=n2s)
        image = ax.imshow(grid.to_numpy(), origin="lower", vmin=0, vmax=1, cmap="viridis",
                          aspect="auto")
        for (i, j), value in np.ndenumerate(grid.to_numpy()):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if value < 0.6 else "black")
        ax.set_xticks(range(len(n2s)), [f"{v:g}" for v in n2s], fontsize=9)
        ax.set_yticks(range(len(n1s)), [f"{v:g}" for v in n1s], fontsize=9)
        ax.set_xlabel("n2 (candidate's instances)")
        ax.set_title(title, fontsize=11)
    axes[0].set_ylabel("n1 (forced-run instances)")
    fig.colorbar(image, ax=axes, label="P(worst case >= real system cost)", shrink=0.9)
    return fig


def draw_coverage_curves(result: object, *, confidence: float | None = None) -> Figure:
    """P(worst >= real) against n2, one line per n1: plain (solid) and high-confidence (dashed).

    Examples
    --------
    >>> import causalcost as cc
    >>> r = cc.coverage_experiment(n1=[10, 100], n2=[10, 100], repetitions=50)
    >>> len(draw_coverage_curves(r).axes[0].get_lines())   # 2 n1 x 2 bounds + the level
    5
    """
    f = _frame(result, ("n1", "n2", "p_plain", "p_high_confidence"))
    level = confidence if confidence is not None else getattr(result, "confidence", None)
    fig = new_figure(figsize=(7.5, 4.5), layout="constrained")
    ax = fig.subplots()
    n1s = sorted(f.n1.unique())
    colours = [tuple(c) for c in np.linspace([0.15, 0.35, 0.65], [0.85, 0.45, 0.15], len(n1s))]
    for n1, colour in zip(n1s, colours):
        rows = f[f.n1 == n1].sort_values("n2")
        ax.plot(rows.n2, rows.p_plain, "-o", color=colour, ms=3, label=f"n1 = {n1:g}, plain")
        ax.plot(rows.n2, rows.p_high_confidence, "--", color=colour, lw=1,
                label=f"n1 = {n1:g}, high-confidence")
    if level:
        ax.axhline(level, color="#888888", lw=0.8, ls=":", label=f"{level:.0%}")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("n2 (candidate's instances)")
    ax.set_ylabel("P(worst case >= real system cost)")
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    return fig


def draw_ratio_histogram(result: object, *, bins: int = 100) -> Figure:
    """Histograms of real cost / worst case (plain and high-confidence) and / cost function 1.

    Examples
    --------
    >>> import causalcost as cc
    >>> fig = draw_ratio_histogram(cc.ratio_experiment(n=500, repetitions=200))
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['real cost / worst case', 'real cost / cost function 1']
    """
    f = _frame(result, ("ratio_plain", "ratio_high_confidence", "ratio_expected"))
    fig = new_figure(figsize=(10, 4), layout="constrained")
    left, right = fig.subplots(1, 2)
    finite = f.replace([np.inf, -np.inf], np.nan)
    edges = np.linspace(np.nanmin(finite[["ratio_plain", "ratio_high_confidence"]].to_numpy()),
                        max(1.0, np.nanmax(finite.ratio_plain)), bins + 1)
    for column, colour, label in (("ratio_plain", _PLAIN, "plain"),
                                  ("ratio_high_confidence", _HIGH, "high-confidence")):
        above = float((f[column] > 1 + 1e-12).mean())
        left.hist(finite[column].dropna(), bins=edges, color=colour, alpha=0.6,
                  label=f"{label}: {above:.2%} above 1, max {np.nanmax(finite[column]):.3f}")
    left.axvline(1.0, color="black", lw=1)
    left.set_xlabel("real cost / worst case")
    left.set_ylabel("repetitions")
    left.legend(fontsize=8, loc="upper left")
    right.hist(finite.ratio_expected.dropna(), bins=bins, color=_EXPECTED, alpha=0.8)
    right.axvline(1.0, color="black", lw=1)
    above = float((f.ratio_expected > 1 + 1e-12).mean())
    right.set_title(f"estimate optimistic (ratio > 1) in {above:.1%}", fontsize=10)
    right.set_xlabel("real cost / cost function 1")
    return fig
