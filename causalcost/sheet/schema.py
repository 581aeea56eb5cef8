"""The cost sheet's JSON schema: a sheet's JSON, field by field, for any number of labels.

Two current layouts, one sheet type (:class:`causalcost.CostSheet`): version 2 for a binary
sheet (classes P and N, the four rates ``e_P(P)``...; version 1, without a digest, still read)
and version 3 for a sheet with labels (any K: ``labels``, ``costs`` ``C[c][s]``, ``table``
``T[c][j][s]``, ``forced_runs`` ``F[j][c][s]``, ``kinds``, ``monotonicity``).

A sheet on disk is a JSON object with ``format`` :data:`SHEET_FORMAT` and ``version``
:data:`SHEET_VERSION` (written by :meth:`causalcost.CostSheet.to_dict`). Reading it checks
the format and version first, then that every required field is present and no unknown one is,
then each field's type and range; every failure is a :class:`~causalcost.errors.SheetError`
naming the field by its dotted path (``'rates.P.N'``, ``'table.table[3].ci_low'``).
:func:`_sheet_fields` returns the :class:`~causalcost.CostSheet` keyword arguments, and the
sheet then checks that the fields agree with each other (:mod:`causalcost.sheet.checks`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from causalcost.confusion import CELLS, CLASSES, OUTCOMES, Confusion, CostMatrix
from causalcost.errors import CausalCostError, SheetError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.costs import ModelCostMatrix
from causalcost.sheet.checks import _check_class_counts, _is_real, _same_rates
from causalcost.sheet.digest import content_digest
from causalcost.sheet.signature import read_signature

#: Value of the ``format`` field of every sheet.
SHEET_FORMAT = "causalcost-sheet"
#: The sheet version this causalcost writes.
SHEET_VERSION = 2
#: The versions it reads: 1 (no digest; reports say it cannot be verified), 2 and 3 (labels).
READ_VERSIONS = (1, 2, 3)

_REQUIRED = ("format", "version", "created", "causalcost_version", "slot", "system_name",
             "provenance", "assumption", "costs", "rates", "derived")
_OPTIONAL = ("monotonicity", "class_counts", "prior", "table", "forced_runs", "digest",
             "signature")
_DERIVED = ("expected_cost_matrix", "error_transition_matrix")
_RATE_NAMES = {("P", "P"): "e_P(P)", ("P", "N"): "e_P(N)", ("N", "P"): "e_N(P)",
               ("N", "N"): "e_N(N)"}


# ---------------------------------------------------------------------------- field readers
def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SheetError(f"field {where!r} must be an object, got {type(value).__name__}")
    return value


def _fields(value: Any, where: str, required: tuple[str, ...],
            optional: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """``value`` as a mapping with every ``required`` key and no unknown key."""
    value = _mapping(value, where)
    missing = [_path(where, k) for k in required if k not in value]
    if missing:
        raise SheetError("missing required field(s) " + ", ".join(map(repr, missing)))
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        raise SheetError(f"unknown field(s) {[_path(where, k) for k in unknown]}; "
                         f"valid: {[_path(where, k) for k in (*required, *optional)]}")
    return value


def _real(value: Any, where: str) -> float:
    if not _is_real(value) or not math.isfinite(float(value)):
        raise SheetError(f"field {where!r} must be a finite number, got {value!r}")
    return float(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise SheetError(f"field {where!r} must be a string, got {value!r}")
    return value


def _cells(value: Any, where: str) -> dict[str, float]:
    m = _fields(value, where, CELLS)
    return {k: _real(m[k], _path(where, k)) for k in CELLS}


def _guard(where: str, build: Any, *args: Any) -> Any:
    """Call ``build``; turn a value or type error into a SheetError naming ``where``."""
    try:
        return build(*args)
    except SheetError:
        raise
    except (CausalCostError, TypeError, ValueError) as exc:
        raise SheetError(f"field {where!r}: {exc}") from None

def _matrix(kind: Any, value: Any, where: str, *extra: Any) -> Any:
    """``kind(tp, fn, fp, tn, *extra)`` from the cell object at ``where``."""
    return _guard(where, kind, *_cells(value, where).values(), *extra)


# ------------------------------------------------------------------------ sheet parts
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


# --------------------------------------------------------------------------- the sheet
def _sheet_fields(data: Any) -> dict[str, Any]:
    """Validate a sheet's JSON object field by field; the :class:`CostSheet` keyword arguments.

    The :class:`CostSheet` built from them then checks that the fields agree with each other.
    """
    if not isinstance(data, Mapping):
        raise SheetError(f"a cost sheet must be a JSON object, got {type(data).__name__}")
    d = data
    if "format" not in d:
        raise SheetError(f"missing required field 'format': not a causalcost cost sheet "
                         f"(expected format {SHEET_FORMAT!r})")
    if d["format"] != SHEET_FORMAT:
        raise SheetError(f"field 'format' is {d['format']!r}: not a causalcost cost sheet "
                         f"(expected {SHEET_FORMAT!r})")
    if "version" not in d:
        raise SheetError(f"missing required field 'version' (this causalcost reads versions "
                         f"{', '.join(map(str, READ_VERSIONS))})")
    version = d["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version not in READ_VERSIONS:
        raise SheetError(f"sheet version {version!r} is not supported: this causalcost reads "
                         f"versions {', '.join(map(str, READ_VERSIONS))} (whole numbers); "
                         "derive the sheet again with it")
    if version == LABELLED_VERSION:
        return labelled_fields(d)
    _check_digest(d, version)
    d = _fields(d, "", _REQUIRED, _OPTIONAL)
    derived = _fields(d["derived"], "derived", _DERIVED)
    matrices = {k: _matrix(ModelCostMatrix, derived[k], f"derived.{k}",
                           "expected" if k == "expected_cost_matrix" else "transition")
                for k in _DERIVED}
    forced: tuple[Confusion | None, Confusion | None] = (None, None)
    if d.get("forced_runs") is not None:
        fr = _fields(d["forced_runs"], "forced_runs", ("forced_p", "forced_n"))
        forced = tuple(_matrix(Confusion, fr[k], f"forced_runs.{k}")  # type: ignore[assignment]
                       for k in ("forced_p", "forced_n"))
    counts = None
    if d.get("class_counts") is not None:
        cc = _fields(d["class_counts"], "class_counts", ("positives", "negatives"))
        counts = tuple(_real(cc[k], f"class_counts.{k}") for k in ("positives", "negatives"))
        _check_class_counts(counts, SheetError)
    prior = None if d.get("prior") is None else _real(d["prior"], "prior")
    monotonicity = d.get("monotonicity")
    if monotonicity is not None:
        monotonicity = dict(_mapping(monotonicity, "monotonicity"))
    return dict(
        slot=_string(d["slot"], "slot"),
        system_name=_string(d["system_name"], "system_name"),
        rates=_rates_from(d["rates"]),
        table=None if d.get("table") is None else _table_from(d["table"]),
        forced_p=forced[0],
        forced_n=forced[1],
        class_counts=counts,
        prior=prior,
        costs=_matrix(CostMatrix, d["costs"], "costs"),
        expected_cost_matrix=matrices["expected_cost_matrix"],
        error_transition_matrix=matrices["error_transition_matrix"],
        assumption=_string(d["assumption"], "assumption"),
        monotonicity=monotonicity,
        provenance=dict(_mapping(d["provenance"], "provenance")),
        created=_string(d["created"], "created"),
        causalcost_version=_string(d["causalcost_version"], "causalcost_version"),
        read_version=version,
        signature=None if d.get("signature") is None else read_signature(d["signature"]),
    )


def _check_digest(data: Mapping[str, Any], version: int) -> None:
    """Version 2 sheets carry the SHA-256 of their content; it must match."""
    if version < 2:
        return
    if "digest" not in data:
        raise SheetError("missing required field 'digest': a version 2 sheet carries the "
                         "SHA-256 of its content; derive the sheet again")
    stored = _fields(data["digest"], "digest", ("sha256",))["sha256"]
    if not isinstance(stored, str) or not stored.startswith("sha256:"):
        raise SheetError(f"field 'digest.sha256' must look like 'sha256:<hex>', got {stored!r}")
    actual = content_digest(data)
    if actual != stored:
        raise SheetError(
            "the sheet's content does not match its digest: it was changed after it was "
            f"issued (digest {stored[:19]}..., content {actual[:19]}...); ask the system "
            "owner for the sheet they issued")


# ------------------------------------------------------------------ sheets with K labels
#: The version of sheets with labels (any K): the labels, ``costs`` ``C[c][s]``, ``table``
#: ``T[c][j][s]``, ``forced_runs`` ``F[j][c][s]``, ``kinds`` and, optionally, ``monotonicity``.
LABELLED_VERSION = 3
_LABELLED_REQUIRED = ("format", "version", "created", "causalcost_version", "slot",
                      "system_name", "provenance", "labels", "assumption", "costs", "table",
                      "derived", "digest")
_LABELLED_OPTIONAL = ("forced_runs", "kinds", "signature", "monotonicity")


def labelled_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a version 3 sheet's JSON (digest first); the sheet's keyword arguments.

    The sheet built from them then checks that table, forced runs, kinds and assumption
    agree (:func:`causalcost.sheet.checks.check_labelled`), and the caller that the stored
    derived matrices are the recomputed ones (:func:`check_labelled_derived`).
    """
    missing = [k for k in _LABELLED_REQUIRED if k not in data]
    if missing:
        raise SheetError(f"sheet version {LABELLED_VERSION} (labels) is missing required "
                         f"field(s) {missing}; versions 1 and 2 are the binary sheets")
    unknown = sorted(set(data) - set(_LABELLED_REQUIRED) - set(_LABELLED_OPTIONAL))
    if unknown:
        raise SheetError(f"unknown field(s) {unknown}; valid: "
                         f"{[*_LABELLED_REQUIRED, *_LABELLED_OPTIONAL]}")
    digest = data["digest"]
    stored = digest.get("sha256") if isinstance(digest, Mapping) else None
    if not isinstance(stored, str) or content_digest(data) != stored:
        raise SheetError("the sheet's content does not match its digest: it was changed "
                         "after it was issued; ask the system owner for the sheet they issued")
    for name in ("slot", "system_name", "created", "causalcost_version", "assumption"):
        _string(data[name], name)
    if not isinstance(data["labels"], list) or not all(isinstance(v, str)
                                                       for v in data["labels"]):
        raise SheetError("field 'labels' must be a list of strings")
    _mapping(data["provenance"], "provenance")
    _fields(data["derived"], "derived", _DERIVED)
    kinds = None
    if data.get("kinds") is not None:
        if not isinstance(data["kinds"], list):
            raise SheetError("field 'kinds' must be a list of records")
        try:
            kinds = {(r["class"], tuple(r["response"])): r["count"] for r in data["kinds"]}
        except (TypeError, KeyError) as exc:
            raise SheetError(f"field 'kinds': each record needs class, response and "
                             f"count ({exc})") from None
    monotonicity = data.get("monotonicity")
    if monotonicity is not None:
        monotonicity = dict(_mapping(monotonicity, "monotonicity"))
    return dict(slot=data["slot"], system_name=data["system_name"],
                labels=tuple(data["labels"]), costs=data["costs"], table=data["table"],
                assumption=data["assumption"], forced=data.get("forced_runs"), kinds=kinds,
                monotonicity=monotonicity, provenance=dict(data["provenance"]),
                created=data["created"], causalcost_version=data["causalcost_version"],
                signature=data.get("signature"), read_version=LABELLED_VERSION)


def check_labelled_derived(data: Mapping[str, Any], m1: np.ndarray, m2: np.ndarray) -> None:
    """The stored ``derived`` matrices are the ones recomputed from table and costs."""
    for name, mine in (("expected_cost_matrix", m1), ("error_transition_matrix", m2)):
        try:
            stored = np.asarray(data["derived"][name], dtype=float)
        except (TypeError, ValueError):
            raise SheetError(f"field 'derived.{name}' must be a K x K matrix") from None
        if stored.shape != mine.shape or not np.allclose(stored, mine, rtol=1e-12, atol=1e-12):
            raise SheetError(f"tampered or inconsistent sheet: 'derived.{name}' differs from "
                             "the table and costs")
