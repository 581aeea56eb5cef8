"""Intervals on the costs a sheet gives a candidate, from the counts behind the numbers.

Eval1, Eval2, the perfect-slot cost and the worst and best cases are functions of two sets of
counts: the stage-1 counts behind the interventional rates (forced runs counted on data, or a
sampled table; an exact table has none) and the candidate's own confusion (a sample of its
behaviour). :func:`cost_intervals` propagates both by a **parametric bootstrap**: each
replicate redraws every stage-1 failure count as ``Binomial(n, rate)`` and, per class, the
candidate's hits as ``Binomial(class size, accuracy)``, recomputes the six costs with the same
closed forms as :func:`~causalcost.bound_from_rates` and
:func:`~causalcost.evaluate_costs`, and the interval is the replicates' central
``confidence`` share (percentile method). That is fine for the smooth costs (Eval1, Eval2, the
perfect-slot cost) but runs short at the kinks of the worst and best cases (minima and maxima
of linear functions), so it is not the default.

The default, ``method="box"``, is exact and conservative: Clopper-Pearson intervals for the
four rates and the candidate's two per-class accuracies, simultaneous by Bonferroni (each at
``1 - alpha / 6``), form a box that holds the true values with probability at least
``confidence``. Each of the six costs is monotone in each of those coordinates (the worst
case ``min(fw, fc + nw)`` grows with the failures and the mistakes; Eval2 grows with ``e_w``
and the mistakes and falls with ``e_c``), so its smallest and largest values over the box are
at the box's 64 corners, and the interval between them covers the cost's true value whenever
the box holds the truth.

What the intervals are about: the population quantity each cost estimates on the candidate's
class sizes: the same cost computed with the true rates and the candidate's true per-class
accuracy. For a bound on the cost of the candidate's *own* instances, with a guaranteed
probability, see :func:`~causalcost.high_confidence_bound`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.display import html_table
from causalcost.errors import ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.closed_forms import _UNIT, _check_assumption, _check_type, _extremes
from causalcost.stats.prediction import clopper_pearson_interval

__all__ = ["COST_NAMES", "CostIntervals", "cost_intervals", "stage_one_counts"]

#: The costs :func:`cost_intervals` gives intervals for, in order.
COST_NAMES = ("eval1", "eval2", "perfect_slot_cost", "expected_cost", "worst_cost", "best_cost")


@dataclass(frozen=True)
class CostIntervals:
    """Point values and intervals of a candidate's six system costs.

    Attributes
    ----------
    frame : pandas.DataFrame
        Index :data:`COST_NAMES`; columns ``estimate``, ``ci_low``, ``ci_high``.
    confidence : float
    method : str
        ``"box"`` (simultaneous Clopper-Pearson box, exact and conservative) or
        ``"bootstrap"`` (parametric bootstrap, percentile).
    replicates : int

    Examples
    --------
    >>> import causalcost as cc
    >>> ci = cc.cost_intervals((cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200)),
    ...                        cc.Confusion(50, 50, 100, 100), cc.CostMatrix(fn=5, fp=1))
    >>> float(ci.frame.loc["eval1", "estimate"])   # thesis §4, example 1
    320.0
    >>> bool(ci.frame.loc["eval1", "ci_low"] < 320 < ci.frame.loc["eval1", "ci_high"])
    True
    """

    frame: pd.DataFrame = field(repr=False)
    confidence: float
    method: str
    replicates: int

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def interval(self, name: str) -> tuple[float, float]:
        """``(ci_low, ci_high)`` of one cost."""
        if name not in COST_NAMES:
            raise ValidationError(f"cost ({name!r}) must be one of {', '.join(COST_NAMES)}")
        row = self.frame.loc[name]
        return float(row["ci_low"]), float(row["ci_high"])

    def to_dict(self) -> dict[str, Any]:
        """``{cost: {"estimate", "ci_low", "ci_high"}}`` plus the confidence and method."""
        return {"confidence": self.confidence, "method": self.method,
                **{name: {k: float(v) for k, v in self.frame.loc[name].items()}
                   for name in COST_NAMES}}

    def __repr__(self) -> str:
        lo, hi = self.interval("worst_cost")
        return (f"CostIntervals({self.confidence:.0%} {self.method}, {self.replicates} "
                f"replicates; eval1 {self.frame.loc['eval1', 'estimate']:.6g} "
                f"[{self.frame.loc['eval1', 'ci_low']:.6g}, "
                f"{self.frame.loc['eval1', 'ci_high']:.6g}], worst [{lo:.6g}, {hi:.6g}])")

    def _repr_html_(self) -> str:
        return html_table(self.frame, caption=f"{self.confidence:.0%} intervals ({self.method}, "
                                              f"{self.replicates} replicates)")


def stage_one_counts(source: object) -> tuple[ErrorRates, np.ndarray | None]:
    """The rates and, when known, the instances behind them (per class: positives, negatives).

    ``source``: ``(forced_p, forced_n)``, an :class:`InterventionalTable` (sampled or counted
    tables carry their counts; exact ones none) or :class:`ErrorRates` (no counts).
    """
    if isinstance(source, tuple) and len(source) == 2 and all(
            isinstance(m, Confusion) for m in source):
        forced_p, forced_n = source
        if (forced_p.positives, forced_p.negatives) != (forced_n.positives, forced_n.negatives):
            raise ValidationError("forced_p and forced_n must count the same instances")
        return (ErrorRates.from_forced(forced_p, forced_n),
                np.array([forced_p.positives, forced_p.negatives], dtype=float))
    if isinstance(source, InterventionalTable):
        if source.counts is None:
            return source.error_rates, None
        return source.error_rates, np.array([source.counts[0, 0, 0], source.counts[1, 0, 0]])
    if isinstance(source, ErrorRates):
        return source, None
    raise ValidationError("the rates' source must be (forced_p, forced_n), an "
                          f"InterventionalTable or ErrorRates, got {type(source).__name__}")


def _costs(rates: np.ndarray, hits: np.ndarray, sizes: np.ndarray, costs: CostMatrix,
           assumption: str) -> np.ndarray:
    """The six costs per replicate; rates (r, 4) as e_P(P), e_P(N), e_N(P), e_N(N), hits (r, 2)
    (tp, tn), sizes (positives, negatives). Assumes validated input."""
    ok = np.array([costs.tp, costs.tn])
    fail = np.array([costs.fn, costs.fp])
    right = np.stack([rates[:, 0], rates[:, 3]], axis=1)   # fails with the slot right
    wrong = np.stack([rates[:, 1], rates[:, 2]], axis=1)   # ... and wrong
    misses = sizes - hits
    expected = np.minimum(hits * right + misses * wrong, sizes)
    perfect = sizes * right
    worst, best = _extremes(right * sizes, wrong * sizes, hits, misses, assumption)

    def cost(failures: np.ndarray) -> np.ndarray:
        return (failures * fail + (sizes - failures) * ok).sum(axis=1)

    eval1, perfect_cost = cost(expected), cost(perfect)
    return np.stack([eval1, eval1 - perfect_cost, perfect_cost, eval1, cost(worst),
                     cost(best)], axis=1)


def cost_intervals(
    source: object,
    model: Confusion,
    costs: CostMatrix = _UNIT,
    *,
    confidence: float = 0.95,
    replicates: int = 2000,
    seed: int = 0,
    assumption: str = "monotone",
    model_is_sample: bool = True,
    method: str = "box",
) -> CostIntervals:
    """Intervals on Eval1, Eval2, the perfect-slot, expected, worst and best system cost.

    Parameters
    ----------
    source : (Confusion, Confusion), InterventionalTable or ErrorRates
        Where the rates come from: forced runs (``forced_p``, ``forced_n``), a sampled or
        counted table (its counts are used), or rates without counts (no stage-1 error).
    model : Confusion
        The candidate's confusion (integer counts when ``model_is_sample``).
    costs : CostMatrix, default ``CostMatrix(fn=1, fp=1)``
    confidence : float
        Of the central intervals.
    replicates : int
        Bootstrap replicates.
    seed : int
        Of the bootstrap's generator (results are reproducible).
    assumption : {"monotone", "none"}
        Of the worst and best cases.
    model_is_sample : bool
        Redraw the candidate's hits too (its confusion was measured on a sample); ``False``
        treats it as fixed.
    method : {"box", "bootstrap"}
        See the module notes: ``"box"`` is exact and conservative, ``"bootstrap"`` narrower
        and approximate (short at the worst and best cases' kinks).

    Returns
    -------
    CostIntervals
    """
    _check_assumption(assumption)
    _check_type("model", model, Confusion)
    _check_type("costs", costs, CostMatrix)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            0 < confidence < 1):
        raise ValidationError(f"confidence ({confidence!r}) must lie strictly between 0 and 1")
    for value, name, least in ((replicates, "replicates", 1), (seed, "seed", 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValidationError(f"{name} ({value!r}) must be an integer >= {least}")
    if method not in ("box", "bootstrap"):
        raise ValidationError(f"method ({method!r}) must be 'box' or 'bootstrap'")
    rates, counts = stage_one_counts(source)
    point = np.array([[rates.fn_forced_p, rates.fn_forced_n, rates.fp_forced_p,
                       rates.fp_forced_n]])
    sizes = np.array([model.positives, model.negatives], dtype=float)
    hits = np.array([[model.tp, model.tn]], dtype=float)
    estimate = _costs(point, hits, sizes, costs, assumption)[0]
    integral = all(float(v).is_integer() for v in (model.tp, model.fn, model.fp, model.tn))
    if model_is_sample and not integral:
        raise ValidationError("model_is_sample needs integer counts in the candidate's "
                              "confusion; pass model_is_sample=False for expected counts")
    if method == "box":
        values = _box(point[0], counts, hits[0], sizes, costs, assumption, confidence,
                      model_is_sample)
        frame = pd.DataFrame({"estimate": estimate, "ci_low": values.min(axis=0),
                              "ci_high": values.max(axis=0)}, index=list(COST_NAMES))
        return CostIntervals(frame=frame, confidence=float(confidence), method="box",
                             replicates=len(values))
    rng = np.random.default_rng(seed)
    draws = np.repeat(point, replicates, axis=0)
    if counts is not None:
        n = np.array([counts[0], counts[0], counts[1], counts[1]])
        draws = np.divide(rng.binomial(n.astype(np.int64), point[0], size=(replicates, 4)), n,
                          out=np.repeat(point, replicates, axis=0), where=n > 0)
    boot_hits = np.repeat(hits, replicates, axis=0)
    if model_is_sample:
        accuracy = np.divide(hits[0], sizes, out=np.zeros(2), where=sizes > 0)
        boot_hits = rng.binomial(sizes.astype(np.int64), accuracy, size=(replicates, 2))
    if assumption == "monotone":  # a redraw may cross; the bounds need fc <= fw
        draws[:, 0] = np.minimum(draws[:, 0], draws[:, 1])
        draws[:, 3] = np.minimum(draws[:, 3], draws[:, 2])
    values = _costs(draws, boot_hits.astype(float), sizes, costs, assumption)
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail], axis=0)
    frame = pd.DataFrame({"estimate": estimate, "ci_low": np.minimum(low, estimate),
                          "ci_high": np.maximum(high, estimate)}, index=list(COST_NAMES))
    return CostIntervals(frame=frame, confidence=float(confidence), method="bootstrap",
                         replicates=replicates)


def _box(rates: np.ndarray, counts: np.ndarray | None, hits: np.ndarray, sizes: np.ndarray,
         costs: CostMatrix, assumption: str, confidence: float,
         model_is_sample: bool) -> np.ndarray:
    """The six costs at the 64 corners of the simultaneous Clopper-Pearson box."""
    alpha = (1 - confidence) / 6
    if counts is None:
        rate_ends = [(r, r) for r in rates]
    else:
        n = [counts[0], counts[0], counts[1], counts[1]]
        rate_ends = [clopper_pearson_interval(round(r * k), int(k), 1 - alpha) if k > 0
                     else (0.0, 1.0) for r, k in zip(rates, n)]
    if model_is_sample:
        hit_ends = [tuple(s * e for e in clopper_pearson_interval(int(h), int(s), 1 - alpha))
                    if s > 0 else (0.0, 0.0) for h, s in zip(hits, sizes)]
    else:
        hit_ends = [(h, h) for h in hits]
    corners = np.array(np.meshgrid(*rate_ends, *hit_ends, indexing="ij")).reshape(6, -1).T
    draws = corners[:, :4].copy()
    if assumption == "monotone":
        draws[:, 0] = np.minimum(draws[:, 0], draws[:, 1])
        draws[:, 3] = np.minimum(draws[:, 3], draws[:, 2])
    return _costs(draws, corners[:, 4:], sizes, costs, assumption)
