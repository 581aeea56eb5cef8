"""One pricing for every K: the monotone rule per cost, refusals, overflow, many candidates.

Expected values come from an independent computation: the general route
(``general_bound``, linear programs) for the K = 2 closed forms, brute force over every
assignment of predictions to response vectors for small K = 3 systems.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import MonotonicityError, OverflowInputError, ValidationError
from causalcost.pricing.general import general_bound


def _brute(responses: list[tuple[int, tuple[int, ...]]], n_rows: np.ndarray,
           costs: np.ndarray) -> tuple[float, float]:
    """Worst and best cost over every assignment of predictions to the instances."""
    k = costs.shape[0]
    total_w, total_b = 0.0, 0.0
    for c in range(k):
        inst = [r for cc_, r in responses if cc_ == c]
        preds = [j for j in range(k) for _ in range(int(n_rows[c, j]))]
        values = {sum(costs[c, r[p]] for r, p in zip(inst, perm))
                  for perm in set(itertools.permutations(preds))}
        total_w += max(values, default=0.0)
        total_b += min(values, default=0.0)
    return total_w, total_b


def test_k2_monotone_rule_is_per_cost_in_both_routes() -> None:
    # class P fails only when the slot is right on 2 instances (right_only): not monotone for
    # errors, but with c_FN = c_TP = 0 the rule constrains nothing in class P
    forced = np.array([[[3, 2], [3, 2]], [[5, 0], [1, 4]]])  # F[j, c, s]
    model = np.array([[3, 2], [1, 4]])
    zero_fn = np.array([[0.0, 0.0], [1.0, 0.0]])
    closed = cc.bound(forced, model, zero_fn, same_instances=True, assumption="monotone")
    general = general_bound(forced, model, zero_fn, same_instances=True, assumption="monotone")
    assert (closed.worst_cost, closed.best_cost) == (general.worst_cost, general.best_cost)
    # positive costs: both routes refuse the same forced runs
    for route in (cc.bound, general_bound):
        with pytest.raises(cc.InfeasibleInputError):
            route(forced, model, 1 - np.eye(2), same_instances=True, assumption="monotone")


def test_costs_near_float_limit_are_refused_not_overflowed() -> None:
    forced = np.zeros((3, 3, 3), dtype=int)
    for j in range(3):
        forced[j, :, (j + 1) % 3] = 2
    big = np.full((3, 3), 1e308) - np.diag([1e308] * 3)
    for call in (lambda: cc.bound(forced, np.eye(3, dtype=int) * 2, big, same_instances=True),
                 lambda: cc.bound_many(forced, [np.eye(3, dtype=int) * 2], big,
                                       same_instances=True),
                 lambda: cc.model_cost_matrices(np.transpose(forced / 2, (1, 0, 2)), big)
                 .evaluate(np.eye(3) * 2)):
        with pytest.raises(OverflowInputError):
            call()


def test_false_monotone_assumption_is_refused() -> None:
    b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    for m in "abcd":
        _ = b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    system = b.set_fusioner("plurality").build(slot="d")
    costs = [[0, 1, 5], [1, 0, 1], [1, 1, 0]]
    with pytest.raises(MonotonicityError, match="not monotone"):
        cc.require_monotone(system, costs)
    check = cc.check_monotonicity(system, costs)
    forced = np.full((3, 3, 3), 2)
    with pytest.raises(MonotonicityError):
        cc.bound(forced, np.full((3, 3), 2), costs, assumption="monotone", monotonicity=check)
    assert cc.require_monotone(system, 1 - np.eye(3)).is_monotone


def test_bound_many_refuses_beyond_the_row_ceiling() -> None:
    huge = np.broadcast_to(np.array([1.0, 0.0, 0.0, 1.0]), (10**9, 4))
    with pytest.raises(ValidationError, match="split the candidates"):
        cc.bound_many(cc.Confusion(1, 0, 1, 0), cc.Confusion(0, 1, 0, 1), huge)


@pytest.mark.parametrize("seed", range(4))
def test_k3_bounds_against_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = 3
    costs = np.array([[0, 1, 3], [2, 0, 1], [1, 2, 0]], dtype=float)
    responses = []
    for c in range(k):
        order = np.argsort(costs[c], kind="stable")
        for _ in range(4):
            r0 = int(rng.integers(k))
            level = int(np.flatnonzero(order == r0)[0])
            r = [int(order[rng.integers(level, k)]) for _ in range(k)]
            r[c] = r0  # monotone: no forced label gives a cheaper output than the right one
            responses.append((c, tuple(r)))
    forced = np.zeros((k, k, k), dtype=int)
    for c, r in responses:
        for j in range(k):
            forced[j, c, r[j]] += 1
    cands = np.array([[rng.multinomial(4, np.ones(k) / k) for _ in range(k)] for _ in range(6)])
    many = cc.bound_many(forced, cands, costs, same_instances=True, assumption="monotone")
    for i, n in enumerate(cands):
        kinds = {}
        for c, r in responses:
            kinds[(c, r)] = kinds.get((c, r), 0) + 1
        exact_w, exact_b = _brute(responses, n, costs)
        one = cc.bound(forced, n, costs, same_instances=True, assumption="monotone")
        by_kinds = cc.bound(kinds=kinds, model=n.tolist(), costs=costs)
        assert (by_kinds.worst_cost, by_kinds.best_cost) == (exact_w, exact_b)
        # the monotone bound holds for the real (monotone) instances
        assert one.worst_cost >= exact_w - 1e-9 and one.best_cost <= exact_b + 1e-9
        assert many.loc[i, "worst_cost"] == pytest.approx(one.worst_cost, abs=1e-9)
        assert many.loc[i, "best_cost"] == pytest.approx(one.best_cost, abs=1e-9)


def test_deprecated_names_warn_and_name_the_replacement() -> None:
    for old, new in (("multiclass_bound", "bound"), ("MulticlassBound", "Bound"),
                     ("check_multiclass_monotonicity", "check_monotonicity"),
                     ("multiclass_high_confidence_bound", "high_confidence_bound")):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert getattr(cc, old) is getattr(cc, new)
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
                   for w in seen)


_counts = st.integers(0, 6)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), assumption=st.sampled_from(["none", "monotone"]),
       fn_extra=st.sampled_from([0.0, 0.5, 3.0]), fp_extra=st.sampled_from([0.0, 1.0, 2.0]),
       same=st.booleans())
def test_k2_closed_forms_equal_the_general_route(data: st.DataObject, assumption: str,
                                                 fn_extra: float, fp_extra: float,
                                                 same: bool) -> None:
    """Whatever K = 2 input: cc.bound (closed forms) and general_bound (programs) agree, or
    refuse alike; costs with a free mistake (c_FN = c_TP) included."""
    sizes = [data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6))]
    forced = np.zeros((2, 2, 2), dtype=int)
    for j in range(2):
        for c in range(2):
            fails = data.draw(st.integers(0, sizes[c]))
            forced[j, c, 1 - c], forced[j, c, c] = fails, sizes[c] - fails
    model = np.zeros((2, 2), dtype=int)
    for c in range(2):
        size = sizes[c] if same else data.draw(st.integers(0, 6))
        hits = data.draw(st.integers(0, size))
        model[c, c], model[c, 1 - c] = hits, size - hits
    costs = np.array([[0.5, 0.5 + fn_extra], [fp_extra, 0.0]])
    if not same and any(model[c].sum() and not forced[:, c].sum(axis=1).all()
                        for c in range(2)):
        return  # rates unknown: both routes refuse (checked elsewhere)
    results = []
    for route in (cc.bound, general_bound):
        try:
            results.append(route(forced, model, costs, same_instances=same,
                                 assumption=assumption))
        except cc.InfeasibleInputError:
            results.append(None)
    closed, general = results
    assert (closed is None) == (general is None)
    if closed is not None:
        assert closed.worst_cost == pytest.approx(general.worst_cost, rel=1e-9, abs=1e-9)
        assert closed.best_cost == pytest.approx(general.best_cost, rel=1e-9, abs=1e-9)
        assert closed.expected_cost == pytest.approx(general.expected_cost, rel=1e-9, abs=1e-9)
        many = cc.bound_many(forced, model[None], costs, same_instances=same,
                             assumption=assumption)
        assert many.loc[0, "worst_cost"] == pytest.approx(closed.worst_cost, abs=1e-9)


def _class_extremes(forced_c: np.ndarray, n_row: np.ndarray, cost_row: np.ndarray, c: int,
                    monotone: bool) -> tuple[float, float]:
    """Brute force for one class: every multiset of response vectors with these forced runs
    (monotone ones only, if asked), every assignment of the candidate's predictions."""
    k = len(cost_row)
    size = int(forced_c[0].sum())
    vectors = [r for r in itertools.product(range(k), repeat=k)
               if not monotone or all(cost_row[r[c]] <= cost_row[r[j]] for j in range(k))]
    preds = [j for j in range(k) for _ in range(int(n_row[j]))]
    values = []
    for group in itertools.combinations_with_replacement(vectors, size):
        marg = np.zeros((k, k), dtype=int)
        for r in group:
            for j in range(k):
                marg[j, r[j]] += 1
        if not np.array_equal(marg, forced_c):
            continue
        values += [sum(cost_row[r[p]] for r, p in zip(group, perm))
                   for perm in set(itertools.permutations(preds))]
    return max(values), min(values)


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("assumption", ["none", "monotone"])
def test_count_form_equals_brute_force_for_every_k(k: int, assumption: str) -> None:
    rng = np.random.default_rng(10 * k + (assumption == "monotone"))
    size = 2 if k == 4 else 3
    for _ in range(3):
        costs = np.round(rng.uniform(0.5, 3, (k, k)), 1)
        np.fill_diagonal(costs, 0.0)
        costs[0, 1] = costs[0, 0]  # a free mistake in class 0 (the rule says nothing there)
        forced = np.zeros((k, k, k), dtype=int)
        responses = []
        for c in range(k):
            for _ in range(size):
                r = [int(v) for v in rng.integers(k, size=k)]
                if assumption == "monotone":  # the right label gives the cheapest output
                    cheapest = min(r, key=lambda s: costs[c, s])
                    r[c] = cheapest
                responses.append((c, tuple(r)))
                for j in range(k):
                    forced[j, c, r[j]] += 1
        n = np.array([rng.multinomial(size, np.ones(k) / k) for _ in range(k)])
        got = cc.bound(forced, n, costs, same_instances=True, assumption=assumption)
        worst = best = 0.0
        for c in range(k):
            w, b = _class_extremes(forced[:, c, :], n[c], costs[c], c, assumption == "monotone")
            worst, best = worst + w, best + b
        assert got.worst_cost == pytest.approx(worst, abs=1e-9)
        assert got.best_cost == pytest.approx(best, abs=1e-9)
        kinds: dict = {}
        for key in responses:
            kinds[key] = kinds.get(key, 0) + 1
        exact = cc.bound(kinds=kinds, model=n.tolist(), costs=costs)  # no assumption: exact
        assert (exact.worst_cost, exact.best_cost) == pytest.approx(_brute(responses, n, costs))


