"""Derive a slot's cost sheet: the system owner's side of :mod:`causalcost.sheet.costsheet`.

The owner of the whole system derives the :class:`~causalcost.CostSheet` of a slot once,
in one of two ways:

* **from a network** (:func:`sheet_from_network`): the slot's interventional table is computed
  from the causal Bayesian network, exactly or by sampling (with binomial intervals); the
  network's monotonicity in the slot is checked and stored, so the monotone worst case is only
  used when it holds; the class prior is the network's ``P(Class = P)`` unless class counts or
  a prior are given; the provenance records the network file and its SHA-256;
* **from two forced runs of the real system** (:func:`sheet_from_forced_runs`): the system's
  confusion with the slot forced to P and to N on one evaluation set gives the table (with
  intervals) and the class counts, and the sheet then uses the count-form worst case; the
  provenance describes the data.

Both end in :func:`derive_sheet`, which takes the rates (or a table) and the system's cost
matrix, checks them against the assumption, and computes the two model cost matrices. The same
calls take K labels: a K-label system (:func:`sheet_from_network`), K-label forced runs or a
table ``T[c, j, s]`` with ``labels=`` (:func:`derive_sheet`) give a sheet with labels, and the
monotone assumption follows one rule for every K: it needs evidence (a check of the system for
these costs, the instances counted on data, or the owner's declaration) and is refused when the
evidence says it is false.

Examples
--------
>>> import causalcost as cc
>>> sheet = sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> sheet.expected_cost_matrix
ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')
>>> sheet.form, sheet.provenance["source"]
('probability', 'network')
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.errors import (
    CausalCostError,
    CausalCostWarning,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    NetworkStructureError,
    ValidationError,
)
from causalcost.inference.intervene import check_monotonicity
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.closed_forms import _check_assumption, _check_monotonicity, _rates_of
from causalcost.pricing.costs import error_transition_matrix, expected_cost_matrix
from causalcost.pricing.kinds import _read_kinds
from causalcost.pricing.witness import KINDS
from causalcost.sheet.checks import _check_class_counts, _close, _is_probability, _same_rates
from causalcost.sheet.costsheet import CostSheet

__all__ = [
    "data_evidence",
    "derive_labelled_sheet",
    "derive_sheet",
    "network_provenance",
    "sheet_from_forced_runs",
    "sheet_from_network",
]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    from causalcost import __version__  # late: the package imports this module

    return __version__


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
    if _labelled_source(table, labels):
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
    return CostSheet(
        slot=slot, system_name=system_name, rates=rates, table=kept, forced_p=forced_p,
        forced_n=forced_n, class_counts=counts, prior=prior, costs=costs,
        expected_cost_matrix=expected_cost_matrix(rates, costs),
        error_transition_matrix=error_transition_matrix(rates, costs),
        assumption=assumption, monotonicity=mono,
        provenance=dict(provenance) if provenance is not None else {"source": "unspecified"},
        created=created or _now(), causalcost_version=_version(),
    )


def _labelled_source(table: Any, labels: Any) -> bool:
    """Whether ``table`` (with ``labels``) is a K-label source."""
    from causalcost.data.runs import ForcedRuns

    if isinstance(table, ForcedRuns):
        return table.labels is not None
    if isinstance(table, InterventionalTable):
        return not table.is_binary or labels is not None
    if isinstance(table, ErrorRates):
        return False
    return labels is not None or getattr(table, "labels", None) is not None or isinstance(
        table, (np.ndarray, list, tuple))


def _labelled_evidence(m: Any, costs: np.ndarray) -> dict[str, Any] | None:
    """The evidence of a sheet with labels: a check of the system for ``costs``, a record,
    or the owner's declaration."""
    if m is None:
        return None
    if isinstance(m, str):
        return _monotonicity_dict(m)
    if hasattr(m, "is_monotone") and hasattr(m, "checked"):  # check_monotonicity
        return {"source": "network", "is_monotone": bool(m.is_monotone),
                "violation": m.violation, "checked": int(m.checked), "costs": costs.tolist()}
    if isinstance(m, Mapping) and isinstance(m.get("is_monotone"), bool):
        return dict(m)
    raise InputTypeError("monotonicity must be check_monotonicity(...), a record "
                         f"with is_monotone, or 'declared', got {type(m).__name__}")


