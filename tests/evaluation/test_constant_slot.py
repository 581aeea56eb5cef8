"""A sweep optimum at which the slot votes one label everywhere is flagged, with what the
system becomes (from the sheet), never silently recommended."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.cli import main
from causalcost.confusion import Confusion
from causalcost.evaluation.constant_slot import (
    ConstantSlotWarning,
    constant_slot_notes,
    constant_vote,
    forced_system_text,
)
from causalcost.evaluation.thresholds import system_thresholds

MODELS = ["a", "b", "c", "d", "e"]


def logs(n: int = 4000, seed: int = 0, models: int = 3) -> pd.DataFrame:
    """Logged votes of independent models (accuracies 0.65..0.85) and the truth ``y``."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    acc = (0.8, 0.7, 0.75, 0.85, 0.65)
    return pd.DataFrame({"y": y, **{m: np.where(rng.random(n) < acc[i], y, ~y)
                                    for i, m in enumerate(MODELS[:models])}})


def confusion_of(truth: np.ndarray, vote: np.ndarray) -> Confusion:
    return Confusion(tp=int((truth & vote).sum()), fn=int((truth & ~vote).sum()),
                     fp=int((~truth & vote).sum()), tn=int((~truth & ~vote).sum()))


def cost_of(m: Confusion, costs: cc.CostMatrix) -> float:
    return m.tp * costs.tp + m.fn * costs.fn + m.fp * costs.fp + m.tn * costs.tn


# ---------------------------------------------------------------- the real case: majority of 3
def test_a_majority_of_3_log_whose_cost_optimum_is_always_p_is_flagged_as_an_or() -> None:
    frame = logs()
    costs = cc.CostMatrix(fn=5, fp=1)  # a miss is dear: OR of the other two is cheapest
    sheet = cc.sheet_from_data(frame, costs, truth="y", models=["a", "b", "c"], slot="b",
                               fusioner="majority")
    y = frame["y"].to_numpy()
    rng = np.random.default_rng(1)
    # a weak, coarse scorer (three levels, as many real ones): the lowest level holds
    # positives, so voting P there too is what the cheapest system wants
    levels = [0.2, 0.5, 0.8]
    scores = np.where(y, rng.choice(levels, y.size, p=[0.2, 0.4, 0.4]),
                      rng.choice(levels, y.size, p=[0.4, 0.4, 0.2]))
    with pytest.warns(ConstantSlotWarning) as caught:
        sweep = system_thresholds(sheet, y, scores)
    e = sweep.expected_optimum
    assert e.constant == "P" and e.threshold == scores.min()
    assert e.confusion == Confusion(tp=int(y.sum()), fn=0, fp=int((~y).sum()), tn=0)
    # independently: the system is then OR(a, c) of the logs, and that is its cost
    or_ac = confusion_of(y, frame["a"].to_numpy() | frame["c"].to_numpy())
    assert sheet.forced_p == or_ac
    assert e.expected_cost == pytest.approx(cost_of(or_ac, costs), rel=1e-12)
    assert e.worst_cost == pytest.approx(e.expected_cost, rel=1e-12)  # the kinds bound is exact
    # and it is the cheapest point of the sweep
    assert e.expected_cost == pytest.approx(sweep.frame["expected_cost"].min(), rel=1e-12)
    message = str(caught[0].message)
    assert "vote P on all 4000 instances" in message
    assert "for a majority of 3, an OR of the other two" in message
    tpr, fpr = or_ac.tp / y.sum(), or_ac.fp / (~y).sum()
    assert f"TPR {tpr:.4g} and FPR {fpr:.4g}" in message
    # the flag in every rendering
    assert sweep.constant_slot and sweep.constant_slot[0] == message
    assert "slot always P" in str(sweep) and f"warning: {message}" in str(sweep)
    assert "expected optimum: slot always P" in repr(sweep)
    assert sweep.to_frame().loc["expected", "constant"] == "P"
    d = sweep.to_dict()
    assert d["points"]["expected"]["constant"] == "P" and d["constant_slot"][0] == message
    # the model-only optimum of this weak scorer is the majority class: always N, flagged too
    assert sweep.model_only_optimum.constant == "N"
    assert "an AND of the other two" in d["constant_slot"][1]
    assert [str(w.message) for w in caught] == d["constant_slot"]
    assert "constant='P'" in repr(e)


