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
with the rule by one rounding. Every route therefore ends with an exactness step, which first
moves each ``t`` to the float at which the rule, computed in floating point, switches (P at
``t``, N at the float below). For a closed form that is :func:`exact_rows`: a weighted sum
(``"mean"``, ``"logistic"``) is added left to right in the models' order (as scikit-learn's
soft voting averages its estimators), in numpy and in every engine alike, and its step is
found one operation at a time, from the least passing sum (:attr:`ScoreRule.switch`) back
through each term added after the slot to the slot's product, each operation's least passing
float checked by evaluating that operation itself at it and at the float next to it
(:func:`_sum_steps`; never a regrouped sum; where every term is finite the rule says N at
``-inf`` and P at ``+inf``, so the step exists and is found, even where the closed form
overflows); max and min walk one or two units from the closed form. A function of the scores
goes through :func:`exact_critical` (a walk from the bisected ``t``, else a gallop and a
bisection), which then evaluates the rule itself at the observed scores on every row and
moves ``t`` to agree exactly: if the rule says P but ``s_obs < t``, ``t = s_obs``; if it says
N but ``s_obs >= t``, ``t`` is the next float above ``s_obs``. So "the system says P iff
``s_obs >= t``" holds on every row of the log, with no exception (:attr:`ScoreRuns.adjusted`
counts the rows moved by the second step; for the closed forms none is: the step is the one of
the very operations of the rule, so every route gives the same critical scores to the bit, and
the agreement at the observed scores follows, floating-point products, sums and quotients by
positive numbers being non-decreasing).

:func:`~causalcost.data.score_runs.score_runs` reads a log of numpy arrays or a pandas
DataFrame (truth, score columns, the slot) into a
:class:`~causalcost.data.score_runs.ScoreRuns`: per class the critical scores and the slot's
observed scores. :func:`causalcost.forced_runs` with a score fusioner reads a log on any engine
(:mod:`causalcost.data.score_log`: the closed forms run there as column expressions, the same
:class:`ScoreRule` formulas through :class:`Ops`). The pricing of a candidate's scores is
:mod:`causalcost.pricing.scores`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import DataError
from causalcost.network.score_rules import (
    KEY_HIGH,
    KEY_LOW,
    NUMPY_OPS,
    ScoreRule,
    _weighted_sum,  # the rule's own left-to-right sum
    float_key,
    key_float,
    score_rule,
)
from causalcost.score_values import PROBABILITIES, as_score_range, check_scores, numeric_scores

__all__ = ["critical_scores", "exact_critical", "exact_for_rule", "exact_rows", "score_array",
           "slot_position"]


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
    s, names = score_array(scores, score_range=as_score_range(score_range))
    pos = slot_position(slot, names, s.shape[1])
    rule = score_rule(fusioner, threshold=threshold, weights=weights, bias=bias,
                      n_models=s.shape[1], slot=pos, score_range=score_range, grid=grid)
    index = scores.index if isinstance(scores, pd.DataFrame) else None
    return exact_for_rule(rule, s, pos, index)[0]


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
    key = float_key(at)
    step = 1 - 2 * p.astype(np.int64)
    near = key + step
    says = decide_at(key_float(near), rows)
    # P at t and N below: t; N at t and P above: the float above; else one unit further
    key += says & ~p
    far = np.flatnonzero(p == says)
    if far.size:
        positions = far + offset if isinstance(local, slice) else local[far] + offset
        further = near[far] + step[far]
        again = decide_at(key_float(further), positions) != p[far]  # the step is between
        key[far] = np.where(again, np.where(p[far], near[far], further), key[far])
        far, positions = far[~again], positions[~again]
    at = key_float(key)
    if far.size:
        at[far] = _search_step(at[far], p[far], positions, decide_at)
    t[local] = at
    return t


