"""The JSON an earlier causalcost wrote for a sheet: version 1, 2 (binary) or 3 (labels).

Version 4 is written for every K; the earlier versions are still read, and their field checks
are tested on files made here from the same content writers their digests are checked with.
"""

from __future__ import annotations

from typing import Any

from causalcost.sheet.digest import content_digest
from causalcost.sheet.legacy import content_of_version


def as_version(sheet: Any, version: int) -> dict[str, Any]:
    """``sheet`` as a file of ``version`` (1: version 2 without digest and signature)."""
    body = content_of_version(sheet, 2 if version == 1 else version)
    if version == 1:
        return {**body, "version": 1}
    return {**body, "digest": {"sha256": content_digest(body)}, "signature": None}
