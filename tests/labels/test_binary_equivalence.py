"""K = 2 through the K-label path equals the binary functions (labels ordered P, N).

Orientation: label 0 = P, 1 = N. ``Confusion(tp, fn, fp, tn)`` is the 2 x 2 matrix
``[[tp, fn], [fp, tn]]`` (rows true class, columns predicted / output); the forced run with
the slot forced to P is ``F[0]``, to N ``F[1]``; ``CostMatrix(tp, fn, fp, tn)`` is
``[[tp, fn], [fp, tn]]``. Oracle vectors: thesis §3.3 and the slides' positive-class example
(the numbers tests/pricing/test_bounds.py checks), then hypothesis cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.confusion import Confusion, CostMatrix
from causalcost.inference.table import ErrorRates
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.bounds import bound, bound_from_rates
from causalcost.pricing.costs import evaluate_costs
from causalcost.pricing.general import general_bound
from causalcost.pricing.kinds import KINDS, kinds_frame

#: Binary kind -> response vector (output forced to P, output forced to N) per class.
VECTOR = {0: {"never": (0, 0), "wrong_only": (0, 1), "always": (1, 1), "right_only": (1, 0)},
          1: {"never": (1, 1), "wrong_only": (0, 1), "always": (0, 0), "right_only": (1, 0)}}


def m2(c: Confusion) -> list[list[float]]:
    return [[c.tp, c.fn], [c.fp, c.tn]]


def k2(forced_p: Confusion, forced_n: Confusion, model: Confusion, costs: CostMatrix,
       **kw: object) -> Bound:
    forced = np.array([m2(forced_p), m2(forced_n)], dtype=object)
    forced = np.vectorize(int, otypes=[object])(forced)
    model_arr = np.vectorize(int, otypes=[object])(np.array(m2(model), dtype=object))
    return general_bound(forced, model_arr, np.array(m2(costs), dtype=float),
                               same_instances=True, **kw)


def assert_same(b: object, m: Bound, costs: CostMatrix) -> None:
    assert m.worst_cost == pytest.approx(b.worst_cost, rel=1e-12, abs=1e-12)
    assert m.best_cost == pytest.approx(b.best_cost, rel=1e-12, abs=1e-12)
    assert m.expected_cost == pytest.approx(b.expected_cost, rel=1e-12, abs=1e-12)
    if costs.fn == costs.tp or costs.fp == costs.tn:
        return  # a row of equal costs: every confusion of that row is extreme, none is unique
    np.testing.assert_allclose(np.asarray(m.worst, float), m2(b.worst), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(m.best, float), m2(b.best), rtol=1e-12, atol=1e-12)


ORACLES = [
    # thesis §3.3: AND, 100 positives, forced P 50 FN, forced N 100 FN, model 50/50: worst 100
    (Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0)),
    # slides "Ejemplo Clase Positive": 8 positives, F_P(P)=1, F_P(N)=6, model 4 hits: FN 5..2
    (Confusion(7, 1, 0, 0), Confusion(2, 6, 0, 0), Confusion(4, 4, 0, 0)),
]


@pytest.mark.parametrize("assumption", ["monotone", "none"])
@pytest.mark.parametrize("inputs", ORACLES)
def test_oracle_vectors(inputs: tuple, assumption: str) -> None:
    costs = CostMatrix(fn=1, fp=1)
    b = bound(*inputs, costs, assumption=assumption)
    m = k2(*inputs, costs, assumption=assumption)
    assert_same(b, m, costs)


def test_thesis_numbers_through_k_labels() -> None:
    m = k2(*ORACLES[0], CostMatrix(fn=1, fp=1))
    assert (m.worst_cost, m.expected_cost) == (100.0, 75.0)
    s = k2(*ORACLES[1], CostMatrix(fn=1, fp=1), assumption="monotone")
    assert (s.worst[0][1], s.best[0][1]) == (5, 2)


@st.composite
def class_counts(draw: st.DrawFn, monotone: bool) -> tuple[int, int, int, int]:
    n = draw(st.integers(0, 12))
    fc = draw(st.integers(0, n))
    fw = draw(st.integers(fc if monotone else 0, n))
    return n, fc, fw, draw(st.integers(0, n))


# costs in normal floats: the K-label programs compare cost differences in float64 (HiGHS), so
# two costs that differ only below 2.2e-308 (subnormals) count as equal there (documented)
_cost = st.floats(0, 10, allow_subnormal=False)
costs_st = st.builds(
    lambda tp, dfn, tn, dfp: CostMatrix(tp=tp, fn=tp + dfn, fp=tn + dfp, tn=tn),
    _cost, _cost, _cost, _cost)


def count_inputs(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[Confusion, ...]:
    (n_p, fcp, fwp, tp), (n_n, fcn, fwn, tn) = p, q
    return (Confusion(n_p - fcp, fcp, fwn, n_n - fwn), Confusion(n_p - fwp, fwp, fcn, n_n - fcn),
            Confusion(tp, n_p - tp, n_n - tn, tn))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["monotone", "none"]), st.data(), costs_st)
def test_count_form_equals_binary_bound(assumption: str, data: st.DataObject,
                                        costs: CostMatrix) -> None:
    mono = assumption == "monotone"
    p, q = data.draw(class_counts(mono)), data.draw(class_counts(mono))
    inputs = count_inputs(p, q)
    assert_same(bound(*inputs, costs, assumption=assumption),
                k2(*inputs, costs, assumption=assumption), costs)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=8, max_size=8), st.integers(0, 100),
       st.integers(0, 100), costs_st)
def test_kinds_form_equals_binary_kinds_bound(counts: list[int], hit_p: int, hit_n: int,
                                              costs: CostMatrix) -> None:
    pos, neg = dict(zip(KINDS, counts[:4])), dict(zip(KINDS, counts[4:]))
    n_p, n_n = sum(counts[:4]), sum(counts[4:])
    tp, tn = hit_p % (n_p + 1), hit_n % (n_n + 1)
    model = Confusion(tp, n_p - tp, n_n - tn, tn)
    b = bound(kinds=kinds_frame(pos, neg), model=model, costs=costs)
    kinds = {(c, VECTOR[c][kind]): n for c, table in ((0, pos), (1, neg))
             for kind, n in table.items() if n}
    m = general_bound(model=np.array(m2(model), dtype=int).tolist(), costs=m2(costs),
                            kinds=kinds)
    assert m.worst_cost == pytest.approx(b.worst_cost, rel=1e-12, abs=1e-12)
    assert m.best_cost == pytest.approx(b.best_cost, rel=1e-12, abs=1e-12)


rate = st.floats(0, 1)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["monotone", "none"]), rate, rate, rate, rate,
       st.lists(st.integers(0, 50), min_size=4, max_size=4), costs_st)
def test_probability_form_equals_bound_from_rates(assumption: str, a: float, b_: float,
                                                  c: float, d: float, cells: list[int],
                                                  costs: CostMatrix) -> None:
    if assumption == "monotone":  # e_P(P) <= e_P(N) and e_N(N) <= e_N(P)
        a, b_ = min(a, b_), max(a, b_)
        d, c = min(c, d), max(c, d)
    rates = ErrorRates(a, b_, c, d)  # e_P(P), e_P(N), e_N(P), e_N(N)
    model = Confusion(*cells)
    ref = bound_from_rates(rates, model, costs, assumption=assumption)
    t = np.zeros((2, 2, 2))
    t[0, 0] = [1 - a, a]
    t[0, 1] = [1 - b_, b_]
    t[1, 0] = [c, 1 - c]
    t[1, 1] = [d, 1 - d]
    table = cc.MulticlassTable(("P", "N"), "slot", "exact", t)
    m = general_bound(table, m2(model), m2(costs), assumption=assumption)
    scale = 1 + abs(ref.worst_cost)
    # the monotone probability form is a linear program solved by HiGHS in floating point
    # (primal feasibility tolerance 1e-7 on the masses); the closed form is exact
    tol = (1e-7 * (1 + sum(cells)) * (1 + max(costs.fn, costs.fp)) if assumption == "monotone"
           else 1e-9 * scale)
    assert m.worst_cost == pytest.approx(ref.worst_cost, rel=1e-9, abs=tol)
    assert m.best_cost == pytest.approx(ref.best_cost, rel=1e-9, abs=tol)
    assert m.expected_cost == pytest.approx(ref.expected_cost, rel=1e-12, abs=1e-9 * scale)
    # cost functions 1 and 2 equal the binary ones
    cm = cc.model_cost_matrices(table, m2(costs))
    e1, e2 = cm.evaluate(m2(model))
    ev = evaluate_costs(rates, costs, model)
    assert e1 == pytest.approx(ev.eval1, rel=1e-12, abs=1e-12)
    assert e2 == pytest.approx(ev.eval2, rel=1e-12, abs=1e-12)