def derive_labelled_sheet(
    source: Any, costs: Any, *, slot: str | None = None, labels: Any = None,
    assumption: str = "none", system_name: str = "system", kinds: bool = True,
    monotonicity: Any = None, provenance: Mapping[str, Any] | None = None,
    created: str | None = None,
) -> CostSheet:
    """Derive a sheet with labels (any K) from forced runs (data) or an interventional table.

    Reached through :func:`derive_sheet`, :func:`sheet_from_network` and
    :func:`causalcost.sheet_from_data` with K-label inputs.

    Parameters
    ----------
    source : ForcedRuns, InterventionalTable or array (K, K, K)
        Forced runs counted with ``labels=`` (the sheet holds the runs, their rates and, with
        ``kinds=True``, the response vectors), or a table ``T[c, j, s]`` (probability form).
    costs : (K, K) matrix, DataFrame or object with ``to_numpy()``
        ``C[c, s]`` (rows the true class); labelled costs are matched to the labels by name.
    slot, labels : optional
        Taken from the runs or the table; required for a bare array.
    assumption : {"none", "monotone"}
        ``"monotone"`` needs evidence and is refused when it is false: the runs' own instances
        (for these costs), ``monotonicity`` (``check_monotonicity(system, costs)``,
        a record, or ``"declared"``).
    system_name : str
    kinds : bool
        Keep the runs' response vectors (exact kinds bound for candidates counted on the same
        instances).
    monotonicity : optional
        The evidence for a table (see ``assumption``).
    provenance : mapping, optional
        Where the numbers come from (merged over the runs' provenance).
    created : str, optional
        ISO timestamp (default: now, UTC).

    Returns
    -------
    CostSheet
        With ``labels``; written as version 3.

    Raises
    ------
    ValidationError
        Missing slot or labels, a class the runs never saw, costs of the wrong shape.
    MonotonicityError
        ``assumption="monotone"`` without evidence, or with evidence that it is false.

    Examples
    --------
    >>> import numpy as np, pandas as pd, causalcost as cc
    >>> df = pd.DataFrame({"y": list("abcabc"), "m1": list("abcaba"), "m2": list("abbcbc"),
    ...                    "m3": list("aacabc")})
    >>> runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
    ...                       fusioner="plurality", labels=["a", "b", "c"])
    >>> sheet = derive_labelled_sheet(runs, 1 - np.eye(3), created="2026-01-01T00:00:00+00:00")
    >>> sheet.form, sheet.class_sizes.tolist(), sheet.assumption
    ('counts', [2, 2, 2], 'none')
    """
    from causalcost.data.runs import ForcedRuns, cost_array
    from causalcost.pricing.inputs import as_table_array

    _check_assumption(assumption)
    prov: dict[str, Any] = {}
    forced = found_kinds = None
    evidence: Any = monotonicity
    if isinstance(source, ForcedRuns):
        if source.labels is None:
            raise ValidationError("binary forced runs give a binary sheet: use "
                                  "cc.sheet_from_data(runs, costs)")
        names = source.label_names
        if labels is not None and tuple(str(v) for v in labels) != names:
            raise ValidationError(f"labels {list(labels)} differ from the runs' labels "
                                  f"{list(names)}")
        if slot is not None and slot != source.slot:
            raise ValidationError(f"slot {slot!r} differs from the runs' slot {source.slot!r}")
        slot = source.slot
        forced = np.asarray(source.forced)
        sizes = forced[0].sum(axis=1)
        empty = [names[c] for c in range(len(names)) if sizes[c] == 0]
        if empty:
            raise ValidationError(f"the runs hold no instance of class {empty[0]!r}, so its "
                                  "rates are unknown; count the runs on data with every class")
        table = source.rates()
        found_kinds = source.response_kinds if kinds else None
        prov = {k: v for k, v in source.provenance.items() if k != "file"}
        prov["fusioner"] = source.fusioner.description
        matrix = cost_array(costs, names)
        if evidence is None:
            evidence = {"source": "data", "is_monotone": source.monotone_for(matrix)}
    else:
        names = tuple(str(v) for v in (labels if labels is not None
                                        else getattr(source, "labels", ()) or ()))
        slot = slot if slot is not None else getattr(source, "slot", None)
        table = as_table_array(source)
        if not names:
            raise ValidationError("labels= is required with a table given as an array")
        prov["method"] = getattr(source, "method", "table")
        matrix = cost_array(costs, names)
    if not isinstance(slot, str) or not slot:
        raise ValidationError("slot= is required (the model the sheet prices)")
    mono = _labelled_evidence(evidence, matrix)
    if assumption == "monotone" and mono is None:
        raise MonotonicityError(
            "the monotone assumption needs evidence: pass the system's check for these costs "
            "(monotonicity=cc.check_monotonicity(system, costs)), count the sheet "
            "on data, or monotonicity='declared' to declare it as the system owner (reports "
            "will say it is unchecked); or use assumption='none'")
    prov.update(dict(provenance or {}))
    return CostSheet.labelled(slot=slot, system_name=system_name, labels=names, costs=matrix,
                              table=table, assumption=assumption, forced=forced,
                              kinds=found_kinds,
                              monotonicity=mono if assumption == "monotone" else None,
                              provenance=prov, created=created or _now(),
                              causalcost_version=_version())


