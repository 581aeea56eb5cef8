"""The report on one score-slot candidate: :class:`ScoreReport`, what
:func:`~causalcost.evaluate` returns for a :class:`~causalcost.ScoreSheet`.

A score sheet prices a candidate from its **scores**: the expected system cost (the
candidate's scores independent of the instance, cost function 1), the worst and best case over
the unknown pairing of its scores with the instances (same instances) or over every coupling of
the two score distributions (probability form), and with a confidence level the
high-confidence worst and best case (DKW bands). There is no Eval2 or perfect-slot cost: a
score slot has no single "right" score to compare with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.display import wrapped
from causalcost.errors import OverflowInputError

__all__ = ["ScoreReport"]


@dataclass(frozen=True)
class ScoreReport:
    """What a score-slot candidate would cost the system (labels P, N).

    Attributes
    ----------
    eval1 : float
        The expected system cost (independence; ``expected_cost`` is the same number).
    worst_cost, best_cost : float
        The worst and best case, in the ``form`` named.
    expected, worst, best : Confusion
        The system's confusions (rows the true class); probability-form cells may be
        fractional.
    form : str
        ``"same instances"`` (exact over the unknown pairing) or ``"probability"``.
    instances : str
        The form and why, in words (declared, proven by the row fingerprint, or the default).
    how : str
        ``"declared"``, ``"fingerprint"``, ``"fingerprint-differs"``, ``"not-declared"`` or
        ``"no-forced-runs"``.
    slot, rule : str
        The sheet's slot and fusion rule.
    class_sizes : tuple of int
        The candidate's scores per class (P, N).
    costs : CostMatrix
    sheet_digest : str
    warnings : tuple of str
    confidence : float or None
    high_confidence_worst_cost, high_confidence_best_cost : float or None
        With ``confidence``: the worst (best) case over every coupling inside the DKW bands;
        the population's worst (best) case is at most (at least) it with probability at least
        ``confidence``, both at once.
    high_confidence_worst, high_confidence_best : Confusion or None

    Examples
    --------
    >>> import numpy as np, causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> runs = score_runs(np.array([[0.9, 0.6], [0.3, 0.5], [0.2, 0.1], [0.6, 0.7]]),
    ...                   truth=[1, 1, 0, 0], slot=1)
    >>> sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    >>> r = cc.evaluate(sheet, ([1, 1, 0, 0], [0.8, 0.8, 0.0, 0.0]), same_instances=True)
    >>> r.eval1, r.worst_cost, r.best_cost, r.form
    (0.0, 0.0, 0.0, 'same instances')
    """

    eval1: float
    worst_cost: float
    best_cost: float
    expected: Confusion
    worst: Confusion
    best: Confusion
    form: str
    instances: str
    how: str
    slot: str
    rule: str
    class_sizes: tuple[int, int]
    costs: CostMatrix = field(repr=False, default_factory=CostMatrix)
    sheet_digest: str = ""
    warnings: tuple[str, ...] = ()
    confidence: float | None = None
    high_confidence_worst_cost: float | None = None
    high_confidence_best_cost: float | None = None
    high_confidence_worst: Confusion | None = field(default=None, repr=False)
    high_confidence_best: Confusion | None = field(default=None, repr=False)
    labels: tuple[str, str] = CLASSES

    @property
    def expected_cost(self) -> float:
        """The expected system cost (the same number as ``eval1``)."""
        return self.eval1

    def _cases(self) -> dict[str, tuple[Confusion, float]]:
        rows = {"worst": (self.worst, self.worst_cost),
                "expected": (self.expected, self.eval1), "best": (self.best, self.best_cost)}
        if self.confidence is not None:
            assert self.high_confidence_worst is not None
            assert self.high_confidence_best is not None
            rows["high_confidence_worst"] = (self.high_confidence_worst,
                                             float(self.high_confidence_worst_cost))  # type: ignore[arg-type]
            rows["high_confidence_best"] = (self.high_confidence_best,
                                            float(self.high_confidence_best_cost))  # type: ignore[arg-type]
        return rows

    def to_frame(self) -> pd.DataFrame:
        """Rows worst / expected / best (and the high-confidence cases), columns tp, fn, fp,
        tn, cost; ``attrs`` hold eval1, form, instances, slot, sheet_sha256."""
        frame = pd.DataFrame.from_dict(
            {k: {**c.to_dict(), "cost": v} for k, (c, v) in self._cases().items()},
            orient="index")[[*CELLS, "cost"]]
        frame.index.name = "system case"
        frame.attrs.update(eval1=self.eval1, form=self.form, instances=self.instances,
                           slot=self.slot, sheet_sha256=self.sheet_digest)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``eval1``, ``expected_cost``, ``worst_cost``, ``best_cost``, each case
        (``{"tp", "fn", "fp", "tn", "cost"}``), ``form``, ``instances``, ``how``, ``slot``,
        ``rule``, ``class_sizes``, ``costs``, ``sheet_sha256``, ``warnings``, ``labels``; with a
        confidence level ``confidence``, ``high_confidence_worst_cost`` and
        ``high_confidence_best_cost``.

        Raises
        ------
        OverflowInputError
            A number that is infinite or NaN (never written as ``Infinity``).
        """
        out: dict[str, Any] = {
            "eval1": self.eval1, "expected_cost": self.eval1, "worst_cost": self.worst_cost,
            "best_cost": self.best_cost,
            **{k: {**c.to_dict(), "cost": v} for k, (c, v) in self._cases().items()},
            "form": self.form, "instances": self.instances, "how": self.how,
            "slot": self.slot, "rule": self.rule,
            "class_sizes": dict(zip(self.labels, self.class_sizes)),
            "costs": self.costs.to_dict(), "sheet_sha256": self.sheet_digest,
            "warnings": list(self.warnings), "labels": list(self.labels)}
        if self.confidence is not None:
            out.update(confidence=self.confidence,
                       high_confidence_worst_cost=self.high_confidence_worst_cost,
                       high_confidence_best_cost=self.high_confidence_best_cost)
        for key, value in out.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise OverflowInputError(f"the report's {key!r} is {value!r}: the numbers "
                                         "overflow float64; rescale the sheet's costs")
        return out

    def __str__(self) -> str:
        n_p, n_n = self.class_sizes
        lines = [f"Score candidate for slot {self.slot!r} ({n_p} positives, {n_n} negatives)",
                 f"  rule: {self.rule}",
                 f"  sheet {self.sheet_digest}",
                 f"  expected system cost (Eval1): {_fmt(self.eval1)}",
                 f"  worst case: {_fmt(self.worst_cost)}   best case: {_fmt(self.best_cost)}",
                 f"  {self.instances}"]
        if self.confidence is not None:
            level = f"{self.confidence:.0%}".replace("%", " %")
            lines.append(f"  high-confidence ({level}, both at once) worst case: "
                         f"{_fmt(self.high_confidence_worst_cost)}   best case: "
                         f"{_fmt(self.high_confidence_best_cost)}")
        shown = self.to_frame().to_string(float_format=lambda v: f"{v:.6g}")
        lines += [*("  " + line for line in shown.splitlines()),
                  *(f"warning: {w}" for w in self.warnings)]
        return "\n".join(wrapped(lines))

    def __repr__(self) -> str:
        parts = [f"slot={self.slot!r}", f"eval1={_fmt(self.eval1)}",
                 f"worst_cost={_fmt(self.worst_cost)}", f"best_cost={_fmt(self.best_cost)}"]
        if self.confidence is not None:
            parts += [f"high_confidence_worst_cost={_fmt(self.high_confidence_worst_cost)}",
                      f"high_confidence_best_cost={_fmt(self.high_confidence_best_cost)}",
                      f"confidence={self.confidence!r}"]
        parts += [f"form={self.form!r}", f"how={self.how!r}",
                  f"n={dict(zip(self.labels, self.class_sizes))}"]
        return f"ScoreReport({', '.join(parts)})"
