"""Score fusion rules: the system says P iff the fused score of its models reaches a threshold.

:class:`ScoreRule` evaluates a rule on an array of scores (rows, models) and gives each row's
critical score in a slot; :func:`score_rule` builds one and validates it. The rules are read by
the network layer (score fusioners over score bins, :mod:`causalcost.network.scores`) and by
the log layer (:mod:`causalcost.data.critical_scores`, which documents the critical scores).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from causalcost.display import format_number
from causalcost.errors import (
    InputTypeError,
    MonotonicityError,
    OverflowInputError,
    ValidationError,
)
from causalcost.network.score_weights import refuse_logistic_overflow, scaled_mean_weights

__all__ = ["KEY_HIGH", "KEY_LOW", "NUMPY_OPS", "SCORE_FUSIONERS", "Ops", "ScoreRule",
           "float_key", "key_float", "numpy_ops", "row_label", "score_rule"]

#: The fusion rules with a closed form (a callable is the fifth kind, ``"function"``).
SCORE_FUSIONERS = ("mean", "max", "min", "logistic")

_BISECTION_STEPS = 2200  # enough to reach adjacent floats on any finite range


# --------------------------------------------------------------------------- the rule
@dataclass(frozen=True)
class Ops:
    """Where a rule's closed forms are evaluated: numpy arrays, or an engine's column
    expressions (:mod:`causalcost.data.score_log`). Arithmetic is the columns' own."""

    where: Callable[[Any, Any, Any], Any]     # (condition, value if true, value if false)
    maximum: Callable[[list[Any]], Any]       # row-wise max of columns
    minimum: Callable[[list[Any]], Any]       # row-wise min of columns
    constant: Callable[[float], Any]          # a column holding one value


def numpy_ops(rows: int | None = None) -> Ops:
    """:class:`Ops` on numpy arrays of ``rows`` values (a constant is a scalar when None)."""
    return Ops(where=np.where,
               maximum=lambda cols: functools.reduce(np.maximum, cols),
               minimum=lambda cols: functools.reduce(np.minimum, cols),
               constant=lambda v: np.float64(v) if rows is None else np.full(rows, v))


NUMPY_OPS = numpy_ops()


_SIGN_BITS = np.int64(0x7FFFFFFFFFFFFFFF)


def float_key(x: np.ndarray) -> np.ndarray:
    """float64 -> int64 keys in the same order (adjacent floats have adjacent keys)."""
    i = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    return i ^ ((i >> 63) & _SIGN_BITS)


def key_float(k: np.ndarray) -> np.ndarray:
    """The inverse of :func:`float_key`."""
    return np.ascontiguousarray(k ^ ((k >> 63) & _SIGN_BITS)).view(np.float64)


KEY_LOW, KEY_HIGH = (int(float_key(np.array([v]))[0]) for v in (-np.inf, np.inf))


def _weighted_sum(columns: Sequence[Any], weights: Sequence[float], ops: Ops) -> Any:
    """``sum_m w_m column_m``, added left to right (as an engine adds ``a*w0 + b*w1 + ..``)."""
    total = None
    for column, w in zip(columns, weights, strict=True):
        term = column * w
        total = term if total is None else total + term
    return ops.constant(0.0) if total is None else total


