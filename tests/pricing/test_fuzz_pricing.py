"""Issue 7: malformed input to the public API raises a CausalCostError, never anything else.

Hypothesis throws malformed values (None, strings, NaN, infinities, huge integers, negative
numbers, bools, numpy scalars, complex numbers, arrays of the wrong shape, arbitrary objects)
mixed with valid ones at the value types (causalcost.confusion), their parsers, the cost
functions, the bounds and the correlation helpers, and checks each call either raises a
CausalCostError or returns finite numbers equal to a reference computed here (exactly, with
Python integers and fractions.Fraction, from METHOD.md's formulas). Any other exception fails
the test, and so does a NaN or an infinity in a result.
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.confusion import CELLS, parse_cells
from causalcost.errors import CausalCostError, OverflowInputError
from causalcost.pricing.closed_forms import class_assumptions
from causalcost.pricing.kinds import count_kinds, forced_from_kinds
from causalcost.pricing.witness import ClassWitness, Witness

FLOAT_MAX = sys.float_info.max
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

JUNK = st.one_of(
    st.none(), st.text(max_size=4), st.binary(max_size=2), st.booleans(),
    st.sampled_from([np.bool_(True), np.str_("7"), Decimal("1"), Fraction(1, 3), object(),
                     math.nan, math.inf, -math.inf, np.float64("nan"), np.float32("inf"),
                     10**400, -(10**400), -1, -0.5, np.int64(-3), 1e308, 2**64]),
    st.complex_numbers(max_magnitude=5, allow_nan=False, allow_infinity=False),
    st.lists(st.integers(0, 5), max_size=5),
    st.dictionaries(st.sampled_from(["tp", "fn", "x"]), st.integers(0, 3), max_size=2),
    st.builds(np.zeros, st.sampled_from([(3,), (2, 3), (1, 4), (0, 4), (2, 2, 2)])),
)
GOOD = st.one_of(
    st.integers(0, 10**6), st.floats(0, 1e6), st.integers(2**53 - 2, 2**70),
    st.sampled_from([np.int64(5), np.float64(2.5), np.uint8(3), np.float32(1.5)]),
)
MAYBE = st.one_of(GOOD, JUNK)


def call(f: Any, *args: Any, **kwargs: Any) -> tuple[Any, CausalCostError | None]:
    """Run ``f``; a CausalCostError is an outcome, any other exception fails the test."""
    try:
        return f(*args, **kwargs), None
    except CausalCostError as exc:
        assert str(exc), "an error without a message"
        return None, exc


def assert_finite(value: Any) -> None:
    """Every number reachable in ``value`` is finite."""
    if isinstance(value, (pd.DataFrame, pd.Series)):
        assert np.isfinite(value.to_numpy(dtype=float)).all()
    elif isinstance(value, dict):
        for v in value.values():
            assert_finite(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            assert_finite(v)
    elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        assert math.isfinite(float(value)), value
    elif hasattr(value, "to_dict"):
        assert_finite(value.to_dict())


def is_real(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_))


def as_fraction(v: Any) -> Fraction | None:
    """The exact value of a finite real within float64's range, else None."""
    if not is_real(v):
        return None
    if isinstance(v, (int, np.integer)):
        x = Fraction(int(v))
    else:
        if not math.isfinite(float(v)):
            return None
        x = Fraction(float(v))
    return x if abs(x) <= FLOAT_MAX else None


def cost_band(x: Fraction) -> str:
    """'ok' when a float64 result surely fits, 'over' when it surely does not, else 'edge'."""
    if abs(x) > FLOAT_MAX * (1 + 1e-9):
        return "over"
    return "ok" if abs(x) < FLOAT_MAX * (1 - 1e-9) else "edge"


