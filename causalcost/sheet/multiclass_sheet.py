"""The multi-class cost sheet (sheet version 3): K labels, K x K costs, the K x K x K table.

What the system owner issues for a K-label slot, as the binary :class:`~causalcost.CostSheet`
does for two: the labels, the system's costs ``C[c, s]``, the interventional table
``T[c, j, s]`` and, when it was counted on data, the forced runs ``F[j, c, s]`` and the instance
kinds (response vectors) behind it, with the model-level matrices of cost functions 1 and 2
(``M1``, ``M2``) derived from them. Its JSON carries ``format`` ``"causalcost-sheet"`` and
``version`` 3 (versions 1 and 2 are the binary sheets, read unchanged); the digest and the
signature work as for version 2 (:mod:`causalcost.sheet.digest`).

JSON fields: ``format``, ``version``, ``created``, ``causalcost_version``, ``slot``,
``system_name``, ``provenance``, ``labels`` (strings), ``assumption`` (``"none"`` or
``"monotone"``), ``costs`` (K x K, rows the true class), ``table`` (``T[c][j][s]``),
``forced_runs`` (``F[j][c][s]`` integers, or null), ``kinds`` (records ``{"class", "response",
"count"}``, or null), ``derived`` (``expected_cost_matrix`` = M1 and
``error_transition_matrix`` = M2, rows the true class, columns the slot's prediction),
``digest`` and ``signature``.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalcost.data.multiclass_runs import MulticlassRuns, label_frame
from causalcost.display import html_block, html_table
from causalcost.errors import CausalCostError, MonotonicityError, SheetError, ValidationError
from causalcost.files import write_atomic
from causalcost.pricing.inputs import as_table_array, check_costs, check_counts, check_labels
from causalcost.pricing.model_costs import model_cost_matrices as multiclass_cost_matrix
from causalcost.pricing.responses import Kinds as MulticlassKinds
from causalcost.pricing.responses import read_kinds as read_multiclass_kinds
from causalcost.sheet.digest import content_digest
from causalcost.sheet.signature import check_signature, key_fingerprint, read_signature

__all__ = ["MULTICLASS_SHEET_VERSION", "MulticlassSheet", "multiclass_sheet"]

#: The version of multi-class sheets.
MULTICLASS_SHEET_VERSION = 3
_FORMAT = "causalcost-sheet"  # as causalcost.sheet.schema.SHEET_FORMAT
_REQUIRED = ("format", "version", "created", "causalcost_version", "slot", "system_name",
             "provenance", "labels", "assumption", "costs", "table", "derived", "digest")
_OPTIONAL = ("forced_runs", "kinds", "signature")
_TOLERANCE = 1e-9


def _version() -> str:
    from causalcost import __version__  # late: the package imports this module

    return __version__


@dataclass(frozen=True, eq=False)
class MulticlassSheet:
    """A K-label slot's cost sheet (version 3).

    Attributes
    ----------
    slot, system_name : str
    labels : tuple of str
        The K labels, in the order of every axis.
    costs : numpy.ndarray
        ``C[c, s]`` (true class, system output).
    table : numpy.ndarray
        ``T[c, j, s] = P(system s | class c, do(slot = j))``.
    forced : numpy.ndarray or None
        ``F[j, c, s]`` counts when the sheet was counted on data.
    kinds : MulticlassKinds or None
        The response vectors counted on the same instances.
    assumption : {"none", "monotone"}
    provenance : dict
    created, causalcost_version : str
    signature : dict or None

    Examples
    --------
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1.0
    >>> sheet = multiclass_sheet(t, 1 - np.eye(3), slot="m", labels=["a", "b", "c"],
    ...                          created="2026-01-01T00:00:00+00:00")
    >>> sheet.m1.tolist()[0], sheet.digest[:7]
    ([0.0, 1.0, 1.0], 'sha256:')
    >>> MulticlassSheet.from_dict(sheet.to_dict()) == sheet
    True
    """

    slot: str
    system_name: str
    labels: tuple[str, ...]
    costs: np.ndarray
    table: np.ndarray
    assumption: str = "none"
    forced: np.ndarray | None = None
    kinds: MulticlassKinds | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    causalcost_version: str = ""
    signature: dict[str, str] | None = field(default=None, repr=False)
    read_version: int = field(default=MULTICLASS_SHEET_VERSION, repr=False)

    def __post_init__(self) -> None:
        labels = check_labels(self.labels, len(self.labels))
        k = len(labels)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "costs", check_costs(self.costs, k))
        object.__setattr__(self, "table", as_table_array(self.table))
        if self.table.shape[0] != k:
            raise ValidationError(f"the table has {self.table.shape[0]} labels, labels {k}")
        if self.assumption not in ("none", "monotone"):
            raise ValidationError(f"assumption ({self.assumption!r}) must be 'none' or "
                                  "'monotone'")
        if self.forced is not None:
            f = check_counts("forced_runs", self.forced, 3, k, integer=True)
            f = np.asarray(f.tolist(), dtype=np.int64)
            sizes = f.sum(axis=2)  # [j, c]
            if not (sizes == sizes[0]).all():
                raise ValidationError("every forced run must count the same instances: the "
                                      f"class sizes differ between runs ({sizes.tolist()})")
            rates = f / np.where(sizes[:, :, None] > 0, sizes[:, :, None], 1)
            if not np.allclose(np.transpose(rates, (1, 0, 2)), self.table, atol=_TOLERANCE):
                raise ValidationError("the table differs from the rates of the forced runs")
            object.__setattr__(self, "forced", f)
        if self.kinds is not None:
            kinds = read_multiclass_kinds(self.kinds, k, labels)
            if self.forced is None or not np.array_equal(
                    np.asarray(kinds.forced().tolist(), dtype=np.int64), self.forced):
                raise ValidationError("the kinds must imply the sheet's forced runs (they are "
                                      "counted on the same instances)")
            object.__setattr__(self, "kinds", kinds)
            if self.assumption == "monotone":
                for (c, r), n in kinds.counts.items():
                    if any(self.costs[c, r[c]] > self.costs[c, s] for s in r):
                        raise MonotonicityError(
                            f"{n} instance(s) of class {labels[c]!r} have response vector "
                            f"{[labels[s] for s in r]}: forced to the right label the system "
                            "costs more than forced to another, so the monotone assumption "
                            "fails on the sheet's own data; use assumption='none'")
        if self.signature is not None:
            object.__setattr__(self, "signature", read_signature(self.signature))
        object.__setattr__(self, "provenance", dict(self.provenance))
        for name in ("costs", "table", "forced"):
            value = getattr(self, name)
            if value is not None:
                value.setflags(write=False)
        checked = self.signature is not None and check_signature(self.signature, self.digest)
        object.__setattr__(self, "_signature_checked", checked)

    # -- views ----------------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def form(self) -> str:
        """``"counts"`` when the sheet holds forced runs, else ``"probability"``."""
        return "counts" if self.forced is not None else "probability"

    @property
    def class_sizes(self) -> np.ndarray | None:
        """Instances per class behind the forced runs, or None."""
        return None if self.forced is None else self.forced[0].sum(axis=1)

    @property
    def m1(self) -> np.ndarray:
        """Cost function 1's model-level matrix ``M1[c, j]``."""
        return multiclass_cost_matrix(self.table, self.costs, list(self.labels)).m1

    @property
    def m2(self) -> np.ndarray:
        """Cost function 2's error transition ``M2[c, j] = M1[c, j] - M1[c, c]``."""
        return multiclass_cost_matrix(self.table, self.costs, list(self.labels)).m2

    @property
    def verified(self) -> bool:
        """Version 3 sheets always carry a digest."""
        return True

    @property
    def signature_checked(self) -> bool:
        """Whether the sheet is signed and the signature verified."""
        return bool(getattr(self, "_signature_checked", False))

    @property
    def signed_by(self) -> str | None:
        """Fingerprint of the signing key, or None."""
        return None if self.signature is None else key_fingerprint(self.signature["public_key"])

    # -- serialisation --------------------------------------------------------------------
    def _content(self) -> dict[str, Any]:
        kinds = None
        if self.kinds is not None:
            kinds = [{"class": self.labels[c], "response": [self.labels[s] for s in r],
                      "count": int(n)} for (c, r), n in sorted(self.kinds.counts.items())]
        return {
            "format": _FORMAT, "version": MULTICLASS_SHEET_VERSION, "created": self.created,
            "causalcost_version": self.causalcost_version, "slot": self.slot,
            "system_name": self.system_name, "provenance": dict(self.provenance),
            "labels": list(self.labels), "assumption": self.assumption,
            "costs": self.costs.tolist(), "table": self.table.tolist(),
            "forced_runs": None if self.forced is None else self.forced.tolist(),
            "kinds": kinds,
            "derived": {"expected_cost_matrix": self.m1.tolist(),
                        "error_transition_matrix": self.m2.tolist()},
        }

    @property
    def digest(self) -> str:
        """``"sha256:<hex>"`` of the sheet's canonical content (echoed by reports)."""
        return content_digest(self._content())

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready sheet with its digest and signature."""
        body = self._content()
        return {**body, "digest": {"sha256": content_digest(body)},
                "signature": None if self.signature is None else dict(self.signature)}

    def to_json(self, indent: int | None = 2) -> str:
        """The sheet as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | Path) -> Path:
        """Write the sheet as JSON to ``path`` and return the path."""
        return write_atomic(path, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MulticlassSheet:
        """Validate and rebuild a version 3 sheet (digest checked first).

        Raises
        ------
        SheetError
            Another format or version, missing or unknown fields, a digest that does not
            match, or fields that disagree (derived matrices, table and forced runs).
        """
        if not isinstance(data, Mapping):
            raise SheetError(f"a cost sheet must be a JSON object, got {type(data).__name__}")
        if data.get("format") != _FORMAT or data.get("version") != MULTICLASS_SHEET_VERSION:
            raise SheetError(f"not a multi-class sheet (format {_FORMAT!r}, version "
                             f"{MULTICLASS_SHEET_VERSION})")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise SheetError(f"sheet version {MULTICLASS_SHEET_VERSION} (multi-class) is missing "
                             f"required field(s) {missing}; versions 1 and 2 are the binary "
                             "sheets")
        unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
        if unknown:
            raise SheetError(f"unknown field(s) {unknown}; valid: {[*_REQUIRED, *_OPTIONAL]}")
        digest = data["digest"]
        stored = digest.get("sha256") if isinstance(digest, Mapping) else None
        if not isinstance(stored, str) or content_digest(data) != stored:
            raise SheetError("the sheet's content does not match its digest: it was changed "
                             "after it was issued; ask the system owner for the sheet they "
                             "issued")
        for name in ("slot", "system_name", "created", "causalcost_version", "assumption"):
            if not isinstance(data[name], str):
                raise SheetError(f"field {name!r} must be a string, got {data[name]!r}")
        if not isinstance(data["labels"], list) or not all(isinstance(v, str)
                                                           for v in data["labels"]):
            raise SheetError("field 'labels' must be a list of strings")
        if not isinstance(data["provenance"], Mapping):
            raise SheetError("field 'provenance' must be an object")
        derived = data["derived"]
        if not isinstance(derived, Mapping) or sorted(derived) != sorted(
                ("expected_cost_matrix", "error_transition_matrix")):
            raise SheetError("field 'derived' must hold expected_cost_matrix and "
                             "error_transition_matrix")
        kinds = None
        if data.get("kinds") is not None:
            if not isinstance(data["kinds"], list):
                raise SheetError("field 'kinds' must be a list of records")
            try:
                kinds = {(r["class"], tuple(r["response"])): r["count"] for r in data["kinds"]}
            except (TypeError, KeyError) as exc:
                raise SheetError(f"field 'kinds': each record needs class, response and "
                                 f"count ({exc})") from None
        try:
            sheet = cls(slot=data["slot"], system_name=data["system_name"],
                        labels=tuple(data["labels"]), costs=data["costs"], table=data["table"],
                        assumption=data["assumption"], forced=data.get("forced_runs"),
                        kinds=kinds, provenance=dict(data["provenance"]),
                        created=data["created"], causalcost_version=data["causalcost_version"],
                        signature=data.get("signature"))
        except SheetError:
            raise
        except (CausalCostError, TypeError, ValueError) as exc:
            raise SheetError(f"invalid multi-class sheet: {exc}") from None
        for name, mine in (("expected_cost_matrix", sheet.m1),
                           ("error_transition_matrix", sheet.m2)):
            try:
                stored_m = np.asarray(derived[name], dtype=float)
            except (TypeError, ValueError):
                raise SheetError(f"field 'derived.{name}' must be a K x K matrix") from None
            if stored_m.shape != mine.shape or not np.allclose(stored_m, mine, rtol=1e-12,
                                                                atol=1e-12):
                raise SheetError(f"tampered or inconsistent sheet: 'derived.{name}' differs "
                                 "from the table and costs")
        if sheet.digest != stored:
            raise SheetError("the sheet's digest matches its content, but the content is not "
                             "in the form this causalcost writes; issue it again with save()")
        return sheet

    # -- display --------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """``M1`` and ``M2``: rows (function, true class), columns the slot's prediction."""
        return multiclass_cost_matrix(self.table, self.costs, list(self.labels)).to_frame()

    def __str__(self) -> str:
        lines = [f"Multi-class cost sheet for slot {self.slot!r} of {self.system_name} "
                 f"(labels {list(self.labels)}, version {MULTICLASS_SHEET_VERSION})",
                 f"  assumption: {self.assumption}; form: {self.form}"
                 + ("" if self.class_sizes is None else
                    "; class sizes " + ", ".join(f"{lab}={n}" for lab, n in
                                                 zip(self.labels, self.class_sizes))),
                 "  costs (rows: true class, columns: system output):",
                 _indent(label_frame(self.costs, self.labels).to_string()),
                 "  M1, expected system cost of the slot predicting (columns):",
                 _indent(label_frame(np.round(self.m1, 6), self.labels,
                                     columns="predicted").to_string()),
                 f"  digest: {self.digest}"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"MulticlassSheet(slot={self.slot!r}, labels={list(self.labels)}, "
                f"assumption={self.assumption!r}, form={self.form!r})")

    def _repr_html_(self) -> str:
        return html_block(
            repr(self),
            html_table(label_frame(self.costs, self.labels), caption="System costs C[c, s]"),
            html_table(label_frame(self.m1, self.labels, columns="predicted"),
                       caption="M1: expected system cost per slot prediction"),
            html_table(label_frame(self.m2, self.labels, columns="predicted"),
                       caption="M2: error transition"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MulticlassSheet):
            return NotImplemented
        return self.digest == other.digest

    def __hash__(self) -> int:
        return hash(self.digest)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _costs_in_order(costs: Any, labels: tuple[str, ...]) -> Any:
    """A labelled cost frame reordered to ``labels``; anything else as given."""
    if isinstance(costs, pd.DataFrame):
        rows, cols = [str(v) for v in costs.index], [str(v) for v in costs.columns]
        if sorted(rows) == sorted(labels) and sorted(cols) == sorted(labels):
            frame = costs.copy()
            frame.index, frame.columns = rows, cols
            return frame.loc[list(labels), list(labels)].to_numpy(dtype=float)
        return costs.to_numpy(dtype=float)
    return costs


def multiclass_sheet(
    source: Any, costs: Any, *, slot: str | None = None, labels: Sequence[Any] | None = None,
    assumption: str = "none", system_name: str = "system", kinds: bool = True,
    provenance: Mapping[str, Any] | None = None, created: str | None = None,
) -> MulticlassSheet:
    """Derive a multi-class sheet from forced runs (data) or an interventional table.

    Parameters
    ----------
    source : MulticlassRuns, MulticlassTable or array (K, K, K)
        Forced runs counted on a log (:func:`causalcost.forced_runs` with ``labels=``): the
        sheet holds the runs, their rates and (``kinds=True``) the response vectors; or a
        table ``T[c, j, s]`` (e.g. from the system's network), probability form.
    costs : array (K, K) or DataFrame
        ``C[c, s]`` (rows the true class). A frame labelled with the labels is reordered.
    slot, labels : optional
        Taken from the runs or the table; required for a bare array.
    assumption : {"none", "monotone"}
        ``"monotone"`` is refused when the sheet's own kinds contradict it.
    system_name : str
    kinds : bool
        Keep the runs' response vectors (exact kinds bound for candidates counted on the same
        instances).
    provenance : mapping, optional
        Where the numbers come from (merged over the runs' provenance).
    created : str, optional
        ISO timestamp (default: now, UTC).

    Returns
    -------
    MulticlassSheet

    Raises
    ------
    ValidationError
        Missing slot or labels, a class the runs never saw, costs of the wrong shape.

    Examples
    --------
    >>> import pandas as pd, causalcost as cc
    >>> df = pd.DataFrame({"y": list("abcabc"), "m1": list("abcaba"), "m2": list("abbcbc"),
    ...                    "m3": list("aacabc")})
    >>> runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
    ...                       fusioner="plurality", labels=["a", "b", "c"])
    >>> sheet = multiclass_sheet(runs, 1 - np.eye(3), created="2026-01-01T00:00:00+00:00")
    >>> sheet.form, sheet.class_sizes.tolist()
    ('counts', [2, 2, 2])
    """
    created = created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    prov: dict[str, Any] = {}
    forced = found_kinds = None
    if isinstance(source, MulticlassRuns):
        names = tuple(str(v) for v in source.labels)
        if labels is not None and tuple(str(v) for v in labels) != names:
            raise ValidationError(f"labels {list(labels)} differ from the runs' labels "
                                  f"{list(names)}")
        if slot is not None and slot != source.slot:
            raise ValidationError(f"slot {slot!r} differs from the runs' slot {source.slot!r}")
        slot = source.slot
        forced = np.asarray(source.forced)
        sizes = forced[0].sum(axis=1)
        empty = [names[c] for c in range(len(names)) if sizes[c] == 0]
        if empty:
            raise ValidationError(f"the runs hold no instance of class {empty[0]!r}, so its "
                                  "rates are unknown; count the runs on data with every class")
        table = np.transpose(forced / sizes[None, :, None], (1, 0, 2))
        found_kinds = source.kinds if kinds else None
        prov = {k: v for k, v in source.provenance.items() if k != "file"}
        prov["fusioner"] = source.fusioner.description
    else:
        names = tuple(str(v) for v in (labels if labels is not None
                                        else getattr(source, "labels", ()) or ()))
        slot = slot if slot is not None else getattr(source, "slot", None)
        table = as_table_array(source)
        if not names:
            raise ValidationError("labels= is required with a table given as an array")
        prov["method"] = getattr(source, "method", "table")
    if not isinstance(slot, str) or not slot:
        raise ValidationError("slot= is required (the model the sheet prices)")
    prov.update(dict(provenance or {}))
    return MulticlassSheet(slot=slot, system_name=system_name, labels=names,
                           costs=_costs_in_order(costs, names), table=table,
                           assumption=assumption, forced=forced, kinds=found_kinds,
                           provenance=prov, created=created, causalcost_version=_version())