@dataclass(frozen=True)
class ScoreRule:
    """A score fusion rule: the system says P iff the fused score reaches ``threshold``.

    Build it with :func:`score_rule` (which validates); ``decide`` evaluates the rule itself,
    ``critical`` gives each row's critical score in the slot (before the exactness step of
    :func:`critical_scores`).

    A ``"mean"`` rule computes with its weights scaled by a power of two, ``weights`` being
    the given weights times ``2 ** -weight_exponent`` (:func:`score_rule` picks the exponent
    so that the weights' sum cannot overflow); :attr:`given_weights` and :meth:`describe` show
    the weights as given.

    Examples
    --------
    >>> rule = score_rule("mean", threshold=0.5, n_models=3)
    >>> rule
    ScoreRule('mean of 3 scores >= 0.5')
    >>> rule.decide(np.array([[0.2, 0.9, 0.5], [0.1, 0.2, 0.3]])).tolist()
    [True, False]
    """

    kind: str
    threshold: float
    weights: tuple[float, ...] | None = None
    bias: float = 0.0
    function: Callable[[np.ndarray], Any] | None = None
    score_range: tuple[float, float] | None = None
    grid: int = 65
    weight_exponent: int = 0

    @property
    def given_weights(self) -> tuple[float, ...] | None:
        """The weights as given to :func:`score_rule` (``weights`` computes with them scaled
        by ``2 ** -weight_exponent``)."""
        if self.weights is None or not self.weight_exponent:
            return self.weights
        return tuple(math.ldexp(v, self.weight_exponent) for v in self.weights)

    def describe(self) -> str:
        """The rule in words (with the weights as given)."""
        tau = format_number(self.threshold)
        given = self.given_weights
        w = "" if given is None or len(set(given)) == 1 else \
            f", weights ({', '.join(format_number(v) for v in given)})"
        if self.kind == "mean":
            n = len(given) if given else "the"
            return f"mean of {n} scores >= {tau}{w}"
        if self.kind in ("max", "min"):
            return f"{self.kind} of the scores >= {tau}"
        if self.kind == "logistic":
            ws = ", ".join(format_number(v) for v in given or ())
            return f"sigmoid({format_number(self.bias)} + weights ({ws}) . scores) >= {tau}"
        name = getattr(self.function, "__name__", "function")
        return (f"{name}(scores) >= {tau} on scores in [{format_number(self.score_range[0])}, "
                f"{format_number(self.score_range[1])}]" if self.score_range else name)

    def __repr__(self) -> str:
        return f"ScoreRule({self.describe()!r})"

    @property
    def closed_form(self) -> bool:
        """Whether the critical score has a closed form (every kind but ``"function"``)."""
        return self.kind in SCORE_FUSIONERS

    def fuse(self, columns: Sequence[Any], ops: Ops | None = None) -> Any:
        """The fused score of a closed-form rule from one column per model: the weighted mean,
        ``bias + w . s`` for ``"logistic"`` (the meta-model's log-odds), the max or the min.

        ``columns`` are numpy arrays (``ops`` None) or engine expressions (``ops`` the
        engine's :class:`Ops`); a weighted sum is added left to right in the models' order, so
        numpy and every engine round it alike.
        """
        ops = ops or NUMPY_OPS
        if self.kind in ("max", "min"):
            return (ops.maximum if self.kind == "max" else ops.minimum)(list(columns))
        total = _weighted_sum(columns, self.weights or (), ops)
        return total / self.weight_sum if self.kind == "mean" else self.bias + total

    def passes(self, fused: np.ndarray) -> np.ndarray:
        """Whether each fused score (:meth:`fuse`) makes the system say P."""
        if self.kind == "logistic":
            from scipy.special import expit

            return expit(fused) >= self.threshold
        return np.asarray(fused) >= self.threshold

    @property
    def weight_sum(self) -> float:
        """The sum of the weights (``"mean"`` divides by it), of the weights the rule computes
        with (scaled by :func:`score_rule` so that it is finite).

        Raises
        ------
        OverflowInputError
            A rule built without :func:`score_rule` whose weights' sum overflows float64.
        """
        try:
            total = math.fsum(self.weights or ())
        except OverflowError:
            total = math.inf
        if not math.isfinite(total):
            raise OverflowInputError(
                f"weights: the sum of {list(self.weights or ())} overflows float64; build the "
                "rule with score_rule(), which rescales a mean's weights by a power of two, or "
                "divide the weights by a common factor")
        return float(total)

    def rest(self, columns: Sequence[Any], slot: int, ops: Ops | None = None) -> Any:
        """Per row, what the other models contribute (every column but ``slot``): their
        weighted sum (``"mean"``, ``"logistic"``), their max or their min (``-inf`` / ``+inf``
        when the slot is the only model)."""
        ops = ops or NUMPY_OPS
        others = [c for m, c in enumerate(columns) if m != slot]
        if self.kind in ("max", "min"):
            if not others:
                return ops.constant(-math.inf if self.kind == "max" else math.inf)
            return (ops.maximum if self.kind == "max" else ops.minimum)(others)
        w = [v for m, v in enumerate(self.weights or ()) if m != slot]
        return _weighted_sum(others, w, ops)

    def split(self, columns: Sequence[Any], slot: int, ops: Ops | None = None
              ) -> tuple[Any, list[Any]]:
        """``"mean"`` / ``"logistic"``: the weighted sum of the columns before ``slot``
        (left to right; ``None`` when the slot is first) and each weighted column after it,
        so that :meth:`decide_split` adds the rule's own sum, in the rule's own order, with
        any score in the slot."""
        ops = ops or NUMPY_OPS
        w = list(self.weights or ())
        before = None if slot == 0 else _weighted_sum(columns[:slot], w[:slot], ops)
        return before, [c * v for c, v in zip(columns[slot + 1:], w[slot + 1:], strict=True)]

    def decide_split(self, before: Any, after: Sequence[np.ndarray], slot: int,
                     values: np.ndarray) -> np.ndarray:
        """The rule's decisions with the slot's score set to ``values``, from :meth:`split`:
        the same floating-point operations as :meth:`decide` on every column."""
        assert self.weights is not None
        term = np.asarray(values, dtype=float) * self.weights[slot]
        total = term if before is None else before + term
        for t in after:
            total = total + t
        return self.decide_total(total)

    def critical_from_rest(self, rest: Any, slot: int, ops: Ops | None = None) -> Any:
        """Each row's closed-form critical score from :meth:`rest`."""
        ops = ops or NUMPY_OPS
        tau = self.threshold
        if self.kind == "max":
            return ops.where(rest >= tau, -math.inf, tau)
        if self.kind == "min":
            return ops.where(rest >= tau, tau, math.inf)
        assert self.weights is not None
        switch, half_step = self.switch
        if math.isfinite(switch) and math.isfinite(half_step):  # the rounding midpoint
            return ((switch - rest) - half_step) / self.weights[slot]
        level = tau * self.weight_sum if self.kind == "mean" else \
            math.log(tau) - math.log1p(-tau) - self.bias
        return (level - rest) / self.weights[slot]

    @cached_property
    def switch(self) -> tuple[float, float]:
        """For ``"mean"`` and ``"logistic"``: the least float weighted sum ``u`` of the
        scores at which the rule says P, and half the gap to the float below it. A row's sum
        rounds to at least ``u`` where its exact value passes the midpoint ``u - half``, so
        the critical score ``(u - rest - half) / w_slot`` is within a few units in the last
        place of the rule's float step (snapped there by :func:`exact_critical`)."""
        def says(key: int) -> bool:
            u = key_float(np.array([key], dtype=np.int64))
            return bool(self.decide_total(u)[0])

        lo, hi = KEY_LOW, KEY_HIGH  # N at -inf, P at +inf
        if says(lo) or not says(hi):
            return math.nan, math.nan
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if says(mid) else (mid, hi)
        u = float(key_float(np.array([hi], dtype=np.int64))[0])
        return u, (u - float(np.nextafter(u, -np.inf))) / 2

    def decides(self, columns: Sequence[Any], ops: Ops | None = None) -> Any:
        """The rule's decision from one column per model as one comparison (what an engine
        evaluates): the weighted sum ``>=`` :attr:`switch` for ``"mean"`` and
        ``"logistic"`` (the same decision as :meth:`decide`, whose final steps are
        non-decreasing in the sum), the max or min ``>= threshold``."""
        if self.kind in ("mean", "logistic") and not math.isnan(self.switch[0]):
            return _weighted_sum(columns, self.weights or (), ops or NUMPY_OPS) >= \
                self.switch[0]
        if self.kind == "logistic":  # pragma: no cover - a valid threshold has a switch
            raise ValidationError(f"no score passes {self.describe()}")
        return self.fuse(columns, ops) >= self.threshold

    def decide_total(self, total: np.ndarray) -> np.ndarray:
        """``"mean"`` / ``"logistic"``: the decisions at weighted sums ``total`` of the
        scores."""
        return self.passes(total / self.weight_sum if self.kind == "mean" else
                           self.bias + total)

    def decide_rest(self, rest: np.ndarray, slot: int, values: np.ndarray) -> np.ndarray:
        """Decisions with the slot's score set to ``values``, from :meth:`rest` (the other
        models' part) instead of every column: the rule up to the order of one addition."""
        if self.kind == "max":
            return self.passes(np.maximum(rest, values))
        if self.kind == "min":
            return self.passes(np.minimum(rest, values))
        assert self.weights is not None
        total = rest + self.weights[slot] * values
        switch = self.switch[0]  # the rule is "total >= switch" (one comparison)
        return total >= switch if math.isfinite(switch) else self.decide_total(total)

    def decide(self, scores: np.ndarray) -> np.ndarray:
        """Whether the system says P on each row of a ``(rows, models)`` score array: the rule
        itself, evaluated directly."""
        s = np.asarray(scores, dtype=float)
        if self.closed_form:
            return self.passes(self.fuse(list(s.T)))
        assert self.function is not None
        out = np.asarray(self.function(s))
        if out.shape != (s.shape[0],):
            raise ValidationError(
                f"fusioner function: given a ({s.shape[0]}, {s.shape[1]}) array of scores "
                f"(rows, models) it must return one value per row, shape ({s.shape[0]},), "
                f"got shape {out.shape}; vectorise it (or wrap it in numpy.vectorize)")
        if out.dtype == bool:
            return out
        if out.dtype.kind not in "iuf":
            raise ValidationError(f"fusioner function must return booleans (the decision) or "
                                  f"numbers (the fused score), got dtype {out.dtype}")
        if out.dtype.kind == "f" and np.isnan(out).any():  # NaN >= t would read as "never P"
            row = int(np.flatnonzero(np.isnan(out))[0])
            raise ValidationError(
                f"fusioner function returned NaN for the scores {s[row].tolist()!r} (row {row} "
                "of the array it was given): it must return the fused score or the decision "
                "on every row of finite scores in the score range")
        return out >= self.threshold

    def critical(self, scores: np.ndarray, slot: int, index: Any = None) -> np.ndarray:
        """Each row's critical score in column ``slot`` (closed form or bisection)."""
        s = np.asarray(scores, dtype=float)
        if not self.closed_form:
            return self._bisect(s, slot, index)
        ops = numpy_ops(s.shape[0])
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(self.critical_from_rest(self.rest(list(s.T), slot, ops), slot,
                                                      ops), dtype=float)

    def decide_at(self, s: np.ndarray, slot: int, values: np.ndarray) -> np.ndarray:
        """Decisions with the slot's score set to ``values`` (one per row)."""
        forced = s.copy()
        forced[:, slot] = values
        return self.decide(forced)

    def _bisect(self, s: np.ndarray, slot: int, index: Any) -> np.ndarray:
        assert self.score_range is not None
        lo, hi = self.score_range
        grid = np.linspace(lo, hi, self.grid)
        says = np.stack([self.decide_at(s, slot, np.full(s.shape[0], g)) for g in grid], axis=1)
        drops = says[:, :-1] & ~says[:, 1:]  # P at one grid score, N at the next
        if drops.any():
            row, k = (int(v) for v in np.argwhere(drops)[0])
            label = row_label(index, row)
            raise MonotonicityError(
                f"the fusioner function is not non-decreasing in the slot's score: on row "
                f"{label!r} the system says P at score {grid[k]!r} but N at {grid[k + 1]!r} "
                "(the other scores fixed); a critical score exists only for a rule that never "
                "turns P into N as the slot's score grows: fix the rule, or price this slot "
                "with response patterns over score bins")
        t = np.where(says[:, 0], -np.inf, np.inf)
        inner = ~says[:, 0] & says[:, -1]
        if inner.any():
            first = says[inner].argmax(axis=1)
            a, b = grid[first - 1], grid[first].copy()  # N at a, P at b
            rows = s[inner]
            for _ in range(_BISECTION_STEPS):
                mid = a + (b - a) / 2
                open_ = (mid > a) & (mid < b)
                if not open_.any():
                    break
                p = self.decide_at(rows, slot, mid) & open_
                b = np.where(p, mid, b)
                a = np.where(open_ & ~p, mid, a)
            t[inner] = b
        return t


