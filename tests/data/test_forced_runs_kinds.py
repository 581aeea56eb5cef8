"""Kinds and runs against a per-row Python loop on random small tables, every fusioner kind."""

from __future__ import annotations

import functools
import operator

import numpy as np
import pandas as pd
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.pricing.witness import KINDS

RULES = ("and", "or", "majority", "majority_tie_positive", "k_of_n", "weighted",
         "weighted_negative", "function")


def build(rule: str, models: list[str], rng: np.random.Generator) -> cc.Fusioner:
    n = len(models)
    if rule == "majority_tie_positive":
        return cc.make_fusioner("majority", models, tie="positive")
    if rule == "k_of_n":
        return cc.make_fusioner("k_of_n", models, k=int(rng.integers(1, n + 1)))
    if rule == "weighted":
        weights = rng.choice([0.1, 0.2, 0.3, 0.7, 1.0], size=n).tolist()
        return cc.make_fusioner("weighted", models, weights=weights,
                                threshold=float(rng.choice([0.3, 0.5, 0.9, 1.0])))
    if rule == "weighted_negative":
        weights = rng.choice([-1.0, -0.5, 0.5, 1.0, 2.0], size=n).tolist()
        return cc.make_fusioner("weighted", models, weights=weights, threshold=0.5)
    if rule == "function":  # parity of the positive votes: not monotone
        return cc.make_fusioner("function", models,
                                function=lambda **v: functools.reduce(operator.xor, v.values()))
    return cc.make_fusioner(rule, models)


def loop(frame: pd.DataFrame, f: cc.Fusioner, slot: str) -> tuple[dict, dict]:
    """Kinds and the forced / deployed confusions, one row at a time with the scalar rule."""
    kinds = {c: dict.fromkeys(KINDS, 0) for c in ("P", "N")}
    cells = {run: dict.fromkeys(("tp", "fn", "fp", "tn"), 0)
             for run in ("forced_p", "forced_n", "observed")}
    for row in frame.itertuples(index=False):
        row = row._asdict()
        truth = bool(row["y"])

        def system(slot_vote: bool, row=row) -> bool:
            votes = {m: bool(row[m]) for m in f.inputs}
            votes[slot] = slot_vote
            return bool(f(tuple(votes[m] for m in f.inputs)))

        right = system(truth) == truth          # the slot votes the true class
        wrong = system(not truth) == truth      # the slot votes the other class
        kind = {(True, True): "never", (True, False): "wrong_only",
                (False, False): "always", (False, True): "right_only"}[(right, wrong)]
        kinds["P" if truth else "N"][kind] += 1
        for run, slot_vote in (("forced_p", True), ("forced_n", False),
                               ("observed", bool(row[slot]))):
            says = system(slot_vote)
            cell = ("tp" if says else "fn") if truth else ("fp" if says else "tn")
            cells[run][cell] += 1
    return kinds, cells


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rule=st.sampled_from(RULES),
       n_models=st.integers(1, 5), rows=st.integers(0, 40), lazy=st.booleans())
def test_kinds_and_runs_match_a_per_row_loop(seed: int, rule: str, n_models: int, rows: int,
                                             lazy: bool) -> None:
    rng = np.random.default_rng(seed)
    models = [f"m{i}" for i in range(n_models)]
    f = build(rule, models, rng)
    slot = models[int(rng.integers(n_models))]
    frame = pd.DataFrame({c: rng.integers(0, 2, rows) for c in ["y", *models]})
    frame["flipped"] = 1 - frame["y"]  # a candidate that is always wrong
    native = pl.from_pandas(frame).lazy() if lazy and f.is_vote else frame
    runs = cc.forced_runs(native, truth="y", slot=slot, fusioner=f)
    kinds, cells = loop(frame, f, slot)
    assert runs.kinds.to_dict(orient="index") == kinds
    for run, expected in cells.items():
        assert getattr(runs, run).to_dict() == expected, run
    assert runs.n == rows
    assert runs.monotone_on_data == (kinds["P"]["right_only"] + kinds["N"]["right_only"] == 0)
    # a candidate that is always right / always wrong gives the forced-correct / -wrong runs
    right, wrong = runs.with_candidate("y"), runs.with_candidate("flipped")
    if not lazy:  # arrays aligned with the rows: eager frames only
        truth = frame["y"].to_numpy().astype(bool)
        assert (right, wrong) == (runs.with_candidate(truth), runs.with_candidate(~truth))
    k = runs.kinds
    assert right.fn == k.loc["P", "always"] + k.loc["P", "right_only"]
    assert wrong.fn == k.loc["P", "always"] + k.loc["P", "wrong_only"]
    assert right.fp == k.loc["N", "always"] + k.loc["N", "right_only"]
    assert wrong.fp == k.loc["N", "always"] + k.loc["N", "wrong_only"]


def test_vote_rules_are_monotone_on_any_data() -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({c: rng.integers(0, 2, 500) for c in ["y", "a", "b", "c"]})
    for rule in ("and", "or", "majority", "k_of_n", "weighted"):
        f = build(rule, ["a", "b", "c"], rng)
        assert cc.forced_runs(frame, truth="y", slot="b", fusioner=f).monotone_on_data, rule


def test_thesis_and_example() -> None:
    """Thesis §3.3: AND, the other model right on half of 100 positives: fc = 50, fw = 100."""
    frame = pd.DataFrame({"y": [1] * 100, "m1": [1] * 50 + [0] * 50, "m2": [1, 0] * 50})
    runs = cc.forced_runs(frame, truth="y", models=["m1", "m2"], slot="m2", fusioner="and")
    assert runs.forced_p == cc.Confusion(tp=50, fn=50, fp=0, tn=0)
    assert runs.forced_n == cc.Confusion(tp=0, fn=100, fp=0, tn=0)
    assert runs.kinds.loc["P"].tolist() == [0, 50, 50, 0]
    assert runs.observed == cc.Confusion(tp=25, fn=75, fp=0, tn=0)
