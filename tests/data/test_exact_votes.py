"""Weighted votes are decided exactly (issue 16, item 3): every path against a Fraction reference.

The reference is the vote's definition written with :class:`fractions.Fraction` from the decimal
text of each weight and of the threshold; the paths are the scalar rule, numpy (:func:`fuse`),
the fusioner's table (:func:`decision_table`), the engine expressions (:func:`fuse_expr`) on
pandas, polars (eager and lazy), pyarrow, DuckDB and Dask, and the built network (pgmpy
VariableElimination on the network, with and without divorce).
"""

from __future__ import annotations

import itertools
from decimal import Decimal, localcontext
from fractions import Fraction

import narwhals as nw
import numpy as np
import pandas as pd
import pytest
from engine_frames import ENGINES as SHARED_ENGINES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.votes import MAX_PATTERN_INPUTS, fuse, fuse_expr
from causalcost.errors import CausalCostError, ValidationError
from causalcost.network.fusioners import decision_table, make_fusioner

ENGINES = SHARED_ENGINES


def reference(weights: list[str], threshold: str, pattern: tuple[bool, ...]) -> bool:
    """The definition, in rationals from the decimal text."""
    total = sum((Fraction(Decimal(w)) for w, v in zip(weights, pattern) if v), Fraction(0))
    return total >= Fraction(Decimal(threshold))


def patterns(k: int) -> list[tuple[bool, ...]]:
    return list(itertools.product((True, False), repeat=k))


def engine_votes(f: cc.Fusioner, engine: str, slot: str | None = None,
                 forced: bool | None = None) -> list[bool]:
    models = list(f.inputs)
    table = np.array(patterns(len(models)))
    frame = pd.DataFrame(table, columns=models).assign(row=range(len(table)))
    nf = nw.from_native(ENGINES[engine](frame))
    expr = fuse_expr(f, {m: nw.col(m) for m in models}, slot=slot, forced=forced)
    out = nf.select(nw.col("row"), s=expr)
    out = out.collect() if isinstance(out, nw.LazyFrame) else out
    return [bool(v) for v in out.sort("row").get_column("s").to_list()]


def every_path(weights: list[str], threshold: str, engines: tuple[str, ...] = ()) -> None:
    k = len(weights)
    models = [f"m{i}" for i in range(k)]
    expected = [reference(weights, threshold, p) for p in patterns(k)]
    # the decimal text, and the same numbers as Python floats (their repr is the text back)
    for given_weights, given_threshold in ((weights, threshold),
                                           ([float(w) for w in weights], float(threshold))):
        if [repr(float(w)) for w in weights] != [repr(float(Decimal(w))) for w in weights]:
            continue
        f = make_fusioner("weighted", models, weights=given_weights, threshold=given_threshold)
        if isinstance(given_threshold, float) and Fraction(repr(given_threshold)) != Fraction(
                Decimal(threshold)):
            continue  # the float cannot carry this threshold's text: covered by the text
        assert [f(p) for p in patterns(k)] == expected
        assert decision_table(f).tolist() == expected
        table = np.array(patterns(k))
        votes = {m: table[:, i] for i, m in enumerate(models)}
        assert fuse(f, votes).tolist() == expected
        for engine in engines:
            assert engine_votes(f, engine) == expected, engine


# -- the issue's cases ----------------------------------------------------------------------
ISSUE_CASES = [
    # 1e-12 absolute tolerance made every instance positive
    (["1e-13", "1e-13", "1e-13"], "2e-13"),
    # float sums round 1e20 + 1 to 1e20
    (["1e20", "1", "1"], "100000000000000000001"),
    # the documented behaviour: 0.1 + 0.2 reaches 0.3
    (["0.1", "0.2", "0.4"], "0.3"),
    (["0.1", "0.1", "0.7"], "0.9"),
    # huge spread: scaled integers outgrow int64, engines look the decision up by pattern
    (["1e-300", "1e300", "2e-300"], "1e300"),
    (["1e-300", "-1e-300", "1"], "1e-300"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("weights", "threshold"), ISSUE_CASES)
def test_issue_cases_on_every_path(engine: str, weights: list[str], threshold: str) -> None:
    every_path(weights, threshold, (engine,))


def test_the_issue_cases_decide_as_written() -> None:
    tiny = make_fusioner("weighted", ["a", "b", "c"], weights=[1e-13] * 3, threshold=2e-13)
    assert not tiny((True, False, False)) and tiny((True, True, False))
    huge = make_fusioner("weighted", ["a", "b", "c"], weights=[10**20, 1, 1],
                         threshold=100000000000000000001)
    assert not huge((True, False, False)) and huge((True, True, False))
    assert "100000000000000000001" in huge.description


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forced", [True, False])
def test_a_forced_slot_is_exact_on_every_engine(engine: str, forced: bool) -> None:
    weights, threshold = ["1e20", "1", "1", "-1"], "100000000000000000001"
    f = make_fusioner("weighted", ["a", "b", "c", "d"], weights=weights, threshold=threshold)
    expected = []
    for p in patterns(4):
        votes = (p[0], forced, *p[2:])
        expected.append(reference(weights, threshold, votes))
    table = np.array(patterns(4))
    numpy = fuse(f, {"a": table[:, 0], "c": table[:, 2], "d": table[:, 3]}, slot="b",
                 forced=forced)
    assert numpy.tolist() == expected
    assert engine_votes(f, engine, slot="b", forced=forced) == expected


# -- property tests over 30 orders of magnitude ----------------------------------------------
def decimal_text() -> st.SearchStrategy[str]:
    """Decimals ``m * 10**e`` with ``|m| <= 999`` and ``e`` across 30 orders of magnitude."""
    return st.builds(lambda m, e: f"{m}e{e}", st.integers(-999, 999), st.integers(-15, 15))


def vote_case(max_k: int = 4) -> st.SearchStrategy[tuple[list[str], str]]:
    return st.tuples(st.lists(decimal_text(), min_size=1, max_size=max_k), decimal_text())


@settings(max_examples=300, deadline=None)
@given(vote_case())
def test_numpy_table_and_rule_match_fractions(case: tuple[list[str], str]) -> None:
    every_path(*case)


@settings(max_examples=300, deadline=None)
@given(vote_case(), st.data())
def test_threshold_at_a_reachable_sum_is_reached(case: tuple[list[str], str],
                                                 data: st.DataObject) -> None:
    """The threshold set exactly at one pattern's sum: the knife edge floats get wrong."""
    weights, _ = case
    chosen = data.draw(st.lists(st.booleans(), min_size=len(weights), max_size=len(weights)))
    with localcontext(prec=200):  # exact: 30 orders of magnitude of 3-digit mantissas
        edge = sum((Decimal(w) for w, v in zip(weights, chosen) if v), Decimal(0))
    threshold = str(edge)
    assert Fraction(Decimal(threshold)) == sum(
        (Fraction(Decimal(w)) for w, v in zip(weights, chosen) if v), Fraction(0))
    f = make_fusioner("weighted", [f"m{i}" for i in range(len(weights))], weights=weights,
                      threshold=threshold)
    assert f(tuple(chosen))
    every_path(weights, threshold)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=vote_case(3))