def multiclass_sheet(source: Any, costs: Any, **options: Any) -> CostSheet:
    """Deprecated: :func:`derive_sheet` (or :func:`derive_labelled_sheet`) for any K."""
    warnings.warn("multiclass_sheet is deprecated: use cc.derive_sheet(source, costs, ...) "
                  "(one sheet type for any number of labels)", DeprecationWarning, stacklevel=2)
    return derive_labelled_sheet(source, costs, **options)


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


#: The owner's declaration, when no check backs the monotone assumption.
DECLARED = {"source": "declared", "by": "system owner", "is_monotone": True}


def _monotonicity_dict(m: MonotonicityCheck | pd.DataFrame | Mapping[str, Any] | str | None,
                       ) -> dict[str, Any] | None:
    """The evidence as stored: a network check, data counts, or the declaration."""
    if m is None:
        return None
    if isinstance(m, str):
        if m != "declared":
            raise ValidationError(f"monotonicity ({m!r}) must be a MonotonicityCheck, its "
                                  "to_dict(), a data record or 'declared'")
        return dict(DECLARED)
    if isinstance(m, pd.DataFrame):
        return data_evidence(m)
    if isinstance(m, MonotonicityCheck):
        return {"source": "network", **m.to_dict()}
    if isinstance(m, Mapping) and isinstance(m.get("is_monotone"), bool):
        return {"source": "network", **m} if "source" not in m else dict(m)
    raise InputTypeError("monotonicity must be a MonotonicityCheck, its to_dict(), a data "
                         f"record or 'declared', got {type(m).__name__}")


def data_evidence(kinds: pd.DataFrame) -> dict[str, Any]:
    """The monotonicity evidence of counted instance kinds (:func:`causalcost.count_kinds`).

    The system is monotone in the slot on these instances when none of them fails only
    because the slot is right (no ``right_only`` instance). The record keeps the kinds, so a
    sheet shows what its assumption rests on.

    Examples
    --------
    >>> import causalcost as cc
    >>> kinds = cc.kinds_frame({"never": 70, "wrong_only": 20, "always": 10},
    ...                        {"never": 180, "wrong_only": 15, "always": 5})
    >>> e = data_evidence(kinds)
    >>> e["source"], e["is_monotone"], e["right_only"]
    ('data', True, 0)
    """
    counts = _read_kinds(kinds)
    right_only = sum(c[KINDS.index("right_only")] for c in counts.values())
    return {"source": "data", "is_monotone": right_only == 0, "right_only": right_only,
            "kinds": {cls: dict(zip(KINDS, c)) for cls, c in counts.items()}}


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


def network_provenance(spec: str | Path) -> dict[str, Any]:
    """``{"source": "network", "network": .., "file": .., "sha256": ..}`` of a network file.

    Examples
    --------
    >>> p = network_provenance("thesis_and")
    >>> p["source"], p["file"], p["sha256"].startswith("sha256:")
    ('network', 'thesis_and.toml', True)
    """
    from causalcost.network.netfile import file_digest, network_path

    path = network_path(spec)
    return {"source": "network", "network": path.stem, "file": path.name,
            "sha256": file_digest(path)}


