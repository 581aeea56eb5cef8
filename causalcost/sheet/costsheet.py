"""The cost sheet: what a system owner derives once and hands to the owners of one model slot.

Judging a candidate for the slot needs the slot's interventional table ``T[c, j, s]`` (the
system's output ``s`` for a class-``c`` instance with the slot forced to ``j``) and the
system's costs ``C[c, s]``, and nothing else about the system. A :class:`CostSheet` is that
knowledge as a versioned JSON artifact, for any number K of labels (a binary sheet is K = 2,
labels positive first): the owner of the whole system derives it once (from the network, from
forced runs of the real system or from logged predictions), and every model owner evaluates
candidates against it alone with :func:`causalcost.evaluate`. The sheet holds

* the slot and system names, and the *provenance* (network file hash, or a description of the
  data the forced runs were counted on);
* the ``labels``, the ``costs`` ``C[c, s]`` (rows the true class) and the ``table`` (an
  :class:`~causalcost.InterventionalTable`, with its method, intervals and sample sizes when
  known);
* the forced runs ``F[j, c, s]`` when they were counted on data (a candidate counted on the
  same instances gets the count-form worst case, any other the probability form), and the
  ``kinds`` (response vectors) when those were kept;
* the class sizes of the evaluation set (``class_sizes``) and the class prior per label
  (``class_prior``), when known;
* the assumption the worst case rests on (``"monotone"`` or ``"none"``) and the evidence for a
  monotone one (``monotonicity``): a check of the system, counts on data, or the system owner's
  declaration (which every report repeats);
* the ``digest``, SHA-256 of everything above (:mod:`causalcost.sheet.digest`), and optionally
  the owner's Ed25519 ``signature`` over it (:mod:`causalcost.sheet.signing`).

The binary names (``rates``, ``forced_p``, ``class_counts``, ``prior``, ...) are views of these
fields for two labels (:mod:`causalcost.sheet.views`). Every K is written as format
version 4 (:mod:`causalcost.sheet.format4`); versions 1 to 3 still load
(:mod:`causalcost.sheet.legacy`). Checks: :mod:`causalcost.sheet.validation`; display:
:mod:`causalcost.sheet.display`; derivation: :mod:`causalcost.sheet.derivation`.

Examples
--------
>>> import causalcost as cc
>>> from causalcost.sheet.derivation import derive_sheet
>>> table = cc.interventional_table(cc.load_network("thesis_and"))
>>> sheet = derive_sheet(table, cc.CostMatrix(fn=5, fp=1), prior=1 / 3,
...                      provenance={"source": "network", "network": "thesis_and"})
>>> sheet.expected_cost_matrix
ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')
>>> sheet.labels, sheet.to_dict()["version"]
(('P', 'N'), 4)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CostMatrix
from causalcost.errors import CausalCostError, SheetError
from causalcost.files import write_atomic
from causalcost.inference.table import InterventionalTable
from causalcost.sheet import display
from causalcost.sheet.digest import content_digest, created_now
from causalcost.sheet.format4 import content_v4
from causalcost.sheet.legacy import content_of_version
from causalcost.sheet.reading import check_written_form, sheet_fields
from causalcost.sheet.schema import LABELLED_VERSION, SHEET_FORMAT, SHEET_VERSION
from causalcost.sheet.signature import SignedSheet
from causalcost.sheet.views import SheetViews

__all__ = ["LABELLED_VERSION", "SHEET_FORMAT", "SHEET_VERSION", "CostSheet"]




@dataclass(frozen=True, eq=False)
class CostSheet(SheetViews, SignedSheet):
    """Everything a model owner needs to judge candidates for one slot, and where it came from.

    Build one with :func:`~causalcost.derive_sheet`, :func:`~causalcost.sheet_from_network`,
    :func:`~causalcost.sheet_from_data` or :func:`~causalcost.sheet_from_forced_runs`, or
    from its fields (checked like a loaded sheet); read one with :func:`load_sheet`. Invalid or
    disagreeing fields raise :class:`~causalcost.errors.SheetError`. Two sheets are equal when
    their :meth:`to_dict` forms are.

    Attributes
    ----------
    slot, system_name : str
        The model slot the sheet prices, and the system it belongs to.
    labels : tuple of str
        The K labels in the order of every axis (binary: ``("P", "N")``, positive first).
    costs : CostMatrix
        ``C[c, s]`` over the labels, rows the true class (an array, a labelled frame or a
        binary ``CostMatrix(fn=.., fp=..)`` is accepted).
    table : InterventionalTable
        ``T[c, j, s]``, with its method, intervals and sample sizes when known (an array is
        accepted: then ``table_detail`` is False).
    assumption : str
        ``"monotone"`` or ``"none"``: what the worst and best cases rest on.
    monotonicity : dict or None
        The evidence for the monotone assumption (``"source"``: ``"network"``, ``"data"`` or
        ``"declared"``); required with ``assumption="monotone"``.
    provenance : dict
        Where the numbers come from (``{"source": "network", "file": .., "sha256": ..}``,
        ``{"source": "data", "description": ..}`` or ``{"source": "unspecified"}``).
    created, causalcost_version : str
        When and by which causalcost the sheet was derived (default: now, this one).
    forced, kinds : numpy.ndarray, Kinds or None
        ``F[j, c, s]`` counts and the response vectors, when counted on data.
    class_sizes, class_prior : numpy.ndarray or None
        Instances per class of the evaluation set (the forced runs' when counted) and
        ``P(Class = c)`` per label (from the class sizes when those are given).
    read_version : int
        The version of the file the sheet was read from (version 1 has no digest; a version 2
        or 3 sheet keeps the digest it was issued with).
    signature : dict or None
        The system owner's Ed25519 signature over :attr:`digest` (:func:`~causalcost.sign_sheet`).
    table_detail : bool
        Whether the table's method, intervals and sample sizes are known.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> sheet.slot, sheet.form, round(sheet.prior, 6), sheet.assumption
    ('clinical_history', 'probability', 0.333333, 'monotone')
    >>> cc.CostSheet.from_dict(sheet.to_dict()) == sheet
    True

    Three labels, from a table ``T[c, j, s]`` (the slot forced to ``j`` decides):

    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1.0
    >>> sheet = cc.CostSheet(slot="m", system_name="s", labels=("a", "b", "c"),
    ...                      costs=1 - np.eye(3), table=t, created="2026-01-01T00:00:00+00:00")
    >>> sheet.m1.tolist()[0], sheet.to_dict()["version"], sheet.k, sheet.binary
    ([0.0, 1.0, 1.0], 4, 3, False)
    >>> cc.CostSheet.from_dict(sheet.to_dict()) == sheet
    True
    """

    slot: str
    system_name: str
    labels: tuple[str, ...]
    costs: CostMatrix
    table: InterventionalTable
    assumption: str = "none"
    monotonicity: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=lambda: {"source": "unspecified"})
    created: str | None = None
    causalcost_version: str | None = None
    forced: np.ndarray | None = field(default=None, repr=False)
    kinds: Any = field(default=None, repr=False)
    class_sizes: np.ndarray | None = field(default=None, repr=False)
    class_prior: np.ndarray | None = field(default=None, repr=False)
    read_version: int = field(default=SHEET_VERSION, repr=False)
    signature: dict[str, str] | None = field(default=None, repr=False)
    table_detail: bool = field(default=True, repr=False)

    def __post_init__(self) -> None:
        from causalcost.sheet.validation import check_sheet, normalise

        if self.created is None:
            object.__setattr__(self, "created", created_now())
        if self.causalcost_version is None:
            from causalcost import __version__

            object.__setattr__(self, "causalcost_version", __version__)
        if not isinstance(self.table, InterventionalTable):
            object.__setattr__(self, "table_detail", False)
        for name, value in normalise(self).items():
            object.__setattr__(self, name, value)
        check_sheet(self)
        self._take_signature()

    # -- re-pricing -----------------------------------------------------------------------
    def with_costs(self, costs: Any) -> CostSheet:
        """The same sheet priced with other system costs ``C[c, s]``: a new, unsigned sheet
        with a new digest, checked like any other (:func:`~causalcost.sheet.repricing.reprice`
        says what is kept and what is checked again).

        Examples
        --------
        >>> import causalcost as cc
        >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
        >>> repriced = sheet.with_costs(cc.CostMatrix(fn=10, fp=1))
        >>> repriced.expected_cost_matrix
        ModelCostMatrix(tp=2, fn=10, fp=0.2, tn=0, kind='expected')
        >>> repriced.provenance["repriced_from"] == sheet.digest != repriced.digest
        True
        """
        from causalcost.sheet.repricing import reprice

        return reprice(self, costs)

    # -- serialisation --------------------------------------------------------------------
    def _content(self) -> dict[str, Any]:
        """Every field but the digest, in the form of the version the sheet was read in
        (version 4 for a new sheet): the content :attr:`digest` is taken over."""
        if self.read_version in (2, 3):
            return content_of_version(self, self.read_version)
        return content_v4(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready sheet in format version 4: every field (``None`` where unknown),
        ``digest``: ``{"sha256": "sha256:<hex>"}`` over the rest, and ``signature`` (None when
        unsigned; a sheet read from version 2 or 3 is written unsigned: its signature covers
        the digest of the form it was issued in)."""
        body = content_v4(self)
        signed = self.signature is not None and self.read_version not in (2, 3)
        return {**body, "digest": {"sha256": content_digest(body)},
                "signature": dict(self.signature) if signed else None}  # type: ignore[arg-type]

    @cached_property
    def digest(self) -> str:
        """``"sha256:<hex>"`` of the sheet's canonical content: what reports echo, so the
        system owner can tell a report was computed on the sheet they issued (a sheet read
        from version 2 or 3: the digest it was issued with)."""
        return content_digest(self._content())

    @property
    def verified(self) -> bool:
        """Whether the file it was read from carried a digest (version 2 and later)."""
        return self.read_version >= 2

    def to_json(self, indent: int | None = 2) -> str:
        """The sheet as JSON text (format version 4)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | Path) -> Path:
        """Write the sheet as JSON to ``path`` (UTF-8) and return the path."""
        return write_atomic(path, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CostSheet:
        """Validate and rebuild a sheet from its JSON object (versions 1 to 4).

        Raises
        ------
        SheetError
            For another format or version, unknown or missing fields (the message names them),
            wrong types, rates outside [0, 1], an invalid cost matrix, derived numbers that
            disagree with the table and costs, or a digest that does not match the content.
        """
        fields, after = sheet_fields(data)
        try:
            sheet = cls(**fields)
        except SheetError:
            raise
        except (CausalCostError, TypeError, ValueError) as exc:
            raise SheetError(f"invalid sheet: {exc}") from None
        after(sheet)
        check_written_form(data, sheet)
        return sheet

    # -- display --------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Two labels: the four rates, one row per (class, forced slot value), with intervals
        when known (columns ``rate``, ``symbol``, ``ci_low``, ``ci_high``, ``n``). More labels:
        ``M1`` and ``M2``, rows (function, true class), columns the slot's prediction."""
        return display.sheet_frame(self)

    def __str__(self) -> str:
        return display.sheet_text(self)

    def __repr__(self) -> str:
        return display.sheet_repr(self)

    def _repr_html_(self) -> str:
        return display.sheet_html(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostSheet):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.to_json(indent=None))
