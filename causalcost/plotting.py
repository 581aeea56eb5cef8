"""Pictures of a system's causal graph, before and after ``do(slot = x)``.

A system is drawn the way the seeds draw it: a layered DAG read top to bottom, causes above
effects (population, then class and features, latents, models, the fusioner's prediction and
last the confusion), deterministic nodes with a double circle, and the slot -- the model
under evaluation -- highlighted. The intervention ``do(slot = x)`` is drawn as its mutilated
graph (Pearl, *Causality*, §3.2): every edge into the slot is gone and the slot is a fixed
square, so the picture shows which paths still carry information to the system prediction.

Layers are the longest path from a root, with two adjustments: a root sits just above its
highest child (so a latent root does not float at the top), and the confusion node goes on a
layer of its own at the bottom. Edges spanning several layers are routed through the layers
they cross, and nodes are ordered within a layer to reduce crossings (the Sugiyama method,
with barycentre ordering and a least-squares placement that keeps long edges straight).

Only this module imports matplotlib, and only :class:`matplotlib.figure.Figure`: no GUI
backend and no Graphviz are needed. Every drawn artist carries a ``gid`` naming what it is
(``"node:<name>"``, ``"ring:<name>"`` for the inner circle of a deterministic node,
``"edge:<parent>-><child>"``), so a figure can be inspected programmatically.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from itertools import combinations

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle
from matplotlib.path import Path
from matplotlib.textpath import TextToPath

from .errors import NetworkStructureError, UnknownNameError, ValidationError
from .intervene import mutilate
from .system import System

__all__ = ["layered_positions", "draw_system", "draw_intervention", "save_figure"]

#: Suffixes :func:`save_figure` writes.
FORMATS = (".png", ".svg")

_X_GAP, _DUMMY_W, _Y_GAP = 1.1, 0.5, 1.15  # data units: node spacing, long-edge lane, layers
_R, _RING = 0.38, 0.84  # node radius; inner ring of a deterministic node as a fraction of it
_INK, _EDGE = "#3b3b3b", "#5a5a5a"
_FILL = {"node": "#ffffff", "class": "#e2efd9", "model": "#dce8f5", "slot": "#f6b26b"}
_SLOT_INK = "#a14a00"


@dataclass(frozen=True)
class _Lane:
    """A point where a long edge crosses a layer (a dummy node of the Sugiyama method)."""

    edge: tuple[Hashable, Hashable]
    layer: int


@dataclass(frozen=True)
class _Layout:
    positions: dict[Hashable, tuple[float, float]]
    bends: dict[tuple[Hashable, Hashable], list[tuple[float, float]]]


def layered_positions(system_or_graph: System | nx.DiGraph) -> dict[Hashable, tuple[float, float]]:
    """Coordinates of every node in the layered drawing: parents above children.

    Parameters
    ----------
    system_or_graph : System or networkx.DiGraph
        A system (its confusion node gets the bottom layer), or any DAG, such as a pgmpy
        network.

    Returns
    -------
    dict
        ``node -> (x, y)``, with ``y = 0`` on the top layer and layers at least ``1.15``
        apart below it (further for wide graphs), so every edge points down; neighbours in
        a layer are at least ``1.1`` apart and the drawing is centred on ``x = 0``.

    Raises
    ------
    TypeError
        If the argument is neither a System nor a networkx DiGraph.
    NetworkStructureError
        If the graph has a cycle.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.plotting import layered_positions
    >>> pos = layered_positions(cc.load_network("population_and"))
    >>> pos["Population"][1] > pos["Class"][1] == pos["ImageFeatures"][1] > pos["images"][1]
    True
    """
    return _layout(*_graph_of(system_or_graph)).positions


def _graph_of(obj: object) -> tuple[nx.DiGraph, Hashable | None]:
    if isinstance(obj, System):
        return obj.network, obj.confusion_node
    if isinstance(obj, nx.DiGraph):
        return obj, None
    raise TypeError(f"expected a System or a networkx DiGraph, got {type(obj).__name__}")


def _depths(graph: nx.DiGraph, last: Hashable | None) -> dict[Hashable, int]:
    depth: dict[Hashable, int] = {}
    for n in nx.topological_sort(graph):
        parents = list(graph.predecessors(n))
        depth[n] = 1 + max(depth[p] for p in parents) if parents else 0
    for n in graph:  # a root sits just above its highest child
        if graph.in_degree(n) == 0 and graph.out_degree(n) > 0:
            depth[n] = min(depth[c] for c in graph.successors(n)) - 1
    if last in graph and graph.out_degree(last) == 0 and len(graph) > 1:
        depth[last] = max(d for n, d in depth.items() if n != last) + 1
    low = min(depth.values(), default=0)
    return {n: d - low for n, d in depth.items()}


def _fit_ordered(targets: list[float], weights: list[float], gaps: list[float]) -> list[float]:
    """Weighted least-squares positions near ``targets`` with ``x[i+1] - x[i] >= gaps[i]``.

    Shifting by the cumulative gaps turns this into isotonic regression (pool adjacent
    violators).
    """
    offsets = np.concatenate([[0.0], np.cumsum(gaps)])
    blocks: list[list[float]] = []  # [mean, weight, count]
    for value, w in zip(np.asarray(targets) - offsets, weights):
        blocks.append([value, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    fit = np.concatenate([[m] * int(c) for m, _, c in blocks]) if blocks else np.zeros(0)
    return (fit + offsets).tolist()


def _layout(graph: nx.DiGraph, last: Hashable | None) -> _Layout:
    """Layering, crossing reduction and coordinates; assumes a networkx DiGraph."""
    if not nx.is_directed_acyclic_graph(graph):
        cycle = " -> ".join(str(u) for u, _ in nx.find_cycle(graph))
        raise NetworkStructureError(f"the graph has a cycle ({cycle}); only a DAG can be layered")
    depth = _depths(graph, last)
    order: list[list[Hashable]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for n in graph.nodes:
        order[depth[n]].append(n)
    up: dict[Hashable, list[Hashable]] = defaultdict(list)
    down: dict[Hashable, list[Hashable]] = defaultdict(list)
    for u, v in graph.edges:  # a long edge becomes a chain through one lane per layer crossed
        chain = [u, *(_Lane((u, v), k) for k in range(depth[u] + 1, depth[v])), v]
        for lane in chain[1:-1]:
            order[lane.layer].append(lane)
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
    order = _untangle(order, up, down)
    point = _coordinates(order, up, down)
    bends: dict[tuple[Hashable, Hashable], list[tuple[float, float]]] = defaultdict(list)
    for k in sorted((k for k in point if isinstance(k, _Lane)), key=lambda k: k.layer):
        bends[k.edge].append(point[k])
    return _Layout({n: point[n] for n in graph.nodes}, dict(bends))


def _crossings(order: list[list[Hashable]], down: dict[Hashable, list[Hashable]]) -> int:
    total = 0
    for top, bottom in zip(order, order[1:]):
        at = {k: j for j, k in enumerate(bottom)}
        ends = [(i, at[b]) for i, a in enumerate(top) for b in down[a]]
        total += sum((a1 - a2) * (b1 - b2) < 0 for (a1, b1), (a2, b2) in combinations(ends, 2))
    return total


def _untangle(order: list[list[Hashable]], up: dict[Hashable, list[Hashable]],
              down: dict[Hashable, list[Hashable]]) -> list[list[Hashable]]:
    """Barycentre ordering within layers, sweeping down and up; the order with fewest
    crossings wins."""
    order = [list(layer) for layer in order]
    best, fewest = [list(layer) for layer in order], _crossings(order, down)
    for sweep in range(12):
        downward = sweep % 2 == 0
        nbrs = up if downward else down
        for i in range(1, len(order)) if downward else range(len(order) - 2, -1, -1):
            ref = {k: j for j, k in enumerate(order[i - 1] if downward else order[i + 1])}
            keyed = [(float(np.mean([ref[m] for m in nbrs[k]])) if nbrs[k] else j, j, k)
                     for j, k in enumerate(order[i])]
            order[i] = [k for *_, k in sorted(keyed, key=lambda t: t[:2])]
        if (count := _crossings(order, down)) < fewest:
            best, fewest = [list(layer) for layer in order], count
    return best


def _coordinates(order: list[list[Hashable]], up: dict[Hashable, list[Hashable]],
                 down: dict[Hashable, list[Hashable]]) -> dict[Hashable, tuple[float, float]]:
    """x by block coordinate descent on the squared horizontal lengths of the edges (so long
    edges run straight and a hub sits over its children), keeping neighbours apart; y by
    layer, further apart for wide graphs so edges into a hub do not bunch up."""
    def gaps(layer: list[Hashable]) -> list[float]:
        return [((_DUMMY_W if isinstance(a, _Lane) else _X_GAP)
                 + (_DUMMY_W if isinstance(b, _Lane) else _X_GAP)) / 2
                for a, b in zip(layer, layer[1:])]

    x: dict[Hashable, float] = {}
    for layer in order:
        xs = np.concatenate([[0.0], np.cumsum(gaps(layer))])
        x.update(zip(layer, xs - xs[-1] / 2))
    for sweep in range(60):
        for layer in order if sweep % 2 == 0 else order[::-1]:
            nbrs = [up[k] + down[k] for k in layer]
            targets = [float(np.mean([x[m] for m in ns])) if ns else x[k]
                       for k, ns in zip(layer, nbrs)]
            weights = [len(ns) or 1e-3 for ns in nbrs]
            x.update(zip(layer, _fit_ordered(targets, weights, gaps(layer))))
    low, high = min(x.values(), default=0.0), max(x.values(), default=0.0)
    rise = float(np.clip(0.2 * (high - low), _Y_GAP, 5.0))
    return {k: (round(x[k] - (high + low) / 2, 9), -rise * i)
            for i, layer in enumerate(order) for k in layer}


# -- drawing ---------------------------------------------------------------------------------
_TEXT = TextToPath()


def _wrap(text: str, width: int = 10) -> list[str]:
    """Break a name into short lines after ``_``, ``-`` or ``.``, at spaces and camelCase."""
    pieces = [(piece, i == 0) for word in text.split()
              for i, piece in enumerate(p for p in re.split(
                  r"(?<=[_\-.])|(?<=[a-z0-9])(?=[A-Z])", word) if p)]
    lines: list[str] = []
    for piece, new_word in pieces:
        joined = (lines[-1] + (" " if new_word else "") + piece) if lines else piece
        if lines and len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(piece)
    return lines or [""]


def _fit_size(lines: list[str], room: float, square: bool) -> float:
    """Largest font size (points) at which ``lines`` fit a circle of radius ``room`` points
    (or a square of half-side ``room``)."""
    prop = FontProperties(size=10)
    w = max(_TEXT.get_text_width_height_descent(s, prop, ismath=False)[0] for s in lines)
    h = 12.5 * len(lines)
    half = max(w, h) / 2 if square else float(np.hypot(w, h)) / 2
    return 10 * room / max(half, 1e-9)


def _curve(points: list[tuple[float, float]]) -> np.ndarray:
    """A smooth path through an edge's bends: a centripetal Catmull-Rom spline (no cusps, no
    overshoot), sampled as a polyline."""
    p = np.asarray(points, dtype=float)
    if len(p) == 2:
        return p
    ext = np.vstack([2 * p[0] - p[1], p, 2 * p[-1] - p[-2]])
    t = np.linspace(0, 1, 25)[:, None]
    parts = []
    for p0, p1, p2, p3 in zip(ext, ext[1:], ext[2:], ext[3:]):
        d0, d1, d2 = (max(float(np.hypot(*(b - a))) ** 0.5, 1e-9)
                      for a, b in ((p0, p1), (p1, p2), (p2, p3)))
        m1 = ((p1 - p0) / d0 - (p2 - p0) / (d0 + d1) + (p2 - p1) / d1) * d1
        m2 = ((p2 - p1) / d1 - (p3 - p1) / (d1 + d2) + (p3 - p2) / d2) * d1
        c1, c2 = p1 + m1 / 3, p2 - m2 / 3
        parts.append((1 - t) ** 3 * p1 + 3 * (1 - t) ** 2 * t * c1 + 3 * (1 - t) * t**2 * c2
                     + t**3 * p2)
    return np.vstack([parts[0], *(part[1:] for part in parts[1:])])


def _clip(curve: np.ndarray, centre: np.ndarray, square: bool, gap: float) -> np.ndarray:
    """Cut the end of ``curve`` that lies inside the node drawn at ``centre``."""
    def inside(q: np.ndarray) -> bool:
        d = np.abs(q - centre)
        return bool((d.max() if square else np.hypot(*d)) < _R + gap)

    i = len(curve) - 1
    while i > 0 and inside(curve[i]):
        i -= 1
    a, b = curve[i], curve[i + 1]  # a outside, b inside: bisect the border
    for _ in range(40):
        mid = (a + b) / 2
        a, b = (a, mid) if inside(mid) else (mid, b)
    return np.vstack([curve[: i + 1], a])


def _panel(ax: Axes, system: System, layout: _Layout, slot: str | None,
           value: str | None) -> list[tuple[object, str]]:
    """Draw the system (or its mutilated graph if ``value`` is given) into ``ax``; returns
    legend (handle, label) pairs. Assumes validated arguments."""
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
        curve = _curve([layout.positions[u], *layout.bends.get((u, v), []), layout.positions[v]])
        curve = _clip(curve, np.asarray(layout.positions[v]), v == fixed, 0.015)
        curve = _clip(curve[::-1], np.asarray(layout.positions[u]), u == fixed, 0.0)[::-1]
        ax.add_patch(FancyArrowPatch(
            path=Path(curve), arrowstyle="-|>,head_length=0.7,head_width=0.35",
            mutation_scale=head, color=_EDGE, linewidth=1.2, zorder=2, gid=f"edge:{u}->{v}",
        ))
    return _legend_handles(system, slot, circle=fixed is None, square=fixed is not None,
                           double=bool(deterministic))


def _labels(graph: nx.DiGraph, fixed: str | None, value: str | None,
            ppu: float) -> dict[Hashable, tuple[str, float]]:
    """Wrapped label and font size of every node: one size for all (7 to 11 points) unless
    a label only fits smaller; the fixed slot reads ``do(slot = value)``."""
    lines = {n: _wrap(str(n)) for n in graph.nodes}
    if fixed is not None:
        head, tail = _wrap(f"do({fixed}"), f"= {value})"
        lines[fixed] = ([*head[:-1], f"{head[-1]} {tail}"]
                        if len(head[-1]) + len(tail) < 12 else [*head, tail])
    fits = {n: _fit_size(ls, ppu * _R * (0.96 if n == fixed else 0.9 * _RING), n == fixed)
            for n, ls in lines.items()}
    common = min(11.0, max(7.0, min(fits.values())))
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


def _bounds(layout: _Layout) -> tuple[float, float, float, float]:
    """``(left, right, bottom, top)`` of the drawing in data units, margins included."""
    points = [*layout.positions.values(), *(p for ps in layout.bends.values() for p in ps)]
    xs, ys = zip(*points)
    return min(xs) - 0.65, max(xs) + 0.65, min(ys) - 0.55, max(ys) + 0.55


def _extent(layout: _Layout) -> tuple[float, float]:
    """Width and height (data units) of the drawing, margins included."""
    left, right, bottom, top = _bounds(layout)
    return right - left, top - bottom


def _legend(owner: Axes | Figure, handles: list[tuple[object, str]], width_in: float,
            **where: object) -> int:
    """Place a frameless legend in as many columns as fit ``width_in``; returns its rows."""
    labels = [label for _, label in handles]
    ncol = len(labels)
    while ncol > 1 and sum(0.55 + 0.075 * len(s) for s in labels[:ncol]) > width_in:
        ncol -= 1
    owner.legend([h for h, _ in handles], labels, ncol=max(ncol, 1), frameon=False, fontsize=9,
                 handlelength=1.6, columnspacing=1.4, borderaxespad=0.2, **where)
    return -(-len(labels) // max(ncol, 1))


def _rows(handles: list[tuple[object, str]], width_in: float) -> int:
    return _legend(Figure(), handles, width_in) if handles else 0


def _check(system: object, slot: str | None, value: str | None) -> str | None:
    """Validate the public arguments; returns the slot (None if nothing is highlighted)."""
    if not isinstance(system, System):
        raise TypeError(f"system must be a causalcost System, got {type(system).__name__}")
    if slot is None and system.slot is None and value is None:
        return None
    slot = system.require_slot(slot)
    if value is not None and value not in system.states(slot):
        raise UnknownNameError(
            f"intervention state {value!r} is not a state of slot {slot!r}; valid states: "
            f"{system.states(slot)}"
        )
    return slot


_TOP, _ROW = 0.5, 0.32  # inches: title band, legend row


def _unit(width: float, room: float) -> float:
    """Inches per data unit: up to 1.15, shrinking to fit ``room`` inches, but never below
    0.8 (so labels stay readable: wide systems get wide figures) nor above 60 inches wide."""
    return min(1.15, max(room / width, 0.8), 60 / width)


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
        A new figure (no pyplot, no GUI backend), or ``ax.figure``.

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
    >>> from causalcost.plotting import draw_system
    >>> fig = draw_system(cc.load_network("thesis_and"), intervention="P")
    >>> ax, = fig.axes
    >>> ax.get_title()
    'thesis_and: do(clinical_history = P)'
    >>> sorted(p.get_gid() for p in ax.patches if p.get_gid().startswith("edge:"))
    ['edge:Class->Confusion', 'edge:Class->images', 'edge:Fusioner->Confusion', \
'edge:clinical_history->Fusioner', 'edge:images->Fusioner']
    """
    slot = _check(system, slot, intervention)
    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    if title is None:
        title = system.name + (f": do({slot} = {intervention})" if intervention else "")
    layout = _layout(system.network, system.confusion_node)
    if ax is None:
        xr, yr = _extent(layout)
        unit = _unit(xr, 15)
        width = max(xr * unit, 5.0)
        rows = _rows(_legend_handles(system, slot, circle=intervention is None,
                                     square=intervention is not None, double=True), width)
        bottom = rows * _ROW + 0.15
        height = _TOP + yr * unit + bottom
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((0, bottom / height, 1, yr * unit / height))
    handles = _panel(ax, system, layout, slot, intervention)
    ax.set_title(title, fontsize=12, pad=6)
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
        Two axes, titled with the system's name and with the intervention.

    Raises
    ------
    NetworkStructureError, UnknownNameError
        As :func:`draw_system`; a system without a slot needs ``slot=``.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.plotting import draw_intervention
    >>> fig = draw_intervention(cc.load_network("majority3"), value="N")
    >>> [ax.get_title() for ax in fig.axes]
    ['system: majority3', 'do(clinical_history = N)']
    """
    slot = _check(system, slot, value)
    layout = _layout(system.network, system.confusion_node)
    xr, yr = _extent(layout)
    unit, gap = _unit(2 * xr, 24), 0.4
    width = max(2 * xr * unit + gap, 8.0)
    ordered = _legend_handles(system, slot, circle=True, square=True, double=True)
    rows = _rows(ordered, width)
    bottom = rows * _ROW + 0.15
    height = _TOP + yr * unit + bottom
    fig = Figure(figsize=(width, height))
    panel_w = (width - gap) / 2 / width
    for i, (state, title) in enumerate(((None, f"system: {system.name}"),
                                        (value, f"do({slot} = {value})"))):
        ax = fig.add_axes((i * (panel_w + gap / width), bottom / height, panel_w,
                           yr * unit / height))
        _panel(ax, system, layout, slot, state)
        ax.set_title(title, fontsize=12, pad=6)
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

    Examples
    --------
    >>> import causalcost as cc, tempfile, pathlib
    >>> from causalcost.plotting import draw_system, save_figure
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
    fig.savefig(path, format=suffix[1:], dpi=150, bbox_inches="tight", pad_inches=0.1,
                facecolor="white")
