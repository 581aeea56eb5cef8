"""Tests of the DAG pictures (causalcost.plotting.drawing).

Expected counts come from the graphs themselves: one node patch per node, one arrow per edge,
and in the mutilated graph of do(slot = x) the edges into the slot are gone (Pearl,
*Causality*, §3.2), so an intervention panel has ``edges - in_degree(slot)`` arrows. Double
circles mark deterministic nodes (thesis §2.1: "Los nodos con doble círculo representan que
son determinísticos dados sus padres").
"""

from __future__ import annotations

import math
import re

import networkx as nx
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Rectangle
from matplotlib.path import Path

import causalcost as cc
from causalcost.errors import NetworkStructureError, UnknownNameError, ValidationError
from causalcost.plotting.drawing import (
    draw_intervention,
    draw_system,
    layered_positions,
    save_figure,
)

SHIPPED = cc.list_networks("votes")  # a score network: tests/scores/test_score_network.py


def majority(n_models: int, slot: str | None = "m5") -> cc.System:
    builder = cc.SystemBuilder(class_prior=0.3, name=f"majority{n_models}")
    for i in range(1, n_models + 1):
        builder.add_model(f"m{i}", sensitivity=0.8, specificity=0.7)
    return builder.set_fusioner("majority").build(slot=slot)


@pytest.fixture(scope="module")
def majority12() -> cc.System:
    return majority(12)


def systems() -> list[cc.System]:
    return [cc.load_network(name) for name in SHIPPED]


def gids(ax: Axes, prefix: str) -> list[str]:
    return [p.get_gid() for p in ax.patches if (p.get_gid() or "").startswith(prefix)]


def node_patch(ax: Axes, node: str):
    (patch,) = [p for p in ax.patches if p.get_gid() == f"node:{node}"]
    return patch


def edge_names(edges) -> list[str]:
    return sorted(f"edge:{u}->{v}" for u, v in edges)


def rendered(fig: Figure):
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


# -- layout --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SHIPPED)
def test_every_parent_is_drawn_above_its_child(name):
    system = cc.load_network(name)
    pos = layered_positions(system)
    assert set(pos) == set(system.network.nodes())
    for u, v in system.network.edges():
        assert pos[u][1] > pos[v][1], (u, v)


def test_parents_above_children_with_twelve_models(majority12):
    pos = layered_positions(majority12)
    for u, v in majority12.network.edges():
        assert pos[u][1] > pos[v][1], (u, v)
    models_y = {pos[m][1] for m in majority12.models}
    assert len(models_y) == 1  # the twelve models share a layer, spread along x
    xs = sorted(pos[m][0] for m in majority12.models)
    assert min(b - a for a, b in zip(xs, xs[1:])) >= 1.1 - 1e-9


@pytest.mark.parametrize("name", SHIPPED)
def test_confusion_alone_on_the_bottom_layer(name):
    system = cc.load_network(name)
    pos = layered_positions(system)
    bottom = pos[system.confusion_node][1]
    assert all(y > bottom for n, (_, y) in pos.items() if n != system.confusion_node)


def test_population_layers_follow_the_seeds():
    # thesis §2.1: population root, then class and features, models, fusioner, confusion
    pos = layered_positions(cc.load_network("population_and"))
    layer = {n: y for n, (_, y) in pos.items()}
    assert layer["Class"] == layer["ImageFeatures"] == layer["HistoryFeatures"]
    assert (layer["Population"] > layer["Class"] > layer["images"] == layer["clinical_history"]
            > layer["Fusioner"] > layer["Confusion"])


def test_root_latent_sits_just_above_its_child():
    graph = nx.DiGraph([("A", "B"), ("B", "C"), ("C", "D"), ("L", "D")])
    pos = layered_positions(graph)
    assert pos["L"][1] == pos["C"][1]  # not on the top layer with A


def test_layered_positions_rejects_cycles_and_other_types():
    with pytest.raises(NetworkStructureError, match="cycle"):
        layered_positions(nx.DiGraph([("a", "b"), ("b", "a")]))
    with pytest.raises(TypeError, match="System or a networkx DiGraph"):
        layered_positions({"a": ["b"]})


# -- what is drawn -----------------------------------------------------------------------------
@pytest.mark.parametrize("system", [*systems(), majority(12)], ids=[*SHIPPED, "majority12"])
def test_one_node_and_one_arrow_per_graph_element(system):
    fig = draw_system(system)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert sorted(gids(ax, "node:")) == sorted(f"node:{n}" for n in system.network.nodes())
    assert sorted(gids(ax, "edge:")) == edge_names(system.network.edges())


