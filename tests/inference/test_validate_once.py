"""Arguments are validated once, at the public entry points of causalcost.inference (issue 6).

``System.require_slot`` (which calls ``with_slot``: graph searches for a slot other than the
system's own) used to run several times per call on its way down. Each public function now
validates the slot once and hands the validated value to inner functions ("assumes validated
arguments"). Counted with ``unittest.mock`` wrapping the real methods.
"""

from __future__ import annotations

from collections.abc import Callable
from unittest import mock

import pytest

import causalcost as cc
from causalcost.inference.sampling import outcome_counts
from causalcost.network.system import System

SYSTEM = cc.load_network("majority3")
OTHER = "images"  # not the file's slot: validating it means real work (with_slot)
assert SYSTEM.slot != OTHER

CALLS: dict[str, Callable[[], object]] = {
    "interventional_table exact": lambda: cc.interventional_table(SYSTEM, OTHER),
    "interventional_table sampling": lambda: cc.interventional_table(
        SYSTEM, OTHER, method="sampling", samples=500, seed=0),
    "exact_table": lambda: cc.exact_table(SYSTEM, OTHER),
    "sampled_table": lambda: cc.sampled_table(SYSTEM, OTHER, samples=500, seed=0),
    "check_monotonicity": lambda: cc.check_monotonicity(SYSTEM, OTHER),
    "error_rates": lambda: cc.error_rates(SYSTEM, OTHER),
    "error_rates sampling": lambda: cc.error_rates(SYSTEM, OTHER, method="sampling",
                                                   samples=500, seed=0),
    "simulate_forced_runs": lambda: cc.simulate_forced_runs(SYSTEM, OTHER, samples=500, seed=0),
    "outcome_counts": lambda: outcome_counts(SYSTEM, OTHER, samples=500, seed=0),
    "class_prior": lambda: cc.class_prior(SYSTEM),
    "observed_confusion": lambda: cc.observed_confusion(SYSTEM, 10, 20),
    "mutilate": lambda: cc.mutilate(SYSTEM, {OTHER: "P"}),
}


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh", "memoised"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_slot_is_validated_at_most_once_per_public_call(name: str, fresh: bool) -> None:
    if fresh:
        SYSTEM._plans.clear()  # no memoised monotonicity check or plan
    with mock.patch.object(System, "require_slot", autospec=True,
                           side_effect=System.require_slot) as require, \
            mock.patch.object(System, "with_slot", autospec=True,
                              side_effect=System.with_slot) as with_slot:
        CALLS[name]()
    assert require.call_count <= 1, require.call_args_list
    assert with_slot.call_count <= 1, with_slot.call_args_list


def test_the_one_validation_still_rejects_a_bad_slot() -> None:
    for call in (lambda: cc.interventional_table(SYSTEM, "nope"),
                 lambda: cc.sampled_table(SYSTEM, "Class", samples=10, seed=0),
                 lambda: cc.check_monotonicity(SYSTEM, "Fusioner")):
        with pytest.raises((cc.UnknownNameError, cc.NetworkStructureError)):
            call()


def test_inner_functions_take_the_validated_slot() -> None:
    # the same numbers through the public function and with the slot validated up front
    from causalcost.inference.exact import exact_table_of
    from causalcost.inference.intervene import monotonicity_of

    slot = SYSTEM.require_slot(OTHER)
    with mock.patch.object(System, "require_slot", autospec=True,
                           side_effect=AssertionError("validated twice")):
        inner = exact_table_of(SYSTEM, slot)
        check = monotonicity_of(SYSTEM, slot)
    assert (inner.probabilities == cc.exact_table(SYSTEM, OTHER).probabilities).all()
    assert check == cc.check_monotonicity(SYSTEM, OTHER)
