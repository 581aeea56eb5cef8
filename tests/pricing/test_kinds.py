"""The kinds form of the bounds (causalcost.pricing.kinds; bound(kinds=...)).

Ground truth is an exhaustive search: for every split of a class of up to 6 instances into
the four kinds and every number of model hits, every placement of the hits on the kinds
(and, for up to 4 instances, on labelled instances), counting the system errors each placement
causes. The forced runs the kinds imply are checked against scikit-learn's counts of
per-instance predictions, an independent route.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import (
    CountError,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    ValidationError,
)
from causalcost.pricing.bounds import KINDS, bound, bound_many
from causalcost.pricing.kinds import count_kinds, forced_from_kinds, kinds_frame

MAX_N = 6
# (fails with the slot right, fails with the slot wrong), per kind
BEHAVIOUR = {"never": (0, 0), "wrong_only": (0, 1), "always": (1, 1), "right_only": (1, 0)}


def _compositions(n: int, parts: int):
    for cuts in itertools.combinations(range(n + parts - 1), parts - 1):
        edges = (-1, *cuts, n + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def _errors(counts: tuple[int, ...], hits: tuple[int, ...]) -> int:
    """System errors when ``hits[k]`` of the ``counts[k]`` instances of kind k are model hits."""
    return sum(h * BEHAVIOUR[k][0] + (c - h) * BEHAVIOUR[k][1]
               for k, c, h in zip(KINDS, counts, hits, strict=True))


@cache
def reachable(counts: tuple[int, ...], h: int) -> frozenset[int]:
    """Every system error count over the placements of h model hits on the kinds."""
    return frozenset(_errors(counts, hits)
                     for hits in itertools.product(*(range(c + 1) for c in counts))
                     if sum(hits) == h)


def labelled_reachable(counts: tuple[int, ...], h: int) -> frozenset[int]:
    """The same over labelled instances: every subset of h instances as the model's hits."""
    kinds = [k for k, c in zip(KINDS, counts, strict=True) for _ in range(c)]
    out = set()
    for hit_set in itertools.combinations(range(len(kinds)), h):
        out.add(sum(BEHAVIOUR[k][0] if i in hit_set else BEHAVIOUR[k][1]
                    for i, k in enumerate(kinds)))
    return frozenset(out)


def cases():
    for n in range(MAX_N + 1):
        for counts in _compositions(n, 4):
            for h in range(n + 1):
                yield n, counts, h


def frame_of(p: tuple[int, ...], q: tuple[int, ...]) -> pd.DataFrame:
    return pd.DataFrame([p, q], index=["P", "N"], columns=list(KINDS))


# ------------------------------------------------------------------------ exhaustive search
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_kind_counts_equal_labelled_instances(n: int) -> None:
    for counts in _compositions(n, 4):
        for h in range(n + 1):
            assert reachable(counts, h) == labelled_reachable(counts, h), (counts, h)


@pytest.mark.parametrize("cls", ["positives", "negatives"])
def test_kinds_bound_equals_exhaustive_search(cls: str) -> None:
    for n, counts, h in cases():
        errors = reachable(counts, h)
        empty = (0, 0, 0, 0)
        if cls == "positives":
            b = bound(kinds=frame_of(counts, empty), model=cc.Confusion(h, n - h, 0, 0))
            got = (b.worst.fn, b.best.fn)
        else:
            b = bound(kinds=frame_of(empty, counts), model=cc.Confusion(0, 0, n - h, h))
            got = (b.worst.fp, b.best.fp)
        assert got == (max(errors), min(errors)), (counts, h)
        assert (b.worst_cost, b.best_cost) == (max(errors), min(errors))  # unit costs
        assert (b.form, b.assumption) == ("kinds", "none")
        for wit, target in ((b.worst_witness, max(errors)), (b.best_witness, min(errors))):
            cw = getattr(wit, cls)
            assert tuple(sum(getattr(cw, k)) for k in KINDS) == counts  # the kinds as given
            assert cw.hits == h and cw.mistakes == n - h
            assert cw.errors == target
            hits = tuple(int(getattr(cw, k)[0]) for k in KINDS)
            assert _errors(counts, hits) == target  # the placement really causes it
        assert b.worst_witness.system_confusion() == b.worst
        assert b.best_witness.system_confusion() == b.best


def test_kinds_bound_against_forced_run_bounds() -> None:
    # never looser than the assumption-free bound on the forced runs the kinds imply; equal to
    # the monotone bound on them when no instance is right_only
    for n, counts, h in cases():
        frame = frame_of(counts, (0, 0, 0, 0))
        model = cc.Confusion(h, n - h, 0, 0)
        forced_p, forced_n = forced_from_kinds(frame)
        exact = bound(kinds=frame, model=model)
        free = bound(forced_p, forced_n, model, assumption="none")
        assert free.best.fn <= exact.best.fn <= exact.worst.fn <= free.worst.fn, (counts, h)
        if counts[3] == 0:
            mono = bound(forced_p, forced_n, model)
            assert (exact.worst, exact.best) == (mono.worst, mono.best), (counts, h)
            assert exact.expected == mono.expected


