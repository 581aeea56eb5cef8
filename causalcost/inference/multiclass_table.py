"""The K-label interventional table ``T[c, j, s] = P(S = s | Class = c, do(M = j))``.

A :class:`MulticlassTable` holds it for every true class ``c``, forced slot label ``j`` and
system output ``s``, however it was obtained (exact contraction, sampling with intervals, or
forced-run counts), with the labels that name each axis.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcost.display import html_block, html_table
from causalcost.errors import UnknownNameError, ValidationError

__all__ = ["MulticlassTable"]


@dataclass(frozen=True, eq=False)
class MulticlassTable:
    """``T[c, j, s]`` of a K-label system, shape (K, K, K).

    Attributes
    ----------
    labels : tuple of str
        The labels of class, slot and system output (the same K names, in this order).
    slot : str
        The model intervened on.
    method : str
        ``"exact"``, ``"sampling"`` or ``"counts"``.
    probabilities : numpy.ndarray
        The table; every ``T[c, j, :]`` sums to 1.
    low, high : numpy.ndarray or None
        Interval bounds per cell (sampling), else ``None``.
    samples : int or None
        Simulated instances per forced label (sampling).

    Examples
    --------
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1
    >>> table = MulticlassTable(("a", "b", "c"), "m", "exact", t)
    >>> table.probability("a", "b", "b")
    1.0
    >>> table.to_frame().loc[("a", "b")].tolist()
    [0.0, 1.0, 0.0]
    """

    labels: tuple[str, ...]
    slot: str
    method: str
    probabilities: np.ndarray = field(repr=False)
    low: np.ndarray | None = field(default=None, repr=False)
    high: np.ndarray | None = field(default=None, repr=False)
    samples: int | None = None
    confidence: float | None = None

    def __post_init__(self) -> None:
        p = np.asarray(self.probabilities, dtype=float)
        k = len(self.labels)
        if p.shape != (k, k, k):
            raise ValidationError(f"probabilities must have shape {(k, k, k)}, got {p.shape}")
        if np.any(p < -1e-12) or not np.allclose(p.sum(axis=2), 1.0, atol=1e-9):
            raise ValidationError("every row T[c, j, :] must be a probability distribution")
        object.__setattr__(self, "probabilities", p)

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def to_numpy(self) -> np.ndarray:
        """A copy of ``T[c, j, s]``."""
        return self.probabilities.copy()

    def _index(self, label: str, what: str) -> int:
        try:
            return self.labels.index(str(label))
        except ValueError:
            raise UnknownNameError(f"{what} {label!r} is not a label; labels: "
                                   f"{list(self.labels)}") from None

    def probability(self, true_class: str, forced: str, output: str) -> float:
        """``P(S = output | Class = true_class, do(slot = forced))``."""
        return float(self.probabilities[self._index(true_class, "true_class"),
                                        self._index(forced, "forced"),
                                        self._index(output, "output")])

    def forced_counts(self, class_sizes: object) -> np.ndarray:
        """Expected forced runs ``F[j, c, s] = n_c T[c, j, s]`` for the class sizes ``n_c``."""
        n = np.asarray(class_sizes, dtype=float)
        if n.shape != (self.k,) or np.any(n < 0):
            raise ValidationError(f"class_sizes must be {self.k} non-negative numbers")
        return np.transpose(self.probabilities * n[:, None, None], (1, 0, 2))

    def to_frame(self) -> pd.DataFrame:
        """Rows ``(true class, forced label)``, columns the system outputs."""
        idx = pd.MultiIndex.from_product([list(self.labels)] * 2, names=["class", "forced"])
        return pd.DataFrame(self.probabilities.reshape(self.k * self.k, self.k), index=idx,
                            columns=pd.Index(list(self.labels), name="output"))

    def __repr__(self) -> str:
        extra = f", samples={self.samples}" if self.samples else ""
        return (f"MulticlassTable(slot={self.slot!r}, labels={list(self.labels)}, "
                f"method={self.method!r}{extra})")

    def _repr_html_(self) -> str:
        return html_block(f"Interventional table of {self.slot!r}",
                          [f"P(output | class, do({self.slot} = forced)), {self.method}"],
                          html_table(self.to_frame()))
