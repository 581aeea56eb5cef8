"""Sheets written before version 4: read into the one sheet type, digests checked as issued.

Version 1 and 2 sheets are binary (the four rates ``e_P(P)``..., cells ``tp``/``fn``/``fp``/
``tn``, a table of 16 records, the class counts and ``P(Class = P)``; version 1 has no digest),
version 3 sheets have labels (any K: ``costs`` ``C[c][s]``, ``table`` ``T[c][j][s]``,
``forced_runs``, ``kinds``). :func:`legacy_fields` reads them into the
:class:`~causalcost.CostSheet` fields; :func:`content_of_version` is what a version 2 or 3
sheet's digest was taken over, so a loaded sheet keeps the digest it was issued with (reports
echo it, a signature covers it) and a file not in that form is refused. Nothing here writes a
sheet: :meth:`~causalcost.CostSheet.save` writes version 4.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from causalcost.confusion import CLASSES, OUTCOMES, Confusion, CostMatrix
from causalcost.errors import SheetError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.costs import ModelCostMatrix
from causalcost.sheet.checks import _check_class_counts, _same_cells, _same_rates
from causalcost.sheet.schema import (
    _DERIVED,
    SHEET_FORMAT,
    _fields,
    _guard,
    _mapping,
    _matrix,
    _real,
    _string,
    check_derived,
    check_digest,
    common_fields,
)

__all__ = ["content_of_version", "legacy_fields"]

_RATE_NAMES = {("P", "P"): "e_P(P)", ("P", "N"): "e_P(N)", ("N", "P"): "e_N(P)",
               ("N", "N"): "e_N(N)"}
_REQUIRED = ("format", "version", "created", "causalcost_version", "slot", "system_name",
             "provenance", "assumption", "costs", "rates", "derived")
_OPTIONAL = ("monotonicity", "class_counts", "prior", "table", "forced_runs", "digest",
             "signature")
_LABELLED_REQUIRED = ("format", "version", "created", "causalcost_version", "slot",
                      "system_name", "provenance", "labels", "assumption", "costs", "table",
                      "derived", "digest")
_LABELLED_OPTIONAL = ("forced_runs", "kinds", "signature", "monotonicity")


def legacy_fields(data: Mapping[str, Any], version: int,
                  ) -> tuple[dict[str, Any], Callable[[Any], None]]:
    """A version 1, 2 or 3 sheet's JSON as the sheet's keyword arguments, and the checks of
    the sheet built from them."""
    if version == 3:
        return _labelled_fields(data)
    return _binary_fields(data, version)


# ------------------------------------------------------------------ versions 1 and 2 (binary)
def _rates_from(value: Any, where: str = "rates") -> ErrorRates:
    d = _fields(value, where, CLASSES)
    r = {c: _fields(d[c], f"{where}.{c}", CLASSES) for c in CLASSES}
    vals = {(c, x): _real(r[c][x], f"{where}.{c}.{x}") for c in CLASSES for x in CLASSES}
    for (c, x), v in vals.items():
        if not 0.0 <= v <= 1.0:
            raise SheetError(f"field '{where}.{c}.{x}' ({_RATE_NAMES[c, x]}) must be a probability "
                             f"in [0, 1], got {v!r}")
    return ErrorRates(vals["P", "P"], vals["P", "N"], vals["N", "P"], vals["N", "N"])


def _table_from(value: Any) -> InterventionalTable:
    d = _fields(value, "table", ("slot", "method", "table"),
                ("error_rates", "confidence", "interval_method", "seed", "monotone"))
    if "monotone" in d and not isinstance(d["monotone"], bool):
        raise SheetError(f"field 'table.monotone' must be true or false, got {d['monotone']!r}")
    records = d["table"]
    if not isinstance(records, list) or len(records) != 16:
        raise SheetError("field 'table.table' must be a list of 16 records, one per (class, do, "
                         "confusion)")
    intervals = any(isinstance(r, Mapping) and "ci_low" in r for r in records)
    keys = ("class", "do", "confusion", "probability")
    extra = ("ci_low", "ci_high", "n") if intervals else ()
    arrays = {k: np.full((2, 2, 4), np.nan) for k in ("probability", *extra)}
    for i, rec in enumerate(records):
        where = f"table.table[{i}]"
        rec = _fields(rec, where, keys + extra, ("std_error",))
        try:
            idx = (CLASSES.index(rec["class"]), CLASSES.index(rec["do"]),
                   OUTCOMES.index(rec["confusion"]))
        except ValueError:
            raise SheetError(f"field {where!r}: class/do must be 'P' or 'N' and confusion one of "
                             f"{', '.join(OUTCOMES)}") from None
        for k in arrays:
            arrays[k][idx] = _real(rec[k], f"{where}.{k}")
        if "std_error" in rec and not _real(rec["std_error"], f"{where}.std_error") >= 0:
            raise SheetError(f"field '{where}.std_error' must be a number >= 0, got "
                             f"{rec['std_error']!r}")
    if np.isnan(arrays["probability"]).any():
        raise SheetError("field 'table.table' must hold each (class, do, confusion) cell once")
    seed = d.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise SheetError(f"field 'table.seed' must be an integer, got {seed!r}")
    confidence = d.get("confidence")
    if d.get("interval_method") is not None:
        _string(d["interval_method"], "table.interval_method")
    table = _guard("table", InterventionalTable, _string(d["slot"], "table.slot"),
                   _string(d["method"], "table.method"), arrays["probability"],
                   arrays.get("n"), arrays.get("ci_low"), arrays.get("ci_high"),
                   None if confidence is None else _real(confidence, "table.confidence"),
                   d.get("interval_method"), seed)
    if "error_rates" in d:
        stored = _rates_from(d["error_rates"], "table.error_rates")
        if not _same_rates(stored, table.error_rates):
            raise SheetError("tampered or inconsistent sheet: 'table.error_rates' differ from the "
                             "table's probabilities")
    return table


def rates_table(rates: ErrorRates) -> np.ndarray:
    """``T[c, j, s]`` of two labels (positive first) from the four rates."""
    r = rates
    return np.array([[[1 - r.fn_forced_p, r.fn_forced_p], [1 - r.fn_forced_n, r.fn_forced_n]],
                     [[r.fp_forced_p, 1 - r.fp_forced_p], [r.fp_forced_n, 1 - r.fp_forced_n]]])


def _binary_fields(data: Mapping[str, Any], version: int,
                   ) -> tuple[dict[str, Any], Callable[[Any], None]]:
    if version >= 2:
        check_digest(data, version)
    d = _fields(data, "", _REQUIRED, _OPTIONAL)
    derived = _fields(d["derived"], "derived", _DERIVED)
    matrices = {k: _matrix(ModelCostMatrix, derived[k], f"derived.{k}",
                           "expected" if k == "expected_cost_matrix" else "transition")
                for k in _DERIVED}
    forced = None
    if d.get("forced_runs") is not None:
        fr = _fields(d["forced_runs"], "forced_runs", ("forced_p", "forced_n"))
        runs = [_matrix(Confusion, fr[k], f"forced_runs.{k}") for k in ("forced_p", "forced_n")]
        forced = [[list(row) for row in m.matrix] for m in runs]
    counts = None
    if d.get("class_counts") is not None:
        cc = _fields(d["class_counts"], "class_counts", ("positives", "negatives"))
        counts = tuple(_real(cc[k], f"class_counts.{k}") for k in ("positives", "negatives"))
        _check_class_counts(counts, SheetError)
    prior = None if d.get("prior") is None else _real(d["prior"], "prior")
    if prior is not None and not 0 <= prior <= 1:
        raise SheetError(f"field 'prior' must be a probability in [0, 1], got {prior!r}")
    common = common_fields(d, version)
    slot = common["slot"]
    rates = _rates_from(d["rates"])
    table = None if d.get("table") is None else _table_from(d["table"])
    if table is not None and not _same_rates(table.error_rates, rates):
        raise SheetError(f"tampered or inconsistent sheet: 'rates' {rates!r} differ from the "
                         f"table's {table.error_rates!r}")
    if table is not None and table.slot != slot:
        raise SheetError(f"tampered or inconsistent sheet: 'table' is for slot {table.slot!r}, "
                         f"the sheet ('slot') for {slot!r}")
    fields = dict(
        common, labels=CLASSES, costs=_matrix(CostMatrix, d["costs"], "costs"),
        table=table if table is not None else _guard("rates", lambda: (
            InterventionalTable.from_array(rates_table(rates), labels=CLASSES, slot=slot))),
        table_detail=table is not None, forced=forced,
        class_sizes=None if counts is None else [int(v) for v in counts],
        class_prior=None if prior is None else [prior, 1.0 - prior])

    def after(sheet: Any) -> None:
        if sheet.forced is not None and not _same_rates(
                ErrorRates.from_forced(sheet.forced_p, sheet.forced_n), rates):
            raise SheetError("tampered or inconsistent sheet: 'rates' differ from those "
                             "counted in 'forced_runs'")
        for name, stored in matrices.items():
            fresh = getattr(sheet, name)
            if not _same_cells(stored.cells(), fresh.cells()):
                raise SheetError(f"tampered or inconsistent sheet: the stored {name} "
                                 f"{stored!r} differs from the one recomputed from the rates "
                                 f"and costs {fresh!r}")

    return fields, after


def _int_cells(m: Confusion) -> dict[str, float | int]:
    return {k: int(v) if float(v).is_integer() else v for k, v in m.to_dict().items()}


def _table_dict(table: InterventionalTable) -> dict[str, Any]:
    """The table's JSON without its monotonicity flag: the sheet stores the full check."""
    out = table.binary_dict()  # the keys version 2 wrote, nothing since
    out.pop("monotone", None)
    if out.get("seed") is not None:  # a numpy integer seed is written as a JSON number
        out["seed"] = int(out["seed"])
    return out


