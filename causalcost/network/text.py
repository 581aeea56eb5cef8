"""Names in messages: plain Python values, never numpy reprs (no pgmpy, no numpy import cost)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["names", "plain"]


def plain(values: Iterable[Any]) -> list[Any]:
    """Values as plain Python objects for a message: numpy strings and numbers unwrapped.

    >>> import numpy as np
    >>> plain([np.str_("neg"), np.int64(1), "P"])
    ['neg', 1, 'P']
    """
    return [v if type(v) is str else  # the common case, decided at once
            v.item() if hasattr(v, "item") and type(v).__module__ == "numpy" else v
            for v in values]


def names(items: Iterable[Any]) -> str:
    """``'a', 'b'``: sorted names, quoted, for a message.

    >>> names(["b", "a"])
    "'a', 'b'"
    """
    return ", ".join(repr(str(i)) for i in sorted(map(str, items)))
