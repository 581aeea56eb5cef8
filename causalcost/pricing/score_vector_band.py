"""High-confidence worst and best case of a K-label score slot in the probability form.

The probability form (:func:`~causalcost.pricing.score_vectors.probability_bounds`) prices a
candidate whose vectors were measured on **other** instances of the class than the system's
offsets: the worst (best) expected cost of one instance over every coupling of the two
empirical distributions. This module bounds the same extremes for the **populations** the two
samples come from, with a stated confidence.

**Assumptions.** Per class, the offsets ``r_1 .. r_n`` are i.i.d. from a population ``R``, the
vectors ``p_1 .. p_m`` i.i.d. from a population ``P``, and the two samples are independent
(the vectors come from other instances). With ``cost(r, p) = costs_row[g(r, p)]`` and ``g``
the system's argmax (ties: the first label) of :mod:`causalcost.pricing.score_vectors`, the
population worst case is ``W = sup E_pi cost(r, p)`` over couplings ``pi`` of ``R`` and ``P``
and the best case ``B`` the infimum.

**Keys.** ``g(r, p) = argmax_k (q_k + r_k)``, ``q = A p``, depends on the pair only through
``D = X - Y`` in ``R^(K-1)``, with the vector's keys ``X_k = q_k - q_0`` and the offset's keys
``Y_k = r_0 - r_k`` (``k = 1 .. K-1``): the output is the first largest of
``(0, D_1, .., D_{K-1})``.

**A certificate (weak duality).** If functions ``u`` (of offsets) and ``v`` (of vectors)
satisfy ``u(r) + v(p) >= cost(r, p)`` for **every** ``r`` and ``p``, then every coupling has
``E_pi cost <= E_pi [u(r) + v(p)] = E_R u + E_P v``, so ``W <= E_R u + E_P v`` (with ``<=``
reversed, ``B >= E_R u + E_P v``). The bound needs no band on the distributions: only the two
means, of two fixed bounded functions.

**The functions, fitted on a third of each sample.** Each sample is split in three parts at
random (a seeded permutation, independent of the values). On one part of each (the *fitting*
parts): the bounding box of the fitting vectors' keys is cut into boxes, per axis halfway
between the value at each ``j / b`` quantile of the fitting keys (vectors' and offsets'
pooled) and the next distinct value, so no fitting key lies on a cut; every vector key outside
the bounding box falls in one more cell, ``O``. Each offset ``r`` is priced against each
closed box ``V`` at ``H(r, V)``, the largest cost of an
output that some ``D = X - Y(r)`` with ``X`` in ``V`` reaches (output 0 if every ``D_k`` can
be ``<= 0``; output ``k >= 1`` if ``D_k`` can be ``>= 0`` and ``>=`` every other ``D_j``), and
the transportation problem between the fitting offsets and the fitting vectors' boxes is
solved (HiGHS, :func:`scipy.optimize.linprog`; offsets with equal prices merged, and beyond
50,000 variables a weighted sample of them, seeded). Its dual gives a value ``v_V`` per box; ``v``
is lowered to ``v_V = max_r (H(r, V) - u_r)`` over the fitting offsets (the c-transform) and
clipped to ``[m, m + c]`` (``m`` the smallest ``v_V`` of a box holding a fitting vector,
``c = max cost - min cost``); the boxes holding none, and ``O``, get ``m + c``. Then for
**any** offset ``u(r) = max_V (H(r, V) - v_V)`` over the boxes (the c-transform of ``v``,
computed exactly per offset) and ``v(p) = v_V`` for ``p``'s box (``m + c`` in ``O``). A vector
in a box has ``cost(r, p) <= H(r, V(p)) <= u(r) + v(p)``; one in ``O`` has ``u(r) + v(p) >=
(min cost - m) + m + c = max cost``. So ``u(r) + v(p) >= cost(r, p)`` for all ``r`` and
``p``: the certificate holds by construction, whatever the solver returned, and a population
reaching beyond the fitting sample pays only its mass outside, at ``m + c``, in the mean of
``v``. Ties are counted both ways and each key interval is widened by
``2^-44 (Q + S)`` (``Q``, ``S`` the largest magnitudes of the slot parts and offsets given),
far above the rounding of the float decision. The best case is the mirror image (``L(r, V)``
the smallest cost reached, minima for maxima).

**Confidence.** Given the fitting parts, ``u`` and ``v`` are fixed, with values in intervals
of width at most ``c`` known in advance (``u`` in ``[min cost - m, max cost - m]``), and the
other two parts (the *evaluation* draws, ``n_u`` offsets and ``n_v`` vectors) are i.i.d. and
independent of them. Hoeffding's inequality on the sum of the two means gives
``E_R u + E_P v <= mean u + mean v + t`` with probability at least ``1 - delta'``,
``t = sqrt(log(1 / delta') (c^2 / n_u + w_v^2 / n_v) / 2)`` (``w_v = max v - min v``). Each
part fits in turn (three folds); the bound is the smallest of the three folds' (the largest
for the best case). The three folds of both cases hold at once with probability at least
``1 - delta`` for ``delta' = delta / 6`` (Bonferroni; the folds' evaluation draws overlap,
which a union bound allows); the bounds are clipped to the costs' range (always valid).
Measured against two folds (halves) and four, and against fitting on one part only: three
folds gave the lowest worst case or within 1 % of it on discrete and Dirichlet populations
(n = 300 and 3,000). A price over several classes splits ``alpha`` over the classes with
candidates, so every class's worst and best case hold together with probability at least
``1 - alpha``, as the binary DKW bound of :mod:`causalcost.pricing.scores` promises; ``t`` is
of the order of the binary bound's DKW shifts (``c sqrt(3 log(6 / delta) / (2 n))`` for
``n`` draws per side).

**Why not a band on a grid?** An L1 band on a cell distribution (Weissman et al. 2003:
``P(||a_hat - a||_1 >= eps) <= (2^m - 2) exp(-n eps^2 / 2)`` for ``m`` cells) bounds every set
of cells, and so every up-set, at once; the worst case over couplings of cell distributions
inside two such bands is a linear program. But its radius grows like ``sqrt(m / n)``, every
pair of cells must be priced box against box (both sides cut, so more pairs straddle a
decision boundary), and the cells must be cut independently of the sample counted (e.g. each
side at the other sample's quantiles). That construction, tried first on Dirichlet offsets
and vectors (K = 3 and 4, n from 200 to 5,000, 2 to 8 bins per axis, outer cells reaching to
infinity), gave the trivial bound (the largest cost) every time. The certificate needs two
scalar means only (``t`` of order ``c sqrt(log(1 / delta) / n)``, whatever the grid), prices
exact offsets against boxes, and its grid only shapes ``v``.

**The grid's size.** ``b = max(2, floor(64^(1 / (K - 1))))`` bins per axis: 64 boxes for K = 2
to 4 and K = 7, fewer between, two bins per axis from K = 5 on; beyond 256 boxes (K > 9) only
the first eight axes are cut (the rest keep one bin). Any choice
made on the fitting parts keeps the bound valid; a finer grid fits ``v`` closer but on fewer
vectors per box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from causalcost.errors import InputTypeError, ValidationError
from causalcost.pricing.score_vectors import _costs_row, _inputs, _nonempty, _slot_part

__all__ = ["HighConfidenceBounds", "high_confidence_bounds"]

#: Each key interval is widened by this times the largest magnitudes given (float decisions).
_WIDEN = 2.0 ** -44
#: The boxes aimed at per grid, and the most allowed.
_BOXES, _MOST_BOXES = 64, 256
#: The parts each sample is split into; each fits the certificate in turn.
_FOLDS = 3
#: The most variables of a fitting transportation problem; beyond, its rows are sampled.
_LP_VARIABLES = 50_000
#: Bools of one chunk of the offsets-against-boxes reach (bounds the memory).
_CHUNK_ELEMENTS = 1 << 20


class HighConfidenceBounds(NamedTuple):
    """High-confidence worst and best expected cost of one instance of a class.

    Attributes
    ----------
    worst : float
        At least the population's worst case (over couplings of the two populations).
    best : float
        At most the population's best case.

    Both hold together with probability at least ``1 - delta``.
    """

    worst: float
    best: float


# -------------------------------------------------------------------------- boxes
def _axes_cut(k: int, bins: int) -> int:
    """How many of the K - 1 key axes are cut: all unless ``bins^axes`` passes 256."""
    return min(k - 1, int(math.floor(math.log(_MOST_BOXES) / math.log(bins) + 1e-9)))


def _cuts(keys: np.ndarray, bins: int, axes: int) -> list[np.ndarray]:
    """Per key axis, at most ``bins - 1`` cuts, each halfway between two consecutive distinct
    values of ``keys`` (so no value lies on a cut): after the value at each ``j / bins``
    quantile (``j = 1 .. bins-1``), or after every value when there are at most ``bins``.
    No cut on the axes past ``axes``."""
    out = []
    for axis, col in enumerate(keys.T):
        values = np.unique(col)
        if axis >= axes or values.size < 2:
            out.append(np.zeros(0))
            continue
        if values.size <= bins:
            at = np.arange(values.size - 1)
        else:
            at = np.unique(np.minimum(
                np.searchsorted(values, np.quantile(col, np.arange(1, bins) / bins,
                                                    method="lower")), values.size - 2))
        out.append(values[at] + (values[at + 1] - values[at]) / 2)
    return out


def _box_of(keys: np.ndarray, cuts: list[np.ndarray]) -> np.ndarray:
    """Each row's box on the product of the axes' bins (bin ``b``: ``cut[b-1] <= key <
    cut[b]``), numbered as :func:`_boxes` lists them."""
    box = np.zeros(keys.shape[0], dtype=np.int64)
    for col, cut in zip(keys.T, cuts):
        box = box * (cut.size + 1) + np.searchsorted(cut, col, "right")
    return box


def _boxes(cuts: list[np.ndarray], low: np.ndarray, high: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """The closed boxes of the product partition of ``[low, high]`` (cuts inside it): lower
    and upper ends, each of shape (boxes, K - 1)."""
    lows = np.meshgrid(*[np.r_[a, cut] for cut, a in zip(cuts, low)], indexing="ij")
    highs = np.meshgrid(*[np.r_[cut, b] for cut, b in zip(cuts, high)], indexing="ij")
    return (np.stack([g.ravel() for g in lows], axis=1),
            np.stack([g.ravel() for g in highs], axis=1))


def _reached(y: np.ndarray, lo: np.ndarray, hi: np.ndarray, widen: float) -> np.ndarray:
    """Per offset key ``y`` and box ``[lo, hi]`` of vector keys, the outputs some
    ``D = X - y`` with ``X`` in the box reaches: bool of shape (offsets, boxes, K)."""
    d_lo = lo[None, :, :] - y[:, None, :] - widen
    d_hi = hi[None, :, :] - y[:, None, :] + widen
    out = np.empty(d_lo.shape[:2] + (d_lo.shape[2] + 1,), dtype=bool)
    out[..., 0] = (d_lo <= 0).all(axis=2)
    # output k >= 1: d_hi[k] >= 0 and >= every other axis's d_lo: the largest other d_lo is
    # the largest of all unless axis k holds it, then the second largest
    first = d_lo.argmax(axis=2)
    top = np.take_along_axis(d_lo, first[..., None], axis=2)
    rest = d_lo.copy()
    np.put_along_axis(rest, first[..., None], -np.inf, axis=2)
    second = rest.max(axis=2, keepdims=True)
    axes = np.arange(d_lo.shape[2])
    others = np.where(first[..., None] == axes, second, top)
    out[..., 1:] = d_hi >= np.maximum(others, 0.0)
    return out


def _prices(y: np.ndarray, lo: np.ndarray, hi: np.ndarray, row: np.ndarray, widen: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """``H(r, V)`` and ``L(r, V)``: the largest and smallest cost of an output reached, per
    offset key and box, chunked over the offsets."""
    high, low = np.empty((y.shape[0], lo.shape[0])), np.empty((y.shape[0], lo.shape[0]))
    step = max(1, _CHUNK_ELEMENTS // max(1, lo.shape[0] * y.shape[1]))
    for s in range(0, y.shape[0], step):
        reach = _reached(y[s:s + step], lo, hi, widen)
        high[s:s + step] = np.where(reach, row, -np.inf).max(axis=2)
        low[s:s + step] = np.where(reach, row, np.inf).min(axis=2)
    return high, low


# ------------------------------------------------------------------- the certificate
def _dual(prices: np.ndarray, weights: np.ndarray, mass: np.ndarray, maximize: bool
          ) -> np.ndarray:
    """Per box, ``v_V`` from the dual of the transportation problem between the fitting
    offsets (rows of ``prices``, ``weights``) and the boxes (``mass``), lowered (raised) to
    the c-transform of the rows' duals over all boxes."""
    rows, row_of = np.unique(prices, axis=0, return_inverse=True)
    supply = np.bincount(row_of.ravel(), weights, rows.shape[0]) / weights.sum()
    used = np.flatnonzero(mass)
    most = max(1, _LP_VARIABLES // used.size)
    if rows.shape[0] > most:  # fit on a weighted sample of the rows (any v stays valid)
        keep = np.random.default_rng(0).choice(rows.shape[0], most, replace=False, p=supply)
        rows, supply = rows[keep], supply[keep] / supply[keep].sum()
    cost = rows[:, used]
    n_r, n_c = cost.shape
    sign = -1.0 if maximize else 1.0
    pair = np.arange(n_r * n_c)
    a_eq = sparse.csc_matrix((np.ones(2 * pair.size), (np.r_[pair // n_c, n_r + pair % n_c],
                                                       np.r_[pair, pair])),
                             shape=(n_r + n_c, pair.size))
    res = linprog(sign * cost.ravel(), A_eq=a_eq,
                  b_eq=np.r_[supply, mass[used] / mass.sum()], bounds=(0, None),
                  method="highs")
    if res.status != 0:  # pragma: no cover - a balanced transportation problem is feasible
        raise ValidationError(f"the fitting transportation problem was not solved: "
                              f"{res.message}")
    u = sign * np.asarray(res.eqlin.marginals[:n_r])
    gaps = rows - u[:, None]
    return gaps.max(axis=0) if maximize else gaps.min(axis=0)


@dataclass(frozen=True)
class _Grid:
    """Boxes tiling the fitting vectors' bounding box ``[low, high]`` (cut at the pooled
    quantiles of the fitting keys); every vector key outside it falls in one more cell, the
    last."""

    cuts: list[np.ndarray]
    low: np.ndarray
    high: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def of(cls, y: np.ndarray, x: np.ndarray, bins: int) -> _Grid:
        low, high = x.min(axis=0), x.max(axis=0)
        cuts = [c[(c > a) & (c < b)] for c, a, b in
                zip(_cuts(np.concatenate([x, y]), bins, _axes_cut(x.shape[1] + 1, bins)),
                    low, high)]
        return cls(cuts, low, high, *_boxes(cuts, low, high))

    @property
    def boxes(self) -> int:
        return self.lo.shape[0]

    def cell(self, x: np.ndarray) -> np.ndarray:
        """Each vector key's box, or ``boxes`` (the cell outside the bounding box)."""
        inside = ((x >= self.low) & (x <= self.high)).all(axis=1)
        return np.where(inside, _box_of(x, self.cuts), self.boxes)


@dataclass(frozen=True)
class _Certificate:
    """``v`` per cell of a grid (the last: outside the boxes) and its c-transform ``u``:
    ``u(r) + v(p) >= cost(r, p)`` (``maximize``) or ``<=`` for every offset and vector."""

    v: np.ndarray
    maximize: bool

    @classmethod
    def fit(cls, prices: np.ndarray, weights: np.ndarray, mass: np.ndarray, row: np.ndarray,
            maximize: bool) -> _Certificate:
        """``v`` from the transportation dual between the fitting offsets (``prices``: their
        ``H`` or ``L`` per box, ``weights``) and the fitting vectors' boxes (``mass``); the
        boxes no fitting vector is in, and the cell outside, at the end of ``v``'s window of
        the costs' span (where they never raise ``u``)."""
        v = _dual(prices, weights, mass, maximize)
        span, used = float(row.max() - row.min()), mass > 0
        end = float(v[used].min()) + span if maximize else float(v[used].max()) - span
        v = np.where(used, np.minimum(v, end) if maximize else np.maximum(v, end), end)
        return cls(np.r_[v, end], maximize)

    def u(self, prices: np.ndarray) -> np.ndarray:
        """The c-transform of ``v`` at offsets priced per box (``H`` or ``L``):
        ``max_V (H(r, V) - v_V)`` (or ``min_V (L(r, V) - v_V)``) over the boxes (the cell
        outside, at the end of the window, never sets it)."""
        gaps = prices - self.v[:-1]
        return gaps.max(axis=1) if self.maximize else gaps.min(axis=1)


def _fold(keys: np.ndarray, fit: tuple[np.ndarray, np.ndarray],
          held: tuple[np.ndarray, np.ndarray], row: np.ndarray, bins: int, widen: float,
          delta: float) -> tuple[float, float]:
    """One fold's worst and best bound: the certificates fitted on ``fit`` (each distinct
    offset key's weight, vector keys), their two means on ``held`` plus (minus) Hoeffding's
    ``t`` at ``delta``."""
    (w_fit, x_fit), (w_held, x_held) = fit, held
    on_fit, on_held = w_fit > 0, w_held > 0
    grid = _Grid.of(np.repeat(keys, w_fit, axis=0), x_fit, bins)  # the offsets as drawn
    mass = np.bincount(grid.cell(x_fit), minlength=grid.boxes + 1)[:-1].astype(float)
    fit_prices = _prices(keys[on_fit], grid.lo, grid.hi, row, widen)
    certs = [_Certificate.fit(fit_prices[0], w_fit[on_fit], mass, row, True),
             _Certificate.fit(fit_prices[1], w_fit[on_fit], mass, row, False)]
    del fit_prices
    held_keys, weights = keys[on_held], w_held[on_held]
    u = np.empty((2, held_keys.shape[0]))
    step = max(1, _CHUNK_ELEMENTS // max(1, grid.boxes))  # the held offsets' prices, chunked
    for s in range(0, held_keys.shape[0], step):
        prices = _prices(held_keys[s:s + step], grid.lo, grid.hi, row, widen)
        u[0, s:s + step], u[1, s:s + step] = certs[0].u(prices[0]), certs[1].u(prices[1])
    cells, span = grid.cell(x_held), float(row.max() - row.min())
    out = []
    for cert, u_c in zip(certs, u):
        v = cert.v[cells]
        mean = math.fsum((u_c * weights).tolist()) / weights.sum() \
            + math.fsum(v.tolist()) / v.size
        width_v = float(cert.v.max() - cert.v.min())
        t = math.sqrt(math.log(1.0 / delta) / 2.0 * (span ** 2 / weights.sum()
                                                     + width_v ** 2 / v.size))
        out.append(mean + t if cert.maximize else mean - t)
    return float(out[0]), float(out[1])


def _check(delta: Any, bins: Any, k: int) -> tuple[float, int]:
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)):
        raise InputTypeError(f"delta must be a number in (0, 1), got {type(delta).__name__}")
    if not 0 < delta < 1:
        raise ValidationError(f"delta must lie strictly between 0 and 1 (the probability that "
                              f"a bound fails), got {delta!r}")
    if bins is None:
        bins = max(2, int(math.floor(_BOXES ** (1.0 / (k - 1)) + 1e-9)))
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValidationError(f"bins must be an integer of at least 2 (bins per key axis), "
                              f"got {bins!r}")
    return float(delta), int(bins)


def high_confidence_bounds(A: Any, offsets: Any, vectors: Any, costs_row: Any, *,
                           delta: float, bins: int | None = None, seed: int = 0
                           ) -> HighConfidenceBounds:
    """High-confidence worst and best expected cost of one instance of a class, the vectors
    measured on other instances: a dual certificate fitted on a third of each sample, its
    means bounded on the other two thirds, three folds (the module's construction).

    Parameters
    ----------
    A : array_like, shape (K, K), or float
        The slot's coefficients (a number ``a`` means ``a * I``).
    offsets : array_like, shape (n_t, K)
        The offset vectors of the class's instances, i.i.d. from the class's population.
    vectors : array_like, shape (n_s, K)
        The candidate's vectors on other instances of the class, i.i.d. and independent of
        the offsets.
    costs_row : array_like, shape (K,)
        Row ``c`` of the cost matrix: the cost of each system output on this class.
    delta : float
        In (0, 1): the population's worst case is at most ``worst`` and its best case at
        least ``best``, both together, with probability at least ``1 - delta``.
    bins : int, optional
        Bins per key axis of the fitting grid (at least 2); ``floor(64^(1 / (K - 1)))`` (at
        least 2) unless given.
    seed : int, default 0
        Seeds the random split of each sample into three parts.

    Returns
    -------
    HighConfidenceBounds
        ``(worst, best)``: per-instance expected costs (times the class size for a total),
        within the costs' range. With fewer than three offsets or vectors some part is
        empty, and the bounds are the costs' range (the largest and the smallest cost).

    Raises
    ------
    ValidationError
        Shapes that do not match one K, non-finite numbers, empty inputs, ``delta`` outside
        (0, 1), fewer than 2 bins.

    Examples
    --------
    A class whose offsets and vectors are drawn from two fixed populations of four members
    each (the second offset is wrong whatever the slot says); over couplings of the
    populations, one instance costs between 1.25 and 3.75 (computed exactly on the
    populations by ``probability_bounds``). From 2,000 draws of each, with probability at
    least 0.95 both bounds hold:

    >>> from causalcost.pricing.score_vectors import probability_bounds
    >>> r_pop = [[0.9, 0.0, 0.0], [0.0, 2.0, 0.0], [0.5, 0.2, 0.4], [0.2, 0.0, 0.1]]
    >>> p_pop = [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1], [0.3, 0.6, 0.1]]
    >>> probability_bounds(1.0, r_pop, p_pop, [0, 5, 5])
    ProbabilityBounds(worst=3.75, best=1.25)
    >>> rng = np.random.default_rng(0)
    >>> r = np.array(r_pop)[rng.integers(0, 4, 2000)]
    >>> p = np.array(p_pop)[rng.integers(0, 4, 2000)]
    >>> b = high_confidence_bounds(1.0, r, p, [0, 5, 5], delta=0.05)
    >>> round(b.worst, 2), round(b.best, 2)
    (4.12, 1.0)
    """
    a, r, v = _inputs(A, offsets, vectors)
    row = _costs_row(costs_row, v.shape[1])
    _nonempty(r.shape[0], "offsets")
    _nonempty(v.shape[0], "vectors")
    delta, bins = _check(delta, bins, v.shape[1])
    top, bottom = float(row.max()), float(row.min())
    if r.shape[0] < _FOLDS or v.shape[0] < _FOLDS:
        return HighConfidenceBounds(top, bottom)
    q = _slot_part(a, v)
    x = q[:, 1:] - q[:, :1]
    keys, key_of = np.unique(r[:, :1] - r[:, 1:], axis=0, return_inverse=True)
    key_of = key_of.ravel()
    widen = _WIDEN * (float(np.abs(q).max()) + float(np.abs(r).max())) + np.finfo(float).tiny
    rng = np.random.default_rng(seed)
    r_parts = np.array_split(rng.permutation(r.shape[0]), _FOLDS)
    v_parts = np.array_split(rng.permutation(v.shape[0]), _FOLDS)
    worst, best = top, bottom
    for i in range(_FOLDS):
        r_held = np.concatenate(r_parts[:i] + r_parts[i + 1:])
        fit = (np.bincount(key_of[r_parts[i]], minlength=keys.shape[0]), x[v_parts[i]])
        held = (np.bincount(key_of[r_held], minlength=keys.shape[0]),
                x[np.concatenate(v_parts[:i] + v_parts[i + 1:])])
        high, low = _fold(keys, fit, held, row, bins, widen, delta / (2 * _FOLDS))
        worst, best = min(worst, high), max(best, low)
    return HighConfidenceBounds(min(max(worst, bottom), top), max(min(best, top), bottom))
