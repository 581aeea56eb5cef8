"""Derive a sheet of any K labels from forced runs counted on data or from a table ``T``.

:func:`derive_labelled_sheet` is the general route behind :func:`causalcost.derive_sheet`,
:func:`causalcost.sheet_from_network` and :func:`causalcost.sheet_from_data` for inputs with
labels: forced runs ``F[j, c, s]`` (the sheet keeps them, their table and, optionally, the
response vectors) or an :class:`~causalcost.InterventionalTable` / array ``T[c, j, s]``
(probability form; a table keeps its method and intervals).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from causalcost.errors import MonotonicityError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.closed_forms import _check_assumption
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import created_now
from causalcost.sheet.evidence import _version, labelled_evidence

__all__ = ["derive_labelled_sheet"]


def labelled_source(table: Any, labels: Any) -> bool:
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
        With ``labels`` (written, like every sheet, as version 4).

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
        trials = np.broadcast_to(sizes[:, None, None], forced.shape).astype(float)
        table = InterventionalTable.from_array(source.rates(), labels=names, slot=slot,
                                               method="counts", counts=trials)
        found_kinds = source.response_kinds if kinds else None
        prov = {k: v for k, v in source.provenance.items() if k != "file"}
        prov["fusioner"] = source.fusioner.description
        prov.setdefault("source", "data")
        prov.setdefault("description", f"forced runs counted on {int(sizes.sum())} instances")
        matrix = cost_array(costs, names)
        if evidence is None:
            evidence = {"source": "data", "is_monotone": source.monotone_for(matrix)}
    else:
        names = tuple(str(v) for v in (labels if labels is not None
                                        else getattr(source, "labels", ()) or ()))
        slot = slot if slot is not None else getattr(source, "slot", None)
        table = source if isinstance(source, InterventionalTable) else as_table_array(source)
        if not names:
            raise ValidationError("labels= is required with a table given as an array")
        prov.update(source="unspecified", method=getattr(source, "method", "table"))
        matrix = cost_array(costs, names)
    if not isinstance(slot, str) or not slot:
        raise ValidationError("slot= is required (the model the sheet prices)")
    mono = labelled_evidence(evidence, matrix)
    if assumption == "monotone" and mono is None:
        raise MonotonicityError(
            "the monotone assumption needs evidence: pass the system's check for these costs "
            "(monotonicity=cc.check_monotonicity(system, costs)), count the sheet "
            "on data, or monotonicity='declared' to declare it as the system owner (reports "
            "will say it is unchecked); or use assumption='none'")
    prov.update(dict(provenance or {}))
    if assumption == "monotone" and found_kinds is None and mono is not None \
            and mono["is_monotone"] is False:  # (kinds: the sheet names the instances)
        raise MonotonicityError(
            "the monotone assumption is false for this system and these costs "
            f"({mono.get('source', 'network')} check: {mono.get('violation') or 'not monotone'}"
            "); use assumption='none'")
    return CostSheet(slot=slot, system_name=system_name, labels=names, costs=matrix,
                     table=table, assumption=assumption, forced=forced, kinds=found_kinds,
                     monotonicity=mono if assumption == "monotone" else None,
                     provenance=prov, created=created or created_now(),
                     causalcost_version=_version())


def multiclass_sheet(source: Any, costs: Any, **options: Any) -> CostSheet:
    """Deprecated: :func:`derive_sheet` (or :func:`derive_labelled_sheet`) for any K."""
    warnings.warn("multiclass_sheet is deprecated: use cc.derive_sheet(source, costs, ...) "
                  "(one sheet type for any number of labels)", DeprecationWarning, stacklevel=2)
    return derive_labelled_sheet(source, costs, **options)
