"""The simulated K-label system of the coverage experiment (``coverage_experiment(labels=K)``).

``K`` labels with equal priors, the slot and ``others`` other models voting, fused by
plurality (ties to the first label). Each model is right with its accuracy, and otherwise votes
a uniformly drawn wrong label; a share ``hard`` of the instances is *hard*: there every model
that errs votes the same wrong label (errors that agree, as real models' errors do). The
candidate in the slot is another model of the same kind.

One repetition: the system owner counts the K forced runs on ``n1`` instances (stage 1,
redrawn until every class occurs, since otherwise no sheet can be issued); the model owner
runs the candidate on ``n2`` other instances (stage 2) and the real system cost on them is
counted with the candidate in the slot. It is compared with the plain assumption-free worst
case (the stage-1 rates on the candidate's class sizes, :func:`causalcost.bound`) and with the
high-confidence worst case (:func:`causalcost.high_confidence_bound`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from causalcost.errors import ValidationError
from causalcost.experiments.options import coverage_row, sizes
from causalcost.network.fusioners import make_fusioner
from causalcost.pricing.bounds import bound
from causalcost.pricing.high_confidence import high_confidence_bound
from causalcost.pricing.inputs import check_costs

__all__ = ["LABEL_LIMIT", "WORK_LIMIT", "label_count", "plurality_rows"]

#: The most labels the experiment simulates: each repetition prices K x (K - 1) prediction
#: limits per class, so the work grows as K**3 (K = 10 takes about a second per repetition
#: at the default sizes; K = 50 would take hours).
LABEL_LIMIT = 10
#: The most work one run may ask for, in repetitions x cells x K**3 (K = 3: 74,000 repetitions
#: in all, about a quarter of an hour; K = 10: 2,000).
WORK_LIMIT = 2_000_000


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


def label_count(labels: object) -> int:
    """K from ``labels=``: a whole number K >= 2 or a list of K distinct label names; at most
    :data:`LABEL_LIMIT`."""
    if isinstance(labels, (list, tuple)):
        if len(labels) < 2 or len({str(v) for v in labels}) != len(labels):
            raise ValidationError(f"labels must name at least 2 distinct labels, got {labels!r}")
        k = len(labels)
    elif isinstance(labels, bool) or not isinstance(labels, (int, np.integer)) or labels < 2:
        raise ValidationError(f"labels (the number of labels K, or their names) must be a whole "
                              f"number >= 2 or a list of names, got {labels!r}")
    else:
        k = int(labels)
    if k > LABEL_LIMIT:
        raise ValidationError(f"the coverage experiment simulates at most {LABEL_LIMIT} labels "
                              f"(its work grows as K**3), got {k}; give fewer labels")
    return k


def plurality_rows(
    k: int, *, n1: Sequence[int], n2: Sequence[int], repetitions: int, seed: int,
    costs: object, confidence: float, method: str, others: Sequence[float] = (0.7, 0.6),
    candidate: float = 0.65, hard: float = 0.3,
) -> tuple[list[dict[str, float]], str]:
    """The coverage rows of the simulated K-label plurality system, and its description.

    ``k`` as :func:`label_count` returns it; ``costs`` a (K, K) matrix (default
    ``1 - eye(K)``); ``others`` the other models' accuracies, ``candidate`` the candidate's,
    ``hard`` the share of instances on which erring models agree on one wrong label.

    Examples
    --------
    >>> rows, text = plurality_rows(3, n1=[200], n2=[200], repetitions=40, seed=3, costs=None,
    ...                             confidence=0.95, method="clopper-pearson")
    >>> bool(rows[0]["p_high_confidence"] >= rows[0]["p_plain"]), text[:8]
    (True, '3 labels')
    """
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
    c_arr = check_costs(1 - np.eye(k) if costs is None else _matrix(costs), k)
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
        rows.append(coverage_row(a, b, repetitions, *(np.asarray(x) for x in (real, plain, high))))
    system_text = (f"{k} labels, plurality of {len(accs)} (others {list(accs[:-1])}, "
                   f"candidate {accs[-1]}, hard share {law.hard})")
    return rows, system_text


def _matrix(costs: object) -> object:
    """A cost matrix object as its (K, K) array (rows the true class)."""
    return costs.to_numpy() if hasattr(costs, "to_numpy") else costs
