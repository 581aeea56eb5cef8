"""The report on one score-slot candidate: :class:`ScoreReport`, what
:func:`~causalcost.evaluate` returns for a :class:`~causalcost.ScoreSheet`.

A score sheet prices a candidate from its **scores**: the expected system cost (the
candidate's scores independent of the instance, cost function 1), the worst and best case over
the unknown pairing of its scores with the instances (same instances) or over every coupling of
the two score distributions (probability form), and with a confidence level the
high-confidence worst and best case (DKW bands). There is no Eval2 or perfect-slot cost: a
score slot has no single "right" score to compare with.

A K-label slot (K > 2; the candidate gives a probability vector per row) has the same report:
its confusions are K x K (rows the true class), the candidate's own confusion (the argmax of
its vectors against the truth) stands beside the system's, and on the rows of score runs the
real system's confusion and cost with the candidate plugged in. In the probability form the
worst and best case of K > 2 labels are costs without a confusion (the coupling problem fixes
the cost, not which wrong label the errors go to).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.display import wrapped
from causalcost.errors import OverflowInputError

__all__ = ["ScoreReport"]


@dataclass(frozen=True)
class ScoreReport:
    """What a score-slot candidate would cost the system (labels P, N, or K labels).

    Attributes
    ----------
    eval1 : float
        The expected system cost (independence; ``expected_cost`` is the same number).
    worst_cost, best_cost : float
        The worst and best case, in the ``form`` named.
    expected, worst, best : Confusion or None
        The system's confusions (rows the true class); probability-form cells may be
        fractional. ``worst`` and ``best`` are ``None`` for K > 2 labels in the probability
        form (their costs only are determined).
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
        The candidate's scores per class (P, N; K labels in label order).
    costs : CostMatrix
    sheet_digest : str
    warnings : tuple of str
    confidence : float or None
    high_confidence_worst_cost, high_confidence_best_cost : float or None
        With ``confidence``: the worst (best) case over every coupling inside the DKW bands;
        the population's worst (best) case is at most (at least) it with probability at least
        ``confidence``, both at once.
    high_confidence_worst, high_confidence_best : Confusion or None
    labels : tuple
        ``("P", "N")``, or the K labels.
    model : Confusion or None
        K labels: the candidate's own confusion (the argmax of its vectors, first largest on
        ties, against the truth). ``None`` for two labels.
    real : Confusion or None
        On the rows of score runs: the real system's confusion with the candidate's scores
        (vectors) in the slot (:meth:`~causalcost.data.score_runs.ScoreRuns.with_candidate`).
    real_cost : float or None
        Its cost (between ``best_cost`` and ``worst_cost``: the same instances).

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
    worst: Confusion | None
    best: Confusion | None
    form: str
    instances: str
    how: str
    slot: str
    rule: str
    class_sizes: tuple[int, ...]
    costs: CostMatrix = field(repr=False, default_factory=CostMatrix)
    sheet_digest: str = ""
    warnings: tuple[str, ...] = ()
    confidence: float | None = None
    high_confidence_worst_cost: float | None = None
    high_confidence_best_cost: float | None = None
    high_confidence_worst: Confusion | None = field(default=None, repr=False)
    high_confidence_best: Confusion | None = field(default=None, repr=False)
    labels: tuple[Any, ...] = CLASSES
    model: Confusion | None = field(default=None, repr=False)
    real: Confusion | None = field(default=None, repr=False)
    real_cost: float | None = None

    @property
    def expected_cost(self) -> float:
        """The expected system cost (the same number as ``eval1``)."""
        return self.eval1

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def _cases(self) -> dict[str, tuple[Confusion | None, float]]:
        rows = {"worst": (self.worst, self.worst_cost),
                "expected": (self.expected, self.eval1), "best": (self.best, self.best_cost)}
        if self.confidence is not None:
            rows["high_confidence_worst"] = (self.high_confidence_worst,
                                             float(self.high_confidence_worst_cost))  # type: ignore[arg-type]
            rows["high_confidence_best"] = (self.high_confidence_best,
                                            float(self.high_confidence_best_cost))  # type: ignore[arg-type]
        return rows

    def _matrix_frame(self, matrix: Any, columns: str = "system output") -> pd.DataFrame:
        shown = [_plain(v) for v in self.labels]
        frame = pd.DataFrame(np.asarray(matrix, dtype=float), index=shown, columns=shown)
        frame.index.name, frame.columns.name = "true class", columns
        return frame

    def _tables(self) -> dict[str, Confusion]:
        """K labels: the K x K tables there are, in display order."""
        tables: dict[str, Any] = {"candidate": self.model}
        tables.update((k, c) for k, (c, _) in self._cases().items())
        tables["real"] = self.real
        return {k: c for k, c in tables.items() if c is not None}

    def to_frame(self) -> pd.DataFrame:
        """Two labels: rows worst / expected / best (and the high-confidence cases), columns
        tp, fn, fp, tn, cost. K labels: the candidate's own and the system's K x K tables
        (``candidate``, ``worst``, ``expected``, ``best`` when determined, ``real`` on score
        runs' rows), rows (table, true class), columns the labels. ``attrs`` hold eval1, form,
        instances, slot, sheet_sha256 (K labels also the costs by case)."""
        if self.k != 2:
            frame = pd.concat({k: self._matrix_frame(c.to_numpy(), "prediction" if
                                                     k == "candidate" else "system output")
                               for k, c in self._tables().items()}, names=["table"])
            frame.attrs.update(eval1=self.eval1, worst_cost=self.worst_cost,
                               best_cost=self.best_cost, real_cost=self.real_cost,
                               form=self.form, instances=self.instances, slot=self.slot,
                               sheet_sha256=self.sheet_digest)
            return frame
        rows = dict(self._cases())
        if self.real is not None:  # score runs' own rows: the real system
            rows["real"] = (self.real, float(self.real_cost))  # type: ignore[arg-type]
        frame = pd.DataFrame.from_dict(
            {k: {**c.to_dict(), "cost": v} for k, (c, v) in rows.items()  # type: ignore[union-attr]
             }, orient="index")[[*CELLS, "cost"]]
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

        K labels: the same keys, each case ``{"matrix": nested lists (rows the true class,
        columns in the order of ``labels``) or None, "cost"}``, ``costs`` as nested lists, and
        ``model`` (the candidate's own confusion, nested lists); on score runs' rows also
        ``real`` (``{"matrix", "cost"}``) and ``real_cost``.

        Raises
        ------
        OverflowInputError
            A number that is infinite or NaN (never written as ``Infinity``).
        """
        if self.k != 2:
            out = self._label_dict()
            _refuse_infinite(out, "")
            return out
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
        if self.real is not None:  # score runs' own rows: the real system
            out.update(real={**self.real.to_dict(), "cost": self.real_cost},
                       real_cost=self.real_cost)
        for key, value in out.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise OverflowInputError(f"the report's {key!r} is {value!r}: the numbers "
                                         "overflow float64; rescale the sheet's costs")
        return out

    def _label_dict(self) -> dict[str, Any]:
        labels = [_plain(v) for v in self.labels]
        out: dict[str, Any] = {
            "eval1": self.eval1, "expected_cost": self.eval1, "worst_cost": self.worst_cost,
            "best_cost": self.best_cost,
            **{k: {"matrix": None if c is None else _nested(c.to_numpy()), "cost": v}
               for k, (c, v) in self._cases().items()},
            "model": None if self.model is None else _nested(self.model.to_numpy()),
            "form": self.form, "instances": self.instances, "how": self.how,
            "slot": self.slot, "rule": self.rule,
            "class_sizes": dict(zip(labels, self.class_sizes)),
            "costs": _nested(self.costs.to_numpy()), "sheet_sha256": self.sheet_digest,
            "warnings": list(self.warnings), "labels": labels}
        if self.real is not None:
            out.update(real={"matrix": _nested(self.real.to_numpy()),
                             "cost": self.real_cost}, real_cost=self.real_cost)
        if self.confidence is not None:
            out.update(confidence=self.confidence,
                       high_confidence_worst_cost=self.high_confidence_worst_cost,
                       high_confidence_best_cost=self.high_confidence_best_cost)
        return out

    def __str__(self) -> str:
        if self.k == 2:
            n_p, n_n = self.class_sizes
            sizes = f"{n_p} positives, {n_n} negatives"
        else:
            sizes = ", ".join(f"{n} of {_plain(c)!r}" for c, n in
                              zip(self.labels, self.class_sizes))
        lines = [f"Score candidate for slot {self.slot!r} ({sizes})",
                 f"  rule: {self.rule}",
                 f"  sheet {self.sheet_digest}" if self.sheet_digest else
                 "  priced with the score runs (no sheet)",
                 f"  expected system cost (Eval1): {_fmt(self.eval1)}",
                 f"  worst case: {_fmt(self.worst_cost)}   best case: {_fmt(self.best_cost)}",
                 *([f"  real system cost with the candidate plugged in: "
                    f"{_fmt(self.real_cost)}"] if self.real_cost is not None else []),
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
        if self.real_cost is not None:
            parts.append(f"real_cost={_fmt(self.real_cost)}")
        parts += [f"form={self.form!r}", f"how={self.how!r}",
                  f"n={dict(zip((_plain(v) for v in self.labels), self.class_sizes))}"]
        return f"ScoreReport({', '.join(parts)})"


def _plain(value: Any) -> Any:
    """A label as a plain Python value (numpy scalars unwrapped), for JSON and display."""
    return value.item() if isinstance(value, np.generic) else value


def _nested(matrix: Any) -> list[list[float]]:
    """A K x K matrix as nested lists of JSON numbers (whole numbers as int)."""
    return [[int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v) for v in row]
            for row in np.asarray(matrix, dtype=float).tolist()]


def _refuse_infinite(value: Any, where: str) -> None:
    """Refuse an infinite or NaN number anywhere in the JSON form, naming its key."""
    if isinstance(value, dict):
        for k, v in value.items():
            _refuse_infinite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _refuse_infinite(v, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise OverflowInputError(f"the report's {where!r} is {value!r}: the numbers overflow "
                                 "float64; rescale the costs")
