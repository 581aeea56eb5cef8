"""The sweep pictures keep everything visible: the legend hides no curve, and criteria that
pick the same point get distinct, visible markers and one legend entry naming them all.

Checked on the rendered figure (Agg), in display coordinates: every curve is densified along
its drawn path (steps included), and no point of it inside the axes falls in the legend's
window extent; the coincident markers' colours are found in the rendered pixels around their
common point.
"""

from __future__ import annotations

import warnings

import matplotlib.colors as mcolors
import numpy as np
import pytest
from matplotlib import cbook
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import causalcost as cc
from causalcost.evaluation.constant_slot import ConstantSlotWarning
from causalcost.evaluation.thresholds import system_thresholds
from causalcost.plotting.figure import NotebookFigure
from causalcost.plotting.roc import draw_cost_by_threshold, draw_system_roc

DRAW = (draw_system_roc, draw_cost_by_threshold)


def _sweep(kind: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantSlotWarning)
        if kind == "small":  # expected = worst = Youden at 0.6, accuracy at 0.8
            sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
            return system_thresholds(sheet, [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.4, 0.2])
        if kind == "corner":  # a coarse scorer whose system optima are always P: (1, 1)
            rng = np.random.default_rng(0)
            y = rng.random(300) < 0.5
            levels = [0.2, 0.5, 0.8]
            s = np.where(y, rng.choice(levels, 300, p=[0.2, 0.3, 0.5]),
                         rng.choice(levels, 300, p=[0.5, 0.3, 0.2]))
            sheet = cc.sheet_from_network("majority3", cc.CostMatrix(fn=20, fp=1))
            return system_thresholds(sheet, y, s)
        rng = np.random.default_rng({"wide": 1, "or": 2, "majority": 3}[kind])
        y = rng.random(300) < 0.35
        s = np.round(rng.normal(size=300) + 1.5 * y, 2)
        network = {"wide": "thesis_and", "or": "thesis_or", "majority": "majority3"}[kind]
        costs = cc.CostMatrix(fn=1, fp=3) if kind == "or" else cc.CostMatrix(fn=5, fp=1)
        return system_thresholds(cc.sheet_from_network(network, costs), y, s)


SWEEPS = ("small", "wide", "or", "majority", "corner")


def _render(fig: Figure):
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _drawn_points(line, per_segment: int = 60) -> np.ndarray:
    """The line as drawn, in display coordinates, densified along every segment."""
    x = np.asarray(line.get_xdata(), dtype=float)
    y = np.asarray(line.get_ydata(), dtype=float)
    style = line.get_drawstyle()
    if style in cbook.STEP_LOOKUP_MAP and style != "default":
        x, y = cbook.STEP_LOOKUP_MAP[style](x, y)
    xy = line.get_transform().transform(np.column_stack([x, y]))
    if len(xy) == 1 or line.get_linestyle() in ("None", "none", ""):
        return xy
    u = np.linspace(0, 1, per_segment)[:, None]
    return np.concatenate([a + u * (b - a) for a, b in zip(xy[:-1], xy[1:])])


def _curves(ax) -> list[tuple[str, np.ndarray]]:
    curves = [(line.get_gid(), _drawn_points(line)) for line in ax.get_lines()]
    for collection in ax.collections:  # the band: its outline
        for path in collection.get_paths():
            xy = collection.get_transform().transform(path.vertices)
            u = np.linspace(0, 1, 20)[:, None]
            curves.append((collection.get_gid(),
                           np.concatenate([a + u * (b - a) for a, b in zip(xy[:-1], xy[1:])])))
    return curves


@pytest.mark.parametrize("kind", SWEEPS)
@pytest.mark.parametrize("draw", DRAW)
def test_the_legend_hides_no_curve_and_stays_in_the_picture(draw, kind: str) -> None:
    fig = draw(_sweep(kind))
    assert isinstance(fig, NotebookFigure)
    renderer = _render(fig)
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent(renderer)
    box = ax.get_window_extent(renderer)
    checked = 0
    for gid, xy in _curves(ax):
        inside = xy[(xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1)
                    & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)]
        hidden = ((inside[:, 0] >= legend.x0) & (inside[:, 0] <= legend.x1)
                  & (inside[:, 1] >= legend.y0) & (inside[:, 1] <= legend.y1))
        assert not hidden.any(), f"the legend covers {int(hidden.sum())} point(s) of {gid}"
        checked += len(inside)
    assert checked > 100  # the curves were there to be checked
    # nor any marker, drawn whole (unclipped) even on the axes' edge
    for line in ax.get_lines():
        if line.get_linestyle() in ("None", "none", ""):
            assert not line.get_clip_on(), line.get_gid()
            assert not legend.overlaps(line.get_window_extent(renderer)), line.get_gid()
    # the whole legend is in the figure (not cut off), and the rendered picture keeps it
    figure = fig.bbox
    assert (figure.x0 - 0.5 <= legend.x0 and legend.x1 <= figure.x1 + 0.5
            and figure.y0 - 0.5 <= legend.y0 and legend.y1 <= figure.y1 + 0.5)


