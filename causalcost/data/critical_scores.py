"""Critical scores: where a score-fusing system switches to P, per instance of a log.

A binary system (labels P, N, positive first) fuses the real scores of its models; the slot's
output is a score ``s``. Fix one logged instance and every other model's score: the system's
output is a function of ``s`` alone. For a fusion rule that is non-decreasing in the slot's
score there is a **critical score** ``t`` in ``[-inf, +inf]`` with

    the system says P  iff  s >= t      (t = -inf: always P; t = +inf: never P)

so the system forced to score ``s`` says P on exactly the instances with ``t <= s``.
:func:`critical_scores` computes ``t`` per row:

* ``"mean"``: the weighted mean of the scores against a threshold, ``sum(w s) / sum(w) >= tau``
  (soft voting); every weight > 0, and ``t = (tau sum(w) - sum_{m != slot} w_m s_m) /
  w_slot``.
* ``"max"`` / ``"min"``: ``max(s) >= tau`` (``t = -inf`` where another score reaches ``tau``,
  else ``tau``) / ``min(s) >= tau`` (``t = +inf`` where another score is below ``tau``, else
  ``tau``).
* ``"logistic"``: a meta-model ``sigmoid(bias + sum w_m s_m) >= tau`` (stacking), ``w_slot >
  0`` and ``0 < tau < 1``; ``t = (logit(tau) - bias - sum_{m != slot} w_m s_m) / w_slot``.
* a function of the scores: ``f(S)`` on a ``(rows, models)`` array returns per row the
  system's fused score (compared ``>= threshold``) or its decision (booleans). It is checked
  non-decreasing in the slot on a grid of the stated ``score_range`` (a rule that is not is
  refused, naming a row and two scores where it fails), and ``t`` is found by bisection
  between the grid's last N and first P, to the resolution of float64.

**Exact at the observed scores.** A closed form is computed in floating point, so on a row
whose scores sit on the rule's boundary (a mean of 0.1 and 0.2 against 0.3) it can disagree
with the rule by one rounding. :func:`exact_critical` (the one exactness step of every route)
first moves each finite ``t`` to the float at which the rule, computed in floating point,
switches (P at ``t``, N at the float below: a walk of one or two units from the closed form,
which for ``"mean"`` and ``"logistic"`` starts at the rounding midpoint of the least passing
weighted sum, :attr:`ScoreRule.switch`; else a gallop and a bisection), then evaluates the
rule itself at the observed scores on every row and moves ``t`` to agree exactly: if the rule
says P but ``s_obs < t``, ``t = s_obs``; if it says N but ``s_obs >= t``, ``t`` is the next
float above ``s_obs``. So "the system says P iff ``s_obs >= t``" holds on every row of the
log, with no exception (:attr:`ScoreRuns.adjusted` counts the rows moved by the second step).
A weighted sum is added left to right in the models' order (as scikit-learn's soft voting
averages its estimators), in numpy and in every engine alike.

:func:`score_runs` reads a log of numpy arrays or a pandas DataFrame (truth, score columns,
the slot) into a :class:`ScoreRuns`: per class the critical scores and the slot's observed
scores. :func:`causalcost.forced_runs` with a score fusioner reads a log on any engine
(:mod:`causalcost.data.score_log`: the closed forms run there as column expressions, the same
:class:`ScoreRule` formulas through :class:`Ops`). The pricing of a candidate's scores is
:mod:`causalcost.pricing.scores`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion
from causalcost.data.frames import align_by_index
from causalcost.data.labels import votes_from_values
from causalcost.display import format_number
from causalcost.errors import DataError, InputTypeError, MonotonicityError, ValidationError
from causalcost.pricing.scores import ScoreBound, price_scores

__all__ = ["NUMPY_OPS", "SCORE_FUSIONERS", "Ops", "ScoreRule", "ScoreRuns", "critical_scores",
           "exact_critical", "numpy_ops", "runs_from_scores", "score_rule", "score_runs",
           "truth_votes"]

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


def _float_key(x: np.ndarray) -> np.ndarray:
    """float64 -> int64 keys in the same order (adjacent floats have adjacent keys)."""
    i = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    return i ^ ((i >> 63) & _SIGN_BITS)


def _key_float(k: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_float_key`."""
    return np.ascontiguousarray(k ^ ((k >> 63) & _SIGN_BITS)).view(np.float64)