# --------------------------------------------------------------------------- value types
@FUZZ
@given(st.tuples(MAYBE, MAYBE, MAYBE, MAYBE))
def test_confusion_constructor(cells: tuple) -> None:
    m, err = call(cc.Confusion, *cells)
    exact = [as_fraction(v) for v in cells]
    valid = all(x is not None and x >= 0 for x in exact) and sum(exact) <= FLOAT_MAX
    assert (err is None) == valid, (cells, err)
    if m is not None:
        assert [Fraction(c) for c in m.cells()] == exact  # the value given, exactly
        if all(x.denominator == 1 for x in exact):  # counts add exactly at any size
            assert Fraction(m.positives) == exact[0] + exact[1]
            assert Fraction(m.total) == sum(exact)
        else:  # expected counts add as floats
            assert m.total == pytest.approx(float(sum(exact)), rel=1e-15)
        assert_finite(m.to_dict())


@FUZZ
@given(st.tuples(*(st.one_of(st.floats(-1e308, 1e308), JUNK) for _ in range(4))))
def test_cost_matrix_constructor(cells: tuple) -> None:
    c, err = call(cc.CostMatrix, *cells)
    tp, fn, fp, tn = (as_fraction(v) for v in cells)
    if None in (tp, fn, fp, tn) or tp > fn or tn > fp:
        assert err is not None, cells
        return
    spreads = [cost_band(fn - tp), cost_band(fp - tn)]
    if "over" in spreads:
        assert err is not None
    elif spreads == ["ok", "ok"]:
        assert err is None and [Fraction(v) for v in c.cells()] == [tp, fn, fp, tn]


CELL_TEXT = st.one_of(st.integers(-5, 2**70).map(str), st.floats().map(repr),
                      st.sampled_from(["", "x", "1e999", "nan", "-inf", "1_000", " 7 "]))


@st.composite
def cell_strings(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.sampled_from(["tp", "fn", "fp", "tn", "TP", "xx", ""]),
                         max_size=5))
    parts = [f"{k}{draw(st.sampled_from(['=', '=', ':']))}{draw(CELL_TEXT)}" for k in keys]
    return ",".join(parts)


def reference_parse(text: str) -> dict[str, Fraction] | None:
    out: dict[str, Fraction] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in CELLS or key in out:
            return None
        try:
            number: Any = int(value)
        except ValueError:
            try:
                number = float(value)
            except ValueError:
                return None
        x = as_fraction(number)
        if x is None:
            return {**out, key: None}  # type: ignore[dict-item]
        out[key] = x
    return out


@FUZZ
@given(st.one_of(cell_strings(), JUNK, st.text(max_size=20)))
def test_parsers(text: Any) -> None:
    m, err = call(cc.Confusion.parse, text)
    c, c_err = call(cc.CostMatrix.parse, text)
    cells, cells_err = call(parse_cells, text)
    if not isinstance(text, str):
        assert err is not None and c_err is not None and cells_err is not None
        return
    ref = reference_parse(text)
    if ref is None:
        assert err is not None and c_err is not None and cells_err is not None
        return
    if set(ref) == set(CELLS) and None not in ref.values() and all(v >= 0 for v in ref.values()) \
            and sum(ref.values()) <= FLOAT_MAX:
        assert err is None and [Fraction(v) for v in m.cells()] == [ref[k] for k in CELLS]
    else:
        assert err is not None
    if c is not None:
        assert_finite(c.to_dict())
        assert all(Fraction(getattr(c, k)) == ref[k] for k in ref)


ARRAYS = st.one_of(
    JUNK,
    st.lists(st.lists(MAYBE, min_size=2, max_size=2), min_size=2, max_size=2),
    st.lists(st.lists(GOOD, min_size=2, max_size=2), min_size=2, max_size=2),
    st.lists(st.lists(GOOD, min_size=1, max_size=3), min_size=1, max_size=3),
)


