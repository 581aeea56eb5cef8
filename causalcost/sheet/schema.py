"""The cost sheet's JSON schema: the checks every version's reader shares, and the dispatch.

A sheet on disk is a JSON object with ``format`` :data:`SHEET_FORMAT` and a ``version``. This
causalcost writes version :data:`SHEET_VERSION` for every number of labels (the layout is in
:mod:`causalcost.sheet.format4`: ``labels``, ``costs`` ``C[c][s]``, ``table`` with ``T[c][j][s]``
and its detail, ``forced_runs`` ``F[j][c][s]``, ``kinds``, ``class_counts`` and ``prior`` per
label, ``monotonicity``, ``derived`` ``M1`` and ``M2``), and reads versions 1 and 2 (binary
sheets, the four rates ``e_P(P)``...; version 1 has no digest) and 3 (labels, any K) too
(:mod:`causalcost.sheet.legacy`). Reading checks the format and version first, then the digest,
then that every required field is present and no unknown one is, then each field's type and
range; every failure is a :class:`~causalcost.errors.SheetError` naming the field by its dotted
path (``'rates.P.N'``, ``'table.ci_low'``). :mod:`causalcost.sheet.reading` picks the reader of
each version.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from causalcost.confusion import CELLS
from causalcost.errors import CausalCostError, SheetError
from causalcost.sheet.checks import _is_real
from causalcost.sheet.digest import content_digest

#: Value of the ``format`` field of every sheet.
SHEET_FORMAT = "causalcost-sheet"
#: The sheet version this causalcost writes (every number of labels).
SHEET_VERSION = 4
#: The version sheets with labels were written in before version 4 (still read).
LABELLED_VERSION = 3
#: The versions it reads: 1 (no digest; reports say it cannot be verified), 2 (binary),
#: 3 (labels) and 4.
READ_VERSIONS = (1, 2, 3, 4)
_DERIVED = ("expected_cost_matrix", "error_transition_matrix")


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


def _numbers(value: Any, where: str, ndim: int) -> np.ndarray:
    """A nested list of finite numbers (no booleans), ``ndim`` deep, as a float array."""
    def walk(v: Any, depth: int) -> None:
        if depth == ndim:
            if not _is_real(v) or not math.isfinite(float(v)):
                raise SheetError(f"field {where!r} must hold finite numbers, got {v!r}")
            return
        if not isinstance(v, list):
            raise SheetError(f"field {where!r} must be a {ndim}-deep list of numbers")
        for item in v:
            walk(item, depth + 1)

    walk(value, 0)
    try:
        arr = np.asarray(value, dtype=float)
    except ValueError:
        raise SheetError(f"field {where!r} must be a rectangular {ndim}-deep list") from None
    if arr.ndim != ndim:
        raise SheetError(f"field {where!r} must be a rectangular {ndim}-deep list")
    return arr


def common_fields(d: Mapping[str, Any], version: int) -> dict[str, Any]:
    """The fields every version holds alike: names, assumption and evidence, provenance,
    stamps and signature (the sheet's keyword arguments)."""
    from causalcost.sheet.signature import read_signature

    monotonicity = d.get("monotonicity")
    return dict(
        slot=_string(d["slot"], "slot"), system_name=_string(d["system_name"], "system_name"),
        assumption=_string(d["assumption"], "assumption"),
        monotonicity=None if monotonicity is None else dict(_mapping(monotonicity,
                                                                     "monotonicity")),
        provenance=dict(_mapping(d["provenance"], "provenance")),
        created=_string(d["created"], "created"),
        causalcost_version=_string(d["causalcost_version"], "causalcost_version"),
        read_version=version,
        signature=None if d.get("signature") is None else read_signature(d["signature"]))


def check_digest(data: Mapping[str, Any], version: int) -> None:
    """The sheet carries the SHA-256 of its content (version 2 and later); it must match."""
    if "digest" not in data:
        raise SheetError(f"missing required field 'digest': a version {version} sheet carries "
                         "the SHA-256 of its content; derive the sheet again")
    stored = _fields(data["digest"], "digest", ("sha256",))["sha256"]
    if not isinstance(stored, str) or not stored.startswith("sha256:"):
        raise SheetError(f"field 'digest.sha256' must look like 'sha256:<hex>', got {stored!r}")
    actual = content_digest(data)
    if actual != stored:
        raise SheetError(
            "the sheet's content does not match its digest: it was changed after it was "
            f"issued (digest {stored[:19]}..., content {actual[:19]}...); ask the system "
            "owner for the sheet they issued")


def check_derived(data: Mapping[str, Any], m1: np.ndarray, m2: np.ndarray) -> None:
    """The stored ``derived`` matrices (``M1``, ``M2`` as lists) are the recomputed ones."""
    derived = _fields(data["derived"], "derived", _DERIVED)
    for name, mine in (("expected_cost_matrix", m1), ("error_transition_matrix", m2)):
        stored = _numbers(derived[name], f"derived.{name}", 2)
        if stored.shape != mine.shape or not np.allclose(stored, mine, rtol=1e-12, atol=1e-12):
            raise SheetError(f"tampered or inconsistent sheet: 'derived.{name}' differs from "
                             "the table and costs")
