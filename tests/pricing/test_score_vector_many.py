"""Many candidates of a K-label score slot at once (causalcost.pricing.score_vector_many).

Independent checks: every candidate's price equals the one-candidate functions
(``price_vectors``, ``probability_bounds``: the LP / maximum flow of
:mod:`causalcost.pricing.score_vectors`, themselves checked against brute force) on continuous
data (the closed forms used: counted), on a coarse grid (exact ties: the fallback) and on
adversarial near-ties (offsets a few units in the last place from a tie).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcost.errors import InfeasibleInputError, ScoreValueError, ValidationError
from causalcost.pricing import score_vector_many as many
from causalcost.pricing.score_vector_many import price_vectors_many, probability_bounds_many
from causalcost.pricing.score_vector_price import price_vectors
from causalcost.pricing.score_vectors import probability_bounds

REL = 1e-12
GRID = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0],
                 [0.0, 0.5, 0.5], [0.25, 0.5, 0.25]])


def two_valued_row(rng: np.random.Generator) -> np.ndarray:
    """A K = 3 cost row of two values: one label's cost apart from the two others'."""
    s = int(rng.integers(3))
    high, low = sorted(rng.choice([0.0, 1.0, 2.5, 5.0], 2, replace=False))[::-1]
    row = np.full(3, high if rng.random() < 0.5 else low)
    row[s] = low if row[(s + 1) % 3] == high else high
    return row


def data(rng: np.random.Generator, kind: str, n_t: int, n_s: int, m: int
         ) -> tuple[Any, np.ndarray, np.ndarray]:
    if kind == "grid":  # probability vectors on a coarse grid: exact ties
        offsets = rng.choice([0.0, 0.25, 0.5, 1.0], (n_t, 3))
        vectors = GRID[rng.integers(len(GRID), size=(m, n_s))]
    elif kind == "near":  # offsets a few floats from the tie with a vector
        vectors = rng.dirichlet(np.ones(3), (m, n_s))
        j = rng.integers(n_s, size=n_t)
        offsets = -vectors[0, j] + 0.3
        offsets += rng.integers(-3, 4, offsets.shape) * np.spacing(offsets)
    else:
        offsets = np.round(0.5 * (rng.dirichlet(np.ones(3), n_t)
                                  + rng.dirichlet(np.ones(3), n_t)), int(rng.integers(1, 5)))
        vectors = rng.dirichlet(np.ones(3), (m, n_s))
    A: Any = float(rng.choice([0.5, 1.0, 2.0])) if rng.random() < 0.5 else \
        np.round(rng.normal(1.0, 0.5, (3, 3)), 2)
    return A, offsets, vectors


def same(got: tuple[float, float], want: Any) -> bool:
    return got[0] == pytest.approx(want.worst, rel=REL, abs=1e-12) and \
        got[1] == pytest.approx(want.best, rel=REL, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["continuous", "grid", "near"]), st.integers(1, 25),
       st.integers(1, 25), st.integers(1, 4), st.integers(0, 2**31))
def test_probability_bounds_of_many_candidates_equal_one_by_one(kind: str, n_t: int, n_s: int,
                                                                m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    A, offsets, vectors = data(rng, kind, n_t, n_s, m)
    row = two_valued_row(rng) if rng.random() < 0.8 else rng.choice([0.0, 1.0, 3.0], 3)
    got = probability_bounds_many(A, offsets, vectors, row)
    assert len(got) == m
    for i in range(m):
        assert same(got[i], probability_bounds(A, offsets, vectors[i], row)), i


def test_the_closed_form_is_used_on_continuous_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The closed form prices the candidates of continuous data (no fallback), and equals the
    maximum flow / LP on every one of them."""
    rng = np.random.default_rng(3)
    fallbacks = []
    original = many.probability_bounds

    def counted(*args: Any, **kwargs: Any) -> Any:
        fallbacks.append(1)
        return original(*args, **kwargs)

    for trial in range(12):
        A, offsets, vectors = data(rng, "continuous", 40, 35, 5)
        row = two_valued_row(rng)
        monkeypatch.setattr(many, "probability_bounds", counted)
        got = probability_bounds_many(A, offsets, vectors, row)
        monkeypatch.setattr(many, "probability_bounds", original)
        for i in range(5):
            assert same(got[i], probability_bounds(A, offsets, vectors[i], row)), (trial, i)
    assert not fallbacks


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.integers(0, 2**31), st.sampled_from(["continuous", "grid"]))
def test_price_vectors_many_equals_price_vectors(same_instances: bool, seed: int,
                                                 kind: str) -> None:
    rng = np.random.default_rng(seed)
    labels = ("a", "b", "c")
    m = int(rng.integers(1, 4))
    sizes = [int(x) for x in rng.integers(0, 9, 3)]
    sizes[int(rng.integers(3))] += 1
    A, _, _ = data(rng, kind, 1, 1, 1)
    offsets = [data(rng, kind, n, 1, 1)[1] for n in sizes]
    vec_sizes = sizes if same_instances else [int(x) + 1 if n else 0 for n, x in
                                              zip(sizes, rng.integers(0, 6, 3))]
    vectors = [data(rng, kind, 1, n, m)[2] for n in vec_sizes]
    costs = rng.integers(1, 6, (3, 3)).astype(float)  # the right output costs least
    np.fill_diagonal(costs, 0.0)
    for c in range(3):
        if rng.random() < 0.7:  # two values: right or wrong, or one wrong label apart
            costs[c] = costs[c, (c + 1) % 3]
            costs[c, c] = 0.0
            if rng.random() < 0.4:
                costs[c, (c + 2) % 3] = 0.0
    got = price_vectors_many(A, offsets, vectors, costs, labels=labels,
                             same_instances=same_instances)
    for i in range(m):
        want = price_vectors(A, offsets, [v[i] for v in vectors], costs, labels=labels,
                             same_instances=same_instances)
        b = got[i]
        assert b.expected == want.expected and b.expected_cost == want.expected_cost
        assert b.worst == want.worst and b.best == want.best
        assert b.worst_cost == pytest.approx(want.worst_cost, rel=REL, abs=1e-12)
        assert b.best_cost == pytest.approx(want.best_cost, rel=REL, abs=1e-12)
        assert (b.form, b.class_sizes, b.critical_sizes, b.labels) == \
            (want.form, want.class_sizes, want.critical_sizes, want.labels)


