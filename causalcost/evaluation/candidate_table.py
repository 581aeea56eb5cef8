"""The table :func:`~causalcost.evaluation.comparison.compare` returns: a DataFrame that
prints narrow.

Ranking candidates gives one row per candidate and a dozen columns (six costs, the rank, the
model's own metrics, intervals when asked): too wide for ``print`` at 80 characters, where
pandas would elide the middle columns. :class:`CandidateTable` is a plain
:class:`pandas.DataFrame` in every respect (columns, ``attrs``, indexing; operations return
ordinary DataFrames) except that ``print`` and Jupyter show it in two parts: what each
candidate does to the system, then the model on its own.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pandas as pd

from causalcost.display import format_number, html_block, html_table

__all__ = ["CandidateTable", "HIDDEN_COLUMNS", "SYSTEM_HEADERS", "MODEL_COLUMNS", "footer"]

#: Short headers for the system-cost columns, in display order.
SYSTEM_HEADERS = {"rank": "rank", "eval1": "Eval1", "eval2": "Eval2",
                  "worst_cost": "worst", "best_cost": "best",
                  "perfect_slot_cost": "perfect slot", "eval1_ci_low": "Eval1 low",
                  "eval1_ci_high": "Eval1 high", "worst_ci_high": "worst high",
                  "high_confidence_worst_cost": "hc worst",
                  "high_confidence_best_cost": "hc best",
                  "better_than_next": "better than next"}
#: Columns kept in the frame but not printed: ``expected_cost`` equals ``eval1``.
HIDDEN_COLUMNS = ("expected_cost",)
#: The model-alone columns, shown second.
MODEL_COLUMNS = ("accuracy", "precision", "recall", "f1")


def _short(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value != value:
        return "–"
    if isinstance(value, (int, float)):
        text = format_number(value)
        return text if len(text) <= 8 else f"{value:.4g}"
    return str(value)


def footer(attrs: dict[str, Any], width: int | None = 80) -> list[str]:
    """The lines printed under a ranked table: the order, the form of the worst and best cases
    and why, the coverage of the high-confidence cases, the rule that cut scores."""
    lines = ["Ranked by expected system cost (Eval1, the same number as expected_cost), ties by "
             "the worst case."]
    if attrs.get("instances"):
        lines.append(f"Worst and best cases: {attrs['instances']}.")
    if attrs.get("coverage"):
        lines.append(f"hc worst / hc best (high-confidence, {attrs['confidence']:.0%}): "
                     f"{attrs['coverage']}.".replace("%)", " %)"))
    if attrs.get("scores_rule"):
        lines.append(f"{attrs['scores_rule'][0].upper()}{attrs['scores_rule'][1:]}.")
    if width is None:
        return lines
    return [textwrap.fill(line, width, subsequent_indent="  ") for line in lines]


def _cell_column(name: object) -> bool:
    """A score comparison's right answers per case (``worst_tp``, ...): kept, not printed."""
    return isinstance(name, str) and name.rsplit("_", 1)[-1] in ("tp", "tn") and \
        name.rsplit("_", 1)[0] in ("expected", "worst", "best")


class CandidateTable(pd.DataFrame):
    """Candidates ranked by :func:`~causalcost.evaluation.comparison.compare`: a DataFrame that
    shows the system's costs and the model's own metrics as two narrow tables.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network(cc.load_network("thesis_and"), cc.CostMatrix(fn=5, fp=1))
    >>> table = cc.compare(sheet, {"a": cc.Confusion(tp=50, fn=50, fp=100, tn=100),
    ...                            "b": cc.Confusion(tp=70, fn=30, fp=60, tn=140)})
    >>> print(table)
    System cost with each candidate in slot 'clinical_history' (rank 1 is best):
              rank Eval1 Eval2 worst best perfect slot
    candidate
    b            1   232   132   290  150          100
    a            2   320   220   390  250          100
    The model alone:
              accuracy precision recall       f1
    candidate
    b              0.7  0.538462    0.7 0.608696
    a              0.5  0.333333    0.5      0.4
    Ranked by expected system cost (Eval1, the same number as expected_cost), ties
      by the worst case.
    Worst and best cases: probability form: the sheet's rates were not counted on
      instances of its own (no forced runs) (2 candidate(s)).
    >>> type(table[["eval1"]]).__name__   # operations give ordinary DataFrames
    'DataFrame'
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def _parts(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        system = [c for c in SYSTEM_HEADERS if c in self.columns]
        model = [c for c in MODEL_COLUMNS if c in self.columns]
        others = [c for c in self.columns if c not in system and c not in model
                  and c not in HIDDEN_COLUMNS and not _cell_column(c)]
        first = pd.DataFrame(self[system + others]).rename(columns=SYSTEM_HEADERS)
        return first, pd.DataFrame(self[model])

    def _title(self) -> str:
        slot = self.attrs.get("slot")
        where = f" in slot {slot!r}" if slot else ""
        return f"System cost with each candidate{where} (rank 1 is best):"

    def __repr__(self) -> str:
        first, second = self._parts()
        lines = [self._title(), first.to_string(formatters={c: _short for c in first.columns},
                                                line_width=100)]
        if len(second.columns):
            lines += ["The model alone:", second.to_string(
                formatters={c: _short for c in second.columns}, line_width=100)]
        lines += footer(self.attrs)
        return "\n".join(line.rstrip() for text in lines for line in text.splitlines())

    def __str__(self) -> str:
        return self.__repr__()

    def _repr_html_(self) -> str:
        first, second = self._parts()
        parts = [html_table(first)]
        if len(second.columns):
            parts.append(html_table(second, caption="The model alone"))
        notes = [*footer(self.attrs, None),
                 *(f"warning: {w}" for w in self.attrs.get("warnings", ()))]
        return html_block(self._title(), *parts, notes=notes)
