"""One fusioner, two worlds: evaluated on numpy arrays and as data frame engine expressions.

A vote rule (``and``, ``or``, ``majority``, ``k_of_n``, ``weighted``) is positive when
``sum(weights[i] * vote[i]) >= threshold``, compared exactly: the weights and the threshold are
rationals scaled once to integers (:meth:`Fusioner.integer_vote`), so no float sum decides.
:func:`fuse` evaluates it on a dict of numpy bool arrays through the fusioner's one rule for
every K (:meth:`Fusioner.from_scores` on integer scores: ``int64``, or Python integers when the
scaled sums outgrow it) and :func:`fuse_expr` builds the same integer sum as a narwhals
expression, which the engine (polars, DuckDB, Dask, Spark, ...) evaluates where the data is.
When the scaled integers do not fit an engine's ``int64``, the expression looks the decision
up by vote pattern instead (the vote's outcome for each of the ``2**k`` patterns, computed
exactly in Python, at most :data:`MAX_PATTERN_INPUTS` voting models); beyond that it is
refused. The slot may be forced to P or N in both.

A user ``function`` rule has no vote form. On arrays it is called once, with one keyword per
model holding the whole numpy bool array, and must return a bool array (write it with ``&``,
``|``, ``~``: ``lambda a, b, c: a & (b | c)``). It cannot be pushed down to a lazy engine:
:func:`fuse_expr` refuses it and names the rules that run there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np

from causalcost.errors import ValidationError
from causalcost.network.exact_votes import INT64_LIMIT
from causalcost.network.fusioners import Fusioner, make_fusioner

__all__ = ["fuse", "fuse_expr", "resolve_fusioner", "user_function", "LAZY_RULES", "TOLERANCE",
           "MAX_PATTERN_INPUTS"]

#: Rules that run inside a lazy engine (everything with a vote form).
LAZY_RULES = ("and", "or", "majority", "k_of_n", "weighted")
#: Kept for compatibility: the threshold comparison is exact (no tolerance is applied).
TOLERANCE = 0.0
#: Most voting models whose decision an engine looks up by vote pattern (``2**k`` patterns),
#: used only when the vote's scaled integer weights do not fit in ``int64``.
MAX_PATTERN_INPUTS = 16


def resolve_fusioner(
    fusioner: str | Fusioner, models: Sequence[str] | None = None, **options: Any
) -> tuple[Fusioner, tuple[str, ...]]:
    """A :class:`Fusioner` and its model names, from a rule name with options or a fusioner.

    Examples
    --------
    >>> f, models = resolve_fusioner("k_of_n", ["a", "b", "c"], k=2)
    >>> f, models
    (Fusioner(2 of 3), ('a', 'b', 'c'))
    """
    given = {k: v for k, v in options.items() if v is not None}
    if isinstance(fusioner, Fusioner):
        if given:
            raise ValidationError(f"fusioner options {sorted(given)} apply to a rule name; "
                                  "this Fusioner is already built")
        inputs = tuple(fusioner.inputs)
        if models is not None and (sorted(models) != sorted(inputs) or len(set(models))
                                   != len(models)):
            raise ValidationError(f"models {list(models)} must name the fusioner's inputs "
                                  f"{list(inputs)}")
        return fusioner, inputs
    if not isinstance(fusioner, str):
        raise ValidationError(f"fusioner must be a rule name or a Fusioner, got {fusioner!r}")
    if models is None or isinstance(models, str):
        raise ValidationError(f"fusioner {fusioner!r} needs models=[...], the prediction "
                              "columns in the fusioner's input order")
    models = tuple(models)
    if len(set(models)) != len(models):
        raise ValidationError(f"models {list(models)} name a column twice")
    return make_fusioner(fusioner, models, **given), models


def user_function(fusioner: Fusioner) -> Callable[..., Any]:
    """The user's callable behind a ``function`` fusioner."""
    if not callable(fusioner.function):
        raise ValidationError(f"{fusioner!r} has no user function; build one with "
                              "make_fusioner('function', models, function=...)")
    return fusioner.function


