"""Pictures of a system's causal graph, before and after ``do(slot = x)``.

A system is drawn the way the seeds draw it: a layered DAG read top to bottom, causes above
effects (population, then class and features, latents, models, the fusioner's prediction and
last the confusion), deterministic nodes with a double circle, and the slot -- the model
under evaluation -- highlighted. The intervention ``do(slot = x)`` is drawn as its mutilated
graph (Pearl, *Causality*, §3.2): every edge into the slot is gone and the slot is a fixed
square, so the picture shows which paths still carry information to the system prediction.

Where nodes and edges go is worked out by :mod:`causalcost.network.layout` (layers, crossing
reduction, edge routing); :func:`~causalcost.network.layout.layered_positions` is re-exported here.

Only :class:`matplotlib.figure.Figure` is used (as
:class:`~causalcost.plotting.figure.NotebookFigure`, which Jupyter displays): no GUI
backend and no Graphviz are needed. Every drawn artist carries a ``gid`` naming what it is
(``"node:<name>"``, ``"ring:<name>"`` for the inner circle of a deterministic node,
``"edge:<parent>-><child>"``), so a figure can be inspected programmatically.
"""

from __future__ import annotations

import io
import os
from collections.abc import Hashable

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle
from matplotlib.path import Path
from matplotlib.textpath import TextToPath

from causalcost.errors import ValidationError
from causalcost.files import write_atomic
from causalcost.inference.intervene import mutilate
from causalcost.network.layout import (
    Layout,
    clip_curve,
    edge_curve,
    layered_layout,
    layered_positions,
)
from causalcost.network.picture import (
    EDGE_INK,
    FILL,
    INK,
    NODE_RADIUS,
    RING,
    SLOT_INK,
    check_picture_arguments,
    label_lines,
)
from causalcost.network.system import System
from causalcost.plotting.figure import new_figure

__all__ = ["layered_positions", "draw_system", "draw_intervention", "save_figure"]

#: Suffixes :func:`save_figure` writes.
FORMATS = (".png", ".svg")

_R, _RING = NODE_RADIUS, RING
_INK, _EDGE, _FILL, _SLOT_INK = INK, EDGE_INK, FILL, SLOT_INK

_TEXT = TextToPath()


def _fit_size(lines: list[str], room: float, square: bool) -> float:
    """Largest font size (points) at which ``lines`` fit a circle of radius ``room`` points
    (or a square of half-side ``room``)."""
    prop = FontProperties(size=10)
    w = max(_TEXT.get_text_width_height_descent(s, prop, ismath=False)[0] for s in lines)
    h = 12.5 * len(lines)
    half = max(w, h) / 2 if square else float(np.hypot(w, h)) / 2
    return 10 * room / max(half, 1e-9)


def _panel(ax: Axes, system: System, layout: Layout, slot: str | None, value: str | None,
           title: str) -> list[tuple[object, str]]:
    """Draw the system (or its mutilated graph if ``value`` is given) into ``ax`` under
    ``title``; returns legend (handle, label) pairs. Assumes validated arguments."""
    graph = system.network if value is None else mutilate(system, {slot: value})
    left, right, bottom, top = _bounds(layout)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    ax.set_aspect("equal")
    ax.set_axis_off()
    box = ax.get_position()
    fw, fh = ax.figure.get_size_inches()
    ppu = 72 * min(box.width * fw / (right - left), box.height * fh / (top - bottom))
    fixed = slot if value is not None else None
    deterministic = system.deterministic_nodes - {fixed}
    roles = {system.class_node: "class", **{m: "model" for m in system.models}}
    if slot is not None:
        roles[slot] = "slot"
    labels = _labels(graph, fixed, value, ppu)
    for n in graph.nodes:
        _draw_node(ax, n, layout.positions[n], roles.get(n, "node"), labels[n],
                   fixed=n == fixed, double=n in deterministic)
    head = float(np.clip(0.13 * ppu, 6.0, 12.0))
    for u, v in graph.edges:
        curve = edge_curve([layout.positions[u], *layout.bends.get((u, v), []),
                            layout.positions[v]])
        curve = clip_curve(curve, np.asarray(layout.positions[v]), _R + 0.015, v == fixed)
        curve = clip_curve(curve[::-1], np.asarray(layout.positions[u]), _R, u == fixed)[::-1]
        ax.add_patch(FancyArrowPatch(
            path=Path(curve), arrowstyle="-|>,head_length=0.7,head_width=0.35",
            mutation_scale=head, color=_EDGE, linewidth=1.2, zorder=2, gid=f"edge:{u}->{v}",
        ))
    ax.set_title(title, fontsize=12, pad=6)
    return _legend_handles(system, slot, circle=fixed is None, square=fixed is not None,
                           double=bool(deterministic))


