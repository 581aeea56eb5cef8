"""Sampling in bounded memory (inference.sampling, inference.forward).

Instances are drawn in chunks; every random node has its own stream derived from the seed, so
the counts for a seed do not depend on the chunk size, and memory does not grow with the
number of samples. The plan is cached on the network's structure and the CPD values are read
on every call, so a CPD changed in place is never served from a stale cache. References: the
same computation with other chunk sizes, a freshly built system with the new values,
brute-force enumeration (conftest.py) and ``tracemalloc``.
"""

from __future__ import annotations

import io
import sys
import tracemalloc

import numpy as np
import pytest
from conftest import SLOW_OK, brute_force_table, random_systems
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.inference import forward, sampling
from causalcost.inference.sampling import outcome_counts


@settings(max_examples=30, deadline=None, suppress_health_check=SLOW_OK)
@given(system=random_systems(), seed=st.integers(0, 2**64), n=st.integers(1, 300))
def test_chunk_size_does_not_change_the_counts(system: cc.System, seed: int, n: int) -> None:
    whole = outcome_counts(system, samples=n, seed=seed, chunk_size=n)
    for chunk in (1, 7, 64, None):
        np.testing.assert_array_equal(
            outcome_counts(system, samples=n, seed=seed, chunk_size=chunk), whole)
    assert whole[:, 0].sum() == whole[:, 1].sum() == n


def test_long_runs_cross_chunks_and_stay_paired() -> None:
    system = cc.load_network("majority3")
    counts = outcome_counts(system, samples=100_003, seed=4, chunk_size=4096)  # 25 chunks
    np.testing.assert_array_equal(counts, outcome_counts(system, samples=100_003, seed=4))
    assert counts[:, 0].sum() == counts[:, 1].sum() == 100_003
    assert counts[0, 0].sum() == counts[0, 1].sum()  # the same positives in both runs


def _peak(system: cc.System, samples: int) -> int:
    tracemalloc.start()
    try:
        outcome_counts(system, samples=samples, seed=0)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_samples() -> None:
    system = cc.load_network("thesis_and")
    small, large = _peak(system, 1 << 21), _peak(system, 1 << 24)
    assert large < 1.25 * small
    # under 4 bytes per sample (drawing all at once holds 8 per node and sample)
    assert large < sampling.CHUNK_MEMORY == 4 << 24


# ------------------------------------------------------------------------ plan cache
def _two_models(sensitivity: float, order: tuple[str, str] = ("a", "b")) -> cc.System:
    settings_ = {"a": (sensitivity, 0.7), "b": (0.6, 0.9)}
    builder = cc.SystemBuilder(class_prior=0.4)
    for name in order:
        builder.add_model(name, sensitivity=settings_[name][0], specificity=settings_[name][1])
    return builder.set_fusioner("or", inputs=["a", "b"]).build(slot="b")


def test_a_cpd_changed_in_place_changes_the_result() -> None:
    system = _two_models(0.8)
    before = outcome_counts(system, samples=20_000, seed=3)
    exact_before = cc.exact_table(system).probabilities
    cpd = system.network.get_cpds("a")
    cpd.values[:] = np.array([[0.3, 0.3], [0.7, 0.7]])  # in place: P(a = P) = 0.3 either class
    after = outcome_counts(system, samples=20_000, seed=3)
    assert not np.array_equal(before, after)
    # the same as a system built with those values from the start (same seed, same streams)
    fresh = (cc.SystemBuilder(class_prior=0.4)
             .add_model("a", sensitivity=0.3, specificity=0.7)  # P(a = P) = 0.3 either way
             .add_model("b", sensitivity=0.6, specificity=0.9)
             .set_fusioner("or").build(slot="b"))
    np.testing.assert_array_equal(after, outcome_counts(fresh, samples=20_000, seed=3))
    exact_after = cc.exact_table(system).probabilities
    assert not np.allclose(exact_before, exact_after)
    np.testing.assert_allclose(exact_after, brute_force_table(fresh), rtol=0, atol=1e-12)
    # OR with the slot forced to N misses a positive iff "a" does: 1 - 0.3
    assert exact_after[0, 1, 1] == pytest.approx(0.7, abs=1e-12)


