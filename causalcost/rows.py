"""Rows of one data set named by their index: a candidate's values put in the rows' order.

A pandas Series carries its rows' labels; anything else is taken in the order given. This is
the one place that decides whether a Series may be read against other rows (votes, scores,
true classes alike).
"""

from __future__ import annotations

from typing import Any

from causalcost.errors import DataError

__all__ = ["align_by_index"]


def align_by_index(values: Any, index: Any, what: str, against: str = "y_true") -> Any:
    """A pandas Series ``values`` in the row order of ``index`` (a pandas Index): as is when
    the indexes are equal, reindexed when they hold the same unique labels in another order,
    refused otherwise; anything that is not a Series is returned as given (its order is the
    rows' order). With ``index=None`` (rows without an index: an array, a list) a Series is
    read by position only when its index is the default ``0 .. n-1``, and refused otherwise.

    >>> import pandas as pd
    >>> align_by_index(pd.Series([1, 2], index=["b", "a"]), pd.Index(["a", "b"]), "p").tolist()
    [2, 1]

    Raises
    ------
    DataError
        A Series whose index holds other (or repeated) labels.
    """
    import pandas as pd

    if not isinstance(values, pd.Series):
        return values
    given = values.index
    if index is None:
        if isinstance(given, pd.RangeIndex) and given.equals(pd.RangeIndex(len(values))):
            return values
        raise DataError(f"{what} is a pandas Series with its own index, but {against} has no "
                        f"index to align it with: pass {what}.to_numpy() in {against}'s row "
                        "order (or both as pandas Series on the same index)")
    if given.equals(index):
        return values
    if (index.is_unique and given.is_unique and len(given) == len(index)
            and index.isin(given).all()):
        return values.reindex(index)
    raise DataError(
        f"{what} is a pandas Series whose index does not match {against}'s ({len(given)} labels "
        f"for {len(index)} rows, or other labels): align it ({what}.reindex({against}.index)) "
        "or pass both as arrays in the same row order")