def _search_step(t: np.ndarray, p: np.ndarray, rows: np.ndarray,
                 decide_at: Callable[[np.ndarray, Any], np.ndarray]) -> np.ndarray:
    """The float step of the rule for rows at least two units from ``t`` (``p``: P at
    ``t``): gallop to a bracket, then bisect on the floats' integer keys."""
    key = float_key(t)
    hi = np.where(p, key, KEY_HIGH)  # the lowest key known P
    lo = np.where(p, KEY_LOW, key)   # the highest key known N
    todo = np.arange(t.size)
    step = 2
    while todo.size:  # gallop until a bracket (2, 4, ... 2^62 keys, then the infinities)
        down, at = p[todo], key[todo]
        if step > 2**62:
            probe = np.where(down, KEY_LOW, KEY_HIGH)
        else:  # saturated at the infinities (int64 arithmetic wraps where it is not used)
            probe = np.where(down, np.where(at < KEY_LOW + step, KEY_LOW, at - step),
                             np.where(at > KEY_HIGH - step, KEY_HIGH, at + step))
        says = decide_at(key_float(probe), rows[todo])
        hi[todo] = np.where(says, probe, hi[todo])
        lo[todo] = np.where(says, lo[todo], probe)
        found = says != down  # N below a P, or P above an N
        lost = ~found & (probe == np.where(down, KEY_LOW, KEY_HIGH))
        if lost.any():  # no step on this side: keep t
            hi[todo[lost]] = key[todo[lost]]
            lo[todo[lost]] = key[todo[lost]] - 1
        todo = todo[~found & ~lost]
        step *= 2
    todo = np.flatnonzero(hi - lo > 1)
    while todo.size:  # bisection between the bracket's ends
        a, b = lo[todo], hi[todo]
        mid = (a >> 1) + (b >> 1) + (a & b & 1)
        says = decide_at(key_float(mid), rows[todo])
        hi[todo] = np.where(says, mid, b)
        lo[todo] = np.where(says, a, mid)
        todo = todo[hi[todo] - lo[todo] > 1]
    return key_float(hi)


