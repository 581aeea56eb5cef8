"""How a :class:`~causalcost.evaluation.report.Report` reads: its text and its HTML, for any K.

For two labels the text names the binary cells (tp, fn, fp, tn), the witness of the worst case
and the intervals; for K labels it shows the K x K tables (rows the true class).

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
>>> report_text(report).splitlines()[0]
"Candidate for slot 'clinical_history' of system 'thesis_and'"
"""

from __future__ import annotations

from typing import Any

from causalcost.confusion import format_number as _fmt
from causalcost.display import format_cells, html_block, html_table, wrapped
from causalcost.evaluation.metrics import candidate_metrics

__all__ = ["report_html", "report_text"]

_ASSUMPTION_TEXT = {
    "monotone": "assumes the system is monotone in the slot",
    "none": "no assumption on how the system reacts to the slot",
}
_FORM_TEXT = {
    "counts": "counts from forced runs on the candidate's evaluation set",
    "probability": "expected counts from the interventional rates on the candidate's class sizes",
    "kinds": "exact for the candidate's instances, from the kinds counted on them",
}
_METRICS = ("accuracy", "precision", "recall", "f1")


def report_text(r: Any) -> str:
    """The report as text (``str(report)``)."""
    return _binary_text(r) if r.binary else _label_text(r)


def report_html(r: Any) -> str:
    """The report as HTML (``report._repr_html_()``)."""
    return _binary_html(r) if r.binary else _label_html(r)


# ---------------------------------------------------------------------------- two labels
def _head(r: Any) -> list[str]:
    m = r.model
    return [
        f"Candidate for slot {r.slot!r} of system {r.system_name!r}",
        f"  model confusion: tp={_fmt(m.tp)} fn={_fmt(m.fn)} fp={_fmt(m.fp)} "
        f"tn={_fmt(m.tn)} ({_fmt(m.positives)} positives, {_fmt(m.negatives)} negatives)",
        f"  system costs:    {format_cells(r.costs)}",
        f"  sheet:           {r.sheet_digest}",
        "  model alone:     " + ", ".join(
            f"{k} {_fmt(round(float(v), 4)) if v == v else 'undefined'}"
            for k, v in candidate_metrics(r.model)[list(_METRICS)].items()),
    ]


def _binary_text(r: Any) -> str:
    frame = r.to_frame().to_string(float_format=_fmt)
    lines = [
        *_head(r),
        f"Eval1 (expected system cost)                    {_fmt(r.eval1)}",
        f"Eval2 (cost of the system errors it adds)       {_fmt(r.eval2)}",
        f"Perfect-slot cost (no mistakes in the slot)     {_fmt(r.perfect_slot_cost)}",
        f"System cost: worst case {_fmt(r.worst_cost)}, best case {_fmt(r.best_cost)} "
        f"({_ASSUMPTION_TEXT[r.assumption]}; {_FORM_TEXT[r.form]})",
        f"Form: {r.instances or _FORM_TEXT[r.form]}",
        "System confusion:",
        frame,
    ]
    if "worst" in r.witnesses:
        lines += ["How the worst case can happen:",
                  *(f"  {line}" for line in r.witnesses["worst"].describe().splitlines())]
    lines += _uncertainty_lines(r)
    lines += [f"warning: {w}" for w in r.warnings]
    return "\n".join(wrapped(lines))


def _uncertainty_lines(r: Any) -> list[str]:
    if r.intervals is None:
        return []
    f = r.intervals.frame
    level = f"{r.intervals.confidence:.0%}"
    how = (f"box: the four rates and the candidate's two accuracies lie together in a "
           f"Clopper-Pearson box with probability >= {level}; each cost's range over it"
           if r.intervals.method == "box" else "bootstrap percentile intervals")
    lines = [f"{level} intervals of the costs ({how}):"]
    for name, label in (("eval1", "Eval1"), ("eval2", "Eval2"), ("worst_cost", "worst case"),
                        ("best_cost", "best case")):
        lines.append(f"  {label:<11} {_fmt(f.loc[name, 'estimate'])} "
                     f"[{_fmt(f.loc[name, 'ci_low'])}, {_fmt(f.loc[name, 'ci_high'])}]")
    if r.high_confidence is not None:
        lines.append(f"Worst case on the candidate's own instances: plain "
                     f"{_fmt(r.worst_cost)}, high-confidence ({level}) "
                     f"{_fmt(r.high_confidence.worst_cost)}")
    if r.high_confidence_best is not None:
        lines.append(f"Best case on the candidate's own instances: plain "
                     f"{_fmt(r.best_cost)}, high-confidence ({level}) "
                     f"{_fmt(r.high_confidence_best.best_cost)}")
    if r.coverage:
        lines.append(f"  {r.coverage}")
    return lines


