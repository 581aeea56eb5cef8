"""The K-label score slot's pricing core against brute force.

Every fast path of :mod:`causalcost.pricing.score_vectors` is checked against a naive
reference written here: the decision as a Python loop in the stated order, the outcome counts
as a count over every pair, the same-instance bounds over every permutation
(``itertools.permutations``), the probability bounds as a dense linear program over every
pair and, for equal sizes, over every permutation (Birkhoff). Hypothesis draws continuous
data, data on a coarse grid (exact ties) and adversarial near-ties (offsets a few units in the
last place from a three-way tie), where the float decision is not the exact one.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import causalcost as cc
from causalcost.errors import InfeasibleInputError, InputTypeError, ValidationError
from causalcost.pricing import score_vectors as sv
from causalcost.pricing.score_vectors import (
    decide,
    expected_outcomes,
    outcome_counts,
    probability_bounds,
    same_instance_bounds,
)
from causalcost.pricing.scores import price_scores

SETTINGS = settings(max_examples=120, deadline=None)
FEW = settings(max_examples=40, deadline=None)


# ------------------------------------------------------------------------ references
def loop_decide(A: np.ndarray, offsets: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The decision pair by pair in Python floats: q added left to right, then + r."""
    n_t, k = offsets.shape
    out = np.empty((n_t, len(vectors)), dtype=int)
    for j, p in enumerate(vectors):
        q = []
        for row in range(k):
            total = float(A[row, 0]) * float(p[0])
            for col in range(1, k):
                total = total + float(A[row, col]) * float(p[col])
            q.append(total)
        for i, r in enumerate(offsets):
            z = [q[row] + float(r[row]) for row in range(k)]
            out[i, j] = z.index(max(z))  # the first largest
    return out


def pair_counts(A, offsets, vectors) -> np.ndarray:
    return np.bincount(decide(A, offsets, vectors).ravel(), minlength=np.shape(vectors)[1])


def permutation_extremes(costs: np.ndarray) -> tuple[float, float]:
    n = costs.shape[0]
    totals = [sum(costs[i, s[i]] for i in range(n)) for s in itertools.permutations(range(n))]
    return max(totals), min(totals)


def dense_lp(costs: np.ndarray, maximize: bool) -> float:
    """The coupling LP over every pair, no merging: mean cost of one instance."""
    n_t, n_s = costs.shape
    rows = np.kron(np.eye(n_t), np.ones((1, n_s)))
    cols = np.kron(np.ones((1, n_t)), np.eye(n_s))
    b = np.r_[np.full(n_t, 1 / n_t), np.full(n_s, 1 / n_s)]
    sign = -1 if maximize else 1
    res = linprog(sign * costs.ravel(), A_eq=np.vstack([rows, cols]), b_eq=b, bounds=(0, None),
                  method="highs")
    assert res.status == 0
    return sign * res.fun


# ------------------------------------------------------------------------ strategies
def _matrix(draw, k: int) -> np.ndarray | float:
    kind = draw(st.sampled_from(["scalar", "diagonal", "general"]))
    if kind == "scalar":
        return draw(st.sampled_from([1.0, 0.5, 1 / 3, 2.0, 0.7]))
    if kind == "diagonal":
        return np.diag(draw(st.lists(st.sampled_from([0.5, 1.0, 1 / 3, 3.0]), min_size=k,
                                     max_size=k)))
    values = st.floats(-2, 2, allow_nan=False).map(lambda x: round(x, 2))
    return np.array(draw(st.lists(values, min_size=k * k, max_size=k * k))).reshape(k, k)