@pytest.mark.parametrize("name", SHIPPED)
def test_mutilated_panel_has_no_edge_into_the_slot(name):
    system = cc.load_network(name)
    net, slot = system.network, system.slot
    left, right = draw_intervention(system).axes
    assert len(gids(left, "edge:")) == net.number_of_edges()
    assert len(gids(right, "edge:")) == net.number_of_edges() - net.in_degree(slot)
    assert not [g for g in gids(right, "edge:") if g.endswith(f"->{slot}")]
    assert sorted(gids(right, "edge:")) == edge_names(cc.mutilate(system, {slot: "P"}).edges())


def test_draw_system_with_intervention_draws_the_mutilated_graph(majority12):
    (ax,) = draw_system(majority12, intervention="N").axes
    assert len(gids(ax, "edge:")) == majority12.network.number_of_edges() - 1
    assert "edge:Class->m5" not in gids(ax, "edge:")
    assert isinstance(node_patch(ax, "m5"), Rectangle)
    assert isinstance(node_patch(ax, "m4"), Circle)
    labels = [re.sub(r"_\n", "_", t.get_text()).replace("\n", " ") for t in ax.texts]
    assert "do(m5 = N)" in labels


@pytest.mark.parametrize("name", SHIPPED)
def test_deterministic_nodes_get_an_inner_ring(name):
    system = cc.load_network(name)
    left, right = draw_intervention(system).axes
    rings = {f"ring:{n}" for n in system.deterministic_nodes}
    assert sorted(gids(left, "ring:")) == sorted(rings)
    # the fixed slot is drawn as a square instead
    assert sorted(gids(right, "ring:")) == sorted(rings - {f"ring:{system.slot}"})
    for gid in gids(left, "ring:"):
        node = gid.removeprefix("ring:")
        (ring,) = [p for p in left.patches if p.get_gid() == gid]
        assert ring.center == node_patch(left, node).center
        assert ring.get_radius() < node_patch(left, node).get_radius()


def test_correlated_models_are_drawn_deterministic():
    # anticorrelated_and: each model is a function of (Class, Overlap)
    (ax,) = draw_system(cc.load_network("anticorrelated_and")).axes
    assert {"ring:images", "ring:clinical_history", "ring:Fusioner", "ring:Confusion"} == set(
        gids(ax, "ring:"))


