"""Where the nodes and edges of a causal graph go in its layered drawing (no matplotlib).

A system is laid out the way the seeds draw it: a layered DAG read top to bottom, causes above
effects (population, then class and features, latents, models, the fusioner's prediction and
last the confusion). Layers are the longest path from a root, with two adjustments: a root
sits just above its highest child (so a latent root does not float at the top), and the
confusion node goes on a layer of its own at the bottom. Edges spanning several layers are
routed through the layers they cross, and nodes are ordered within a layer to reduce crossings
(the Sugiyama method, with barycentre ordering and a least-squares placement that keeps long
edges straight). An edge is drawn as a smooth curve through its bends, cut where it enters a
node.

Only networkx and numpy are used here: :mod:`causalcost.network.picture` draws the result as
SVG text and :mod:`causalcost.plotting.drawing` with matplotlib.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol, runtime_checkable

import networkx as nx
import numpy as np

from causalcost.errors import NetworkStructureError

__all__ = ["SystemGraph", "Layout", "layered_layout", "layered_positions", "edge_curve",
           "clip_curve"]

@runtime_checkable
class SystemGraph(Protocol):
    """What the layout needs of a :class:`~causalcost.network.system.System`: its graph and
    the confusion node that goes at the bottom (a protocol, so the system can draw itself)."""

    @property
    def graph(self) -> nx.DiGraph: ...

    confusion_node: str

_X_GAP, _DUMMY_W, _Y_GAP = 1.1, 0.5, 1.15  # data units: node spacing, long-edge lane, layers


@dataclass(frozen=True)
class _Lane:
    """A point where a long edge crosses a layer (a dummy node of the Sugiyama method)."""

    edge: tuple[Hashable, Hashable]
    layer: int


@dataclass(frozen=True)
class Layout:
    """Node centres and, for each edge spanning several layers, its bends (top to bottom)."""

    positions: dict[Hashable, tuple[float, float]]
    bends: dict[tuple[Hashable, Hashable], list[tuple[float, float]]]


def layered_positions(
    system_or_graph: SystemGraph | nx.DiGraph,
) -> dict[Hashable, tuple[float, float]]:
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
    >>> from causalcost.network.layout import layered_positions
    >>> pos = layered_positions(cc.load_network("population_and"))
    >>> pos["Population"][1] > pos["Class"][1] == pos["ImageFeatures"][1] > pos["images"][1]
    True
    """
    return layered_layout(system_or_graph).positions


def layered_layout(system_or_graph: SystemGraph | nx.DiGraph) -> Layout:
    """The whole layout: node positions and the bends of long edges.

    Raises as :func:`layered_positions`.
    """
    if isinstance(system_or_graph, nx.DiGraph):
        graph, last = system_or_graph, None
    elif isinstance(system_or_graph, SystemGraph):
        graph, last = system_or_graph.graph, system_or_graph.confusion_node
    else:
        raise TypeError(
            f"expected a System or a networkx DiGraph, got {type(system_or_graph).__name__}"
        )
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
    return Layout({n: point[n] for n in graph.nodes}, dict(bends))


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


# -- edge routing ----------------------------------------------------------------------------
def edge_curve(points: list[tuple[float, float]]) -> np.ndarray:
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


def clip_curve(curve: np.ndarray, centre: np.ndarray, reach: float, square: bool) -> np.ndarray:
    """Cut the end of ``curve`` that lies within ``reach`` of ``centre``: inside a circle of
    that radius, or a square of that half-side."""
    def inside(q: np.ndarray) -> bool:
        d = np.abs(q - centre)
        return bool((d.max() if square else np.hypot(*d)) < reach)

    i = len(curve) - 1
    while i > 0 and inside(curve[i]):
        i -= 1
    a, b = curve[i], curve[i + 1]  # a outside, b inside: bisect the border
    for _ in range(40):
        mid = (a + b) / 2
        a, b = (a, mid) if inside(mid) else (mid, b)
    return np.vstack([curve[: i + 1], a])
