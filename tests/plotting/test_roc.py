"""Pictures of a threshold sweep (plotting.roc): what is drawn is where the sweep says.

The ROC line's points are the sweep's (fpr, tpr); each marker sits on its operating point;
the iso-cost line passes through the expected optimum with the sheet's slope, so the expected
system cost (cost function 1, linear in the ROC point) is the same at both of its ends. The
cost figure's step lines hold the sweep's costs at its finite thresholds, and the chosen
thresholds are marked.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import causalcost as cc
from causalcost.errors import InputTypeError
from causalcost.evaluation.thresholds import system_thresholds
from causalcost.plotting.roc import draw_cost_by_threshold, draw_system_roc


@pytest.fixture(scope="module")
def sweep():
    rng = np.random.default_rng(1)
    y = rng.random(300) < 0.35
    s = np.round(rng.normal(size=300) + 1.5 * y, 2)
    return system_thresholds(cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)),
                             y, s)


def by_gid(ax, gid: str):
    (line,) = [x for x in ax.get_lines() if x.get_gid() == gid]
    return line


def test_roc_figure_draws_the_curve_the_line_and_the_points(sweep) -> None:
    fig = draw_system_roc(sweep)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    roc = by_gid(ax, "roc")
    np.testing.assert_allclose(roc.get_xdata(), sweep.frame["fpr"])
    np.testing.assert_allclose(roc.get_ydata(), sweep.frame["tpr"])
    assert f"AUC = {sweep.auc:.3f}" in roc.get_label()
    for key, point in sweep.points.items():
        marker = by_gid(ax, f"point:{key}")
        assert (marker.get_xdata()[0], marker.get_ydata()[0]) == (point.fpr, point.tpr)
        assert f"t = {point.threshold:.4g}" in marker.get_label()
    iso = by_gid(ax, "iso-cost")
    (x0, x1), (y0, y1) = iso.get_xdata(), iso.get_ydata()
    assert (y1 - y0) / (x1 - x0) == pytest.approx(sweep.iso_cost_slope)
    e = sweep.expected_optimum
    assert y0 + (e.fpr - x0) * sweep.iso_cost_slope == pytest.approx(e.tpr)
    assert 0 <= min(x0, x1) and max(x0, x1) <= 1 and 0 <= min(y0, y1) and max(y0, y1) <= 1
    k, p, n = sweep.expected_cost_matrix, sweep.positives, sweep.negatives

    def eval1(fpr, tpr):
        return k.tp * p * tpr + k.fn * p * (1 - tpr) + k.fp * n * fpr + k.tn * n * (1 - fpr)

    assert eval1(x0, y0) == pytest.approx(e.expected_cost)
    assert eval1(x1, y1) == pytest.approx(e.expected_cost)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("lowest worst-case system cost" in t for t in texts)
    assert any("highest accuracy (model only)" in t for t in texts)
    FigureCanvasAgg(fig).draw()  # renders without a GUI backend


def test_cost_figure_holds_the_sweeps_costs(sweep) -> None:
    fig = draw_cost_by_threshold(sweep)
    (ax,) = fig.axes
    finite = sweep.frame[np.isfinite(sweep.frame["threshold"])].sort_values("threshold")
    for column in ("expected_cost", "worst_cost", "best_cost"):
        line = by_gid(ax, column)
        assert line.get_drawstyle() == "steps-pre"
        np.testing.assert_allclose(line.get_xdata(), finite["threshold"])
        np.testing.assert_allclose(line.get_ydata(), finite[column])
    assert [c.get_gid() for c in ax.collections] == ["band"]
    for key in ("expected", "worst", "accuracy"):
        marker = by_gid(ax, f"threshold:{key}")
        assert marker.get_xdata()[0] == sweep.points[key].threshold
    assert "score >= threshold" in ax.get_xlabel()
    FigureCanvasAgg(fig).draw()


def test_vertical_and_missing_iso_cost_lines() -> None:
    y, s = [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.4, 0.2]
    costs = cc.CostMatrix(fn=5, fp=1)
    vertical = cc.derive_sheet(cc.ErrorRates(0.3, 0.3, 0.5, 0.1), costs, slot="s", prior=0.5,
                               monotonicity="declared", provenance={"source": "test"})
    sweep = system_thresholds(vertical, y, s)
    line = by_gid(draw_system_roc(sweep).axes[0], "iso-cost")
    assert list(line.get_xdata()) == [sweep.expected_optimum.fpr] * 2
    flat = cc.derive_sheet(cc.ErrorRates(0.3, 0.3, 0.2, 0.2), costs, slot="s", prior=0.5,
                           monotonicity="declared", provenance={"source": "test"})
    flat_sweep = system_thresholds(flat, y, s)
    assert math.isnan(flat_sweep.iso_cost_slope)
    gids = [x.get_gid() for x in draw_system_roc(flat_sweep).axes[0].get_lines()]
    assert "iso-cost" not in gids and "roc" in gids


def test_only_a_sweep_is_drawn() -> None:
    with pytest.raises(InputTypeError, match="ThresholdSweep"):
        draw_system_roc({"fpr": [0, 1]})
    with pytest.raises(InputTypeError, match="ThresholdSweep"):
        draw_cost_by_threshold(None)
