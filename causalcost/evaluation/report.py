"""Judge a candidate for the slot with nothing but its confusion matrix and a cost sheet.

:func:`evaluate` applies the sheet to one candidate and returns a :class:`Report` with

* **Eval1**, cost function 1: the expected system cost (exact when the candidate's errors are
  independent of the rest of the system given the class);
* **Eval2**, cost function 2: the cost of the system errors the candidate's mistakes add;
* the **perfect-slot cost**: the expected system cost with a perfect model in the slot, so that
  ``Eval1 = Eval2 + perfect-slot cost``;
* the **worst and best** system confusion and cost compatible with the sheet's assumption
  (:mod:`~causalcost.pricing.bounds`): in the exact count form only when the candidate was
  counted on the very rows of the sheet's forced runs, declared (``same_instances=True``) or
  proven (a row fingerprint, :mod:`causalcost.sheet.instances`); otherwise, the default, in
  the probability form on the candidate's class sizes. Equal class sizes prove nothing (two
  stratified splits have them), so they are never taken as "the same instances". Every report
  names the form it used and why (``Report.instances``).

:func:`compare` ranks several candidates;
:func:`~causalcost.evaluation.candidates.read_candidates_csv` reads them from a file.

Examples
--------
Thesis §4, example 1: AND fusioner, costs FN 5 / FP 1, a 50 %/50 % candidate:

>>> import causalcost as cc
>>> from causalcost.sheet.derivation import derive_sheet
>>> sheet = derive_sheet(cc.interventional_table(cc.load_network("thesis_and")),
...                      cc.CostMatrix(fn=5, fp=1), prior=1 / 3,
...                      provenance={"source": "network", "network": "thesis_and"})
>>> report = evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
>>> [round(v, 9) for v in (report.eval1, report.eval2, report.perfect_slot_cost)]
[320.0, 220.0, 100.0]
>>> [round(v, 9) for v in (report.worst_cost, report.best_cost)]
[390.0, 250.0]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from causalcost.confusion import CELLS, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.display import format_cells, html_block, html_table, wrapped
from causalcost.errors import (
    OverflowInputError,
    SheetError,
    ValidationError,
)
from causalcost.evaluation.metrics import candidate_metrics
from causalcost.evaluation.ranking import (
    COMPARE_COLUMNS,
    PRIOR_Z,
    coverage_text,
    kinds_of,
)
from causalcost.pricing.bounds import Bound, Witness, bound, bound_from_rates
from causalcost.pricing.costs import evaluate_costs
from causalcost.pricing.high_confidence import (
    high_confidence_bound,
    high_confidence_bound_from_rates,
)
from causalcost.pricing.uncertainty import CostIntervals, cost_intervals
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.instances import Instances, decide_instances, other_instances_advice

#: The candidate's own metrics shown beside the system costs.
METRIC_COLUMNS = ("accuracy", "precision", "recall", "f1")

__all__ = ["Report", "evaluate", "sheet_warnings", "COMPARE_COLUMNS"]


_ASSUMPTION_TEXT = {
    "monotone": "assumes the system is monotone in the slot",
    "none": "no assumption on how the system reacts to the slot",
}
_FORM_TEXT = {
    "counts": "counts from forced runs on the candidate's evaluation set",
    "probability": "expected counts from the interventional rates on the candidate's class sizes",
    "kinds": "exact for the candidate's instances, from the kinds counted on them",
}


@dataclass(frozen=True)
class Report:
    """What a candidate for the slot would cost the system, by every measure the sheet allows.

    Attributes
    ----------
    eval1 : float
        Cost function 1: expected system cost (exact under independent errors).
    eval2 : float
        Cost function 2: cost of the system errors the candidate's mistakes add.
    perfect_slot_cost : float
        Expected system cost with a perfect model in the slot (``eval1 - eval2``).
    expected : Confusion
        The system confusion cost function 1 predicts; ``expected_cost`` equals ``eval1``.
    expected_cost : float
    worst, best : Confusion
        Worst and best system confusion compatible with the sheet's assumption.
    worst_cost, best_cost : float
        Their costs.
    assumption : str
        ``"monotone"`` or ``"none"``: what ``worst`` and ``best`` rest on.
    form : str
        ``"counts"`` or ``"probability"`` (see :class:`causalcost.pricing.bounds.Bound`).
    slot : str
        The slot of the sheet.
    model : Confusion
        The candidate's confusion.
    witnesses : dict
        ``{"worst": Witness, "best": Witness}``: instance-level assignments attaining the cases.
    costs : CostMatrix
        The system's cost matrix.
    system_name : str
        The sheet's system name.
    warnings : tuple of str
        Doubts that did not stop the evaluation (e.g. class sizes far from the sheet's prior,
        a monotone assumption that the system owner declared rather than checked).
    sheet_digest : str
        The SHA-256 of the sheet the report was computed on (``"sha256:<hex>"``), so the
        sheet's issuer can tell it is theirs.
    intervals : CostIntervals or None
        With ``evaluate(..., confidence=c)``: intervals on the six costs
        (:func:`~causalcost.cost_intervals`).
    high_confidence : Bound or None
        With ``evaluate(..., confidence=c)``: the worst case that holds on the candidate's own
        instances with probability at least ``c`` (:func:`~causalcost.high_confidence_bound`;
        on the sheet's own instances the exact worst case, which holds with certainty).
    high_confidence_best : Bound or None
        Its mirror: the best case the real cost stays above with probability at least ``c``
        (``side="best"``). Each holds with probability at least ``c``; both at once with
        probability at least ``2c - 1``.
    instances : str
        The form of the worst and best cases and why it was chosen, e.g. ``"probability form:
        instances not declared the same"`` (:mod:`causalcost.sheet.instances`).

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    >>> report.eval1, report.worst_cost, report.best_cost  # thesis §4 example 1: Eval1 = 320
    (320.0, 390.0, 250.0)
    """

    eval1: float
    eval2: float
    perfect_slot_cost: float
    expected: Confusion
    expected_cost: float
    worst: Confusion
    worst_cost: float
    best: Confusion
    best_cost: float
    assumption: str
    form: str
    slot: str
    model: Confusion
    witnesses: Mapping[str, Witness] = field(default_factory=dict, repr=False)
    costs: CostMatrix = field(default_factory=CostMatrix)
    system_name: str = "system"
    warnings: tuple[str, ...] = ()
    sheet_digest: str = ""
    intervals: CostIntervals | None = field(default=None, repr=False)
    high_confidence: Bound | None = field(default=None, repr=False)
    high_confidence_best: Bound | None = field(default=None, repr=False)
    instances: str = ""

    def _rows(self) -> dict[str, dict[str, float]]:
        return {name: {**m.to_dict(), "cost": c} for name, m, c in (
            ("worst", self.worst, self.worst_cost), ("expected", self.expected, self.expected_cost),
            ("best", self.best, self.best_cost))}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready report.

        The keys ``eval1``, ``eval2``, ``perfect_slot_cost``, ``worst``, ``best`` (each
        ``{"tp", "fn", "fp", "tn", "cost"}``) and ``assumption`` are a public contract; also
        ``expected``, ``form``, ``slot``, ``system``, ``model``, ``costs``, ``warnings``,
        ``sheet_sha256`` (the digest of the sheet it was computed on) and ``instances`` (the
        form and why). With a confidence level also ``high_confidence_worst`` and
        ``high_confidence_best``.

        Raises
        ------
        OverflowInputError
            If a number is infinite or NaN (never written to JSON as ``Infinity``/``NaN``).
        """
        rows = self._rows()
        out = {
            "eval1": self.eval1,
            "eval2": self.eval2,
            "perfect_slot_cost": self.perfect_slot_cost,
            "worst": rows["worst"],
            "best": rows["best"],
            "assumption": self.assumption,
            "expected": rows["expected"],
            "form": self.form,
            "slot": self.slot,
            "system": self.system_name,
            "model": self.model.to_dict(),
            "costs": self.costs.to_dict(),
            "warnings": list(self.warnings),
            "sheet_sha256": self.sheet_digest,
            "instances": self.instances,
            "metrics": {k: (None if v != v else float(v))
                        for k, v in candidate_metrics(self.model).items()},
            **self._uncertainty_dict(rows),
        }
        _check_finite(out, "")
        return out

    def _uncertainty_dict(self, rows: dict[str, dict[str, float]]) -> dict[str, Any]:
        """``ci_low`` / ``ci_high`` beside each cost, and the high-confidence worst case."""
        if self.intervals is None:
            return {}
        f = self.intervals.frame
        for case in ("worst", "best", "expected"):
            rows[case].update(ci_low=float(f.loc[f"{case}_cost", "ci_low"]),
                              ci_high=float(f.loc[f"{case}_cost", "ci_high"]))
        out: dict[str, Any] = {
            "confidence": self.intervals.confidence,
            "intervals": {name: {"ci_low": float(f.loc[name, "ci_low"]),
                                 "ci_high": float(f.loc[name, "ci_high"])}
                          for name in ("eval1", "eval2", "perfect_slot_cost")},
            "interval_method": self.intervals.method,
        }
        if self.high_confidence is not None:
            h = self.high_confidence
            out["high_confidence_worst"] = {**h.worst.to_dict(), "cost": h.worst_cost,
                                            "confidence": h.confidence, "method": h.method}
        if self.high_confidence_best is not None:
            h = self.high_confidence_best
            out["high_confidence_best"] = {**h.best.to_dict(), "cost": h.best_cost,
                                           "confidence": h.confidence, "method": h.method}
        if self.high_confidence is not None or self.high_confidence_best is not None:
            out["coverage"] = self.coverage
        return out

    @property
    def coverage(self) -> str:
        """The high-confidence cases' coverage in words (empty without a confidence level)."""
        h = self.high_confidence
        if h is None or h.confidence is None:
            return ""
        return coverage_text(h.confidence, exact=h.form != "high-confidence")

    def to_series(self) -> pd.Series:
        """The six costs: eval1, eval2, perfect_slot_cost, expected_cost, worst_cost, best_cost."""
        return pd.Series({k: getattr(self, k) for k in COMPARE_COLUMNS[:-1]}, dtype=float)

    def to_frame(self) -> pd.DataFrame:
        """Rows worst / expected / best; columns tp, fn, fp, tn, cost.

        ``frame.attrs`` holds ``eval1``, ``eval2``, ``perfect_slot_cost``, ``assumption``,
        ``form``, ``instances`` (the form and why) and ``slot``.
        """
        frame = pd.DataFrame.from_dict(self._rows(), orient="index")[[*CELLS, "cost"]]
        frame.index.name = "system case"
        frame.attrs.update(eval1=self.eval1, eval2=self.eval2,
                           perfect_slot_cost=self.perfect_slot_cost, assumption=self.assumption,
                           form=self.form, instances=self.instances, slot=self.slot)
        return frame

    def _head(self) -> list[str]:
        m = self.model
        return [
            f"Candidate for slot {self.slot!r} of system {self.system_name!r}",
            f"  model confusion: tp={_fmt(m.tp)} fn={_fmt(m.fn)} fp={_fmt(m.fp)} "
            f"tn={_fmt(m.tn)} ({_fmt(m.positives)} positives, {_fmt(m.negatives)} negatives)",
            f"  system costs:    {format_cells(self.costs)}",
            f"  sheet:           {self.sheet_digest}",
            "  model alone:     " + ", ".join(
                f"{k} {_fmt(round(float(v), 4)) if v == v else 'undefined'}"
                for k, v in candidate_metrics(self.model)[list(METRIC_COLUMNS)].items()),
        ]

    def __str__(self) -> str:
        frame = self.to_frame().to_string(float_format=_fmt)
        lines = [
            *self._head(),
            f"Eval1 (expected system cost)                    {_fmt(self.eval1)}",
            f"Eval2 (cost of the system errors it adds)       {_fmt(self.eval2)}",
            f"Perfect-slot cost (no mistakes in the slot)     {_fmt(self.perfect_slot_cost)}",
            f"System cost: worst case {_fmt(self.worst_cost)}, best case {_fmt(self.best_cost)} "
            f"({_ASSUMPTION_TEXT[self.assumption]}; {_FORM_TEXT[self.form]})",
            f"Form: {self.instances or _FORM_TEXT[self.form]}",
            "System confusion:",
            frame,
            "How the worst case can happen:",
            *(f"  {line}" for line in self.witnesses["worst"].describe().splitlines()),
        ]
        lines += self._uncertainty_lines()
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(wrapped(lines))

    def _uncertainty_lines(self) -> list[str]:
        if self.intervals is None:
            return []
        f = self.intervals.frame
        level = f"{self.intervals.confidence:.0%}"
        how = (f"box: the four rates and the candidate's two accuracies lie together in a "
               f"Clopper-Pearson box with probability >= {level}; each cost's range over it"
               if self.intervals.method == "box" else "bootstrap percentile intervals")
        lines = [f"{level} intervals of the costs ({how}):"]
        for name, label in (("eval1", "Eval1"), ("eval2", "Eval2"), ("worst_cost", "worst case"),
                            ("best_cost", "best case")):
            lines.append(f"  {label:<11} {_fmt(f.loc[name, 'estimate'])} "
                         f"[{_fmt(f.loc[name, 'ci_low'])}, {_fmt(f.loc[name, 'ci_high'])}]")
        if self.high_confidence is not None:
            lines.append(f"Worst case on the candidate's own instances: plain "
                         f"{_fmt(self.worst_cost)}, high-confidence ({level}) "
                         f"{_fmt(self.high_confidence.worst_cost)}")
        if self.high_confidence_best is not None:
            lines.append(f"Best case on the candidate's own instances: plain "
                         f"{_fmt(self.best_cost)}, high-confidence ({level}) "
                         f"{_fmt(self.high_confidence_best.best_cost)}")
        if self.coverage:
            lines.append(f"  {self.coverage}")
        return lines

    def __repr__(self) -> str:
        return (f"Report(slot={self.slot!r}, eval1={_fmt(self.eval1)}, eval2={_fmt(self.eval2)}, "
                f"perfect_slot_cost={_fmt(self.perfect_slot_cost)}, "
                f"worst_cost={_fmt(self.worst_cost)}, best_cost={_fmt(self.best_cost)}, "
                f"assumption={self.assumption!r}, model={self.model!r}, "
                f"form={self.instances or self.form!r})")

    def _repr_html_(self) -> str:
        costs = self.to_series().to_frame("cost")
        if self.intervals is not None:
            f = self.intervals.frame
            costs[f"{self.intervals.confidence:.0%} interval"] = [
                f"[{_fmt(f.loc[k, 'ci_low'])}, {_fmt(f.loc[k, 'ci_high'])}]"
                if k in f.index else "–" for k in costs.index]
        parts: list[str | list[str]] = [
            [line.strip() for line in self._head()], html_table(costs),
            [f"Worst and best case: {_ASSUMPTION_TEXT[self.assumption]}; "
             f"{_FORM_TEXT[self.form]}"],
            [f"Form: {self.instances or _FORM_TEXT[self.form]}"],
            html_table(self.to_frame(), caption="System confusion"),
            ["How the worst case can happen:", *self.witnesses["worst"].describe().splitlines()]]
        if self.high_confidence is not None:
            parts.append([f"Worst case on the candidate's own instances with probability at "
                          f"least {self.high_confidence.confidence:.0%}: "
                          f"{_fmt(self.high_confidence.worst_cost)} (plain "
                          f"{_fmt(self.worst_cost)})"])
        if self.high_confidence_best is not None:
            parts.append([f"Best case on the candidate's own instances with probability at "
                          f"least {self.high_confidence_best.confidence:.0%}: "
                          f"{_fmt(self.high_confidence_best.best_cost)} (plain "
                          f"{_fmt(self.best_cost)})", self.coverage])
        return html_block("Candidate report", *parts,
                          notes=[f"warning: {w}" for w in self.warnings])


def _check_finite(value: Any, where: str) -> None:
    """Refuse an infinite or NaN number anywhere in a report's JSON form, naming its key."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_finite(v, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise OverflowInputError(f"the report's {where!r} is {value!r}: the numbers overflow "
                                 "float64; rescale the counts or the sheet's costs")


# ------------------------------------------------------------------------------- evaluation
def _as_confusion(candidate: object, what: str) -> Confusion:
    if isinstance(candidate, Confusion):
        return candidate
    if isinstance(candidate, Mapping):
        return Confusion.from_mapping(candidate)
    raise TypeError(f"{what} must be a Confusion or a mapping of tp, fn, fp, tn; got "
                    f"{type(candidate).__name__}")


def _multiclass(sheet: object) -> bool:
    """A sheet of K labels (its module, and scipy's solvers, load only when one is given)."""
    from causalcost.evaluation.label_report import is_label_sheet

    return is_label_sheet(sheet)


def _check_classes(sheet: CostSheet, model: Confusion, inst: Instances,
                   confidence: float | None) -> tuple[str, ...]:
    """Raise when the candidate's class sizes contradict the sheet; return softer warnings."""
    p, n = model.positives, model.negatives
    if sheet.class_counts is not None:
        sp, sn = sheet.class_counts
        equal = (p, n) == (float(sp), float(sn))
        counted = sheet.forced_p is not None and sheet.forced_n is not None
        if inst.same or (not counted and equal):
            return ()
        text = (f"the candidate ({_fmt(p)} positives, {_fmt(n)} negatives) is taken as counted "
                f"on other instances than the sheet's ({sp} and {sn}) ({inst.text()}): the "
                "worst and best cases use the probability form on its class sizes, exact only "
                "up to sampling error on its instances; " + other_instances_advice(confidence))
        if counted and equal and inst.how == "not-declared":
            text += ("; if it was counted on the very rows of the sheet's forced runs, declare "
                     "it (same_instances=True, --same-instances) for the exact count form")
        return (text,)
    if sheet.prior is None:
        return ()
    prior, total = sheet.prior, model.total
    fraction = p / total
    spread = math.sqrt(prior * (1 - prior) / total)
    if spread == 0:
        if fraction != prior:
            raise SheetError(f"candidate has {_fmt(p)} positives and {_fmt(n)} negatives but the "
                             f"sheet's prior P(Class=P) is {prior:g}: that class cannot occur")
        return ()
    z = (fraction - prior) / spread
    if abs(z) > PRIOR_Z:
        return (f"the candidate's positive fraction {fraction:.4g} ({_fmt(p)} of {_fmt(total)}) "
                f"is far from the sheet's prior {prior:.4g} (z = {z:.2f}): it may come from "
                "another population than the sheet's rates",)
    return ()


def sheet_warnings(sheet: CostSheet) -> tuple[str, ...]:
    """What every report on ``sheet`` must say about the sheet itself.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160),
    ...                                   cc.Confusion(0, 100, 0, 200), cc.CostMatrix(fn=5, fp=1),
    ...                                   slot="clinical_history", description="thesis set")
    >>> print(sheet_warnings(sheet)[0])  # doctest: +ELLIPSIS
    the monotone assumption was declared by the system owner, not checked: ...
    """
    out = []
    m = sheet.monotonicity
    if sheet.assumption == "monotone" and m is not None and m.get("source") == "declared":
        out.append(f"the monotone assumption was declared by the {m.get('by')}, not checked: the "
                   "worst and best cases hold only if the system never fails because the slot is "
                   "right")
    if not sheet.verified:
        out.append(f"the sheet was read from version {sheet.read_version}, which has no digest: "
                   "its content cannot be verified against what was issued")
    if sheet.signature is not None and not sheet.signature_checked:
        out.append(f"the sheet is signed (key {sheet.signed_by}) but its signature was not "
                   "checked: install the optional dependency (pip install 'causalcost[sign]')")
    return tuple(out)


def evaluate(sheet: CostSheet, candidate: Confusion | Mapping[str, float], *,
             confidence: float | None = None, same_instances: bool = False,
             row_fingerprint: str | None = None) -> Report:
    """Evaluate one candidate for the sheet's slot.

    Parameters
    ----------
    sheet : CostSheet
        The slot's cost sheet. A sheet of K labels is evaluated by
        :func:`~causalcost.evaluation.label_report.evaluate_labels` (a K x K candidate or its
        predictions, a :class:`~causalcost.evaluation.label_report.LabelReport` with the same
        fields).
    candidate : Confusion or mapping
        The candidate's confusion (``tp``, ``fn``, ``fp``, ``tn``). By default it is taken as
        counted on other instances than the sheet's forced runs (the common two-split case):
        the worst and best cases use the probability form on its class sizes, and a warning
        says so.
    confidence : float, optional
        Add intervals on every cost (:func:`~causalcost.cost_intervals`), the worst case that
        holds on the candidate's own instances with this probability
        (:func:`~causalcost.high_confidence_bound`) and its mirror, the high-confidence best
        case.
    same_instances : bool, default False
        Declare that the candidate was counted on the very rows of the sheet's forced runs:
        then the worst and best cases are exact (count form, or the kinds bound of a sheet
        from data). Never inferred from equal class sizes.
    row_fingerprint : str, optional
        Prove it instead: :func:`~causalcost.row_fingerprint` of the rows the candidate was
        counted on, matched against the fingerprint the sheet records
        (:func:`~causalcost.sheet_from_data` with ``row_ids=``); a different fingerprint
        proves other rows.

    Returns
    -------
    Report

    Raises
    ------
    SheetError
        If the candidate's class sizes contradict the sheet's class counts on the same
        instances (or a prior of 0/1).
    ValidationError
        ``same_instances`` or ``row_fingerprint`` on a sheet without forced runs, or that
        contradict each other.
    CountError
        If the sheet is in the count form and the candidate's cells are not integers.
    TypeError
        If ``sheet`` is not a CostSheet or ``candidate`` not a confusion.

    Examples
    --------
    Thesis §4, example 2 (OR fusioner): cost function 1 gives 375, cost function 2 gives 275.

    >>> import causalcost as cc
    >>> from causalcost.sheet.derivation import derive_sheet
    >>> sheet = derive_sheet(cc.ErrorRates(0.0, 0.75, 1.0, 0.5), cc.CostMatrix(fn=5, fp=1),
    ...                      slot="clinical_history", class_counts=(100, 200),
    ...                      monotonicity="declared", provenance={"source": "thesis §4"})
    >>> r = evaluate(sheet, cc.Confusion(tp=40, fn=60, fp=100, tn=100))
    >>> r.to_dict()["eval1"], r.to_dict()["eval2"], r.to_dict()["assumption"]
    (375.0, 275.0, 'monotone')
    >>> other = evaluate(sheet, cc.Confusion(tp=40, fn=50, fp=100, tn=110), confidence=0.95)
    >>> other.form, other.high_confidence.worst_cost >= other.worst_cost
    ('probability', True)
    >>> print(other.instances)
    probability form: the sheet's rates were not counted on instances of its own (no forced runs)
    """
    if _multiclass(sheet):  # K labels: the same report, K x K arrays
        from causalcost.evaluation.label_report import evaluate_labels

        return evaluate_labels(sheet, candidate, confidence=confidence,  # type: ignore[return-value]
                               same_instances=same_instances, row_fingerprint=row_fingerprint)
    if not isinstance(sheet, CostSheet):
        raise TypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    model = _as_confusion(candidate, "candidate")
    if model.total <= 0:
        raise ValidationError("the candidate's confusion has no instances")
    inst = decide_instances(sheet, model.positives, model.negatives,
                            same_instances=same_instances, row_fingerprint=row_fingerprint)
    warnings = sheet_warnings(sheet) + _check_classes(sheet, model, inst, confidence)
    ev = evaluate_costs(sheet.rates, sheet.costs, model)
    check = sheet.monotonicity_check
    b: Bound
    kinds = kinds_of(sheet)
    if kinds is not None and inst.same:
        b = bound(model=model, costs=sheet.costs, kinds=kinds)  # exact for these instances
    elif inst.same:
        b = bound(sheet.forced_p, sheet.forced_n, model, sheet.costs,  # type: ignore[arg-type]
                  assumption=sheet.assumption, monotonicity=check)
    else:
        b = bound_from_rates(sheet.rates, model, sheet.costs, assumption=sheet.assumption,
                             monotonicity=check)
    intervals, high, low = None, None, None
    if confidence is not None:
        intervals, high, low = _uncertainty(sheet, model, confidence, check,
                                            b if inst.same else None)
    return Report(
        eval1=ev.eval1, eval2=ev.eval2, perfect_slot_cost=ev.perfect_slot_cost,
        expected=b.expected, expected_cost=b.expected_cost, worst=b.worst,
        worst_cost=b.worst_cost, best=b.best, best_cost=b.best_cost, assumption=b.assumption,
        form=b.form, slot=sheet.slot, model=model,
        witnesses={"worst": b.worst_witness, "best": b.best_witness}, costs=sheet.costs,
        system_name=sheet.system_name, warnings=warnings, sheet_digest=sheet.digest,
        intervals=intervals, high_confidence=high, high_confidence_best=low,
        instances=inst.text(b.form),
    )


def _stage_one(sheet: CostSheet) -> tuple[Confusion, Confusion] | None:
    """The forced runs behind the sheet's rates: counted, or rebuilt from a sampled table
    (both forced runs of a sampled table see the same simulated instances)."""
    if sheet.forced_p is not None and sheet.forced_n is not None:
        return sheet.forced_p, sheet.forced_n
    t = sheet.table
    if t is None or t.counts is None:
        return None
    n_p, n_n = int(t.counts[0, 0, 0]), int(t.counts[1, 0, 0])
    fail = {(c, x): round(t.probabilities[c, x, 1 if c == 0 else 2] * (n_p if c == 0 else n_n))
            for c in (0, 1) for x in (0, 1)}
    forced = [Confusion(tp=n_p - fail[0, x], fn=fail[0, x], fp=fail[1, x], tn=n_n - fail[1, x])
              for x in (0, 1)]
    return forced[0], forced[1]


def _uncertainty(sheet: CostSheet, model: Confusion, confidence: float, check: object,
                 exact: Bound | None = None) -> tuple[CostIntervals, Bound, Bound]:
    """Intervals on the costs and the high-confidence worst and best cases for one candidate
    (on the sheet's own instances, ``exact``: the exact cases, which hold with certainty)."""
    stage_one = _stage_one(sheet)
    source: object = stage_one if stage_one is not None else sheet.rates
    integral = all(float(v).is_integer() for v in model.cells())
    intervals = cost_intervals(source, model, sheet.costs, confidence=confidence,
                               assumption=sheet.assumption, model_is_sample=integral)
    if exact is not None:
        same = replace(exact, confidence=float(confidence), method="exact")
        return intervals, same, same
    sides = []
    for side in ("worst", "best"):
        if stage_one is not None:
            sides.append(high_confidence_bound(*stage_one, model, sheet.costs,
                                               confidence=confidence,
                                               assumption=sheet.assumption, monotonicity=check,
                                               side=side))
        else:
            sides.append(high_confidence_bound_from_rates(sheet.rates, model, sheet.costs,
                                                          confidence=confidence,
                                                          assumption=sheet.assumption,
                                                          monotonicity=check, side=side))
    return intervals, sides[0], sides[1]
