"""The :class:`Backtest` result: candidates' predicted system costs beside the real ones, and
the selection rules scored against the real costs (:func:`~causalcost.backtest` makes it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.display import format_cells, html_block, html_table, wrapped

__all__ = ["Backtest", "RULES", "REL_TOL", "inside", "summary_of"]

#: Selection rules the summary scores: rule -> (column it minimises, source).
RULES: dict[str, tuple[str, str]] = {
    "expected": ("expected_cost", "runs"),
    "worst": ("worst_cost", "runs"),
    "accuracy": ("accuracy", "runs"),
    "sheet_expected": ("sheet_expected_cost", "sheet"),
    "sheet_worst": ("sheet_worst_cost", "sheet"),
    "sheet_high_confidence_worst": ("sheet_hc_worst_cost", "sheet"),
}
#: Relative tolerance of the inside/outside flags (costs summed in different orders).
REL_TOL = 1e-12


def inside(value: float, low: float, high: float) -> bool:
    """Whether ``low <= value <= high`` up to a relative tolerance of 1e-12 (``high`` may be
    ``inf``: an upper bound only when ``low`` is ``-inf``).

    >>> inside(1.0, 1.0 + 1e-15, 2.0), inside(2.1, 1.0, 2.0)
    (True, False)
    """
    finite = [abs(v) for v in (value, low, high) if math.isfinite(v)]
    tol = REL_TOL * max([1.0, *finite])
    return low - tol <= value <= high + tol


@dataclass(frozen=True)
class Backtest:
    """Candidates' predicted system costs beside the real system cost with each plugged in.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per candidate (index ``candidate``, in the order given): ``real_cost`` (the
        real system's cost with the candidate in the slot) and ``real_rank`` (1 = lowest),
        ``accuracy`` (the candidate alone), ``expected_cost``, ``best_cost``, ``worst_cost``
        (the sheet of these runs: exact worst and best on these rows) and ``inside``
        (``best_cost <= real_cost <= worst_cost``); with a sheet also ``sheet_expected_cost``,
        ``sheet_best_cost``, ``sheet_worst_cost``, ``sheet_inside``, ``sheet_hc_worst_cost``
        and ``sheet_hc_holds`` (``real_cost <= sheet_hc_worst_cost``).
    summary : pandas.DataFrame
        One row per selection rule (index ``rule``): ``source`` (``"runs"`` or ``"sheet"``),
        ``kendall_tau`` and ``p_value`` (the rule's ordering against the real costs; NaN with
        fewer than two candidates or when either side is constant), ``pick`` (the candidate
        the rule chooses; ties go to the first given), ``pick_real_cost`` and ``regret``
        (``pick_real_cost / min(real_cost) - 1``; 0 when both are 0, ``inf`` when only the
        best is 0).
    real : dict of str to Confusion
        The real system's confusion with each candidate in the slot.
    models : dict of str to Confusion
        Each candidate's own confusion on the rows.
    slot : str
    costs : CostMatrix
    confidence : float
        Level of the sheet's high-confidence worst case.
    sheet_digest : str or None
        The digest of the sheet given (``None`` without one).
    warnings : tuple of str
        What the sheets' reports said (declared assumptions, other instances).
    """

    frame: pd.DataFrame
    summary: pd.DataFrame
    real: Mapping[str, Confusion]
    models: Mapping[str, Confusion]
    slot: str
    costs: CostMatrix
    confidence: float
    sheet_digest: str | None = None
    warnings: tuple[str, ...] = field(default=())

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``slot``, ``costs``, ``confidence``, ``sheet_sha256``, ``warnings``,
        ``candidates`` (one record per row of :attr:`frame`, with the ``real`` and ``model``
        confusions) and ``summary`` (one record per rule; NaN written as null)."""
        def plain(value: Any) -> Any:
            value = value.item() if hasattr(value, "item") else value
            return None if isinstance(value, float) and not math.isfinite(value) else value

        candidates = []
        for name, row in self.frame.iterrows():
            record = {"name": name, **{k: plain(v) for k, v in row.items()}}
            record["real"] = _cells(self.real[name])
            record["model"] = _cells(self.models[name])
            candidates.append(record)
        summary = [{"rule": rule, **{k: plain(v) for k, v in row.items()}}
                   for rule, row in self.summary.iterrows()]
        costs = self.costs.to_dict() if hasattr(self.costs, "to_dict") else \
            np.asarray(self.costs, dtype=float).tolist()
        return {"slot": self.slot, "costs": costs, "confidence": self.confidence,
                "sheet_sha256": self.sheet_digest, "warnings": list(self.warnings),
                "candidates": candidates, "summary": summary}

    def _lines(self) -> list[str]:
        best = self.frame["real_cost"].idxmin()
        outside = [str(n) for n in self.frame.index[~self.frame["inside"]]]
        lines = [f"Backtest of {len(self.frame)} candidate(s) for slot {self.slot!r} "
                 f"(costs {_cost_text(self.costs)})",
                 f"  lowest real system cost: {best!r} ({_fmt(self.frame.loc[best, 'real_cost'])})",
                 "  real cost between the exact best and worst case on these rows: "
                 + ("every candidate" if not outside else f"not for {', '.join(outside)}")]
        if "sheet_inside" in self.frame:
            f = self.frame
            hc = (f", below its {self.confidence:.0%} high-confidence worst case for "
                  f"{int(f['sheet_hc_holds'].sum())} of {len(f)}"
                  if "sheet_hc_holds" in f else "")
            lines.append(f"  sheet {self.sheet_digest}: real cost inside its worst/best case for "
                         f"{int(f['sheet_inside'].sum())} of {len(f)}{hc}")
        return lines

    def __repr__(self) -> str:
        shown = self.frame.to_string(float_format=lambda v: f"{v:.6g}", line_width=99)
        rules = self.summary.to_string(float_format=lambda v: f"{v:.4g}", line_width=99)
        return "\n".join(wrapped([*self._lines(), shown, "Selection rules against the real costs:",
                                  rules, *(f"warning: {w}" for w in self.warnings)]))

    def _repr_html_(self) -> str:
        return html_block("Backtest", [line.strip() for line in self._lines()],
                          html_table(self.frame, caption="Candidates: predicted and real "
                                                         "system cost"),
                          html_table(self.summary, caption="Selection rules against the real "
                                                           "costs"),
                          notes=[f"warning: {w}" for w in self.warnings])