def _markers(ax, prefix: str) -> dict[str, object]:
    return {line.get_gid().split(":")[1]: line for line in ax.get_lines()
            if (line.get_gid() or "").startswith(prefix)}


def _colour_seen(image: np.ndarray, centre: tuple[float, float], radius: float,
                 colour: str) -> bool:
    """Whether ``colour`` is drawn (within 12/255 per channel) within ``radius`` px."""
    height = image.shape[0]
    cx, cy = centre[0], height - centre[1]  # display y grows upwards, image rows downwards
    r = int(np.ceil(radius))
    rows = slice(max(int(cy) - r, 0), int(cy) + r + 1)
    cols = slice(max(int(cx) - r, 0), int(cx) + r + 1)
    patch = image[rows, cols, :3].astype(float)
    target = np.array(mcolors.to_rgb(colour)) * 255
    return bool((np.abs(patch - target) <= 12).all(axis=2).any())


def _names(label: str) -> str:
    """A point's legend label without its values (the threshold and costs), on one line."""
    lines = [x for x in label.splitlines() if not x.startswith(("t = ", "(t = ", "(slot"))]
    return " ".join(lines)


@pytest.mark.parametrize(("draw", "prefix", "together"), [
    (draw_system_roc, "point:", ["expected", "worst", "youden"]),
    (draw_cost_by_threshold, "marker:", ["expected", "worst"]),
])
def test_coincident_points_get_distinct_visible_markers_and_one_legend_entry(
        draw, prefix: str, together: list[str]) -> None:
    sweep = _sweep("small")
    assert len({sweep.points[k].threshold for k in together}) == 1  # they do coincide
    fig = draw(sweep)
    _render(fig)
    (ax,) = fig.axes
    markers = _markers(ax, prefix)
    group = [markers[k] for k in together]
    positions = {(m.get_xdata()[0], m.get_ydata()[0]) for m in group}
    assert len(positions) == 1
    sizes = [m.get_markersize() for m in group]
    assert len(set(sizes)) == len(sizes)  # concentric, distinct sizes
    assert all(m.get_markerfacecolor() == "none" for m in group)  # hollow: the inner show
    by_size = sorted(group, key=lambda m: m.get_markersize())
    assert [m.get_zorder() for m in by_size] == sorted((m.get_zorder() for m in by_size),
                                                       reverse=True)  # the larger below
    # every one of them is visible in the rendered pixels around the common point
    image = np.asarray(fig.canvas.buffer_rgba())
    (centre,) = {tuple(group[0].get_transform().transform(p)) for p in positions}
    for m in group:
        radius = m.get_markersize() * fig.dpi / 72 / 2 + 3
        assert _colour_seen(image, centre, radius, m.get_markeredgecolor()), m.get_gid()
    # one legend entry names all of them, and no entry names one of them alone
    texts = [_names(t.get_text()) for t in ax.get_legend().get_texts()]
    names = {"expected": "lowest expected system cost", "worst": "lowest worst-case system cost",
             "youden": "highest Youden's J (model only)"}
    combined = [t for t in texts if all(names[k] in t for k in together)]
    assert combined == [" = ".join(names[k] for k in together)]
    assert not any(t == names[k] for t in texts for k in together)
    # and the accuracy point, alone, keeps its own entry
    assert "highest accuracy (model only)" in texts


def test_a_constant_slot_point_says_so_in_the_legend() -> None:
    sweep = _sweep("corner")
    e = sweep.expected_optimum
    assert (e.fpr, e.tpr, e.constant) == (1.0, 1.0, "P")
    for draw in DRAW:
        texts = [t.get_text() for t in draw(sweep).axes[0].get_legend().get_texts()]
        flagged = [t for t in texts if "slot always P" in t]
        assert len(flagged) == 1 and "lowest expected system cost" in flagged[0]
        assert "highest accuracy (model only)" not in flagged[0]


def test_separate_points_keep_separate_entries() -> None:
    sweep = _sweep("wide")
    keys = ("expected", "accuracy", "youden")
    assert len({(sweep.points[k].fpr, sweep.points[k].tpr) for k in keys}) == 3
    fig = draw_system_roc(sweep)
    (ax,) = fig.axes
    texts = [_names(t.get_text()) for t in ax.get_legend().get_texts()]
    assert "highest accuracy (model only)" in texts
    assert "highest Youden's J (model only)" in texts
    markers = _markers(ax, "point:")
    assert markers["accuracy"].get_markersize() != markers["youden"].get_markersize()