def sheet_from_network(
    network: Any,
    costs: CostMatrix,
    *,
    slot: str | None = None,
    method: str = "exact",
    samples: int = 100_000,
    seed: int | None = None,
    prior: float | None = None,
    class_counts: tuple[int, int] | None = None,
    assumption: str = "monotone",
    check: bool = True,
    confidence: float = 0.95,
    interval: str = "wilson",
    provenance: Mapping[str, Any] | None = None,
) -> CostSheet:
    """Derive a sheet from a network file, a shipped network's stem, or a :class:`System`.

    The table is computed with :func:`causalcost.interventional_table`; the network's
    monotonicity is checked (when every node between slot and system prediction is
    deterministic) and stored; without ``prior`` and ``class_counts`` the prior is the network's
    ``P(Class = P)``. For a file, the provenance records its name and SHA-256.

    Parameters
    ----------
    network : str, Path or System
        A binary or a K-label system (a K-label network file, or a system built with
        ``labels=``): the latter gives a sheet with labels, its monotonicity checked for
        ``costs`` (:func:`causalcost.check_monotonicity`).
    costs : CostMatrix or (K, K) matrix
        For K labels ``C[c, s]`` (rows the true class; labelled costs matched by name).
    slot : str, optional
        Defaults to the network's slot.
    method, samples, seed
        As in :func:`causalcost.interventional_table`.
    prior, class_counts, assumption
        As in :func:`derive_sheet`.
    check : bool, default True
        Run :func:`causalcost.check_monotonicity`. With ``check=False`` and the monotone
        assumption, the sheet records it as the system owner's declaration (unchecked, and every
        report says so).

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> round(sheet.prior, 12), sheet.monotonicity["is_monotone"], sheet.provenance["file"]
    (0.333333333333, True, 'thesis_and.toml')
    """
    from causalcost.inference.exact import class_prior
    from causalcost.inference.query import interventional_table
    from causalcost.network.netfile import load_network
    from causalcost.network.system import System

    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValidationError(f"seed ({seed!r}) must be a non-negative integer or None: the sheet "
                              "records it so that the table can be sampled again")
    if getattr(network, "declaration", None) is not None:
        network = network if slot is None else network.with_slot(slot)
        return _labelled_from_network(
            network, costs, {"source": "network", "network": network.name,
                             "description": "built in Python (no network file)"},
            method=method, samples=samples, seed=seed, assumption=assumption, check=check,
            confidence=confidence, interval=interval, provenance=provenance)
    if isinstance(network, System):
        system = network if slot is None else network.with_slot(slot)
        source: dict[str, Any] = {"source": "network", "network": system.name,
                                  "description": "built in Python (no network file)"}
    elif isinstance(network, (str, Path)):
        system = load_network(network, slot=slot)
        source = network_provenance(network)
        source["network"] = system.name
        if getattr(system, "declaration", None) is not None:  # a K-label network file
            return _labelled_from_network(
                system, costs, source, method=method, samples=samples, seed=seed,
                assumption=assumption, check=check, confidence=confidence, interval=interval,
                provenance=provenance)
    else:
        raise InputTypeError(f"network must be a path, a shipped network name or a System, "
                             f"got {type(network).__name__}")
    if provenance is not None:
        source = dict(provenance)
    slot = system.require_slot()  # validated above (with_slot / load_network): read it
    table = interventional_table(system, slot, method=method, samples=samples, seed=seed,
                                 confidence=confidence, interval=interval)
    monotonicity: MonotonicityCheck | str | None = None
    if check:
        try:
            monotonicity = check_monotonicity(system, slot)
        except NetworkStructureError as exc:
            if assumption == "monotone":
                raise MonotonicityError(
                    f"cannot verify the monotone assumption: {exc}. Pass assumption='none' "
                    "(--assumption none) "
                    "(assumption-free bounds), or check=False to assume monotonicity unverified"
                ) from None
    if not check and assumption == "monotone" and table.monotonicity is None:
        monotonicity = "declared"  # assumed unverified, as asked: every report says so
    if prior is None and class_counts is None:
        prior = class_prior(system)
    return derive_sheet(table, costs, system_name=system.name, prior=prior,
                        class_counts=class_counts, assumption=assumption,
                        monotonicity=monotonicity, provenance=source)


def _labelled_from_network(system: Any, costs: Any, source: dict[str, Any], *, method: str,
                           samples: int, seed: int | None, assumption: str, check: bool,
                           confidence: float, interval: str,
                           provenance: Mapping[str, Any] | None) -> CostSheet:
    """:func:`sheet_from_network` for a K-label system (its file already read)."""
    from causalcost.data.runs import cost_array
    from causalcost.inference.query import interventional_table
    from causalcost.pricing.monotonicity import check_monotonicity

    if provenance is not None:
        source = dict(provenance)
    slot = system.require_slot()
    matrix = cost_array(costs, system.labels)
    table = interventional_table(system, slot, method=method, samples=samples, seed=seed,
                                 confidence=confidence, interval=interval)
    evidence: Any = None
    if check:
        try:
            evidence = check_monotonicity(system, matrix, slot)
        except CausalCostError as exc:
            if assumption == "monotone":
                raise MonotonicityError(
                    f"cannot verify the monotone assumption: {exc}. Pass assumption='none' "
                    "(assumption-free bounds), or check=False to assume monotonicity "
                    "unverified") from None
    elif assumption == "monotone":
        evidence = "declared"  # assumed unverified, as asked: every report says so
    return derive_labelled_sheet(table, matrix, slot=slot, labels=system.labels,
                                 assumption=assumption, system_name=system.name,
                                 monotonicity=evidence, provenance=source)