@FUZZ
@given(ARRAYS, st.one_of(st.just((0, 1)), st.just(["a", "a"]), JUNK), st.one_of(st.just(1), JUNK))
def test_array_constructors(array: Any, labels: Any, positive: Any) -> None:
    m, err = call(cc.Confusion.from_array, array)
    if m is not None:
        flat = [v for row in array for v in row]
        assert [Fraction(c) for c in m.cells()] == [as_fraction(v) for v in flat]
        assert cc.Confusion.from_array(m.to_array()) == m
        assert cc.Confusion.from_frame(m.to_frame()) == m
    s, s_err = call(cc.Confusion.from_sklearn, array, labels, positive)
    p = positive_row(labels, positive)
    if m is not None:  # a valid matrix: from_sklearn fails only for bad labels
        assert (s_err is None) == (p is not None), (labels, positive, s_err)
    if s is not None:
        n = 1 - p
        assert s == cc.Confusion(array[p][p], array[p][n], array[n][p], array[n][n])
    for f in (cc.CostMatrix.from_array, cc.Confusion.from_mapping, cc.CostMatrix.from_mapping,
              cc.Confusion.from_frame):
        result, _ = call(f, array)
        assert_finite(result)
    if m is not None:
        back, t_err = call(m.to_sklearn, labels, positive)
        assert (t_err is None) == (p is not None)
        if back is not None:
            assert cc.Confusion.from_sklearn(back, labels, positive) == m


def positive_row(labels: Any, positive: Any) -> int | None:
    """scikit-learn's row of the positive label: two different labels, one equal to it."""
    def same(a: Any, b: Any) -> bool:
        try:
            return bool(np.all(a == b))
        except (TypeError, ValueError):
            return False

    try:
        labels = list(labels)
    except TypeError:
        return None
    if len(labels) != 2 or same(labels[0], labels[1]):
        return None
    rows = [i for i, label in enumerate(labels) if same(label, positive)]
    return rows[0] if rows else None


@FUZZ
@given(MAYBE, MAYBE, st.one_of(st.floats(-1, 1), JUNK))
def test_correlation(a: Any, b: Any, rho: Any) -> None:
    r, err = call(cc.correlation_range, a, b)
    fa, fb = as_fraction(a), as_fraction(b)
    valid = fa is not None and fb is not None and 0 <= fa <= 1 and 0 <= fb <= 1
    assert (err is None) == valid, (a, b)
    if r is not None:
        assert_finite(r)
        assert -1 <= r[0] <= r[1] <= 1
        joint, j_err = call(cc.correlated_correctness, a, b, rho)
        if joint is not None:
            assert_finite(joint)
            assert sum(joint) == pytest.approx(1.0, abs=1e-12)
            assert joint[0] + joint[1] == pytest.approx(float(a), abs=1e-12)  # P(first right)
        elif as_fraction(rho) is not None and r[0] + 1e-9 < float(rho) < r[1] - 1e-9:
            pytest.fail(f"a reachable correlation was refused: {j_err}")


# --------------------------------------------------------------------------- cost functions
RATES = st.builds(cc.ErrorRates, *(st.floats(0, 1) for _ in range(4)))


@st.composite
def cost_matrices(draw: st.DrawFn) -> cc.CostMatrix:
    scale = draw(st.sampled_from([1.0, 1e150, 1e305, 1e307]))
    tp, tn = draw(st.floats(-1, 1)) * scale, draw(st.floats(-1, 1)) * scale
    fn = tp + draw(st.floats(0, 1)) * scale
    fp = tn + draw(st.floats(0, 1)) * scale
    made, err = call(cc.CostMatrix, tp=tp, fn=fn, fp=fp, tn=tn)
    return made if made is not None else cc.CostMatrix(fn=1, fp=1)


CONFUSIONS = st.builds(cc.Confusion, *(st.one_of(st.integers(0, 10**6), st.floats(0, 1e6),
                                                 st.integers(0, 2**70)) for _ in range(4)))


def c1_cells(r: cc.ErrorRates, c: cc.CostMatrix) -> list[float]:
    """Cost function 1, METHOD.md."""
    return [r.fn_forced_p * c.fn + (1 - r.fn_forced_p) * c.tp,
            r.fn_forced_n * c.fn + (1 - r.fn_forced_n) * c.tp,
            r.fp_forced_p * c.fp + (1 - r.fp_forced_p) * c.tn,
            r.fp_forced_n * c.fp + (1 - r.fp_forced_n) * c.tn]


