"""The binary fast path of :func:`~causalcost.evaluate`: one candidate against a sheet of two
labels (P, N) by the closed forms, with the witnesses of the worst and best cases, intervals on
the six costs and the high-confidence cases.

The general route (:mod:`causalcost.evaluation.general`) gives the same numbers for two labels
(tests check it); this path adds what only two labels have (witnesses, the Clopper-Pearson box,
the prior check) and keeps the binary report's numbers exactly.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> evaluate_binary(sheet, {"tp": 50, "fn": 50, "fp": 100, "tn": 100}, ()).eval1
320.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.errors import SheetError, ValidationError
from causalcost.evaluation.ranking import PRIOR_Z, kinds_of
from causalcost.evaluation.report_value import Report
from causalcost.pricing.bounds import Bound, bound, bound_from_rates
from causalcost.pricing.costs import evaluate_costs
from causalcost.pricing.high_confidence import (
    high_confidence_bound,
    high_confidence_bound_from_rates,
)
from causalcost.pricing.uncertainty import CostIntervals, cost_intervals
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.instances import Instances, decide_instances, other_instances_advice

__all__ = ["evaluate_binary", "uncertainty"]


def _as_confusion(candidate: object, what: str, labels: tuple[str, ...]) -> Confusion:
    """The binary candidate: a Confusion or ``tp, fn, fp, tn`` mapping as given (positive
    first); a 2 x 2 array, labelled frame or ``(y_true, y_pred)`` by the one reader of
    candidates, over the sheet's labels."""
    if isinstance(candidate, Confusion):
        return candidate
    if isinstance(candidate, Mapping):
        return Confusion.from_mapping(candidate)
    if isinstance(candidate, (tuple, list, np.ndarray, pd.DataFrame)) or hasattr(
            candidate, "to_numpy"):
        from causalcost.evaluation.candidate_reading import label_confusion

        return Confusion(*label_confusion(candidate, labels, what).reshape(4).tolist())
    raise TypeError(f"{what} must be a Confusion or a mapping of tp, fn, fp, tn; got "
                    f"{type(candidate).__name__}")


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


def evaluate_binary(sheet: CostSheet, candidate: Confusion | Mapping[str, float],
                    own_warnings: tuple[str, ...], *, confidence: float | None = None,
                    same_instances: bool = False, row_fingerprint: str | None = None) -> Report:
    """One candidate against a sheet of two labels by the closed forms (see
    :func:`causalcost.evaluate`); ``own_warnings`` are the sheet's own."""
    model = _as_confusion(candidate, "candidate", tuple(sheet.label_names))
    if model.total <= 0:
        raise ValidationError("the candidate's confusion has no instances")
    inst = decide_instances(sheet, model.positives, model.negatives,
                            same_instances=same_instances, row_fingerprint=row_fingerprint)
    warnings = own_warnings + _check_classes(sheet, model, inst, confidence)
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
        intervals, high, low = uncertainty(sheet, model, confidence, check,
                                            b if inst.same else None)
    return Report(
        eval1=ev.eval1, eval2=ev.eval2, perfect_slot_cost=ev.perfect_slot_cost,
        expected=b.expected, expected_cost=b.expected_cost, worst=b.worst,
        worst_cost=b.worst_cost, best=b.best, best_cost=b.best_cost, assumption=b.assumption,
        form=b.form, slot=sheet.slot, model=model,
        witnesses={"worst": b.worst_witness, "best": b.best_witness}, costs=sheet.costs,
        system_name=sheet.system_name, warnings=warnings, sheet_digest=sheet.digest,
        intervals=intervals, high_confidence=high, high_confidence_best=low,
        instances=inst.text(b.form), labels=tuple(sheet.label_names), confidence=confidence,
        eval1_ci_low=None if intervals is None else float(intervals.frame.loc["eval1", "ci_low"]),
        eval1_ci_high=None if intervals is None else float(
            intervals.frame.loc["eval1", "ci_high"]),
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


def uncertainty(sheet: CostSheet, model: Confusion, confidence: float, check: object,
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