def _labels(graph: nx.DiGraph, fixed: str | None, value: str | None,
            ppu: float) -> dict[Hashable, tuple[str, float]]:
    """Wrapped label and font size of every node: one size for all (9 to 12 points) unless
    a label only fits smaller; the fixed slot reads ``do(slot`` ... ``= value)``."""
    lines = {n: label_lines(n, fixed, value) for n in graph.nodes}
    fits = {n: _fit_size(ls, ppu * _R * (0.96 if n == fixed else 0.9 * _RING), n == fixed)
            for n, ls in lines.items()}
    common = min(12.0, max(9.0, min(fits.values())))
    return {n: ("\n".join(ls), min(common, fits[n])) for n, ls in lines.items()}


def _draw_node(ax: Axes, node: Hashable, centre: tuple[float, float], role: str,
               label: tuple[str, float], *, fixed: bool, double: bool) -> None:
    """A circle (a hatched square if fixed by do), an inner ring if deterministic, a label."""
    ink, lw = (_SLOT_INK, 2.2) if role == "slot" else (_INK, 1.3)
    style = {"facecolor": _FILL[role], "edgecolor": ink, "linewidth": lw, "zorder": 3,
             "gid": f"node:{node}"}
    if fixed:
        ax.add_patch(Rectangle((centre[0] - _R, centre[1] - _R), 2 * _R, 2 * _R, hatch="////",
                               **style))
    else:
        ax.add_patch(Circle(centre, _R, **style))
    if double:
        ax.add_patch(Circle(centre, _R * _RING, fill=False, edgecolor=ink, linewidth=1.0,
                            zorder=4, gid=f"ring:{node}"))
    text, size = label
    ax.text(*centre, text, ha="center", va="center", zorder=5, fontsize=size, color="#111111",
            linespacing=1.1, bbox={"boxstyle": "round,pad=0.15", "facecolor": _FILL[role],
                                   "edgecolor": "none"} if fixed else None)


def _legend_handles(system: System, slot: str | None, *, circle: bool, square: bool,
                    double: bool) -> list[tuple[object, str]]:
    """Legend entries: class, model, the slot as a circle and/or a fixed square, double ring."""
    def dot(face: str, ink: str = _INK, size: float = 13, width: float = 1.3) -> Line2D:
        return Line2D([], [], linestyle="none", marker="o", markersize=size,
                      markerfacecolor=face, markeredgecolor=ink, markeredgewidth=width)

    handles: list[tuple[object, str]] = [(dot(_FILL["class"]), "class")]
    if set(system.models) - {slot}:
        handles.append((dot(_FILL["model"]), "model"))
    if slot is not None and circle:
        handles.append((dot(_FILL["slot"], _SLOT_INK, width=2.2), f"slot ({slot})"))
    if slot is not None and square:
        handles.append((Rectangle((0, 0), 1, 1, facecolor=_FILL["slot"], edgecolor=_SLOT_INK,
                                  hatch="////", linewidth=2), "fixed by do()"))
    if double:
        handles.append(((dot("white"), dot("none", size=9, width=1.0)), "deterministic"))
    return handles


def _bounds(layout: Layout) -> tuple[float, float, float, float]:
    """``(left, right, bottom, top)`` of the drawing in data units, margins included."""
    points = [*layout.positions.values(), *(p for ps in layout.bends.values() for p in ps)]
    xs, ys = zip(*points)
    return min(xs) - 0.65, max(xs) + 0.65, min(ys) - 0.55, max(ys) + 0.55