@FUZZ
@given(st.one_of(RATES, JUNK), st.one_of(cost_matrices(), JUNK), st.one_of(CONFUSIONS, JUNK))
def test_cost_functions(rates: Any, costs: Any, model: Any) -> None:
    typed = isinstance(rates, cc.ErrorRates) and isinstance(costs, cc.CostMatrix)
    c1, err = call(cc.expected_cost_matrix, rates, costs)
    c2, err2 = call(cc.error_transition_matrix, rates, costs)
    assert (err is None) == typed and (err2 is None) == typed
    if not typed:
        return
    assert c1.cells() == pytest.approx(c1_cells(rates, costs), rel=1e-12)
    r, c = rates, costs
    assert c2.cells() == pytest.approx([0, (r.fn_forced_n - r.fn_forced_p) * (c.fn - c.tp),
                                        (r.fp_forced_p - r.fp_forced_n) * (c.fp - c.tn), 0],
                                       rel=1e-12)
    ev, ev_err = call(cc.evaluate_costs, rates, costs, model)
    if not isinstance(model, cc.Confusion):
        assert ev_err is not None
        return
    eval1 = sum(Fraction(x) * Fraction(n) for x, n in zip(c1.cells(), model.cells(), strict=True))
    eval2 = sum(Fraction(x) * Fraction(n) for x, n in zip(c2.cells(), model.cells(), strict=True))
    bands = {cost_band(eval1), cost_band(eval2)}
    if "over" in bands:
        assert isinstance(ev_err, OverflowInputError)
    elif bands == {"ok"} and ev is not None:
        assert ev.eval1 == pytest.approx(float(eval1), rel=1e-9, abs=1e-9)
        assert ev.eval2 == pytest.approx(float(eval2), rel=1e-9, abs=1e-9)
    if ev is not None:
        assert_finite(ev.to_dict())
        assert_finite(ev.identity_gap)


@FUZZ
@given(st.one_of(RATES, JUNK), MAYBE, MAYBE)
def test_perfect_slot_cost_and_expected_confusion(rates: Any, positives: Any,
                                                   negatives: Any) -> None:
    costs = cc.CostMatrix(fn=5, fp=1)
    value, err = call(cc.perfect_slot_cost, rates, costs, positives, negatives)
    sizes = [as_fraction(positives), as_fraction(negatives)]
    valid = isinstance(rates, cc.ErrorRates) and all(x is not None and x >= 0 for x in sizes) \
        and sum(sizes) <= FLOAT_MAX
    assert (err is None) == valid, (rates, positives, negatives, err)
    if value is not None:
        c1 = c1_cells(rates, costs)
        assert value == pytest.approx(float(c1[0] * sizes[0] + c1[3] * sizes[1]), rel=1e-9)
        model = cc.Confusion(positives, 0, 0, negatives)
        expected, _ = call(cc.expected_system_confusion, rates, model)
        assert_finite(expected.to_dict())
        assert Fraction(expected.positives) == pytest.approx(sizes[0], rel=1e-12)


# ------------------------------------------------------------------------------- bounds
@st.composite
def count_problems(draw: st.DrawFn) -> tuple:
    """Forced runs and a model, usually consistent, sometimes perturbed; sizes up to 2**70."""
    def cls() -> tuple[int, int, int, int]:
        n = draw(st.one_of(st.integers(0, 50), st.integers(0, 2**70)))
        fc, fw = sorted((draw(st.integers(0, n)), draw(st.integers(0, n))))
        if draw(st.booleans()):
            fc, fw = fw, fc  # not monotone
        return n, fc, fw, draw(st.integers(0, n))

    (n_p, fcp, fwp, tp), (n_n, fcn, fwn, tn) = cls(), cls()
    cells = [[n_p - fcp, fcp, fwn, n_n - fwn], [n_p - fwp, fwp, fcn, n_n - fcn],
             [tp, n_p - tp, n_n - tn, tn]]
    if draw(st.integers(0, 9)) == 0:  # perturb one cell: totals disagree
        cells[draw(st.integers(0, 2))][draw(st.integers(0, 3))] += 1
    if draw(st.integers(0, 9)) == 0:  # a fractional count
        cells[draw(st.integers(0, 2))][draw(st.integers(0, 3))] += 0.5
    return tuple(cc.Confusion(*c) for c in cells)


