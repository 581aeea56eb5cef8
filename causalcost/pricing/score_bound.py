"""The price of one score-slot candidate: :class:`ScoreBound`, for two labels and for K.

What :func:`~causalcost.pricing.scores.price_scores` (two labels: critical scores) and
:func:`~causalcost.pricing.score_vector_price.price_vectors` (K labels: offset vectors) return:
the expected, worst and best system confusion and cost, and the high-confidence worst and best
case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from causalcost.confusion import CLASSES, Confusion, CostMatrix
from causalcost.display import format_number

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMS", "ScoreBound"]

#: The two forms of a score bound: the candidate counted on the critical scores' own
#: instances, or on other instances of the same populations.
FORMS = ("same instances", "probability")


@dataclass(frozen=True)
class ScoreBound:
    """Expected, worst and best system confusion and cost of one score-slot candidate.

    Attributes
    ----------
    expected : Confusion
        Cost function 1's system confusion (the candidate's scores independent of the
        instance): per class ``n * P(S >= T)`` instances said P.
    expected_cost : float
        Its cost, ``Eval1``.
    worst, best : Confusion or None
        The system confusion in the worst / best case over the unknown pairing of the
        candidate's scores with the instances (``form="same instances"``: exact counts) or
        over every coupling of the two score distributions (``form="probability"``, scaled to
        the candidate's class sizes; cells may be fractional). ``None`` for a K-label slot
        (K > 2) in the probability form: the coupling problem fixes the cost, not which wrong
        label the errors go to.
    worst_cost, best_cost : float
        Their costs.
    form : str
        ``"same instances"`` or ``"probability"``.
    high_confidence_worst, high_confidence_best : Confusion or None
        With ``confidence``: the worst / best case over every coupling of score distributions
        inside the DKW bands; the population worst (best) case is at most (at least) these
        with probability at least ``confidence``, both at once. ``None`` otherwise, and for a
        K-label slot (K > 2), whose high-confidence case bounds the cost only
        (:mod:`causalcost.pricing.score_vector_band`).
    high_confidence_worst_cost, high_confidence_best_cost : float or None
        Their costs.
    confidence : float or None
        ``1 - alpha`` of the DKW bands.
    costs : CostMatrix
        The system's cost matrix.
    class_sizes : tuple of int
        The candidate's scores per class (P, N; for K labels, in label order).
    critical_sizes : tuple of int
        The system's instances per class: its critical scores (K labels: its offset vectors).
    labels : tuple
        ``("P", "N")``, or the K labels of a K-label score slot
        (:mod:`causalcost.pricing.score_vector_price`).

    Examples
    --------
    Three positives whose system needs a score of at least 0.2, 0.5 and 0.9; the candidate
    scores 0.3, 0.6 and 0.95 on them, in an unknown order:

    >>> from causalcost.pricing.scores import price_scores
    >>> b = price_scores({"P": [0.2, 0.5, 0.9], "N": []}, {"P": [0.3, 0.6, 0.95], "N": []})
    >>> b.worst_cost, b.expected_cost, b.best_cost
    (2.0, 1.0, 0.0)
    >>> b.worst
    Confusion(tp=1, fn=2, fp=0, tn=0)
    """

    expected: Confusion
    expected_cost: float
    worst: Confusion | None
    worst_cost: float
    best: Confusion | None
    best_cost: float
    form: str
    costs: CostMatrix
    class_sizes: tuple[int, ...]
    critical_sizes: tuple[int, ...]
    high_confidence_worst: Confusion | None = None
    high_confidence_worst_cost: float | None = None
    high_confidence_best: Confusion | None = None
    high_confidence_best_cost: float | None = None
    confidence: float | None = None
    labels: tuple[Any, ...] = field(default=CLASSES)

    @property
    def eval1(self) -> float:
        """The expected cost (``expected_cost``), under the column name ``eval1``."""
        return self.expected_cost

    def to_dict(self) -> dict[str, Any]:
        """Plain values: the costs under their table names, each confusion as a dict.

        >>> from causalcost.pricing.scores import price_scores
        >>> b = price_scores(([0.5], [0.5]), ([0.7], [0.2]), CostMatrix(fn=5, fp=1))
        >>> {k: b.to_dict()[k] for k in ("eval1", "worst_cost", "best_cost", "form")}
        {'eval1': 0.0, 'worst_cost': 0.0, 'best_cost': 0.0, 'form': 'same instances'}
        """
        out: dict[str, Any] = {
            "eval1": self.expected_cost, "worst_cost": self.worst_cost,
            "best_cost": self.best_cost, "form": self.form,
            "expected": _cells(self.expected), "worst": _cells(self.worst),
            "best": _cells(self.best),
            "costs": _cells(self.costs),
            "class_sizes": dict(zip(self.labels, self.class_sizes)),
            "critical_sizes": dict(zip(self.labels, self.critical_sizes)),
        }
        if self.confidence is not None:
            out.update(confidence=self.confidence,
                       high_confidence_worst_cost=self.high_confidence_worst_cost,
                       high_confidence_best_cost=self.high_confidence_best_cost,
                       high_confidence_worst=_cells(self.high_confidence_worst),
                       high_confidence_best=_cells(self.high_confidence_best))
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per case (expected, worst, best[, high-confidence]): the four cells and the
        cost.

        >>> from causalcost.pricing.scores import price_scores
        >>> b = price_scores(([0.2, 0.9], [0.5, 0.5]), ([0.3, 0.95], [0.1, 0.6]))
        >>> b.to_frame()["cost"].to_dict()
        {'expected': 1.5, 'worst': 2.0, 'best': 1.0}
        """
        import pandas as pd

        rows = {"expected": (self.expected, self.expected_cost),
                "worst": (self.worst, self.worst_cost), "best": (self.best, self.best_cost)}
        if self.confidence is not None:
            rows["high_confidence_worst"] = (self.high_confidence_worst,
                                             self.high_confidence_worst_cost)
            rows["high_confidence_best"] = (self.high_confidence_best,
                                            self.high_confidence_best_cost)
        frame = pd.DataFrame.from_dict(
            {k: {**(_cells(c) or {}), "cost": v}
             for k, (c, v) in rows.items()}, orient="index")
        frame.index.name = "case"
        return frame

    def __repr__(self) -> str:
        parts = [f"form={self.form!r}", f"eval1={format_number(self.expected_cost)}",
                 f"worst_cost={format_number(self.worst_cost)}",
                 f"best_cost={format_number(self.best_cost)}"]
        if self.confidence is not None:
            parts += [f"high_confidence_worst_cost="
                      f"{format_number(self.high_confidence_worst_cost)}",
                      f"high_confidence_best_cost="
                      f"{format_number(self.high_confidence_best_cost)}",
                      f"confidence={self.confidence!r}"]
        parts.append(f"n={dict(zip(self.labels, self.class_sizes))}")
        return f"ScoreBound({', '.join(parts)})"


def _cells(matrix: Any) -> dict[str, float] | None:
    """A confusion or cost matrix as named cells: ``tp, fn, fp, tn`` for two labels,
    ``"true->said"`` for K labels; ``None`` stays ``None``."""
    if matrix is None:
        return None
    if matrix.k == 2:
        return matrix.to_dict()
    return {f"{t}->{p}": v for t, row in zip(matrix.labels, matrix.matrix)
            for p, v in zip(matrix.labels, row)}