def row_label(index: Any, row: int) -> Any:
    """A row's label in messages: its index label (a plain Python value), else its position."""
    if index is None:
        return row
    label = index[row]
    return label.item() if isinstance(label, np.generic) else label


def _finite(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(float(value)):
        raise ValidationError(f"{name} must be a finite number, got {value!r}; give the score "
                              "level at which the system says P")
    return float(value)


def score_rule(fusioner: str | Callable[[np.ndarray], Any] = "mean", *, threshold: float = 0.5,
               weights: Sequence[float] | None = None, bias: float = 0.0, n_models: int,
               slot: int | None = None, score_range: tuple[float, float] = (0.0, 1.0),
               grid: int = 65) -> ScoreRule:
    """A validated :class:`ScoreRule` over ``n_models`` scores.

    Parameters
    ----------
    fusioner : {"mean", "max", "min", "logistic"} or callable
        The fusion rule (see :mod:`causalcost.data.critical_scores`).
    threshold : float, default 0.5
        The system says P iff the fused score is at least this (finite; in (0, 1) for
        ``"logistic"``).
    weights : sequence of float, optional
        One per model: ``"mean"`` (default all 1, every weight > 0) and ``"logistic"``
        (required; the slot's weight > 0). A mean computes with its weights scaled by a power
        of two (the largest in [1, 2)): the same decisions and critical scores as the weights
        given, and weights near 1e308, whose sum overflows, still give the mean. The rule
        shows the weights as given (:attr:`ScoreRule.given_weights`).
    bias : float, default 0
        The logistic meta-model's intercept.
    n_models : int
        The number of score columns.
    slot : int, optional
        The slot's column (checks its weight).
    score_range : (float, float), default (0, 1)
        For a callable: the scores the slot can take (the monotonicity grid and the bisection
        run there; critical scores are exact for candidate scores in this range).
    grid : int, default 65
        Grid points of the monotonicity check (callable only).

    Raises
    ------
    ValidationError
        An unknown fusioner, a non-finite threshold, weights of the wrong length or a
        non-positive weight where one is required.
    OverflowInputError
        A logistic meta-model whose ``|bias| + sum |w| * max |score|`` (scores in
        ``score_range``; 1 when the range is unbounded) overflows float64, or mean weights
        more than 2**1021 apart.

    Examples
    --------
    >>> score_rule("logistic", weights=[2.0, -1.0], bias=0.5, n_models=2)
    ScoreRule('sigmoid(0.5 + weights (2, -1) . scores) >= 0.5')
    >>> score_rule("mean", weights=[1, 2], n_models=3)
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: weights: 2 weights for 3 score columns; give one weight per model, in the order of models
    """  # noqa: E501
    tau = _finite("threshold", threshold)
    if callable(fusioner):
        lo, hi = (_finite("score_range", v) for v in score_range)
        if not lo < hi:
            raise ValidationError(f"score_range must be (low, high) with low < high, got "
                                  f"{score_range!r}")
        if isinstance(grid, bool) or not isinstance(grid, int) or grid < 2:
            raise ValidationError(f"grid must be an integer >= 2, got {grid!r}")
        return ScoreRule("function", tau, function=fusioner, score_range=(lo, hi), grid=grid)
    if fusioner not in SCORE_FUSIONERS:
        raise ValidationError(f"fusioner must be one of {', '.join(SCORE_FUSIONERS)} or a "
                              f"function of the scores, got {fusioner!r}")
    if fusioner in ("max", "min"):
        if weights is not None:
            raise ValidationError(f"weights: the {fusioner!r} fusioner takes no weights; drop "
                                  "them (or use 'mean' / 'logistic')")
        return ScoreRule(fusioner, tau)
    if weights is None:
        if fusioner == "logistic":
            raise ValidationError("weights: the 'logistic' fusioner needs the meta-model's "
                                  "weights, one per model (e.g. a fitted LogisticRegression's "
                                  "coef_[0]), and its bias")
        weights = [1.0] * n_models
    w = tuple(_finite(f"weights[{i}]", v) for i, v in enumerate(weights))
    if len(w) != n_models:
        raise ValidationError(f"weights: {len(w)} weights for {n_models} score columns; give "
                              "one weight per model, in the order of models")
    if fusioner == "mean" and min(w) <= 0:
        raise ValidationError(f"weights: the 'mean' fusioner needs every weight > 0, got "
                              f"{list(w)}; drop a model of weight 0 from models")
    if fusioner == "mean":
        scaled, exponent = scaled_mean_weights(w)
        return ScoreRule("mean", tau, scaled, weight_exponent=exponent)
    if fusioner == "logistic":
        if not 0 < tau < 1:
            raise ValidationError(f"threshold: a logistic meta-model's probability is in "
                                  f"(0, 1), so the threshold must be too, got {tau!r}")
        if slot is not None and w[slot] <= 0:
            raise ValidationError(
                f"weights: the slot's weight is {w[slot]!r}; the system must be "
                "non-decreasing in the slot's score, so its weight must be > 0 (flip the "
                "slot's score, 1 - s, if the meta-model weighs it negatively)")
        b = _finite("bias", bias)
        refuse_logistic_overflow(w, b, score_range)
        return ScoreRule("logistic", tau, w, b)
    raise AssertionError(fusioner)  # pragma: no cover - every kind returned above