def test_slot_is_highlighted_and_named_in_the_legend():
    system = cc.load_network("majority3")
    (ax,) = draw_system(system, slot="lab_tests").axes
    slot_face = node_patch(ax, "lab_tests").get_facecolor()
    assert slot_face != node_patch(ax, "images").get_facecolor()
    assert node_patch(ax, "images").get_facecolor() == node_patch(ax, "clinical_history") \
        .get_facecolor()
    assert "slot (lab_tests)" in [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize("system", [*systems(), majority(12)], ids=[*SHIPPED, "majority12"])
def test_arrows_end_at_node_borders(system):
    (ax,) = draw_system(system).axes
    for patch in ax.patches:
        if not (patch.get_gid() or "").startswith("edge:"):
            continue
        u, v = patch.get_gid().removeprefix("edge:").split("->")
        path = patch.get_path()  # the line, then the arrow head
        points = [p for p, code in zip(path.vertices, path.codes) if code != Path.CLOSEPOLY]
        source, target = node_patch(ax, u), node_patch(ax, v)
        assert math.dist(points[0], source.center) == pytest.approx(source.get_radius(),
                                                                    abs=1e-6)
        gap = min(math.dist(p, target.center) for p in points) - target.get_radius()
        assert 0 < gap < 0.05  # the tip touches the border, outside the circle


@pytest.mark.parametrize("name", SHIPPED)
def test_labels_fit_inside_nodes_and_the_legend_covers_none(name):
    fig = draw_intervention(cc.load_network(name))
    renderer = rendered(fig)
    legend = fig.legends[0].get_window_extent(renderer)
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1 and legend.y0 >= fig.bbox.y0
    for ax in fig.axes:
        nodes = {p.get_gid(): p.get_window_extent(renderer) for p in ax.patches
                 if p.get_gid().startswith("node:")}
        assert not [g for g, box in nodes.items() if box.overlaps(legend)]
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            middle = ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
            (owner,) = [b for b in nodes.values() if b.contains(*middle)]
            assert owner.x0 <= box.x0 and box.x1 <= owner.x1, text.get_text()
            assert owner.y0 <= box.y0 and box.y1 <= owner.y1, text.get_text()
            assert text.get_fontsize() >= 6


def test_long_names_are_wrapped():
    (ax,) = draw_system(cc.load_network("population_and")).axes
    labels = {t.get_text() for t in ax.texts}
    assert {"Image\nFeatures", "History\nFeatures", "clinical_\nhistory"} <= labels


def test_figure_widens_with_the_widest_layer(majority12):
    narrow = draw_system(cc.load_network("thesis_and")).get_size_inches()[0]
    wide = draw_system(majority12).get_size_inches()[0]
    assert wide > 2 * narrow


def test_no_slot_means_no_highlight():
    system = majority(3, slot=None)
    (ax,) = draw_system(system).axes
    faces = {tuple(node_patch(ax, m).get_facecolor()) for m in system.models}
    assert len(faces) == 1
    assert not [t for t in ax.get_legend().get_texts() if t.get_text().startswith("slot")]


# -- titles and axes -------------------------------------------------------------------------
def test_titles():
    system = cc.load_network("thesis_or")
    assert draw_system(system).axes[0].get_title() == "thesis_or"
    assert draw_system(system, title="").axes[0].get_title() == ""
    assert draw_system(system, title="Fig. 1").axes[0].get_title() == "Fig. 1"
    assert [ax.get_title() for ax in draw_intervention(system, value="N").axes] == [
        "system: thesis_or", "do(clinical_history = N)"]
    assert [ax.get_title() for ax in draw_intervention(system, slot="images").axes] == [
        "system: thesis_or", "do(images = P)"]


def test_draws_into_a_given_axes():
    fig = Figure(figsize=(6, 5))
    ax = fig.add_subplot()
    out = draw_system(cc.load_network("thesis_and"), ax=ax)
    assert out is fig and fig.axes == [ax]
    assert len(gids(ax, "node:")) == 5


# -- validation ------------------------------------------------------------------------------
def test_unknown_slot_raises_the_systems_error():
    system = cc.load_network("thesis_and")
    with pytest.raises(UnknownNameError) as own:
        system.require_slot("nope")
    with pytest.raises(UnknownNameError, match="'nope'") as raised:
        draw_system(system, slot="nope")
    assert str(raised.value) == str(own.value)
    with pytest.raises(NetworkStructureError, match="must be a model"):
        draw_intervention(system, slot="Fusioner")


def test_bad_intervention_state_lists_the_states():
    with pytest.raises(UnknownNameError, match=r"'maybe'.*\['P', 'N'\]"):
        draw_system(cc.load_network("thesis_and"), intervention="maybe")
    with pytest.raises(UnknownNameError, match=r"'yes'.*\['P', 'N'\]"):
        draw_intervention(cc.load_network("thesis_and"), value="yes")


def test_intervention_needs_a_slot():
    with pytest.raises(NetworkStructureError, match="no slot chosen"):
        draw_intervention(majority(3, slot=None))


def test_wrong_types():
    with pytest.raises(TypeError, match="System"):
        draw_system(cc.load_network("thesis_and").network)
    with pytest.raises(TypeError, match="Axes"):
        draw_system(cc.load_network("thesis_and"), ax=Figure())


# -- saving ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG\r\n\x1a\n"), (".PNG", b"\x89PNG"),
                                               (".svg", b"<?xml")])
def test_save_figure_writes_png_and_svg(tmp_path, suffix, magic):
    path = tmp_path / f"population_and{suffix}"
    save_figure(draw_intervention(cc.load_network("population_and")), path)
    data = path.read_bytes()
    assert data.startswith(magic)
    if suffix == ".svg":
        assert b"<svg" in data[:2000]
    assert len(data) > 10_000


@pytest.mark.parametrize("name", ["figure.pdf", "figure", "figure.png.txt"])
def test_save_figure_rejects_other_suffixes(tmp_path, name):
    with pytest.raises(ValidationError, match=r"'\.png' or '\.svg'"):
        save_figure(draw_system(cc.load_network("thesis_and")), tmp_path / name)
    assert not (tmp_path / name).exists()


def test_save_figure_needs_a_figure(tmp_path):
    with pytest.raises(TypeError, match="Figure"):
        save_figure(draw_system(cc.load_network("thesis_and")).axes[0], tmp_path / "a.png")


# ------------------------------------------------------------------ pictures in Jupyter

