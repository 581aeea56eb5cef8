"""A cost sheet's fields, normalised and checked against each other, for any number of labels.

Every :class:`~causalcost.sheet.costsheet.CostSheet` passes :func:`normalise` (each field in
its one stored form: the labels a K-tuple, the costs a :class:`~causalcost.CostMatrix` over
the labels, the table an :class:`~causalcost.InterventionalTable`, the forced runs
``F[j, c, s]`` integer counts, the kinds, the class sizes and the prior per class) and then
:func:`check_sheet` (the fields agree: the forced runs count the same instances in every run
and give the table, the kinds give the forced runs, the class sizes are the runs' and imply
the prior, the monotone assumption has evidence that does not contradict it). A sheet of two
labels also passes the binary checks of :mod:`causalcost.sheet.checks` (the rates' monotone
order, data evidence counted per kind, a counted table's intervals). Failures raise
:class:`~causalcost.errors.SheetError` (or :class:`~causalcost.errors.MonotonicityError`),
naming the field.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> sheet = cc.derive_sheet(np.stack([np.eye(3)] * 3), 1 - np.eye(3), slot="m",
...                         labels=["a", "b", "c"], assumption="none",
...                         created="2026-01-01T00:00:00+00:00")
>>> type(sheet.table).__name__, sheet.costs.labels
('InterventionalTable', ('a', 'b', 'c'))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from causalcost.confusion import CLASSES, CostMatrix
from causalcost.errors import (
    CausalCostError,
    MonotonicityError,
    SheetError,
    ValidationError,
)
from causalcost.inference.table import InterventionalTable
from causalcost.pricing.bounds import ASSUMPTIONS
from causalcost.sheet.checks import (
    EVIDENCE_SOURCES,
    _check_binary,
    _check_created,
    _check_evidence,
    _check_provenance,
    _close,
    evidence_source,
)

__all__ = ["TOLERANCE", "check_sheet", "normalise"]

#: Tolerance between a sheet's table and the rates of its forced runs, and between the prior
#: and the class sizes.
TOLERANCE = 1e-9


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _labels(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise SheetError(f"field 'labels' must be a list of label names, got {value!r}")
    labels = tuple(str(v) for v in value)
    if len(labels) < 2 or len(set(labels)) != len(labels) or not all(labels):
        raise SheetError(f"field 'labels' must be at least 2 distinct non-empty names, got "
                         f"{list(labels)}")
    return labels


def _costs(value: Any, labels: tuple[str, ...]) -> CostMatrix:
    """The costs as a :class:`CostMatrix` over ``labels`` (labelled costs matched by name; a
    binary ``CostMatrix(fn=.., fp=..)`` names its cells by position, positive first)."""
    from causalcost.data.runs import cost_array

    if isinstance(value, CostMatrix):
        if value.labels == labels:
            return value
        if value.k == 2 == len(labels) and value.labels == CLASSES:
            return CostMatrix(value.matrix, labels=labels)
    try:
        return CostMatrix(cost_array(value, labels), labels=labels)
    except SheetError:
        raise
    except (CausalCostError, TypeError, ValueError) as exc:
        raise SheetError(f"field 'costs': {exc}") from None


def _table(value: Any, labels: tuple[str, ...], slot: str) -> InterventionalTable:
    """The table as an :class:`InterventionalTable` over ``labels`` (a bare ``T[c, j, s]`` is
    wrapped: its method is then unknown, see ``CostSheet.table_detail``)."""
    if isinstance(value, InterventionalTable):
        if value.labels != labels:
            if not (value.k == 2 == len(labels) and value.labels == CLASSES):
                raise SheetError(f"field 'table' is over labels {list(value.labels)}, the sheet "
                                 f"over {list(labels)}")
            value = replace(value, labels=labels)  # the same cells, positive first
        return value
    from causalcost.pricing.inputs import as_table_array

    try:
        t = as_table_array(value)
        return InterventionalTable.from_array(t, labels=labels, slot=slot)
    except (CausalCostError, TypeError, ValueError) as exc:
        raise SheetError(f"field 'table': {exc}") from None


def _trials(table: InterventionalTable) -> np.ndarray:
    """The trials behind each cell of ``T[c, j, s]`` (the instances of class c in run j)."""
    assert table.counts is not None
    if table.is_binary:
        n = table.counts[:, :, 0]
        return np.repeat(n[:, :, None], 2, axis=2)
    return np.asarray(table.counts)


def _counts(name: str, value: Any, ndim: int, k: int) -> np.ndarray:
    from causalcost.pricing.inputs import check_counts

    try:
        arr = check_counts(name, value, ndim, k, integer=True)
    except (CausalCostError, TypeError, ValueError) as exc:
        raise SheetError(f"field {name!r}: {exc}") from None
    if any(int(v) > 2**53 for v in arr.flat):
        raise SheetError(f"field {name!r}: counts beyond 2**53 are not counts a float "
                         "represents exactly")
    return _frozen(np.asarray(arr.tolist(), dtype=np.int64))


def normalise(s: Any) -> dict[str, Any]:
    """The sheet's fields in their stored form (a dict of the fields that change)."""
    if not isinstance(s.slot, str) or not s.slot:
        raise SheetError(f"field 'slot' must be a non-empty string, got {s.slot!r}")
    for name in ("system_name", "assumption", "created", "causalcost_version"):
        if not isinstance(getattr(s, name), str):
            raise SheetError(f"field {name!r} must be a string, got {getattr(s, name)!r}")
    labels = _labels(s.labels)
    k = len(labels)
    out: dict[str, Any] = {"labels": labels, "costs": _costs(s.costs, labels),
                           "table": _table(s.table, labels, s.slot)}
    forced = None if s.forced is None else _counts("forced_runs", s.forced, 3, k)
    out["forced"] = forced
    if s.kinds is not None:
        from causalcost.pricing.responses import read_kinds

        try:
            out["kinds"] = read_kinds(s.kinds, k, labels)
        except (CausalCostError, TypeError, ValueError) as exc:
            raise SheetError(f"field 'kinds': {exc}") from None
    sizes = s.class_sizes
    if sizes is None and forced is not None:
        sizes = forced[0].sum(axis=1)
    if sizes is not None:
        sizes = _counts("class_counts", sizes, 1, k)
        if sizes.sum() <= 0:
            raise SheetError(f"field 'class_counts' must not all be zero, got {sizes.tolist()}")
    out["class_sizes"] = sizes
    prior = s.class_prior
    if prior is None and sizes is not None:
        prior = sizes / sizes.sum()
    if prior is not None:
        arr = np.asarray(prior, dtype=float) if not isinstance(prior, (str, bytes)) else None
        if arr is None or arr.shape != (k,) or not np.all(np.isfinite(arr)) or arr.min() < 0 \
                or arr.max() > 1 or abs(arr.sum() - 1) > TOLERANCE:
            raise SheetError(f"field 'prior' must be a probability per label ({k} numbers in "
                             f"[0, 1] adding up to 1), got {prior!r}")
        prior = _frozen(np.array(arr))
    out["class_prior"] = prior
    out["provenance"] = dict(s.provenance)
    out["monotonicity"] = None if s.monotonicity is None else dict(s.monotonicity)
    return out