def exact_critical(t: np.ndarray, observed: np.ndarray, says: np.ndarray | None,
                   decide_at: Callable[[np.ndarray, np.ndarray], np.ndarray]
                   ) -> tuple[np.ndarray, int]:
    """Closed-form or bisected critical scores made exact: snapped to the rule's float step
    (``decide_at(values, rows)``, the rule with the slot's score set), then moved to agree
    with the rule's decision ``says`` at the ``observed`` slot scores on every row. Returns
    the critical scores and the number of rows moved by the second step.

    ``says=None``: ``decide_at`` is the rule at the observed scores too, and non-decreasing
    in the score (floating-point products, sums and quotients by positive numbers are), so
    the snapped step already agrees with it at every score: there is nothing to move.

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
        if says is None:
            continue
        obs, p = observed[block], says[block]
        wrong = np.flatnonzero(p != (obs >= snapped))
        if wrong.size:  # P: t may not exceed the observed score; N: t must exceed it
            snapped[wrong] = np.where(p[wrong], obs[wrong],
                                      np.nextafter(obs[wrong], np.inf))
            moved += int(wrong.size)
    return t, moved


def exact_for_rule(rule: ScoreRule, s: np.ndarray, slot: int, index: Any) -> tuple[np.ndarray, int]:
    """The critical scores of the rows of ``s`` made exact (:func:`exact_critical`).

    A closed-form rule takes the engines' route on numpy arrays (:func:`exact_rows`), so a
    log gives the same critical scores, to the bit, on numpy and on every engine. A function
    is bisected on every score.
    """
    if not rule.closed_form:
        return exact_critical(rule.critical(s, slot, index), s[:, slot], rule.decide(s),
                              lambda values, rows: rule.decide_at(s[rows], slot, values))
    columns = list(s.T)
    if rule.kind in ("max", "min") or slot == len(columns) - 1:  # the rest is the sum before
        rest = np.asarray(rule.rest(columns, slot), dtype=float)
        before = None if rule.kind in ("max", "min") or slot == 0 else rest
        return exact_rows(rule, slot, s[:, slot], rest, before, [])
    # a weighted sum with terms after the slot: the engines' route, the scores after the slot
    # weighted where they are read (no column of products made)
    weights = rule.weights or ()
    before = None if slot == 0 else _weighted_sum(columns[:slot], weights[:slot], NUMPY_OPS)
    after = columns[slot + 1:]
    rest = summed_parts(before, after, weights[slot + 1:])
    return exact_rows(rule, slot, s[:, slot], rest, before, after, weighted=False)


def exact_rows(rule: ScoreRule, slot: int, observed: np.ndarray, rest: np.ndarray,
               before: Any, after: Sequence[np.ndarray], *, weighted: bool = True
               ) -> tuple[np.ndarray, int]:
    """A closed-form rule's exact critical scores from each row's parts: the slot's observed
    score, the other models' part (:meth:`ScoreRule.rest`) and, for a weighted sum, the sum
    before the slot and the terms after it (:meth:`ScoreRule.split`; ``weighted=False``: the
    scores of the models after the slot, weighted here, the product an engine computes).

    The closed form from ``rest`` is snapped to the float at which the rule, evaluated with the
    very operations of :meth:`ScoreRule.decide` (:meth:`ScoreRule.decide_split`; the max or
    min of ``rest`` and the score), switches, and agrees with it at the observed scores. A
    weighted sum whose rule has a finite :attr:`ScoreRule.switch` goes through
    :func:`_sum_steps` (the same step, found one operation at a time); where no finite sum
    passes, the step is searched on the full sum from the largest float (:func:`_searched`).
    """
    rest = np.broadcast_to(np.asarray(rest, dtype=float), observed.shape)
    if rule.kind in ("max", "min"):
        def decide(values: np.ndarray, rows: Any) -> np.ndarray:
            return rule.decide_rest(rest[rows], slot, values)
    else:
        parts = None if before is None else np.broadcast_to(np.asarray(before, dtype=float),
                                                             observed.shape)
        terms = _Terms([np.broadcast_to(np.asarray(a, dtype=float), observed.shape)
                        for a in after],
                       None if weighted else list(rule.weights[slot + 1:]))  # type: ignore[index]

        def decide(values: np.ndarray, rows: Any) -> np.ndarray:
            return rule.decide_split(None if parts is None else parts[rows],
                                     terms.at(rows), slot, values)

        switch, half_step = rule.switch
        if math.isfinite(switch) and math.isfinite(half_step):
            return _sum_steps(rule, slot, rest, parts, terms, decide), 0
        # no finite sum passes (or every sum does): the closed form is infinite where a
        # finite step exists; searched on the full sum from the largest float
        t = np.empty(observed.shape)
        with np.errstate(all="ignore"):
            for start in range(0, t.size, _BLOCK):
                rows = np.arange(start, min(t.size, start + _BLOCK))
                t[rows] = _searched(rule, slot, rest, parts, terms, decide,
                                    np.full(rows.size, np.nan), rows)
        return t, 0
    t = np.broadcast_to(np.asarray(rule.critical_from_rest(rest, slot), dtype=float),
                        observed.shape).copy()
    return exact_critical(t, observed, None, decide)


class _Terms:
    """The terms of a weighted sum after the slot: given, or scores times their weights (the
    product taken where it is read, so a score column handed over by an engine is not copied
    whole)."""

    def __init__(self, columns: list[np.ndarray], weights: list[float] | None) -> None:
        self.columns, self.weights = columns, weights

    def __len__(self) -> int:
        return len(self.columns)

    def at(self, rows: Any, out: np.ndarray | None = None) -> list[np.ndarray]:
        """Each term on ``rows`` (into the rows of ``out``, one per term, if given)."""
        if self.weights is None:
            return [c[rows] for c in self.columns]
        if out is None:
            return [c[rows] * w for c, w in zip(self.columns, self.weights, strict=True)]
        return [np.multiply(c[rows], w, out=o)
                for c, w, o in zip(self.columns, self.weights, out, strict=True)]


#: |x| * _PHI rounds to about half the gap between x and its neighbours, so x - it and x + it
#: are the floats just below and above x (Rump, Zimmermann, Boldo and Melquiond, "Computing
#: predecessor and successor in rounding to nearest", BIT 49, 2009); near 0 (|x| below about
#: 1e-292) they may be x itself, never a float further away. _TOWARD is 2 * _PHI: |x| *
#: _TOWARD * (0.5 - p) moves x one float down where p (P: the step is at x or below), up
#: elsewhere (a product by +-0.5 is exact).
_PHI = 2.0**-53 + 2.0**-105
_TOWARD = 2 * _PHI
_EXPONENT = np.int64(0x7FF0000000000000)  # a float's exponent bits: 2^e for x in [2^e, 2^e+1)
_THREADS = 8  # at most, for _sum_steps
_SUM_BLOCK = 1 << 17  # rows per block of _sum_steps (fewer calls; its buffers stay in the cache)


def _sum_steps(rule: ScoreRule, slot: int, rest: np.ndarray, before: np.ndarray | None,
               after: _Terms, decide: Callable[[np.ndarray, Any], np.ndarray]) -> np.ndarray:
    """The float step of a weighted sum's rule, one operation at a time, on every row.

    The rule says P iff ``total >= u`` (:attr:`ScoreRule.switch`), where ``total`` is added
    left to right: ``x = before + s * w_slot`` (``s * w_slot`` when the slot is first), then
    ``y_1 = x + a_1``, ..., ``total = y_(k-1) + a_k`` (``a_i`` the terms after the slot).
    Each of these operations is rounded and non-decreasing in its left operand, so the last
    one says P iff its left operand is at least ``v_k``, the least float ``y`` with ``y + a_k
    >= u`` in floating point; the one before it reaches ``v_k`` iff its left operand is at
    least ``v_(k-1)``, the least float ``y`` with ``y + a_(k-1) >= v_k``; and so on back to
    the slot's score: P iff ``s >= t``, ``t`` the least float with ``before + t * w_slot >=
    v_1``. That is the rule's own sum, in its own order: no addition is regrouped.

    Each least float is found from a guess (the real threshold, less half the gap below the
    level it must reach, as :attr:`ScoreRule.switch` does for the whole sum) and checked by
    evaluating that one operation at the guess and at its neighbour (the float below a guess
    that passes, above one that does not), then at the next one on the rows where both agree:
    where two adjacent floats disagree, the passing one is the least. With the slot first and
    a power of two for its weight, ``s * w_slot`` is exact among the normal floats and ``t =
    v_1 / w_slot`` needs no check. A row where no check holds (a guess further off, a
    threshold near 0 or not finite) is searched on the full sum (:func:`_searched`). The rows
    go in blocks (the buffers stay in the cache), the blocks to threads (:func:`_in_threads`);
    each row's step does not depend on the others, so neither changes a bit.
    """
    n = rest.shape[0]
    u, half = rule.switch
    w = float(rule.weights[slot])  # type: ignore[index]
    t = np.empty(n)
    starts = range(0, n, _SUM_BLOCK)

    def run(blocks: Sequence[int]) -> None:
        size = min(n, _SUM_BLOCK)
        work = np.empty((5 + len(after), size))
        flags = np.empty((3, size), dtype=bool)
        with np.errstate(all="ignore"):  # a row whose guess overflows fails its check
            for start in blocks:
                stop = min(n, start + _SUM_BLOCK)
                m = stop - start
                block = slice(start, stop)
                out, ok = t[block], flags[2, :m]
                _sum_block(None if before is None else before[block],
                           after.at(block, work[5:, :m]), w, u, half, out, ok, work[:5, :m],
                           flags[:2, :m])
                if not ok.all():
                    bad = np.flatnonzero(~ok)
                    out[bad] = _searched(rule, slot, rest, before, after, decide, out[bad],
                                         bad + start)

    _in_threads(run, starts)
    return t


def summed_parts(before: np.ndarray | None, after: Sequence[np.ndarray],
                 weights: Sequence[float]) -> np.ndarray:
    """The other models' weighted sum (:meth:`ScoreRule.rest`) from its parts, added left to
    right as the rule adds it (and an engine, :mod:`causalcost.data.score_log`): the sum before
    the slot, then each score after it times its weight. The same operations in the same
    order, so the same floats; in blocks (each product stays in the cache) shared out to
    threads."""
    n = after[0].shape[0]
    total = np.empty(n)

    def run(starts: Sequence[int]) -> None:
        term = np.empty(min(n, _SUM_BLOCK))
        for start in starts:
            block = slice(start, start + _SUM_BLOCK)
            out, scratch = total[block], term[:min(n - start, _SUM_BLOCK)]
            for i, (score, w) in enumerate(zip(after, weights, strict=True)):
                if i == 0 and before is None:
                    np.multiply(score[block], w, out=out)
                    continue
                np.multiply(score[block], w, out=scratch)
                if i == 0:
                    np.add(before[block], scratch, out=out)  # type: ignore[index]
                else:
                    out += scratch

    _in_threads(run, range(0, n, _SUM_BLOCK))
    return total


def _in_threads(run: Callable[[Sequence[int]], None], starts: Sequence[int]) -> None:
    """``run`` on every block start, the starts shared out to threads (each ``run`` call gets
    every k-th start): numpy leaves the interpreter lock inside an operation on a long array,
    so the blocks run side by side on the free processors. One thread for a few blocks."""
    threads = min(_cores(), _THREADS, len(starts) // 2)
    if threads < 2:
        run(starts)
        return
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, [starts[i::threads] for i in range(threads)]))


def _cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _sum_block(before: np.ndarray | None, after: Sequence[np.ndarray], w: float, u: float,
               half: float, t: np.ndarray, ok: np.ndarray, work: np.ndarray,
               flags: np.ndarray) -> None:
    """:func:`_sum_steps` on one block: ``t`` gets each row's step, ``ok`` whether every
    operation's check held (all buffers written in place)."""
    g, near, tmp, level, gap = work
    p, q = flags
    v: Any = u       # the least passing value of the sum so far: one float, then per row
    h: Any = half    # half the gap below it
    first = True
    for a in reversed(after):  # the least float y with y + a >= v

        def passes(x: np.ndarray, rows: Any, a: np.ndarray = a, v: Any = v) -> np.ndarray:
            return x + a[rows] >= (v if np.ndim(v) == 0 else v[rows])

        np.subtract(v, a, out=g)
        g -= h                                  # the guess
        np.add(g, a, out=tmp)
        np.greater_equal(tmp, v, out=p)
        _neighbour(g, p, near, tmp)
        np.add(near, a, out=tmp)
        np.greater_equal(tmp, v, out=q)
        _settle(g, near, p, q, ok, first, passes)
        first = False
        np.fmax(g, near, out=level)             # the passing one of the two
        np.bitwise_and(level.view(np.int64), _EXPONENT, out=gap.view(np.int64))
        gap *= 2.0**-53                         # half the gap below it (a quarter at 2^e)
        v, h = level, gap
    # t: the least float s with before + s * w >= v
    if before is None and not first and math.frexp(w)[0] == 0.5:
        # w a power of two: s * w is exact while s and s * w are normal floats, and the
        # float grid scaled by w is the float grid, so t = v / w and (its float below) * w
        # is the float below v
        np.divide(v, w, out=t)
        np.abs(t, out=tmp)
        ok &= tmp >= _NORMAL * max(1.0, 1 / w)
        ok &= tmp <= _MAX
        return

    def reaches(x: np.ndarray, rows: Any) -> np.ndarray:
        total = x * w if before is None else before[rows] + x * w
        return total >= (v if np.ndim(v) == 0 else v[rows])

    if before is None:
        np.subtract(v, h, out=g)
    else:
        np.subtract(v, before, out=g)
        g -= h
    g *= 1 / w
    np.multiply(g, w, out=tmp)
    if before is not None:
        tmp += before
    np.greater_equal(tmp, v, out=p)
    _neighbour(g, p, near, tmp)
    np.multiply(near, w, out=tmp)
    if before is not None:
        tmp += before
    np.greater_equal(tmp, v, out=q)
    _settle(g, near, p, q, ok, first, reaches)
    np.fmax(g, near, out=t)
    ok &= np.isfinite(t)  # +inf has no float above it: its check proves nothing