def _every_drawing() -> dict[str, Figure]:
    """One figure from every public drawing function (small inputs: the display is tested)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    y = rng.random(200) < 0.35
    sweep = cc.system_thresholds(cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)),
                                 y, np.round(rng.normal(size=200) + 1.5 * y, 2))
    coverage = cc.coverage_experiment(n1=[10, 100], n2=[10, 100], repetitions=20, seed=0,
                                      confidence=0.95)
    ratio = cc.ratio_experiment(n=200, repetitions=40, seed=0)
    system = cc.load_network("thesis_and")
    scores = np.round(rng.random((200, 3)) * 0.6 + 0.4 * y[:, None], 3)
    log = pd.DataFrame(scores, columns=["a", "b", "new"]).assign(y=y)
    runs = cc.forced_runs(log, truth="y", models=["a", "b"], slot="b", fusioner="mean")
    priced = cc.compare(cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1)), y_true=y,
                        scores={"new": scores[:, 2]})
    return {
        "draw_system": cc.draw_system(system),
        "draw_intervention": cc.draw_intervention(system),
        "draw_system_roc": cc.draw_system_roc(sweep),
        "draw_cost_by_threshold": cc.draw_cost_by_threshold(sweep),
        "draw_coverage_heatmap": cc.draw_coverage_heatmap(coverage),
        "draw_coverage_curves": cc.draw_coverage_curves(coverage),
        "draw_ratio_histogram": cc.draw_ratio_histogram(ratio),
        "draw_slot_importance": cc.draw_slot_importance(
            cc.slot_importance(system, costs=cc.CostMatrix(fn=5, fp=1))),
        "draw_critical_scores": cc.draw_critical_scores(runs, {"new": scores[:, 2]}, y_true=y),
        "draw_candidate_costs": cc.draw_candidate_costs(priced),
    }


@pytest.fixture(scope="module")
def drawings() -> dict[str, Figure]:
    return _every_drawing()


def test_every_public_drawing_function_is_covered(drawings):
    public = {name for name in cc.__all__ if name.startswith("draw_")}
    assert public == set(drawings)


def test_ipython_shows_every_drawing_as_a_picture(drawings):
    """What Jupyter does with the last value of a cell: IPython's display formatter, with no
    pyplot and no inline backend set up. A bare Figure would give text/plain only."""
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    bare, _ = formatter.format(Figure())
    assert "image/png" not in bare and "image/svg+xml" not in bare  # the bug this fixes
    for name, fig in drawings.items():
        data, _ = formatter.format(fig)
        assert data["image/png"][:8] == b"\x89PNG\r\n\x1a\n", name
        assert "<svg" in data["image/svg+xml"] and "</svg>" in data["image/svg+xml"], name


def test_the_displayed_png_is_the_figure(drawings):
    """The PNG is the whole figure at the display resolution (a tight box trims only the
    margins), and is still an ordinary Figure: savefig and the canvas work."""
    import io

    import matplotlib.image as mpimg

    from causalcost.plotting.figure import DISPLAY_DPI, NotebookFigure

    for name, fig in drawings.items():
        assert isinstance(fig, NotebookFigure) and isinstance(fig, Figure), name
        pixels = mpimg.imread(io.BytesIO(fig._repr_png_()), format="png")
        width, height = fig.get_size_inches() * DISPLAY_DPI
        assert 0.5 * width <= pixels.shape[1] <= 1.1 * width, name
        assert 0.5 * height <= pixels.shape[0] <= 1.1 * height, name
        assert pixels[..., :3].min() < 0.5, f"{name}: nothing drawn"
        out = io.BytesIO()
        fig.savefig(out, format="svg")
        assert b"<svg" in out.getvalue()


def test_no_drawing_module_builds_a_bare_figure():
    """Every figure comes from ``new_figure``: a module that called ``Figure(...)`` itself
    would hand Jupyter a figure it prints as ``<Figure size ... with N Axes>``."""
    import ast
    from pathlib import Path as FilePath

    folder = FilePath(cc.__file__).parent / "plotting"
    offenders = []
    for module in sorted(folder.glob("*.py")):
        if module.name == "figure.py":
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                called = node.func
                name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", "")
                if name in {"Figure", "figure", "subplots"} and not (
                        isinstance(called, ast.Attribute)
                        and isinstance(called.value, ast.Name) and called.value.id == "fig"):
                    offenders.append(f"{module.name}:{node.lineno}")
    assert not offenders, f"bare figures built at {offenders}: use new_figure()"
