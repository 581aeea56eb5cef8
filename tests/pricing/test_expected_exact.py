"""Issue 16.8: the count form's expected row (cost function 1) is exact beyond 2**53.

``bound --forced-p tp=2**53+1 ...`` printed an expected row one less than the truth: the rates
``F / n`` were floats. The reference here is cost function 1 written out in
``fractions.Fraction`` (METHOD.md: ``FN^S = tp F_P(P)/n_P + fn F_P(N)/n_P``,
``FP^S = tn F_N(N)/n_N + fp F_N(P)/n_N``), independent of the package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.pricing.kinds import kinds_frame

ROOT = Path(__file__).resolve().parents[2]
SIZES = [2**53 + 1, 2**63 + 5]


def reference(forced_p: cc.Confusion, forced_n: cc.Confusion, model: cc.Confusion,
              costs: cc.CostMatrix) -> tuple[tuple[Fraction, ...], Fraction]:
    """Cost function 1's confusion and cost, exactly."""
    tp, fn, fp, tn = (Fraction(int(c)) for c in model.cells())
    n_p, n_n = tp + fn, fp + tn
    sys_fn = tp * Fraction(int(forced_p.fn)) / n_p + fn * Fraction(int(forced_n.fn)) / n_p
    sys_fp = tn * Fraction(int(forced_n.fp)) / n_n + fp * Fraction(int(forced_p.fp)) / n_n
    cells = (n_p - sys_fn, sys_fn, sys_fp, n_n - sys_fp)
    cost = sum(Fraction(c) * v for c, v in zip(costs.cells(), cells, strict=True))
    return cells, cost


def assert_matches(expected: cc.Confusion, cells: tuple[Fraction, ...]) -> None:
    for got, ref in zip(expected.cells(), cells, strict=True):
        if ref.denominator == 1:  # integral: exactly, as an int beyond 2**53
            assert got == int(ref) and Fraction(got) == ref
        else:  # fractional: the float nearest the exact value (rounded once)
            assert got == float(ref)


@pytest.mark.parametrize("n", SIZES)
def test_perfect_model_expected_row_is_exact(n: int) -> None:
    # the system follows the slot: forced to P it misses no positive, forced to N all of them
    forced_p, forced_n = cc.Confusion(n, 0, n, 0), cc.Confusion(0, n, 0, n)
    model = cc.Confusion(n, 0, 1, n - 1)
    b = cc.bound(forced_p, forced_n, model)
    cells, cost = reference(forced_p, forced_n, model, cc.CostMatrix())
    assert cells == (n, 0, 1, n - 1)  # the reference: tp = n, odd, which float64 cannot hold
    assert_matches(b.expected, cells)
    assert b.expected.tp == n and b.expected.tp != float(n)  # not rounded
    assert b.expected.tn == n - 1
    assert b.expected_cost == float(cost) == 1.0
    # the expected row lies between the worst and the best, as cost function 1 must
    assert b.best.fn <= b.expected.fn <= b.worst.fn
    assert b.to_frame().loc["expected", "tp"] == n
    assert json.loads(json.dumps(b.to_dict()))["expected"]["tp"] == n


@pytest.mark.parametrize("n", SIZES)
def test_fractional_expected_cells_are_rounded_once(n: int) -> None:
    forced_p = cc.Confusion(n - 2, 2, 3, n - 3)
    forced_n = cc.Confusion(0, n, 0, n)
    model = cc.Confusion(n - 7, 7, 1, n - 1)
    costs = cc.CostMatrix(fn=5, fp=0.5)
    b = cc.bound(forced_p, forced_n, model, costs)
    cells, cost = reference(forced_p, forced_n, model, costs)
    assert_matches(b.expected, cells)
    assert b.expected_cost == float(cost)


@pytest.mark.parametrize("n", SIZES)
def test_kinds_form_expected_row_is_exact(n: int) -> None:
    # positives: all wrong_only; negatives: all never; the model misses 3 positives
    model = cc.Confusion(n - 3, 3, 0, n)
    b = cc.bound(kinds=kinds_frame({"wrong_only": n}, {"never": n}), model=model)
    forced_p, forced_n = cc.Confusion(n, 0, 0, n), cc.Confusion(0, n, 0, n)
    cells, _ = reference(forced_p, forced_n, model, cc.CostMatrix())
    assert cells == (n - 3, 3, 0, n)
    assert_matches(b.expected, cells)
    assert b.expected == b.worst == b.best


@pytest.mark.parametrize("n", SIZES)
def test_cli_bound_expected_row_is_exact(n: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "causalcost", "bound", "--forced-p", f"tp={n},fn=0,fp={n},tn=0",
         "--forced-n", f"tp=0,fn={n},fp=0,tn={n}", "--model", f"tp={n},fn=0,fp=1,tn={n - 1}",
         "--json"], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    row = json.loads(out.stdout)["expected"]
    assert (row["tp"], row["fn"], row["fp"], row["tn"]) == (n, 0, 1, n - 1)
    assert row["tp"] == n  # JSON keeps the odd integer, not n - 1
    text = subprocess.run(
        [sys.executable, "-m", "causalcost", "bound", "--forced-p", f"tp={n},fn=0,fp={n},tn=0",
         "--forced-n", f"tp=0,fn={n},fp=0,tn={n}", "--model", f"tp={n},fn=0,fp=1,tn={n - 1}"],
        capture_output=True, text=True, cwd=ROOT, env=env, check=True).stdout
    expected_line = next(line for line in text.splitlines() if line.startswith("expected"))
    assert expected_line.split()[1:5] == [str(n), "0", "1", str(n - 1)]


@st.composite
def huge_case(draw: st.DrawFn) -> tuple[cc.Confusion, cc.Confusion, cc.Confusion]:
    # beyond 2**53 the expected row is computed in rationals (up to it, in floats: rel 1e-15)
    n_p, n_n = draw(st.integers(2**53 + 1, 2**70)), draw(st.integers(2**53 + 1, 2**70))
    fcp = draw(st.integers(0, n_p))
    fwp = draw(st.integers(fcp, n_p))
    fcn = draw(st.integers(0, n_n))
    fwn = draw(st.integers(fcn, n_n))
    tp, tn = draw(st.integers(0, n_p)), draw(st.integers(0, n_n))
    return (cc.Confusion(n_p - fcp, fcp, fwn, n_n - fwn),
            cc.Confusion(n_p - fwp, fwp, fcn, n_n - fcn),
            cc.Confusion(tp, n_p - tp, n_n - tn, tn))


@settings(max_examples=150, deadline=None)
@given(case=huge_case(), fn_cost=st.integers(1, 10), fp_cost=st.integers(1, 10))
def test_expected_row_matches_fraction_reference(case: tuple, fn_cost: int,
                                                 fp_cost: int) -> None:
    forced_p, forced_n, model = case
    costs = cc.CostMatrix(fn=fn_cost, fp=fp_cost)
    b = cc.bound(forced_p, forced_n, model, costs)
    cells, cost = reference(forced_p, forced_n, model, costs)
    assert_matches(b.expected, cells)
    assert b.expected_cost == float(cost)
