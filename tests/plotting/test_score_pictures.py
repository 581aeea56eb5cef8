"""Pictures of a score slot (plotting.scores): what is drawn is what the runs and tables hold.

The critical scores' step line is their ECDF on the score range (its value at ``s`` is the
share of the class the system says P on with the slot forced to ``s``); each candidate's line
is the ECDF of its scores; the share in a candidate's legend entry is ``P(S >= T)``, the rate
the expected cost prices (checked against ``compare``'s expected confusion); critical scores
outside the range are counted in the panel's note. The cost picture puts each candidate's
expected, best, worst, high-confidence worst and real cost at the table's numbers, one row per
candidate in the table's order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import causalcost as cc
from causalcost.errors import InputTypeError, ValidationError
from causalcost.plotting.scores import said_p

LOG = Path(__file__).resolve().parents[2] / "examples" / "scores_log.csv"
COSTS = cc.CostMatrix(fn=5, fp=1)


@pytest.fixture(scope="module")
def tiny() -> cc.ScoreRuns:
    """Critical scores P: 0.1, 0.7; N: 0.8, 0.4 (t = 2 * 0.5 - a)."""
    log = pd.DataFrame({"y": [1, 1, 0, 0], "a": [0.9, 0.3, 0.2, 0.6],
                        "b": [0.6, 0.5, 0.1, 0.7]})
    return cc.forced_runs(log, truth="y", models=["a", "b"], slot="b", fusioner="mean")


def line(ax, gid: str):
    (found,) = [x for x in ax.get_lines() if x.get_gid() == gid]
    return found


def gids(ax) -> list[str]:
    return [x.get_gid() for x in ax.get_lines()]


def test_critical_scores_and_a_candidate_are_their_ecdfs(tiny) -> None:
    fig = cc.draw_critical_scores(tiny, {"new": {"P": [0.8, 0.5], "N": [0.3, 0.6]}})
    p, n = fig.axes
    assert gids(p) == ["critical:P", "candidate:new:P"]
    assert gids(n) == ["critical:N", "candidate:new:N"]
    expected = {"critical:P": ([0, 0.1, 0.7, 1], [0, 0.5, 1, 1]),
                "candidate:new:P": ([0, 0.5, 0.8, 1], [0, 0.5, 1, 1])}
    for gid, (x, y) in expected.items():
        drawn = line(p, gid)
        assert drawn.get_drawstyle() == "steps-post"
        np.testing.assert_allclose(drawn.get_xdata(), x)
        np.testing.assert_allclose(drawn.get_ydata(), y)
    np.testing.assert_allclose(line(n, "critical:N").get_xdata(), [0, 0.4, 0.8, 1])
    np.testing.assert_allclose(line(n, "critical:N").get_ydata(), [0, 0.5, 1, 1])
    # P(S >= T): on P, 3 of the 4 pairs reach (0.5 < 0.7 fails); on N, 1 of 4 (0.6 >= 0.4)
    assert line(p, "candidate:new:P").get_label() == "new: says P on 75 %"
    assert line(n, "candidate:new:N").get_label() == "new: says P on 25 %"
    for ax in (p, n):
        assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
        assert ax.get_xlabel() == "the slot's score s"
        assert [t.get_text() for t in ax.get_legend().get_texts()][0].startswith("critical")
        assert ax.get_legend().get_title().get_text().startswith("t ≤ 0 (P at every score): ")
    assert p.get_ylabel() == "share of the class at or below s"
    assert p.get_title() == "class P (2 instances): right when s ≥ t"
    assert n.get_title() == "class N (2 instances): right when s < t"
    assert "'b'" in fig._suptitle.get_text() and "mean" in fig._suptitle.get_text()
    FigureCanvasAgg(fig).draw()


def test_critical_scores_outside_the_range_are_counted_in_the_note() -> None:
    """The largest score against 0.5: t = -inf where a reaches 0.5, else 0.5."""
    log = pd.DataFrame({"y": [1, 1, 1, 0, 0], "a": [0.9, 0.2, 0.7, 0.1, 0.6],
                        "b": [0.1, 0.2, 0.3, 0.4, 0.5]})
    runs = cc.forced_runs(log, truth="y", models=["a", "b"], slot="b", fusioner="max")
    fig = cc.draw_critical_scores(runs)
    p, n = fig.axes
    assert gids(p) == ["critical:P"]  # no candidate, no candidate line
    critical = line(p, "critical:P")
    np.testing.assert_allclose(critical.get_xdata(), [0, 0.5, 1])
    np.testing.assert_allclose(critical.get_ydata(), [2 / 3, 1, 1])  # two of three at -inf
    note = p.get_legend().get_title()
    assert note.get_gid() == "note:P"
    assert note.get_text() == "t ≤ 0 (P at every score): 67 %\nt > 1 (P at no score): 0 %"
    wide = cc.draw_critical_scores(runs, score_range=(-1, 2))
    assert wide.axes[0].get_xlim() == (-1.0, 2.0)
    with pytest.raises(ValidationError, match="score_range"):
        cc.draw_critical_scores(runs, score_range=(1, 0))


def test_a_sheet_draws_what_its_runs_draw_and_y_true_splits_the_rows() -> None:
    log = pd.read_csv(LOG)
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    sheet = cc.sheet_from_data(runs, COSTS)
    positive = log["y"] == 1
    per_class = {"P": log.loc[positive, "new1"].to_numpy(),
                 "N": log.loc[~positive, "new1"].to_numpy()}
    from_runs = cc.draw_critical_scores(runs, {"new1": per_class})
    from_sheet = cc.draw_critical_scores(sheet, {"new1": log["new1"]}, y_true=log["y"])
    for a, b in zip(from_runs.axes, from_sheet.axes):
        assert gids(a) == gids(b)
        for x, y in zip(a.get_lines(), b.get_lines()):
            np.testing.assert_array_equal(x.get_xydata(), y.get_xydata())
            assert x.get_label() == y.get_label()
    # the legend's share is the rate the expected cost prices
    table = cc.compare(sheet, y_true=log["y"], scores={"new1": log["new1"]})
    sizes = sheet.class_sizes
    shares = (table.loc["new1", "expected_tp"] / sizes[0],
              1 - table.loc["new1", "expected_tn"] / sizes[1])
    critical = sheet.critical_by_class()
    for c, share, t in zip("PN", shares, critical):
        s = np.sort(per_class[c])
        assert said_p(t, s) == pytest.approx(share)
        label = line(from_sheet.axes["PN".index(c)], f"candidate:new1:{c}").get_label()
        assert label == f"new1: says P on {share:.0%}".replace("%", " %")


def test_a_sheet_on_breakpoints_shows_both_roundings_and_the_band() -> None:
    log = pd.read_csv(LOG)
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    small = cc.sheet_from_data(runs, COSTS, breakpoints=8)
    fig = cc.draw_critical_scores(small)
    for ax, c in zip(fig.axes, "PN"):
        assert gids(ax) == [f"critical:{c}:worse", f"critical:{c}:better"]
        assert [x.get_gid() for x in ax.collections] == [f"band:{c}"]
        worse, better = (line(ax, f"critical:{c}:{case}") for case in ("worse", "better"))
        grid = np.linspace(0, 1, 101)
        at = [np.interp(grid, x.get_xdata(), x.get_ydata()) for x in (worse, better)]
        # P: rounded up to make it worse, so fewer t <= s; N: rounded down, so more
        assert (at[0] <= at[1] + 1e-12).all() if c == "P" else (at[0] >= at[1] - 1e-12).all()
        note = ax.get_legend().get_title()
        assert note.get_text().endswith("(rounded to make the system worse)")


def test_critical_scores_refuse_what_they_cannot_draw(tiny) -> None:
    with pytest.raises(InputTypeError, match="ScoreSheet or ScoreRuns"):
        cc.draw_critical_scores(cc.sheet_from_network("thesis_and", COSTS))
    with pytest.raises(InputTypeError, match="y_true"):
        cc.draw_critical_scores(tiny, {"new": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(cc.DataError, match=r"scores\['new'\]"):  # names the scores
        cc.draw_critical_scores(tiny, {"new": [0.1, np.nan, 0.3, 0.4]}, y_true=[1, 1, 0, 0])


# ------------------------------------------------------------------------ the cost picture

@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    log = pd.read_csv(LOG)
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    sheet = cc.sheet_from_data(runs, COSTS)
    names = ["new1", "new2", "b"]
    frame = cc.compare(sheet, y_true=log["y"], scores={n: log[n] for n in names},
                       confidence=0.95)
    frame["real_cost"] = [runs.with_candidate(log[n]).cost(COSTS) for n in frame.index]
    return frame


def test_candidate_costs_sit_at_the_tables_numbers(table) -> None:
    fig = cc.draw_candidate_costs(table)
    (ax,) = fig.axes
    names = list(table.index)
    assert [t.get_text() for t in ax.get_yticklabels()] == names
    assert len(ax.get_lines()) == 3 * len(names) and len(ax.collections) == len(names)
    for row, name in enumerate(names):
        (interval,) = [x for x in ax.collections if x.get_gid() == f"interval:{name}"]
        ((start, end),) = [segment[:, 0] for segment in interval.get_segments()]
        assert (start, end) == (table.loc[name, "best_cost"], table.loc[name, "worst_cost"])
        assert interval.get_segments()[0][0, 1] == -row
        for gid, column in (("expected", "eval1"), ("hc_worst", "high_confidence_worst_cost"),
                            ("real", "real_cost")):
            (x,), (y,) = line(ax, f"{gid}:{name}").get_data()
            assert x == pytest.approx(table.loc[name, column])
            assert y == pytest.approx(-row - (0.18 if gid == "real" else 0))
    low, high = ax.get_xlim()
    assert low == 0 and high == pytest.approx(table["high_confidence_worst_cost"].max() * 1.05)
    assert ax.get_xlabel() == "system cost"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "best to worst case", "expected (Eval1)", "high-confidence worst case",
        "real system cost"]
    assert fig._repr_png_()[:4] == b"\x89PNG"


def test_candidate_costs_of_a_backtest_and_of_a_table_without_real_costs(table) -> None:
    log = pd.read_csv(LOG)
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    check = cc.backtest(runs, {"new1": log["new1"], "new2": log["new2"]}, costs=COSTS)
    (ax,) = cc.draw_candidate_costs(check).axes
    for name in ("new1", "new2"):
        (x,), _ = line(ax, f"real:{name}").get_data()
        assert x == check.frame.loc[name, "real_cost"]
        (x,), _ = line(ax, f"expected:{name}").get_data()
        assert x == pytest.approx(check.frame.loc[name, "expected_cost"])
    assert not any(g.startswith("hc_worst:") for g in gids(ax))
    bare = table.drop(columns=["real_cost", "high_confidence_worst_cost"])
    (ax,) = cc.draw_candidate_costs(bare).axes
    assert sorted(gids(ax)) == sorted(f"expected:{n}" for n in table.index)
    with pytest.raises(ValidationError, match="worst_cost"):
        cc.draw_candidate_costs(table.drop(columns=["worst_cost"]))
    with pytest.raises(InputTypeError, match="compare"):
        cc.draw_candidate_costs({"new1": 1.0})
