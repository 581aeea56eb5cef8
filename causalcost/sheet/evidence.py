"""The monotonicity evidence a derived sheet stores, and the stamps every derivation shares.

The monotone assumption needs evidence (one rule for every K): a check of the system (the
network's :class:`~causalcost.inference.monotonicity.MonotonicityCheck`, or for K labels
:func:`causalcost.check_monotonicity` for the costs), counts on data (:func:`data_evidence`), or
the system owner's declaration (:data:`DECLARED`, unchecked: every report says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import InputTypeError, ValidationError
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.pricing.kinds import _read_kinds
from causalcost.pricing.witness import KINDS

__all__ = ["DECLARED", "data_evidence"]


def _version() -> str:
    from causalcost import __version__  # late: the package imports this module

    return __version__


#: The owner's declaration, when no check backs the monotone assumption.
DECLARED = {"source": "declared", "by": "system owner", "is_monotone": True}


def _monotonicity_dict(m: MonotonicityCheck | pd.DataFrame | Mapping[str, Any] | str | None,
                       ) -> dict[str, Any] | None:
    """The evidence as stored: a network check, data counts, or the declaration."""
    if m is None:
        return None
    if isinstance(m, str):
        if m != "declared":
            raise ValidationError(f"monotonicity ({m!r}) must be a MonotonicityCheck, its "
                                  "to_dict(), a data record or 'declared'")
        return dict(DECLARED)
    if isinstance(m, pd.DataFrame):
        return data_evidence(m)
    if isinstance(m, MonotonicityCheck):
        return {"source": "network", **m.to_dict()}
    if isinstance(m, Mapping) and isinstance(m.get("is_monotone"), bool):
        return {"source": "network", **m} if "source" not in m else dict(m)
    raise InputTypeError("monotonicity must be a MonotonicityCheck, its to_dict(), a data "
                         f"record or 'declared', got {type(m).__name__}")


def data_evidence(kinds: pd.DataFrame) -> dict[str, Any]:
    """The monotonicity evidence of counted instance kinds (:func:`causalcost.count_kinds`).

    The system is monotone in the slot on these instances when none of them fails only
    because the slot is right (no ``right_only`` instance). The record keeps the kinds, so a
    sheet shows what its assumption rests on.

    Examples
    --------
    >>> import causalcost as cc
    >>> kinds = cc.kinds_frame({"never": 70, "wrong_only": 20, "always": 10},
    ...                        {"never": 180, "wrong_only": 15, "always": 5})
    >>> e = data_evidence(kinds)
    >>> e["source"], e["is_monotone"], e["right_only"]
    ('data', True, 0)
    """
    counts = _read_kinds(kinds)
    right_only = sum(c[KINDS.index("right_only")] for c in counts.values())
    return {"source": "data", "is_monotone": right_only == 0, "right_only": right_only,
            "kinds": {cls: dict(zip(KINDS, c)) for cls, c in counts.items()}}


def labelled_evidence(m: Any, costs: np.ndarray) -> dict[str, Any] | None:
    """The evidence of a sheet with labels: a check of the system for ``costs``, a record,
    or the owner's declaration."""
    if m is None:
        return None
    if isinstance(m, str):
        return _monotonicity_dict(m)
    if hasattr(m, "is_monotone") and hasattr(m, "checked"):  # check_monotonicity
        return {"source": "network", "is_monotone": bool(m.is_monotone),
                "violation": m.violation, "checked": int(m.checked), "costs": costs.tolist()}
    if isinstance(m, Mapping) and isinstance(m.get("is_monotone"), bool):
        return dict(m)
    raise InputTypeError("monotonicity must be check_monotonicity(...), a record "
                         f"with is_monotone, or 'declared', got {type(m).__name__}")
