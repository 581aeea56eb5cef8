"""Experiment 1 for K labels: how often does the worst case hold on new instances?

The binary coverage experiment (:mod:`causalcost.experiments.coverage`) for a K-label system.
The simulated system: ``K`` labels with equal priors, the slot and ``others`` other models
voting, fused by plurality (ties to the first label). Each model is right with its accuracy,
and otherwise votes a uniformly drawn wrong label; a share ``hard`` of the instances is *hard*:
there every model that errs votes the same wrong label (errors that agree, as real models'
errors do). The candidate in the slot is another model of the same kind.

One repetition: the system owner counts the K forced runs on ``n1`` instances (stage 1,
redrawn until every class occurs, since otherwise no sheet can be issued); the model owner
runs the candidate on ``n2`` other instances (stage 2) and the real system cost on them is
counted with the candidate in the slot. It is compared with the plain assumption-free worst
case (the stage-1 rates on the candidate's class sizes,
:func:`causalcost.bound`) and with the high-confidence worst case
(:func:`causalcost.high_confidence_bound`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcost.display import html_block, html_table
from causalcost.errors import ValidationError
from causalcost.experiments.options import coverage_summary, sizes
from causalcost.network.fusioners import make_fusioner
from causalcost.pricing.bounds import bound
from causalcost.pricing.high_confidence import high_confidence_bound
from causalcost.pricing.inputs import check_costs

__all__ = ["LABEL_LIMIT", "WORK_LIMIT", "LabelCoverageResult", "label_coverage"]

#: The most labels the experiment simulates: each repetition prices K x (K - 1) prediction
#: limits per class, so the work grows as K**3 (K = 10 takes about a second per repetition
#: at the default sizes; K = 50 would take hours).
LABEL_LIMIT = 10
#: The most work one run may ask for, in repetitions x cells x K**3 (K = 3: 74,000 repetitions
#: in all, about a quarter of an hour; K = 10: 2,000).
WORK_LIMIT = 2_000_000

#: Columns of :attr:`LabelCoverageResult.frame` (as the binary experiment's).
COLUMNS = ("n1", "n2", "repetitions", "p_plain", "p_high_confidence",
           "tightness_high_confidence", "tightness_plain")


@dataclass(frozen=True)
class LabelCoverageResult:
    """Hold probabilities of the plain and high-confidence worst case for a K-label system.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per ``(n1, n2)``: :data:`COLUMNS` (tightness: mean bound / real cost over
        repetitions with a positive real cost).
    k, confidence, method, seed : the settings
    system : str
        What was simulated.
    """

    frame: pd.DataFrame = field(repr=False)
    k: int
    confidence: float
    method: str
    seed: int
    system: str

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def __repr__(self) -> str:
        return coverage_summary("LabelCoverageResult", self.system, self.frame,
                                self.confidence)

    def _repr_html_(self) -> str:
        return html_block(repr(self), html_table(self.frame))


@dataclass(frozen=True)
class _Law:
    k: int
    accuracies: tuple[float, ...]  # others, then the candidate (last)
    hard: float

    def draw(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Classes (n,) and votes (n, models): others first, the candidate last."""
        k = self.k
        y = rng.integers(0, k, n)
        common = (y + rng.integers(1, k, n)) % k  # the wrong label hard instances agree on
        hard = rng.random(n) < self.hard
        votes = np.empty((n, len(self.accuracies)), dtype=np.int64)
        for i, acc in enumerate(self.accuracies):
            own = (y + rng.integers(1, k, n)) % k
            wrong = np.where(hard, common, own)
            votes[:, i] = np.where(rng.random(n) < acc, y, wrong)
        return y, votes


