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
derived matrices: a sheet whose numbers disagree with each other is refused, never used. The
JSON schema and its reader live in :mod:`causalcost._sheet_schema`, the field and consistency
checks every sheet passes on construction in :mod:`causalcost._sheet_checks`.

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
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from ._sheet_checks import (
    _check_class_counts,
    _check_consistency,
    _check_fields,
    _close,
    _is_probability,
    _same_rates,
)
from ._sheet_schema import _RATE_NAMES, SHEET_FORMAT, SHEET_VERSION, _sheet_fields
from .bounds import ASSUMPTIONS
from .confusion import CLASSES, Confusion, CostMatrix
from .confusion import format_number as _fmt
from .costs import ModelCostMatrix, error_transition_matrix, expected_cost_matrix
from .errors import (
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
        return cls(**_sheet_fields(data))

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
        return CostSheet.from_dict(data)
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
        if not _same_rates(counted, rates):
            raise ValidationError(f"the forced runs give {counted!r} but the table gives "
                                  f"{rates!r}: pass the table counted from these runs")
    if prior is not None:
        if not _is_probability(prior):
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
