"""A system's DAG as SVG text: what a notebook shows for a :class:`System` (no matplotlib).

The picture follows the layered layout of :mod:`causalcost.network.layout`: causes above
effects, the class node green, models blue, the slot orange with a heavy border, deterministic
nodes (the fusioner, the confusion node, ...) double-circled. Under ``do(slot = x)`` the edges
into the slot are gone and the slot is a hatched square labelled ``do(slot = x)``, in the same
place, so a picture of the system and of its mutilated graph line up. Being plain text, a
picture renders instantly (the explorer redraws one per slider move), embeds in HTML, and
can be saved as an ``.svg`` file.

:mod:`causalcost.plotting.drawing` draws the same picture with matplotlib, for PNG files and
for figures with other axes; the colours, the label wrapping and the argument checks live here
and are shared by both.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import networkx as nx
import numpy as np

from causalcost.errors import UnknownNameError
from causalcost.files import write_atomic
from causalcost.network.layout import Layout, clip_curve, edge_curve, layered_layout


@runtime_checkable
class Drawable(Protocol):
    """What a picture needs of a :class:`~causalcost.network.system.System` (a protocol, so
    that the system can show itself without an import loop)."""

    name: str
    class_node: str
    confusion_node: str
    slot: str | None

    @property
    def graph(self) -> nx.DiGraph: ...

    @property
    def models(self) -> tuple[str, ...]: ...

    @property
    def deterministic_nodes(self) -> frozenset[str]: ...

    def require_slot(self, slot: str | None = None) -> str: ...

    def states(self, node: str) -> list[str]: ...

__all__ = ["SystemPicture", "system_picture", "intervention_picture", "wrap_label",
           "label_lines", "rule_lines", "rule_labels", "system_title",
           "check_picture_arguments", "FILL", "INK", "EDGE_INK", "SLOT_INK", "NODE_RADIUS",
           "RING"]

NODE_RADIUS, RING = 0.38, 0.84  # node radius (layout units); inner ring of a deterministic node
INK, EDGE_INK, SLOT_INK = "#3b3b3b", "#5a5a5a", "#a14a00"
FILL = {"node": "#ffffff", "class": "#e2efd9", "model": "#dce8f5", "slot": "#f6b26b"}

_UNIT = 120.0  # pixels per layout unit
_CHAR = 0.58   # average width of a character, in font sizes (a sans-serif face)
_LINE = 1.2    # line height, in font sizes
_TITLE_H, _LEGEND_H = 30.0, 30.0


def wrap_label(text: str, width: int = 10) -> list[str]:
    """Break a name into short lines after ``_``, ``-`` or ``.``, at spaces and camelCase.

    >>> wrap_label("clinical_history")
    ['clinical_', 'history']
    >>> wrap_label("Fusioner")
    ['Fusioner']
    """
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


def label_lines(node: Hashable, fixed: Hashable | None = None,
                value: str | None = None) -> list[str]:
    """The lines of a node's label; the node fixed by ``do`` reads ``do(name`` ... ``= value)``.

    The ``= value)`` part always gets a line of its own, so a name broken after an underscore
    never puts the underscore over the value (it would read like a bar over it).

    >>> label_lines("clinical_history", "clinical_history", "P")
    ['do(clinical_', 'history', '= P)']
    >>> label_lines("lab", "lab", "N")
    ['do(lab', '= N)']
    """
    if fixed is None or node != fixed:
        return wrap_label(str(node))
    return [*wrap_label(f"do({node}"), f"= {value})"]


def rule_lines(fusioner: object) -> list[str]:
    """The fusioner's rule in a few short lines, for the label of its node, for any K.

    A binary fusioner (votes as bools): ``AND``, ``OR``, ``majority`` (with the ties' side for
    an even number of models), ``k of n``, a weighted vote's weights (in input order) and
    threshold, or a user function's name. A fusioner of K labels: ``plurality``, ``weighted
    plurality``, ``first voted of`` and the order, ``<label> if k of n vote <label>``, ``user
    function``. ``[]`` for anything that is not a fusioner.

    Examples
    --------
    >>> from causalcost.network.fusioners import make_fusioner
    >>> rule_lines(make_fusioner("majority", ["a", "b", "c"]))
    ['majority']
    >>> rule_lines(make_fusioner("k_of_n", ["a", "b", "c"], k=2))
    ['2 of 3']
    >>> rule_lines(make_fusioner("weighted", ["a", "b", "c"], weights=[1, 2, 0.5], threshold=2))
    ['w 1,2,0.5', '\u2265 2']
    >>> rule_lines(make_fusioner("k_of_n", ["a", "b", "c"], labels=["x", "y", "z"], k=2,
    ...                          label="y"))
    ['y if 2 of 3 vote y']
    >>> rule_lines(make_fusioner("priority", ["a", "b"], labels=["x", "y", "z"], order=["z", "x"]))
    ['first voted of', 'z > x']
    """
    from causalcost.network.exact_votes import number_text
    from causalcost.network.fusioners import Fusioner

    if getattr(fusioner, "is_score", False):  # a score fusioner: "mean >= 0.5", weights
        return list(fusioner.lines())  # type: ignore[attr-defined]
    if not isinstance(fusioner, Fusioner):
        return _label_rule_lines(fusioner) if hasattr(fusioner, "kind") else []
    if not fusioner.boolean:
        return _label_rule_lines(fusioner)
    n, rule = len(fusioner.inputs), fusioner.rule
    if rule in ("and", "or"):
        return [rule.upper()]
    if rule == "majority":
        if n % 2:
            return ["majority"]
        positive_tie = fusioner.exact_threshold == n // 2
        return ["majority", f"ties {'P' if positive_tie else 'N'}"]
    if rule == "k_of_n" and fusioner.exact_threshold is not None:
        return [f"{number_text(fusioner.exact_threshold)} of {n}"]
    if rule == "weighted" and fusioner.exact_weights is not None \
            and fusioner.exact_threshold is not None:
        return ["w " + ",".join(number_text(w) for w in fusioner.exact_weights),
                "\u2265 " + number_text(fusioner.exact_threshold)]
    label = fusioner.description.removeprefix("user function ")
    return [f"{label}()"]


def _label_rule_lines(fusioner: Any) -> list[str]:
    """The words of a rule over K labels (anything with ``kind``, ``labels``, ``models`` and
    the rule's fields)."""
    kind = fusioner.kind
    if kind == "k_of_n":
        return [f"{fusioner.labels[fusioner.label]} if {fusioner.k} of {len(fusioner.models)} "
                f"vote {fusioner.labels[fusioner.label]}"]
    if kind == "priority":
        return ["first voted of", " > ".join(fusioner.labels[i] for i in fusioner.order)]
    if kind == "weighted":
        return ["weighted plurality"]
    if kind == "function":
        return ["user function"]
    return [kind]


def rule_labels(system: object) -> dict[Hashable, list[str]]:
    """Extra label lines per node: the fusioner's rule under the system node's name."""
    extra = getattr(system, "extra_lines", None)  # a K-label sketch says its own
    if isinstance(extra, dict):
        return {n: list(v) for n, v in extra.items()}
    node, fusioner = getattr(system, "system_node", None), getattr(system, "fusioner", None)
    lines = rule_lines(fusioner)
    return {node: lines} if node is not None and lines else {}


def system_title(system: Drawable) -> str:
    """The left panel's title beside a mutilated graph: ``system: <name>``, or the name alone
    when it already says it is a system (never ``system: system ...``).

    >>> from types import SimpleNamespace
    >>> system_title(SimpleNamespace(name="majority3")), system_title(SimpleNamespace(
    ...     name="system (learned from 1,000 rows)"))
    ('system: majority3', 'system (learned from 1,000 rows)')
    """
    name = str(system.name)
    return name if name.lower().startswith("system") else f"system: {name}"


def check_picture_arguments(system: object, slot: str | None, value: str | None) -> str | None:
    """Validate a picture's public arguments; returns the slot (None: nothing highlighted).

    Raises
    ------
    TypeError
        ``system`` is not a :class:`~causalcost.network.system.System`.
    NetworkStructureError, UnknownNameError
        An unknown slot, or a state the slot does not have (the message lists the valid ones).
    """
    if not isinstance(system, Drawable):
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


@dataclass(frozen=True)
class SystemPicture:
    """An SVG picture of a system's DAG (and, if asked, of its mutilated graph).

    Attributes
    ----------
    svg : str
        The picture: one ``<svg>`` element. Nodes are groups with ``id="node:<name>"`` and
        edges paths with ``id="edge:<parent>-><child>"`` (in the mutilated panel, prefixed
        ``do:``).
    title : str
    width, height : float
        Size in pixels.
    """

    svg: str
    title: str
    width: float
    height: float

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the picture to ``path`` as an SVG file (atomically)."""
        write_atomic(path, self.svg)

    def __repr__(self) -> str:
        return f"SystemPicture({self.title!r}, {self.width:.0f}x{self.height:.0f} px)"


def system_picture(system: Drawable, *, slot: str | None = None,
                   intervention: str | None = None, title: str | None = None) -> SystemPicture:
    """The system's DAG as SVG, or its mutilated graph under ``do(slot = intervention)``.

    Parameters
    ----------
    system : System
    slot : str, optional
        The model to highlight; defaults to the system's own slot (none if it has none).
    intervention : str, optional
        A state of the slot, e.g. ``"P"``: picture ``do(slot = intervention)``, without the
        edges into the slot, the slot a hatched square.
    title : str, optional
        Defaults to the system's name (and the intervention); ``""`` for none.

    Returns
    -------
    SystemPicture
        Shown inline by Jupyter; ``.svg`` is the text, ``.save(path)`` writes it.

    Raises
    ------
    TypeError, NetworkStructureError, UnknownNameError
        As :func:`check_picture_arguments`.

    Examples
    --------
    >>> import causalcost as cc
    >>> picture = cc.system_picture(cc.load_network("thesis_and"), intervention="P")
    >>> picture.title
    'thesis_and: do(clinical_history = P)'
    >>> 'id="edge:images-&gt;Fusioner"' in picture.svg   # the slot's own edges remain ...
    True
    >>> "edge:Class-&gt;clinical_history" in picture.svg   # ... the edge into it is cut
    False
    """
    slot = check_picture_arguments(system, slot, intervention)
    if title is None:
        title = system.name + (f": do({slot} = {intervention})" if intervention else "")
    layout = layered_layout(system)
    panel = _Panel(system, layout, slot, intervention)
    natural = _legend(system, slot, float("inf"), circle=intervention is None,
                      square=intervention is not None)[2]
    width = max(panel.width, min(natural, 480.0))
    legend, legend_h, _ = _legend(system, slot, width, circle=intervention is None,
                                  square=intervention is not None)
    height = _TITLE_H + panel.height + legend_h
    body = [_title(title, width / 2),
            f'<g transform="translate({(width - panel.width) / 2:.1f},{_TITLE_H})">',
            panel.render(""), "</g>",
            f'<g transform="translate(0,{_TITLE_H + panel.height:.1f})">{legend}</g>']
    return SystemPicture(_svg(width, height, body), title, width, height)


def intervention_picture(system: Drawable, *, slot: str | None = None,
                         value: str = "P") -> SystemPicture:
    """The system (left) beside its mutilated graph for ``do(slot = value)`` (right), as SVG.

    Examples
    --------
    >>> import causalcost as cc
    >>> picture = cc.intervention_picture(cc.load_network("majority3"), value="N")
    >>> picture.title, "do(clinical_" in picture.svg
    ('majority3: do(clinical_history = N)', True)
    """
    slot = check_picture_arguments(system, slot, value)
    layout = layered_layout(system)
    left, right = _Panel(system, layout, slot, None), _Panel(system, layout, slot, value)
    gap = 30.0
    width = left.width + gap + right.width
    legend, legend_h, _ = _legend(system, slot, width, circle=True, square=True)
    height = _TITLE_H + left.height + legend_h
    title = f"{system.name}: do({slot} = {value})"
    body = [_title(system_title(system), left.width / 2),
            _title(f"do({slot} = {value})", left.width + gap + right.width / 2),
            f'<g transform="translate(0,{_TITLE_H})">{left.render("")}</g>',
            f'<g transform="translate({left.width + gap:.1f},{_TITLE_H})">'
            f'{right.render("do:")}</g>',
            f'<g transform="translate(0,{_TITLE_H + left.height:.1f})">{legend}</g>']
    return SystemPicture(_svg(width, height, body), title, width, height)


# -- drawing ---------------------------------------------------------------------------------
def _svg(width: float, height: float, body: list[str]) -> str:
    hatch = ('<defs><pattern id="cc-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
             'patternTransform="rotate(45)"><rect width="6" height="6" fill="'
             f'{FILL["slot"]}"/><line x1="0" y1="0" x2="0" y2="6" stroke="{SLOT_INK}" '
             'stroke-width="1.2"/></pattern>'
             '<marker id="cc-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
             f'markerHeight="7" orient="auto-start-reverse"><path d="M0,1 L10,5 L0,9 z" '
             f'fill="{EDGE_INK}"/></marker></defs>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.1f} {height:.1f}" '
            'style="max-width:100%;height:auto" '
            'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
            + hatch + "".join(body) + "</svg>")


def _title(text: str, x: float) -> str:
    return (f'<text x="{x:.1f}" y="20" text-anchor="middle" font-size="14" fill="#111">'
            f"{html.escape(text)}</text>")


def _fit(lines: list[str], room: float, square: bool) -> float:
    """Largest font size (px) at which ``lines`` fit a circle of radius ``room`` (or a square
    of half-side ``room``)."""
    w = _CHAR * max(len(s) for s in lines)
    h = _LINE * len(lines)
    half = max(w, h) / 2 if square else float(np.hypot(w, h)) / 2
    return room / half


class _Panel:
    """One DAG drawn at the layout's coordinates: the system, or its mutilated graph."""

    def __init__(self, system: Drawable, layout: Layout, slot: str | None,
                 value: str | None) -> None:
        self.system, self.layout, self.slot, self.value = system, layout, slot, value
        self.fixed = slot if value is not None else None
        points = [*layout.positions.values(), *(p for ps in layout.bends.values() for p in ps)]
        xs, ys = zip(*points)
        self.left, self.top = min(xs) - 0.6, max(ys) + 0.5
        self.width = (max(xs) - min(xs) + 1.2) * _UNIT
        self.height = (max(ys) - min(ys) + 1.0) * _UNIT

    def _xy(self, point: tuple[float, float] | np.ndarray) -> tuple[float, float]:
        return (float(point[0]) - self.left) * _UNIT, (self.top - float(point[1])) * _UNIT

    def render(self, prefix: str) -> str:
        system, fixed = self.system, self.fixed
        graph: nx.DiGraph = nx.DiGraph(system.graph.edges)
        graph.add_nodes_from(system.graph.nodes)
        if fixed is not None:
            graph.remove_edges_from(list(graph.in_edges(fixed)))
        roles = {system.class_node: "class", **{m: "model" for m in system.models}}
        if self.slot is not None:
            roles[self.slot] = "slot"
        deterministic = system.deterministic_nodes - {fixed}
        extra = rule_labels(system)
        lines = {n: label_lines(n, fixed, self.value) + extra.get(n, []) for n in graph.nodes}
        r = NODE_RADIUS * _UNIT
        fits = {n: _fit(ls, r * (0.94 if n == fixed else 0.9 * RING), n == fixed)
                for n, ls in lines.items()}
        # the rule's lines shrink their own node's text, not every label
        common = min(13.0, max(9.0, min((f for n, f in fits.items() if n not in extra),
                                        default=13.0)))
        parts = [self._edge(u, v, prefix) for u, v in graph.edges]
        parts += [self._node(n, roles.get(n, "node"), lines[n], min(common, fits[n]),
                             n in deterministic, prefix) for n in graph.nodes]
        return "".join(parts)

    def _edge(self, u: Hashable, v: Hashable, prefix: str) -> str:
        pos = self.layout.positions
        curve = edge_curve([pos[u], *self.layout.bends.get((u, v), []), pos[v]])
        curve = clip_curve(curve, np.asarray(pos[v]), NODE_RADIUS + 0.03, v == self.fixed)
        curve = clip_curve(curve[::-1], np.asarray(pos[u]), NODE_RADIUS, u == self.fixed)[::-1]
        path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}"
                        for i, (x, y) in enumerate(map(self._xy, curve)))
        return (f'<path id="{html.escape(f"{prefix}edge:{u}->{v}")}" d="{path}" fill="none" '
                f'stroke="{EDGE_INK}" stroke-width="1.3" marker-end="url(#cc-arrow)"/>')

    def _node(self, node: Hashable, role: str, lines: list[str], size: float,
              double: bool, prefix: str) -> str:
        x, y = self._xy(self.layout.positions[node])
        r = NODE_RADIUS * _UNIT
        ink, lw = (SLOT_INK, 2.4) if role == "slot" else (INK, 1.3)
        out = [f'<g id="{html.escape(f"{prefix}node:{node}")}">']
        if node == self.fixed:
            out.append(f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" '
                       f'height="{2 * r:.1f}" fill="url(#cc-hatch)" stroke="{ink}" '
                       f'stroke-width="{lw}"/>')
            pad_w = _CHAR * size * max(len(s) for s in lines) + 6
            pad_h = _LINE * size * len(lines) + 4
            out.append(f'<rect x="{x - pad_w / 2:.1f}" y="{y - pad_h / 2:.1f}" '
                       f'width="{pad_w:.1f}" height="{pad_h:.1f}" rx="3" fill="{FILL[role]}"/>')
        else:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{FILL[role]}" '
                       f'stroke="{ink}" stroke-width="{lw}"/>')
        if double:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * RING:.1f}" fill="none" '
                       f'stroke="{ink}" stroke-width="1"/>')
        first = y - _LINE * size * (len(lines) - 1) / 2
        spans = "".join(
            f'<tspan x="{x:.1f}" y="{first + i * _LINE * size:.1f}">{html.escape(s)}</tspan>'
            for i, s in enumerate(lines))
        out.append(f'<text text-anchor="middle" dominant-baseline="central" '
                   f'font-size="{size:.1f}" fill="#111">{spans}</text></g>')
        return "".join(out)