def _neighbour(g: np.ndarray, p: np.ndarray, near: np.ndarray, work: np.ndarray) -> None:
    """``near``: the float below ``g`` where ``p``, above it elsewhere (or ``g`` itself near 0;
    NaN beyond the largest float)."""
    np.copyto(work, p.view(np.uint8))  # 0 or 1 (faster than arithmetic on booleans)
    np.subtract(0.5, work, out=work)
    np.abs(g, out=near)
    near *= _TOWARD
    near *= work
    near += g


def _settle(g: np.ndarray, near: np.ndarray, p: np.ndarray, q: np.ndarray, ok: np.ndarray,
            first: bool, passes: Callable[[np.ndarray, Any], np.ndarray]) -> None:
    """After the checks ``p`` at ``g`` and ``q`` at ``near``: this operation's step is found
    where they disagree. Where they agree, one more float in the same direction is checked;
    where it disagrees with them, ``g`` and ``near`` become the float before it and it. ``ok``
    is set (``first``) or narrowed to the rows found."""
    found = np.not_equal(p, q, out=q)
    if not found.all():
        again = np.flatnonzero(~found)
        was, said = near[again], p[again]
        further = np.abs(was) * _TOWARD * (0.5 - said) + was
        turned = passes(further, again) != said
        where = again[turned]
        g[where] = was[turned]
        near[where] = further[turned]
        found[where] = True
    if first:
        ok[:] = found
    else:
        ok &= found


