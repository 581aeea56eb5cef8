"""Price a score slot's candidate from its scores, against the system's critical scores.

A binary system (labels P, N, positive first) fuses real scores; the slot's output is a score
``s``. When the fusion is non-decreasing in the slot's score, each instance ``i`` has a
**critical score** ``t_i`` in ``[-inf, +inf]``: the system says P on it iff ``s >= t_i``
(:mod:`causalcost.data.critical_scores` computes them from a log). The system is therefore
right on a positive iff ``s >= t`` and on a negative iff ``s < t``. Given, per class, the
critical scores ``t`` (``n_t`` of them) and a candidate's scores ``s`` (``n_s``), this module
prices the candidate:

**Expected cost** (the candidate's errors independent of the instance, as cost function 1):
``P(system says P | c) = P(S >= T) = mean over t of P(S >= t)``, so the expected system
confusion of class c says P on ``n_s * P(S >= T)`` instances.

**Worst and best case, same instances** (``same_instances=True``: the candidate's scores were
measured on the very instances the critical scores come from, ``n_s = n_t = n``, pairing
unknown). The right answers are a matching in the threshold graph, and Hall's theorem gives::

    positives:  min #right = max(0, max_x [#{s >= x} - #{t > x}])
                max #right = n - max(0, max_x [#{t >= x} - #{s >= x}])
    negatives:  min #right = max(0, max_x [#{t >= x} - #{s >= x}])
                max #right = n - max(0, max_x [#{s >= x} - #{t > x}])

Every count is a step function; between two consecutive critical scores the maxima are
attained at a critical score, so ``x`` runs over the critical scores only: the rank of each
candidate score among the sorted critical scores (``#{t <= s}``, one lookup per score, exact)
and one cumulative count give every ``#{s >= t_j}`` (``O(n_s + n_t log n_t)``; integers).

**Probability form** (``same_instances=False``: the candidate counted on other instances of
the same populations): the same extremes with survival functions (``P(S >= x)``,
``P(T > x)``, ``P(T >= x)``) in place of counts over ``n``; they are the extremes of
``P(S >= T)`` over every coupling of the two distributions (Makarov-type bounds), scaled to
the candidate's class sizes.

**High-confidence worst and best case** (``confidence=1 - alpha``): each empirical survival
function is replaced by the edge of its Dvoretzky-Kiefer-Wolfowitz band (Massart's constant)
that makes the system worse (for the worst case) or better (for the best case), clipped to
``[0, 1]``, with ``eps = sqrt(log(2 k / alpha) / (2 n))`` for a sample of ``n`` scores and
``k`` the number of bands used (two per class with candidates: its candidate scores and its
critical scores; Bonferroni). With probability at least ``1 - alpha`` over both samples, every
band holds at once, so the worst (best) case over couplings of the **population**
distributions, scaled to the candidate's class sizes, is at most the high-confidence worst
case (at least the high-confidence best case): both sides hold together.

Hard votes are the special case ``s`` in ``{0, 1}``: ``t <= 0`` never wrong, ``0 < t <= 1``
follows the slot, ``t > 1`` always wrong; the numbers equal the kinds bound
(:func:`~causalcost.pricing.bounds.bound` with ``kinds=``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.confusion import CLASSES, Confusion, CostMatrix
from causalcost.cost_matrix import as_costs
from causalcost.errors import InfeasibleInputError, InputTypeError, ValidationError
from causalcost.pricing.score_bound import FORMS, ScoreBound
from causalcost.score_values import PROBABILITIES, as_score_range, check_scores, numeric_scores

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMS", "ScoreBound", "price_scores", "price_scores_many"]


_UNIT = CostMatrix(fn=1, fp=1)
#: Candidate scores handled per chunk in the many-candidates entry (bounds the memory).
_CHUNK = 1 << 21


# ------------------------------------------------------------------------------ inputs
def _per_class(value: Any, what: str) -> tuple[Any, Any]:
    """``value`` as (positives, negatives): a mapping ``{"P": .., "N": ..}``, a pair (positive
    class first) or an object with ``critical_by_class`` (critical scores only)."""
    if what == "critical" and hasattr(value, "critical_by_class"):
        return tuple(value.critical_by_class)  # type: ignore[return-value]
    if isinstance(value, Mapping):
        keys = {str(k) for k in value}
        if keys != set(CLASSES):
            raise ValidationError(
                f"{what} per class must be a mapping with the keys 'P' and 'N' (positive "
                f"class first), got the keys {sorted(keys)}; rename them or pass a pair "
                "(positives, negatives)")
        found = {str(k): v for k, v in value.items()}
        return found["P"], found["N"]
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) \
            or len(value) != 2:
        raise InputTypeError(
            f"{what} must be given per class: a mapping {{'P': scores, 'N': scores}} or a pair "
            f"(positives, negatives), got {type(value).__name__}")
    return value[0], value[1]


def _scores(value: Any, what: str, ndim: int, finite: bool,
            score_range: tuple[float, float] = PROBABILITIES) -> np.ndarray:
    """``value`` as a float array of ``ndim`` dimensions. A candidate's scores (``finite``)
    are read by the one reader of scores (:mod:`causalcost.score_values`: numbers, present,
    finite, in ``score_range``); critical scores may be infinite (NaN refused)."""
    if finite:
        arr = numeric_scores(value, what)
    else:
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputTypeError(f"{what} must be an array of real scores; cannot read it "
                                 f"({exc})") from None
    if ndim == 2 and arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != ndim:
        raise ValidationError(f"{what} must be a {ndim}-dimensional array of scores "
                              f"(one row per candidate)" if ndim == 2 else
                              f"{what} must be a one-dimensional array of scores, got shape "
                              f"{arr.shape}")
    if finite:
        return check_scores(arr.T if ndim == 2 else arr, what, score_range=score_range).T \
            if ndim == 2 else check_scores(arr, what, score_range=score_range)
    bad = np.isnan(arr)
    if bad.any():
        where = np.argwhere(bad)[0]
        raise ValidationError(
            f"{what} must be numbers (not NaN): position {tuple(int(i) for i in where)} holds "
            f"{arr[tuple(where)]!r}; drop or impute those rows before pricing")
    return arr


def _critical(critical: Any) -> tuple[np.ndarray, np.ndarray]:
    pos, neg = _per_class(critical, "critical")
    return tuple(np.sort(_scores(v, f"critical scores of class {c}", 1, False))  # type: ignore
                 for c, v in zip(CLASSES, (pos, neg)))


def _confidence(confidence: float | None) -> float | None:
    if confidence is None:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)):
        raise InputTypeError(f"confidence must be a number in (0, 1), such as 0.95, got "
                             f"{type(confidence).__name__}")
    if not 0 < confidence < 1:
        raise ValidationError(f"confidence must lie strictly between 0 and 1 (it is "
                              f"1 - alpha, such as 0.95), got {confidence!r}")
    return float(confidence)


# ---------------------------------------------------------------------------- the core
@dataclass(frozen=True)
class _Class:
    """One class's sorted critical scores and the counts at each of them."""

    t: np.ndarray     # sorted critical scores
    above: np.ndarray  # #{t > t_j}
    atleast: np.ndarray  # #{t >= t_j}

    @classmethod
    def of(cls, t: np.ndarray) -> _Class:
        n = t.size
        return cls(t, n - np.searchsorted(t, t, "right"), n - np.searchsorted(t, t, "left"))

    def reached(self, s: np.ndarray) -> np.ndarray:
        """``G[c, j] = #{i : s[c, i] >= t_j}`` for a (candidates, n_s) array of scores."""
        n_t = self.t.size
        rows, n_s = s.shape
        out = np.empty((rows, n_t), dtype=np.int64)
        step = max(1, _CHUNK // max(1, n_s))
        for start in range(0, rows, step):
            block = s[start:start + step]
            r = _ranks(self.t, block)  # #{t <= s}: s >= t_j iff r > j
            r += np.arange(block.shape[0])[:, None] * (n_t + 1)
            counts = np.bincount(r.ravel(), minlength=block.shape[0] * (n_t + 1))
            cum = np.cumsum(counts.reshape(block.shape[0], n_t + 1), axis=1)
            out[start:start + step] = n_s - cum[:, :n_t]
        return out


def _ranks(t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``searchsorted(t, s, "right")`` (``#{t <= s}``) through a lookup table.

    ``numpy.searchsorted`` with unsorted queries is cache-bound; instead each score's cell on
    a uniform grid over the scores' range is computed, and the cell's count
    ``#{t <= left edge - slack}`` is the answer unless ``#{t <= right edge + slack}`` differs
    (a critical score in or near the cell): those few are searched exactly. The slack exceeds
    the rounding of the cell computation many times over, so the answer is exact.
    """
    if not s.size:
        return np.zeros(s.shape, dtype=np.int64)
    lo, hi = float(s.min()), float(s.max())
    span = hi - lo
    if not t.size or not math.isfinite(span):
        return np.searchsorted(t, s, "right")
    cells = int(min(1 << 16, 64 * t.size))
    h = span / cells if span > 0 else 1.0
    slack = 2.0 ** -30 * (abs(lo) + abs(hi) + span + h)
    edges = lo + h * np.arange(cells + 1)
    r_lo = np.searchsorted(t, edges[:-1] - slack, "right")
    r_hi = np.searchsorted(t, edges[1:] + slack, "right")
    k = ((s - lo) * (1.0 / h)).astype(np.int64)
    np.clip(k, 0, cells - 1, out=k)
    r = r_lo[k]
    near = r_hi[k] != r
    if near.any():
        r[near] = np.searchsorted(t, s[near], "right")
    return r


def _gaps(cls: _Class, reached: np.ndarray, n_s: int, exact: bool, eps_s: float = 0.0,
          eps_t: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate ``(d1, d2)``: ``max(0, max_x [S(x) - T>(x)])`` and ``max(0, max_x
    [T>=(x) - S(x)])``, in counts (``exact``) or as fractions with band edges ``eps``."""
    if reached.shape[1] == 0 or n_s == 0:
        z = np.zeros(reached.shape[0], dtype=np.int64 if exact else float)
        return z, z
    if exact:
        d1 = (reached - cls.above).max(axis=1)
        d2 = (cls.atleast - reached).max(axis=1)
        return np.maximum(d1, 0), np.maximum(d2, 0)
    # with band edges clipped to [0, 1]: max(S - e_s, 0) - min(T> + e_t, 1) and
    # max(T>= - e_t, 0) - min(S + e_s, 1); the clips that only lower a term below 0 drop out
    # of max(0, .), leaving one vector per class (scaled by n_s, so S becomes the count G)
    n_t = cls.t.size
    v1 = n_s * (eps_s + np.minimum(cls.above / n_t + eps_t, 1.0))
    v2 = n_s * (np.maximum(cls.atleast / n_t - eps_t, 0.0) - eps_s)
    d1 = (reached - v1).max(axis=1) / n_s
    d2 = (v2 - reached).max(axis=1) / n_s
    return np.maximum(d1, 0.0), np.maximum(d2, 0.0)


def _eps(n: int, k: int, alpha: float) -> float:
    """The DKW band half-width (Massart's constant) of ``n`` scores, Bonferroni over ``k``."""
    return math.sqrt(math.log(2 * k / alpha) / (2 * n)) if n else 0.0


def _rights(classes: tuple[_Class, _Class], reached: tuple[np.ndarray, np.ndarray],
            sizes: tuple[int, int], exact: bool, eps: tuple[tuple[float, float], ...] | None
            ) -> dict[str, np.ndarray]:
    """Per candidate: the system's right answers per class in the worst and best case."""
    out = {}
    for c, (cls, g, n_s) in enumerate(zip(classes, reached, sizes)):
        e_s, e_t = eps[c] if eps else (0.0, 0.0)
        d1, d2 = _gaps(cls, g, n_s, exact, e_s, e_t)
        if c == 1:  # negatives: right iff s < t, the mirror of positives
            d1, d2 = d2, d1
        if exact:
            out[f"worst_{c}"], out[f"best_{c}"] = d1, n_s - d2
        else:
            out[f"worst_{c}"], out[f"best_{c}"] = n_s * d1, n_s * (1.0 - d2)
    return out


def _check_sizes(classes: tuple[_Class, _Class], sizes: tuple[int, int],
                 same_instances: bool) -> None:
    for c, cls, n_s in zip(CLASSES, classes, sizes):
        if n_s and not cls.t.size:
            raise InfeasibleInputError(
                f"class {c}: the candidate has {n_s} scores but there are no critical scores "
                "of that class to price them against; count the system on a log holding that "
                "class")
        if same_instances and n_s != cls.t.size:
            raise InfeasibleInputError(
                f"class {c}: same_instances=True needs the candidate's scores on the critical "
                f"scores' own instances, but there are {n_s} candidate scores and "
                f"{cls.t.size} critical scores; pass same_instances=False (the probability "
                "form) for scores counted on other instances")


def _costs_of(costs: CostMatrix, right_p: np.ndarray, n_p: int, right_n: np.ndarray,
              n_n: int) -> np.ndarray:
    (c_tp, c_fn), (c_fp, c_tn) = costs.to_numpy()
    rp, rn = np.asarray(right_p, float), np.asarray(right_n, float)
    return c_tp * rp + c_fn * (n_p - rp) + c_fp * (n_n - rn) + c_tn * rn


def _confusion(right_p: float, n_p: int, right_n: float, n_n: int) -> Confusion:
    rp, rn = float(right_p), float(right_n)
    return Confusion(tp=rp, fn=max(n_p - rp, 0.0), fp=max(n_n - rn, 0.0), tn=rn)


# ---------------------------------------------------------------------------- the calls
def _prepare(critical: Any, costs: Any, confidence: float | None
             ) -> tuple[tuple[_Class, _Class], CostMatrix, float | None]:
    t_p, t_n = _critical(critical)
    return (_Class.of(t_p), _Class.of(t_n)), as_costs(costs, CLASSES), _confidence(confidence)


def _price(classes: tuple[_Class, _Class], s: tuple[np.ndarray, np.ndarray],
           same_instances: bool, confidence: float | None) -> dict[str, Any]:
    """Every number for a block of candidates: per class (candidates, n_s) scores."""
    sizes = (s[0].shape[1], s[1].shape[1])
    _check_sizes(classes, sizes, same_instances)
    reached = (classes[0].reached(s[0]), classes[1].reached(s[1]))
    out: dict[str, Any] = {"sizes": sizes}
    # expected: n_s * mean_j G[j] / n_s = sum_j G[j] / n_t
    out["expected_0"], out["expected_1"] = (
        g.sum(axis=1) / cls.t.size if cls.t.size else np.zeros(g.shape[0])
        for cls, g in zip(classes, reached))
    out["expected_1"] = sizes[1] - out["expected_1"]  # negatives right iff s < t
    out.update(_rights(classes, reached, sizes, same_instances, None))
    if confidence is not None:
        alpha = 1 - confidence
        used = [c for c in range(2) if sizes[c]]
        k = 2 * len(used)
        eps = tuple((_eps(sizes[c], k, alpha), _eps(classes[c].t.size, k, alpha))
                    for c in range(2))
        out["eps"] = eps
        hc = _rights(classes, reached, sizes, False, eps)
        out.update({f"hc_{k_}": v for k_, v in hc.items()})
    return out


def price_scores(critical: Any, scores: Any, costs: Any = _UNIT, *,
                 same_instances: bool = True, confidence: float | None = None,
                 score_range: tuple[float, float] | None = None) -> ScoreBound:
    """Expected, worst and best system cost of a score-slot candidate from its scores.

    Parameters
    ----------
    critical : mapping, pair, ScoreRuns or ScoreSheet
        The system's critical scores per class: ``{"P": t_P, "N": t_N}``, a pair
        ``(t_P, t_N)`` (positive class first), or an object with ``critical_by_class`` such as
        :class:`~causalcost.data.score_runs.ScoreRuns`. ``-inf`` (the system always says
        P) and ``+inf`` (never) are allowed, NaN is not. A K-label system (runs or a sheet
        with ``k > 2``) is priced from its offset vectors
        (:func:`~causalcost.pricing.score_vector_price.price_vectors`).
    scores : mapping or pair
        The candidate's scores per class, in the same forms; finite. For K labels: per class
        (``{label: vectors}`` or a list in label order) the candidate's probability vectors,
        shape ``(n_c, K)``.
    costs : CostMatrix, default ``CostMatrix(fn=1, fp=1)``
        The system's cost matrix (counting errors by default).
    same_instances : bool, default True
        True: the candidate's scores were measured on the critical scores' own instances (same
        class sizes; the worst and best case are exact over the unknown pairing). False: on
        other instances (the probability form).
    confidence : float, optional
        ``1 - alpha``: also the high-confidence worst and best case (DKW bands, Bonferroni
        over the bands used).
    score_range : (float, float), optional
        The scores the system's rule takes: ``(0, 1)`` (a fusion of probabilities) unless
        given; a candidate's scores outside it are refused.

    Returns
    -------
    ScoreBound

    Raises
    ------
    ScoreValueError
        Candidate scores that are text, missing, infinite or outside ``score_range``.
    ValidationError
        NaN critical scores, per-class mappings with keys other than P and N, a confidence
        outside (0, 1).
    InfeasibleInputError
        ``same_instances=True`` with other class sizes, or candidate scores of a class without
        critical scores.

    Examples
    --------
    A negative whose system says P only from a score of 0.4, scored 0.3 or 0.5 by the
    candidate (pairing unknown) with a second negative that needs 0.8:

    >>> b = price_scores({"P": [], "N": [0.4, 0.8]}, {"P": [], "N": [0.3, 0.5]},
    ...                  CostMatrix(fn=5, fp=1))
    >>> b.best_cost, b.worst_cost, b.expected_cost
    (0.0, 1.0, 0.5)
    >>> price_scores(([0.5],) * 2, ([0.5, 0.6],) * 2).form
    Traceback (most recent call last):
    ...
    causalcost.errors.InfeasibleInputError: class P: same_instances=True needs the candidate's scores on the critical scores' own instances, but there are 2 candidate scores and 1 critical scores; pass same_instances=False (the probability form) for scores counted on other instances
    """  # noqa: E501
    if getattr(critical, "k", 2) != 2:  # K labels: offset vectors and the slot's matrix
        return _price_vectors_of(critical, scores, costs, same_instances, confidence,
                                 score_range)
    classes, cost_matrix, conf = _prepare(critical, costs, confidence)
    pos, neg = _per_class(scores, "scores")
    rng = as_score_range(score_range)
    s = tuple(_scores(v, f"candidate scores of class {c}", 1, True, rng)[None, :]
              for c, v in zip(CLASSES, (pos, neg)))
    out = _price(classes, s, bool(same_instances), conf)  # type: ignore[arg-type]
    n_p, n_n = out["sizes"]

    def case(prefix: str) -> tuple[Confusion, float]:
        rp, rn = out[f"{prefix}_0"][0], out[f"{prefix}_1"][0]
        conf_ = _confusion(rp, n_p, rn, n_n)
        return conf_, float(_costs_of(cost_matrix, rp, n_p, rn, n_n))

    expected, worst, best = case("expected"), case("worst"), case("best")
    extra: dict[str, Any] = {}
    if conf is not None:
        hw, hb = case("hc_worst"), case("hc_best")
        extra = dict(high_confidence_worst=hw[0], high_confidence_worst_cost=hw[1],
                     high_confidence_best=hb[0], high_confidence_best_cost=hb[1],
                     confidence=conf)
    return ScoreBound(expected=expected[0], expected_cost=expected[1], worst=worst[0],
                      worst_cost=worst[1], best=best[0], best_cost=best[1],
                      form=FORMS[0] if same_instances else FORMS[1], costs=cost_matrix,
                      class_sizes=(n_p, n_n),
                      critical_sizes=(classes[0].t.size, classes[1].t.size), **extra)


def _price_vectors_of(system: Any, vectors: Any, costs: Any, same_instances: bool,
                      confidence: float | None, score_range: Any) -> ScoreBound:
    """:func:`price_scores` for a K-label system (its ``offsets_by_class``,
    ``slot_matrix`` and ``labels``): :func:`~causalcost.pricing.score_vector_price.
    price_vectors`, counting errors unless ``costs`` is given."""
    from causalcost.pricing.score_vector_price import price_vectors

    k = len(system.labels)
    grid = np.ones((k, k)) - np.eye(k)
    extra: dict[str, Any] = {} if confidence is None else {"confidence": confidence}
    return price_vectors(system.slot_matrix, system.offsets_by_class, vectors,
                         grid if costs is _UNIT else costs, labels=system.labels,
                         same_instances=bool(same_instances),
                         score_range=as_score_range(score_range if score_range is not None
                                                    else system.score_range),
                         fusion=getattr(system, "fusion", "linear"), **extra)


def price_scores_many(critical: Any, scores: Any, costs: Any = _UNIT, *,
                      same_instances: bool = True, confidence: float | None = None,
                      names: Sequence[Any] | None = None,
                      score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """:func:`price_scores` for many candidates at once, vectorised.

    Parameters
    ----------
    critical, costs, same_instances, confidence, score_range
        As for :func:`price_scores`.
    scores : mapping or pair
        Per class a (candidates, n_c) array: row k holds candidate k's scores on the class's
        instances (every candidate on the same number of instances of each class).
    names : sequence, optional
        The candidates' names (the index); ``0 .. m-1`` by default.

    Returns
    -------
    pandas.DataFrame
        One row per candidate: ``eval1``, ``worst_cost``, ``best_cost``, the system's right
        answers per class in each case (``expected_tp``, ``expected_tn``, ``worst_tp``, ...),
        and with ``confidence`` ``high_confidence_worst_cost`` and
        ``high_confidence_best_cost``.

    Examples
    --------
    >>> t = ([0.2, 0.5, 0.9], [0.4, 0.8])
    >>> s = ([[0.3, 0.6, 0.95], [0.1, 0.1, 0.1]], [[0.3, 0.5], [0.0, 0.0]])
    >>> table = price_scores_many(t, s, names=["a", "b"])
    >>> table[["eval1", "worst_cost", "best_cost"]].to_dict("index")
    {'a': {'eval1': 1.5, 'worst_cost': 3.0, 'best_cost': 0.0}, 'b': {'eval1': 3.0, 'worst_cost': 3.0, 'best_cost': 3.0}}
    """  # noqa: E501
    import pandas as pd

    classes, cost_matrix, conf = _prepare(critical, costs, confidence)
    pos, neg = _per_class(scores, "scores")
    rng = as_score_range(score_range)
    s = tuple(_scores(v, f"candidate scores of class {c}", 2, True, rng)
              for c, v in zip(CLASSES, (pos, neg)))
    m = s[0].shape[0] if s[0].shape[1] or not s[1].size else s[1].shape[0]
    s = tuple(x if x.shape[0] == m or x.shape[1] else np.zeros((m, 0)) for x in s)
    if s[0].shape[0] != s[1].shape[0]:
        raise ValidationError(f"scores: {s[0].shape[0]} candidates on class P but "
                              f"{s[1].shape[0]} on class N; give one row per candidate in both")
    out = _price(classes, s, bool(same_instances), conf)  # type: ignore[arg-type]
    n_p, n_n = out["sizes"]
    cols: dict[str, Any] = {}
    for case_ in ("expected", "worst", "best") + (("hc_worst", "hc_best") if conf else ()):
        rp, rn = out[f"{case_}_0"], out[f"{case_}_1"]
        name = {"expected": "eval1"}.get(case_, case_.replace("hc_", "high_confidence_") +
                                         "_cost")
        cols[name] = _costs_of(cost_matrix, rp, n_p, rn, n_n)
        if not case_.startswith("hc"):
            cols[f"{case_}_tp"], cols[f"{case_}_tn"] = rp, rn
    index = pd.Index(list(names) if names is not None else range(m), name="candidate")
    if len(index) != m:
        raise ValidationError(f"names: {len(index)} names for {m} candidates; give one name "
                              "per row of scores")
    first = ["eval1", "worst_cost", "best_cost"]
    return pd.DataFrame(cols, index=index)[first + [c for c in cols if c not in first]]
