"""The cost sheet: what a system owner derives once and hands to the owners of one model slot.

Judging a candidate for the slot needs the slot's interventional error rates
``e_P(P), e_P(N), e_N(P), e_N(N)`` and the system's cost matrix, and nothing else about the
system. A :class:`CostSheet` is that knowledge as a versioned JSON artifact: the owner of the
whole system derives it once (from the network, or from two forced runs of the real system),
and every model owner evaluates candidates against it alone with
:func:`causalcost.evaluation.report.evaluate`. The sheet holds

* the slot and system names, and the *provenance* (network file hash, or a description of the
  data the forced runs were counted on);
* the class sizes of the evaluation set (``class_counts``) or the class prior;
* the rates, and the interventional table behind them with its intervals and sample sizes
  when the table was sampled or counted;
* the forced runs themselves when they were counted on data: a candidate counted on the same
  instances gets the count-form worst case (slides), any other the probability form
  ``F = e x n`` (thesis);
* the system cost matrix and the derived model cost matrices (cost functions 1 and 2);
* the assumption the worst case rests on (``"monotone"`` or ``"none"``) and the evidence for
  a monotone one (``monotonicity``): the network's exact check, counts on data with no
  ``right_only`` instance, or the system owner's declaration (which every report repeats);
* the ``digest``, SHA-256 of everything above (:mod:`causalcost.sheet.digest`), and optionally
  the owner's Ed25519 ``signature`` over it (:mod:`causalcost.sheet.signing`).

A sheet with labels (any number K of classes: from K-label forced runs, a K-label system or
a table ``T[c, j, s]``) is the same type: it holds the labels, the costs ``C[c, s]``, the
table, the forced runs ``F[j, c, s]`` and the kinds (response vectors) when counted on data,
and the evidence for a monotone assumption, and is written as version 3. The general views
(:attr:`CostSheet.label_names`, :attr:`~CostSheet.costs_array`, :attr:`~CostSheet.table_array`,
:attr:`~CostSheet.forced`, :attr:`~CostSheet.m1`, :attr:`~CostSheet.m2`,
:attr:`~CostSheet.class_sizes`) read every sheet, binary ones included; the binary names
(``rates``, ``forced_p``, ``expected_cost_matrix``, ...) are those of a binary sheet.

Loading validates format, version, the digest (and a signature), every field's presence, type
and range, and recomputes the derived matrices: a sheet edited after it was issued, or whose
numbers disagree with each other, is refused, never used. Version 1 sheets (no digest) still
load, and every report says their content cannot be verified. The JSON schema and its reader
live in :mod:`causalcost.sheet.schema`, the field and consistency checks every sheet passes on
construction in :mod:`causalcost.sheet.checks`; deriving a sheet (from a network or from forced
runs) lives in :mod:`causalcost.sheet.derivation`.

Examples
--------
>>> import causalcost as cc
>>> from causalcost.sheet.derivation import derive_sheet
>>> table = cc.interventional_table(cc.load_network("thesis_and"))
>>> sheet = derive_sheet(table, cc.CostMatrix(fn=5, fp=1), prior=1 / 3,
...                      provenance={"source": "network", "network": "thesis_and"})
>>> sheet.expected_cost_matrix
ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')
>>> sheet.to_dict()["version"]
2
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion, CostMatrix
from causalcost.display import format_cells, html_block, html_table
from causalcost.errors import CausalCostError, SheetError
from causalcost.files import read_text_file, write_atomic
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.inference.table import OUTCOMES, ErrorRates, InterventionalTable
from causalcost.pricing.costs import ModelCostMatrix
from causalcost.sheet.checks import _check_consistency, _check_fields, check_labelled
from causalcost.sheet.digest import UNSIGNED_FIELDS, content_digest, strict_json_loads
from causalcost.sheet.schema import (
    _RATE_NAMES,
    LABELLED_VERSION,
    SHEET_FORMAT,
    SHEET_VERSION,
    _sheet_fields,
    check_labelled_derived,
)
from causalcost.sheet.signature import check_signature, key_fingerprint, read_signature

__all__ = [
    "LABELLED_VERSION",
    "SHEET_FORMAT",
    "SHEET_VERSION",
    "CostSheet",
    "load_sheet",
]

# ---------------------------------------------------------------------------------- the sheet
@dataclass(frozen=True, eq=False)
class CostSheet:
    """Everything a model owner needs to judge candidates for one slot, and where it came from.

    Build one with :func:`~causalcost.sheet.derivation.derive_sheet`,
    :func:`~causalcost.sheet.derivation.sheet_from_network` or
    :func:`~causalcost.sheet.derivation.sheet_from_forced_runs`; read one with :func:`load_sheet`.
    The constructor checks that the fields agree with each other and raises
    :class:`~causalcost.errors.SheetError` otherwise. Two sheets are equal when their
    :meth:`to_dict` forms are.

    Attributes
    ----------
    slot, system_name : str
        The model slot the sheet prices, and the system it belongs to.
    rates : ErrorRates
        The slot's interventional error rates.
    table : InterventionalTable or None
        The interventional table behind ``rates`` (with intervals and sample sizes when sampled
        or counted), if known.
    forced_p, forced_n : Confusion or None
        The system's confusion with the slot forced to P / N, when counted on data. Then the
        worst case uses the count form and candidates must have exactly ``class_counts``.
    class_counts : tuple of (int, int) or None
        Positives and negatives of the evaluation set candidates must be counted on.
    prior : float or None
        ``P(Class = P)``. With only a prior, each candidate's own class sizes are used.
    costs : CostMatrix
        The system's cost matrix.
    expected_cost_matrix, error_transition_matrix : ModelCostMatrix
        Cost functions 1 and 2, derived from ``rates`` and ``costs``.
    assumption : str
        ``"monotone"`` or ``"none"``: what the worst and best cases rest on.
    monotonicity : dict or None
        The evidence for the monotone assumption: ``{"source": "network", ...}`` (the
        network's :meth:`MonotonicityCheck.to_dict`), ``{"source": "data", "is_monotone",
        "right_only"[, "kinds"]}`` or ``{"source": "declared", "by": .., "is_monotone": true}``.
        Required with ``assumption="monotone"``.
    provenance : dict
        ``{"source": "network", "network": .., "file": .., "sha256": ..}``,
        ``{"source": "data", "description": ..}`` or ``{"source": "unspecified"}``.
    created : str
        ISO 8601 timestamp of the derivation.
    causalcost_version : str
        The causalcost version that derived the sheet.
    read_version : int
        The version of the file the sheet was read from (version 1 files carry no digest:
        reports say their content cannot be verified).
    signature : dict or None
        ``{"algorithm": "ed25519", "public_key": .., "value": ..}``: the system owner's
        signature over :attr:`digest` (:func:`~causalcost.sign_sheet`). It must verify against
        the key it carries (checked when ``cryptography`` is installed, see
        :attr:`signature_checked`); :func:`~causalcost.verify_sheet` also checks the key.
    labels : tuple of str or None
        A sheet with labels (any K): the K labels in the order of every axis; then ``costs``
        is ``C[c, s]`` and ``table`` ``T[c, j, s]`` (numpy arrays), the binary fields
        (``rates``, ``forced_p``, ``class_counts``, the two ``ModelCostMatrix``) are None and
        the derived matrices are :attr:`m1` and :attr:`m2`. ``None``: a binary sheet.
    forced : numpy.ndarray or None
        ``F[j, c, s]`` counts when the sheet was counted on data (for a binary sheet, the
        forced runs ``forced_p``, ``forced_n`` stacked).
    kinds : MulticlassKinds or None
        A sheet with labels counted on data: the instances per (class, response vector).

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
    >>> sheet = cc.derive_sheet(t, 1 - np.eye(3), slot="m", labels=["a", "b", "c"],
    ...                         assumption="none", created="2026-01-01T00:00:00+00:00")
    >>> sheet.m1.tolist()[0], sheet.to_dict()["version"], sheet.k
    ([0.0, 1.0, 1.0], 3, 3)
    >>> cc.CostSheet.from_dict(sheet.to_dict()) == sheet
    True
    """

    slot: str
    system_name: str
    rates: ErrorRates | None
    table: InterventionalTable | np.ndarray | None
    forced_p: Confusion | None
    forced_n: Confusion | None
    class_counts: tuple[int, int] | None
    prior: float | None
    costs: CostMatrix | np.ndarray
    expected_cost_matrix: ModelCostMatrix | None
    error_transition_matrix: ModelCostMatrix | None
    assumption: str
    monotonicity: dict[str, Any] | None
    provenance: dict[str, Any]
    created: str
    causalcost_version: str
    read_version: int = field(default=SHEET_VERSION, repr=False)
    signature: dict[str, str] | None = field(default=None, repr=False)
    labels: tuple[str, ...] | None = None
    forced: np.ndarray | None = field(default=None, repr=False)
    kinds: Any = field(default=None, repr=False)

    @classmethod
    def labelled(cls, *, slot: str, system_name: str, labels: Any, costs: Any, table: Any,
                 assumption: str = "none", forced: Any = None, kinds: Any = None,
                 monotonicity: Mapping[str, Any] | None = None,
                 provenance: Mapping[str, Any] | None = None, created: str = "",
                 causalcost_version: str = "", signature: dict[str, str] | None = None,
                 read_version: int = LABELLED_VERSION) -> CostSheet:
        """A sheet with labels (any K) from its general fields (checked like any sheet)."""
        return cls(slot=slot, system_name=system_name, rates=None, table=table, forced_p=None,
                   forced_n=None, class_counts=None, prior=None, costs=costs,
                   expected_cost_matrix=None, error_transition_matrix=None,
                   assumption=assumption,
                   monotonicity=None if monotonicity is None else dict(monotonicity),
                   provenance=dict(provenance or {}), created=created,
                   causalcost_version=causalcost_version, read_version=read_version,
                   signature=signature, labels=tuple(labels), forced=forced, kinds=kinds)

    def __post_init__(self) -> None:
        if self.labels is not None:
            self._init_labelled()
            return
        if self.forced_p is not None and self.forced_n is not None:
            forced = np.stack([self.forced_p.to_array(), self.forced_n.to_array()])
            if np.array_equal(forced, np.round(forced)):  # counts, as on every other sheet
                forced = forced.astype(np.int64)
            forced.setflags(write=False)
            object.__setattr__(self, "forced", forced)
        _check_fields(self)
        if self.signature is not None:
            object.__setattr__(self, "signature", read_signature(self.signature))
        object.__setattr__(self, "provenance", dict(self.provenance))
        if self.monotonicity is not None:
            object.__setattr__(self, "monotonicity", dict(self.monotonicity))
        if self.class_counts is not None:
            object.__setattr__(self, "class_counts", tuple(int(v) for v in self.class_counts))
        if self.prior is not None:
            object.__setattr__(self, "prior", float(self.prior))
        _check_consistency(self)
        checked = self.signature is not None and check_signature(self.signature, self.digest)
        object.__setattr__(self, "_signature_checked", checked)

    def _init_labelled(self) -> None:
        for name in ("rates", "forced_p", "forced_n", "class_counts", "prior",
                     "expected_cost_matrix", "error_transition_matrix"):
            if getattr(self, name) is not None:
                raise SheetError(f"a sheet with labels has no binary field {name!r}: give "
                                 "labels, costs C[c, s], table T[c, j, s] (and forced runs)")
        if not isinstance(self.slot, str) or not self.slot:
            raise SheetError("field 'slot' must be a non-empty string")
        for name, value in check_labelled(self).items():
            object.__setattr__(self, name, value)
        if self.signature is not None:
            object.__setattr__(self, "signature", read_signature(self.signature))
        object.__setattr__(self, "provenance", dict(self.provenance))
        for name in ("costs", "table", "forced"):
            value = getattr(self, name)
            if value is not None:
                value.setflags(write=False)
        checked = self.signature is not None and check_signature(self.signature, self.digest)
        object.__setattr__(self, "_signature_checked", checked)

    # -- the general views (any K) --------------------------------------------------------
    @property
    def binary(self) -> bool:
        """Whether this is a binary sheet (classes P and N, version 1 or 2)."""
        return self.labels is None

    @property
    def label_names(self) -> tuple[str, ...]:
        """The K labels (``("P", "N")`` for a binary sheet)."""
        return CLASSES if self.labels is None else self.labels

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.label_names)

    @property
    def costs_array(self) -> np.ndarray:
        """The system's costs ``C[c, s]`` as a (K, K) float array (rows the true class)."""
        if self.labels is None:
            return np.asarray(self.costs.to_array(), dtype=float)  # type: ignore[union-attr]
        return np.asarray(self.costs, dtype=float)

    @property
    def table_array(self) -> np.ndarray:
        """The interventional table ``T[c, j, s] = P(system s | class c, do(slot = j))``."""
        if self.labels is not None:
            return np.asarray(self.table)
        r = self.rates
        assert r is not None
        return np.array([[[1 - r.fn_forced_p, r.fn_forced_p], [1 - r.fn_forced_n, r.fn_forced_n]],
                         [[r.fp_forced_p, 1 - r.fp_forced_p], [r.fp_forced_n, 1 - r.fp_forced_n]]])

    @property
    def m1(self) -> np.ndarray:
        """Cost function 1's model-level matrix ``M1[c, j]``: the expected system cost of a
        class-``c`` instance when the slot says ``j``."""
        if self.labels is None:
            return np.asarray(self.expected_cost_matrix.to_array(), dtype=float)  # type: ignore[union-attr]
        return self._cost_matrices().m1

    @property
    def m2(self) -> np.ndarray:
        """Cost function 2's error transition ``M2[c, j] = M1[c, j] - M1[c, c]``."""
        if self.labels is None:
            return np.asarray(self.error_transition_matrix.to_array(), dtype=float)  # type: ignore[union-attr]
        return self._cost_matrices().m2

    def _cost_matrices(self) -> Any:
        from causalcost.pricing.model_costs import model_cost_matrices

        return model_cost_matrices(self.table, self.costs, list(self.label_names))

    @property
    def class_sizes(self) -> np.ndarray | None:
        """Instances per class the sheet was counted on, or None."""
        if self.labels is None:
            return None if self.class_counts is None else np.asarray(self.class_counts)
        return None if self.forced is None else self.forced[0].sum(axis=1)

    # -- re-pricing -----------------------------------------------------------------------
    def with_costs(self, costs: Any) -> CostSheet:
        """The same sheet priced with other system costs: a new sheet, with a new digest.

        The rates, the table, the forced runs, the class sizes and the monotonicity evidence
        do not depend on the costs, so they are kept; the two model cost matrices are
        recomputed, and the new sheet is checked like any other (its assumption against its
        evidence and rates). Its provenance is the parent's with ``"repriced_from"``: the
        parent's digest; it is unsigned (a signature covers one digest: the system owner signs
        the re-priced sheet again; re-pricing a signed sheet warns with a
        :class:`~causalcost.errors.CausalCostWarning`) and stamped with the time of re-pricing.

        For a sheet with labels the costs are a (K, K) matrix ``C[c, s]`` (an array, a frame
        labelled with the labels, reordered, or any object with ``to_numpy()``); the monotone
        assumption is checked again for the new costs (for K labels it depends on them): the
        kinds counted on data are re-checked, and a network check made for other costs is
        refused (derive the sheet from the system again).

        Parameters
        ----------
        costs : CostMatrix or (K, K) matrix
            The new system cost matrix (for a binary sheet a :class:`~causalcost.CostMatrix`
            or a 2 x 2 array ``[[c_tp, c_fn], [c_fp, c_tn]]``, rows the true class).

        Returns
        -------
        CostSheet

        Raises
        ------
        InputTypeError
            If ``costs`` of a binary sheet is not a :class:`~causalcost.CostMatrix`.
        MonotonicityError
            A sheet with labels and the monotone assumption, false for the new costs.

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
        from datetime import datetime, timezone

        from causalcost import __version__
        from causalcost.errors import InputTypeError
        from causalcost.pricing.costs import error_transition_matrix, expected_cost_matrix

        if self.labels is None and not isinstance(costs, CostMatrix):
            if not (isinstance(costs, np.ndarray) or hasattr(costs, "to_numpy")):
                raise InputTypeError(f"costs must be a CostMatrix, e.g. cc.CostMatrix(fn=5, "
                                     f"fp=1), or a 2 x 2 array [[c_tp, c_fn], [c_fp, c_tn]]; "
                                     f"got {type(costs).__name__}")
            from causalcost.data.runs import cost_array

            costs = CostMatrix.from_array(cost_array(costs, CLASSES))
        if self.signature is not None:
            from causalcost.errors import CausalCostWarning

            warnings.warn("the re-priced sheet is unsigned: the parent's signature covers the "
                          "parent's digest only; sign the new sheet (cc.sign_sheet)",
                          CausalCostWarning, stacklevel=2)
        stamp = dict(provenance={**self.provenance, "repriced_from": self.digest},
                     created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     causalcost_version=__version__, signature=None)
        if self.labels is not None:
            from causalcost.data.runs import cost_array

            return replace(self, costs=cost_array(costs, self.labels),
                           read_version=LABELLED_VERSION, **stamp)
        return replace(
            self, costs=costs, expected_cost_matrix=expected_cost_matrix(self.rates, costs),
            error_transition_matrix=error_transition_matrix(self.rates, costs),
            provenance={**self.provenance, "repriced_from": self.digest},
            created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            causalcost_version=__version__, read_version=SHEET_VERSION, signature=None)

    # -- derived views --------------------------------------------------------------------
    @property
    def form(self) -> str:
        """``"counts"`` when the sheet holds forced runs, else ``"probability"``."""
        return "counts" if self.forced is not None else "probability"

    @property
    def monotonicity_check(self) -> MonotonicityCheck | None:
        """The stored network check as a :class:`MonotonicityCheck`, or None."""
        m = self.monotonicity
        if m is None:
            return None
        return MonotonicityCheck(slot=str(m.get("slot", self.slot)),
                                 system_node=str(m.get("system_node", "")),
                                 is_monotone=bool(m["is_monotone"]), violation=m.get("violation"),
                                 assignments=int(m.get("assignments", 0)),
                                 method=str(m.get("method", "enumeration")))

    # -- serialisation --------------------------------------------------------------------
    def _content(self) -> dict[str, Any]:
        """Every field but the digest, as written to JSON."""
        if self.labels is not None:
            return self._labelled_content()
        counts = None
        if self.class_counts is not None:
            counts = {"positives": self.class_counts[0], "negatives": self.class_counts[1]}
        forced = None
        if self.forced_p is not None and self.forced_n is not None:
            forced = {"forced_p": _int_cells(self.forced_p), "forced_n": _int_cells(self.forced_n)}
        return {
            "format": SHEET_FORMAT,
            "version": SHEET_VERSION,
            "created": self.created,
            "causalcost_version": self.causalcost_version,
            "slot": self.slot,
            "system_name": self.system_name,
            "provenance": dict(self.provenance),
            "assumption": self.assumption,
            "monotonicity": None if self.monotonicity is None else dict(self.monotonicity),
            "class_counts": counts,
            "prior": self.prior,
            "costs": self.costs.to_dict(),
            "rates": self.rates.to_dict(),
            "table": None if self.table is None else _table_dict(self.table),
            "forced_runs": forced,
            "derived": {"expected_cost_matrix": self.expected_cost_matrix.to_dict(),
                        "error_transition_matrix": self.error_transition_matrix.to_dict()},
        }

    def _labelled_content(self) -> dict[str, Any]:
        """A sheet with labels as written to JSON (version 3)."""
        labels = self.label_names
        kinds = None
        if self.kinds is not None:
            kinds = [{"class": labels[c], "response": [labels[s] for s in r], "count": int(n)}
                     for (c, r), n in sorted(self.kinds.counts.items())]
        body = {
            "format": SHEET_FORMAT, "version": LABELLED_VERSION, "created": self.created,
            "causalcost_version": self.causalcost_version, "slot": self.slot,
            "system_name": self.system_name, "provenance": dict(self.provenance),
            "labels": list(labels), "assumption": self.assumption,
            "costs": self.costs_array.tolist(), "table": self.table_array.tolist(),
            "forced_runs": None if self.forced is None else self.forced.tolist(),
            "kinds": kinds,
            "derived": {"expected_cost_matrix": self.m1.tolist(),
                        "error_transition_matrix": self.m2.tolist()},
        }
        if self.monotonicity is not None:  # optional: sheets without it keep their digest
            body["monotonicity"] = dict(self.monotonicity)
        return body

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready sheet: format, version, every field (``None`` where unknown),
        ``digest``: ``{"sha256": "sha256:<hex>"}`` over the rest (see :attr:`digest`), and
        ``signature`` (None when unsigned)."""
        body = self._content()
        return {**body, "digest": {"sha256": content_digest(body)},
                "signature": None if self.signature is None else dict(self.signature)}

    @property
    def digest(self) -> str:
        """``"sha256:<hex>"`` of the sheet's canonical content: what reports echo, so the
        system owner can tell a report was computed on the sheet they issued."""
        return content_digest(self._content())

    @property
    def verified(self) -> bool:
        """Whether the file it was read from carried a digest (version 2 and later)."""
        return self.labels is not None or self.read_version >= 2

    @property
    def signature_checked(self) -> bool:
        """Whether the sheet is signed and its signature verified against the key it carries
        (False for an unsigned sheet, and for a signed one without ``cryptography``)."""
        return bool(getattr(self, "_signature_checked", False))

    @property
    def signed_by(self) -> str | None:
        """:func:`~causalcost.sheet.signature.key_fingerprint` of the key that signed the sheet,
        or None."""
        return None if self.signature is None else key_fingerprint(self.signature["public_key"])

    def to_json(self, indent: int | None = 2) -> str:
        """The sheet as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | Path) -> Path:
        """Write the sheet as JSON to ``path`` (UTF-8) and return the path."""
        return write_atomic(path, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CostSheet:
        """Validate and rebuild a sheet from :meth:`to_dict` output.

        Raises
        ------
        SheetError
            For another format or version, unknown or missing fields (the message names them),
            wrong types, rates outside [0, 1], an invalid cost matrix, or derived numbers that
            disagree with the rates and costs.
        """
        fields = _sheet_fields(data)
        if "labels" in fields:  # version 3: a sheet with labels
            try:
                sheet = cls.labelled(**fields)
            except SheetError:
                raise
            except (CausalCostError, TypeError, ValueError) as exc:
                raise SheetError(f"invalid sheet with labels: {exc}") from None
            check_labelled_derived(data, sheet.m1, sheet.m2)
        else:
            sheet = cls(**fields)
        if sheet.verified and sheet.digest != data["digest"]["sha256"]:
            where = _first_difference(data, sheet._content())
            raise SheetError(
                "the sheet's digest matches its content, but the content is not in the form "
                f"this causalcost writes (field {where!r} differs from the value it implies; "
                "e.g. 100.0 where a count 100 goes, a recomputed number edited, or an optional "
                "field left out): reports would echo another digest than the issued one; issue "
                "it again with CostSheet.save")
        return sheet

    # -- display --------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """The four rates, one row per (class, forced slot value), with intervals when known.

        Columns ``rate`` and ``symbol``, plus ``ci_low``, ``ci_high`` and ``n`` (the instances
        behind each rate) for sampled or counted tables. A sheet with labels: ``M1`` and
        ``M2``, rows (function, true class), columns the slot's prediction.
        """
        if self.labels is not None:
            return self._cost_matrices().to_frame()  # type: ignore[no-any-return]
        t = self.table
        rows = []
        for c, cname in enumerate(CLASSES):
            outcome = OUTCOMES.index("FN" if cname == "P" else "FP")
            for x, xname in enumerate(CLASSES):
                row: dict[str, Any] = {"class": cname, "do(slot)": xname,
                                       "symbol": _RATE_NAMES[cname, xname],
                                       "rate": self.rates.rate(cname, xname)}
                if t is not None and t.has_intervals:
                    assert t.lower is not None and t.upper is not None and t.counts is not None
                    row["ci_low"] = float(t.lower[c, x, outcome])
                    row["ci_high"] = float(t.upper[c, x, outcome])
                    row["n"] = int(t.counts[c, x, outcome])
                rows.append(row)
        return pd.DataFrame(rows).set_index(["class", "do(slot)"])

    def _classes_text(self) -> str:
        if self.class_counts is not None:
            p, n = self.class_counts
            return f"{p} positives and {n} negatives (candidates must match)"
        if self.prior is not None:
            return f"prior P(Class=P) = {self.prior:.6g} (candidates use their own class sizes)"
        return "not recorded (candidates use their own class sizes)"

    def _labelled_text(self) -> str:
        from causalcost.data.runs import label_frame

        sizes = self.class_sizes
        lines = [f"Cost sheet for slot {self.slot!r} of system {self.system_name!r} "
                 f"(labels {list(self.label_names)}, format {SHEET_FORMAT} "
                 f"v{LABELLED_VERSION}, created {self.created})",
                 f"assumption: {self.assumption!r}; worst case in the {self.form} form"
                 + ("" if sizes is None else "; class sizes " + ", ".join(
                     f"{lab}={n}" for lab, n in zip(self.label_names, sizes))),
                 "system costs (rows: true class, columns: system output):",
                 _indent(label_frame(self.costs_array, self.label_names).to_string()),
                 "M1, expected system cost of the slot predicting (columns):",
                 _indent(label_frame(np.round(self.m1, 6), self.label_names,
                                     columns="predicted").to_string()),
                 f"digest: {self.digest}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        if self.labels is not None:
            return self._labelled_text()
        rates = self.to_frame().to_string(float_format=lambda v: f"{v:.6g}")
        source = ", ".join(f"{k}={v}" for k, v in self.provenance.items())
        lines = [
            f"Cost sheet for slot {self.slot!r} of system {self.system_name!r} "
            f"(format {SHEET_FORMAT} v{SHEET_VERSION}, created {self.created})",
            f"provenance: {source}",
            f"classes: {self._classes_text()}",
            f"system costs: {format_cells(self.costs)}",
            f"assumption: {self.assumption!r}; worst case in the {self.form} form",
            "interventional error rates:",
            rates,
            f"cost function 1 (expected): {self.expected_cost_matrix!r}",
            f"cost function 2 (transition): {self.error_transition_matrix!r}",
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        if self.labels is not None:
            return (f"CostSheet(slot={self.slot!r}, system={self.system_name!r}, "
                    f"labels={list(self.labels)}, assumption={self.assumption!r}, "
                    f"form={self.form!r})")
        r = self.rates
        assert r is not None
        return (f"CostSheet(slot={self.slot!r}, system={self.system_name!r}, "
                f"e_P(P)={r.fn_forced_p:.6g}, e_P(N)={r.fn_forced_n:.6g}, "
                f"e_N(P)={r.fp_forced_p:.6g}, e_N(N)={r.fp_forced_n:.6g}, costs={self.costs!r}, "
                f"assumption={self.assumption!r}, form={self.form!r})")

    def _repr_html_(self) -> str:
        if self.labels is not None:
            from causalcost.data.runs import label_frame

            names = self.label_names
            return html_block(
                repr(self),
                html_table(label_frame(self.costs_array, names), caption="System costs C[c, s]"),
                html_table(label_frame(self.m1, names, columns="predicted"),
                           caption="M1: expected system cost per slot prediction"),
                html_table(label_frame(self.m2, names, columns="predicted"),
                           caption="M2: error transition"))
        head = [f"slot {self.slot!r} of system {self.system_name!r}; classes: "
                f"{self._classes_text()}; assumption {self.assumption!r}; system costs "
                f"{self.costs!r}", f"content digest: {self.digest}"]
        derived = pd.DataFrame([self.expected_cost_matrix.to_dict(),
                                self.error_transition_matrix.to_dict()],
                               index=["cost function 1", "cost function 2"])
        return html_block("Cost sheet", head,
                          html_table(self.to_frame(), caption="Failure rates and costs"),
                          html_table(derived, caption="Model cost matrices"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostSheet):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.to_json(indent=None))


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


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


def _int_cells(m: Confusion) -> dict[str, float | int]:
    return {k: int(v) if float(v).is_integer() else v for k, v in m.to_dict().items()}


# ------------------------------------------------------------------------------- loading
def load_sheet(path: str | Path) -> CostSheet:
    """Read and validate a sheet written by :meth:`CostSheet.save`.

    Raises
    ------
    SheetError
        If the file is missing or not JSON, or as in :meth:`CostSheet.from_dict` (the message
        starts with the file name).

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


def sheet_from_dict(data: Any) -> CostSheet:
    """A :class:`CostSheet` from its JSON object (versions 1 and 2: binary; 3: labels)."""
    return CostSheet.from_dict(data)


def _table_dict(table: InterventionalTable) -> dict[str, Any]:
    """The table's JSON without its monotonicity flag: the sheet stores the full check."""
    out = table.binary_dict()
    out.pop("monotone", None)
    if out.get("seed") is not None:  # a numpy integer seed is written as a JSON number
        out["seed"] = int(out["seed"])
    return out
