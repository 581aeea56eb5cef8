"""bound_many in bounded memory: candidates priced a chunk at a time give the frame a single
pass gives (checked against the same call in one chunk, for every form and K = 2..5), an error
names the same row whatever the chunk size, the memory beside the frame stays that of a chunk,
and a frame above the ceiling is refused from the shape alone (a broadcast billion rows: no
allocation, no wait)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.errors import (
    CausalCostError,
    CountError,
    InfeasibleInputError,
    InputTypeError,
    OverflowInputError,
    ValidationError,
)
from causalcost.pricing import chunks

#: candidate cells per chunk when the chunks are forced small: 5 binary candidates, 2 of
#: K = 3, 1 of K = 4 or 5; every input below spans many chunks
SMALL = 20
#: chunked and single-pass costs agree within this where the monotone linear programs place
#: the instances (their optima may be tied); everywhere else the frames are compared exactly
RTOL = 1e-12
BILLION = 10**9


def one_and_chunked(call: Callable[[], pd.DataFrame],
                    monkeypatch: pytest.MonkeyPatch) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``call()`` in a single chunk, then in chunks of :data:`SMALL` cells."""
    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNK_CELLS", 2**62)
        one = call()
    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNK_CELLS", SMALL)
        many = call()
    return one, many


def assert_same(one: pd.DataFrame, many: pd.DataFrame) -> None:
    assert list(many.columns) == list(one.columns) and len(many) == len(one) > 0
    pd.testing.assert_frame_equal(many, one, check_exact=True)


def assert_same_optima(one: pd.DataFrame, many: pd.DataFrame, candidates: np.ndarray,
                       costs: np.ndarray, labels: list[str]) -> None:
    """The monotone K-label programs: a worst (best) case placement is one optimal vertex of a
    linear program, and where optima tie the vertex depends on the bases found on the other
    rows of the call (so on main already a row alone and the same row among others may get
    different placements of equal cost). Chunked and single pass then agree on the costs
    (within RTOL) and on the expected confusions (exactly), and every placement is one of the
    row's instances with the cost the frame reports."""
    assert list(many.columns) == list(one.columns) and len(many) == len(one) > 0
    np.testing.assert_allclose(many[[f"{c}_cost" for c in ("worst", "expected", "best")]],
                               one[[f"{c}_cost" for c in ("worst", "expected", "best")]],
                               rtol=RTOL, atol=0)
    expected = [c for c in one.columns if c.startswith("expected_")]
    pd.testing.assert_frame_equal(many[expected], one[expected], check_exact=True)
    k = len(labels)
    for case in ("worst", "best"):
        conf = many[[f"{case}_{a}_{b}" for a in labels for b in labels]].to_numpy()
        conf = conf.reshape(-1, k, k)
        np.testing.assert_allclose(conf.sum(axis=2), candidates.sum(axis=2), rtol=1e-12)
        np.testing.assert_allclose(np.einsum("ncs,cs->n", conf, costs), many[f"{case}_cost"],
                                   rtol=RTOL)


def random_costs(rng: np.random.Generator) -> cc.CostMatrix:
    tp, tn = rng.uniform(0, 1, 2)
    return cc.CostMatrix(tp=tp, fn=tp + rng.uniform(0.1, 5), fp=tn + rng.uniform(0.1, 5), tn=tn)


def binary_problem(seed: int, rows: int = 60) -> tuple[cc.Confusion, cc.Confusion, np.ndarray]:
    """Forced runs a monotone system could give and candidates on their instances."""
    rng = np.random.default_rng(seed)
    n_p, n_n = (int(v) for v in rng.integers(5, 40, 2))
    fn_p = int(rng.integers(0, n_p + 1))
    fn_n = int(rng.integers(fn_p, n_p + 1))
    fp_n = int(rng.integers(0, n_n + 1))
    fp_p = int(rng.integers(fp_n, n_n + 1))
    forced_p = cc.Confusion(n_p - fn_p, fn_p, fp_p, n_n - fp_p)
    forced_n = cc.Confusion(n_p - fn_n, fn_n, fp_n, n_n - fp_n)
    tp = rng.integers(0, n_p + 1, rows)
    fp = rng.integers(0, n_n + 1, rows)
    return forced_p, forced_n, np.stack([tp, n_p - tp, fp, n_n - fp], axis=1)