def _searched(rule: ScoreRule, slot: int, rest: np.ndarray, before: np.ndarray | None,
              after: _Terms, decide: Callable[[np.ndarray, Any], np.ndarray],
              guess: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The rows of :func:`_sum_steps` whose checks failed: with every part finite the rule is
    N at -inf and P at +inf, so its step exists and :func:`_snapped` finds it on the full sum
    from a finite guess (the failed one, else the closed form); otherwise the closed form."""
    closed = np.asarray(rule.critical_from_rest(rest[rows], slot), dtype=float)
    finite = np.ones(rows.size, dtype=bool)
    for part in ([] if before is None else [before[rows]]) + after.at(rows):
        finite &= np.isfinite(part)
    start = np.where(np.isfinite(guess), guess, np.clip(closed, -_MAX, _MAX))
    closed[finite] = _snapped(start[finite], lambda values, at: decide(values,
                                                                      rows[finite][at]))
    return closed


_MAX = float(np.finfo(np.float64).max)
_NORMAL = 2.0**-1020  # a little above the least normal float: no product by 2^k rounds there


def score_array(scores: Any, names: Sequence[str] | None = None,
                score_range: tuple[float, float] = PROBABILITIES
                ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The scores as a float (rows, models) array and the models' names, read by the one
    reader of scores (:mod:`causalcost.score_values`: numbers, present, finite, in
    ``score_range``; the first bad cell in row order is named)."""
    index: Any = scores.index if isinstance(scores, pd.DataFrame) else None
    if isinstance(scores, pd.DataFrame):
        names = tuple(str(c) for c in scores.columns)
        s = np.column_stack([numeric_scores(scores[c], f"score column {c!r}", index)
                             for c in scores.columns]) if len(names) else \
            np.empty((len(scores), 0))
    else:
        s = numeric_scores(scores, "scores", None, names)
        if s.ndim != 2:
            raise DataError(f"scores must be a 2-dimensional array (rows, models), got shape "
                            f"{s.shape}")
        names = tuple(names) if names is not None else tuple(f"m{i}" for i in
                                                             range(s.shape[1]))
    check_scores(s, "scores", score_range=score_range, labels=index,
                 columns=names if len(names) == s.shape[1] else None)
    return s, names


def slot_position(slot: Any, names: tuple[str, ...], m: int) -> int:
    """The slot's column among ``m`` score columns: a name among ``names`` or a position."""
    if isinstance(slot, (int, np.integer)) and not isinstance(slot, bool):
        if not 0 <= slot < m:
            raise DataError(f"slot: column position {slot} is out of range for {m} score "
                            "columns")
        return int(slot)
    if str(slot) not in names:
        raise DataError(f"slot: {slot!r} is not one of the score columns {list(names)}; name "
                        "the slot's column among models")
    return names.index(str(slot))
