"""Rank many candidates against a sheet at once: the vectorised path behind ``compare``.

:func:`causalcost.evaluation.comparison.compare` ranks candidates by Eval1, ties broken by the worst
case. One :func:`~causalcost.evaluation.report.evaluate` per candidate costs a fraction of a
millisecond (witnesses, reports); a model owner with a file of fifty thousand candidates should
not wait half a minute, so :func:`rank_candidates` computes the six costs for every candidate in
one pass: cost functions 1 and 2 as sums over the four cells (in the order
:meth:`~causalcost.pricing.costs.ModelCostMatrix.evaluate` uses, so the numbers agree with
:func:`~causalcost.evaluation.report.evaluate`) and the worst and best cases with
:func:`~causalcost.pricing.bounds_many.bound_many` (count form) or
:func:`~causalcost.pricing.bounds_many.bound_many_from_rates` (probability form).

A candidate the one-at-a-time path would refuse (a class a prior of 0 or 1 rules out,
fractional counts in the count form, no instances, costs that overflow) is found with array
tests, and the error is the one :func:`~causalcost.evaluation.report.evaluate` raises for
it, prefixed with its name. Counts beyond 2**53 (exact Python integers) take the one-at-a-time path.

Which candidates were counted on the sheet's own rows is declared (``same_instances``) or
proven (a row fingerprint), never guessed from class sizes (:mod:`causalcost.sheet.instances`):
the count form applies to those rows only.

This module sits below :mod:`causalcost.evaluation.report` (which imports it), so ``evaluate`` is
passed in rather than imported.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import EXACT_LIMIT, Confusion
from causalcost.errors import CausalCostError, OverflowInputError, ValidationError
from causalcost.evaluation.candidates import as_confusion, candidates_frame
from causalcost.pricing.bounds_many import bound_many, bound_many_from_rates
from causalcost.pricing.costs import error_transition_matrix, expected_cost_matrix
from causalcost.pricing.kinds import kinds_frame
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.instances import decide_instances, other_instances_advice

__all__ = ["COMPARE_COLUMNS", "PRIOR_Z", "coverage_text", "declared_names", "declared_rows",
           "rank_candidates",
           "ranking_disagreement"]

#: Columns of :func:`~causalcost.evaluation.comparison.compare`'s DataFrame.
COMPARE_COLUMNS: tuple[str, ...] = ("eval1", "eval2", "perfect_slot_cost", "expected_cost",
                                    "worst_cost", "best_cost", "rank")
#: Two-sided z beyond which a candidate's class fraction is flagged against the sheet's prior
#: (99.9 %).
PRIOR_Z = 3.29

#: :func:`causalcost.evaluation.report.evaluate`: one candidate's report.
Evaluate = Callable[..., Any]


def coverage_text(confidence: float, *, exact: bool = False) -> str:
    """The coverage of the high-confidence worst and best cases, in words.

    Examples
    --------
    >>> print(coverage_text(0.95))  # doctest: +NORMALIZE_WHITESPACE
    the real system cost on the candidate's instances stays below the high-confidence worst
    case with probability at least 95 %, and above the high-confidence best case with
    probability at least 95 %; both at once with probability at least 90 %
    """
    if exact:
        return ("on the sheet's own instances the worst and best cases are exact: the real "
                "system cost lies between them with certainty")
    both = max(0.0, 2 * confidence - 1)
    return (f"the real system cost on the candidate's instances stays below the high-confidence "
            f"worst case with probability at least {confidence:.0%}, and above the "
            f"high-confidence best case with probability at least {confidence:.0%}; both at "
            f"once with probability at least {both:.0%}").replace("%", " %")


def declared_names(names: list[str], same_instances: bool | Collection[str]) -> np.ndarray:
    """Per candidate: declared counted on the sheet's own rows (``True``, ``False`` or the
    names of those that were).

    >>> declared_names(["a", "b"], ["b"]).tolist()
    [False, True]
    """
    if isinstance(same_instances, (bool, np.bool_)):
        return np.full(len(names), bool(same_instances))
    if isinstance(same_instances, Collection) and not isinstance(same_instances, str):
        chosen = {str(n) for n in same_instances}
        unknown = sorted(chosen - set(names))
        if unknown:
            raise ValidationError(f"same_instances names {len(unknown)} candidate(s) not among "
                                  f"those compared: {unknown[:3]}")
        return np.array([n in chosen for n in names], dtype=bool)
    raise ValidationError("same_instances must be True, False or a collection of candidate "
                          f"names, got {same_instances!r}")


def declared_rows(sheet: CostSheet, names: list[str], same_instances: bool | Collection[str],
                  row_fingerprint: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate: declared the same instances, and the same instances (declared or proven
    by the row fingerprint). Validates the declaration against the sheet.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160),
    ...                                   cc.Confusion(0, 100, 0, 200), cc.CostMatrix(fn=5, fp=1),
    ...                                   slot="m", description="thesis set")
    >>> [v.tolist() for v in declared_rows(sheet, ["a", "b"], ["b"], None)]
    [[False, True], [False, True]]
    """
    declared = declared_names(names, same_instances)
    if not declared.any() and row_fingerprint is None:
        return declared, declared
    sp, sn = sheet.class_counts if sheet.class_counts is not None else (0, 0)
    proven = decide_instances(sheet, sp, sn, row_fingerprint=row_fingerprint).same \
        if row_fingerprint is not None else False
    if declared.any():  # refuses a sheet without forced runs, or a contradicting fingerprint
        decide_instances(sheet, sp, sn, same_instances=True, row_fingerprint=row_fingerprint)
    return declared, declared | proven