def _binary_html(r: Any) -> str:
    costs = r.to_series().to_frame("cost")
    if r.intervals is not None:
        f = r.intervals.frame
        costs[f"{r.intervals.confidence:.0%} interval"] = [
            f"[{_fmt(f.loc[k, 'ci_low'])}, {_fmt(f.loc[k, 'ci_high'])}]"
            if k in f.index else "–" for k in costs.index]
    parts: list[str | list[str]] = [
        [line.strip() for line in _head(r)], html_table(costs),
        [f"Worst and best case: {_ASSUMPTION_TEXT[r.assumption]}; {_FORM_TEXT[r.form]}"],
        [f"Form: {r.instances or _FORM_TEXT[r.form]}"],
        html_table(r.to_frame(), caption="System confusion")]
    if "worst" in r.witnesses:
        parts.append(["How the worst case can happen:",
                      *r.witnesses["worst"].describe().splitlines()])
    if r.high_confidence is not None:
        parts.append([f"Worst case on the candidate's own instances with probability at "
                      f"least {r.high_confidence.confidence:.0%}: "
                      f"{_fmt(r.high_confidence.worst_cost)} (plain {_fmt(r.worst_cost)})"])
    if r.high_confidence_best is not None:
        parts.append([f"Best case on the candidate's own instances with probability at "
                      f"least {r.high_confidence_best.confidence:.0%}: "
                      f"{_fmt(r.high_confidence_best.best_cost)} (plain "
                      f"{_fmt(r.best_cost)})", r.coverage])
    return html_block("Candidate report", *parts, notes=[f"warning: {w}" for w in r.warnings])


# ------------------------------------------------------------------------------ K labels
def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _label_text(r: Any) -> str:
    def line(name: str, value: float) -> str:
        return f"  {name:<26}{_fmt(float(value))}"

    lines = [f"Candidate for slot {r.slot!r} of system {r.system_name!r} (labels "
             f"{list(r.labels)}; assumption {r.assumption}, form {r.form})",
             line("Eval1 (expected)", r.eval1), line("Eval2", r.eval2),
             line("perfect-slot cost", r.perfect_slot_cost),
             line("worst case", r.worst_cost), line("best case", r.best_cost)]
    if r.high_confidence is not None:
        level = f"{r.confidence:.0%}"
        lines += [f"  Eval1 {level} interval      [{_fmt(r.eval1_ci_low)}, "
                  f"{_fmt(r.eval1_ci_high)}]",
                  line(f"worst at {level}", r.high_confidence.worst_cost),
                  line(f"best at {level}", r.high_confidence_best_cost)]
    lines.append(f"  Form: {r.instances}")
    lines.append("  candidate (rows: true class, columns: prediction):")
    lines.append(_indent(r._matrix_frame("model", "prediction").to_string(float_format=_fmt)))
    lines.append("  worst system confusion (columns: system output):")
    lines.append(_indent(r._matrix_frame("worst").to_string(float_format=_fmt)))
    lines += [f"  warning: {w}" for w in r.warnings]
    lines.append(f"  sheet: {r.sheet_digest}")
    return "\n".join(lines)


def _label_html(r: Any) -> str:
    return html_block(
        repr(r), html_table(r.to_series().to_frame(), caption="Costs"),
        html_table(r._matrix_frame("model", "prediction"), caption="Candidate (rows: true class)"),
        html_table(r._matrix_frame("worst"), caption="Worst system confusion"),
        html_table(r._matrix_frame("best"), caption="Best system confusion"),
        notes=[r.instances, *r.warnings])