_KEY_LOW, _KEY_HIGH = (int(_float_key(np.array([v]))[0]) for v in (-np.inf, np.inf))


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

    def describe(self) -> str:
        """The rule in words."""
        tau = format_number(self.threshold)
        w = "" if self.weights is None or len(set(self.weights)) == 1 else \
            f", weights ({', '.join(format_number(v) for v in self.weights)})"
        if self.kind == "mean":
            n = len(self.weights) if self.weights else "the"
            return f"mean of {n} scores >= {tau}{w}"
        if self.kind in ("max", "min"):
            return f"{self.kind} of the scores >= {tau}"
        if self.kind == "logistic":
            ws = ", ".join(format_number(v) for v in self.weights or ())
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
        """The sum of the weights (``"mean"`` divides by it)."""
        return float(math.fsum(self.weights or ()))

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
            u = _key_float(np.array([key], dtype=np.int64))
            return bool(self.decide_total(u)[0])

        lo, hi = _KEY_LOW, _KEY_HIGH  # N at -inf, P at +inf
        if says(lo) or not says(hi):
            return math.nan, math.nan
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if says(mid) else (mid, hi)
        u = float(_key_float(np.array([hi], dtype=np.int64))[0])
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
            label = _row_label(index, row)
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


def _row_label(index: Any, row: int) -> Any:
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
        (required; the slot's weight > 0).
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
    if fusioner == "logistic":
        if not 0 < tau < 1:
            raise ValidationError(f"threshold: a logistic meta-model's probability is in "
                                  f"(0, 1), so the threshold must be too, got {tau!r}")
        if slot is not None and w[slot] <= 0:
            raise ValidationError(
                f"weights: the slot's weight is {w[slot]!r}; the system must be "
                "non-decreasing in the slot's score, so its weight must be > 0 (flip the "
                "slot's score, 1 - s, if the meta-model weighs it negatively)")
        return ScoreRule("logistic", tau, w, _finite("bias", bias))
    return ScoreRule("mean", tau, w)


def critical_scores(scores: Any, slot: int | str, fusioner: str | Callable[[np.ndarray], Any]
                    = "mean", *, threshold: float = 0.5, weights: Sequence[float] | None = None,
                    bias: float = 0.0, score_range: tuple[float, float] = (0.0, 1.0),
                    grid: int = 65) -> np.ndarray:
    """Each row's critical score in the slot: the system says P iff the slot's score >= it.

    Parameters
    ----------
    scores : array (rows, models) or DataFrame
        Every model's score per row (a DataFrame: its columns are the models).
    slot : int or str
        The slot's column: a position, or a column name of a DataFrame.
    fusioner, threshold, weights, bias, score_range, grid
        The rule (:func:`score_rule`).

    Returns
    -------
    numpy.ndarray
        ``t`` per row in ``[-inf, +inf]``, exact at the observed scores: the rule evaluated on
        the row says P iff ``scores[row, slot] >= t[row]``.

    Raises
    ------
    DataError
        NaN or non-numeric scores, an unknown slot column.
    ValidationError
        A bad rule (:func:`score_rule`).
    MonotonicityError
        A function that is not non-decreasing in the slot's score (row and scores named).

    Examples
    --------
    The mean of 0.1, 0.2 and the slot against 0.3 ... 0.1 + 0.2 is not 0.3 in floating point,
    yet the rule at the observed scores and ``s >= t`` agree:

    >>> s = np.array([[0.1, 0.2, 0.6], [0.4, 0.4, 0.1]])
    >>> t = critical_scores(s, slot=2, threshold=0.3)
    >>> t.round(12).tolist(), (s[:, 2] >= t).tolist()
    ([0.6, 0.1], [True, True])
    >>> critical_scores(s, slot=0, fusioner="max", threshold=0.5).tolist()
    [-inf, 0.5]
    """
    s, names = _score_array(scores)
    pos = _slot_position(slot, names, s.shape[1])
    rule = score_rule(fusioner, threshold=threshold, weights=weights, bias=bias,
                      n_models=s.shape[1], slot=pos, score_range=score_range, grid=grid)
    index = scores.index if isinstance(scores, pd.DataFrame) else None
    return _exact(rule, s, pos, index)[0]


_BLOCK = 1 << 16  # rows per block of exact_critical


def _snapped(t: np.ndarray, decide_at: Callable[[np.ndarray, Any], np.ndarray],
             offset: int = 0) -> np.ndarray:
    """Each finite critical score moved to the float at which the rule, computed in floating
    point, switches: the rule says P at ``t`` and N just below it. Rounding makes the rule a
    non-decreasing step of the float score which a closed form can miss by a few units in the
    last place; then "P iff score >= t" holds for every float score, not only near one.

    ``decide_at(values, rows)`` is the rule with the slot's score set to ``values`` on the
    rows ``rows`` (positions, or a slice; ``t[0]`` is row ``offset``). Two calls on every row
    settle a ``t`` within one unit of the step, a third on the rows one unit further; the
    rest gallop over adjacent floats (2, 4, 8, ... units) until the step is bracketed, then
    bisect. A row whose step is not found (a rule that is not P at +inf or not N at -inf)
    keeps its ``t``. ``t`` (float64) is changed in place and returned."""
    finite = np.isfinite(t)
    local: Any = slice(None) if finite.all() else np.flatnonzero(finite)
    rows: Any = slice(offset, offset + t.size) if isinstance(local, slice) else \
        local + offset
    at = t[local]
    if not at.size:
        return t
    p = decide_at(at, rows)  # P at t: the step is at t or below
    # on the floats' integer keys (branch-free; adjacent floats differ by 1): look one float
    # below a P, one above an N
    key = _float_key(at)
    step = 1 - 2 * p.astype(np.int64)
    near = key + step
    says = decide_at(_key_float(near), rows)
    # P at t and N below: t; N at t and P above: the float above; else one unit further
    key += says & ~p
    far = np.flatnonzero(p == says)
    if far.size:
        positions = far + offset if isinstance(local, slice) else local[far] + offset
        further = near[far] + step[far]
        again = decide_at(_key_float(further), positions) != p[far]  # the step is between
        key[far] = np.where(again, np.where(p[far], near[far], further), key[far])
        far, positions = far[~again], positions[~again]
    at = _key_float(key)
    if far.size:
        at[far] = _search_step(at[far], p[far], positions, decide_at)
    t[local] = at
    return t


def _search_step(t: np.ndarray, p: np.ndarray, rows: np.ndarray,
                 decide_at: Callable[[np.ndarray, Any], np.ndarray]) -> np.ndarray:
    """The float step of the rule for rows at least two units from ``t`` (``p``: P at
    ``t``): gallop to a bracket, then bisect on the floats' integer keys."""
    key = _float_key(t)
    hi = np.where(p, key, _KEY_HIGH)  # the lowest key known P
    lo = np.where(p, _KEY_LOW, key)   # the highest key known N
    todo = np.arange(t.size)
    step = 2
    while todo.size and step <= 2**63:  # gallop until a bracket
        down = p[todo]
        probe = np.where(down, np.maximum(key[todo] - step, _KEY_LOW),
                         np.minimum(key[todo] + step, _KEY_HIGH))
        says = decide_at(_key_float(probe), rows[todo])
        hi[todo] = np.where(says, probe, hi[todo])
        lo[todo] = np.where(says, lo[todo], probe)
        found = says != down  # N below a P, or P above an N
        lost = ~found & (probe == np.where(down, _KEY_LOW, _KEY_HIGH))
        if lost.any():  # no step on this side: keep t
            hi[todo[lost]] = key[todo[lost]]
            lo[todo[lost]] = key[todo[lost]] - 1
        todo = todo[~found & ~lost]
        step *= 2
    todo = np.flatnonzero(hi - lo > 1)
    while todo.size:  # bisection between the bracket's ends
        a, b = lo[todo], hi[todo]
        mid = (a >> 1) + (b >> 1) + (a & b & 1)
        says = decide_at(_key_float(mid), rows[todo])
        hi[todo] = np.where(says, mid, b)
        lo[todo] = np.where(says, a, mid)
        todo = todo[hi[todo] - lo[todo] > 1]
    return _key_float(hi)


def exact_critical(t: np.ndarray, observed: np.ndarray, says: np.ndarray,
                   decide_at: Callable[[np.ndarray, np.ndarray], np.ndarray]
                   ) -> tuple[np.ndarray, int]:
    """Closed-form or bisected critical scores made exact: snapped to the rule's float step
    (``decide_at(values, rows)``, the rule with the slot's score set), then moved to agree
    with the rule's decision ``says`` at the ``observed`` slot scores on every row. Returns
    the critical scores and the number of rows moved by the second step.

    Every route to critical scores (numpy arrays, an engine's column expressions) ends here.

    >>> rule = score_rule("mean", threshold=0.3, n_models=3)
    >>> s = np.array([[0.1, 0.2, 0.6]])
    >>> t, moved = exact_critical(rule.critical(s, 2), s[:, 2], rule.decide(s),
    ...                           lambda v, rows: rule.decide_at(s[rows], 2, v))
    >>> bool(s[0, 2] >= t[0]) == bool(rule.decide(s)[0]), moved
    (True, 0)
    """
    t = np.array(t, dtype=float)
    moved = 0
    for start in range(0, t.size, _BLOCK):  # blocks: the temporaries stay in the cache
        block = slice(start, start + _BLOCK)
        snapped = _snapped(t[block], decide_at, start)  # in place: a view of t
        obs, p = observed[block], says[block]
        wrong = np.flatnonzero(p != (obs >= snapped))
        if wrong.size:  # P: t may not exceed the observed score; N: t must exceed it
            snapped[wrong] = np.where(p[wrong], obs[wrong],
                                      np.nextafter(obs[wrong], np.inf))
            moved += int(wrong.size)
    return t, moved


def _exact(rule: ScoreRule, s: np.ndarray, slot: int, index: Any) -> tuple[np.ndarray, int]:
    """The critical scores of the rows of ``s`` made exact (:func:`exact_critical`)."""
    return exact_critical(rule.critical(s, slot, index), s[:, slot], rule.decide(s),
                          lambda values, rows: rule.decide_at(s[rows], slot, values))


def _score_array(scores: Any, names: Sequence[str] | None = None
                 ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The scores as a float (rows, models) array and the models' names; NaN refused."""
    if isinstance(scores, pd.DataFrame):
        names = tuple(str(c) for c in scores.columns)
        try:
            s = scores.to_numpy(dtype=float)
        except (TypeError, ValueError):
            bad = [str(c) for c in scores.columns
                   if not pd.api.types.is_numeric_dtype(scores[c])]
            raise DataError(f"score columns must be numeric; {bad} are not: give each model's "
                            "score of the positive class as a number") from None
        index: Any = scores.index
    else:
        try:
            s = np.asarray(scores, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"scores must be numbers, one column per model; cannot read them "
                            f"({exc})") from None
        if s.ndim != 2:
            raise DataError(f"scores must be a 2-dimensional array (rows, models), got shape "
                            f"{s.shape}")
        names = tuple(names) if names is not None else tuple(f"m{i}" for i in
                                                             range(s.shape[1]))
        index = None
    bad = np.isnan(s)
    if bad.any():
        row, col = (int(v) for v in np.argwhere(bad)[0])
        label = _row_label(index, row)
        raise DataError(f"score column {names[col]!r} is NaN on row {label!r} "
                        f"({int(bad[:, col].sum())} row(s)); drop or impute those rows: a "
                        "missing score has no critical score")
    return s, names


def _slot_position(slot: Any, names: tuple[str, ...], m: int) -> int:
    if isinstance(slot, (int, np.integer)) and not isinstance(slot, bool):
        if not 0 <= slot < m:
            raise DataError(f"slot: column position {slot} is out of range for {m} score "
                            "columns")
        return int(slot)
    if str(slot) not in names:
        raise DataError(f"slot: {slot!r} is not one of the score columns {list(names)}; name "
                        "the slot's column among models")
    return names.index(str(slot))


# -------------------------------------------------------------------------- the runs
def _readonly(a: np.ndarray, copy: bool = True) -> np.ndarray:
    """``a`` read-only: a copy, or ``a`` itself (``copy=False``, for an array just made)."""
    a = np.array(a) if copy else a
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class ScoreRuns:
    """A score slot's critical scores on a log, per row and per class (P, N).

    The system forced to score ``s`` says P on exactly the rows with ``critical <= s``; at
    the observed slot scores this agrees exactly with the fusion rule. Build it with
    :func:`causalcost.forced_runs` and a score fusioner (any engine), or :func:`score_runs`
    (numpy arrays, pandas).

    Attributes
    ----------
    slot : str
        The slot's column.
    models : tuple of str
        Every score column, the slot among them.
    rule : str
        The fusion rule in words.
    truth : numpy.ndarray of bool
        Per row: is it of class P.
    critical : numpy.ndarray of float
        Per row: the critical score (``-inf`` always P, ``+inf`` never P).
    observed_scores : numpy.ndarray of float
        Per row: the slot's observed score.
    index : pandas.Index or None
        The log's row labels (candidates' Series are aligned on it).
    adjusted : int
        Rows whose computed critical score was moved by floating-point rounding to agree
        with the rule at the observed score.
    positive : object
        The positive label of the truth column (``True`` for a boolean truth).
    score_range : (float, float) or None
        For a rule given as a function: the scores the critical scores are exact for.
    labels : tuple of str
        ``("P", "N")``.
    provenance : dict
        Where the log came from (read by :func:`causalcost.forced_runs`): the engine, whether
        it was lazy, the file, the rows, the columns and the rule.

    Examples
    --------
    >>> frame = pd.DataFrame({"y": [1, 1, 0, 0], "a": [0.9, 0.3, 0.2, 0.6],
    ...                       "b": [0.6, 0.5, 0.1, 0.7]})
    >>> runs = score_runs(frame, truth="y", models=["a", "b"], slot="b")
    >>> runs.critical.round(12).tolist()
    [0.1, 0.7, 0.8, 0.4]
    >>> runs.observed, runs.forced_at(1.0)
    (Confusion(tp=1, fn=1, fp=1, tn=1), Confusion(tp=2, fn=0, fp=2, tn=0))
    >>> runs.with_candidate([0.8, 0.8, 0.0, 0.0])
    Confusion(tp=2, fn=0, fp=0, tn=2)
    """

    slot: str
    models: tuple[str, ...]
    rule: str
    truth: np.ndarray
    critical: np.ndarray
    observed_scores: np.ndarray
    index: pd.Index | None = None
    adjusted: int = 0
    positive: Any = True
    score_range: tuple[float, float] | None = None
    labels: tuple[str, str] = field(default=CLASSES)
    provenance: dict[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def critical_by_class(self) -> tuple[np.ndarray, np.ndarray]:
        """Per class (P, N): the sorted critical scores."""
        return (_readonly(np.sort(self.critical[self.truth])),
                _readonly(np.sort(self.critical[~self.truth])))

    @cached_property
    def observed_by_class(self) -> tuple[np.ndarray, np.ndarray]:
        """Per class (P, N): the slot's observed scores, in row order."""
        return (_readonly(self.observed_scores[self.truth]),
                _readonly(self.observed_scores[~self.truth]))

    @property
    def class_sizes(self) -> tuple[int, int]:
        """Rows per class (P, N)."""
        n_p = int(self.truth.sum())
        return n_p, int(self.truth.size - n_p)

    def _confusion(self, says: np.ndarray) -> Confusion:
        p, n = self.truth, ~self.truth
        tp, fp = int((says & p).sum()), int((says & n).sum())
        n_p, n_n = self.class_sizes
        return Confusion(tp=tp, fn=n_p - tp, fp=fp, tn=n_n - fp)

    @property
    def observed(self) -> Confusion:
        """The system's confusion as logged (the slot at its observed scores)."""
        return self._confusion(self.observed_scores >= self.critical)

    def forced_at(self, score: float) -> Confusion:
        """The system's confusion with the slot forced to ``score`` on every row: P on exactly
        the rows whose critical score is at most ``score``."""
        if isinstance(score, bool) or not isinstance(score, (int, float, np.integer,
                                                              np.floating)):
            raise InputTypeError(f"score must be a number, got {type(score).__name__}")
        if math.isnan(score):
            raise ValidationError("score must be a number, not NaN: the score the slot is "
                                  "forced to on every row")
        s = float(score)
        t_p, t_n = self.critical_by_class
        tp = int(np.searchsorted(t_p, s, "right"))
        fp = int(np.searchsorted(t_n, s, "right"))
        n_p, n_n = self.class_sizes
        return Confusion(tp=tp, fn=n_p - tp, fp=fp, tn=n_n - fp)

    def _aligned(self, scores: Any, what: str = "scores") -> np.ndarray:
        values = align_by_index(scores, self.index, what, against="the log")
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"{what} must be numbers, one per row of the log ({exc})") from None
        if arr.shape != self.truth.shape:
            raise DataError(f"{what}: {arr.size} scores for {self.truth.size} rows of the log; "
                            "give the candidate's score on every row, in the log's order (or "
                            "as a Series on its index)")
        if not np.isfinite(arr).all():
            row = int(np.argwhere(~np.isfinite(arr))[0][0])
            label = _row_label(self.index, row)
            raise DataError(f"{what} must be finite: row {label!r} holds {arr[row]!r}")
        return arr

    def with_candidate(self, scores: Any) -> Confusion:
        """The real system confusion with a candidate's scores on the log's rows (a Series is
        aligned by index; other Series are refused): P where ``score >= critical``."""
        return self._confusion(self._aligned(scores) >= self.critical)

    def candidate_by_class(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        """A candidate's scores on the log's rows, split by class (P, N)."""
        arr = self._aligned(scores)
        return arr[self.truth], arr[~self.truth]

    def price(self, scores: Any, costs: Any = None, *, confidence: float | None = None
              ) -> ScoreBound:
        """Price a candidate from its scores on the log's own rows (same instances):
        :func:`~causalcost.pricing.scores.price_scores`.

        >>> runs = score_runs(np.array([[0.2, 0.9], [0.7, 0.1]]), truth=[1, 0], slot=1)
        >>> runs.price([0.95, 0.05]).worst_cost
        0.0
        """
        kwargs = {} if costs is None else {"costs": costs}
        return price_scores(self.critical_by_class, self.candidate_by_class(scores),
                            same_instances=True, confidence=confidence, **kwargs)

    def to_frame(self) -> pd.DataFrame:
        """One row per log row: ``truth`` (P/N), ``critical``, ``observed`` (the slot's
        score) and ``system`` (P/N as logged)."""
        return pd.DataFrame({
            "truth": np.where(self.truth, "P", "N"), "critical": self.critical,
            "observed": self.observed_scores,
            "system": np.where(self.observed_scores >= self.critical, "P", "N")},
            index=self.index)

    def to_dict(self) -> dict[str, Any]:
        """Plain values: the slot, the rule, sizes, the observed confusion and the sorted
        critical scores per class (``-inf`` / ``inf`` as floats)."""
        t_p, t_n = self.critical_by_class
        return {"slot": self.slot, "models": list(self.models), "rule": self.rule,
                "labels": list(self.labels), "positive": self.positive,
                "n": dict(zip(self.labels, self.class_sizes)),
                "observed": self.observed.to_dict(), "adjusted": self.adjusted,
                "critical": {"P": t_p.tolist(), "N": t_n.tolist()}}

    def __repr__(self) -> str:
        def spread(t: np.ndarray) -> str:
            if not t.size:
                return "none"
            q = np.quantile(t, [0.0, 0.5, 1.0], method="lower")
            return "..".join(format_number(float(v)) for v in q)

        t_p, t_n = self.critical_by_class
        return (f"ScoreRuns(slot={self.slot!r}, rule={self.rule!r}, "
                f"n={dict(zip(self.labels, self.class_sizes))}, observed={self.observed!r}, "
                f"critical P min..median..max {spread(t_p)}, N {spread(t_n)})")


def score_runs(data: Any, *, truth: Any, models: Sequence[str] | None = None, slot: Any,
               fusioner: str | Callable[[np.ndarray], Any] = "mean", threshold: float = 0.5,
               weights: Sequence[float] | None = None, bias: float = 0.0,
               positive: Any = None, score_range: tuple[float, float] = (0.0, 1.0),
               grid: int = 65) -> ScoreRuns:
    """A score slot's critical scores on a log: truth, every model's score, the slot.

    Parameters
    ----------
    data : pandas.DataFrame or array (rows, models)
        The log. A DataFrame: ``models`` name its score columns. An array: one column per
        model (``models`` then names them, ``m0 ..`` by default).
    truth : str or array-like
        The true class: a column of ``data``, or one value per row (a Series is aligned by
        index). Booleans (True is P), 0/1 (1 is P) or any two labels with ``positive=``.
    models : list of str
        The score columns, in the order of ``weights``.
    slot : str or int
        The slot's column (a name among ``models`` or a position).
    fusioner, threshold, weights, bias, score_range, grid
        The fusion rule: :func:`score_rule`.
    positive : optional
        The positive label of ``truth``.

    Returns
    -------
    ScoreRuns

    Raises
    ------
    DataError
        Unknown columns, NaN or non-numeric scores, a truth column that is not two labels,
        a truth of another length.
    ValidationError
        A bad rule (:func:`score_rule`).
    MonotonicityError
        A function that is not non-decreasing in the slot.

    Examples
    --------
    >>> frame = pd.DataFrame({"sick": [True, False], "x": [0.8, 0.3], "y": [0.1, 0.2]})
    >>> score_runs(frame, truth="sick", models=["x", "y"], slot="y").critical.round(9).tolist()
    [0.2, 0.7]
    >>> score_runs(frame, truth="sick", models=["x", "z"], slot="z")
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: models: no column 'z' in the log; its columns are ['sick', 'x', 'y']
    """  # noqa: E501
    if isinstance(data, pd.DataFrame):
        if models is None:
            raise DataError("models: name the score columns of the log (the slot among them), "
                            "e.g. models=['a', 'b', 'c']")
        if isinstance(models, str):
            raise InputTypeError("models must be a list of column names, not one string")
        columns = [str(c) for c in data.columns]
        for name in [*models, *([truth] if isinstance(truth, str) else [])]:
            if str(name) not in columns:
                what = "truth" if name is truth else "models"
                raise DataError(f"{what}: no column {name!r} in the log; its columns are "
                                f"{columns}")
        s, names = _score_array(data[list(models)])
        index: pd.Index | None = data.index
        truth_values = data[truth] if isinstance(truth, str) else \
            align_by_index(truth, data.index, "truth", against="the log")
        truth_name = truth if isinstance(truth, str) else "truth"
    else:
        s, names = _score_array(data, models)
        if len(names) != s.shape[1]:
            raise DataError(f"models: {len(names)} names for {s.shape[1]} score columns")
        index = None
        truth_values = align_by_index(truth, None, "truth", against="the scores")
        truth_name = "truth"
    return runs_from_scores(s, names, truth_values, str(truth_name), slot=slot, index=index,
                            positive=positive, fusioner=fusioner, threshold=threshold,
                            weights=weights, bias=bias, score_range=score_range, grid=grid)


def runs_from_scores(s: np.ndarray, names: tuple[str, ...], truth_values: Any, truth_name: str,
                     *, slot: Any, index: pd.Index | None, positive: Any,
                     provenance: dict[str, Any] | None = None, **rule: Any) -> ScoreRuns:
    """:class:`ScoreRuns` from a checked ``(rows, models)`` score array, on numpy: the rule's
    critical scores (closed form or bisection) made exact (:func:`exact_critical`)."""
    pos = _slot_position(slot, names, s.shape[1])
    y, shown_positive = truth_votes(truth_values, truth_name, positive, s.shape[0])
    built = score_rule(n_models=s.shape[1], slot=pos, **rule)
    t, moved = _exact(built, s, pos, index)
    return ScoreRuns(slot=names[pos], models=names, rule=built.describe(), truth=_readonly(y),
                     critical=_readonly(t), observed_scores=_readonly(s[:, pos]), index=index,
                     adjusted=moved, positive=shown_positive, score_range=built.score_range,
                     provenance=provenance or {})


def truth_votes(values: Any, name: str, positive: Any, rows: int) -> tuple[np.ndarray, Any]:
    """A score log's truth as booleans (True is P) and the positive label shown; a truth of
    another length, or of more than two labels (score systems are binary), is refused."""
    values = np.asarray(values)
    if values.shape != (rows,):
        raise DataError(f"truth: {values.size} values for {rows} rows of scores; give "
                        "one true class per row")
    labels = () if values.dtype == bool else pd.unique(pd.Series(values).dropna())
    if len(labels) > 2:
        shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v)
                          for v in sorted(labels[:6], key=str))
        raise DataError(
            f"truth: column {name!r} holds {len(labels)} labels ({shown}"
            f"{', ...' if len(labels) > 6 else ''}); a score system is binary (P, N): the "
            "slot's score is its score for the positive class. Map the truth to two labels "
            "(the positive one and the rest), or count votes with labels=[...]")
    y = votes_from_values(values, name=name, positive=positive)
    return y, positive if positive is not None else (True if values.dtype == bool else 1)