def test_binary_kinds_are_the_k2_view_of_response_vectors() -> None:
    from causalcost.pricing.responses import read_kinds

    frame = cc.kinds_frame({"wrong_only": 5, "always": 4, "right_only": 2}, {"never": 7,
                                                                            "right_only": 1})
    kinds = read_kinds(frame, 2)
    assert kinds.binary_frame().values.tolist() == frame.values.tolist()
    model = cc.Confusion(tp=6, fn=5, fp=3, tn=5)
    binary = cc.bound(kinds=frame, model=model)
    general = general_bound(kinds=kinds, model=[[6, 5], [3, 5]], costs=1 - np.eye(2))
    labelled = cc.bound(kinds=kinds, model=[[6, 5], [3, 5]])
    assert labelled.worst == binary.worst and labelled.best == binary.best
    assert (general.worst_cost, general.best_cost) == (binary.worst_cost, binary.best_cost)


def test_a_table_that_carries_a_non_monotone_system_is_refused() -> None:
    b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    for m in "abcd":
        _ = b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    system = b.set_fusioner("plurality").build(slot="d")

    class Table:  # a table object that knows the system it was computed from
        labels = ("x", "y", "z")
        probabilities = np.full((3, 3, 3), 1 / 3)
        system = None

        def to_numpy(self) -> np.ndarray:
            return self.probabilities

    table = Table()
    table.system = system
    costs = [[0, 1, 5], [1, 0, 1], [1, 1, 0]]
    with pytest.raises(MonotonicityError, match="not monotone"):
        cc.bound(table, np.full((3, 3), 2), costs, assumption="monotone")
    assert cc.bound(table, np.full((3, 3), 2), costs).worst_cost >= 0  # assumption-free
