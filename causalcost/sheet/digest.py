"""A sheet's fingerprint, and JSON read strictly.

The *digest* is SHA-256 over a canonical serialisation of the sheet's content: every field
but ``digest`` and ``signature``, serialised with sorted keys, no spaces, ASCII escapes and no
NaN or infinity. It is written on save and verified on load, so a sheet edited after it was
issued is refused even when the edit is consistent (costs changed and the derived matrices
recomputed), and every report echoes it so that a system owner can tell that a model owner's
numbers come from the sheet they issued.

Reading is strict: duplicate keys (where plain ``json`` keeps the last), ``NaN`` and
``Infinity``, numbers that overflow a float (``1e309``), integers beyond 2**53 and nesting
deep enough to exhaust the stack are all refused with a :class:`~causalcost.errors.SheetError`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from causalcost.errors import SheetError

__all__ = ["UNSIGNED_FIELDS", "canonical_json", "content_digest", "created_now",
           "strict_json_loads"]

#: Fields outside the digest: the digest itself and a signature over it.
UNSIGNED_FIELDS = ("digest", "signature")
_MAX_INT = 2**53


def created_now() -> str:
    """The ``created`` stamp of a new sheet: the UTC time to the second, ISO 8601."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def canonical_json(content: Mapping[str, Any]) -> str:
    """The canonical text the digest is taken over (no digest or signature fields).

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [1.5, "é"], "digest": "x"})
    '{"a":[1.5,"\\\\u00e9"],"b":1}'
    """
    body = {k: v for k, v in content.items() if k not in UNSIGNED_FIELDS}
    try:
        return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                          allow_nan=False)
    except ValueError as exc:
        raise SheetError(f"a sheet cannot hold NaN or infinite numbers: {exc}") from None


def content_digest(content: Mapping[str, Any]) -> str:
    """``"sha256:<hex>"`` of :func:`canonical_json`.

    Examples
    --------
    >>> content_digest({"a": 1}) == content_digest({"a": 1, "digest": {"sha256": "old"}})
    True
    >>> content_digest({"a": 1}) == content_digest({"a": 2})
    False
    """
    return "sha256:" + hashlib.sha256(canonical_json(content).encode("ascii")).hexdigest()


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise SheetError(f"duplicate key {key!r} in the sheet: each field must appear once")
        out[key] = value
    return out


def _constant(name: str) -> float:
    raise SheetError(f"the sheet holds {name}, which is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise SheetError(f"number {text[:40]} overflows a float: sheets hold finite numbers")
    return value


def _int(text: str) -> int:
    if len(text) > 20 or abs(int(text)) > _MAX_INT:
        raise SheetError(f"integer {text[:40]}{'...' if len(text) > 40 else ''} is beyond 2**53: "
                         "sheets hold counts a float represents exactly")
    return int(text)


def strict_json_loads(text: str) -> Any:
    """``json.loads`` refusing duplicate keys, NaN/Infinity, overflow and runaway nesting.

    Examples
    --------
    >>> strict_json_loads('{"a": 1, "b": [2.5]}')
    {'a': 1, 'b': [2.5]}
    >>> strict_json_loads('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    causalcost.errors.SheetError: duplicate key 'a' in the sheet: each field must appear once
    """
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_constant,
                          parse_float=_float, parse_int=_int)
    except SheetError:
        raise
    except RecursionError:
        raise SheetError("the sheet is nested too deeply to be a cost sheet") from None
    except json.JSONDecodeError as exc:
        raise SheetError(f"not valid JSON: {exc}") from None
    except ValueError as exc:  # int() of a too-long literal (Python's digit limit)
        raise SheetError(f"not a valid number in the sheet: {exc}") from None