@st.composite
def systems(draw, ks=(2, 3, 4), max_rows: int = 12):
    """(A, offsets, vectors): continuous, on a grid of thirds (exact ties), or near-ties."""
    k = draw(st.sampled_from(ks))
    A = _matrix(draw, k)
    n_t = draw(st.integers(1, max_rows))
    n_s = draw(st.integers(1, max_rows))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["continuous", "grid", "near ties"]))
    if kind == "continuous":
        return A, rng.random((n_t, k)), rng.dirichlet(np.ones(k), n_s)
    if kind == "grid":
        return A, rng.integers(0, 4, (n_t, k)) / 3, rng.integers(0, 4, (n_s, k)) / 3
    return (A, *near_ties(A, k, n_t, n_s, rng))


def near_ties(A, k: int, n_t: int, n_s: int, rng: np.random.Generator,
              level: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Vectors from a few values; each offset a few ulps from making some vector a K-way tie
    (``q_j + r_i`` equal to ``level`` in every label; the larger the level, the coarser the
    rounding of ``q + r`` against the ulps of ``r``)."""
    vectors = rng.integers(0, 4, (n_s, k)) / 3 + rng.integers(0, 2, (n_s, 1)) * 0.1
    q = sv._slot_part(sv._slot_matrix(A, k), vectors)
    level = rng.choice([0.0, 0.3, 1.0, 7.0, 1e3, 1e6]) if level is None else level
    offsets = level - q[rng.integers(0, n_s, n_t)]
    steps = rng.integers(-3, 4, offsets.shape)
    for _ in range(3):
        offsets = np.where(steps > 0, np.nextafter(offsets, np.inf), offsets)
        offsets = np.where(steps < 0, np.nextafter(offsets, -np.inf), offsets)
        steps = steps - np.sign(steps)
    return offsets, vectors


# ------------------------------------------------------------------------ decide
def test_decide_follows_the_stated_order_and_first_maximum():
    A = np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.3], [0.1, 0.0, 1.0]])
    rng = np.random.default_rng(0)
    offsets, vectors = rng.random((9, 3)), rng.dirichlet(np.ones(3), 11)
    np.testing.assert_array_equal(decide(A, offsets, vectors), loop_decide(A, offsets, vectors))
    # an exact three-way tie goes to label 0, a tie of labels 1 and 2 to label 1
    assert decide(1.0, [[0.0, 0.0, 0.0], [0.0, 0.5, 0.5]], [[0.25, 0.25, 0.25]]).tolist() \
        == [[0], [1]]


@SETTINGS
@given(systems())
def test_decide_equals_a_loop(system):
    A, offsets, vectors = system
    k = offsets.shape[1]
    matrix = sv._slot_matrix(A, k)
    np.testing.assert_array_equal(decide(A, offsets, vectors),
                                  loop_decide(matrix, offsets, vectors))


def test_decide_chunks_give_the_same_answer(monkeypatch):
    rng = np.random.default_rng(1)
    offsets, vectors = rng.random((50, 3)), rng.dirichlet(np.ones(3), 70)
    whole = decide(0.5, offsets, vectors)
    monkeypatch.setattr(sv, "_CHUNK_ELEMENTS", 7)
    np.testing.assert_array_equal(decide(0.5, offsets, vectors), whole)


# ------------------------------------------------------------------ outcome counts
@SETTINGS
@given(systems())
def test_outcome_counts_equal_every_pair(system):
    A, offsets, vectors = system
    counts = outcome_counts(A, offsets, vectors)
    np.testing.assert_array_equal(counts, pair_counts(A, offsets, vectors))
    assert counts.sum() == offsets.shape[0] * vectors.shape[0]


@SETTINGS
@given(systems(ks=(3,)))
def test_outcome_counts_of_many_candidates_are_each_candidates(system):
    A, offsets, vectors = system
    rng = np.random.default_rng(len(vectors))
    stack = np.stack([vectors, vectors[::-1], rng.permutation(vectors)[:, ::-1]])
    counts = outcome_counts(A, offsets, stack)
    assert counts.shape == (3, 3)
    for row, candidate in zip(counts, stack):
        np.testing.assert_array_equal(row, pair_counts(A, offsets, candidate))


def test_near_ties_are_decided_by_rounding_and_counted_that_way():
    """The adversarial data really is adversarial: the float decision differs from the exact
    one on some pairs, and the counts follow the float decision."""
    rng = np.random.default_rng(3)
    offsets, vectors = near_ties(1 / 3, 3, 200, 40, rng, level=1e3)
    q = vectors * (1 / 3)
    exact_differs = 0
    float_g = decide(1 / 3, offsets, vectors)
    for i, j in zip(rng.integers(0, 200, 3000), rng.integers(0, 40, 3000)):
        z = [Fraction(q[j, k]) + Fraction(offsets[i, k]) for k in range(3)]
        exact_differs += z.index(max(z)) != float_g[i, j]
    assert exact_differs > 0
    np.testing.assert_array_equal(outcome_counts(1 / 3, offsets, vectors),
                                  np.bincount(float_g.ravel(), minlength=3))


@pytest.mark.parametrize("k", [2, 3])
def test_outcome_counts_over_several_blocks_of_offsets(k):
    rng = np.random.default_rng(4)
    offsets = np.r_[rng.random((2500, k)), rng.integers(0, 3, (300, k)) / 2.0]
    vectors = np.r_[rng.dirichlet(np.ones(k), 150), rng.integers(0, 3, (30, k)) / 2.0]
    assert np.unique(offsets, axis=0).shape[0] > 2 * sv._BLOCK
    np.testing.assert_array_equal(outcome_counts(0.9, offsets, vectors),
                                  pair_counts(0.9, offsets, vectors))


def test_outcome_counts_with_a_degenerate_key_range():
    # every vector equal: the lookup grid has no width; offsets equal: one distinct row
    offsets = np.tile([0.1, 0.2, 0.3], (5, 1))
    vectors = np.tile([0.3, 0.3, 0.4], (4, 1))
    np.testing.assert_array_equal(outcome_counts(1.0, offsets, vectors),
                                  pair_counts(1.0, offsets, vectors))
    assert outcome_counts(1.0, offsets, vectors).tolist() == [0, 0, 20]


@FEW
@given(systems(ks=(3,)))
def test_expected_outcomes_are_shares_of_pairs(system):
    A, offsets, vectors = system
    shares = expected_outcomes(A, offsets, vectors)
    assert shares.sum() == pytest.approx(1.0, abs=1e-15)
    n = offsets.shape[0] * vectors.shape[0]
    np.testing.assert_array_equal(shares, pair_counts(A, offsets, vectors) / n)


# ------------------------------------------------------------ same-instance bounds
@st.composite
def same_instances(draw, ks=(3, 4), max_n: int = 7):
    A, offsets, vectors = draw(systems(ks=ks, max_rows=max_n))
    n = min(len(offsets), len(vectors))
    costs_row = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 5.0]), min_size=offsets.shape[1],
                              max_size=offsets.shape[1]))
    return A, offsets[:n], vectors[:n], np.array(costs_row)


def pair_costs(A, offsets, vectors, costs_row) -> np.ndarray:
    return np.asarray(costs_row)[decide(A, offsets, vectors)]


@SETTINGS
@given(same_instances())
def test_same_instance_bounds_equal_every_permutation(case):
    A, offsets, vectors, costs_row = case
    costs = pair_costs(A, offsets, vectors, costs_row)
    worst, best = permutation_extremes(costs)
    b = same_instance_bounds(A, offsets, vectors, costs_row)
    assert (b.worst_cost, b.best_cost) == (worst, best)
    n = len(offsets)
    for assignment, total in ((b.worst_assignment, worst), (b.best_assignment, best)):
        assert sorted(assignment.tolist()) == list(range(n))
        assert costs[np.arange(n), assignment].sum() == total


@SETTINGS
@given(same_instances(ks=(2, 3, 4), max_n=12), st.sampled_from([(0.0, 5.0), (1.0, 3.0)]))
def test_matching_equals_the_assignment_on_two_cost_values(case, values):
    A, offsets, vectors, _ = case
    k = offsets.shape[1]
    costs_row = np.array([values[0]] + [values[1]] * (k - 1))
    by_matching = same_instance_bounds(A, offsets, vectors, costs_row, method="matching")
    by_assignment = same_instance_bounds(A, offsets, vectors, costs_row, method="assignment")
    assert by_matching.worst_cost == by_assignment.worst_cost
    assert by_matching.best_cost == by_assignment.best_cost
    costs = pair_costs(A, offsets, vectors, costs_row)
    n = len(offsets)
    assert costs[np.arange(n), by_matching.worst_assignment].sum() == by_matching.worst_cost
    assert sorted(by_matching.best_assignment.tolist()) == list(range(n))


@SETTINGS
@given(same_instances(ks=(2, 3, 4), max_n=10), st.floats(0.01, 100), st.floats(-10, 10))
def test_same_instance_bounds_bracket_the_mean_and_scale(case, factor, shift):
    A, offsets, vectors, costs_row = case
    n = len(offsets)
    b = same_instance_bounds(A, offsets, vectors, costs_row)
    mean = n * float(costs_row @ expected_outcomes(A, offsets, vectors))
    assert b.best_cost - 1e-9 <= mean <= b.worst_cost + 1e-9
    scaled = same_instance_bounds(A, offsets, vectors, factor * costs_row + shift)
    assert scaled.worst_cost == pytest.approx(factor * b.worst_cost + n * shift, abs=1e-9)
    assert scaled.best_cost == pytest.approx(factor * b.best_cost + n * shift, abs=1e-9)
    flipped = same_instance_bounds(A, offsets, vectors, -costs_row)
    assert (flipped.worst_cost, flipped.best_cost) == (-b.best_cost, -b.worst_cost)


@SETTINGS
@given(same_instances(ks=(3, 4), max_n=10), st.randoms(use_true_random=False))
def test_same_instance_bounds_ignore_the_order_of_the_vectors(case, random):
    A, offsets, vectors, costs_row = case
    order = list(range(len(vectors)))
    random.shuffle(order)
    a = same_instance_bounds(A, offsets, vectors, costs_row)
    b = same_instance_bounds(A, offsets, vectors[order], costs_row)
    assert (a.worst_cost, a.best_cost) == (b.worst_cost, b.best_cost)


def test_same_instance_bounds_of_a_two_valued_row_at_size():
    rng = np.random.default_rng(5)
    offsets, vectors = 0.5 * rng.random((300, 3)), rng.dirichlet(np.ones(3), 300)
    a = same_instance_bounds(0.5, offsets, vectors, [0, 5, 5], method="matching")
    b = same_instance_bounds(0.5, offsets, vectors, [0, 5, 5], method="assignment")
    assert (a.worst_cost, a.best_cost) == (b.worst_cost, b.best_cost)
    assert a.best_cost < a.worst_cost


# -------------------------------------------------------------- probability bounds
@FEW
@given(same_instances(ks=(2, 3, 4), max_n=6))
def test_probability_bounds_of_equal_sizes_equal_every_permutation(case):
    """Birkhoff: between two uniform measures of equal size, a permutation is optimal."""
    A, offsets, vectors, costs_row = case
    worst, best = permutation_extremes(pair_costs(A, offsets, vectors, costs_row))
    n = len(offsets)
    for method in ("lp", "assignment", "auto"):
        b = probability_bounds(A, offsets, vectors, costs_row, method=method)
        assert b.worst == pytest.approx(worst / n, rel=1e-12, abs=1e-12)
        assert b.best == pytest.approx(best / n, rel=1e-12, abs=1e-12)


@FEW
@given(systems(ks=(2, 3, 4), max_rows=9), st.lists(st.sampled_from([0.0, 1.0, 2.0, 7.0]),
                                                     min_size=4, max_size=4))
def test_probability_bounds_equal_a_dense_linear_program(system, costs):
    A, offsets, vectors = system
    costs_row = np.array(costs[:offsets.shape[1]])
    pair = pair_costs(A, offsets, vectors, costs_row)
    b = probability_bounds(A, offsets, vectors, costs_row)
    assert b.worst == pytest.approx(dense_lp(pair, True), rel=1e-9, abs=1e-9)
    assert b.best == pytest.approx(dense_lp(pair, False), rel=1e-9, abs=1e-9)
    mean = float(costs_row @ expected_outcomes(A, offsets, vectors))
    assert b.best - 1e-12 <= mean <= b.worst + 1e-12


@FEW
@given(systems(ks=(2, 3, 4), max_rows=40), st.sampled_from([1, 4, 9, 30]))
def test_the_grid_brackets_the_exact_bounds(system, grid):
    A, offsets, vectors = system
    costs_row = np.array([0.0, 5.0, 2.0, 1.0][:offsets.shape[1]])
    exact = probability_bounds(A, offsets, vectors, costs_row, method="lp")
    coarse = probability_bounds(A, offsets, vectors, costs_row, method="grid", grid=grid)
    assert coarse.worst >= exact.worst - 1e-12
    assert coarse.best <= exact.best + 1e-12


def test_a_fine_grid_is_exact_and_a_coarse_one_is_not():
    rng = np.random.default_rng(6)
    offsets, vectors = 0.4 * rng.random((60, 3)), rng.dirichlet(np.ones(3), 50)
    exact = probability_bounds(0.5, offsets, vectors, [0, 5, 2], method="lp")
    fine = probability_bounds(0.5, offsets, vectors, [0, 5, 2], method="grid", grid=10 ** 6)
    coarse = probability_bounds(0.5, offsets, vectors, [0, 5, 2], method="grid", grid=4)
    assert fine == pytest.approx(exact, rel=1e-12)
    assert coarse.worst > exact.worst and coarse.best < exact.best


def test_auto_refuses_a_large_unequal_problem(monkeypatch):
    monkeypatch.setattr(sv, "_LP_VARIABLES", 10)
    rng = np.random.default_rng(7)
    offsets, vectors = rng.random((8, 3)), rng.dirichlet(np.ones(3), 9)
    with pytest.raises(ValidationError, match="method='grid'"):
        probability_bounds(1.0, offsets, vectors, [0, 1, 1])
    square = probability_bounds(1.0, offsets, vectors[:8], [0, 1, 1])  # the assignment
    assert square == pytest.approx(
        probability_bounds(1.0, offsets, vectors[:8], [0, 1, 1], method="lp"), rel=1e-12)


# ------------------------------------------------------------- K = 2 is the binary case
COSTS = cc.CostMatrix(tp=0.5, fn=5, fp=1, tn=0.25)


def binary_case(seed: int, n_pos: int, n_neg: int, w: float):
    """Per class offsets and scores; label 0 is P, a vector is (s, 1 - s); the critical score
    of an instance is its least candidate score said P (the decision is monotone in s)."""
    rng = np.random.default_rng(seed)
    classes = []
    for n in (n_pos, n_neg):
        scores = np.round(rng.random(n), 2) if seed % 2 else rng.random(n)
        offsets = np.round(rng.normal(0, 0.4, (n, 2)), 2) if seed % 3 else rng.normal(0, 0.4,
                                                                                      (n, 2))
        vectors = np.c_[scores, 1 - scores]
        says_p = decide(w, offsets, vectors) == 0
        critical = np.where(says_p.any(axis=1),
                            np.where(says_p, scores[None, :], np.inf).min(axis=1), np.inf)
        assert ((scores[None, :] >= critical[:, None]) == says_p).all()
        classes.append((offsets, vectors, scores, critical))
    return classes


@pytest.mark.parametrize("seed", range(12))
def test_two_labels_with_a_weight_equal_the_binary_closed_forms(seed):
    rng = np.random.default_rng(seed)
    n_pos, n_neg = (int(x) for x in rng.integers(2, 40, 2))
    w = float(rng.choice([1.0, 0.5, 2.0]))
    (op, vp, sp, tp), (on, vn, sn, tn) = binary_case(seed, n_pos, n_neg, w)
    rows = COSTS.to_numpy()  # row P: (tp, fn), row N: (fp, tn): output 0 is P
    expected = sum(len(v) * float(row @ expected_outcomes(w, o, v))
                   for o, v, row in ((op, vp, rows[0]), (on, vn, rows[1])))
    same = [same_instance_bounds(w, o, v, row) for o, v, row in ((op, vp, rows[0]),
                                                                 (on, vn, rows[1]))]
    binary = price_scores((tp, tn), (sp, sn), COSTS, same_instances=True)
    assert expected == pytest.approx(binary.expected_cost, rel=1e-12)
    assert sum(b.worst_cost for b in same) == pytest.approx(binary.worst_cost, rel=1e-12)
    assert sum(b.best_cost for b in same) == pytest.approx(binary.best_cost, rel=1e-12)
    other = [probability_bounds(w, o, v, row) for o, v, row in ((op, vp[:-1], rows[0]),
                                                                (on, vn, rows[1]))]
    binary = price_scores((tp, tn), (sp[:-1], sn), COSTS, same_instances=False)
    assert len(sp[:-1]) * other[0].worst + len(sn) * other[1].worst == pytest.approx(
        binary.worst_cost, rel=1e-12, abs=1e-12)
    assert len(sp[:-1]) * other[0].best + len(sn) * other[1].best == pytest.approx(
        binary.best_cost, rel=1e-12, abs=1e-12)


# ------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: decide(1.0, [[0.0, 0.0]], [[0.5, 0.5, 0.0]]), ValidationError,
     "offsets has 2 columns but the system has K = 3"),
    (lambda: decide(np.eye(2), [[0.0, 0.0, 0.0]], [[0.5, 0.5, 0.0]]), ValidationError,
     "A must be a K x K matrix"),
    (lambda: decide(1.0, [[0.0, np.nan, 0.0]], [[0.5, 0.5, 0.0]]), ValidationError,
     r"offsets must be finite numbers: position \(0, 1\)"),
    (lambda: decide(1.0, [[0.0, 0.0, 0.0]], [[0.5, np.inf, 0.0]]), ValidationError,
     "vectors must be finite"),
    (lambda: decide(1.0, [0.0, 0.0, 0.0], [[0.5, 0.5, 0.0]]), ValidationError,
     "offsets must be a 2-dimensional array"),
    (lambda: decide(1.0, [[0.0, 0.0, 0.0]], [["a", "b", "c"]]), InputTypeError,
     "vectors must be an array of real numbers"),
    (lambda: decide(1.0, [[0.0]], [[1.0]]), ValidationError, "K >= 2"),
    (lambda: decide(1.0, [[0.0, 0.0]], [[1e305, 0.0]]), ValidationError, "rescale"),
    (lambda: outcome_counts(1.0, np.zeros((0, 3)), [[0.5, 0.5, 0.0]]), ValidationError,
     "offsets is empty"),
    (lambda: same_instance_bounds(1.0, [[0.0, 0.0]], [[0.5, 0.5]], [0, 1, 1]),
     ValidationError, "costs_row must hold K = 2 costs"),
    (lambda: same_instance_bounds(1.0, [[0.0, 0.0]], [[0.5, 0.5]] * 2, [0, 1]),
     InfeasibleInputError, "2 vectors for 1 offsets"),
    (lambda: same_instance_bounds(1.0, [[0.0, 0.0]], [[0.5, 0.5]], [0, 1], method="x"),
     ValidationError, "method must be"),
    (lambda: same_instance_bounds(1.0, [[0.0, 0.0, 0.3], [0.0, 0.6, 0.0]],
                                  [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]], [0, 1, 2],
                                  method="matching"),
     ValidationError, "at most two values"),
    (lambda: probability_bounds(1.0, [[0.0, 0.0]], [[0.5, 0.5]] * 2, [0, 1],
                                method="assignment"), ValidationError, "as many vectors"),
    (lambda: probability_bounds(1.0, [[0.0, 0.0]], [[0.5, 0.5]], [0, np.nan]),
     ValidationError, "costs_row must be finite"),
])
def test_bad_inputs_are_refused_in_one_line(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_the_recount_margin_is_what_makes_near_ties_exact(monkeypatch):
    """Guard the guard: without the margin (only exact equality recounted) the dominance
    tables miscount the near-ties, so the tests above do exercise the recount."""
    rng = np.random.default_rng(9)
    offsets, vectors = near_ties(1 / 3, 3, 300, 60, rng, level=1e3)
    truth = pair_counts(1 / 3, offsets, vectors)
    np.testing.assert_array_equal(outcome_counts(1 / 3, offsets, vectors), truth)
    monkeypatch.setattr(sv, "_MARGIN", 0.0)
    assert (outcome_counts(1 / 3, offsets, vectors) != truth).any()


def test_many_candidates_summed_match_one_at_a_time():
    rng = np.random.default_rng(8)
    offsets = rng.random((400, 3)) * 0.5
    stack = rng.dirichlet(np.ones(3), (25, 60))
    stack[3] = np.round(stack[3], 1)  # ties with nothing in particular, rounded values
    counts = outcome_counts(0.5, offsets, stack)
    for row, candidate in zip(counts, stack):
        np.testing.assert_array_equal(row, pair_counts(0.5, offsets, candidate))


@FEW
@given(systems(ks=(2, 3, 4), max_rows=9), st.sampled_from([(0.0, 5.0), (-1.0, 2.0)]))
def test_the_maximum_flow_of_two_cost_values_equals_the_linear_program(system, values):
    A, offsets, vectors = system
    costs_row = np.array([values[0]] + [values[1]] * (offsets.shape[1] - 1))
    pair = pair_costs(A, offsets, vectors, costs_row)
    b = probability_bounds(A, offsets, vectors, costs_row)
    assert b.worst == pytest.approx(dense_lp(pair, True), rel=1e-12, abs=1e-12)
    assert b.best == pytest.approx(dense_lp(pair, False), rel=1e-12, abs=1e-12)
    problem = sv._transport_of(sv._slot_matrix(A, offsets.shape[1]), offsets, vectors,
                               costs_row)
    if np.unique(problem.cost).size == 2 and min(problem.cost.shape) > 1:
        for maximize in (True, False):
            assert sv._flow_optimum(problem, maximize) == pytest.approx(
                sv._lp_optimum(problem, maximize), rel=1e-12, abs=1e-12)


def test_the_maximum_flow_is_taken_and_agrees_at_a_moderate_size():
    rng = np.random.default_rng(10)
    offsets, vectors = 0.5 * rng.random((60, 3)), rng.dirichlet(np.ones(3), 90)
    problem = sv._transport_of(sv._slot_matrix(0.5, 3), offsets, vectors,
                               np.array([0.0, 5.0, 5.0]))
    assert min(problem.cost.shape) > 1 and np.unique(problem.cost).size == 2
    for maximize in (True, False):
        assert sv._flow_optimum(problem, maximize) == pytest.approx(
            sv._lp_optimum(problem, maximize), rel=1e-12)
    best = probability_bounds(0.5, offsets, vectors, [0, 5, 5]).best
    assert 0 < best == pytest.approx(dense_lp(pair_costs(0.5, offsets, vectors, [0, 5, 5]),
                                              False), rel=1e-9)