def test_gap_in_reachable_errors() -> None:
    # kinds.py: one right_only and one wrong_only positive, one hit: 0 or 2 errors, never 1
    assert reachable((0, 1, 0, 1), 1) == {0, 2}
    b = bound(kinds=kinds_frame({"wrong_only": 1, "right_only": 1}, {}),
              model=cc.Confusion(1, 1, 0, 0))
    assert (b.worst.fn, b.best.fn) == (2, 0)


@st.composite
def kind_problems(draw: st.DrawFn) -> tuple[pd.DataFrame, cc.Confusion, cc.CostMatrix]:
    p = tuple(draw(st.integers(0, 4)) for _ in KINDS)
    q = tuple(draw(st.integers(0, 4)) for _ in KINDS)
    tp = draw(st.integers(0, sum(p)))
    tn = draw(st.integers(0, sum(q)))
    tp_cost, tn_cost = draw(st.integers(-5, 5)), draw(st.integers(-5, 5))
    costs = cc.CostMatrix(tp=tp_cost, fn=tp_cost + draw(st.integers(0, 5)), tn=tn_cost,
                          fp=tn_cost + draw(st.integers(0, 5)))
    return frame_of(p, q), cc.Confusion(tp, sum(p) - tp, sum(q) - tn, tn), costs


@settings(max_examples=150, deadline=None)
@given(kind_problems())
def test_costs_are_extremes_over_every_placement(problem) -> None:
    frame, model, costs = problem
    p, q = tuple(frame.loc["P"]), tuple(frame.loc["N"])
    b = bound(kinds=frame, model=model, costs=costs)
    all_costs = [cc.Confusion(model.positives - ep, ep, en, model.negatives - en).cost(costs)
                 for ep in reachable(p, int(model.tp)) for en in reachable(q, int(model.tn))]
    assert b.worst_cost == max(all_costs) and b.best_cost == min(all_costs)
    assert b.best_cost <= b.expected_cost + 1e-9 or p[3] + q[3] > 0  # CF1 inside if monotone
    # the vectorised form agrees row by row
    row = bound_many(kinds=frame, models=[model.cells()], costs=costs).iloc[0]
    for case in ("worst", "expected", "best"):
        assert [row[f"{case}_{c}"] for c in cc.CELLS] == list(getattr(b, case).cells())
        assert row[f"{case}_cost"] == pytest.approx(getattr(b, f"{case}_cost"), abs=1e-9)


def test_thesis_example_as_kinds() -> None:
    # thesis §3.3 (AND; model 1 right on 50 of 100 positives): 50 wrong_only, 50 always; the
    # slot model 50 %: worst 100, cost function 1 75, best 50 (as the forced-run bound)
    frame = kinds_frame({"wrong_only": 50, "always": 50}, {})
    b = bound(kinds=frame, model=cc.Confusion(50, 50, 0, 0))
    assert (b.worst_cost, b.expected_cost, b.best_cost) == (100.0, 75.0, 50.0)
    d = b.to_dict()
    assert d["form"] == "kinds" and d["assumption"] == "none"
    assert set(d["witnesses"]["worst"]["positives"]) == set(KINDS)
    text = str(b)
    assert "exact for the instance kinds" in text and "no assumption" in text
    assert "How the worst case can happen:" in text
    assert repr(b).startswith("Bound(assumption='none', form='kinds', worst_cost=100")


# ------------------------------------------------------------------------ counting kinds
@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["P", "N"]), st.sampled_from(KINDS)), max_size=40))
def test_count_kinds_and_forced_runs(instances: list[tuple[str, str]]) -> None:
    y, pred_p, pred_n = [], [], []
    for cls, kind in instances:
        fails_right, fails_wrong = BEHAVIOUR[kind]
        truth, other = ("sick", "well") if cls == "P" else ("well", "sick")
        # forced to P the slot is right on positives; forced to N it is right on negatives
        right, wrong = (other if fails_right else truth), (other if fails_wrong else truth)
        y.append(truth)
        pred_p.append(right if cls == "P" else wrong)
        pred_n.append(wrong if cls == "P" else right)
    frame = count_kinds(y, pred_p, pred_n, positive="sick")
    for cls in ("P", "N"):
        assert frame.loc[cls].tolist() == [sum(1 for c, k in instances if c == cls and k == kind)
                                           for kind in KINDS]
    assert frame.dtypes.map(lambda d: d.kind == "i").all()
    # the forced runs the kinds imply are the system's confusion counted by scikit-learn
    forced_p, forced_n = forced_from_kinds(frame)
    if y:
        assert forced_p == cc.Confusion.from_predictions(y, pred_p, positive="sick")
        assert forced_n == cc.Confusion.from_predictions(y, pred_n, positive="sick")


def test_count_kinds_rejects_bad_input() -> None:
    with pytest.raises(ValidationError, match="same length"):
        count_kinds([1, 0], [1], [1, 0])
    with pytest.raises(ValidationError, match="binary labels expected"):
        count_kinds([1, 0, 2], [1, 0, 0], [1, 0, 0])
    with pytest.raises(InputTypeError):
        count_kinds(None, [1], [1])