def ranking_disagreement(frame: pd.DataFrame) -> tuple[str, ...]:
    """A warning when ranking by a worst case would pick another candidate than ranking by
    expected cost (Eval1), with the reason: the widths of the two candidates' bounds.

    ``frame`` is :func:`rank_candidates`'s, best first; the high-confidence worst case is used
    when the frame holds it, else the plain worst case.
    """
    if len(frame) < 2:
        return ()
    column, low = (("high_confidence_worst_cost", "high_confidence_best_cost")
                   if "high_confidence_worst_cost" in frame.columns
                   else ("worst_cost", "best_cost"))
    worst = frame[column].to_numpy(dtype=float)
    best = frame[low].to_numpy(dtype=float)
    eval1 = frame["eval1"].to_numpy(dtype=float)
    if np.isnan(worst).any():
        return ()
    by_worst = int(np.lexsort((eval1, worst))[0])
    # equal up to rounding (rel 1e-9: costs summed in different orders) is no disagreement
    tol = 1e-9 * max(1.0, float(np.abs(worst[0])), float(np.abs(eval1[0])))
    if worst[by_worst] >= worst[0] - tol or eval1[by_worst] <= eval1[0] + tol:
        return ()  # the Eval1 winner is also first by the worst case, or they tie on Eval1
    name, first = frame.index[by_worst], frame.index[0]
    label = column.replace("_", " ")
    return (f"ranking by the {label} would put {name!r} first ({label} {worst[by_worst]:.6g}, "
            f"expected cost {eval1[by_worst]:.6g}) while {first!r} has the lowest expected cost "
            f"({eval1[0]:.6g}, {label} {worst[0]:.6g}): the worst case is not a ranking. "
            f"{name!r} has narrower bounds (from {best[by_worst]:.6g} to {worst[by_worst]:.6g}, "
            f"against {best[0]:.6g} to {worst[0]:.6g}); a near-constant candidate (one that "
            "nearly always says the same class) leaves the system little room to vary, so its "
            "worst case can be low while its expected cost is high. Rank by expected cost and "
            "use the high-confidence worst case as a guard against a bad surprise",)


