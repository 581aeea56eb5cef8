"""Reading a sheet's JSON object: the reader of its version, and the form it was written in.

:func:`sheet_fields` checks the format and the version and hands the object to the reader of
that version (:mod:`causalcost.sheet.format4`, or :mod:`causalcost.sheet.legacy` for versions
1 to 3): the :class:`~causalcost.CostSheet` keyword arguments. The sheet then checks that its
fields agree (:mod:`causalcost.sheet.validation`), and :func:`check_written_form` that the file
is in the form this causalcost writes for its version, so that reports echo the digest the
owner issued.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from causalcost.errors import SheetError
from causalcost.sheet.digest import UNSIGNED_FIELDS
from causalcost.sheet.format4 import fields_v4
from causalcost.sheet.legacy import legacy_fields
from causalcost.sheet.schema import READ_VERSIONS, SHEET_FORMAT, SHEET_VERSION

__all__ = ["check_written_form", "sheet_fields"]


def sheet_fields(data: Any) -> tuple[dict[str, Any], Callable[[Any], None]]:
    """Validate a sheet's JSON object field by field, for its version: the
    :class:`~causalcost.CostSheet` keyword arguments, and the checks to run on the sheet built
    from them (its stored derived numbers against the recomputed ones)."""
    if not isinstance(data, Mapping):
        raise SheetError(f"a cost sheet must be a JSON object, got {type(data).__name__}")
    if "format" not in data:
        raise SheetError(f"missing required field 'format': not a causalcost cost sheet "
                         f"(expected format {SHEET_FORMAT!r})")
    if data["format"] != SHEET_FORMAT:
        from causalcost.sheet.critical import json_kind

        raise SheetError(f"field 'format' is {json_kind(data['format'])}: not a causalcost "
                         f"cost sheet (expected {SHEET_FORMAT!r})")
    versions = ", ".join(map(str, READ_VERSIONS))
    if "version" not in data:
        raise SheetError(f"missing required field 'version' (this causalcost reads versions "
                         f"{versions})")
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version not in READ_VERSIONS:
        raise SheetError(f"sheet version {version!r} is not supported: this causalcost reads "
                         f"versions {versions} (whole numbers); derive the sheet again with it")
    if version == SHEET_VERSION:
        return fields_v4(data)
    return legacy_fields(data, version)


def check_written_form(data: Mapping[str, Any], sheet: Any) -> None:
    """A sheet with a digest is in the form this causalcost writes for its version, so the
    digest reports echo is the one in the file."""
    if sheet.verified and sheet.digest != data["digest"]["sha256"]:
        where = _first_difference(data, sheet._content())
        raise SheetError(
            "the sheet's digest matches its content, but the content is not in the form "
            f"this causalcost writes (field {where!r} differs from the value it implies; "
            "e.g. 100.0 where a count 100 goes, a recomputed number edited, or an optional "
            "field left out): reports would echo another digest than the issued one; issue "
            "it again with CostSheet.save")


def _first_difference(given: Any, written: Any, where: str = "") -> str:
    """The dotted path of the first field where the JSON read and the JSON written differ."""
    if isinstance(given, Mapping) and isinstance(written, Mapping):
        for key in sorted(set(given) | set(written)):
            if key in UNSIGNED_FIELDS:
                continue
            here = f"{where}.{key}" if where else str(key)
            if key not in given or key not in written:
                return here
            found = _first_difference(given[key], written[key], here)
            if found:
                return found
        return ""
    if isinstance(given, list) and isinstance(written, list) and len(given) == len(written):
        for i, (a, b) in enumerate(zip(given, written)):
            found = _first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        return ""
    same = type(given) is type(written) and given == written
    return "" if same else (where or "(the whole sheet)")