def _check(value: float, name: str, low: float = 0.0, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            low <= value <= high):
        raise ValidationError(f"{name} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


def label_coverage(
    k: int = 3, *, n1: Sequence[int] = (30, 100, 1000), n2: Sequence[int] = (30, 100, 1000),
    repetitions: int = 200, seed: int = 0, costs: object = None, confidence: float = 0.95,
    method: str = "clopper-pearson", others: Sequence[float] = (0.7, 0.6),
    candidate: float = 0.65, hard: float = 0.3,
) -> LabelCoverageResult:
    """Run the coverage experiment on a simulated K-label plurality system.

    Parameters
    ----------
    k : int
        The number of labels (at least 2).
    n1, n2 : sequences of int
        Stage sizes (forced runs; candidate).
    repetitions : int
        Repetitions per (n1, n2) cell.
    seed : int
        Results depend only on the seed (each cell has its own child of
        ``numpy.random.SeedSequence(seed)``).
    costs : array (K, K), default ``1 - eye(K)``
        The system's costs ``C[c, s]``.
    confidence, method
        Of the high-confidence worst case.
    others : sequence of float
        The accuracies of the other models (the slot is the last input).
    candidate : float
        The candidate's accuracy.
    hard : float
        The share of instances on which erring models agree on one wrong label.

    Returns
    -------
    LabelCoverageResult

    Examples
    --------
    >>> r = label_coverage(n1=[200], n2=[200], repetitions=40, seed=3)
    >>> row = r.frame.iloc[0]
    >>> bool(row["p_high_confidence"] >= row["p_plain"]), int(row["repetitions"])
    (True, 40)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValidationError(f"k (the number of labels) must be a whole number >= 2, got {k!r}")
    if k > LABEL_LIMIT:
        raise ValidationError(f"the coverage experiment simulates at most {LABEL_LIMIT} labels "
                              f"(its work grows as K**3), got {k}; give fewer labels")
    k = int(k)
    if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
        raise ValidationError(f"repetitions must be a whole number >= 1, got {repetitions!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValidationError(f"seed must be a whole number >= 0, got {seed!r}")
    _check(confidence, "confidence")
    if not 0 < confidence < 1:
        raise ValidationError(f"confidence must be in (0, 1), got {confidence!r}")
    accs = tuple(_check(a, "others") for a in others) + (_check(candidate, "candidate"),)
    if len(accs) < 2:
        raise ValidationError("others must give at least one other model's accuracy")
    law = _Law(k, accs, _check(hard, "hard"))
    c_arr = check_costs(1 - np.eye(k) if costs is None else costs, k)
    names = [f"m{i + 1}" for i in range(len(accs) - 1)] + ["slot"]
    fusioner = make_fusioner("plurality", names, labels=list(range(k)))
    grid = [(a, b) for a in sizes(n1, "n1") for b in sizes(n2, "n2")]
    if len(grid) * repetitions * k**3 > WORK_LIMIT:
        most = WORK_LIMIT // k**3
        raise ValidationError(
            f"{len(grid)} cells x {repetitions} repetitions with {k} labels is more work than "
            f"one run does ({len(grid) * repetitions} repetitions in all; at most {most} with "
            f"{k} labels): give fewer repetitions or fewer sizes (n1, n2)")
    children = np.random.SeedSequence(seed).spawn(len(grid))
    rows = []
    for (a, b), child in zip(grid, children):
        rng = np.random.default_rng(child)
        real, plain, high = [], [], []
        for _ in range(repetitions):
            while True:
                y1, v1 = law.draw(a, rng)
                if len(np.unique(y1)) == k:
                    break
            forced = np.zeros((k, k, k), dtype=np.int64)
            for j in range(k):
                v = v1.copy()
                v[:, -1] = j
                np.add.at(forced[j], (y1, fusioner.apply(v, slot="slot")), 1)
            y2, v2 = law.draw(b, rng)
            n = np.zeros((k, k), dtype=np.int64)
            np.add.at(n, (y2, v2[:, -1]), 1)
            system = fusioner.apply(v2, slot="slot")
            real.append(float(c_arr[y2, system].sum()))
            plain.append(bound(forced.tolist(), n.tolist(), c_arr).worst_cost)
            high.append(high_confidence_bound(
                forced.tolist(), n.tolist(), c_arr, confidence=confidence,
                method=method).worst_cost)
        r, p, h = (np.asarray(x) for x in (real, plain, high))
        scored = r > 0
        rows.append({
            "n1": a, "n2": b, "repetitions": repetitions,
            "p_plain": float(np.mean(r <= p + 1e-9)),
            "p_high_confidence": float(np.mean(r <= h + 1e-9)),
            "tightness_high_confidence": float(np.mean(h[scored] / r[scored]))
            if scored.any() else 1.0,
            "tightness_plain": float(np.mean(p[scored] / r[scored])) if scored.any() else 1.0,
        })
    system_text = (f"{k} labels, plurality of {len(accs)} (others {list(accs[:-1])}, "
                   f"candidate {accs[-1]}, hard share {law.hard})")
    return LabelCoverageResult(pd.DataFrame(rows, columns=list(COLUMNS)), k,
                                    float(confidence), method, seed, system_text)