def reference_bound(forced_p: cc.Confusion, forced_n: cc.Confusion, model: cc.Confusion,
                    costs: cc.CostMatrix, assumption: str) -> tuple | str:
    """METHOD.md's closed forms in exact arithmetic, or the name of the expected refusal."""
    ms = (forced_p, forced_n, model)
    if not all(float(v).is_integer() for m in ms for v in m.cells()):
        return "CountError"
    cells = [[int(v) for v in m.cells()] for m in ms]
    sizes = {(c[0] + c[1], c[2] + c[3]) for c in cells}
    if len(sizes) > 1:
        return "InfeasibleInputError"
    fcp, fwp, fcn, fwn = cells[0][1], cells[1][1], cells[1][2], cells[0][2]
    tp, fn, fp, tn = cells[2]
    # the one monotone rule: a class is constrained only when its mistake costs more than its
    # hit (C[c, r(c)] <= C[c, r(j)] says nothing when the two cost the same)
    bound_p = assumption == "monotone" and costs.fn > costs.tp
    bound_n = assumption == "monotone" and costs.fp > costs.tn
    if (bound_p and fcp > fwp) or (bound_n and fcn > fwn):
        return "InfeasibleInputError"

    def extremes(fc: int, fw: int, nc: int, nw: int, monotone: bool) -> tuple[int, int]:
        if monotone:
            return min(fw, fc + nw), max(fc, fw - nc)
        return min(fc, nc) + min(fw, nw), max(0, fc - nw) + max(0, fw - nc)

    (wp, bp), (wn, bn) = extremes(fcp, fwp, tp, fn, bound_p), extremes(fcn, fwn, tn, fp, bound_n)
    n_p, n_n = tp + fn, fp + tn
    out = []
    for ep, en in ((wp, wn), (bp, bn)):
        conf = (n_p - ep, ep, en, n_n - en)
        out.append((conf, sum(Fraction(c) * v for c, v in zip(costs.cells(), conf, strict=True))))
    return tuple(out)


ASSUMPTION = st.one_of(st.sampled_from(["monotone", "none"]), JUNK)


@FUZZ
@given(count_problems(), st.one_of(cost_matrices(), JUNK), ASSUMPTION, st.integers(0, 3))
def test_bound(problem: tuple, costs: Any, assumption: Any, junk_at: int) -> None:
    args = list(problem)
    if junk_at < 3 and not isinstance(costs, cc.CostMatrix):  # junk in a matrix's place too
        args[junk_at] = costs
        costs = cc.CostMatrix(fn=5, fp=1)
    b, err = call(cc.bound, *args, costs, assumption=assumption)
    typed = all(isinstance(a, cc.Confusion) for a in args) and isinstance(costs, cc.CostMatrix)
    if assumption is None:  # bound's default: monotone for forced runs
        assumption = "monotone"
    elif not (isinstance(assumption, str) and assumption in ("monotone", "none")):
        assert err is not None
        return
    if not typed:
        assert err is not None
        return
    ref = reference_bound(*args, costs, assumption)
    if isinstance(ref, str):
        assert type(err).__name__ == ref, (ref, err)
        return
    bands = {cost_band(x) for _, x in ref}
    if "over" in bands:
        assert isinstance(err, OverflowInputError), err
        return
    if bands != {"ok"} and err is not None:
        return
    assert err is None, err
    for (conf, cost), got, got_cost in ((ref[0], b.worst, b.worst_cost),
                                        (ref[1], b.best, b.best_cost)):
        assert [int(v) for v in got.cells()] == list(conf) and list(got.cells()) == list(conf)
        assert got_cost == pytest.approx(float(cost), rel=1e-9, abs=1e-9)
    assert_finite(b.to_dict())
    frame, f_err = call(cc.bound_many, args[0], args[1], [args[2].cells()], costs,
                        assumption=assumption)
    if frame is not None:
        assert frame.loc[0, "worst_fn"] == b.worst.fn and frame.loc[0, "best_fp"] == b.best.fp
        assert_finite(frame)
    else:  # the frame cannot hold counts beyond 2**53, or an expected cost overflowed
        assert args[2].total > 2**53 or isinstance(f_err, OverflowInputError), f_err