def check_sheet(s: Any) -> None:
    """The normalised fields agree with each other (SheetError or MonotonicityError)."""
    bad = "tampered or inconsistent sheet: "
    if s.assumption not in ASSUMPTIONS:
        raise SheetError(f"field 'assumption' ({s.assumption!r}) must be one of 'monotone' or "
                         "'none'")
    _check_created(s.created)
    # version 3 sheets recorded provenance without a source (version 4 writes "unspecified")
    _check_provenance(s.provenance if s.read_version != 3 else
                      {"source": "unspecified", **s.provenance})
    if s.table.slot != s.slot:
        raise SheetError(f"{bad}'table' is for slot {s.table.slot!r}, the sheet ('slot') for "
                         f"{s.slot!r}")
    table = s.table.to_numpy()
    k = len(s.labels)
    if table.shape != (k, k, k):
        raise SheetError(f"field 'table' must be T[c, j, s] of shape {(k, k, k)}, got "
                         f"{table.shape}")
    if s.forced is not None:
        runs = s.forced.sum(axis=2)  # [j, c]
        if not (runs == runs[0]).all():
            raise SheetError(f"{bad}'forced_runs': every forced run must count the same instances: "
                             f"the class sizes differ between runs ({runs.tolist()})")
        if not np.array_equal(runs[0], s.class_sizes):
            raise SheetError(f"{bad}'class_counts' {s.class_sizes.tolist()} must equal the "
                             f"class totals of 'forced_runs' ({runs[0].tolist()})")
        rates = s.forced / np.where(runs[:, :, None] > 0, runs[:, :, None], 1)
        seen = np.transpose(runs > 0)[:, :, None]  # [c, j]: a class the runs saw
        if not np.allclose(np.where(seen, np.transpose(rates, (1, 0, 2)), table), table,
                           atol=TOLERANCE):
            raise SheetError(f"{bad}'table' differs from the rates of 'forced_runs'")
    if s.kinds is not None and (s.forced is None or not np.array_equal(
            np.asarray(s.kinds.forced().tolist(), dtype=np.int64), s.forced)):
        raise SheetError(f"{bad}'kinds' must imply the sheet's 'forced_runs' (they are "
                         "counted on the same instances)")
    if s.class_sizes is not None and s.class_prior is not None:
        implied = s.class_sizes / s.class_sizes.sum()
        if not all(_close(a, b) for a, b in zip(implied, s.class_prior)):
            raise SheetError(f"{bad}'prior' {s.class_prior.tolist()} differs from the class "
                             f"counts' {implied.tolist()}")
    m = s.monotonicity
    if m is not None:
        _check_evidence(m, binary=k == 2)
        if m.get("slot") is not None and m.get("slot") != s.slot:
            raise SheetError(f"{bad}the monotonicity evidence is for slot {m.get('slot')!r}, "
                             f"the sheet for {s.slot!r}")
    if k == 2:
        _check_binary(s, bad)
    if s.assumption == "monotone":
        _check_monotone(s, m)


