"""Tests of the worst / best case (causalcost.pricing.bounds).

Sources of expected numbers: thesis §3.3 (seeds/002_c815aea2daaf5faa.txt: AND, 50 % model 1,
cost 75 vs real 100), the slides' four "Ejemplo Clase Positive" tables
(seeds/000_4cd118d3ea9d45ad.txt: 8 positives, F_P(P)=1, F_P(N)=6, model 4 hits / 4 mistakes,
system FN 5, 4, 3, 2), and an exhaustive search over per-instance behaviours (the slides'
"problema de búsqueda"), which is the ground truth for the closed forms of design/METHOD.md.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from functools import cache
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import (
    CostMatrixError,
    CountError,
    InfeasibleInputError,
    MonotonicityError,
    ValidationError,
)
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.bounds import (
    KINDS,
    Bound,
    ClassWitness,
    Witness,
    best_case_confusion,
    bound,
    bound_from_rates,
    bound_many,
    bound_many_from_rates,
    worst_case_confusion,
)
from causalcost.pricing.costs import evaluate_costs, expected_system_confusion

MAX_N = 7
ALLOWED = {"monotone": ("never", "wrong_only", "always"), "none": KINDS}
# (fails with the slot forced to the correct class, fails forced to the wrong class)
BEHAVIOUR = {"never": (0, 0), "wrong_only": (0, 1), "always": (1, 1), "right_only": (1, 0)}


# ------------------------------------------------------------------------- brute force
def _compositions(n: int, parts: int):
    for cuts in itertools.combinations(range(n + parts - 1), parts - 1):
        edges = (-1, *cuts, n + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


@cache
def search(assumption: str) -> dict[tuple[int, int, int, int], dict]:
    """Every multiset of instance kinds x every placement of the model's hits, per class.

    Key (n, fc, fw, nc); value: the set of reachable system error counts and the set of
    (kind counts, hits per kind) configurations. Counting kinds and hits per kind instead of
    labelled instances loses nothing: errors depend only on those numbers
    (test_kind_counts_equal_labelled_instances checks it).
    """
    kinds = ALLOWED[assumption]
    out: dict = defaultdict(lambda: {"errors": set(), "configs": set()})
    for n in range(MAX_N + 1):
        for counts in _compositions(n, len(kinds)):
            fc = sum(c for k, c in zip(kinds, counts, strict=True) if BEHAVIOUR[k][0])
            fw = sum(c for k, c in zip(kinds, counts, strict=True) if BEHAVIOUR[k][1])
            for hits in itertools.product(*(range(c + 1) for c in counts)):
                errors = sum(h * BEHAVIOUR[k][0] + (c - h) * BEHAVIOUR[k][1]
                             for k, c, h in zip(kinds, counts, hits, strict=True))
                entry = out[(n, fc, fw, sum(hits))]
                entry["errors"].add(errors)
                entry["configs"].add((counts, hits))
    return dict(out)


def _labelled_search(n: int, assumption: str) -> dict[tuple[int, int, int], set[int]]:
    out: dict = defaultdict(set)
    for kinds in itertools.product(ALLOWED[assumption], repeat=n):
        fc = sum(BEHAVIOUR[k][0] for k in kinds)
        fw = sum(BEHAVIOUR[k][1] for k in kinds)
        for hit in itertools.product((0, 1), repeat=n):
            errors = sum(BEHAVIOUR[k][0] if h else BEHAVIOUR[k][1]
                         for k, h in zip(kinds, hit, strict=True))
            out[(fc, fw, sum(hit))].add(errors)
    return dict(out)


def positive_inputs(n: int, fc: int, fw: int, nc: int) -> tuple[Confusion, Confusion, Confusion]:
    """Count-form inputs with only positives: F_P(P)=fc, F_P(N)=fw, tp=nc."""
    return (Confusion(n - fc, fc, 0, 0), Confusion(n - fw, fw, 0, 0), Confusion(nc, n - nc, 0, 0))


def negative_inputs(n: int, fc: int, fw: int, nc: int) -> tuple[Confusion, Confusion, Confusion]:
    """Count-form inputs with only negatives: F_N(N)=fc, F_N(P)=fw, tn=nc."""
    return (Confusion(0, 0, fw, n - fw), Confusion(0, 0, fc, n - fc), Confusion(0, 0, n - nc, nc))


def assert_witness(cw: ClassWitness, fc: float, fw: float, nc: float, nw: float,
                   errors: float, tol: float = 0.0) -> None:
    def close(a: float, b: float) -> bool:
        return abs(a - b) <= tol * (1 + abs(b))

    assert close(cw.fails_forced_correct, fc), (cw, fc)
    assert close(cw.fails_forced_wrong, fw), (cw, fw)
    assert close(cw.hits, nc) and close(cw.mistakes, nw), (cw, nc, nw)
    assert close(cw.errors, errors), (cw, errors)
    assert all(v >= 0 for k in KINDS for v in getattr(cw, k))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("assumption", ["monotone", "none"])
def test_kind_counts_equal_labelled_instances(n: int, assumption: str) -> None:
    # the reduction used by search(): same reachable errors as labelled instances
    labelled = _labelled_search(n, assumption)
    counted = {k[1:]: v["errors"] for k, v in search(assumption).items() if k[0] == n}
    assert labelled == counted


@pytest.mark.parametrize("assumption", ["monotone", "none"])
def test_search_covers_every_consistent_input(assumption: str) -> None:
    keys = set(search(assumption))
    for n in range(MAX_N + 1):
        for fc, fw, nc in itertools.product(range(n + 1), repeat=3):
            consistent = assumption == "none" or fc <= fw
            assert ((n, fc, fw, nc) in keys) == consistent, (n, fc, fw, nc)


@pytest.mark.parametrize("assumption", ["monotone", "none"])
@pytest.mark.parametrize("cls", ["positives", "negatives"])
def test_closed_forms_equal_exhaustive_search(assumption: str, cls: str) -> None:
    make = positive_inputs if cls == "positives" else negative_inputs
    for (n, fc, fw, nc), entry in search(assumption).items():
        nw = n - nc
        reachable = entry["errors"]
        lo, hi = min(reachable), max(reachable)
        # every integer between best and worst occurs
        assert reachable == set(range(lo, hi + 1)), (n, fc, fw, nc)
        # the closed forms of METHOD.md, written out independently of the package
        if assumption == "monotone":
            assert hi == min(nc, fc) + min(nw, fw - min(nc, fc)) == min(fw, fc + nw)
            assert lo == max(fc, fw - nc)
        else:
            assert hi == min(fc, nc) + min(fw, nw)
            assert lo == max(0, fc - nw) + max(0, fw - nc)
        b = bound(*make(n, fc, fw, nc), assumption=assumption)
        errors = (b.worst.fn, b.best.fn) if cls == "positives" else (b.worst.fp, b.best.fp)
        assert errors == (hi, lo), (n, fc, fw, nc)
        assert b.worst_cost == hi and b.best_cost == lo  # unit costs count errors
        for wit, target in ((b.worst_witness, hi), (b.best_witness, lo)):
            cw = getattr(wit, cls)
            assert_witness(cw, fc, fw, nc, nw, target)
            other = wit.negatives if cls == "positives" else wit.positives
            assert other.size == 0
            kinds = ALLOWED[assumption]
            values = [v for k in KINDS for v in getattr(cw, k)]
            assert all(float(v).is_integer() for v in values), cw
            config = (tuple(int(sum(getattr(cw, k))) for k in kinds),
                      tuple(int(getattr(cw, k)[0]) for k in kinds))
            assert config in entry["configs"], (config, n, fc, fw, nc)


def test_none_contains_monotone() -> None:
    mono, free = search("monotone"), search("none")
    for key, entry in mono.items():
        assert entry["errors"] <= free[key]["errors"], key


@settings(max_examples=150, deadline=None)
@given(data=st.data(), costs=st.builds(
    lambda tp, dfn, tn, dfp: CostMatrix(tp=tp, fn=tp + dfn, fp=tn + dfp, tn=tn),
    st.integers(0, 5), st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)))
def test_worst_cost_is_max_over_search_with_general_costs(data: st.DataObject,
                                                          costs: CostMatrix) -> None:
    assumption = data.draw(st.sampled_from(["monotone", "none"]))
    table = search(assumption)
    keys = sorted(table)
    kp = data.draw(st.sampled_from(keys))
    kn = data.draw(st.sampled_from(keys))
    (n_p, fcp, fwp, tp), (n_n, fcn, fwn, tn) = kp, kn
    forced_p = Confusion(n_p - fcp, fcp, fwn, n_n - fwn)
    forced_n = Confusion(n_p - fwp, fwp, fcn, n_n - fcn)
    model = Confusion(tp, n_p - tp, n_n - tn, tn)
    b = bound(forced_p, forced_n, model, costs, assumption=assumption)
    all_costs = [Confusion(n_p - ep, ep, en, n_n - en).cost(costs)
                 for ep in table[kp]["errors"] for en in table[kn]["errors"]]
    assert b.worst_cost == max(all_costs)
    assert b.best_cost == min(all_costs)


# ------------------------------------------------------------------------ worked examples
def test_thesis_3_3_worst_case_is_100() -> None:
    # thesis §3.3: AND, model 1 50 % on 100 positives -> forced_p 50 FN, forced_n 100 FN;
    # slot model 50 %; cost function 1 says 75, the real system can reach 100
    forced_p, forced_n = Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0)
    model = Confusion(tp=50, fn=50, fp=0, tn=0)
    b = bound(forced_p, forced_n, model, CostMatrix(fn=1, fp=1))
    assert b.expected_cost == 75.0
    assert b.worst_cost == 100.0
    assert b.worst == Confusion(tp=0, fn=100, fp=0, tn=0)
    assert b.expected == Confusion(tp=25, fn=75, fp=0, tn=0)
    # probability form with e_P(P)=0.5, e_P(N)=1 gives the same numbers
    r = bound_from_rates(ErrorRates(0.5, 1.0, 0.0, 0.0), model, CostMatrix(fn=1, fp=1))
    assert (r.worst_cost, r.expected_cost, r.form) == (100.0, 75.0, "probability")


def test_slides_example_positive_class() -> None:
    # slides "Ejemplo Clase Positive 1-4": 8 positives, F_P(P)=1, F_P(N)=6, model 4/4;
    # the four examples reach 5, 4, 3, 2 system FN; 5 is the worst, 2 the best
    b = bound(*positive_inputs(8, 1, 6, 4))
    assert (b.worst.fn, b.best.fn) == (5.0, 2.0)
    # slides example 1 is such a worst case: instances 1, 3 (no X) and 4 (double X) are hits,
    # 2 (single X) is a hit, 5-8 (single X) are mistakes
    w = b.worst_witness.positives
    assert (w.never, w.wrong_only, w.always) == ((2.0, 0.0), (1.0, 4.0), (1.0, 0.0))


def test_worst_and_best_case_confusion_helpers() -> None:
    args = positive_inputs(8, 1, 6, 4)  # slides example
    assert worst_case_confusion(*args) == Confusion(3, 5, 0, 0)
    assert best_case_confusion(*args) == Confusion(6, 2, 0, 0)
    assert worst_case_confusion(*args, assumption="none") == Confusion(3, 5, 0, 0)
    # none: best = max(0, 1 - 4) + max(0, 6 - 4) = 2
    assert best_case_confusion(*args, assumption="none") == Confusion(6, 2, 0, 0)


def test_cost_function_2_is_not_a_bound() -> None:
    # METHOD.md: cost function 1 lies between the bounds, cost function 2 need not.
    # thesis §4 example 1 (AND, fn=5, fp=1): Eval1 = 320, Eval2 = 220; best case =
    # 5 x max(20, 100 - 50) + 1 x max(0, 40 - 100) = 250, worst = 5 x 70 + 1 x 40 = 390
    rates, costs = ErrorRates(0.2, 1.0, 0.2, 0.0), CostMatrix(fn=5, fp=1)
    model = Confusion(50, 50, 100, 100)
    b = bound_from_rates(rates, model, costs)
    ev = evaluate_costs(rates, costs, model)
    assert b.best_cost == pytest.approx(250.0, rel=1e-12)
    assert b.worst_cost == pytest.approx(390.0, rel=1e-12)
    assert b.best_cost <= ev.eval1 <= b.worst_cost
    assert ev.eval2 < b.best_cost


# ------------------------------------------------------------------------ hypothesis
@st.composite
def class_counts(draw: st.DrawFn, monotone: bool, max_n: int = 10**6) -> tuple[int, ...]:
    n = draw(st.integers(0, max_n))
    fc = draw(st.integers(0, n))
    fw = draw(st.integers(fc if monotone else 0, n))
    return n, fc, fw, draw(st.integers(0, n))


def count_inputs(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[Confusion, Confusion, Confusion]:
    (n_p, fcp, fwp, tp), (n_n, fcn, fwn, tn) = p, q
    return (Confusion(n_p - fcp, fcp, fwn, n_n - fwn), Confusion(n_p - fwp, fwp, fcn, n_n - fcn),
            Confusion(tp, n_p - tp, n_n - tn, tn))


costs_st = st.builds(
    lambda tp, dfn, tn, dfp: CostMatrix(tp=tp, fn=tp + dfn, fp=tn + dfp, tn=tn),
    st.floats(0, 10), st.floats(0, 10), st.floats(0, 10), st.floats(0, 10))


@st.composite
def problems(draw: st.DrawFn) -> tuple[str, tuple[int, ...], tuple[int, ...], CostMatrix]:
    assumption = draw(st.sampled_from(["monotone", "none"]))
    mono = assumption == "monotone"
    return assumption, draw(class_counts(mono)), draw(class_counts(mono)), draw(costs_st)


def _errors(b: Bound) -> tuple[float, float, float, float]:
    return b.worst.fn, b.worst.fp, b.best.fn, b.best.fp


@settings(max_examples=300, deadline=None)
@given(problems())
def test_expected_between_best_and_worst(problem: tuple) -> None:
    assumption, p, q, costs = problem
    forced_p, forced_n, model = count_inputs(p, q)
    b = bound(forced_p, forced_n, model, costs, assumption=assumption)
    tol = 1e-9 * (1 + b.worst_cost)
    # cost function 1 in the probability form with the matching rates F / n
    if model.positives and model.negatives:
        rates = ErrorRates.from_forced(forced_p, forced_n)
        eval1 = evaluate_costs(rates, costs, model).eval1
        assert eval1 == pytest.approx(b.expected_cost, rel=1e-9, abs=1e-9)
        assert b.expected == expected_system_confusion(rates, model)
    assert b.best_cost - tol <= b.expected_cost <= b.worst_cost + tol
    assert b.best.fn - 1e-9 <= b.expected.fn <= b.worst.fn + 1e-9
    assert b.best.fp - 1e-9 <= b.expected.fp <= b.worst.fp + 1e-9
    assert b.worst_cost == pytest.approx(b.worst.cost(costs), rel=1e-12)
    assert b.best_cost == pytest.approx(b.best.cost(costs), rel=1e-12)
    for wit, conf in ((b.worst_witness, b.worst), (b.best_witness, b.best)):
        assert wit.system_confusion() == conf
        assert_witness(wit.positives, p[1], p[2], p[3], p[0] - p[3], conf.fn)
        assert_witness(wit.negatives, q[1], q[2], q[3], q[0] - q[3], conf.fp)
    if assumption == "monotone":  # dropping the assumption can only widen the interval
        free = bound(forced_p, forced_n, model, costs, assumption="none")
        assert free.worst.fn >= b.worst.fn and free.worst.fp >= b.worst.fp
        assert free.best.fn <= b.best.fn and free.best.fp <= b.best.fp
        assert free.worst_cost >= b.worst_cost - tol and free.best_cost <= b.best_cost + tol


@settings(max_examples=300, deadline=None)
@given(problems(), st.sampled_from(["fc", "fw"]), st.sampled_from([0, 1]))
def test_bounds_monotone_in_forced_failures(problem: tuple, which: str, cls: int) -> None:
    assumption, p, q, costs = problem
    n, fc, fw, nc = (p, q)[cls]
    if which == "fw" and fw < n:
        bigger = (n, fc, fw + 1, nc)
    elif which == "fc" and fc < (fw if assumption == "monotone" else n):
        bigger = (n, fc + 1, fw, nc)
    else:
        return
    args = (bigger, q) if cls == 0 else (p, bigger)
    before = bound(*count_inputs(p, q), costs, assumption=assumption)
    after = bound(*count_inputs(*args), costs, assumption=assumption)
    assert all(a >= b for a, b in zip(_errors(after), _errors(before), strict=True))
    tol = 1e-9 * (1 + before.worst_cost)  # equal costs of hit and mistake: rounding only
    assert after.worst_cost >= before.worst_cost - tol
    assert after.best_cost >= before.best_cost - tol


@settings(max_examples=100, deadline=None)
@given(problem=problems(), hits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
                                         min_size=1, max_size=6))
def test_bound_many_matches_bound(problem: tuple, hits: list) -> None:
    assumption, p, q, costs = problem
    forced_p, forced_n, _ = count_inputs(p, q)
    models = [Confusion(min(tp, p[0]), p[0] - min(tp, p[0]), q[0] - min(tn, q[0]), min(tn, q[0]))
              for tp, tn in hits]
    frame = bound_many(forced_p, forced_n, np.array([m.cells() for m in models]), costs,
                       assumption=assumption)
    assert len(frame) == len(models)
    for i, model in enumerate(models):
        b = bound(forced_p, forced_n, model, costs, assumption=assumption)
        row = frame.iloc[i]
        for case in ("worst", "expected", "best"):
            conf = getattr(b, case)
            assert [row[f"{case}_{c}"] for c in ("tp", "fn", "fp", "tn")] == list(conf.cells())
            assert row[f"{case}_cost"] == pytest.approx(getattr(b, f"{case}_cost"),
                                                        rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(rates=st.builds(ErrorRates, *(st.floats(0, 1) for _ in range(4))),
       models=st.lists(st.tuples(*(st.floats(0, 1e6) for _ in range(4))), min_size=1,
                       max_size=4),
       costs=costs_st)
def test_probability_form(rates: ErrorRates, models: list, costs: CostMatrix) -> None:
    assumption = "monotone" if rates.is_monotone else "none"
    frame = bound_many_from_rates(rates, np.array(models), costs, assumption=assumption)
    for i, cells in enumerate(models):
        model = Confusion(*cells)
        b = bound_from_rates(rates, model, costs, assumption=assumption)
        ev = evaluate_costs(rates, costs, model)
        tol = 1e-9 * (1 + ev.eval1)
        assert b.expected_cost == pytest.approx(ev.eval1, rel=1e-12, abs=1e-12)
        assert b.best_cost - tol <= b.expected_cost <= b.worst_cost + tol
        row = frame.iloc[i]
        for case in ("worst", "expected", "best"):
            assert row[f"{case}_cost"] == pytest.approx(getattr(b, f"{case}_cost"),
                                                        rel=1e-9, abs=1e-9)
            assert row[f"{case}_fn"] == getattr(b, case).fn
        fails = (rates.fn_forced_p * model.positives, rates.fn_forced_n * model.positives,
                 rates.fp_forced_n * model.negatives, rates.fp_forced_p * model.negatives)
        for wit, conf in ((b.worst_witness, b.worst), (b.best_witness, b.best)):
            assert_witness(wit.positives, fails[0], fails[1], model.tp, model.fn, conf.fn, 1e-9)
            assert_witness(wit.negatives, fails[2], fails[3], model.tn, model.fp, conf.fp, 1e-9)


def test_interventional_table_is_accepted() -> None:
    # the AND table of thesis §4 example 1 written as P(Conf | Class, do(slot))
    probs = np.zeros((2, 2, 4))
    probs[0, 0, :2] = (0.8, 0.2)   # class P, do(P): TP .8, FN .2
    probs[0, 1, :2] = (0.0, 1.0)   # class P, do(N): FN 1
    probs[1, 0, 2:] = (0.2, 0.8)   # class N, do(P): FP .2
    probs[1, 1, 2:] = (0.0, 1.0)   # class N, do(N): TN 1
    table = InterventionalTable(slot="M2", method="exact", probabilities=probs)
    model = Confusion(50, 50, 100, 100)
    b = bound_from_rates(table, model, CostMatrix(fn=5, fp=1))
    assert b.expected_cost == pytest.approx(320.0, rel=1e-12)  # thesis §4 example 1
    frame = bound_many_from_rates(table, [model.cells()], CostMatrix(fn=5, fp=1))
    assert frame["expected_cost"].iloc[0] == pytest.approx(320.0, rel=1e-12)


# ------------------------------------------------------------------------- result views
def test_bound_views() -> None:
    b = bound(Confusion(50, 50, 80, 120), Confusion(0, 100, 30, 170), Confusion(50, 50, 60, 140),
              CostMatrix(fn=5, fp=1))
    d = b.to_dict()
    json.dumps(d)
    assert {"assumption", "worst", "best", "expected"} <= set(d)
    assert d["assumption"] == "monotone" and d["form"] == "counts"
    for case in ("worst", "best", "expected"):
        assert list(d[case]) == ["tp", "fn", "fp", "tn", "cost"]
    # P: worst min(100, 50 + 50) = 100, best max(50, 100 - 50) = 50;
    # N: worst min(80, 30 + 60) = 80, best max(30, 80 - 140) = 30 (closed forms, METHOD.md)
    assert d["worst"] == {"tp": 0.0, "fn": 100.0, "fp": 80.0, "tn": 120.0, "cost": 580.0}
    assert d["best"] == {"tp": 50.0, "fn": 50.0, "fp": 30.0, "tn": 170.0, "cost": 280.0}
    frame = b.to_frame()
    assert list(frame.index) == ["worst", "expected", "best"]
    assert list(frame.columns) == ["tp", "fn", "fp", "tn", "cost"]
    assert frame.loc["worst", "cost"] == 580.0
    text = str(b)
    assert "assumption 'monotone'" in text and "worst" in text and "580" in text
    assert "no assumption" in str(bound(Confusion(50, 50, 80, 120), Confusion(0, 100, 30, 170),
                                        Confusion(50, 50, 60, 140), assumption="none"))
    assert repr(b).startswith("Bound(assumption='monotone', form='counts', worst_cost=580")
    assert "<table" in b._repr_html_()
    w = b.worst_witness
    wf = w.to_frame()
    assert list(wf.columns) == ["hits", "mistakes", "system_errors"]
    assert wf["system_errors"].xs("P").sum() == 100.0 and wf["system_errors"].xs("N").sum() == 80
    assert "right_only" not in wf.index.get_level_values("kind")
    assert set(w.to_dict()["positives"]) == {"never", "wrong_only", "always"}
    assert repr(w).startswith("Witness(assumption='monotone', positives=ClassWitness(")
    free = bound(Confusion(50, 50, 80, 120), Confusion(0, 100, 30, 170),
                 Confusion(50, 50, 60, 140), assumption="none")
    assert "right_only" in free.worst_witness.to_frame().index.get_level_values("kind")


def test_bound_many_frame_layout() -> None:
    frame = bound_many(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
                       np.array([[50, 50, 0, 0]]))
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == [f"{c}_{k}" for c in ("worst", "expected", "best")
                                   for k in ("tp", "fn", "fp", "tn", "cost")]
    # thesis §3.3: 100 / 75 / 50
    assert frame.loc[0, ["worst_cost", "expected_cost", "best_cost"]].tolist() == [100, 75, 50]


# ---------------------------------------------------------------------------- bad input
THESIS = (Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))


def test_negative_counts_rejected() -> None:
    with pytest.raises(CountError, match="confusion cell fn must be >= 0"):
        bound(Confusion(50, -50, 0, 0), *THESIS[1:])
    with pytest.raises(CountError, match=r"models row 1 \[60.0, -10.0, 0.0, 0.0\]: counts must be "
                                         r"finite and >= 0; 1 bad row"):
        bound_many(*THESIS[:2], np.array([[50, 50, 0, 0], [60, -10, 0, 0]]))


def test_fractional_counts_rejected_in_count_form() -> None:
    with pytest.raises(CountError, match=r"model must hold integer counts.*tp=49.5, fn=50.5.*"
                                         r"bound_from_rates"):
        bound(*THESIS[:2], Confusion(49.5, 50.5, 0, 0))
    with pytest.raises(CountError, match=r"forced_n must hold integer counts"):
        bound(THESIS[0], Confusion(0.5, 99.5, 0, 0), THESIS[2])
    with pytest.raises(CountError, match=r"models row 2 .*integer counts"):
        bound_many(*THESIS[:2], [[50, 50, 0, 0], [40, 60, 0, 0], [0.5, 99.5, 0, 0]])


def test_totals_that_disagree_rejected() -> None:
    with pytest.raises(InfeasibleInputError, match=r"class totals disagree: forced_p has 100 "
                       r"positives and 0 negatives; forced_n has 100 positives and 0 negatives; "
                       r"model has 90 positives"):
        bound(*THESIS[:2], Confusion(40, 50, 0, 0))
    with pytest.raises(InfeasibleInputError, match="forced_n has 100 positives and 5 negatives"):
        bound(THESIS[0], Confusion(0, 100, 0, 5), THESIS[2])
    with pytest.raises(InfeasibleInputError, match=r"models row 1 .* has 90 positives.*count 100"):
        bound_many(*THESIS[:2], [[50, 50, 0, 0], [40, 50, 0, 0]])


def test_fc_above_fw_rejected_under_monotone() -> None:
    forced_p, forced_n = Confusion(40, 60, 0, 0), Confusion(50, 50, 0, 0)
    model = Confusion(50, 50, 0, 0)
    with pytest.raises(InfeasibleInputError, match=r"\(positives: F_P\(P\)=60 > F_P\(N\)=50\): "
                       r"the system is not monotone in the slot; use assumption='none'"):
        bound(forced_p, forced_n, model)
    with pytest.raises(InfeasibleInputError, match=r"positives: F_P\(P\)=60 > F_P\(N\)=50"):
        bound_many(forced_p, forced_n, [model.cells()])
    # the same input is fine without the assumption: worst = min(60, 50) + min(50, 50) = 100
    assert bound(forced_p, forced_n, model, assumption="none").worst.fn == 100
    with pytest.raises(InfeasibleInputError, match=r"negatives: F_N\(N\)=7 > F_N\(P\)=3"):
        bound(Confusion(0, 0, 3, 7), Confusion(0, 0, 7, 3), Confusion(0, 0, 5, 5))
    with pytest.raises(InfeasibleInputError, match=r"positives: e_P\(P\)=0.6 > e_P\(N\)=0.5"):
        bound_from_rates(ErrorRates(0.6, 0.5, 0.0, 0.0), model)
    with pytest.raises(InfeasibleInputError, match=r"negatives: e_N\(N\)=0.4 > e_N\(P\)=0.1"):
        bound_many_from_rates(ErrorRates(0.0, 0.5, 0.1, 0.4), [model.cells()])


def test_rates_outside_unit_interval_rejected() -> None:
    with pytest.raises(ValidationError, match=r"fn_forced_n must be a probability in \[0, 1\]"):
        bound_from_rates(ErrorRates(0.5, 1.5, 0.0, 0.0), THESIS[2])


def test_cost_matrix_where_a_hit_costs_more_rejected() -> None:
    with pytest.raises(CostMatrixError, match="cost tp=3 exceeds cost fn=1"):
        bound(*THESIS, CostMatrix(tp=3, fn=1, fp=1))


def test_unknown_assumption_rejected() -> None:
    for call in (lambda: bound(*THESIS, assumption="independent"),
                 lambda: bound_from_rates(ErrorRates(0.5, 1, 0, 0), THESIS[2], assumption="x"),
                 lambda: bound_many(*THESIS[:2], [THESIS[2].cells()], assumption="Monotone")):
        with pytest.raises(ValidationError, match=r"assumption \('.*'\) must be one of "
                                                  r"'monotone' or 'none'"):
            call()


def test_monotonicity_object_saying_not_monotone() -> None:
    check = SimpleNamespace(is_monotone=False, violation={"Pred_M1": "N", "Difficulty": "hard"})
    with pytest.raises(MonotonicityError, match=r"not monotone in the slot \(violated with "
                       r"Pred_M1=N, Difficulty=hard\).*pass assumption='none'"):
        bound(*THESIS, monotonicity=check)
    with pytest.raises(MonotonicityError, match="pass assumption='none'"):
        bound_from_rates(ErrorRates(0.5, 1, 0, 0), THESIS[2], monotonicity=check)
    with pytest.raises(MonotonicityError, match="pass assumption='none'"):
        bound_many(*THESIS[:2], [THESIS[2].cells()], monotonicity=check)
    # with no assumption the check is irrelevant; a monotone verdict is accepted
    assert bound(*THESIS, assumption="none", monotonicity=check).assumption == "none"
    ok = SimpleNamespace(is_monotone=True, violation=None)
    assert bound(*THESIS, monotonicity=ok).worst_cost == 100.0  # thesis §3.3
    with pytest.raises(TypeError, match="attributes is_monotone and violation"):
        bound(*THESIS, monotonicity=object())


def test_bad_shapes_and_types() -> None:
    with pytest.raises(ValidationError, match=r"shape \(n, 4\).*got shape \(4,\)"):
        bound_many(*THESIS[:2], [50, 50, 0, 0])
    with pytest.raises(TypeError, match="forced_p must be Confusion"):
        bound((50, 50, 0, 0), *THESIS[1:])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rates must be ErrorRates"):
        bound_from_rates((0.5, 1, 0, 0), THESIS[2])  # type: ignore[arg-type]
    with pytest.raises(CountError, match="witness always must be"):
        ClassWitness(always=(-1, 0))
    with pytest.raises(ValidationError, match="monotone witness cannot hold 'right_only'"):
        Witness(ClassWitness(right_only=(1, 0)), ClassWitness(), assumption="monotone")