def _content_v2(s: Any) -> dict[str, Any]:
    """A sheet of two labels as version 2 wrote it (what its digest was taken over)."""
    counts = None
    if s.class_counts is not None:
        counts = {"positives": s.class_counts[0], "negatives": s.class_counts[1]}
    forced = None
    if s.forced is not None:
        forced = {"forced_p": _int_cells(s.forced_p), "forced_n": _int_cells(s.forced_n)}
    return {
        "format": SHEET_FORMAT, "version": 2, "created": s.created,
        "causalcost_version": s.causalcost_version, "slot": s.slot,
        "system_name": s.system_name, "provenance": dict(s.provenance),
        "assumption": s.assumption,
        "monotonicity": None if s.monotonicity is None else dict(s.monotonicity),
        "class_counts": counts, "prior": s.prior, "costs": s.costs.to_dict(),
        "rates": s.rates.to_dict(), "table": _table_dict(s.table) if s.table_detail else None,
        "forced_runs": forced,
        "derived": {"expected_cost_matrix": s.expected_cost_matrix.to_dict(),
                    "error_transition_matrix": s.error_transition_matrix.to_dict()},
    }


# ------------------------------------------------------------------- version 3 (labels)
def _labelled_fields(data: Mapping[str, Any]) -> tuple[dict[str, Any], Callable[[Any], None]]:
    missing = [k for k in _LABELLED_REQUIRED if k not in data]
    if missing:
        raise SheetError(f"sheet version 3 (labels) is missing required field(s) {missing}; "
                         "versions 1 and 2 are the binary sheets")
    unknown = sorted(set(data) - set(_LABELLED_REQUIRED) - set(_LABELLED_OPTIONAL))
    if unknown:
        raise SheetError(f"unknown field(s) {unknown}; valid: "
                         f"{[*_LABELLED_REQUIRED, *_LABELLED_OPTIONAL]}")
    check_digest(data, 3)
    for name in ("slot", "system_name", "created", "causalcost_version", "assumption"):
        _string(data[name], name)
    if not isinstance(data["labels"], list) or not all(isinstance(v, str)
                                                       for v in data["labels"]):
        raise SheetError("field 'labels' must be a list of strings")
    _mapping(data["provenance"], "provenance")
    _fields(data["derived"], "derived", _DERIVED)
    monotonicity = data.get("monotonicity")
    if monotonicity is not None:
        monotonicity = dict(_mapping(monotonicity, "monotonicity"))
    fields = dict(slot=data["slot"], system_name=data["system_name"],
                  labels=tuple(data["labels"]), costs=data["costs"], table=data["table"],
                  assumption=data["assumption"], forced=data.get("forced_runs"),
                  kinds=kind_records(data.get("kinds")), monotonicity=monotonicity,
                  provenance=dict(data["provenance"]), created=data["created"],
                  causalcost_version=data["causalcost_version"],
                  signature=data.get("signature"), read_version=3)
    return fields, lambda sheet: check_derived(data, sheet.m1, sheet.m2)