MODELS = st.one_of(
    JUNK,
    st.lists(st.lists(MAYBE, min_size=4, max_size=4), min_size=1, max_size=3),
    st.lists(st.lists(st.integers(0, 100), min_size=4, max_size=4), min_size=1, max_size=3),
    st.builds(lambda a: np.array(a, dtype=object),
              st.lists(st.lists(st.integers(0, 2**70), min_size=4, max_size=4), min_size=1,
                       max_size=2)),
    st.builds(lambda a: np.array(a, dtype=bool), st.lists(st.lists(st.booleans(), min_size=4,
                                                                   max_size=4), min_size=1)),
)


@FUZZ
@given(MODELS, st.one_of(RATES, JUNK), st.one_of(cost_matrices(), JUNK))
def test_vectorised_bounds(models: Any, rates: Any, costs: Any) -> None:
    forced_p, forced_n = cc.Confusion(50, 50, 100, 100), cc.Confusion(0, 100, 0, 200)
    frame, err = call(cc.bound_many, forced_p, forced_n, models, costs, assumption="none")
    if frame is not None:
        assert_finite(frame)
        for i, row in enumerate(np.asarray(models, dtype=object).tolist()):
            b = cc.bound(forced_p, forced_n, cc.Confusion(*row), costs, assumption="none")
            assert frame.loc[i, "worst_cost"] == pytest.approx(b.worst_cost, rel=1e-9)
            assert frame.loc[i, "best_fn"] == b.best.fn
    frame, err = call(cc.bound_many_from_rates, rates, models, costs, assumption="none")
    if frame is not None:
        assert_finite(frame)
        for i, row in enumerate(np.asarray(models, dtype=object).tolist()):
            b = cc.bound_from_rates(rates, cc.Confusion(*row), costs, assumption="none")
            assert frame.loc[i, "worst_cost"] == pytest.approx(b.worst_cost, rel=1e-9)


@FUZZ
@given(st.one_of(RATES, JUNK), st.one_of(CONFUSIONS, JUNK), st.one_of(cost_matrices(), JUNK),
       ASSUMPTION)
def test_bound_from_rates(rates: Any, model: Any, costs: Any, assumption: Any) -> None:
    b, err = call(cc.bound_from_rates, rates, model, costs, assumption=assumption)
    typed = (isinstance(rates, cc.ErrorRates) and isinstance(model, cc.Confusion)
             and isinstance(costs, cc.CostMatrix) and isinstance(assumption, str)
             and assumption in ("monotone", "none"))
    if not typed:
        assert err is not None
        return
    # the one monotone rule, per cost: it constrains a class only where a mistake costs more
    # than a hit (C[c, r(c)] <= C[c, r(j)] per instance)
    on_p, on_n = class_assumptions(costs, assumption)
    if ((on_p == "monotone" and rates.fn_forced_p > rates.fn_forced_n)
            or (on_n == "monotone" and rates.fp_forced_n > rates.fp_forced_p)):
        assert isinstance(err, cc.InfeasibleInputError)
        return
    if b is None:  # only a cost beyond float64 may be refused
        assert isinstance(err, OverflowInputError), err
        return
    assert_finite(b.to_dict())
    n_p, n_n = Fraction(model.positives), Fraction(model.negatives)
    r = rates
    for got, fc, fw, nc, nw, on in (
            (b.worst.fn, r.fn_forced_p * n_p, r.fn_forced_n * n_p, model.tp, model.fn, on_p),
            (b.worst.fp, r.fp_forced_n * n_n, r.fp_forced_p * n_n, model.tn, model.fp, on_n)):
        fc, fw, nc, nw = (Fraction(v) for v in (fc, fw, nc, nw))
        worst = min(fw, fc + nw) if on == "monotone" else min(fc, nc) + min(fw, nw)
        assert float(got) == pytest.approx(float(worst), rel=1e-9, abs=1e-6)