def rank_candidates(sheet: CostSheet,
                    candidates: Mapping[str, Confusion | Mapping[str, float]] | pd.DataFrame,
                    evaluate: Evaluate, known_warnings: tuple[str, ...] = (), *,
                    same_instances: bool | Collection[str] = False,
                    row_fingerprint: str | None = None, confidence: float | None = None,
                    ) -> tuple[pd.DataFrame, tuple[str, ...], str]:
    """:func:`~causalcost.evaluation.comparison.compare`'s work (see there for the parameters).

    Returns
    -------
    (DataFrame, tuple of str, str)
        The ranked frame (columns :data:`COMPARE_COLUMNS`, best first), the warnings about the
        candidates (besides ``known_warnings``, the sheet's own), and the form of the worst
        and best cases: ``"counts"``, ``"probability"`` or ``"mixed"``.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=5, fp=1),
    ...                         slot="clinical_history", prior=1 / 3, monotonicity="declared",
    ...                         provenance={"source": "thesis §4"})
    >>> frame, warnings, form = rank_candidates(
    ...     sheet, {"coin": cc.Confusion(50, 50, 100, 100), "good": cc.Confusion(90, 10, 20, 180)},
    ...     cc.evaluate)
    >>> frame.index.tolist(), frame["rank"].tolist(), warnings, form
    (['good', 'coin'], [1, 2], (), 'probability')
    """
    if not isinstance(sheet, CostSheet):
        raise TypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    if not isinstance(candidates, (Mapping, pd.DataFrame)):
        raise TypeError(f"candidates must be a mapping of name to Confusion or a candidate "
                        f"frame (read_candidates_frame), got {type(candidates).__name__}")
    if len(candidates) == 0:
        raise ValidationError("no candidates to compare")
    if isinstance(candidates, Mapping):
        confusions = {name: as_confusion(c, name) for name, c in candidates.items()}
        frame = candidates_frame(confusions)
    else:
        confusions, frame = None, candidates_frame(candidates)
    names = frame.index.tolist()
    m = frame.to_numpy(dtype=float)
    declared, same = declared_rows(sheet, names, same_instances, row_fingerprint)

    def one(i: int, cells: Any) -> Any:
        return evaluate(sheet, cells if isinstance(cells, Confusion) else Confusion(*cells),
                        same_instances=bool(declared[i]), row_fingerprint=row_fingerprint)

    with np.errstate(invalid="ignore"):
        beyond = bool((np.abs(m) > EXACT_LIMIT).any())
    if beyond or not np.isfinite(m).all():
        rows = confusions or dict(zip(names, m.tolist()))
        costs, warnings, form = _scalar_costs(rows, one, known_warnings)
        # evaluated one at a time without a level: never ask for the level compare was given
        warnings = tuple(w.replace(other_instances_advice(None), other_instances_advice(
            confidence, "compare")) for w in warnings)
    else:
        costs, warnings, form = _vector_costs(sheet, names, m, one, same, confidence,
                                              row_fingerprint)
    return _ranked(names, costs), warnings, form


# ---------------------------------------------------------------------- one at a time
def _refuse(i: int, name: str, cells: Any, one: Evaluate) -> None:
    """Raise what :func:`evaluate` raises for this candidate, its name first."""
    try:
        one(i, cells)
    except CausalCostError as exc:
        raise type(exc)(f"candidate {name!r}: {exc}") from None


def _scalar_costs(rows: Mapping[str, Any], one: Evaluate,
                  known_warnings: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...], str]:
    out = np.empty((len(rows), 6))
    own = set(known_warnings)
    warnings: list[str] = []
    forms = set()
    for i, (name, cells) in enumerate(rows.items()):
        try:
            report = one(i, cells)
        except CausalCostError as exc:
            raise type(exc)(f"candidate {name!r}: {exc}") from None
        out[i] = report.to_series().to_numpy()
        forms.add(report.form)
        warnings += [f"candidate {name!r}: {w}" for w in report.warnings if w not in own]
    return out, tuple(warnings), forms.pop() if len(forms) == 1 else "mixed"