def kind_records(records: Any) -> dict[tuple[str, tuple[str, ...]], Any] | None:
    """The ``kinds`` field (records of class, response and count) as a mapping."""
    if records is None:
        return None
    if not isinstance(records, list):
        raise SheetError("field 'kinds' must be a list of records")
    try:
        return {(r["class"], tuple(r["response"])): r["count"] for r in records}
    except (TypeError, KeyError) as exc:
        raise SheetError(f"field 'kinds': each record needs class, response and count "
                         f"({exc})") from None


def kinds_json(s: Any) -> list[dict[str, Any]] | None:
    """The sheet's kinds as records of class, response and count (sorted)."""
    if s.kinds is None:
        return None
    labels = s.labels
    return [{"class": labels[c], "response": [labels[v] for v in r], "count": int(n)}
            for (c, r), n in sorted(s.kinds.counts.items())]


def _content_v3(s: Any) -> dict[str, Any]:
    """A sheet with labels as version 3 wrote it (what its digest was taken over)."""
    body = {
        "format": SHEET_FORMAT, "version": 3, "created": s.created,
        "causalcost_version": s.causalcost_version, "slot": s.slot,
        "system_name": s.system_name, "provenance": dict(s.provenance),
        "labels": list(s.labels), "assumption": s.assumption,
        "costs": s.costs_array.tolist(), "table": s.table_array.tolist(),
        "forced_runs": None if s.forced is None else s.forced.tolist(),
        "kinds": kinds_json(s),
        "derived": {"expected_cost_matrix": s.m1.tolist(),
                    "error_transition_matrix": s.m2.tolist()},
    }
    if s.monotonicity is not None:  # optional: sheets without it keep their digest
        body["monotonicity"] = dict(s.monotonicity)
    return body


def content_of_version(sheet: Any, version: int) -> dict[str, Any]:
    """The content (every field but digest and signature) of ``sheet`` as version 2 or 3
    wrote it: what the digest of a file of that version was taken over."""
    return _content_v2(sheet) if version == 2 else _content_v3(sheet)