def test_engines_match_fractions(engine: str, case: tuple[list[str], str]) -> None:
    every_path(*case, engines=(engine,))


# -- the network's tables ------------------------------------------------------------------
@pytest.mark.parametrize("divorce", [False, True])
@pytest.mark.parametrize(("weights", "threshold"), [
    (["1e20", "1", "1"], "100000000000000000001"),
    (["3", "-1", "5"], "4"),
])
def test_network_tables_match_fractions(divorce: bool, weights: list[str], threshold: str
                                        ) -> None:
    from pgmpy.inference import VariableElimination

    builder = cc.SystemBuilder(class_prior=0.3)
    models = ["a", "b", "c"]
    for m in models:
        builder.add_model(m, sensitivity=0.8, specificity=0.9)
    system = builder.set_fusioner("weighted", weights=weights, threshold=threshold,
                                  divorce=divorce).build(slot="a")
    assert bool(system.counts) is divorce
    ve = VariableElimination(system.network)
    for p in patterns(3):
        evidence = {m: "P" if v else "N" for m, v in zip(models, p)}
        got = ve.query([system.system_node], evidence=evidence, show_progress=False)
        positive = got.values[got.state_names[system.system_node].index("P")]
        assert positive == pytest.approx(float(reference(weights, threshold, p)), abs=1e-12)


def test_a_network_file_keeps_the_decimal_text(tmp_path) -> None:
    text = """format = "causalcost-network"
version = 1
name = "exact"
slot = "a"
[class]
prior = 0.3
[[models]]
name = "a"
sensitivity = 0.8
specificity = 0.9
[[models]]
name = "b"
sensitivity = 0.8
specificity = 0.9
[fusioner]
rule = "weighted"
weights = { a = 1e20, b = 1.0 }
threshold = 100000000000000000001.0
"""
    path = tmp_path / "exact.toml"
    path.write_text(text)
    system = cc.load_network(str(path))
    f = system.fusioner
    assert f.exact_threshold == Fraction(10**20 + 1)
    assert decision_table(f).tolist() == [True, False, False, False]


# -- refusals ------------------------------------------------------------------------------
@pytest.mark.parametrize(("weights", "threshold", "message"), [
    ([1, 1], 10**400, r"finite threshold, got 1000"),
    ([1, 1], float("nan"), r"finite threshold"),
    ([1, 10**400], 1, r"weight of 'b' must be a finite number"),
    ([1, "1e400"], 1, r"weight of 'b' must be a finite number"),
    ([1, Decimal("inf")], 1, r"weight of 'b' must be a finite number"),
])
def test_numbers_without_a_representable_decision_are_refused(weights, threshold, message
                                                              ) -> None:
    with pytest.raises(CausalCostError, match=message):
        make_fusioner("weighted", ["a", "b"], weights=weights, threshold=threshold)
    builder = cc.SystemBuilder(class_prior=0.3)
    for m in ("a", "b"):
        builder.add_model(m, sensitivity=0.8, specificity=0.9)
    with pytest.raises(CausalCostError, match=message):
        builder.set_fusioner("weighted", weights=weights, threshold=threshold)


def test_an_engine_refuses_a_vote_it_cannot_decide_exactly() -> None:
    k = MAX_PATTERN_INPUTS + 1
    models = [f"m{i}" for i in range(k)]
    weights = ["1e-300"] + ["1e300"] * (k - 1)
    f = make_fusioner("weighted", models, weights=weights, threshold="1e300")
    with pytest.raises(ValidationError, match="cannot be decided exactly inside a lazy duckdb"):
        fuse_expr(f, {m: nw.col(m) for m in models}, engine="a lazy duckdb frame")
    # numpy decides it exactly with Python integers
    votes = {m: np.array([i == 0, True]) for i, m in enumerate(models)}
    assert fuse(f, votes).tolist() == [False, True]
    only_tiny = {m: np.array([i == 0]) for i, m in enumerate(models)}
    assert fuse(f, only_tiny).tolist() == [False]


def test_the_cli_keeps_the_decimal_text() -> None:
    from causalcost.cli.parsing import exact_number, exact_numbers

    assert exact_numbers("1e20,1,1") == [10**20, 1, 1]
    assert exact_number("100000000000000000001") == 10**20 + 1
    assert exact_number("0.3") == Fraction(3, 10)