# ---------------------------------------------------------------------- all at once
def _refused_rows(sheet: CostSheet, m: np.ndarray, same: np.ndarray) -> np.ndarray:
    """Rows :func:`evaluate` refuses: no instances, a class a prior of 0 or 1 rules out, and
    on the sheet's own instances fractional counts in the count form or other class sizes."""
    total = m.sum(axis=1)
    bad = ~(total > 0) | (m < 0).any(axis=1)
    if sheet.class_counts is not None:
        sp, sn = sheet.class_counts
        bad |= same & ((m[:, 0] + m[:, 1] != float(sp)) | (m[:, 2] + m[:, 3] != float(sn)))
    if sheet.class_counts is None and sheet.prior is not None:
        prior = sheet.prior
        with np.errstate(all="ignore"):
            spread = np.sqrt(prior * (1 - prior) / total)
            bad |= (spread == 0) & ((m[:, 0] + m[:, 1]) / total != prior)
    if sheet.form == "counts":
        bad |= same & (m != np.round(m)).any(axis=1)
    return bad


def _shown(names: list[str], rows: np.ndarray) -> str:
    return ", ".join(repr(names[i]) for i in rows[:3]) + (", ..." if rows.size > 3 else "")


def _other_instances(sheet: CostSheet, names: list[str], m: np.ndarray, same: np.ndarray,
                     confidence: float | None, why: str) -> tuple[str, ...]:
    """One warning for the candidates taken as counted on other instances than the sheet's
    forced runs (as :func:`evaluate` warns for one)."""
    other = np.flatnonzero(~same)
    if sheet.class_counts is None or not other.size:
        return ()
    sp, sn = sheet.class_counts
    equal = (m[:, 0] + m[:, 1] == float(sp)) & (m[:, 2] + m[:, 3] == float(sn))
    counted = sheet.forced_p is not None and sheet.forced_n is not None
    if not counted:
        other = np.flatnonzero(~equal)
        if not other.size:
            return ()
    advice = other_instances_advice(confidence, "compare")
    text = (f"{other.size} candidate(s) ({_shown(names, other)}) are taken as counted on other "
            f"instances than the sheet's ({sp} positives, {sn} negatives) ({why}): their worst "
            "and best cases use the probability form on their own class sizes, exact only up to "
            "sampling error; " + advice)
    if counted and equal[other].any():
        text += ("; those counted on the very rows of the sheet's forced runs can be declared "
                 "(same_instances=..., --same-instances) for the exact count form")
    return (text,)


def _far_from_prior(sheet: CostSheet, names: list[str], m: np.ndarray) -> tuple[str, ...]:
    """One warning for the candidates whose class fraction is far from the sheet's prior."""
    if sheet.class_counts is not None or sheet.prior is None:
        return ()
    prior, total = sheet.prior, m.sum(axis=1)
    with np.errstate(all="ignore"):
        spread = np.sqrt(prior * (1 - prior) / total)
        z = ((m[:, 0] + m[:, 1]) / total - prior) / spread
    far = np.flatnonzero((spread != 0) & (np.abs(z) > PRIOR_Z))
    if not far.size:
        return ()
    return (f"{far.size} candidate(s) ({_shown(names, far)}) have a positive fraction far from "
            f"the sheet's prior {prior:.4g} (|z| > {PRIOR_Z}): they may come from another "
            "population than the sheet's rates",)


def _dot(cells: tuple[float, float, float, float], m: np.ndarray) -> np.ndarray:
    """``sum(cell cost x count)`` per row, summed left to right as ``np.dot`` does."""
    return ((cells[0] * m[:, 0] + cells[1] * m[:, 1]) + cells[2] * m[:, 2]) + cells[3] * m[:, 3]


def kinds_of(sheet: CostSheet) -> pd.DataFrame | None:
    """The instance kinds a sheet from data keeps in its monotonicity evidence, or None."""
    m = sheet.monotonicity
    if m is None or m.get("source") != "data" or not isinstance(m.get("kinds"), Mapping):
        return None
    return kinds_frame(m["kinds"]["P"], m["kinds"]["N"])