# --------------------------------------------------------------- the reduced rule, rule by rule
def _k_of(k: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda votes: votes.sum(axis=1) >= k


CASES = [  # fusioner, options, models, label, phrase, the reduced rule over the other models
    ("and", {}, 3, "P", "for an AND, an AND of the other models", _k_of(2)),
    ("and", {}, 3, "N", "for an AND, a constant N", _k_of(3)),
    ("or", {}, 3, "P", "for an OR, a constant P", _k_of(0)),
    ("or", {}, 3, "N", "for an OR, an OR of the other models", _k_of(1)),
    ("majority", {}, 3, "P", "for a majority of 3, an OR of the other two", _k_of(1)),
    ("majority", {}, 3, "N", "for a majority of 3, an AND of the other two", _k_of(2)),
    ("majority", {}, 5, "P", "for a majority of 5, a 2-of-4 vote of the other four", _k_of(2)),
    ("majority", {}, 5, "N", "for a majority of 5, a 3-of-4 vote of the other four (a "
     "majority of them)", _k_of(3)),
    ("majority", {"tie": "positive"}, 4, "P", "for a majority of 4, ties go positive, an OR "
     "of the other three", _k_of(1)),
    ("majority", {}, 4, "N", "for a majority of 4, ties go negative, an AND of the other "
     "three", _k_of(3)),
    ("k_of_n", {"k": 2}, 4, "P", "for a 2 of 4 vote, an OR of the other three", _k_of(1)),
    ("k_of_n", {"k": 2}, 4, "N", "for a 2 of 4 vote, a 2-of-3 vote of the other three (a "
     "majority of them)", _k_of(2)),
    ("k_of_n", {"k": 1}, 3, "P", "for a 1 of 3 vote, a constant P", _k_of(0)),
    ("k_of_n", {"k": 3}, 3, "N", "for a 3 of 3 vote, a constant N", _k_of(4)),
    ("weighted", {"weights": [1, 2, 1], "threshold": 2}, 3, "N",
     "the weighted vote {'a': 1.0, 'c': 1.0} >= 2 of the other models", _k_of(2)),
    ("weighted", {"weights": [1, 2, 1], "threshold": 2}, 3, "P", "a constant P", _k_of(0)),
    ("weighted", {"weights": [1, 2, -1], "threshold": 1}, 3, "P", "a constant P", _k_of(0)),
    ("weighted", {"weights": [1, 2, -1], "threshold": 1}, 3, "N",
     "the weighted vote {'a': 1.0, 'c': -1.0} >= 1 of the other models",
     lambda votes: votes[:, 0] & ~votes[:, 1]),
]


@pytest.mark.parametrize(("rule", "options", "n", "label", "phrase", "reduced"), CASES)
def test_the_message_names_the_reduced_rule_and_the_logs_agree(
        rule: str, options: dict, n: int, label: str, phrase: str,
        reduced: Callable[[np.ndarray], np.ndarray]) -> None:
    frame = logs(3000, seed=n, models=n)
    models = MODELS[:n]
    sheet = cc.sheet_from_data(frame, cc.CostMatrix(fn=5, fp=1), truth="y", models=models,
                               slot="b", fusioner=rule, assumption="none", **options)
    text = forced_system_text(sheet, label)
    assert phrase in text
    # the phrase is right: the reduced rule over the other models' logged votes gives the
    # sheet's forced run exactly
    others = frame[[m for m in models if m != "b"]].to_numpy()
    y = frame["y"].to_numpy()
    forced = sheet.forced_p if label == "P" else sheet.forced_n
    assert confusion_of(y, reduced(others)) == forced


def test_a_network_sheet_reads_the_rule_from_its_unchanged_network_file() -> None:
    costs = cc.CostMatrix(fn=5, fp=1)
    text_p = forced_system_text(cc.sheet_from_network("thesis_and", costs), "P")
    assert "for an AND of 2, the other model's vote alone (images)" in text_p
    text_n = forced_system_text(cc.sheet_from_network("thesis_or", costs), "N")
    assert "for an OR of 2, the other model's vote alone (images)" in text_n
    # the rates part: thesis_and with clinical_history forced P is images alone
    sheet = cc.sheet_from_network("thesis_and", costs)
    tpr = 1 - sheet.rates.rate("P", "P")
    assert f"TPR {tpr:.4g}" in text_p


def test_a_sheet_that_does_not_know_its_rule_states_the_forced_rates_only() -> None:
    rates = cc.ErrorRates(0.25, 0.5, 0.375, 0.125)
    for provenance in ({"source": "test"},
                       {"source": "network", "network": "no_such_net", "sha256": "sha256:00"},
                       {"source": "network", "network": "majority3", "sha256": "sha256:00"},
                       {"source": "data", "description": "logs", "fusioner": "user function f"}):
        sheet = cc.derive_sheet(rates, cc.CostMatrix(fn=5, fp=1), slot="s", prior=0.5,
                                monotonicity="declared", provenance=provenance)
        text = forced_system_text(sheet, "P")
        assert text == ("the system then behaves as with the slot forced to P (the sheet does "
                        "not record the fusion rule); with the slot forced to P the system has "
                        "TPR 0.75 and FPR 0.375 (the sheet's rates e_P(P) = 0.25, e_N(P) = "
                        "0.375)"), provenance
    with pytest.raises(cc.CausalCostError, match="label must be 'P' or 'N'"):
        forced_system_text(sheet, "yes")


def test_always_n_is_flagged_as_above_the_highest_score() -> None:
    sheet = cc.sheet_from_network("majority3", cc.CostMatrix(fn=1, fp=40))
    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.3
    scores = np.where(y, rng.normal(0.2, 1, 300), rng.normal(0, 1, 300))
    with pytest.warns(ConstantSlotWarning, match="above the highest score"):
        sweep = system_thresholds(sheet, y, scores)
    assert sweep.expected_optimum.constant == "N"
    assert sweep.expected_optimum.threshold == np.inf
    assert any("an AND of the other two (images, lab_tests)" in n for n in sweep.constant_slot)


# ------------------------------------------------------------------ no flag where none is due
def test_a_non_constant_optimum_is_not_flagged() -> None:
    sheet = cc.sheet_from_network("majority3", cc.CostMatrix(fn=5, fp=1))
    rng = np.random.default_rng(5)
    y = rng.random(400) < 0.4
    scores = np.where(y, rng.normal(2.5, 1, 400), rng.normal(0, 1, 400))  # a good model
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstantSlotWarning)
        sweep = system_thresholds(sheet, y, scores)
    assert all(p.constant is None for p in sweep.points.values())
    assert sweep.constant_slot == () and "slot always" not in str(sweep) + repr(sweep)
    assert sweep.to_dict()["constant_slot"] == []
    assert sweep.to_frame()["constant"].isna().all()


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_flag_iff_the_chosen_threshold_votes_one_label_on_every_instance(data) -> None:
    n = data.draw(st.integers(2, 25))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if y.all() or not y.any():
        y[0] = not y[0]
    scores = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]),
                                         min_size=n, max_size=n)))
    rates = cc.ErrorRates(*(data.draw(st.floats(0, 1)) for _ in range(4)))
    costs = cc.CostMatrix(fn=data.draw(st.floats(0.5, 50)), fp=data.draw(st.floats(0.5, 50)))
    sheet = cc.derive_sheet(rates, costs, slot="s", prior=0.5, assumption="none",
                            provenance={"source": "test"})
    thresholds = data.draw(st.one_of(st.none(), st.lists(
        st.sampled_from([-1.0, 0.0, 0.3, 0.6, 1.0, 2.0, np.inf]), min_size=1, max_size=5)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sweep = system_thresholds(sheet, y, scores, thresholds=thresholds)
    flagged = set()
    for point in sweep.points.values():
        votes = scores >= point.threshold
        expected = "P" if votes.all() else "N" if not votes.any() else None
        assert point.constant == expected
        if expected:
            flagged.add((expected, point.threshold))
    assert len(sweep.constant_slot) == len(flagged)
    ours = [w for w in caught if issubclass(w.category, ConstantSlotWarning)]
    assert [str(w.message) for w in ours] == list(sweep.constant_slot)


def test_constant_vote_and_the_notes_group_criteria_at_one_threshold() -> None:
    assert constant_vote(Confusion(0, 0, 0, 0)) is None
    sheet = cc.sheet_from_network("majority3", cc.CostMatrix(fn=5, fp=1))
    notes = constant_slot_notes(sheet, [("x", 0.1, "P"), ("y", 0.1, "P"), ("z", np.inf, "N"),
                                        ("w", 0.5, None)], 10)
    assert len(notes) == 2
    assert notes[0].startswith("the threshold 0.1, chosen by x and y, makes the slot")
    assert notes[1].startswith("the threshold inf, chosen by z, makes")


# ---------------------------------------------------------------------------------- the CLI
def test_the_roc_command_shows_the_flag(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.5
    scores = tmp_path / "scores.csv"
    levels = [0.2, 0.5, 0.8]
    s = np.where(y, rng.choice(levels, 300, p=[0.2, 0.3, 0.5]),
                 rng.choice(levels, 300, p=[0.5, 0.3, 0.2]))
    pd.DataFrame({"y": y, "s": s}).to_csv(scores, index=False)
    sheet = tmp_path / "sheet.json"
    assert main(["derive", "majority3", "--costs", "fn=20,fp=1", "-o", str(sheet)]) == 0
    capsys.readouterr()
    with warnings.catch_warnings():  # printed once, in the output; no Python warning besides
        warnings.simplefilter("error", ConstantSlotWarning)
        assert main(["roc", str(sheet), "--scores", str(scores), "--truth", "y",
                     "--score", "s"]) == 0
        printed = capsys.readouterr()
        assert main(["roc", str(sheet), "--scores", str(scores), "--truth", "y",
                     "--score", "s", "--json"]) == 0
    out = printed.out
    assert "slot always P" in out and "an OR of the other two (images, lab_tests)" in out
    assert out.count("an OR of the other two") == 1 and printed.err == ""
    d = json.loads(capsys.readouterr().out)
    assert d["points"]["expected"]["constant"] == "P" and d["constant_slot"]