def _terms(fusioner: Fusioner, slot: str | None, forced: bool | None) -> tuple[
        list[tuple[str, int]], int]:
    """Voting terms (model, integer weight) in input order and the integer bar they must
    reach, the forced slot's weight already taken off the bar (exact: see
    :meth:`Fusioner.integer_vote`)."""
    if not fusioner.is_vote:
        raise ValidationError(f"{fusioner!r} has no vote form")
    if slot is not None and slot not in fusioner.inputs:
        raise ValidationError(f"slot {slot!r} is not a fusioner input {list(fusioner.inputs)}")
    if forced is not None and slot is None:
        raise ValidationError("forcing needs slot=... naming the forced model")
    weights, need = fusioner.integer_vote()
    terms = []
    for model, weight in zip(fusioner.inputs, weights):
        if model == slot and forced is not None:
            need -= weight if forced else 0
        else:
            terms.append((model, weight))
    return terms, need


def fuse(
    fusioner: Fusioner, votes: Mapping[str, Any], *, slot: str | None = None,
    forced: bool | None = None, rows: int | None = None,
) -> np.ndarray:
    """The system's vote for every row, from the models' votes as numpy bool arrays.

    Parameters
    ----------
    fusioner : Fusioner
    votes : mapping of str to array-like of bool
        One array per fusioner input (the forced slot's array may be left out).
    slot : str, optional
        The model to force.
    forced : bool, optional
        ``True`` / ``False``: the slot votes P / N on every row.
    rows : int, optional
        The number of rows, needed only when no array is left (a single forced model).

    Examples
    --------
    >>> f = make_fusioner("majority", ["a", "b", "c"])
    >>> votes = {"a": [True, True, False], "b": [False, True, False], "c": [True, False, False]}
    >>> fuse(f, votes).tolist(), fuse(f, votes, slot="c", forced=False).tolist()
    ([True, True, False], [False, True, False])
    >>> g = make_fusioner("function", ["a", "b", "c"], function=lambda a, b, c: a & ~b)
    >>> fuse(g, votes).tolist()
    [True, False, False]
    """
    if len(fusioner.labels) != 2:
        raise ValidationError(f"fuse reads bool votes; {fusioner!r} has {len(fusioner.labels)} "
                              "labels: use fusioner.apply on label indices")
    if slot is not None and slot not in fusioner.inputs:
        raise ValidationError(f"slot {slot!r} is not a fusioner input {list(fusioner.inputs)}")
    needed = [m for m in fusioner.inputs if not (m == slot and forced is not None)]
    missing = [m for m in needed if m not in votes]
    if missing:
        raise ValidationError(f"votes are missing for models {missing}")
    arrays = {m: _bool_array(votes[m], m) for m in needed}
    lengths = {len(a) for a in arrays.values()}
    if len(lengths) > 1:
        sizes = {m: len(a) for m, a in arrays.items()}
        raise ValidationError(f"vote arrays differ in length: {sizes}")
    n = lengths.pop() if lengths else int(rows or 0)
    if rows is not None and n != rows:
        raise ValidationError(f"vote arrays have {n} rows, expected rows={rows}")
    if forced is not None:
        arrays[str(slot)] = np.full(n, bool(forced))
    if fusioner.boolean and fusioner.function is not None:
        return _call_user(fusioner, {m: arrays[m] for m in fusioner.inputs}, n)
    return fusioner.says_first([arrays[m] for m in fusioner.inputs])


def _bool_array(values: Any, model: str) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype != bool:
        if array.dtype.kind in "iuf" and np.isin(array, (0, 1)).all():
            return array.astype(bool)
        raise ValidationError(f"votes of {model!r} must be booleans (or 0/1), got dtype "
                              f"{array.dtype}")
    if array.ndim != 1:
        raise ValidationError(f"votes of {model!r} must be one-dimensional")
    return array


def _call_user(fusioner: Fusioner, arrays: dict[str, np.ndarray], n: int) -> np.ndarray:
    function = user_function(fusioner)
    name = getattr(function, "__name__", "function")
    try:
        result = np.asarray(function(**arrays))
    except Exception as exc:
        raise ValidationError(
            f"fusioner function {name} is called with numpy bool arrays (one keyword per model, "
            f"one element per row) and failed: {type(exc).__name__}: {exc}. Write it with "
            "element-wise operators, e.g. lambda a, b: a & ~b instead of a and not b"
        ) from exc
    if result.shape == ():
        result = np.full(n, result)
    if result.shape != (n,) or not (result.dtype == bool or (result.dtype.kind in "iu"
                                                              and np.isin(result, (0, 1)).all())):
        raise ValidationError(
            f"fusioner function {name} is called with numpy bool arrays of {n} rows and must "
            f"return one bool per row; it returned shape {result.shape}, dtype {result.dtype}"
        )
    return result.astype(bool)


