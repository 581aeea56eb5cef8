"""Reading a score sheet's JSON object: the keys, their types, the digest.

The layout :meth:`~causalcost.sheet.score_sheet.ScoreSheet.to_dict` writes (format
``causalcost-score-sheet``, version 1): ``format``, ``version``, ``created``,
``causalcost_version``, ``slot``, ``system_name``, ``labels`` (``["P", "N"]``), ``costs``
(the four cells), ``rule``, ``models``, ``critical`` (per class ``breakpoints``, ``at``,
``between``, ``always``, ``never``), ``provenance``, ``digest`` and ``signature``, and
``score_range`` (``[low, high]``, ``null`` for an open end) where the rule takes scores other
than probabilities (absent: ``[0, 1]``, so sheets written before it read and verify as they
were). Unknown or missing keys are refused by name.

**K labels** (a slot giving probability vectors, K >= 3): the same layout with ``critical``
replaced by ``fusion`` (``"linear"``, ``"max"`` or ``"min"``), ``matrix`` (the slot's K x K
coefficients ``A``, rows of numbers) and ``offsets``
(per label, its instances' offset vectors: ``rows``, ``upper`` and ``counts``, see
:class:`~causalcost.sheet.offset_cells.OffsetCells`); ``labels`` lists the K labels (text) and
``costs`` is K rows of K numbers (rows: the true class). A file with ``offsets`` and no
``critical`` is read as this variant; every field's type is checked the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from causalcost.confusion import CLASSES, CostMatrix
from causalcost.cost_matrix import as_costs
from causalcost.errors import CausalCostError, SheetError
from causalcost.sheet.critical import CriticalScores, json_kind, json_rows
from causalcost.sheet.instances import FINGERPRINT_KEY
from causalcost.sheet.offset_cells import OffsetCells

__all__ = ["OPTIONAL_SCORE_KEYS", "SCORE_KEYS", "SCORE_SHEET_FORMAT", "SCORE_SHEET_VERSION",
           "VECTOR_SCORE_KEYS", "score_range_json", "score_sheet_fields"]

#: ``format`` of a score sheet file (a vote sheet's is ``causalcost-sheet``).
SCORE_SHEET_FORMAT = "causalcost-score-sheet"
#: The version this causalcost writes.
SCORE_SHEET_VERSION = 1

SCORE_KEYS = ("format", "version", "created", "causalcost_version", "slot", "system_name",
              "labels", "costs", "rule", "models", "critical", "provenance", "digest",
              "signature")
#: The keys of a K-label score sheet: ``critical`` gives way to the slot's ``matrix`` and the
#: classes' ``offsets``.
VECTOR_SCORE_KEYS = ("format", "version", "created", "causalcost_version", "slot",
                     "system_name", "labels", "costs", "rule", "models", "fusion", "matrix",
                     "offsets", "provenance", "digest", "signature")
#: Keys a sheet may leave out (absent: the default).
OPTIONAL_SCORE_KEYS = ("score_range",)


def _string(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise SheetError(f"{key}: a string, got {json_kind(value)}")
    return value


#: Provenance entries a score sheet writes, and the JSON type each must have.
_PROVENANCE_COUNTS = ("rows", "adjusted")
_PROVENANCE_TEXT = ("source", "description", FINGERPRINT_KEY, "repriced_from")


def _costs(value: Any) -> CostMatrix:
    if not isinstance(value, Mapping):
        raise SheetError(f"costs: an object of the four cells such as {{'fn': 5, 'fp': 1}}, "
                         f"got {json_kind(value)}")
    for cell, cost in value.items():
        if isinstance(cost, bool) or not isinstance(cost, (int, float)):
            raise SheetError(f"costs.{cell}: a number, got {json_kind(cost)}")
    try:
        return CostMatrix.from_mapping(value)
    except CausalCostError as exc:
        raise SheetError(f"costs: {exc}") from None


def _models(value: Any, slot: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise SheetError(f"models: a list of the score columns' names, got {json_kind(value)}")
    for k, m in enumerate(value):
        if not isinstance(m, str) or not m:
            raise SheetError(f"models: the score columns' names (non-empty strings), got "
                             f"{json_kind(m)} at position {k}")
    twice = sorted({m for m in value if value.count(m) > 1})
    if twice:
        raise SheetError(f"models: {twice[0]!r} is listed twice; each score column once")
    if value and slot not in value:
        raise SheetError(f"models: the slot {slot!r} is not among the models {value}; the "
                         "models are the score columns the rule fuses, the slot among them")
    return tuple(value)


def _provenance(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise SheetError(f"provenance: an object (where the critical scores come from), got "
                         f"{json_kind(value)}")
    for key in _PROVENANCE_COUNTS:
        v = value.get(key)
        if key in value and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise SheetError(f"provenance.{key}: a whole number >= 0, got {json_kind(v)}")
    for key in _PROVENANCE_TEXT:
        if key in value and not isinstance(value[key], str):
            raise SheetError(f"provenance.{key}: a string, got {json_kind(value[key])}")
    return dict(value)


def _per_class(value: Any, key: str, classes: list[Any], what: str) -> Mapping[str, Any]:
    """A field holding one entry per class (``critical``, ``offsets``), checked: an object
    whose keys are exactly ``classes``."""
    if not isinstance(value, Mapping) or set(value) != set(classes):
        raise SheetError(f"{key}: an object with {what}, got {json_kind(value)}" + (
            f" with keys {sorted(map(str, value))}" if isinstance(value, Mapping) else ""))
    return value


def score_sheet_fields(data: Any) -> tuple[dict[str, Any], str | None]:
    """The constructor's fields of a :class:`ScoreSheet` and the digest the file states.

    Every field's JSON type is checked before it is used: a wrong one is a
    :class:`~causalcost.errors.SheetError` naming the field (``labels: a list ["P", "N"], got
    null``), never a Python error.
    """
    if not isinstance(data, Mapping):
        raise SheetError(f"a score sheet is a JSON object, got {json_kind(data)}")
    if "offsets" in data and "critical" not in data:
        return _vector_fields(data)
    _keys(data, SCORE_KEYS)
    labels = data["labels"]
    if not isinstance(labels, list) or labels != list(CLASSES):
        raise SheetError(f"labels: a score sheet's labels are the list {list(CLASSES)}, got "
                         f"{json_kind(labels)}")
    slot = _string(data, "slot")
    if not slot:
        raise SheetError("slot: the slot's name, a non-empty string")
    critical = _per_class(data["critical"], "critical", list(CLASSES),
                          "one entry per class, 'P' and 'N'")
    stated, signature = _digest_and_signature(data)
    fields = {
        "slot": slot, "system_name": _string(data, "system_name"),
        "costs": _costs(data["costs"]), "rule": _string(data, "rule"),
        "models": _models(data["models"], slot),
        "critical": tuple(CriticalScores.from_dict(critical[c], f"critical.{c}")
                          for c in CLASSES),
        "provenance": _provenance(data["provenance"]), "created": _string(data, "created"),
        "causalcost_version": _string(data, "causalcost_version"),
        "signature": signature}
    if "score_range" in data:
        fields["score_range"] = _score_range(data["score_range"])
    return fields, stated


def _keys(data: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    """Unknown and missing keys, ``format`` and ``version``, refused by name."""
    unknown = sorted(set(map(str, data)) - set(keys) - set(OPTIONAL_SCORE_KEYS))
    missing = [k for k in keys if k not in data]
    if unknown:
        raise SheetError(f"unknown keys {unknown} in the score sheet; its keys are "
                         f"{list(keys)}")
    if missing:
        raise SheetError(f"missing keys {missing} in the score sheet")
    if data["format"] != SCORE_SHEET_FORMAT:
        shown = data["format"]
        shown = repr(shown) if isinstance(shown, str) and len(shown) <= 60 else json_kind(shown)
        raise SheetError(f"format: {shown} is not {SCORE_SHEET_FORMAT!r}")
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) \
            or version != SCORE_SHEET_VERSION:
        shown = repr(version) if isinstance(version, int) and not isinstance(version, bool) \
            and abs(version) < 10**6 else json_kind(version)
        raise SheetError(f"version: this causalcost reads score sheets of version "
                         f"{SCORE_SHEET_VERSION}, not {shown}; upgrade causalcost")


def _digest_and_signature(data: Mapping[str, Any]) -> tuple[str, Any]:
    digest = data["digest"]
    stated = digest.get("sha256") if isinstance(digest, Mapping) else None
    if not isinstance(stated, str) or set(digest) != {"sha256"}:
        raise SheetError(f"digest: an object {{'sha256': 'sha256:<hex>'}}, got "
                         f"{json_kind(digest)}")
    signature = data["signature"]
    if signature is not None and not isinstance(signature, Mapping):
        raise SheetError(f"signature: null or an object {{'algorithm', 'public_key', "
                         f"'value'}}, got {json_kind(signature)}")
    return stated, signature


def _vector_fields(data: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The fields of a K-label score sheet (``matrix`` and ``offsets``; see the module)."""
    _keys(data, VECTOR_SCORE_KEYS)
    labels = data["labels"]
    if not isinstance(labels, list) or len(labels) < 3 or not all(
            isinstance(v, str) and v for v in labels) or len(set(labels)) != len(labels):
        raise SheetError(f"labels: a K-label score sheet's labels are a list of K >= 3 "
                         f"distinct names (text), got {json_kind(labels)}")
    k = len(labels)
    slot = _string(data, "slot")
    if not slot:
        raise SheetError("slot: the slot's name, a non-empty string")
    from causalcost.pricing.score_fusions import FUSIONS

    fusion = data["fusion"]
    if fusion not in FUSIONS:  # a string among them (JSON's other kinds are never equal)
        raise SheetError(f"fusion: one of {list(FUSIONS)} (how the system fuses the members' "
                         f"vectors), got {json_kind(fusion)}")
    matrix = json_rows(data["matrix"], "matrix", k)
    if len(matrix) != k:
        raise SheetError(f"matrix: the slot's coefficients, {k} rows of {k} numbers, got "
                         f"{len(matrix)} rows")
    costs = json_rows(data["costs"], "costs", k)
    if len(costs) != k:
        raise SheetError(f"costs: {k} rows of {k} numbers (rows: the true class), got "
                         f"{len(costs)} rows")
    try:
        cost_matrix = as_costs(costs, tuple(labels))
    except CausalCostError as exc:
        raise SheetError(f"costs: {exc}") from None
    offsets = _per_class(data["offsets"], "offsets", labels,
                         f"one entry per label {labels}")
    stated, signature = _digest_and_signature(data)
    fields = {
        "slot": slot, "system_name": _string(data, "system_name"), "costs": cost_matrix,
        "critical": None, "rule": _string(data, "rule"),
        "models": _models(data["models"], slot), "labels": tuple(labels),
        "fusion": fusion, "matrix": matrix,
        "offsets": tuple(OffsetCells.from_dict(offsets[c], f"offsets.{c}", k)
                         for c in labels),
        "provenance": _provenance(data["provenance"]), "created": _string(data, "created"),
        "causalcost_version": _string(data, "causalcost_version"),
        "signature": signature}
    if "score_range" in data:
        fields["score_range"] = _score_range(data["score_range"])
    return fields, stated


def _score_range(value: Any) -> tuple[float, float]:
    """``score_range`` as written (:func:`score_range_json`): ``[low, high]``, null for an
    open end."""
    from causalcost.score_values import as_score_range

    if not isinstance(value, list) or len(value) != 2 or not all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
            for v in value):
        raise SheetError(f"score_range: a list [low, high] of numbers (null for an open "
                         f"end), got {json_kind(value)}")
    ends = (-math.inf if value[0] is None else value[0],
            math.inf if value[1] is None else value[1])
    try:
        return as_score_range(ends)
    except CausalCostError as exc:
        raise SheetError(f"score_range: {exc}") from None


def score_range_json(score_range: tuple[float, float]) -> list[float | None]:
    """A score range as JSON: ``[low, high]`` with ``null`` for an infinite end."""
    return [v if math.isfinite(v) else None for v in score_range]
