"""draw_slot_importance: one bar group per slot, one bar per defined version, heights equal to
the costs, the intervals of a log as error bars, the slots as tick labels."""

from __future__ import annotations

import numpy as np
import pytest
from owner_reference import random_log

import causalcost as cc
from causalcost.errors import InputTypeError

pytest.importorskip("matplotlib")
VERSIONS = ("as_is", "perfect", "constant_p", "constant_n", "removed")


def bars(fig) -> dict[str, object]:
    return {p.get_gid(): p for p in fig.axes[0].patches if str(p.get_gid()).startswith("bar:")}


def test_one_group_per_slot_from_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    log = random_log(np.random.default_rng(6), 300, ["a", "b", "c", "d"])
    result = cc.slot_importance(log, truth="y", models=["a", "b", "c", "d"], fusioner="or",
                                costs=cc.CostMatrix(fn=5, fp=1))
    fig = cc.draw_slot_importance(result)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c", "d"]
    drawn = bars(fig)
    assert len(drawn) == 4 * len(VERSIONS)
    for model in "abcd":
        group = [drawn[f"bar:{v}:{model}"] for v in VERSIONS]
        centres = [b.get_x() + b.get_width() / 2 for b in group]
        tick = ax.get_xticks()[list("abcd").index(model)]
        assert all(abs(c - tick) < 0.5 for c in centres)  # the group sits on its tick
        assert centres == sorted(centres)
        for version, bar in zip(VERSIONS, group):
            assert bar.get_height() == pytest.approx(result.frame.loc[model,
                                                                      f"{version}_cost"])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["as is", "perfect model", "constant P", "constant N", "votes removed"]
    intervals = [c for c in ax.collections if str(c.get_gid()).startswith("ci:")]
    assert {c.get_gid() for c in intervals} == {f"ci:{v}" for v in VERSIONS}
    segments = {c.get_gid(): c.get_segments() for c in intervals}
    low, high = (result.frame.loc["b", "perfect_ci_low"],
                 result.frame.loc["b", "perfect_ci_high"])
    ends = sorted(segments["ci:perfect"][1][:, 1])
    assert ends == pytest.approx([low, high], rel=1e-9)
    assert "95% intervals" in ax.get_title()
    assert fig._repr_png_()[:4] == b"\x89PNG"


def test_undefined_versions_are_not_drawn() -> None:
    result = cc.slot_importance(cc.load_network("majority3"), costs=cc.CostMatrix(fn=5, fp=1),
                                n=1000)
    fig = cc.draw_slot_importance(result)
    drawn = bars(fig)
    assert not any(gid.startswith("bar:removed:") for gid in drawn)  # undefined everywhere
    assert len(drawn) == 3 * 4
    assert "intervals" not in fig.axes[0].get_title()
    assert "expected" in fig.axes[0].get_ylabel()
    log = random_log(np.random.default_rng(1), 200, ["a", "b", "c"])
    partly = cc.slot_importance(log, truth="y", models=["a", "b", "c"], fusioner="majority",
                                costs=cc.CostMatrix(fn=5, fp=1))  # removal: even ties
    assert not any(g.startswith("bar:removed:") for g in bars(cc.draw_slot_importance(partly)))


def test_refuses_anything_else() -> None:
    with pytest.raises(InputTypeError, match="SlotImportance"):
        cc.draw_slot_importance({"a": 1.0})
