"""The cost sheet: what a system owner derives once and hands to the owners of one model slot.

Judging a candidate for the slot needs the slot's interventional error rates
``e_P(P), e_P(N), e_N(P), e_N(N)`` and the system's cost matrix, and nothing else about the
system. A :class:`CostSheet` is that knowledge as a versioned JSON artifact: the owner of the
whole system derives it once (from the network, or from two forced runs of the real system),
and every model owner evaluates candidates against it alone with
:func:`causalcost.report.evaluate`. The sheet holds

* the slot and system names, and the *provenance* (network file hash, or a description of the
  data the forced runs were counted on);
* the class sizes of the evaluation set (``class_counts``) or the class prior;
* the rates, and the interventional table behind them with its intervals and sample sizes
  when the table was sampled or counted;
* the forced runs themselves when they were counted on data: then candidates must be counted on
  the same instances and the worst case uses the count form (slides), otherwise the
  probability form ``F = e x n`` (thesis);
* the system cost matrix and the derived model cost matrices (cost functions 1 and 2);
* the assumption the worst case rests on (``"monotone"`` or ``"none"``) and, when the network
  was checked, the monotonicity check.

Loading validates format, version, every field's presence and type, and recomputes the
derived matrices: a sheet whose numbers disagree with each other is refused, never used.

Examples
--------
>>> import causalcost as cc
>>> from causalcost.sheet import derive_sheet
>>> table = cc.interventional_table(cc.load_network("thesis_and"))
>>> sheet = derive_sheet(table, cc.CostMatrix(fn=5, fp=1), prior=1 / 3)
>>> sheet.expected_cost_matrix
ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')
>>> derive_sheet(table, cc.CostMatrix(fn=5, fp=1)).to_dict()["version"]
1
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .bounds import ASSUMPTIONS
from .confusion import CELLS, CLASSES, Confusion, CostMatrix
from .confusion import format_number as _fmt
from .costs import ModelCostMatrix, error_transition_matrix, expected_cost_matrix
from .errors import (
    CausalCostError,
    InfeasibleInputError,
    MonotonicityError,
    NetworkStructureError,
    SheetError,
    ValidationError,
)
from .intervene import MonotonicityCheck, check_monotonicity
from .table import OUTCOMES, ErrorRates, InterventionalTable

__all__ = [
    "SHEET_FORMAT",
    "SHEET_VERSION",
    "CostSheet",
    "derive_sheet",
    "load_sheet",
    "network_provenance",
    "sheet_from_forced_runs",
    "sheet_from_network",
]

#: Value of the ``format`` field of every sheet.
SHEET_FORMAT = "causalcost-sheet"
#: The sheet version this causalcost writes and reads.
SHEET_VERSION = 1

_REQUIRED = ("format", "version", "created", "causalcost_version", "slot", "system_name",
             "provenance", "assumption", "costs", "rates", "derived")
_OPTIONAL = ("monotonicity", "class_counts", "prior", "table", "forced_runs")
_DERIVED = ("expected_cost_matrix", "error_transition_matrix")
_RATE_NAMES = {("P", "P"): "e_P(P)", ("P", "N"): "e_P(N)", ("N", "P"): "e_N(P)",
               ("N", "N"): "e_N(N)"}
_TOL = {"rel_tol": 1e-9, "abs_tol": 1e-12}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, **_TOL)


def _same_cells(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(_close(x, y) for x, y in zip(a, b))


def _rates_cells(r: ErrorRates) -> tuple[float, float, float, float]:
    return (r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n)


def _is_real(v: object) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))


# ---------------------------------------------------------------------------------- the sheet
@dataclass(frozen=True, eq=False)
class CostSheet:
    """Everything a model owner needs to judge candidates for one slot, and where it came from.

    Build one with :func:`derive_sheet`, :func:`sheet_from_network` or
    :func:`sheet_from_forced_runs`; read one with :func:`load_sheet`. The constructor checks
    that the fields agree with each other and raises :class:`~causalcost.errors.SheetError`
    otherwise. Two sheets are equal when their :meth:`to_dict` forms are.

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
        :meth:`MonotonicityCheck.to_dict` of the network check, when one was run.
    provenance : dict
        ``{"source": "network", "network": .., "file": .., "sha256": ..}``,
        ``{"source": "data", "description": ..}`` or ``{"source": "unspecified"}``.
    created : str
        ISO 8601 timestamp of the derivation.
    causalcost_version : str
        The causalcost version that derived the sheet.
    """

    slot: str
    system_name: str
    rates: ErrorRates
    table: InterventionalTable | None
    forced_p: Confusion | None
    forced_n: Confusion | None
    class_counts: tuple[int, int] | None
    prior: float | None
    costs: CostMatrix
    expected_cost_matrix: ModelCostMatrix
    error_transition_matrix: ModelCostMatrix
    assumption: str
    monotonicity: dict[str, Any] | None
    provenance: dict[str, Any]
    created: str
    causalcost_version: str

    def __post_init__(self) -> None:
        _check_fields(self)
        object.__setattr__(self, "provenance", dict(self.provenance))
        if self.monotonicity is not None:
            object.__setattr__(self, "monotonicity", dict(self.monotonicity))
        if self.class_counts is not None:
            object.__setattr__(self, "class_counts", tuple(int(v) for v in self.class_counts))
        if self.prior is not None:
            object.__setattr__(self, "prior", float(self.prior))
        _check_consistency(self)

    # -- derived views --------------------------------------------------------------------
    @property
    def form(self) -> str:
        """``"counts"`` when the sheet holds forced runs, else ``"probability"``."""
        return "counts" if self.forced_p is not None else "probability"

    @property
    def monotonicity_check(self) -> MonotonicityCheck | None:
        """The stored network check as a :class:`MonotonicityCheck`, or None."""
        m = self.monotonicity
        if m is None:
            return None
        return MonotonicityCheck(slot=str(m.get("slot", self.slot)),
                                 system_node=str(m.get("system_node", "")),
                                 is_monotone=bool(m["is_monotone"]), violation=m.get("violation"),
                                 assignments=int(m.get("assignments", 0)))

    # -- serialisation --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready sheet (format, version, and every field; ``None`` where unknown)."""
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
            "table": None if self.table is None else self.table.to_dict(),
            "forced_runs": forced,
            "derived": {"expected_cost_matrix": self.expected_cost_matrix.to_dict(),
                        "error_transition_matrix": self.error_transition_matrix.to_dict()},
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The sheet as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | Path) -> Path:
        """Write the sheet as JSON to ``path`` (UTF-8) and return the path."""
        path = Path(path)
        path.write_text(self.to_json() + "\n", encoding="utf-8")
        return path

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
        return _from_dict(data)

    # -- display --------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """The four rates, one row per (class, forced slot value), with intervals when known.

        Columns ``rate`` and ``symbol``, plus ``ci_low``, ``ci_high`` and ``n`` (the instances
        behind each rate) for sampled or counted tables.
        """
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

    def __str__(self) -> str:
        rates = self.to_frame().to_string(float_format=lambda v: f"{v:.6g}")
        source = ", ".join(f"{k}={v}" for k, v in self.provenance.items())
        lines = [
            f"Cost sheet for slot {self.slot!r} of system {self.system_name!r} "
            f"(format {SHEET_FORMAT} v{SHEET_VERSION}, created {self.created})",
            f"provenance: {source}",
            f"classes: {self._classes_text()}",
            f"system costs: {self.costs!r}",
            f"assumption: {self.assumption!r}; worst case in the {self.form} form",
            "interventional error rates:",
            rates,
            f"cost function 1 (expected): {self.expected_cost_matrix!r}",
            f"cost function 2 (transition): {self.error_transition_matrix!r}",
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        r = self.rates
        return (f"CostSheet(slot={self.slot!r}, system={self.system_name!r}, "
                f"e_P(P)={r.fn_forced_p:.6g}, e_P(N)={r.fn_forced_n:.6g}, "
                f"e_N(P)={r.fp_forced_p:.6g}, e_N(N)={r.fp_forced_n:.6g}, costs={self.costs!r}, "
                f"assumption={self.assumption!r}, form={self.form!r})")

    def _repr_html_(self) -> str:
        fmt = lambda v: f"{v:.6g}"  # noqa: E731
        head = (f"<p><b>Cost sheet</b> for slot <code>{self.slot}</code> of system "
                f"<code>{self.system_name}</code>; classes: {self._classes_text()}; assumption "
                f"<code>{self.assumption}</code>; system costs {self.costs!r}</p>")
        derived = pd.DataFrame([self.expected_cost_matrix.to_dict(),
                                self.error_transition_matrix.to_dict()],
                               index=["cost function 1", "cost function 2"])
        return head + self.to_frame().to_html(float_format=fmt) + derived.to_html(float_format=fmt)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostSheet):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.to_json(indent=None))


def _int_cells(m: Confusion) -> dict[str, float | int]:
    return {k: int(v) if float(v).is_integer() else v for k, v in m.to_dict().items()}


# ------------------------------------------------------------------------------ validation
def _check_fields(s: CostSheet) -> None:
    """Types and ranges of the fields, one by one (SheetError naming the field)."""
    expect: list[tuple[str, type | tuple[type, ...], bool]] = [
        ("slot", str, False), ("system_name", str, False), ("rates", ErrorRates, False),
        ("table", InterventionalTable, True), ("forced_p", Confusion, True),
        ("forced_n", Confusion, True), ("costs", CostMatrix, False),
        ("expected_cost_matrix", ModelCostMatrix, False),
        ("error_transition_matrix", ModelCostMatrix, False), ("assumption", str, False),
        ("monotonicity", Mapping, True), ("provenance", Mapping, False),
        ("created", str, False), ("causalcost_version", str, False),
    ]
    for name, kind, optional in expect:
        value = getattr(s, name)
        if value is None and optional:
            continue
        if not isinstance(value, kind):
            what = kind.__name__ if isinstance(kind, type) else " or ".join(
                k.__name__ for k in kind)
            raise SheetError(f"field {name!r} must be {what}, got {type(value).__name__}")
    if not s.slot:
        raise SheetError("field 'slot' must not be empty")
    if s.assumption not in ASSUMPTIONS:
        raise SheetError(f"field 'assumption' ({s.assumption!r}) must be one of 'monotone' or "
                         "'none'")
    for name, kind in (("expected_cost_matrix", "expected"),
                       ("error_transition_matrix", "transition")):
        if getattr(s, name).kind != kind:
            raise SheetError(f"field {name!r} must have kind {kind!r}")
    if (s.forced_p is None) != (s.forced_n is None):
        raise SheetError("fields 'forced_p' and 'forced_n' come together: give both or neither")
    if s.class_counts is not None:
        _check_class_counts(s.class_counts, SheetError)
    if s.prior is not None and (not _is_real(s.prior) or not 0.0 <= float(s.prior) <= 1.0):
        raise SheetError(f"field 'prior' must be a probability in [0, 1], got {s.prior!r}")
    try:
        datetime.fromisoformat(s.created.replace("Z", "+00:00"))
    except ValueError:
        raise SheetError(f"field 'created' must be an ISO 8601 timestamp, got {s.created!r}") \
            from None
    _check_provenance(s.provenance)
    if s.monotonicity is not None and not isinstance(s.monotonicity.get("is_monotone"), bool):
        raise SheetError("field 'monotonicity.is_monotone' must be true or false")


def _check_class_counts(counts: object, error: type[ValidationError]) -> None:
    ok = (isinstance(counts, (tuple, list)) and len(counts) == 2
          and all(_is_real(v) and float(v).is_integer() and v >= 0 for v in counts))
    if not ok or sum(counts) <= 0:  # type: ignore[arg-type]
        raise error(f"class_counts must be two non-negative integers (positives, negatives), "
                    f"not both zero; got {counts!r}")


def _check_provenance(p: Mapping[str, Any]) -> None:
    source = p.get("source")
    if not isinstance(source, str) or not source:
        raise SheetError("field 'provenance.source' must be a non-empty string such as "
                         "'network', 'data' or 'unspecified'")
    needs = {"network": ("network",), "data": ("description",)}.get(source, ())
    for key in needs:
        if not isinstance(p.get(key), str):
            raise SheetError(f"field 'provenance.{key}' must be a string when the source is "
                             f"{source!r}")
    digest = p.get("sha256")
    if digest is not None and not (isinstance(digest, str) and digest.startswith("sha256:")):
        raise SheetError(f"field 'provenance.sha256' must look like 'sha256:<hex>', got {digest!r}")
    try:
        json.dumps(dict(p), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SheetError(f"field 'provenance' must be JSON-serialisable: {exc}") from None


def _check_consistency(s: CostSheet) -> None:
    """The fields agree with each other (SheetError saying which disagree)."""
    bad = "tampered or inconsistent sheet: "
    if s.table is not None:
        if s.table.slot != s.slot:
            raise SheetError(f"{bad}the table is for slot {s.table.slot!r}, the sheet for "
                             f"{s.slot!r}")
        if not _same_cells(_rates_cells(s.table.error_rates), _rates_cells(s.rates)):
            raise SheetError(f"{bad}'rates' {s.rates!r} differ from the table's "
                             f"{s.table.error_rates!r}")
    if s.forced_p is not None and s.forced_n is not None:
        totals = {(m.positives, m.negatives) for m in (s.forced_p, s.forced_n)}
        if len(totals) > 1:
            raise SheetError(f"{bad}the forced runs count different class totals: "
                             f"{s.forced_p!r} and {s.forced_n!r}")
        if s.class_counts is None or tuple(map(float, s.class_counts)) != totals.pop():
            raise SheetError(f"{bad}'class_counts' {s.class_counts!r} must equal the forced runs' "
                             f"class totals ({_fmt(s.forced_p.positives)}, "
                             f"{_fmt(s.forced_p.negatives)})")
        counted = ErrorRates.from_forced(s.forced_p, s.forced_n)
        if not _same_cells(_rates_cells(counted), _rates_cells(s.rates)):
            raise SheetError(f"{bad}'rates' {s.rates!r} differ from those counted in the forced "
                             f"runs {counted!r}")
    if s.class_counts is not None and s.prior is not None:
        implied = s.class_counts[0] / sum(s.class_counts)
        if not _close(implied, s.prior):
            raise SheetError(f"{bad}'prior' {s.prior:.6g} differs from the class counts' "
                             f"{implied:.6g}")
    if s.assumption == "monotone":
        m = s.monotonicity
        if m is not None and m["is_monotone"] is False:
            raise SheetError(f"{bad}assumption 'monotone' but the network check found the system "
                             f"is not monotone in the slot (violation {m.get('violation')})")
        if not s.rates.is_monotone:
            raise SheetError(f"{bad}assumption 'monotone' but the rates {s.rates!r} violate "
                             "e_P(P) <= e_P(N) or e_N(N) <= e_N(P)")
    for name, recompute in (("expected_cost_matrix", expected_cost_matrix),
                            ("error_transition_matrix", error_transition_matrix)):
        stored, fresh = getattr(s, name), recompute(s.rates, s.costs)
        if not _same_cells(stored.cells(), fresh.cells()):
            raise SheetError(f"{bad}the stored {name} {stored!r} differs from the one recomputed "
                             f"from the rates and costs {fresh!r}")


# ------------------------------------------------------------------------------- loading
def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SheetError(f"field {where!r} must be an object, got {type(value).__name__}")
    return value


def _fields(value: Any, where: str, required: tuple[str, ...],
            optional: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """``value`` as a mapping with every ``required`` key and no unknown key."""
    value = _mapping(value, where)
    missing = [_path(where, k) for k in required if k not in value]
    if missing:
        raise SheetError("missing required field(s) " + ", ".join(map(repr, missing)))
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        raise SheetError(f"unknown field(s) {[_path(where, k) for k in unknown]}; "
                         f"valid: {[_path(where, k) for k in (*required, *optional)]}")
    return value


def _real(value: Any, where: str) -> float:
    if not _is_real(value) or not math.isfinite(float(value)):
        raise SheetError(f"field {where!r} must be a finite number, got {value!r}")
    return float(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise SheetError(f"field {where!r} must be a string, got {value!r}")
    return value


def _cells(value: Any, where: str) -> dict[str, float]:
    m = _fields(value, where, CELLS)
    return {k: _real(m[k], _path(where, k)) for k in CELLS}


def _guard(where: str, build: Any, *args: Any) -> Any:
    """Call ``build``; turn a value or type error into a SheetError naming ``where``."""
    try:
        return build(*args)
    except SheetError:
        raise
    except (CausalCostError, TypeError, ValueError) as exc:
        raise SheetError(f"field {where!r}: {exc}") from None


def _rates_from(value: Any) -> ErrorRates:
    d = _fields(value, "rates", CLASSES)
    r = {c: _fields(d[c], f"rates.{c}", CLASSES) for c in CLASSES}
    vals = {(c, x): _real(r[c][x], f"rates.{c}.{x}") for c in CLASSES for x in CLASSES}
    for (c, x), v in vals.items():
        if not 0.0 <= v <= 1.0:
            raise SheetError(f"field 'rates.{c}.{x}' ({_RATE_NAMES[c, x]}) must be a probability "
                             f"in [0, 1], got {v!r}")
    return ErrorRates(vals["P", "P"], vals["P", "N"], vals["N", "P"], vals["N", "N"])


def _table_from(value: Any) -> InterventionalTable:
    d = _fields(value, "table", ("slot", "method", "table"),
                ("error_rates", "confidence", "interval_method", "seed"))
    records = d["table"]
    if not isinstance(records, list) or len(records) != 16:
        raise SheetError("field 'table.table' must be a list of 16 records, one per (class, do, "
                         "confusion)")
    intervals = any(isinstance(r, Mapping) and "ci_low" in r for r in records)
    keys = ("class", "do", "confusion", "probability")
    extra = ("ci_low", "ci_high", "n") if intervals else ()
    arrays = {k: np.full((2, 2, 4), np.nan) for k in ("probability", *extra)}
    for i, rec in enumerate(records):
        where = f"table.table[{i}]"
        rec = _fields(rec, where, keys + extra, ("std_error",))
        try:
            idx = (CLASSES.index(rec["class"]), CLASSES.index(rec["do"]),
                   OUTCOMES.index(rec["confusion"]))
        except ValueError:
            raise SheetError(f"field {where!r}: class/do must be 'P' or 'N' and confusion one of "
                             f"{', '.join(OUTCOMES)}") from None
        for k in arrays:
            arrays[k][idx] = _real(rec[k], f"{where}.{k}")
    if np.isnan(arrays["probability"]).any():
        raise SheetError("field 'table.table' must hold each (class, do, confusion) cell once")
    seed = d.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise SheetError(f"field 'table.seed' must be an integer, got {seed!r}")
    confidence = d.get("confidence")
    if d.get("interval_method") is not None:
        _string(d["interval_method"], "table.interval_method")
    table = _guard("table", InterventionalTable, _string(d["slot"], "table.slot"),
                   _string(d["method"], "table.method"), arrays["probability"],
                   arrays.get("n"), arrays.get("ci_low"), arrays.get("ci_high"),
                   None if confidence is None else _real(confidence, "table.confidence"),
                   d.get("interval_method"), seed)
    if "error_rates" in d:
        stored = _rates_from(d["error_rates"])
        if not _same_cells(_rates_cells(stored), _rates_cells(table.error_rates)):
            raise SheetError("tampered or inconsistent sheet: 'table.error_rates' differ from the "
                             "table's probabilities")
    return table


def _from_dict(data: Any) -> CostSheet:
    if not isinstance(data, Mapping):
        raise SheetError(f"a cost sheet must be a JSON object, got {type(data).__name__}")
    d = data
    if "format" not in d:
        raise SheetError(f"missing required field 'format': not a causalcost cost sheet "
                         f"(expected format {SHEET_FORMAT!r})")
    if d["format"] != SHEET_FORMAT:
        raise SheetError(f"field 'format' is {d['format']!r}: not a causalcost cost sheet "
                         f"(expected {SHEET_FORMAT!r})")
    if "version" not in d:
        raise SheetError(f"missing required field 'version' (this causalcost reads version "
                         f"{SHEET_VERSION})")
    version = d["version"]
    if version != SHEET_VERSION or isinstance(version, bool):
        raise SheetError(f"sheet version {version!r} is not supported: this causalcost reads "
                         f"version {SHEET_VERSION} only; derive the sheet again with it")
    d = _fields(d, "", _REQUIRED, _OPTIONAL)
    derived = _fields(d["derived"], "derived", _DERIVED)
    matrices = {k: _guard(f"derived.{k}", ModelCostMatrix,
                          *_cells(derived[k], f"derived.{k}").values(),
                          "expected" if k == "expected_cost_matrix" else "transition")
                for k in _DERIVED}
    forced: tuple[Confusion | None, Confusion | None] = (None, None)
    if d.get("forced_runs") is not None:
        fr = _fields(d["forced_runs"], "forced_runs", ("forced_p", "forced_n"))
        forced = tuple(_guard(f"forced_runs.{k}", Confusion, *_cells(fr[k], f"forced_runs.{k}")
                              .values()) for k in ("forced_p", "forced_n"))  # type: ignore
    counts = None
    if d.get("class_counts") is not None:
        cc = _fields(d["class_counts"], "class_counts", ("positives", "negatives"))
        counts = tuple(_real(cc[k], f"class_counts.{k}") for k in ("positives", "negatives"))
        _check_class_counts(counts, SheetError)
    prior = None if d.get("prior") is None else _real(d["prior"], "prior")
    monotonicity = d.get("monotonicity")
    if monotonicity is not None:
        monotonicity = dict(_mapping(monotonicity, "monotonicity"))
    return CostSheet(
        slot=_string(d["slot"], "slot"),
        system_name=_string(d["system_name"], "system_name"),
        rates=_rates_from(d["rates"]),
        table=None if d.get("table") is None else _table_from(d["table"]),
        forced_p=forced[0],
        forced_n=forced[1],
        class_counts=counts,  # type: ignore[arg-type]
        prior=prior,
        costs=_guard("costs", CostMatrix, *_cells(d["costs"], "costs").values()),
        expected_cost_matrix=matrices["expected_cost_matrix"],
        error_transition_matrix=matrices["error_transition_matrix"],
        assumption=_string(d["assumption"], "assumption"),
        monotonicity=monotonicity,
        provenance=dict(_mapping(d["provenance"], "provenance")),
        created=_string(d["created"], "created"),
        causalcost_version=_string(d["causalcost_version"], "causalcost_version"),
    )


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
    >>> sheet = derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=5, fp=1),
    ...                      slot="clinical_history", prior=1 / 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     again = load_sheet(sheet.save(f"{tmp}/sheet.json"))
    >>> again == sheet
    True
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SheetError(f"cannot read sheet {str(path)!r}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SheetError(f"{path.name}: not valid JSON: {exc}") from None
    try:
        return _from_dict(data)
    except SheetError as exc:
        raise SheetError(f"{path.name}: {exc}") from None


# ---------------------------------------------------------------------------- derivation
def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    from . import __version__  # late: the package imports this module

    return __version__


def derive_sheet(
    table: InterventionalTable | ErrorRates,
    costs: CostMatrix,
    *,
    slot: str | None = None,
    system_name: str = "system",
    prior: float | None = None,
    class_counts: tuple[int, int] | None = None,
    forced_p: Confusion | None = None,
    forced_n: Confusion | None = None,
    assumption: str = "monotone",
    monotonicity: MonotonicityCheck | Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> CostSheet:
    """Derive the cost sheet of a slot from its interventional rates and the system's costs.

    Parameters
    ----------
    table : InterventionalTable or ErrorRates
        The slot's interventional table (kept, with its intervals) or just its rates.
    costs : CostMatrix
        The system's cost matrix.
    slot : str, optional
        The slot's name; defaults to the table's (required with bare ``ErrorRates``).
    system_name : str, default "system"
        A label for the system.
    prior : float, optional
        ``P(Class = P)``; computed from ``class_counts`` when those are given.
    class_counts : (int, int), optional
        Positives and negatives of the evaluation set; candidates must then match them exactly.
        Taken from the forced runs when those are given.
    forced_p, forced_n : Confusion, optional
        The system's confusion with the slot forced to P / N on an evaluation set (counts). The
        sheet then uses the count-form worst case.
    assumption : {"monotone", "none"}
        What the worst and best cases rest on.
    monotonicity : MonotonicityCheck or dict, optional
        The network's monotonicity check, stored in the sheet.
    provenance : dict, optional
        Where the rates come from; defaults to ``{"source": "unspecified"}``.

    Returns
    -------
    CostSheet

    Raises
    ------
    MonotonicityError
        If ``monotonicity`` says the system is not monotone and ``assumption="monotone"``.
    InfeasibleInputError
        If ``assumption="monotone"`` and ``e_P(P) > e_P(N)`` or ``e_N(N) > e_N(P)``, or the forced
        runs count different class totals.
    ValidationError
        For an unknown assumption, a missing or contradicting slot, class counts or prior, or
        forced runs whose rates differ from the table's.

    Examples
    --------
    Thesis §4, example 2 (OR fusioner), with prior 1/3:

    >>> import causalcost as cc
    >>> rates = cc.ErrorRates(0.0, 0.75, 1.0, 0.5)
    >>> sheet = derive_sheet(rates, cc.CostMatrix(fn=5, fp=1), slot="clinical_history",
    ...                      prior=1 / 3)
    >>> sheet.error_transition_matrix
    ModelCostMatrix(tp=0, fn=3.75, fp=0.5, tn=0, kind='transition')
    >>> derive_sheet(cc.ErrorRates(0.9, 0.1, 0.5, 0.5), cc.CostMatrix(), slot="m")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    causalcost.errors.InfeasibleInputError: assumption='monotone' but e_P(P)=0.9 > e_P(N)=0.1: ...
    """
    if isinstance(table, InterventionalTable):
        rates, kept = table.error_rates, table
        if slot is not None and slot != table.slot:
            raise ValidationError(f"slot {slot!r} differs from the table's slot {table.slot!r}")
        slot = table.slot
    elif isinstance(table, ErrorRates):
        rates, kept = table, None
        if slot is None:
            raise ValidationError("slot is required when deriving a sheet from bare ErrorRates")
    else:
        raise TypeError(f"table must be an InterventionalTable or ErrorRates, got "
                        f"{type(table).__name__}")
    if not isinstance(costs, CostMatrix):
        raise TypeError(f"costs must be a CostMatrix, got {type(costs).__name__}")
    if not isinstance(slot, str) or not slot:
        raise ValidationError(f"slot must be a non-empty string, got {slot!r}")
    if assumption not in ASSUMPTIONS:
        raise ValidationError(f"assumption ({assumption!r}) must be one of 'monotone' or 'none'")
    mono = _monotonicity_dict(monotonicity)
    if assumption == "monotone":
        if mono is not None and not mono["is_monotone"]:
            raise MonotonicityError(
                f"the network check found the system is not monotone in slot {slot!r} "
                f"(violated at {mono.get('violation')}), so the monotone worst case does not "
                "hold; derive the sheet with assumption='none' (--assumption none)")
        for cls, fc, fw, vc, vw in (("positives", "e_P(P)", "e_P(N)", rates.fn_forced_p,
                                     rates.fn_forced_n),
                                    ("negatives", "e_N(N)", "e_N(P)", rates.fp_forced_n,
                                     rates.fp_forced_p)):
            if vc > vw:
                raise InfeasibleInputError(
                    f"assumption='monotone' but {fc}={vc:.6g} > {fw}={vw:.6g}: on {cls} the system "
                    "fails more often with the slot right than wrong, so it is not monotone in "
                    "the slot; use assumption='none' (--assumption none)")
    counts = _class_counts_arg(class_counts)
    if (forced_p is None) != (forced_n is None):
        raise ValidationError("give both forced_p and forced_n, or neither")
    if forced_p is not None and forced_n is not None:
        for name, m in (("forced_p", forced_p), ("forced_n", forced_n)):
            if not isinstance(m, Confusion):
                raise TypeError(f"{name} must be a Confusion, got {type(m).__name__}")
        if (forced_p.positives, forced_p.negatives) != (forced_n.positives, forced_n.negatives):
            raise InfeasibleInputError(
                f"forced_p has {_fmt(forced_p.positives)} positives and "
                f"{_fmt(forced_p.negatives)} negatives but forced_n has "
                f"{_fmt(forced_n.positives)} and {_fmt(forced_n.negatives)}: count both forced "
                "runs on the same instances")
        totals = (int(forced_p.positives), int(forced_p.negatives))
        if counts is not None and counts != totals:
            raise ValidationError(f"class_counts {counts} differ from the forced runs' class "
                                  f"totals {totals}")
        counts = totals
        counted = ErrorRates.from_forced(forced_p, forced_n)
        if not _same_cells(_rates_cells(counted), _rates_cells(rates)):
            raise ValidationError(f"the forced runs give {counted!r} but the table gives "
                                  f"{rates!r}: pass the table counted from these runs")
    if prior is not None:
        if not _is_real(prior) or not 0.0 <= float(prior) <= 1.0:
            raise ValidationError(f"prior must be a probability in [0, 1], got {prior!r}")
        prior = float(prior)
    if counts is not None:
        implied = counts[0] / sum(counts)
        if prior is not None and not _close(prior, implied):
            raise ValidationError(f"prior {prior:.6g} contradicts class_counts {counts} (which "
                                  f"imply {implied:.6g}); give one or make them agree")
        prior = implied
    return CostSheet(
        slot=slot, system_name=system_name, rates=rates, table=kept, forced_p=forced_p,
        forced_n=forced_n, class_counts=counts, prior=prior, costs=costs,
        expected_cost_matrix=expected_cost_matrix(rates, costs),
        error_transition_matrix=error_transition_matrix(rates, costs),
        assumption=assumption, monotonicity=mono,
        provenance=dict(provenance) if provenance is not None else {"source": "unspecified"},
        created=_now(), causalcost_version=_version(),
    )


def _class_counts_arg(class_counts: object) -> tuple[int, int] | None:
    if class_counts is None:
        return None
    _check_class_counts(class_counts, ValidationError)
    p, n = class_counts  # type: ignore[misc]
    return int(p), int(n)


def _monotonicity_dict(m: MonotonicityCheck | Mapping[str, Any] | None) -> dict[str, Any] | None:
    if m is None:
        return None
    if isinstance(m, MonotonicityCheck):
        return m.to_dict()
    if isinstance(m, Mapping) and isinstance(m.get("is_monotone"), bool):
        return dict(m)
    raise TypeError("monotonicity must be a MonotonicityCheck or its to_dict(), got "
                    f"{type(m).__name__}")


def sheet_from_forced_runs(
    forced_p: Confusion,
    forced_n: Confusion,
    costs: CostMatrix,
    *,
    slot: str,
    description: str,
    system_name: str = "system",
    assumption: str = "monotone",
    confidence: float = 0.95,
    interval_method: str = "wilson",
) -> CostSheet:
    """Derive a count-form sheet from two runs of the real system on one evaluation set.

    The table (with binomial intervals from statsmodels) is counted from the runs, the class
    counts are the runs' class totals, and candidates must be counted on the same instances.

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P and to N (integer counts).
    costs : CostMatrix
        The system's cost matrix.
    slot : str
        The slot's name.
    description : str
        What the evaluation set is (recorded as the provenance).
    system_name, assumption
        As in :func:`derive_sheet`.
    confidence, interval_method
        Level and method of the rates' intervals (``"wilson"`` or ``"clopper-pearson"``).

    Returns
    -------
    CostSheet

    Examples
    --------
    Thesis §4, example 1 counted on 100 positives and 200 negatives:

    >>> import causalcost as cc
    >>> sheet = sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
    ...                                cc.CostMatrix(fn=5, fp=1), slot="clinical_history",
    ...                                description="thesis §4 evaluation set")
    >>> sheet.class_counts, sheet.form
    ((100, 200), 'counts')
    >>> bool(sheet.to_frame().loc[("P", "P"), "ci_low"] < 0.2)
    True
    """
    table = InterventionalTable.from_forced(slot, forced_p, forced_n, confidence=confidence,
                                            interval_method=interval_method)
    return derive_sheet(table, costs, system_name=system_name, forced_p=forced_p,
                        forced_n=forced_n, assumption=assumption,
                        provenance={"source": "data", "description": description})


def network_provenance(spec: str | Path) -> dict[str, Any]:
    """``{"source": "network", "network": .., "file": .., "sha256": ..}`` of a network file.

    Examples
    --------
    >>> p = network_provenance("thesis_and")
    >>> p["source"], p["file"], p["sha256"].startswith("sha256:")
    ('network', 'thesis_and.toml', True)
    """
    from .netfile import file_digest, network_path

    path = network_path(spec)
    return {"source": "network", "network": path.stem, "file": path.name,
            "sha256": file_digest(path)}


def sheet_from_network(
    network: Any,
    costs: CostMatrix,
    *,
    slot: str | None = None,
    method: str = "exact",
    samples: int = 100_000,
    seed: int | None = None,
    prior: float | None = None,
    class_counts: tuple[int, int] | None = None,
    assumption: str = "monotone",
    check: bool = True,
    confidence: float = 0.95,
    interval: str = "wilson",
    provenance: Mapping[str, Any] | None = None,
) -> CostSheet:
    """Derive a sheet from a network file, a shipped network's stem, or a :class:`System`.

    The table is computed with :func:`causalcost.interventional_table`; the network's
    monotonicity is checked (when every node between slot and system prediction is
    deterministic) and stored; without ``prior`` and ``class_counts`` the prior is the network's
    ``P(Class = P)``. For a file, the provenance records its name and SHA-256.

    Parameters
    ----------
    network : str, Path or System
    costs : CostMatrix
    slot : str, optional
        Defaults to the network's slot.
    method, samples, seed
        As in :func:`causalcost.interventional_table`.
    prior, class_counts, assumption
        As in :func:`derive_sheet`.
    check : bool, default True
        Run :func:`causalcost.check_monotonicity`.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> round(sheet.prior, 12), sheet.monotonicity["is_monotone"], sheet.provenance["file"]
    (0.333333333333, True, 'thesis_and.toml')
    """
    from .exact import class_prior
    from .netfile import load_network
    from .query import interventional_table
    from .system import System

    if isinstance(network, System):
        system = network if slot is None else network.with_slot(slot)
        source: dict[str, Any] = {"source": "network", "network": system.name,
                                  "description": "built in Python (no network file)"}
    elif isinstance(network, (str, Path)):
        system = load_network(network, slot=slot)
        source = network_provenance(network)
        source["network"] = system.name
    else:
        raise TypeError(f"network must be a path, a shipped network name or a System, got "
                        f"{type(network).__name__}")
    if provenance is not None:
        source = dict(provenance)
    slot = system.require_slot(slot)
    table = interventional_table(system, slot, method=method, samples=samples, seed=seed,
                                 confidence=confidence, interval=interval)
    monotonicity = None
    if check:
        try:
            monotonicity = check_monotonicity(system, slot)
        except NetworkStructureError as exc:
            if assumption == "monotone":
                raise MonotonicityError(
                    f"cannot verify the monotone assumption: {exc}. Pass assumption='none' "
                    "(--assumption none) "
                    "(assumption-free bounds), or check=False to assume monotonicity unverified"
                ) from None
    if prior is None and class_counts is None:
        prior = class_prior(system)
    return derive_sheet(table, costs, system_name=system.name, prior=prior,
                        class_counts=class_counts, assumption=assumption,
                        monotonicity=monotonicity, provenance=source)