def _bounds(sheet: CostSheet, m: np.ndarray, same: np.ndarray) -> np.ndarray:
    """Worst and best cost per row: the count form on the sheet's own evaluation set, the
    probability form elsewhere (as :func:`evaluate` chooses)."""
    kwargs = {"assumption": sheet.assumption, "monotonicity": sheet.monotonicity_check}
    columns = ["worst_cost", "best_cost"]
    out = np.empty((len(m), 2))
    counted = same if sheet.form == "counts" else np.zeros(len(m), dtype=bool)
    kinds = kinds_of(sheet)
    if counted.any() and kinds is not None:  # exact for the sheet's own instances
        b = bound_many(models=m[counted], costs=sheet.costs, kinds=kinds)
        out[counted] = b[columns].to_numpy()
    elif counted.any():
        b = bound_many(sheet.forced_p, sheet.forced_n, m[counted], sheet.costs,  # type: ignore[arg-type]
                       **kwargs)
        out[counted] = b[columns].to_numpy()
    if not counted.all():
        b = bound_many_from_rates(sheet.rates, m[~counted], sheet.costs, **kwargs)
        out[~counted] = b[columns].to_numpy()
    return out


def _vector_costs(sheet: CostSheet, names: list[str], m: np.ndarray, one: Evaluate,
                  same: np.ndarray, confidence: float | None, row_fingerprint: str | None,
                  ) -> tuple[np.ndarray, tuple[str, ...], str]:
    for i in np.flatnonzero(_refused_rows(sheet, m, same))[:1]:
        _refuse(int(i), names[i], m[i].tolist(), one)
    # recomputed from the rates and costs, as evaluate_costs does
    c1 = expected_cost_matrix(sheet.rates, sheet.costs).cells()
    c2 = error_transition_matrix(sheet.rates, sheet.costs).cells()
    zero = np.zeros(len(m))
    perfect = np.column_stack([m[:, 0] + m[:, 1], zero, zero, m[:, 2] + m[:, 3]])
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            eval1 = _dot(c1, m)  # cost function 1 is also the bounds' expected cost
            out = np.column_stack([eval1, _dot(c2, m), _dot(c1, perfect), eval1,
                                   _bounds(sheet, m, same)])
    except CausalCostError:  # the same refusal from evaluate, naming a candidate
        with np.errstate(over="ignore"):
            scale = max(abs(c) for c in sheet.costs.cells()) * m.sum(axis=1)
        for i in (np.flatnonzero(~np.isfinite(scale)) if not np.isfinite(scale).all() else [0]):
            _refuse(int(i), names[i], m[i].tolist(), one)
        raise
    overflow = np.flatnonzero(~np.isfinite(out).all(axis=1))
    if overflow.size:
        i = int(overflow[0])
        _refuse(i, names[i], m[i].tolist(), one)
        raise OverflowInputError(
            f"candidate {names[i]!r}: its costs overflow float64 ({overflow.size} candidate(s) "
            "do); rescale the counts or the sheet's costs")
    form = "probability"
    if sheet.form == "counts" and same.any():
        form = "counts" if same.all() else "mixed"
    why = "probability form: instances not declared the same"
    if row_fingerprint is not None:  # validated by declared_rows
        sp, sn = sheet.class_counts or (0, 0)
        why = decide_instances(sheet, sp, sn, row_fingerprint=row_fingerprint).text()
    return out, (_other_instances(sheet, names, m, same, confidence, why)
                 + _far_from_prior(sheet, names, m)), form


def _ranked(names: list[str], costs: np.ndarray) -> pd.DataFrame:
    order = np.lexsort((costs[:, 4], costs[:, 0]))  # eval1, then worst_cost; stable
    costs = costs[order]
    key = costs[:, [0, 4]]
    new = np.ones(len(costs), dtype=bool)
    new[1:] = (key[1:] != key[:-1]).any(axis=1)
    rank = np.maximum.accumulate(np.where(new, np.arange(1, len(costs) + 1), 0))
    frame = pd.DataFrame(costs, columns=list(COMPARE_COLUMNS[:-1]),
                         index=pd.Index([names[i] for i in order], name="candidate", dtype=object))
    frame["rank"] = rank
    return frame
