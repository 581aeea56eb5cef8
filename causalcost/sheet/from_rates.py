"""Derive a sheet from the slot's rates, a table or two forced runs: :func:`derive_sheet`.

:func:`derive_sheet` takes the rates (or a table) and the system's cost matrix, checks them
against the assumption and its evidence, and builds the sheet; inputs with labels (K-label
forced runs, a K-label table, an array ``T`` with ``labels=``) go to
:func:`causalcost.sheet.from_table.derive_labelled_sheet`. :func:`sheet_from_forced_runs` counts
the table of two forced runs of the real system (slot forced to P and to N).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pandas as pd

from causalcost.confusion import CLASSES, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.errors import (
    CausalCostWarning,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    ValidationError,
)
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.closed_forms import _check_assumption, _check_monotonicity, _rates_of
from causalcost.sheet.checks import _check_class_counts, _close, _is_probability, _same_rates
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import created_now
from causalcost.sheet.evidence import _monotonicity_dict, _version
from causalcost.sheet.from_table import derive_labelled_sheet, labelled_source

__all__ = ["derive_sheet", "sheet_from_forced_runs"]


def derive_sheet(
    table: InterventionalTable | ErrorRates,
    costs: CostMatrix,
    *,
    slot: str | None = None,
    system_name: str = "system",
    prior: float | None = None,
    class_counts: tuple[int, int] | None = None,
    forced_p: Confusion | None = None,
    forced_n: Confusion | None = None,
    assumption: str = "monotone",
    monotonicity: MonotonicityCheck | pd.DataFrame | Mapping[str, Any] | str | None = None,
    provenance: Mapping[str, Any] | None = None,
    labels: Any = None,
    kinds: bool = True,
    created: str | None = None,
) -> CostSheet:
    """Derive the cost sheet of a slot from its interventional rates and the system's costs.

    Parameters
    ----------
    table : InterventionalTable, ErrorRates, ForcedRuns, InterventionalTable or array (K, K, K)
        The slot's interventional table (kept, with its intervals) or just its rates. For K
        labels: forced runs counted with ``labels=`` (the sheet holds the runs, their rates and,
        with ``kinds=True``, the response vectors), a K-label table, or an array
        ``T[c, j, s]`` with ``labels=`` (see :func:`derive_labelled_sheet`).
    costs : CostMatrix or (K, K) matrix
        The system's cost matrix (for K labels ``C[c, s]``, rows the true class).
    slot : str, optional
        The slot's name; defaults to the table's (required with bare ``ErrorRates``).
    system_name : str, default "system"
        A label for the system.
    prior : float, optional
        ``P(Class = P)``; computed from ``class_counts`` when those are given.
    class_counts : (int, int), optional
        Positives and negatives of the evaluation set; candidates must then match them exactly.
        Taken from the forced runs when those are given.
    forced_p, forced_n : Confusion, optional
        The system's confusion with the slot forced to P / N on an evaluation set (counts). The
        sheet then uses the count-form worst case.
    assumption : {"monotone", "none"}
        What the worst and best cases rest on.
    monotonicity : MonotonicityCheck, DataFrame, dict or "declared", optional
        The evidence for the monotone assumption, stored in the sheet: the network's check
        (taken from a table computed from a network when not given), counted instance kinds
        (:func:`causalcost.count_kinds`, stored by :func:`data_evidence`), a data record
        ``{"source": "data", "is_monotone": ..., "right_only": n}``, or ``"declared"``: the
        system owner declares the system monotone, unchecked (every report then says so).
        ``assumption="monotone"`` without evidence is refused.
    provenance : dict, optional
        Where the rates come from, e.g. ``{"source": "data", "description": ..}``. Without it
        the sheet records ``{"source": "unspecified"}`` and a :class:`CausalCostWarning` says
        so; so does one when neither ``prior`` nor ``class_counts`` (nor forced runs) is given
        (the sheet then records no class sizes and candidates use their own).
    labels, kinds, created : optional
        For K labels (see :func:`derive_labelled_sheet`).

    Returns
    -------
    CostSheet

    Raises
    ------
    MonotonicityError
        If ``monotonicity`` says the system is not monotone and ``assumption="monotone"``.
    InfeasibleInputError
        If ``assumption="monotone"`` and ``e_P(P) > e_P(N)`` or ``e_N(N) > e_N(P)``, or the forced
        runs count different class totals.
    ValidationError
        For an unknown assumption, a missing or contradicting slot, class counts or prior, or
        forced runs whose rates differ from the table's.

    Examples
    --------
    Thesis §4, example 2 (OR fusioner), with prior 1/3:

    >>> import causalcost as cc
    >>> rates = cc.ErrorRates(0.0, 0.75, 1.0, 0.5)
    >>> sheet = derive_sheet(rates, cc.CostMatrix(fn=5, fp=1), slot="clinical_history",
    ...                      prior=1 / 3, monotonicity="declared",
    ...                      provenance={"source": "thesis §4, example 2"})
    >>> sheet.error_transition_matrix
    ModelCostMatrix(tp=0, fn=3.75, fp=0.5, tn=0, kind='transition')
    >>> derive_sheet(cc.ErrorRates(0.9, 0.1, 0.5, 0.5), cc.CostMatrix(), slot="m",
    ...              monotonicity="declared")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    causalcost.errors.InfeasibleInputError: with the slot forced to the correct class ...
    """
    if labelled_source(table, labels):
        return derive_labelled_sheet(table, costs, slot=slot, labels=labels,
                                     assumption=assumption, system_name=system_name,
                                     kinds=kinds, monotonicity=monotonicity,
                                     provenance=provenance, created=created)
    if isinstance(table, InterventionalTable):
        rates, kept = table.error_rates, table
        if slot is not None and slot != table.slot:
            raise ValidationError(f"slot {slot!r} differs from the table's slot {table.slot!r}")
        slot = table.slot
    elif isinstance(table, ErrorRates):
        rates, kept = table, None
        if slot is None:
            raise ValidationError("slot is required when deriving a sheet from bare ErrorRates")
    else:
        raise InputTypeError(f"table must be an InterventionalTable or ErrorRates, got "
                             f"{type(table).__name__}")
    if not isinstance(costs, CostMatrix):
        raise InputTypeError(f"costs must be a CostMatrix (e.g. CostMatrix(fn=5, fp=1); "
                             f"CostMatrix(**d) from a dict d), got {type(costs).__name__}")
    if not isinstance(slot, str) or not slot:
        raise ValidationError(f"slot must be a non-empty string, got {slot!r}")
    _check_assumption(assumption)
    if monotonicity is None and kept is not None:  # a table computed from a network
        monotonicity = kept.monotonicity
    mono = _monotonicity_dict(monotonicity)
    if mono is not None:  # the bounds' own refusal, so sheets and bounds say the same
        _check_monotonicity(SimpleNamespace(is_monotone=mono["is_monotone"],
                                            violation=mono.get("violation")), assumption)
    _rates_of(rates, assumption)
    if mono is None and assumption == "monotone":
        raise MonotonicityError(
            "the monotone assumption needs evidence: pass the network's check "
            "(monotonicity=cc.check_monotonicity(system)), data counts, or "
            "monotonicity='declared' to declare it as the system owner (reports will say it is "
            "unchecked); or use assumption='none'")
    counts = _class_counts_arg(class_counts)
    if (forced_p is None) != (forced_n is None):
        raise ValidationError("give both forced_p and forced_n, or neither")
    if forced_p is not None and forced_n is not None:
        for name, m in (("forced_p", forced_p), ("forced_n", forced_n)):
            if not isinstance(m, Confusion):
                raise InputTypeError(f"{name} must be a Confusion, got {type(m).__name__}")
        if (forced_p.positives, forced_p.negatives) != (forced_n.positives, forced_n.negatives):
            raise InfeasibleInputError(
                f"forced_p has {_fmt(forced_p.positives)} positives and "
                f"{_fmt(forced_p.negatives)} negatives but forced_n has "
                f"{_fmt(forced_n.positives)} and {_fmt(forced_n.negatives)}: count both forced "
                "runs on the same instances")
        totals = (int(forced_p.positives), int(forced_p.negatives))
        if counts is not None and counts != totals:
            raise ValidationError(f"class_counts {counts} differ from the forced runs' class "
                                  f"totals {totals}")
        counts = totals
        counted = ErrorRates.from_forced(forced_p, forced_n)
        if not _same_rates(counted, rates):
            raise ValidationError(f"the forced runs give {counted!r} but the table gives "
                                  f"{rates!r}: pass the table counted from these runs")
    if prior is not None:
        if not _is_probability(prior):
            raise ValidationError(f"prior must be a probability in [0, 1], got {prior!r}")
        prior = float(prior)
    if counts is not None:
        implied = counts[0] / sum(counts)
        if prior is not None and not _close(prior, implied):
            raise ValidationError(f"prior {prior:.6g} contradicts class_counts {counts} (which "
                                  f"imply {implied:.6g}); give one or make them agree")
        prior = implied
    _warn_unspecified(provenance, prior)
    if kept is None:  # bare rates: the table T of two labels, its method unknown
        from causalcost.sheet.legacy import rates_table

        kept = InterventionalTable.from_array(rates_table(rates), labels=CLASSES, slot=slot)
        detail = False
    else:
        detail = True
    return CostSheet(
        slot=slot, system_name=system_name, labels=kept.labels, costs=costs, table=kept,
        table_detail=detail,
        forced=None if forced_p is None or forced_n is None else [forced_p.matrix,
                                                                 forced_n.matrix],
        class_sizes=counts, class_prior=None if prior is None else (prior, 1.0 - prior),
        assumption=assumption, monotonicity=mono,
        provenance=dict(provenance) if provenance is not None else {"source": "unspecified"},
        created=created or created_now(), causalcost_version=_version(),
    )


def _warn_unspecified(provenance: Mapping[str, Any] | None, prior: float | None) -> None:
    """No silent defaults: say what the sheet will record as unknown."""
    if provenance is None:
        warnings.warn("derive_sheet: no provenance given, so the sheet records "
                      "{'source': 'unspecified'}; pass provenance={'source': 'data', "
                      "'description': ...} (sheet_from_network and sheet_from_forced_runs "
                      "record it themselves)", CausalCostWarning, stacklevel=3)
    if prior is None:
        warnings.warn("derive_sheet: no prior or class_counts given, so the sheet records no "
                      "class sizes and each candidate is evaluated on its own, unchecked against "
                      "the population the rates come from; pass prior= or class_counts=",
                      CausalCostWarning, stacklevel=3)


def _class_counts_arg(class_counts: object) -> tuple[int, int] | None:
    if class_counts is None:
        return None
    _check_class_counts(class_counts, ValidationError)
    p, n = class_counts  # type: ignore[misc]
    return int(p), int(n)


def sheet_from_forced_runs(
    forced_p: Confusion,
    forced_n: Confusion,
    costs: CostMatrix,
    *,
    slot: str,
    description: str,
    system_name: str = "system",
    assumption: str = "monotone",
    monotonicity: pd.DataFrame | Mapping[str, Any] | str | None = "declared",
    confidence: float = 0.95,
    interval_method: str = "wilson",
) -> CostSheet:
    """Derive a count-form sheet from two runs of the real system on one evaluation set.

    The table (with binomial intervals from statsmodels) is counted from the runs, the class
    counts are the runs' class totals, and candidates must be counted on the same instances.

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P and to N (integer counts).
    costs : CostMatrix
        The system's cost matrix.
    slot : str
        The slot's name.
    description : str
        What the evaluation set is (recorded as the provenance).
    system_name, assumption
        As in :func:`derive_sheet`.
    monotonicity : "declared", DataFrame, dict or None
        Two confusion matrices cannot show whether the system is monotone in the slot (only
        per-instance results can: pass their kinds, :func:`causalcost.count_kinds`), so by
        default the monotone assumption is recorded as the system owner's declaration, and
        every report says it is unchecked. Ignored with ``assumption="none"``.
    confidence, interval_method
        Level and method of the rates' intervals (``"wilson"`` or ``"clopper-pearson"``).

    Returns
    -------
    CostSheet

    Examples
    --------
    Thesis §4, example 1 counted on 100 positives and 200 negatives:

    >>> import causalcost as cc
    >>> sheet = sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
    ...                                cc.CostMatrix(fn=5, fp=1), slot="clinical_history",
    ...                                description="thesis §4 evaluation set")
    >>> sheet.class_counts, sheet.form
    ((100, 200), 'counts')
    >>> bool(sheet.to_frame().loc[("P", "P"), "ci_low"] < 0.2)
    True
    """
    table = InterventionalTable.from_forced(slot, forced_p, forced_n, confidence=confidence,
                                            interval_method=interval_method)
    return derive_sheet(table, costs, system_name=system_name, forced_p=forced_p,
                        forced_n=forced_n, assumption=assumption,
                        monotonicity=monotonicity if assumption == "monotone" else None,
                        provenance={"source": "data", "description": description})
