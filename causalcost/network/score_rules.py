"""Score fusion rules: the system says P iff the fused score of its models reaches a threshold.

:class:`ScoreRule` evaluates a rule on an array of scores (rows, models) and gives each row's
critical score in a slot; :func:`score_rule` builds one and validates it. The rules are read by
the network layer (score fusioners over score bins, :mod:`causalcost.network.scores`) and by
the log layer (:mod:`causalcost.data.critical_scores`, which documents the critical scores).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from causalcost.display import format_number
from causalcost.errors import InputTypeError, MonotonicityError, ValidationError

__all__ = ["SCORE_FUSIONERS", "ScoreRule", "score_rule"]

#: The fusion rules with a closed form (a callable is the fifth kind, ``"function"``).
SCORE_FUSIONERS = ("mean", "max", "min", "logistic")

_BISECTION_STEPS = 2200  # enough to reach adjacent floats on any finite range


# --------------------------------------------------------------------------- the rule
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

    def decide(self, scores: np.ndarray) -> np.ndarray:
        """Whether the system says P on each row of a ``(rows, models)`` score array: the rule
        itself, evaluated directly."""
        s = np.asarray(scores, dtype=float)
        if self.kind == "mean":
            w = np.asarray(self.weights, dtype=float)
            return (s @ w) / w.sum() >= self.threshold
        if self.kind == "max":
            return s.max(axis=1) >= self.threshold
        if self.kind == "min":
            return s.min(axis=1) >= self.threshold
        if self.kind == "logistic":
            from scipy.special import expit

            return expit(self.bias + s @ np.asarray(self.weights, dtype=float)) \
                >= self.threshold
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
        others = np.delete(s, slot, axis=1)
        tau = self.threshold
        with np.errstate(over="ignore", invalid="ignore"):
            if self.kind in ("mean", "logistic"):
                w = np.asarray(self.weights, dtype=float)
                rest = others @ np.delete(w, slot)
                level = tau * w.sum() if self.kind == "mean" else \
                    math.log(tau) - math.log1p(-tau) - self.bias
                return (level - rest) / w[slot]
        n = s.shape[0]
        if self.kind == "max":
            if not others.shape[1]:
                return np.full(n, tau)
            return np.where(others.max(axis=1) >= tau, -np.inf, tau)
        if self.kind == "min":
            if not others.shape[1]:
                return np.full(n, tau)
            return np.where(others.min(axis=1) >= tau, tau, np.inf)
        return self._bisect(s, slot, index)

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
