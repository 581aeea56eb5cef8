"""How a cost sheet shows itself: text, repr, HTML and a frame, for any number of labels.

A sheet of two labels shows its four rates (with intervals when known), the class sizes or
prior and the two model cost matrices; a sheet of more labels its costs ``C[c, s]`` and the
matrices ``M1`` and ``M2``. :class:`~causalcost.sheet.costsheet.CostSheet` calls these.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> sheet_frame(sheet).loc[("P", "N"), "symbol"]
'e_P(N)'
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import format_cells, html_block, html_table
from causalcost.inference.table import OUTCOMES
from causalcost.sheet.schema import SHEET_FORMAT, SHEET_VERSION

__all__ = ["sheet_frame", "sheet_html", "sheet_repr", "sheet_text"]

_SYMBOLS = ("e_P(P)", "e_P(N)", "e_N(P)", "e_N(N)")


def sheet_frame(s: Any) -> pd.DataFrame:
    """Two labels: the four rates per (class, forced slot value) with intervals when known;
    more labels: ``M1`` and ``M2`` (rows: function, true class; columns: the prediction)."""
    if not s.binary:
        return s._cost_matrices().to_frame()  # type: ignore[no-any-return]
    t = s.table
    rows = []
    names = s.labels
    for c, cname in enumerate(names):
        outcome = OUTCOMES.index("FN" if c == 0 else "FP")
        for x, xname in enumerate(names):
            row: dict[str, Any] = {"class": cname, "do(slot)": xname,
                                   "symbol": _SYMBOLS[2 * c + x],
                                   "rate": float(t.probabilities[c, x, outcome])}
            if t.has_intervals:
                row["ci_low"] = float(t.lower[c, x, outcome])
                row["ci_high"] = float(t.upper[c, x, outcome])
                row["n"] = int(t.counts[c, x, outcome])
            rows.append(row)
    return pd.DataFrame(rows).set_index(["class", "do(slot)"])


def _classes_text(s: Any) -> str:
    if s.class_counts is not None:
        p, n = s.class_counts
        return f"{p} positives and {n} negatives (candidates must match)"
    if s.prior is not None:
        return f"prior P(Class=P) = {s.prior:.6g} (candidates use their own class sizes)"
    return "not recorded (candidates use their own class sizes)"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _labelled_text(s: Any) -> str:
    from causalcost.data.runs import label_frame

    sizes = s.class_sizes
    lines = [f"Cost sheet for slot {s.slot!r} of system {s.system_name!r} "
             f"(labels {list(s.labels)}, format {SHEET_FORMAT} v{SHEET_VERSION}, "
             f"created {s.created})",
             f"assumption: {s.assumption!r}; worst case in the {s.form} form"
             + ("" if sizes is None else "; class sizes " + ", ".join(
                 f"{lab}={n}" for lab, n in zip(s.labels, sizes))),
             "system costs (rows: true class, columns: system output):",
             _indent(label_frame(s.costs_array, s.labels).to_string()),
             "M1, expected system cost of the slot predicting (columns):",
             _indent(label_frame(np.round(s.m1, 6), s.labels, columns="predicted").to_string()),
             f"digest: {s.digest}"]
    return "\n".join(lines)


def sheet_text(s: Any) -> str:
    """The sheet as text (``str(sheet)``)."""
    if not s.binary:
        return _labelled_text(s)
    rates = sheet_frame(s).to_string(float_format=lambda v: f"{v:.6g}")
    source = ", ".join(f"{k}={v}" for k, v in s.provenance.items())
    lines = [
        f"Cost sheet for slot {s.slot!r} of system {s.system_name!r} "
        f"(format {SHEET_FORMAT} v{SHEET_VERSION}, created {s.created})",
        f"provenance: {source}",
        f"classes: {_classes_text(s)}",
        f"system costs: {format_cells(s.costs)}",
        f"assumption: {s.assumption!r}; worst case in the {s.form} form",
        "interventional error rates:",
        rates,
        f"cost function 1 (expected): {s.expected_cost_matrix!r}",
        f"cost function 2 (transition): {s.error_transition_matrix!r}",
    ]
    return "\n".join(lines)


def sheet_repr(s: Any) -> str:
    """``repr(sheet)``: slot, system, labels or rates, costs, assumption and form."""
    if not s.binary:
        return (f"CostSheet(slot={s.slot!r}, system={s.system_name!r}, "
                f"labels={list(s.labels)}, assumption={s.assumption!r}, form={s.form!r})")
    r = s.rates
    return (f"CostSheet(slot={s.slot!r}, system={s.system_name!r}, "
            f"e_P(P)={r.fn_forced_p:.6g}, e_P(N)={r.fn_forced_n:.6g}, "
            f"e_N(P)={r.fp_forced_p:.6g}, e_N(N)={r.fp_forced_n:.6g}, costs={s.costs!r}, "
            f"assumption={s.assumption!r}, form={s.form!r})")


def sheet_html(s: Any) -> str:
    """The sheet in a notebook."""
    if not s.binary:
        from causalcost.data.runs import label_frame

        names = s.labels
        return html_block(
            repr(s),
            html_table(label_frame(s.costs_array, names), caption="System costs C[c, s]"),
            html_table(label_frame(s.m1, names, columns="predicted"),
                       caption="M1: expected system cost per slot prediction"),
            html_table(label_frame(s.m2, names, columns="predicted"),
                       caption="M2: error transition"))
    head = [f"slot {s.slot!r} of system {s.system_name!r}; classes: {_classes_text(s)}; "
            f"assumption {s.assumption!r}; system costs {s.costs!r}",
            f"content digest: {s.digest}"]
    derived = pd.DataFrame([s.expected_cost_matrix.to_dict(), s.error_transition_matrix.to_dict()],
                           index=["cost function 1", "cost function 2"])
    return html_block("Cost sheet", head,
                      html_table(sheet_frame(s), caption="Failure rates and costs"),
                      html_table(derived, caption="Model cost matrices"))