def fuse_expr(
    fusioner: Fusioner, votes: Mapping[str, nw.Expr], *, slot: str | None = None,
    forced: bool | None = None, engine: str = "a lazy engine",
) -> nw.Expr:
    """The system's vote as a narwhals expression over the models' vote expressions.

    Parameters
    ----------
    fusioner : Fusioner
        A vote rule (``function`` rules are refused: a Python function cannot run inside an
        engine).
    votes : mapping of str to narwhals.Expr
        Boolean (or 0/1 numeric) expression per fusioner input (the forced slot's may be left
        out).
    slot, forced
        As in :func:`fuse`.
    engine : str
        Named in the error for ``function`` rules.

    Examples
    --------
    >>> import narwhals as nw, polars as pl
    >>> f = make_fusioner("weighted", ["a", "b"], weights=[0.1, 0.2], threshold=0.3)
    >>> df = nw.from_native(pl.DataFrame({"a": [True, True], "b": [True, False]}))
    >>> df.select(s=fuse_expr(f, {"a": nw.col("a"), "b": nw.col("b")}))["s"].to_list()
    [True, False]
    """
    if not fusioner.is_vote:
        what = "is a Python function" if fusioner.function is not None else "has no vote form"
        raise ValidationError(
            f"{fusioner!r} {what} and cannot run inside {engine}; there the "
            f"vote rules run ({', '.join(LAZY_RULES)}). Collect the data into an eager frame "
            "(pandas, polars DataFrame, pyarrow) or write the rule as a weighted vote"
        )
    terms, need = _terms(fusioner, slot, forced)
    missing = [m for m, _ in terms if m not in votes]
    if missing:
        raise ValidationError(f"votes are missing for models {missing}")
    terms = [(m, w) for m, w in terms if w]
    if abs(need) + sum(abs(w) for _, w in terms) < INT64_LIMIT:  # exact in int64
        parts = [votes[m].cast(nw.Int64) * w if w != 1 else votes[m].cast(nw.Int64)
                 for m, w in terms]
        return _add(parts, nw.lit(0, dtype=nw.Int64)) >= nw.lit(need, dtype=nw.Int64)
    if len(terms) > MAX_PATTERN_INPUTS:
        raise ValidationError(
            f"{fusioner!r} cannot be decided exactly inside {engine}: its weights and threshold "
            f"scaled to integers (the bar is {need}) do not fit in 64-bit integers, and "
            f"{len(terms)} voting models have more than 2**{MAX_PATTERN_INPUTS} vote patterns "
            "to tabulate. Give the fusioner's weights and threshold fewer significant digits "
            "(or a smaller spread), or collect the data into an eager frame (pandas, polars "
            "DataFrame, pyarrow), where Python integers decide it"
        )
    return _pattern_lookup(terms, need, votes)


def _pattern_lookup(terms: list[tuple[str, int]], need: int, votes: Mapping[str, nw.Expr]
                    ) -> nw.Expr:
    """The decision looked up by vote pattern: ``code = sum_i 2**i vote_i`` is in the codes
    whose exact integer sum reaches ``need`` (each pattern decided once, in Python)."""
    k = len(terms)
    winning = [code for code, pattern in enumerate(itertools.product((0, 1), repeat=k))
               if sum(w for (_, w), bit in zip(terms, reversed(pattern)) if bit) >= need]
    code = _add([votes[m].cast(nw.Int64) * (1 << i) for i, (m, _) in enumerate(terms)],
                nw.lit(0, dtype=nw.Int64))
    if not winning:
        return code < 0
    if len(winning) == 2**k:
        return code >= 0
    return code.is_in(winning)


def _add(parts: list[nw.Expr], zero: nw.Expr) -> nw.Expr:
    if not parts:
        return zero
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total