def _check_monotone(s: Any, m: Mapping[str, Any] | None) -> None:
    """The monotone assumption rests on evidence that does not contradict it."""
    if m is None and s.read_version == 3:  # written before version 3 stored the evidence
        return
    if m is None:
        raise SheetError(
            "assumption 'monotone' needs evidence in 'monotonicity': the network's exact "
            "check, data with no right_only instance, or the system owner's declaration "
            "({'source': 'declared', 'by': 'system owner', 'is_monotone': true}); derive "
            "the sheet again, or use assumption 'none'")
    costs = s.costs.to_numpy()
    labels = s.labels
    if s.kinds is not None:
        for (c, r), n in s.kinds.counts.items():
            if any(costs[c, r[c]] > costs[c, out] for out in r):
                raise MonotonicityError(
                    f"{n} instance(s) of class {labels[c]!r} have response vector "
                    f"{[labels[out] for out in r]}: forced to the right label the system "
                    "costs more than forced to another, so the monotone assumption "
                    "fails on the sheet's own data; use assumption='none'")
    if m["is_monotone"] is False:
        source = evidence_source(m)
        detail = (f"right_only {m.get('right_only')}" if "right_only" in m
                  else f"violation {m.get('violation')}")
        raise MonotonicityError(
            "tampered or inconsistent sheet: 'assumption' is 'monotone' but the "
            f"{source} check found the system is not monotone in the slot "
            f"('monotonicity.is_monotone' false, {detail}); use assumption='none'")
    if s.k > 2 and np.any(s.m2 < -TOLERANCE * max(1.0, float(np.abs(s.m1).max()))):
        c, j = (int(v) for v in np.argwhere(s.m2 < 0)[0])
        raise SheetError(
            "tampered or inconsistent sheet: 'assumption' is 'monotone' but forcing the slot "
            f"to the true class {labels[c]!r} costs more on average than forcing it to "
            f"{labels[j]!r} (M2[{c}, {j}] = {s.m2[c, j]:.6g} < 0): no system monotone in the "
            "slot for these costs has this 'table'; use assumption='none'")
    if m.get("costs") is not None and not np.array_equal(
            np.asarray(m["costs"], dtype=float), costs):
        raise MonotonicityError(
            "the monotonicity check was made for other costs than the sheet's (for K "
            "labels it depends on the costs): check the system again with these costs "
            "(derive the sheet from the system), or use assumption='none'")
    if evidence_source(m) not in EVIDENCE_SOURCES:  # pragma: no cover - checked above
        raise ValidationError(f"unknown evidence source {evidence_source(m)!r}")
