"""Sheet format version 4: one JSON layout for every number of labels.

A version 4 sheet is a JSON object with the fields (``null`` where unknown)::

    format, version (4), created, causalcost_version, slot, system_name, provenance,
    labels            the K labels (binary: ["P", "N"], positive first)
    assumption        "monotone" or "none"
    monotonicity      the evidence for the monotone assumption, or null
    costs             C[c][s], rows the true class
    table             {"T": T[c][j][s], "method": "exact" | "sampling" | "counts" | null,
                       and when known "n" (instances of class c in run j, n[c][j]),
                       "ci_low", "ci_high" (like T), "confidence", "interval_method",
                       "seed", "samples"}
    forced_runs       F[j][c][s] counts, or null
    kinds             [{"class", "response", "count"}, ...], or null
    class_counts      instances per class, or null
    prior             P(Class = c) per class, or null
    derived           {"expected_cost_matrix": M1[c][j], "error_transition_matrix": M2[c][j]}
    digest            {"sha256": "sha256:<hex>"} of every field above
    signature         the owner's Ed25519 signature over the digest, or null

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> d = content_v4(sheet)
>>> d["labels"], d["costs"], d["table"]["T"][0]
(['P', 'N'], [[0.0, 5.0], [1.0, 0.0]], [[0.8, 0.2], [0.0, 1.0]])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from causalcost.errors import SheetError
from causalcost.inference.table import InterventionalTable
from causalcost.sheet.legacy import kind_records, kinds_json
from causalcost.sheet.schema import (
    SHEET_FORMAT,
    SHEET_VERSION,
    _fields,
    _guard,
    _numbers,
    _real,
    _string,
    check_derived,
    check_digest,
    common_fields,
)

__all__ = ["content_v4", "fields_v4"]

_REQUIRED = ("format", "version", "created", "causalcost_version", "slot", "system_name",
             "provenance", "labels", "assumption", "monotonicity", "costs", "table",
             "forced_runs", "kinds", "class_counts", "prior", "derived", "digest")
_OPTIONAL = ("signature",)
_TABLE_OPTIONAL = ("n", "ci_low", "ci_high", "confidence", "interval_method", "seed",
                   "samples")


def _table_json(s: Any) -> dict[str, Any]:
    t: InterventionalTable = s.table
    out: dict[str, Any] = {"T": t.to_numpy().tolist(),
                           "method": t.method if s.table_detail else None}
    if not s.table_detail:
        return out
    if t.counts is not None:
        from causalcost.sheet.validation import _trials

        out["n"] = [[int(v) for v in row] for row in _trials(t)[:, :, 0]]
    if t.lower is not None and t.upper is not None:
        out.update(ci_low=t.low.tolist(), ci_high=t.high.tolist(),  # type: ignore[union-attr]
                   confidence=t.confidence, interval_method=t.interval_method)
    for key in ("seed", "samples"):
        if getattr(t, key) is not None:
            out[key] = int(getattr(t, key))
    return out


#: The evidence a version 4 file records for a version 3 sheet that assumed monotonicity
#: without recording why (version 3 made the evidence optional): an unchecked declaration.
V3_DECLARATION = {"source": "declared", "by": "the issuer of a version 3 sheet (no evidence "
                  "recorded)", "is_monotone": True}


def _evidence(s: Any) -> dict[str, Any] | None:
    if s.monotonicity is not None:
        return dict(s.monotonicity)
    return dict(V3_DECLARATION) if s.assumption == "monotone" else None


def content_v4(s: Any) -> dict[str, Any]:
    """Every field of the sheet but digest and signature, as version 4 writes it."""
    return {
        "format": SHEET_FORMAT, "version": SHEET_VERSION, "created": s.created,
        "causalcost_version": s.causalcost_version, "slot": s.slot,
        "system_name": s.system_name,
        "provenance": {"source": "unspecified", **s.provenance},  # version 3 had none
        "labels": list(s.labels), "assumption": s.assumption,
        "monotonicity": _evidence(s),
        "costs": s.costs_array.tolist(), "table": _table_json(s),
        "forced_runs": None if s.forced is None else s.forced.tolist(),
        "kinds": kinds_json(s),
        "class_counts": None if s.class_sizes is None else s.class_sizes.tolist(),
        "prior": None if s.class_prior is None else s.class_prior.tolist(),
        "derived": {"expected_cost_matrix": s.m1.tolist(),
                    "error_transition_matrix": s.m2.tolist()},
    }


def _table_from(value: Any, labels: tuple[str, ...], slot: str) -> tuple[Any, bool]:
    """The table field: an :class:`InterventionalTable` (or ``T`` alone when its method is
    unknown) and whether its detail is known."""
    d = _fields(value, "table", ("T", "method"), _TABLE_OPTIONAL)
    t = _numbers(d["T"], "table.T", 3)
    if d["method"] is None:
        if set(d) - {"T", "method"}:
            raise SheetError("field 'table': intervals and sample sizes come with the table's "
                             "'method'")
        return t, False
    method = _string(d["method"], "table.method")
    n = None if d.get("n") is None else _numbers(d["n"], "table.n", 2)
    extra: dict[str, Any] = {}
    for key in ("seed", "samples"):
        v = d.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise SheetError(f"field 'table.{key}' must be an integer, got {v!r}")
        extra[key] = v
    confidence = None if d.get("confidence") is None else _real(d["confidence"],
                                                                "table.confidence")
    interval = None if d.get("interval_method") is None else _string(
        d["interval_method"], "table.interval_method")
    low = None if d.get("ci_low") is None else _numbers(d["ci_low"], "table.ci_low", 3)
    high = None if d.get("ci_high") is None else _numbers(d["ci_high"], "table.ci_high", 3)
    k = len(labels)
    if n is not None and n.shape != t.shape[:2]:
        raise SheetError(f"field 'table.n' must be n[c][j] of shape {t.shape[:2]}")
    if k == 2 and n is not None and low is not None:
        # a counted table of two labels is the one counted from its counts (binary view)
        counts = np.zeros((2, 2, 4))
        counts[0, :, :2] = np.round(t[0] * n[0][:, None])
        counts[1, :, 2:] = np.round(t[1] * n[1][:, None])
        table = _guard("table", lambda: InterventionalTable.from_counts(
            slot, counts, method=method, confidence=confidence or 0.95,
            interval_method=interval or "wilson", seed=extra["seed"]))
        if extra["samples"] is not None:
            table = _guard("table.samples", lambda: replace(table, samples=extra["samples"]))
        for name, stored, mine in (("T", t, table.to_numpy()), ("ci_low", low, table.low),
                                   ("ci_high", high, table.high)):
            if mine is None or stored is None or stored.shape != mine.shape or not np.allclose(
                    stored, mine, rtol=1e-9, atol=1e-12):
                raise SheetError(f"tampered or inconsistent sheet: 'table.{name}' differs from "
                                 "the table counted from 'table.n'")
        return table, True
    trials = None if n is None else np.repeat(n[:, :, None], k, axis=2)
    table = _guard("table", lambda: InterventionalTable.from_array(
        t, labels=labels, slot=slot, method=method, counts=trials, lower=low, upper=high,
        confidence=confidence, interval_method=interval, **extra))
    return table, True


def fields_v4(data: Mapping[str, Any]) -> tuple[dict[str, Any], Callable[[Any], None]]:
    """A version 4 sheet's JSON (digest checked first) as the sheet's keyword arguments, and
    the check that its stored ``derived`` matrices are the recomputed ones."""
    check_digest(data, SHEET_VERSION)
    d = _fields(data, "", _REQUIRED, _OPTIONAL)
    common = common_fields(d, SHEET_VERSION)
    labels = d["labels"]
    if not isinstance(labels, list) or not all(isinstance(v, str) for v in labels):
        raise SheetError("field 'labels' must be a list of strings")
    names = tuple(labels)
    table, detail = _table_from(d["table"], names, common["slot"])
    fields = dict(
        common, labels=names, costs=_numbers(d["costs"], "costs", 2), table=table,
        table_detail=detail,
        forced=None if d["forced_runs"] is None else _numbers(d["forced_runs"],
                                                              "forced_runs", 3),
        kinds=kind_records(d["kinds"]),
        class_sizes=None if d["class_counts"] is None else _numbers(d["class_counts"],
                                                                    "class_counts", 1),
        class_prior=None if d["prior"] is None else _numbers(d["prior"], "prior", 1))
    return fields, lambda sheet: check_derived(data, sheet.m1, sheet.m2)
