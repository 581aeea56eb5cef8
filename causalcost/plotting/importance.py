"""The slot-importance bar chart: the system cost with each slot as is, perfect, constant P,
constant N and removed (:func:`causalcost.slot_importance`).

One group of bars per model, one bar per system version, with the intervals of a log as error
bars. The figure is a :class:`matplotlib.figure.Figure` (no pyplot, no GUI backend) that also
shows itself in Jupyter (a :class:`~causalcost.plotting.figure.NotebookFigure`), so a notebook cell
ending in ``cc.draw_slot_importance(result)`` displays the chart whether
or not pyplot was ever imported. Every bar carries a ``gid`` ``"bar:<version>:<model>"`` and
every set of error bars ``"ci:<version>"``.
"""

from __future__ import annotations

import math

import numpy as np

from causalcost.errors import InputTypeError
from causalcost.evaluation.importance import SlotImportance
from causalcost.plotting.figure import NotebookFigure, new_figure

__all__ = ["draw_slot_importance"]

_STYLE = {  # version: (label, colour)
    "as_is": ("as is", "#7f7f7f"),
    "perfect": ("perfect model", "#55a868"),
    "constant_p": ("constant P", "#dd8452"),
    "constant_n": ("constant N", "#4c72b0"),
    "removed": ("votes removed", "#c44e52"),
}


def draw_slot_importance(result: SlotImportance) -> NotebookFigure:
    """Bar chart of the system cost per model and slot version, with intervals from a log.

    Parameters
    ----------
    result : SlotImportance
        From :func:`~causalcost.slot_importance`.

    Returns
    -------
    NotebookFigure
        A :class:`matplotlib.figure.Figure` that displays itself in Jupyter.

    Examples
    --------
    >>> import causalcost as cc
    >>> result = cc.slot_importance(cc.load_network("thesis_and"), costs=cc.CostMatrix(fn=5, fp=1),
    ...                             n=300)
    >>> fig = draw_slot_importance(result)
    >>> heights = {p.get_gid(): p.get_height() for p in fig.axes[0].patches}
    >>> float(heights["bar:perfect:clinical_history"]), float(heights["bar:constant_n:images"])
    (100.0, 500.0)
    >>> fig._repr_png_()[:4]
    b'\\x89PNG'
    """
    if not isinstance(result, SlotImportance):
        raise InputTypeError(f"result must be a SlotImportance (causalcost.slot_importance), "
                             f"got {type(result).__name__}")
    frame = result.frame
    models = [str(m) for m in frame.index]
    shown = [c[:-len("_cost")] for c in result.versions() if frame[c].notna().any()]
    spare = iter(["#8172b3", "#937860", "#da8bc3", "#ccb974", "#64b5cd"])
    fig = new_figure(figsize=(max(6.4, 1.4 * len(models) + 2), 4.8), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(models))
    width = 0.8 / max(len(shown), 1)
    for i, version in enumerate(shown):
        label, colour = _STYLE.get(version) or (  # constant_<label> of K labels
            f"constant {version[len('constant_'):]}", next(spare, "#999999"))
        heights = frame[f"{version}_cost"].to_numpy(dtype=float)
        where = x - 0.4 + width * (i + 0.5)
        bars = ax.bar(where, np.nan_to_num(heights, nan=0.0), width, color=colour, label=label)
        for bar, model, h in zip(bars, models, heights):
            bar.set_gid(f"bar:{version}:{model}")
            if math.isnan(h):
                bar.set_visible(False)
        if f"{version}_ci_low" in frame:
            low = frame[f"{version}_ci_low"].to_numpy(dtype=float)
            high = frame[f"{version}_ci_high"].to_numpy(dtype=float)
            ok = ~np.isnan(heights) & ~np.isnan(low)
            if ok.any():
                err = np.vstack([heights[ok] - low[ok], high[ok] - heights[ok]])
                bars_ci = ax.errorbar(where[ok], heights[ok], yerr=np.clip(err, 0, None),
                                      fmt="none", ecolor="#222222", elinewidth=1, capsize=3)
                for line in bars_ci.lines[2]:  # the vertical bars (a LineCollection)
                    line.set_gid(f"ci:{version}")
    ax.set_xticks(x, models)
    ax.set_ylabel("system cost" + (" (expected)" if result.source == "network" else ""))
    level = ("" if result.confidence is None
             else f"; bars: {result.confidence:.0%} intervals")
    ax.set_title(f"Which slot to improve: system cost by slot version{level}", fontsize=11)
    ax.legend(fontsize=8)
    ax.grid(axis="y", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    return fig
