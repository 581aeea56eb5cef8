"""Reading any sheet file: a cost sheet (versions 1 to 4, any K) or a score sheet.

One entry for every kind a system owner issues: the ``format`` field says which, and the
matching reader validates the rest (:meth:`~causalcost.CostSheet.from_dict`,
:meth:`~causalcost.ScoreSheet.from_dict`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from causalcost.errors import CausalCostError, SheetError
from causalcost.files import read_text_file
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import strict_json_loads
from causalcost.sheet.score_format import SCORE_SHEET_FORMAT
from causalcost.sheet.score_sheet import ScoreSheet

__all__ = ["load_sheet", "sheet_from_dict"]


def load_sheet(path: str | Path) -> CostSheet | ScoreSheet:
    """Read and validate a sheet written by :meth:`~causalcost.CostSheet.save` (versions 1 to 4)
    or by :meth:`~causalcost.ScoreSheet.save`.

    Raises
    ------
    SheetError
        If the file is missing or not JSON, or as in :meth:`~causalcost.CostSheet.from_dict`
        (the message starts with the file name).

    Examples
    --------
    >>> import tempfile, causalcost as cc
    >>> from causalcost.sheet.derivation import derive_sheet
    >>> sheet = derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=5, fp=1),
    ...                      slot="clinical_history", prior=1 / 3, assumption="none",
    ...                      provenance={"source": "thesis §4, example 1"})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     again = load_sheet(sheet.save(f"{tmp}/sheet.json"))
    >>> again == sheet
    True
    """
    path = Path(path)
    try:
        data = strict_json_loads(read_text_file(path, "sheet"))
        return sheet_from_dict(data)
    except CausalCostError as exc:  # SheetError subclasses (SignatureError) keep their type
        cls = type(exc) if isinstance(exc, SheetError) else SheetError
        raise cls(f"{path.name}: {exc}") from None


def sheet_from_dict(data: Any) -> CostSheet | ScoreSheet:
    """A :class:`CostSheet` from its JSON object (versions 1 to 4, any K), or a
    :class:`~causalcost.sheet.score_sheet.ScoreSheet` from a score sheet's."""
    if isinstance(data, Mapping) and data.get("format") == SCORE_SHEET_FORMAT:
        return ScoreSheet.from_dict(data)
    return CostSheet.from_dict(data)
