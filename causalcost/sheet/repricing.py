"""Re-pricing a sheet: the same table, forced runs and evidence under other system costs.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> sheet = cc.derive_sheet(np.stack([np.eye(3)] * 3), 1 - np.eye(3), slot="m",
...                         labels=["a", "b", "c"], assumption="none")
>>> reprice(sheet, 2 * (1 - np.eye(3))).m1[0].tolist()
[0.0, 2.0, 2.0]
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any

import numpy as np

from causalcost.confusion import CostMatrix
from causalcost.sheet.schema import SHEET_VERSION

__all__ = ["reprice"]


def reprice(sheet: Any, costs: Any) -> Any:
    """The same sheet priced with other system costs: a new sheet, with a new digest.

    The table, the forced runs, the kinds, the class sizes and the monotonicity evidence
    do not depend on the costs, so they are kept; the model cost matrices follow the new
    costs, and the new sheet is checked like any other (the monotone assumption against
    its evidence for the new costs: the kinds counted on data are re-checked, and a check
    of the system made for other costs is refused). Its provenance is the parent's with
    ``"repriced_from"``: the parent's digest; it is unsigned (a signature covers one digest:
    re-pricing a signed sheet warns with a :class:`~causalcost.errors.CausalCostWarning`)
    and stamped with the time of re-pricing.

    Parameters
    ----------
    sheet : CostSheet
        The parent sheet.
    costs : CostMatrix or (K, K) matrix
        The new system costs ``C[c, s]`` (rows the true class): a
        :class:`~causalcost.CostMatrix`, an array, a frame labelled with the labels, or
        any object with ``to_numpy()``; labelled costs are matched by name.

    Returns
    -------
    CostSheet

    Raises
    ------
    InputTypeError
        If ``costs`` is not a matrix.
    SheetError
        Costs of another shape or labels, or the monotone assumption false for them.
    """
    from causalcost.errors import InputTypeError

    if not (isinstance(costs, (CostMatrix, np.ndarray, list, tuple))
            or hasattr(costs, "to_numpy")):
        raise InputTypeError(f"costs must be a CostMatrix, e.g. cc.CostMatrix(fn=5, fp=1), "
                             f"or a {sheet.k} x {sheet.k} array (rows the true class); got "
                             f"{type(costs).__name__}")
    if sheet.signature is not None:
        from causalcost.errors import CausalCostWarning

        warnings.warn("the re-priced sheet is unsigned: the parent's signature covers the "
                      "parent's digest only; sign the new sheet (cc.sign_sheet)",
                      CausalCostWarning, stacklevel=3)
    return replace(sheet, costs=costs, provenance={**sheet.provenance,
                                                  "repriced_from": sheet.digest},
                   created=None, causalcost_version=None, read_version=SHEET_VERSION,
                   signature=None)

