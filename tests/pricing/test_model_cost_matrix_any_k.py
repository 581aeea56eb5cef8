"""One model cost matrix type for any K: the binary names are views at K = 2 (the same output
as the binary type had), K = 3 and 4 against an independent loop, the old K-label name warns."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import CostMatrixError, InputTypeError, NotBinaryError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.costs import error_transition_matrix, expected_cost_matrix
from causalcost.pricing.model_costs import ModelCostMatrix, model_cost_matrices

REL = 1e-12


def random_table(k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = rng.dirichlet(np.ones(k), size=(k, k))  # [c, j, s]
    costs = rng.uniform(0.5, 9, size=(k, k))
    np.fill_diagonal(costs, rng.uniform(0, 0.4, size=k))
    return t, costs


def loop_m1(t: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """M1[c, j] = sum_s T[c, j, s] C[c, s], one cell at a time."""
    k = len(costs)
    out = np.zeros((k, k))
    for c, j in itertools.product(range(k), range(k)):
        out[c, j] = sum(t[c, j, s] * costs[c, s] for s in range(k))
    return out


def test_binary_views_are_the_binary_type_as_it_was() -> None:
    m = ModelCostMatrix(1, 5, 0.2, 0, "expected")  # the dataclass's positional kind
    assert m == ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind="expected")
    assert m == ModelCostMatrix([[1, 5], [0.2, 0]], kind="expected")
    assert m.labels == ("P", "N") and m.k == 2
    assert repr(m) == "ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')"
    assert m.to_dict() == {"tp": 1.0, "fn": 5.0, "fp": 0.2, "tn": 0.0}
    assert m.cells() == (1.0, 5.0, 0.2, 0.0)
    assert m.evaluate(cc.Confusion(50, 50, 100, 100)) == 320.0
    assert m.evaluate([[50, 50], [100, 100]]) == 320.0
    assert hash(m) == hash(ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind="expected"))
    assert m != ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind="transition")
    named = m.with_labels(["sick", "well"])
    assert "labels=('sick', 'well')" in repr(named) and named.fn == 5.0
    # a binary confusion over other names is read positive first, as the binary type did
    assert named.evaluate(cc.Confusion(50, 50, 100, 100)) == 320.0


def test_the_sheet_derivation_gives_the_recorded_matrices() -> None:
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    assert repr(sheet.expected_cost_matrix) == (
        "ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')")
    assert repr(sheet.error_transition_matrix) == (
        "ModelCostMatrix(tp=0, fn=4, fp=0.2, tn=0, kind='transition')")


@settings(max_examples=80, deadline=None)
@given(rates=st.tuples(*[st.floats(0, 1)] * 4), fn=st.floats(0, 50), fp=st.floats(0, 50),
       tp=st.floats(0, 1), tn=st.floats(0, 1))
def test_k2_closed_forms_equal_the_general_route(rates: tuple, fn: float, fp: float,
                                                 tp: float, tn: float) -> None:
    costs = cc.CostMatrix(tp=tp, fn=tp + fn, fp=tn + fp, tn=tn)
    r = ErrorRates(*rates)
    t = np.zeros((2, 2, 2))  # T[c, j, s] from the rates: class P fails -> output N
    t[0, 0] = [1 - r.fn_forced_p, r.fn_forced_p]
    t[0, 1] = [1 - r.fn_forced_n, r.fn_forced_n]
    t[1, 0] = [r.fp_forced_p, 1 - r.fp_forced_p]
    t[1, 1] = [r.fp_forced_n, 1 - r.fp_forced_n]
    general = model_cost_matrices(t, costs.to_numpy())
    for fast, slow in ((expected_cost_matrix(r, costs), general.expected),
                       (error_transition_matrix(r, costs), general.transition)):
        np.testing.assert_allclose(fast.to_numpy(), slow.to_numpy(), rtol=REL, atol=1e-12)
        assert fast.kind == slow.kind and fast.labels == slow.labels == ("P", "N")


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("seed", [0, 1])
def test_k_labels_against_an_independent_loop(k: int, seed: int) -> None:
    t, costs = random_table(k, seed)
    labels = [f"l{i}" for i in range(k)]
    table = InterventionalTable.from_array(t, labels=labels, slot="m")
    m1 = expected_cost_matrix(table, costs)
    m2 = error_transition_matrix(table, costs)
    assert type(m1) is type(m2) is ModelCostMatrix and m1.labels == tuple(labels)
    np.testing.assert_allclose(m1.to_numpy(), loop_m1(t, costs), rtol=REL)
    want2 = loop_m1(t, costs) - np.diag(loop_m1(t, costs))[:, None]
    np.testing.assert_allclose(m2.to_numpy(), want2, rtol=REL, atol=1e-12)
    assert np.all(np.diag(m2.to_numpy()) == 0)
    # Eval1 of a candidate: instance by instance
    n = np.random.default_rng(seed + 7).integers(0, 20, size=(k, k))
    one_by_one = sum(loop_m1(t, costs)[c, j] for c in range(k) for j in range(k)
                     for _ in range(n[c, j]))
    assert m1.evaluate(n) == pytest.approx(one_by_one, rel=1e-12)
    confusion = cc.Confusion(n, labels=labels)
    assert m1.evaluate(confusion) == pytest.approx(one_by_one, rel=1e-12)
    # the same confusion with its labels in another order is matched by name
    assert m1.evaluate(confusion.reorder(labels[::-1])) == pytest.approx(one_by_one, rel=1e-12)
    pair = model_cost_matrices(table, costs)
    assert pair.evaluate(n) == (m1.evaluate(n), m2.evaluate(n))
    assert pair.expected == m1 and pair.transition == m2


def test_k_label_refusals_name_the_cell_and_the_fix() -> None:
    with pytest.raises(CostMatrixError, match=r"\(true '1', predicted '2'\) must be finite"):
        ModelCostMatrix([[0, 1, 1], [1, 0, math.inf], [1, 1, 0]], kind="expected")
    m = ModelCostMatrix(1 - np.eye(3), kind="transition", labels=["a", "b", "c"])
    with pytest.raises(NotBinaryError, match="to_numpy"):
        m.to_dict()
    with pytest.raises(ValidationError, match="labels are matched by name"):
        m.evaluate(cc.Confusion(np.ones((3, 3)), labels=["x", "y", "z"]))
    with pytest.raises(InputTypeError, match="model must be a Confusion"):
        m.evaluate([1, 2, 3])
    with pytest.raises(InputTypeError, match="needs kind="):
        ModelCostMatrix(np.eye(3))
    big = ModelCostMatrix([[1e308, 1e308], [0, 0]], kind="expected")
    with pytest.raises(cc.OverflowInputError, match="rescale"):
        big.evaluate(cc.Confusion(10, 10, 0, 0))
    assert "labels=('a', 'b', 'c'), kind='transition'" in repr(m)


def test_the_old_k_label_name_warns_and_is_the_one_type() -> None:
    with pytest.warns(DeprecationWarning, match="causalcost.ModelCostMatrix"):
        assert cc.LabelCostMatrix is cc.ModelCostMatrix