# ------------------------------------------------------------------------ bad input
THESIS_KINDS = kinds_frame({"wrong_only": 50, "always": 50}, {})
MODEL = cc.Confusion(50, 50, 0, 0)


def test_class_sizes_must_match() -> None:
    with pytest.raises(InfeasibleInputError, match=r"the kinds count 100 positives and 0 "
                       r"negatives .* the model has 90 positives and 0 negatives: count the "
                       r"kinds on the candidate's own instances"):
        bound(kinds=THESIS_KINDS, model=cc.Confusion(40, 50, 0, 0))
    with pytest.raises(InfeasibleInputError, match=r"models row 1 .* but the kinds"):
        bound_many(kinds=THESIS_KINDS, models=[[50, 50, 0, 0], [40, 50, 0, 0]])


def test_exactly_one_of_forced_runs_or_kinds() -> None:
    forced_p, forced_n = forced_from_kinds(THESIS_KINDS)
    with pytest.raises(InputTypeError, match="either the forced runs .* or kinds=, not both"):
        bound(forced_p, forced_n, MODEL, kinds=THESIS_KINDS)
    with pytest.raises(InputTypeError, match="needs forced_p and forced_n"):
        bound(model=MODEL)
    with pytest.raises(InputTypeError, match="needs forced_p and forced_n"):
        bound(forced_p, model=MODEL)
    with pytest.raises(InputTypeError, match="model must be Confusion"):
        bound(kinds=THESIS_KINDS)
    # the forced-run call is unchanged, by position and by keyword
    assert bound(forced_p=forced_p, forced_n=forced_n, model=MODEL, costs=cc.CostMatrix()
                 ).worst_cost == 100.0


def test_assumption_with_kinds() -> None:
    mono = bound(kinds=THESIS_KINDS, model=MODEL, assumption="monotone")  # no right_only
    assert mono.assumption == "none" and mono.worst_cost == 100.0
    with_right_only = kinds_frame({"wrong_only": 50, "right_only": 50}, {})
    with pytest.raises(MonotonicityError, match="50 right_only instance.*drop assumption="):
        bound(kinds=with_right_only, model=MODEL, assumption="monotone")
    with pytest.raises(ValidationError, match="assumption"):
        bound(kinds=THESIS_KINDS, model=MODEL, assumption="independent")
    # a network check saying "not monotone" does not matter: the kinds bound assumes nothing
    check = cc.MonotonicityCheck("m", "s", False, {"m1": "N"}, 2)
    assert bound(kinds=with_right_only, model=MODEL, monotonicity=check).worst_cost == 100.0


@pytest.mark.parametrize(("kinds", "error", "match"), [
    (THESIS_KINDS.drop(columns="right_only"), ValidationError, r"missing \['right_only'\]"),
    (THESIS_KINDS.assign(sometimes=0), ValidationError, r"unknown \['sometimes'\]"),
    (THESIS_KINDS.rename(index={"N": "X"}), ValidationError, "rows 'P' and 'N'"),
    (THESIS_KINDS.astype(float) + 0.5, CountError, "must be an integer count"),
    (THESIS_KINDS.replace(0, -1), CountError, "must be"),
    (THESIS_KINDS.astype(object).replace(0, "x"), InputTypeError, "must be a real number"),
    ([[0, 50, 50, 0], [0, 0, 0, 0]], InputTypeError, "pandas DataFrame"),
    ({"P": {"wrong_only": 50}}, ValidationError, "rows 'P' and 'N'"),
])
def test_bad_kinds(kinds: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        bound(kinds=kinds, model=MODEL)


def test_kinds_as_mapping_and_fractional_model() -> None:
    mapping = {"P": {"never": 0, "wrong_only": 50, "always": 50, "right_only": 0},
               "N": {"never": 0, "wrong_only": 0, "always": 0, "right_only": 0}}
    assert bound(kinds=mapping, model=MODEL).worst_cost == 100.0
    with pytest.raises(CountError, match="model must hold integer counts"):
        bound(kinds=kinds_frame({"always": 1}, {}), model=cc.Confusion(0.5, 0.5, 0, 0))


def test_huge_kind_counts_are_exact() -> None:
    # 2**60 + 1 positives, 1 right_only and the rest wrong_only; model: 1 hit. Worst places the
    # hit on right_only: every positive fails; best on wrong_only: 2**60 - 1 fail
    big = 2**60 + 1
    frame = kinds_frame({"wrong_only": big - 1, "right_only": 1}, {})
    b = bound(kinds=frame, model=cc.Confusion(1, big - 1, 0, 0))
    assert b.worst.fn == big and b.worst.tp == 0
    assert b.best.fn == big - 2 and b.best.tp == 2
    assert isinstance(b.worst.fn, int)  # stored exactly beyond 2**53
    with pytest.raises(CountError, match="above 2\\*\\*53"):
        bound_many(kinds=frame, models=np.array([[1, big - 1, 0, 0]], dtype=object))
