"""One fusioner, two worlds: numpy arrays and engine expressions agree with the scalar rule."""

from __future__ import annotations

import itertools

import duckdb
import narwhals as nw
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from causalcost.data.votes import LAZY_RULES, fuse, fuse_expr, resolve_fusioner, user_function
from causalcost.errors import ValidationError
from causalcost.network.fusioners import make_fusioner

MODELS = ["a", "b", "c", "d"]

FUSIONERS = {
    "and": make_fusioner("and", MODELS),
    "or": make_fusioner("or", MODELS),
    "majority_tie_negative": make_fusioner("majority", MODELS),
    "majority_tie_positive": make_fusioner("majority", MODELS, tie="positive"),
    "k_of_n": make_fusioner("k_of_n", MODELS, k=3),
    # 0.1 + 0.1 + 0.7 == 0.8999999999999999 in floats; the decimals reach 0.9 exactly
    "weighted_tolerance": make_fusioner("weighted", MODELS, weights=[0.1, 0.1, 0.7, 0.05],
                                        threshold=0.9),
    "weighted_negative": make_fusioner("weighted", MODELS, weights=[1, -1, 0.5, 2],
                                       threshold=1.5),
    "weighted_integer": make_fusioner("weighted", MODELS, weights=[2, 1, 1, 3], threshold=4),
    "xor": make_fusioner("function", MODELS, function=lambda a, b, c, d: a ^ b ^ c ^ d),
}
TABLE = np.array(list(itertools.product([True, False], repeat=len(MODELS))))


def scalar(f, rows, slot=None, forced=None):
    out = []
    for row in rows:
        votes = dict(zip(MODELS, (bool(v) for v in row)))
        if forced is not None:
            votes[slot] = forced
        out.append(f(tuple(votes[m] for m in f.inputs)))
    return np.array(out)


@pytest.mark.parametrize("name", FUSIONERS)
@pytest.mark.parametrize("forced", [None, True, False])
def test_numpy_matches_the_scalar_rule_on_every_input(name: str, forced: bool | None) -> None:
    f = FUSIONERS[name]
    votes = {m: TABLE[:, i] for i, m in enumerate(MODELS)}
    got = fuse(f, votes, slot="c" if forced is not None else None, forced=forced)
    assert got.dtype == bool
    assert got.tolist() == scalar(f, TABLE, "c", forced).tolist()


def _engines(frame: pd.DataFrame) -> dict[str, object]:
    return {"pandas": frame, "polars": pl.from_pandas(frame).lazy(),
            "duckdb": duckdb.from_arrow(pa.Table.from_pandas(frame))}


@pytest.mark.parametrize("name", [n for n in FUSIONERS if n != "xor"])
@pytest.mark.parametrize("forced", [None, True, False])
def test_expressions_match_the_scalar_rule_on_every_engine(name: str, forced: bool | None) -> None:
    f = FUSIONERS[name]
    frame = pd.DataFrame(TABLE, columns=MODELS).assign(row=range(len(TABLE)))
    expected = scalar(f, TABLE, "b", forced).tolist()
    for engine, native in _engines(frame).items():
        nf = nw.from_native(native)
        expr = fuse_expr(f, {m: nw.col(m) for m in MODELS}, slot="b" if forced is not None
                         else None, forced=forced)
        out = nf.select(nw.col("row"), s=expr)
        out = out.collect() if isinstance(out, nw.LazyFrame) else out
        got = out.sort("row").get_column("s").to_list()
        assert got == expected, (engine, name, forced)


def test_decimal_weights_reach_their_decimal_threshold() -> None:
    assert 0.1 + 0.1 + 0.7 < 0.9
    f = FUSIONERS["weighted_tolerance"]
    assert f((True, True, True, False))
    votes = {m: np.array([m != "d"]) for m in MODELS}
    assert fuse(f, votes).tolist() == [True]
    frame = nw.from_native(pl.DataFrame({m: [m != "d"] for m in MODELS}))
    assert frame.select(s=fuse_expr(f, {m: nw.col(m) for m in MODELS}))["s"].to_list() == [True]


def test_a_user_function_is_called_once_with_whole_arrays() -> None:
    calls = []

    def vote(a, b, c, d):
        calls.append({k: type(v).__name__ for k, v in dict(a=a, b=b, c=c, d=d).items()})
        return (a & b) | (c & ~d)

    f = make_fusioner("function", MODELS, function=vote)
    votes = {m: TABLE[:, i] for i, m in enumerate(MODELS)}
    got = fuse(f, votes, slot="a", forced=True)
    assert len(calls) == 1 and set(calls[0].values()) == {"ndarray"}
    assert got.tolist() == scalar(f, TABLE, "a", True).tolist()


def test_a_constant_function_broadcasts() -> None:
    f = make_fusioner("function", ["a", "b"], function=lambda a, b: True)
    assert fuse(f, {"a": [True, False], "b": [False, False]}).tolist() == [True, True]


def test_a_function_that_fails_on_arrays_says_it_gets_arrays() -> None:
    f = make_fusioner("function", ["a", "b"], function=lambda a, b: a and b)
    with pytest.raises(ValidationError, match="called with numpy bool arrays.*a & ~b"):
        fuse(f, {"a": np.array([True, False]), "b": np.array([True, True])})
    g = make_fusioner("function", ["a", "b"], function=lambda a, b: [1, 2, 3])
    with pytest.raises(ValidationError, match="must return one bool per row"):
        fuse(g, {"a": np.array([True, False]), "b": np.array([True, True])})


def test_a_function_has_no_engine_expression() -> None:
    f = FUSIONERS["xor"]
    with pytest.raises(ValidationError, match="cannot run inside a lazy duckdb frame") as info:
        fuse_expr(f, {m: nw.col(m) for m in MODELS}, engine="a lazy duckdb frame")
    assert all(rule in str(info.value) for rule in LAZY_RULES)


def test_user_function_is_found() -> None:
    def rule(a, b):
        return a | b

    assert user_function(make_fusioner("function", ["a", "b"], function=rule)) is rule


def test_bad_vote_arrays_are_refused() -> None:
    f = FUSIONERS["and"]
    votes = {m: np.array([True, False]) for m in MODELS}
    with pytest.raises(ValidationError, match="missing for models"):
        fuse(f, {"a": votes["a"]})
    with pytest.raises(ValidationError, match="differ in length"):
        fuse(f, {**votes, "d": np.array([True])})
    with pytest.raises(ValidationError, match="must be booleans"):
        fuse(f, {**votes, "d": np.array([0.5, 1.0])})
    with pytest.raises(ValidationError, match="not a fusioner input"):
        fuse(f, votes, slot="z", forced=True)


def test_resolve_fusioner() -> None:
    f, models = resolve_fusioner("weighted", ["x", "y"], weights=[1, 2], threshold=2)
    assert models == ("x", "y") and f.weights == (1.0, 2.0)
    built = make_fusioner("or", ["x", "y"])
    assert resolve_fusioner(built) == (built, ("x", "y"))
    assert resolve_fusioner(built, ["y", "x"])[1] == ("x", "y")
    with pytest.raises(ValidationError, match="must name the fusioner's inputs"):
        resolve_fusioner(built, ["x", "z"])
    with pytest.raises(ValidationError, match="apply to a rule name"):
        resolve_fusioner(built, k=2)
    with pytest.raises(ValidationError, match="needs models"):
        resolve_fusioner("and")
    with pytest.raises(ValidationError, match="twice"):
        resolve_fusioner("and", ["x", "x"])