@FUZZ
@given(st.one_of(st.builds(lambda *v: pd.DataFrame([v[:4], v[4:]], index=["P", "N"],
                                                   columns=list(cc.pricing.bounds.KINDS)),
                           *(st.integers(0, 5) for _ in range(8))), MODELS, JUNK),
       st.one_of(CONFUSIONS, JUNK))
def test_kinds_inputs(kinds: Any, model: Any) -> None:
    b, err = call(cc.bound, kinds=kinds, model=model)
    if b is not None:
        assert_finite(b.to_dict())
        forced_p, forced_n = forced_from_kinds(kinds)
        free = cc.bound(forced_p, forced_n, model, assumption="none")
        assert free.best.fn <= b.best.fn <= b.worst.fn <= free.worst.fn
    frame, _ = call(cc.bound_many, kinds=kinds, models=[model.cells()] if isinstance(
        model, cc.Confusion) else model)
    if frame is not None:
        assert_finite(frame)
    counted, _ = call(count_kinds, model if not isinstance(model, cc.Confusion) else [1],
                      kinds if not isinstance(kinds, pd.DataFrame) else [1], [0])
    if counted is not None:
        assert counted.to_numpy().sum() == 1


@FUZZ
@given(st.tuples(MAYBE, MAYBE), st.tuples(MAYBE, MAYBE), JUNK)
def test_witness_values(pair: tuple, other: tuple, junk: Any) -> None:
    cw, err = call(ClassWitness, never=pair, always=other)
    values = [as_fraction(v) for v in (*pair, *other)]
    valid = all(x is not None and x >= 0 for x in values) and sum(values) <= FLOAT_MAX
    assert (err is None) == valid
    if cw is not None:
        always = sum(map(as_fraction, other))  # "always" fails whatever the model says
        if always.denominator == 1:
            assert Fraction(cw.errors) == always
        else:
            assert cw.errors == pytest.approx(float(always), rel=1e-15)
        assert "system error" in Witness(cw, ClassWitness(), "none").describe() or cw.size == 0
    _, w_err = call(Witness, junk, ClassWitness(), "none")
    assert w_err is not None
    _, j_err = call(ClassWitness, never=junk)
    assert j_err is not None or (isinstance(junk, list) and len(junk) == 2)


@FUZZ
@given(st.one_of(st.floats(0, 1), JUNK), st.one_of(st.sampled_from(["conditional"]), JUNK))
def test_high_confidence_options(confidence: Any, method: Any) -> None:
    forced_p, forced_n = cc.Confusion(50, 0, 50, 0), cc.Confusion(25, 25, 25, 25)
    model = cc.Confusion(25, 25, 25, 25)
    b, err = call(cc.high_confidence_bound, forced_p, forced_n, model, confidence=confidence,
                  method=method)
    if b is not None:
        assert_finite(b.to_dict())
        assert b.worst_cost >= 75.0  # never below the plain worst case (slides, n = 100)


def test_bound_leaves_a_class_whose_mistake_costs_nothing_unconstrained() -> None:
    """Found by the fuzz test: with every cost 0 the monotone rule constrains no class, so
    forced runs that break "right never hurts" are priced, not refused (one rule for every K)."""
    problem = (cc.Confusion(0, 0, 0, 1), cc.Confusion(0, 0, 1, 0), cc.Confusion(0, 0, 1, 0))
    costs = cc.CostMatrix(tp=0, fn=0, fp=0, tn=0)
    b = cc.bound(*problem, costs, assumption="monotone")
    ref = reference_bound(*problem, costs, "monotone")
    assert not isinstance(ref, str)
    assert b.worst_cost == ref[0][1] == 0 and b.best_cost == ref[1][1] == 0
    with pytest.raises(cc.InfeasibleInputError):  # with a dear mistake the rule applies
        cc.bound(*problem, cc.CostMatrix(fn=5, fp=1), assumption="monotone")