def label_problem(k: int, seed: int, rows: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Forced runs ``F[j, c, s]`` counted on instances of a system monotone for the costs, the
    costs, and candidates ``N[c, j]`` on the same instances (few distinct rows: rows recur from
    chunk to chunk)."""
    rng = np.random.default_rng(seed)
    costs = rng.integers(1, 6, (k, k)).astype(float)
    np.fill_diagonal(costs, 0.0)
    sizes = rng.integers(2, 6, k)
    forced = np.zeros((k, k, k), dtype=int)
    for c in range(k):
        for _ in range(sizes[c]):
            response = rng.integers(0, k, k)  # the system's output with the slot forced to j
            response[c] = min(response, key=lambda s: (costs[c, s], s))  # monotone
            for j in range(k):
                forced[j, c, response[j]] += 1
    candidates = np.array([[rng.multinomial(sizes[c], np.full(k, 1 / k)) for c in range(k)]
                           for _ in range(rows)])
    return forced, costs, candidates


# -- chunked == single pass -------------------------------------------------------------------
@pytest.mark.parametrize("assumption", ["monotone", "none"])
@pytest.mark.parametrize("seed", range(3))
def test_count_form_chunked_equals_one_pass(monkeypatch: pytest.MonkeyPatch, seed: int,
                                            assumption: str) -> None:
    forced_p, forced_n, models = binary_problem(seed)
    costs = random_costs(np.random.default_rng(seed))
    one, many = one_and_chunked(lambda: cc.bound_many(forced_p, forced_n, models, costs,
                                                      assumption=assumption), monkeypatch)
    assert_same(one, many)


@pytest.mark.parametrize("seed", range(3))
def test_kinds_form_chunked_equals_one_pass(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = np.random.default_rng(seed)
    kinds = cc.kinds_frame(*({kind: int(rng.integers(0, 20)) for kind in
                              ("never", "wrong_only", "always", "right_only")}
                             for _ in range(2)))
    n_p, n_n = (int(kinds.loc[c].sum()) for c in ("P", "N"))
    tp, fp = rng.integers(0, n_p + 1, 60), rng.integers(0, n_n + 1, 60)
    models = np.stack([tp, n_p - tp, fp, n_n - fp], axis=1)
    costs = random_costs(rng)
    one, many = one_and_chunked(lambda: cc.bound_many(kinds=kinds, models=models, costs=costs),
                                monkeypatch)
    assert_same(one, many)


@pytest.mark.parametrize("seed", range(3))
def test_probability_form_chunked_equals_one_pass(monkeypatch: pytest.MonkeyPatch,
                                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    fn_p, fp_n = rng.uniform(0, 0.5, 2)
    rates = cc.ErrorRates(fn_forced_p=fn_p, fn_forced_n=fn_p + rng.uniform(0, 0.5),
                          fp_forced_p=fp_n + rng.uniform(0, 0.5), fp_forced_n=fp_n)
    models = rng.integers(0, 1000, (60, 4))  # each row its own class sizes
    costs = random_costs(rng)
    one, many = one_and_chunked(lambda: cc.bound_many_from_rates(rates, models, costs),
                                monkeypatch)
    assert_same(one, many)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("assumption", ["none", "monotone"])
@pytest.mark.parametrize("form", ["same instances", "other instances", "table"])
def test_k_labels_chunked_equals_one_pass(monkeypatch: pytest.MonkeyPatch, k: int,
                                          assumption: str, form: str) -> None:
    # K = 4 and 5 take one row a chunk (each chunk solves its own programs): fewer rows
    forced, costs, candidates = label_problem(k, seed=k, rows={4: 16, 5: 8}.get(k, 40))
    labels = [f"l{i}" for i in range(k)]
    source: Any = forced
    if form == "table":
        t = np.transpose(forced / forced.sum(axis=2, keepdims=True), (1, 0, 2))
        source = cc.InterventionalTable.from_array(t, slot="m", labels=labels)
    elif form == "other instances":  # the probability form: any class sizes
        candidates = candidates + np.random.default_rng(k).integers(0, 3, candidates.shape)
    one, many = one_and_chunked(
        lambda: cc.bound_many(source, candidates, costs, assumption=assumption,
                              same_instances=form == "same instances", labels=labels),
        monkeypatch)
    if assumption == "none" or k == 2:  # closed forms (per distinct row): the same arithmetic
        assert_same(one, many)
    else:
        assert_same_optima(one, many, candidates, costs, labels)


# -- errors name the same row whatever the chunk size -------------------------------------------
def error_of(call: Callable[[], Any]) -> CausalCostError:
    with pytest.raises(CausalCostError) as info:
        call()
    return info.value


def same_error(call: Callable[[], Any], monkeypatch: pytest.MonkeyPatch,
               kind: type[CausalCostError]) -> str:
    """The error of ``call`` in one chunk, checked equal (type and text) in small chunks and
    of type ``kind``; its text."""
    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNK_CELLS", 2**62)
        one = error_of(call)
    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNK_CELLS", SMALL)
        many = error_of(call)
    assert type(many) is type(one) and str(many) == str(one)
    assert isinstance(one, kind), one
    return str(one)


def test_binary_errors_are_those_of_the_whole_input(monkeypatch: pytest.MonkeyPatch) -> None:
    forced_p, forced_n, models = binary_problem(0)
    bad = models.astype(float)
    bad[1, 0] += 0.5  # fractional, in the first chunk
    bad[[23, 41], 3] = -1  # negative, in later chunks: the check that comes first wins
    text = same_error(lambda: cc.bound_many(forced_p, forced_n, bad), monkeypatch, CountError)
    assert text.startswith("models row 23 ") and "2 bad row(s) in all" in text
    other = models.copy()
    other[[7, 33, 52], 0] += 1  # class sizes unlike the forced runs'
    text = same_error(lambda: cc.bound_many(forced_p, forced_n, other), monkeypatch,
                      InfeasibleInputError)
    assert text.startswith("models row 7 ") and "3 row(s) disagree" in text
    huge = cc.CostMatrix(fn=1e308, fp=1e308)
    err = same_error(lambda: cc.bound_many(forced_p, forced_n, models, huge), monkeypatch,
                     OverflowInputError)
    assert err.startswith("costs too large: the worst-case system cost of models row 0 ")
    assert f"; {len(models)} row(s)); rescale the costs" in err


def test_k_label_errors_are_those_of_the_whole_input(monkeypatch: pytest.MonkeyPatch) -> None:
    forced, costs, candidates = label_problem(3, seed=3)
    other = candidates.copy()
    other[[9, 30], 0, 0] += 1
    text = same_error(lambda: cc.bound_many(forced, other, costs, same_instances=True),
                      monkeypatch, InfeasibleInputError)
    assert text.startswith("candidates[9] counts class sizes") and "(2 row(s) differ)" in text
    negative = candidates.copy()
    negative[17, 1, 2] = -1
    text = same_error(lambda: cc.bound_many(forced, negative, costs, same_instances=True),
                      monkeypatch, InfeasibleInputError)
    assert text == "candidates[17] holds a negative or non-finite count"


# -- the ceiling: refused from the shape, before anything is allocated --------------------------
def refusal(call: Callable[[], Any]) -> tuple[str, float, int]:
    """The error text of ``call``, the seconds it took and the bytes it allocated at most."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ValidationError) as info:
            call()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(info.value, CausalCostError)
    return str(info.value), seconds, peak


def billion_calls() -> Iterator[tuple[str, str, Callable[[], Any]]]:
    """Every route of bound_many with a broadcast billion candidates (no memory)."""
    forced_p, forced_n, models = binary_problem(0, rows=1)
    binary = np.broadcast_to(models[0], (BILLION, 4))
    forced, costs, candidates = label_problem(3, seed=3, rows=1)
    k3 = np.broadcast_to(candidates[0], (BILLION, 3, 3))
    k2 = np.broadcast_to(models[0].reshape(2, 2), (BILLION, 2, 2))
    forced2 = np.array([[[forced_p.tp, forced_p.fn], [forced_p.fp, forced_p.tn]],
                        [[forced_n.tp, forced_n.fn], [forced_n.fp, forced_n.tn]]])
    kinds = cc.kinds_frame({"wrong_only": 5, "always": 5}, {"never": 10})
    rates = cc.ErrorRates(0.5, 1.0, 0.0, 0.0)
    yield "models", "17,895,697", lambda: cc.bound_many(forced_p, forced_n, binary)
    yield "models", "17,895,697", lambda: cc.bound_many(kinds=kinds, models=binary)
    yield "models", "17,895,697", lambda: cc.bound_many_from_rates(rates, binary)
    yield "candidates", "17,895,697", lambda: cc.bound_many(forced2, k2, same_instances=True)
    yield "candidates", "8,947,848", lambda: cc.bound_many(forced, k3, costs,
                                                           same_instances=True)
    yield "candidates", "8,947,848", lambda: cc.bound_many(forced, k3, costs,
                                                           assumption="monotone")


@pytest.mark.parametrize("route", range(6))
def test_a_billion_candidates_are_refused_at_once(route: int) -> None:
    name, ceiling, call = list(billion_calls())[route]
    text, seconds, peak = refusal(call)
    assert text.startswith(f"{name} has 1,000,000,000 candidates, more than bound_many prices "
                           f"at once ({ceiling}:")
    assert "the ceiling is 2.0 GiB" in text and "GiB, the ceiling" in text
    assert "split the candidates into batches of at most" in text and "max_candidates=" in text
    assert "\n" not in text
    assert seconds < 0.5, seconds  # measured: well under a millisecond
    assert peak < 2**20, peak  # nothing of the billion rows is allocated


def test_the_default_ceiling_is_two_gib_of_frame() -> None:
    assert chunks.MAX_OUTPUT_BYTES == 2 * 2**30
    assert cc.pricing.bounds_many.MAX_ROWS == 2 * 2**30 // 120 == 17_895_697
    forced_p, forced_n, models = binary_problem(0, rows=1)
    over = np.broadcast_to(models[0], (cc.pricing.bounds_many.MAX_ROWS + 1, 4))
    text, _, _ = refusal(lambda: cc.bound_many(forced_p, forced_n, over))
    assert "17,895,698 candidates" in text
    # K labels: the frame's 3 + 3 K**2 columns set the rows (a ceiling in rows would let
    # 5 * 10**7 candidates of K = 5 through: a 29 GiB frame)
    for k, rows in ((3, 8_947_848), (5, 3_441_480)):
        forced, costs, candidates = label_problem(k, seed=k, rows=1)
        over = np.broadcast_to(candidates[0], (rows + 1, k, k))
        text, _, _ = refusal(lambda f=forced, o=over, c=costs: cc.bound_many(
            f, o, c, same_instances=True))
        assert text.startswith(f"candidates has {rows + 1:,} candidates, more than bound_many "
                               f"prices at once ({rows:,}: the result frame of {3 + 3 * k * k} "
                               "float64 columns")


def test_max_candidates_sets_the_ceiling() -> None:
    forced_p, forced_n, models = binary_problem(1, rows=5)
    text, _, _ = refusal(lambda: cc.bound_many(forced_p, forced_n, models, max_candidates=4))
    assert text.startswith("models has 5 candidates, more than bound_many prices at once (4:")
    assert "would weigh 600 bytes, the ceiling is 480 bytes" in text
    pd.testing.assert_frame_equal(cc.bound_many(forced_p, forced_n, models, max_candidates=5),
                                  cc.bound_many(forced_p, forced_n, models))
    forced, costs, candidates = label_problem(3, seed=3, rows=3)
    with pytest.raises(ValidationError, match=r"^candidates has 3 candidates, .* \(2: "):
        cc.bound_many(forced, candidates, costs, same_instances=True, max_candidates=2)
    for wrong in (0, -1, 2.5, True, "5"):
        with pytest.raises(InputTypeError, match=r"max_candidates \(.*\) must be a whole "
                                                 r"number >= 1"):
            cc.bound_many(forced_p, forced_n, models, max_candidates=wrong)


# -- memory beside the frame: a chunk's ---------------------------------------------------------
def traced_peak_beyond_frame(call: Callable[[], pd.DataFrame]) -> int:
    call()  # warm: lazy imports and caches are not the chunk's memory
    tracemalloc.start()
    try:
        frame = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - frame.to_numpy().nbytes


def test_working_memory_is_a_chunks_not_the_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    forced_p, forced_n, models = binary_problem(2, rows=500_000)
    # one pass over 500,000 rows held about 110 bytes a row beside the frame (55 MB); in chunks
    # of 2**14 rows the work beside the frame is a few MB
    monkeypatch.setattr(chunks, "CHUNK_CELLS", 2**16)
    beyond = traced_peak_beyond_frame(lambda: cc.bound_many(forced_p, forced_n, models))
    assert beyond < 8 * 2**20, beyond
    forced, costs, candidates = label_problem(3, seed=3, rows=100_000)
    beyond = traced_peak_beyond_frame(
        lambda: cc.bound_many(forced, candidates, costs, same_instances=True))
    assert beyond < 8 * 2**20, beyond  # one pass: about 150 bytes a row beyond (15 MB)