def _cells(confusion: Any) -> Any:
    """A confusion as JSON: the binary cells by name, a K x K array as nested lists."""
    if hasattr(confusion, "to_dict"):
        return {k: int(v) for k, v in confusion.to_dict().items()}
    return np.asarray(confusion).astype(int).tolist()


def _cost_text(costs: Any) -> str:
    if isinstance(costs, CostMatrix):
        return format_cells(costs)
    return ";".join(",".join(_fmt(float(v)) for v in row) for row in np.asarray(costs))



def _regret(pick: float, best: float) -> float:
    if best == 0:
        return 0.0 if pick == 0 else math.inf
    return pick / best - 1.0


def summary_of(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per selection rule: Kendall's tau against the real costs, the pick, its
    regret (see :class:`Backtest`)."""
    from scipy.stats import kendalltau

    real = frame["real_cost"].to_numpy(dtype=float)
    best = float(real.min())
    rows = {}
    for rule, (column, source) in RULES.items():
        if column not in frame:
            continue
        score = frame[column].to_numpy(dtype=float)
        score = -score if rule == "accuracy" else score  # lower is better for every rule
        tau, p = math.nan, math.nan
        if len(score) >= 2 and np.ptp(score) > 0 and np.ptp(real) > 0:
            result = kendalltau(score, real)
            tau, p = float(result.statistic), float(result.pvalue)
        i = int(np.argmin(score))  # the first of tied minima
        rows[rule] = {"source": source, "kendall_tau": tau, "p_value": p,
                      "pick": frame.index[i], "pick_real_cost": float(real[i]),
                      "regret": _regret(float(real[i]), best)}
    summary = pd.DataFrame.from_dict(rows, orient="index")
    summary.index.name = "rule"
    return summary