def test_refusals_name_the_problem() -> None:
    labels = ["a", "b", "c"]
    off = [np.zeros((2, 3)), np.zeros((1, 3)), np.zeros((0, 3))]
    with pytest.raises(InfeasibleInputError, match=r"class 'a': same_instances=True needs"):
        price_vectors_many(1.0, off, [np.full((2, 3, 3), 1 / 3), np.full((2, 1, 3), 1 / 3), None],
                           np.ones((3, 3)), labels=labels)
    with pytest.raises(ValidationError, match=r"the same number of candidates, got \[1, 2\]"):
        price_vectors_many(1.0, off, [np.full((2, 2, 3), 1 / 3), np.full((1, 1, 3), 1 / 3), None],
                           np.ones((3, 3)), labels=labels)
    with pytest.raises(InfeasibleInputError, match=r"class 'c': 1 candidate vectors but no "
                                                   r"instances"):
        price_vectors_many(1.0, off, [np.full((1, 1, 3), 1 / 3), np.full((1, 1, 3), 1 / 3),
                                      np.full((1, 1, 3), 1 / 3)], np.ones((3, 3)),
                           labels=labels, same_instances=False)
    with pytest.raises(ScoreValueError, match=r"vectors of class 'a' \(the candidates' 1 rows "
                                              r"each, one after the other\): row 1 sums to 0.8999"):
        price_vectors_many(1.0, off, [np.array([[[0.5, 0.5, 0.0]], [[0.3, 0.3, 0.3]]]),
                                      np.full((2, 1, 3), 1 / 3), None], np.ones((3, 3)),
                           labels=labels, same_instances=False)
    with pytest.raises(ValidationError, match=r"critical scores"):
        price_vectors_many(1.0, [np.zeros((1, 2))] * 2, [np.full((1, 1, 2), 0.5)] * 2,
                           np.ones((2, 2)), labels=["p", "n"], same_instances=False)


@pytest.mark.parametrize("fusion", ["max", "min"])
def test_max_and_min_fusions_are_priced_as_price_vectors(fusion: str) -> None:
    rng = np.random.default_rng(5)
    labels = ("a", "b", "c")
    offsets = [rng.dirichlet(np.ones(3), n) for n in (4, 3, 5)]
    costs = np.array([[0.0, 2.0, 2.0], [1.0, 0.0, 3.0], [1.0, 1.0, 0.0]])
    for same_instances in (True, False):
        vectors = [GRID[rng.integers(len(GRID), size=(3, o.shape[0] + (not same_instances)))]
                   for o in offsets]
        got = price_vectors_many(None, offsets, vectors, costs, labels=labels,
                                 same_instances=same_instances, fusion=fusion)
        for i, b in enumerate(got):
            want = price_vectors(None, offsets, [v[i] for v in vectors], costs, labels=labels,
                                 same_instances=same_instances, fusion=fusion)
            assert (b.expected, b.worst, b.best, b.worst_cost, b.best_cost) == \
                (want.expected, want.worst, want.best, want.worst_cost, want.best_cost)
