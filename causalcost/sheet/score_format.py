"""Reading a score sheet's JSON object: the keys, their types, the digest.

The layout :meth:`~causalcost.sheet.score_sheet.ScoreSheet.to_dict` writes (format
``causalcost-score-sheet``, version 1): ``format``, ``version``, ``created``,
``causalcost_version``, ``slot``, ``system_name``, ``labels`` (``["P", "N"]``), ``costs``
(the four cells), ``rule``, ``models``, ``critical`` (per class ``breakpoints``, ``at``,
``between``, ``always``, ``never``), ``provenance``, ``digest`` and ``signature``, and
``score_range`` (``[low, high]``, ``null`` for an open end) where the rule takes scores other
than probabilities (absent: ``[0, 1]``, so sheets written before it read and verify as they
were). Unknown or missing keys are refused by name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from causalcost.confusion import CLASSES, CostMatrix
from causalcost.errors import CausalCostError, SheetError
from causalcost.sheet.critical import CriticalScores

__all__ = ["OPTIONAL_SCORE_KEYS", "SCORE_KEYS", "SCORE_SHEET_FORMAT", "SCORE_SHEET_VERSION",
           "score_range_json", "score_sheet_fields"]

#: ``format`` of a score sheet file (a vote sheet's is ``causalcost-sheet``).
SCORE_SHEET_FORMAT = "causalcost-score-sheet"
#: The version this causalcost writes.
SCORE_SHEET_VERSION = 1

SCORE_KEYS = ("format", "version", "created", "causalcost_version", "slot", "system_name",
              "labels", "costs", "rule", "models", "critical", "provenance", "digest",
              "signature")
#: Keys a sheet may leave out (absent: the default).
OPTIONAL_SCORE_KEYS = ("score_range",)


def _string(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise SheetError(f"{key}: a string, got {type(value).__name__}")
    return value


def score_sheet_fields(data: Any) -> tuple[dict[str, Any], str | None]:
    """The constructor's fields of a :class:`ScoreSheet` and the digest the file states."""
    if not isinstance(data, Mapping):
        raise SheetError("a score sheet is a JSON object")
    unknown = sorted(set(map(str, data)) - set(SCORE_KEYS) - set(OPTIONAL_SCORE_KEYS))
    missing = [k for k in SCORE_KEYS if k not in data]
    if unknown:
        raise SheetError(f"unknown keys {unknown} in the score sheet; its keys are "
                         f"{list(SCORE_KEYS)}")
    if missing:
        raise SheetError(f"missing keys {missing} in the score sheet")
    if data["format"] != SCORE_SHEET_FORMAT:
        raise SheetError(f"format: {data['format']!r} is not {SCORE_SHEET_FORMAT!r}")
    if isinstance(data["version"], bool) or data["version"] != SCORE_SHEET_VERSION:
        raise SheetError(f"version: this causalcost reads score sheets of version "
                         f"{SCORE_SHEET_VERSION}, not {data['version']!r}; upgrade causalcost")
    if list(data["labels"]) != list(CLASSES):
        raise SheetError(f"labels: a score sheet's labels are {list(CLASSES)}")
    critical = data["critical"]
    if not isinstance(critical, Mapping) or set(critical) != set(CLASSES):
        raise SheetError("critical: an object with one entry per class, 'P' and 'N'")
    try:
        costs = CostMatrix.from_mapping(data["costs"])
    except CausalCostError as exc:
        raise SheetError(f"costs: {exc}") from None
    models = data["models"]
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        raise SheetError("models: a list of the score columns' names")
    provenance = data["provenance"]
    if not isinstance(provenance, Mapping):
        raise SheetError("provenance: an object")
    digest = data["digest"]
    stated = digest.get("sha256") if isinstance(digest, Mapping) else None
    if not isinstance(stated, str):
        raise SheetError("digest: an object {'sha256': 'sha256:<hex>'}")
    fields = {
        "slot": _string(data, "slot"), "system_name": _string(data, "system_name"),
        "costs": costs, "rule": _string(data, "rule"), "models": tuple(models),
        "critical": tuple(CriticalScores.from_dict(critical[c], f"critical.{c}")
                          for c in CLASSES),
        "provenance": dict(provenance), "created": _string(data, "created"),
        "causalcost_version": _string(data, "causalcost_version"),
        "signature": data["signature"]}
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
        raise SheetError("score_range: a list [low, high] of numbers (null for an open end)")
    ends = (-math.inf if value[0] is None else value[0],
            math.inf if value[1] is None else value[1])
    try:
        return as_score_range(ends)
    except CausalCostError as exc:
        raise SheetError(f"score_range: {exc}") from None


def score_range_json(score_range: tuple[float, float]) -> list[float | None]:
    """A score range as JSON: ``[low, high]`` with ``null`` for an infinite end."""
    return [v if math.isfinite(v) else None for v in score_range]