def test_plan_is_shared_by_structure_and_holds_no_values() -> None:
    a, b = _two_models(0.8), _two_models(0.3)
    plan = forward.plan_sampling(a, "b")
    assert forward.plan_sampling(b, "b") is plan
    for step in plan.steps:  # structure only: names, cardinalities, flags
        assert not any(isinstance(v, np.ndarray) for v in vars(step).values())
    assert not np.array_equal(outcome_counts(a, samples=5000, seed=1),
                              outcome_counts(b, samples=5000, seed=1))


def test_counts_do_not_depend_on_declaration_order_or_cache_state() -> None:
    forward._CACHE.clear()
    first = outcome_counts(_two_models(0.8, ("b", "a")), samples=5000, seed=9)
    forward._CACHE.clear()
    outcome_counts(_two_models(0.8, ("a", "b")), samples=10, seed=0)  # warms the cache
    second = outcome_counts(_two_models(0.8, ("a", "b")), samples=5000, seed=9)
    np.testing.assert_array_equal(first, second)


# ------------------------------------------------------------------------ arguments
@pytest.mark.parametrize("seed", [-1, -(2**70)])
def test_negative_seed(seed: int) -> None:
    with pytest.raises(cc.ValidationError, match="seed must be a non-negative integer"):
        cc.sampled_table(cc.load_network("thesis_and"), samples=100, seed=seed)


@pytest.mark.parametrize("seed", ["7", 1.5, True])
def test_seed_of_the_wrong_type(seed: object) -> None:
    with pytest.raises(cc.InputTypeError, match="seed must be a non-negative integer"):
        cc.simulate_forced_runs(cc.load_network("thesis_and"), samples=100, seed=seed)


def test_huge_seeds_and_numpy_integers_are_accepted() -> None:
    system = cc.load_network("thesis_and")
    np.testing.assert_array_equal(outcome_counts(system, samples=50, seed=np.int64(5)),
                                  outcome_counts(system, samples=50, seed=5))
    assert outcome_counts(system, samples=50, seed=2**100).sum() == 100


def test_sample_counts_past_the_limit() -> None:
    system = cc.load_network("thesis_and")
    with pytest.raises(cc.ValidationError, match=r"samples \(9007199254740993\) exceeds the "
                       r"ceiling of 1000000000 \(10\*\*9"):
        cc.interventional_table(system, method="sampling", samples=2**53 + 1, seed=0)
    with pytest.raises(cc.ValidationError, match="samples must be a positive integer"):
        cc.sampled_table(system, samples=10**20 * 1.0, seed=0)


def test_interval_settings_are_checked_before_sampling() -> None:
    # the ceiling, 10**9 samples, would run for minutes: the bad setting must be refused first
    system = cc.load_network("thesis_and")
    with pytest.raises(cc.ValidationError, match="interval_method"):
        cc.sampled_table(system, samples=10**9, seed=0, interval="normal")
    with pytest.raises(cc.ValidationError, match="confidence"):
        cc.interventional_table(system, method="sampling", samples=10**9, confidence=95)


@pytest.mark.parametrize("chunk", [0, -3, 2.0, True])
def test_bad_chunk_size(chunk: object) -> None:
    with pytest.raises(cc.ValidationError, match="chunk_size must be a positive integer"):
        outcome_counts(cc.load_network("thesis_and"), samples=10, seed=0, chunk_size=chunk)


# ------------------------------------------------------------------------ progress
def test_progress_bar_on_request_and_not_by_default(capsys) -> None:
    system = cc.load_network("thesis_and")
    quiet = cc.sampled_table(system, samples=3000, seed=2)
    assert capsys.readouterr().err == ""  # stderr is not a terminal here
    shown = cc.sampled_table(system, samples=3000, seed=2, progress=True)
    err = capsys.readouterr().err
    assert "sampling" in err and "3.00k" in err
    np.testing.assert_array_equal(quiet.probabilities, shown.probabilities)
    cc.sampled_table(system, samples=3000, seed=2, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(cc.InputTypeError, match="progress must be True, False or None"):
        cc.sampled_table(system, samples=10, seed=0, progress="yes")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_automatic_on_a_terminal_for_long_runs(monkeypatch) -> None:
    system = cc.load_network("thesis_and")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    cc.simulate_forced_runs(system, samples=2000, seed=0)  # short: no bar
    assert terminal.getvalue() == ""
    monkeypatch.setattr(sampling, "PROGRESS_WORK", 1000)  # now "long"
    cc.simulate_forced_runs(system, samples=2000, seed=0)
    assert "sampling" in terminal.getvalue()