def _extent(layout: Layout) -> tuple[float, float]:
    """Width and height (data units) of the drawing, margins included."""
    left, right, bottom, top = _bounds(layout)
    return right - left, top - bottom


def _legend_width(labels: list[str]) -> float:
    """Inches one legend row of ``labels`` takes at 10 points (marker, text and spacing)."""
    return sum(0.6 + 0.085 * len(s) for s in labels)


def _legend(owner: Axes | Figure, handles: list[tuple[object, str]], width_in: float,
            **where: object) -> int:
    """Place a frameless legend in rows that fit ``width_in``, read left to right, the rows
    as even as possible (never one entry alone under a full row); returns its rows."""
    labels = [label for _, label in handles]
    n = len(labels)
    ncol = n
    while ncol > 1 and _legend_width(labels[:ncol]) > width_in + 1e-6:
        ncol -= 1
    rows = -(-n // max(ncol, 1))
    ncol = -(-n // rows)
    # matplotlib fills a legend column by column: order the entries so rows read in order
    order = [r * ncol + c for c in range(ncol) for r in range(rows) if r * ncol + c < n]
    owner.legend([handles[i][0] for i in order], [labels[i] for i in order], ncol=ncol,
                 frameon=False, fontsize=10, handlelength=1.6, columnspacing=1.4,
                 borderaxespad=0.2, **where)
    return rows


def _figure(width: float, plot_h: float,
            handles: list[tuple[object, str]]) -> tuple[Figure, float, float]:
    """A figure ``width`` inches wide with a title band, ``plot_h`` inches of drawing and the
    legend's rows below; returns it with the drawing's bottom and height as fractions."""
    rows = _legend(new_figure(), handles, width) if handles else 0
    bottom = rows * _ROW + 0.15
    height = _TOP + plot_h + bottom
    return new_figure(figsize=(width, height)), bottom / height, plot_h / height


_TOP, _ROW = 0.5, 0.32  # inches: title band, legend row


def _unit(width: float, room: float) -> float:
    """Inches per data unit: up to 1.3, shrinking to fit ``room`` inches, but never below
    0.95 (so labels stay readable: wide systems get wide figures) nor above 60 inches wide."""
    return min(1.3, max(room / width, 0.95), 60 / width)


def draw_system(
    system: System,
    *,
    slot: str | None = None,
    intervention: str | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Draw the system's DAG, or its mutilated graph under ``do(slot = intervention)``.

    Parameters
    ----------
    system : System
    slot : str, optional
        The model to highlight; defaults to the system's own slot (none if it has none).
    intervention : str, optional
        A state of the slot, e.g. ``"P"``: draw the graph of ``do(slot = intervention)``,
        without the edges into the slot, the slot a hatched square. Node positions are those
        of the system, so the two pictures line up.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes instead of a new figure.
    title : str, optional
        Defaults to the system's name (and the intervention); ``""`` for none.

    Returns
    -------
    matplotlib.figure.Figure
        A new figure (no pyplot, no GUI backend) that Jupyter shows as a picture (a
        :class:`~causalcost.plotting.figure.NotebookFigure`), or ``ax.figure``.

    Raises
    ------
    TypeError
        If ``system`` is not a System or ``ax`` not a matplotlib Axes.
    NetworkStructureError, UnknownNameError
        For an unknown slot, or an intervention state the slot does not have (the message
        lists the valid ones).

    Notes
    -----
    Artists carry a ``gid``: ``"node:<name>"``, ``"ring:<name>"`` (the inner circle of a
    deterministic node) and ``"edge:<parent>-><child>"``.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.plotting.drawing import draw_system
    >>> fig = draw_system(cc.load_network("thesis_and"), intervention="P")
    >>> ax, = fig.axes
    >>> ax.get_title()
    'thesis_and: do(clinical_history = P)'
    >>> sorted(p.get_gid() for p in ax.patches if p.get_gid().startswith("edge:"))
    ['edge:Class->Confusion', 'edge:Class->images', 'edge:Fusioner->Confusion', \
'edge:clinical_history->Fusioner', 'edge:images->Fusioner']
    """
    slot = check_picture_arguments(system, slot, intervention)
    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    if title is None:
        title = system.name + (f": do({slot} = {intervention})" if intervention else "")
    layout = layered_layout(system)
    if ax is None:
        xr, yr = _extent(layout)
        unit = _unit(xr, 15)
        handles = _legend_handles(system, slot, circle=intervention is None,
                                  square=intervention is not None, double=True)
        width = max(xr * unit, 5.0, min(_legend_width([h for _, h in handles]) + 0.3, 9.0))
        fig, bottom, plot_h = _figure(width, yr * unit, handles)
        ax = fig.add_axes((0, bottom, 1, plot_h))
    handles = _panel(ax, system, layout, slot, intervention, title)
    width_in = ax.get_position().width * ax.figure.get_size_inches()[0]
    _legend(ax, handles, max(width_in, 5.0), loc="upper center", bbox_to_anchor=(0.5, 0.0))
    return ax.figure


def draw_intervention(system: System, *, slot: str | None = None, value: str = "P") -> Figure:
    """The system (left) beside its mutilated graph for ``do(slot = value)`` (right).

    Parameters
    ----------
    system : System
    slot : str, optional
        Defaults to the system's slot.
    value : str
        The state the slot is forced to.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes, titled with the system's name and with the intervention; Jupyter shows it
        as a picture.

    Raises
    ------
    NetworkStructureError, UnknownNameError
        As :func:`draw_system`; a system without a slot needs ``slot=``.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.plotting.drawing import draw_intervention
    >>> fig = draw_intervention(cc.load_network("majority3"), value="N")
    >>> [ax.get_title() for ax in fig.axes]
    ['system: majority3', 'do(clinical_history = N)']
    """
    slot = check_picture_arguments(system, slot, value)
    layout = layered_layout(system)
    xr, yr = _extent(layout)
    unit, gap = _unit(2 * xr, 24), 0.4
    width = max(2 * xr * unit + gap, 8.0)
    ordered = _legend_handles(system, slot, circle=True, square=True, double=True)
    fig, bottom, plot_h = _figure(width, yr * unit, ordered)
    panel_w = (width - gap) / 2 / width
    for i, (state, title) in enumerate(((None, f"system: {system.name}"),
                                        (value, f"do({slot} = {value})"))):
        ax = fig.add_axes((i * (panel_w + gap / width), bottom, panel_w, plot_h))
        _panel(ax, system, layout, slot, state, title)
    _legend(fig, ordered, width, loc="lower center", bbox_to_anchor=(0.5, 0.02))
    return fig


def save_figure(fig: Figure, path: str | os.PathLike[str]) -> None:
    """Write ``fig`` as PNG (150 dpi) or SVG, chosen by the suffix of ``path``.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure.
    ValidationError
        For any other suffix; the message names the allowed ones.
    FileError
        The folder does not exist or the file cannot be written; the file is written
        atomically, so a failed save leaves a previous picture intact.

    Examples
    --------
    >>> import causalcost as cc, tempfile, pathlib
    >>> from causalcost.plotting.drawing import draw_system, save_figure
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "thesis_and.svg"
    >>> save_figure(draw_system(cc.load_network("thesis_and")), out)
    >>> out.read_text().lstrip().startswith("<?xml")
    True
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FORMATS:
        raise ValidationError(
            f"cannot save a figure as {os.fspath(path)!r}: suffix {suffix!r} must be one of "
            f"{' or '.join(repr(s) for s in FORMATS)}"
        )
    # rendered in memory, then written beside the target and renamed over it: a failed save
    # (a full disk, a missing folder) leaves the previous picture intact
    buffer = io.BytesIO()
    fig.savefig(buffer, format=suffix[1:], dpi=150, bbox_inches="tight", pad_inches=0.1,
                facecolor="white")
    write_atomic(path, buffer.getvalue())