def _legend(system: Drawable, slot: str | None, width: float, *, circle: bool,
            square: bool) -> tuple[str, float, float]:
    """Legend entries laid out in rows that fit ``width``; returns the SVG, its height and the
    width of its widest row."""
    entries: list[tuple[str, str]] = [("class", "class")]
    if set(system.models) - {slot}:
        entries.append(("model", "model"))
    if slot is not None and circle:
        entries.append(("slot", f"slot ({slot})"))
    if slot is not None and square:
        entries.append(("fixed", "fixed by do()"))
    if system.deterministic_nodes:
        entries.append(("double", "deterministic"))
    items, x, row, widest = [], 10.0, 0, 0.0
    for kind, label in entries:
        w = 24 + _CHAR * 12 * len(label) + 16
        if x + w > width and x > 10:
            x, row = 10.0, row + 1
        items.append(_legend_item(kind, label, x, 14 + row * 22))
        x += w
        widest = max(widest, x)
    return "".join(items), _LEGEND_H + row * 22, widest


def _legend_item(kind: str, label: str, x: float, y: float) -> str:
    fill = FILL.get(kind, "#ffffff")
    if kind == "fixed":
        mark = (f'<rect x="{x:.1f}" y="{y - 7:.1f}" width="14" height="14" '
                f'fill="url(#cc-hatch)" stroke="{SLOT_INK}" stroke-width="2"/>')
    else:
        ink, lw = (SLOT_INK, 2.2) if kind == "slot" else (INK, 1.3)
        mark = (f'<circle cx="{x + 7:.1f}" cy="{y:.1f}" r="7" fill="{fill}" stroke="{ink}" '
                f'stroke-width="{lw}"/>')
        if kind == "double":
            mark += (f'<circle cx="{x + 7:.1f}" cy="{y:.1f}" r="4.5" fill="none" '
                     f'stroke="{INK}" stroke-width="1"/>')
    return (mark + f'<text x="{x + 20:.1f}" y="{y:.1f}" dominant-baseline="central" '
            f'font-size="12" fill="#111">{html.escape(label)}</text>')
