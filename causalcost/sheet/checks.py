"""The checks a cost sheet's fields pass, one by one and against each other.

A :class:`~causalcost.sheet.costsheet.CostSheet` runs :func:`_check_fields` (types and ranges, each
field alone) and then :func:`_check_consistency` (the fields agree: the table and the forced
runs give the stored rates, the class counts imply the prior, the derived matrices are the ones
recomputed from the rates and costs) on construction, whether it was derived or loaded; either
raises :class:`~causalcost.errors.SheetError` naming the field. The number tests here are shared
with the derivation (:mod:`causalcost.sheet.derivation`) and the JSON reader
(:mod:`causalcost.sheet.schema`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.errors import SheetError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.bounds import ASSUMPTIONS
from causalcost.pricing.costs import ModelCostMatrix, error_transition_matrix, expected_cost_matrix


class SheetFields(Protocol):
    """The fields of a cost sheet that the checks read (the sheet object sits above them)."""

    slot: str
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

_TOL = {"rel_tol": 1e-9, "abs_tol": 1e-12}


# ---------------------------------------------------------------------------- number tests
def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, **_TOL)


def _same_cells(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(_close(x, y) for x, y in zip(a, b))


def _same_rates(a: ErrorRates, b: ErrorRates) -> bool:
    """The four rates agree within the tolerance."""
    return _same_cells((a.fn_forced_p, a.fn_forced_n, a.fp_forced_p, a.fp_forced_n),
                       (b.fn_forced_p, b.fn_forced_n, b.fp_forced_p, b.fp_forced_n))


def _is_real(v: object) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))


def _is_probability(v: object) -> bool:
    return _is_real(v) and 0.0 <= float(v) <= 1.0  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- field checks
def _check_fields(s: SheetFields) -> None:
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
    if s.prior is not None and not _is_probability(s.prior):
        raise SheetError(f"field 'prior' must be a probability in [0, 1], got {s.prior!r}")
    try:
        datetime.fromisoformat(s.created.replace("Z", "+00:00"))
    except ValueError:
        raise SheetError(f"field 'created' must be an ISO 8601 timestamp, got {s.created!r}") \
            from None
    _check_provenance(s.provenance)
    if s.monotonicity is not None:
        _check_evidence(s.monotonicity)


#: Where a sheet's monotonicity evidence comes from.
EVIDENCE_SOURCES = ("network", "data", "declared")


def evidence_source(m: Mapping[str, Any]) -> str:
    """``"network"``, ``"data"`` or ``"declared"`` (a network check written before sources
    were recorded has none: it is the network's)."""
    return str(m.get("source", "network"))


def _check_evidence(m: Mapping[str, Any]) -> None:
    """The monotonicity evidence: a network check, data counts, or an owner's declaration."""
    if not isinstance(m.get("is_monotone"), bool):
        raise SheetError("field 'monotonicity.is_monotone' must be true or false")
    source = evidence_source(m)
    if source == "network":
        assignments = m.get("assignments", 0)
        if isinstance(assignments, bool) or not isinstance(assignments, int) or assignments < 0:
            raise SheetError("field 'monotonicity.assignments' must be the number of input "
                             f"assignments checked (an integer >= 0), got {assignments!r}")
        if m.get("method", "enumeration") not in ("enumeration", "by construction"):
            raise SheetError("field 'monotonicity.method' must be 'enumeration' or 'by "
                             f"construction', got {m.get('method')!r}")
    if source not in EVIDENCE_SOURCES:
        raise SheetError(f"field 'monotonicity.source' ({source!r}) must be one of "
                         f"{', '.join(map(repr, EVIDENCE_SOURCES))}")
    if source == "data":
        right_only = m.get("right_only")
        if isinstance(right_only, bool) or not isinstance(right_only, int) or right_only < 0:
            raise SheetError("field 'monotonicity.right_only' must be the count of instances "
                             "that fail only when the slot is right (an integer >= 0)")
        if m["is_monotone"] != (right_only == 0):
            raise SheetError("field 'monotonicity.is_monotone' must say whether the data have "
                             "no right_only instance")
        if "kinds" in m:
            _check_kinds(m["kinds"], right_only)
    if source == "declared":
        if not isinstance(m.get("by"), str) or not m["by"]:
            raise SheetError("field 'monotonicity.by' must name who declared the system "
                             "monotone (e.g. 'system owner')")
        if m["is_monotone"] is not True:
            raise SheetError("a declaration ('monotonicity.source' = 'declared') can only "
                             "declare the system monotone")


def _check_kinds(kinds: Any, right_only: int) -> None:
    """The counted kinds behind data evidence: four counts per class that add up."""
    names = ("never", "wrong_only", "always", "right_only")
    ok = isinstance(kinds, Mapping) and set(kinds) == {"P", "N"} and all(
        isinstance(kinds[c], Mapping) and set(kinds[c]) == set(names)
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for v in kinds[c].values()) for c in ("P", "N"))
    if not ok:
        raise SheetError("field 'monotonicity.kinds' must hold, for classes P and N, the counts "
                         f"{', '.join(names)} (integers >= 0)")
    if kinds["P"]["right_only"] + kinds["N"]["right_only"] != right_only:
        raise SheetError("field 'monotonicity.right_only' must be the right_only instances "
                         "counted in 'monotonicity.kinds'")


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


# ---------------------------------------------------------------------- consistency
def _check_consistency(s: SheetFields) -> None:
    """The fields agree with each other (SheetError saying which disagree).

    The relations, each checked where both sides are present: the table is for the sheet's
    slot and gives its ``rates``; the forced runs count one class total each (the
    ``class_counts``), give the ``rates``, and give the table (probabilities, counts and
    intervals, recounted); the counted kinds of data evidence give the forced runs (per class,
    failures forced to the right class are ``always + right_only``, to the wrong class
    ``always + wrong_only``: :func:`causalcost.forced_from_kinds`), so the class counts and the
    rates, and their ``right_only`` count says whether the system is monotone; the class counts
    give the ``prior``; the assumption ``monotone`` needs evidence that says so and monotone
    rates; the derived matrices are the ones recomputed from the rates and costs.
    """
    bad = "tampered or inconsistent sheet: "
    if s.table is not None:
        if s.table.slot != s.slot:
            raise SheetError(f"{bad}'table' is for slot {s.table.slot!r}, the sheet ('slot') for "
                             f"{s.slot!r}")
        if not _same_rates(s.table.error_rates, s.rates):
            raise SheetError(f"{bad}'rates' {s.rates!r} differ from the table's "
                             f"{s.table.error_rates!r}")
    if s.forced_p is not None and s.forced_n is not None:
        totals = {(m.positives, m.negatives) for m in (s.forced_p, s.forced_n)}
        if len(totals) > 1:
            raise SheetError(f"{bad}'forced_runs' count different class totals: "
                             f"{s.forced_p!r} and {s.forced_n!r}")
        if s.class_counts is None or tuple(map(float, s.class_counts)) != totals.pop():
            raise SheetError(f"{bad}'class_counts' {s.class_counts!r} must equal the class "
                             f"totals of 'forced_runs' ({_fmt(s.forced_p.positives)}, "
                             f"{_fmt(s.forced_p.negatives)})")
        counted = ErrorRates.from_forced(s.forced_p, s.forced_n)
        if not _same_rates(counted, s.rates):
            raise SheetError(f"{bad}'rates' {s.rates!r} differ from those counted in "
                             f"'forced_runs' {counted!r}")
    _check_table_counted(s, bad)
    _check_kinds_agree(s, bad)
    if s.class_counts is not None and s.prior is not None:
        implied = s.class_counts[0] / sum(s.class_counts)
        if not _close(implied, s.prior):
            raise SheetError(f"{bad}'prior' {s.prior:.6g} differs from the class counts' "
                             f"{implied:.6g}")
    m = s.monotonicity
    if m is not None and m.get("slot") is not None and m.get("slot") != s.slot:
        raise SheetError(f"{bad}the monotonicity evidence is for slot {m.get('slot')!r}, the "
                         f"sheet for {s.slot!r}")
    if s.assumption == "monotone":
        if m is None:
            raise SheetError(
                "assumption 'monotone' needs evidence in 'monotonicity': the network's exact "
                "check, data with no right_only instance, or the system owner's declaration "
                "({'source': 'declared', 'by': 'system owner', 'is_monotone': true}); derive "
                "the sheet again, or use assumption 'none'")
        if m["is_monotone"] is False:
            what = "data show" if evidence_source(m) == "data" else "network check found"
            detail = (f"right_only {m.get('right_only')}" if evidence_source(m) == "data"
                      else f"violation {m.get('violation')}")
            raise SheetError(f"{bad}'assumption' is 'monotone' but the {what} the system is not "
                             f"monotone in the slot ('monotonicity.is_monotone' false, "
                             f"{detail})")
        if not s.rates.is_monotone:
            raise SheetError(f"{bad}'assumption' is 'monotone' but the 'rates' {s.rates!r} violate "
                             "e_P(P) <= e_P(N) or e_N(N) <= e_N(P)")
    for name, recompute in (("expected_cost_matrix", expected_cost_matrix),
                            ("error_transition_matrix", error_transition_matrix)):
        stored, fresh = getattr(s, name), recompute(s.rates, s.costs)
        if not _same_cells(stored.cells(), fresh.cells()):
            raise SheetError(f"{bad}the stored {name} {stored!r} differs from the one recomputed "
                             f"from the rates and costs {fresh!r}")


def _check_table_counted(s: SheetFields, bad: str) -> None:
    """A table with counts is the one counted from them: its outcome counts are whole numbers
    (the forced runs' cells when the sheet holds them) and its intervals are recomputed."""
    t = s.table
    if t is None or t.counts is None:
        return
    if s.forced_p is not None and s.forced_n is not None:
        k, source = np.zeros((2, 2, 4)), "'forced_runs'"
        for x, m in enumerate((s.forced_p, s.forced_n)):
            k[0, x, :2] = (m.tp, m.fn)
            k[1, x, 2:] = (m.fp, m.tn)
    else:
        k, source = np.round(t.probabilities * t.counts), "its own counts ('n')"
        if not np.allclose(k, t.probabilities * t.counts, rtol=0, atol=1e-6):
            raise SheetError(f"{bad}the probabilities in 'table' are not whole counts out of "
                             "its 'n': the table was not counted")
    try:
        fresh = InterventionalTable.from_counts(
            t.slot, k, method=t.method, confidence=t.confidence or 0.95,
            interval_method=t.interval_method or "wilson", seed=t.seed)
    except ValidationError as exc:
        raise SheetError(f"{bad}'table' cannot be counted from {source}: {exc}") from None
    for name in ("probabilities", "counts", "lower", "upper"):
        stored, counted = getattr(t, name), getattr(fresh, name)
        if stored is not None and not np.allclose(stored, counted, rtol=_TOL["rel_tol"],
                                                  atol=_TOL["abs_tol"]):
            raise SheetError(f"{bad}the {name} in 'table' differ from those counted from "
                             f"{source} (confidence {t.confidence}, {t.interval_method} "
                             "intervals)")


def _stored_kinds(m: Mapping[str, Any] | None) -> dict[str, tuple[int, int, int, int]] | None:
    """The counted kinds of data evidence (validated by :func:`_check_kinds`), or None."""
    if m is None or evidence_source(m) != "data" or not isinstance(m.get("kinds"), Mapping):
        return None
    names = ("never", "wrong_only", "always", "right_only")
    return {c: tuple(int(m["kinds"][c][k]) for k in names)  # type: ignore[misc]
            for c in ("P", "N")}


def _check_kinds_agree(s: SheetFields, bad: str) -> None:
    """Counted kinds determine the forced runs, hence the class counts and the rates."""
    kinds = _stored_kinds(s.monotonicity)
    if kinds is None:
        return
    sizes = (sum(kinds["P"]), sum(kinds["N"]))
    if s.class_counts is None or tuple(map(int, s.class_counts)) != sizes:
        raise SheetError(f"{bad}'monotonicity.kinds' count {sizes[0]} positives and {sizes[1]} "
                         f"negatives but 'class_counts' is {s.class_counts!r}: the kinds must be "
                         "counted on the sheet's own instances")
    # per class: failures with the slot forced to the right / the wrong class
    right = {c: kinds[c][2] + kinds[c][3] for c in kinds}  # always + right_only
    wrong = {c: kinds[c][2] + kinds[c][1] for c in kinds}  # always + wrong_only
    implied = (Confusion(tp=sizes[0] - right["P"], fn=right["P"], fp=wrong["N"],
                         tn=sizes[1] - wrong["N"]),
               Confusion(tp=sizes[0] - wrong["P"], fn=wrong["P"], fp=right["N"],
                         tn=sizes[1] - right["N"]))
    if s.forced_p is not None and s.forced_n is not None:
        for name, stored, counted in zip(("forced_p", "forced_n"), (s.forced_p, s.forced_n),
                                         implied):
            if not _same_cells(stored.cells(), counted.cells()):
                raise SheetError(f"{bad}'monotonicity.kinds' imply 'forced_runs.{name}' "
                                 f"{counted!r}, the sheet holds {stored!r}")
    if sizes[0] > 0 and sizes[1] > 0:
        counted_rates = ErrorRates.from_forced(*implied)
        if not _same_rates(counted_rates, s.rates):
            raise SheetError(f"{bad}'monotonicity.kinds' imply the rates {counted_rates!r}, the "
                             f"sheet's 'rates' are {s.rates!r}")


# ------------------------------------------------------------------ sheets with K labels
#: Tolerance between a labelled sheet's table and the rates of its forced runs.
LABELLED_TOLERANCE = 1e-9


def check_labelled(s: Any) -> dict[str, Any]:
    """A labelled sheet's fields, normalised and checked against each other.

    The labels are K distinct strings; the costs ``C[c, s]`` a finite (K, K) matrix; the table
    ``T[c, j, s]`` has a distribution per row; the forced runs ``F[j, c, s]`` count the same
    instances in every run and give the table; the kinds (response vectors) imply the forced
    runs; and the assumption ``"monotone"`` holds on the sheet's own evidence: no instance of
    the kinds costs more with the slot forced to its true class than forced to another label,
    and a stored check says monotone (for these costs). Returns the normalised fields (the
    sheet stores them); raises :class:`~causalcost.errors.ValidationError` or
    :class:`~causalcost.errors.MonotonicityError` naming what disagrees.
    """
    from causalcost.errors import MonotonicityError
    from causalcost.pricing.inputs import as_table_array, check_costs, check_counts, check_labels
    from causalcost.pricing.responses import read_kinds

    labels = check_labels(s.labels, len(s.labels))
    k = len(labels)
    costs = check_costs(s.costs, k)
    table = as_table_array(s.table)
    if table.shape[0] != k:
        raise ValidationError(f"the table has {table.shape[0]} labels, labels {k}")
    if s.assumption not in ASSUMPTIONS:
        raise ValidationError(f"assumption ({s.assumption!r}) must be 'none' or 'monotone'")
    forced = None
    if s.forced is not None:
        f = check_counts("forced_runs", s.forced, 3, k, integer=True)
        forced = np.asarray(f.tolist(), dtype=np.int64)
        sizes = forced.sum(axis=2)  # [j, c]
        if not (sizes == sizes[0]).all():
            raise ValidationError("every forced run must count the same instances: the "
                                  f"class sizes differ between runs ({sizes.tolist()})")
        rates = forced / np.where(sizes[:, :, None] > 0, sizes[:, :, None], 1)
        if not np.allclose(np.transpose(rates, (1, 0, 2)), table, atol=LABELLED_TOLERANCE):
            raise ValidationError("the table differs from the rates of the forced runs")
    kinds = None
    if s.kinds is not None:
        kinds = read_kinds(s.kinds, k, labels)
        if forced is None or not np.array_equal(
                np.asarray(kinds.forced().tolist(), dtype=np.int64), forced):
            raise ValidationError("the kinds must imply the sheet's forced runs (they are "
                                  "counted on the same instances)")
    m = s.monotonicity
    if m is not None:
        if not isinstance(m, Mapping) or not isinstance(m.get("is_monotone"), bool):
            raise SheetError("field 'monotonicity' must be a record with 'is_monotone' true or "
                             "false")
        if evidence_source(m) not in EVIDENCE_SOURCES:
            raise SheetError(f"field 'monotonicity.source' ({evidence_source(m)!r}) must be one "
                             f"of {', '.join(map(repr, EVIDENCE_SOURCES))}")
    if s.assumption == "monotone":
        if kinds is not None:
            for (c, r), n in kinds.counts.items():
                if any(costs[c, r[c]] > costs[c, out] for out in r):
                    raise MonotonicityError(
                        f"{n} instance(s) of class {labels[c]!r} have response vector "
                        f"{[labels[out] for out in r]}: forced to the right label the system "
                        "costs more than forced to another, so the monotone assumption "
                        "fails on the sheet's own data; use assumption='none'")
        if m is not None and m["is_monotone"] is False:
            raise MonotonicityError(
                "the monotone assumption is false for this system and these costs "
                f"({evidence_source(m)} check: {m.get('violation') or 'not monotone'}); "
                "use assumption='none'")
        if m is not None and m.get("costs") is not None and not np.array_equal(
                np.asarray(m["costs"], dtype=float), costs):
            raise MonotonicityError(
                "the monotonicity check was made for other costs than the sheet's (for K "
                "labels it depends on the costs): check the system again with these costs "
                "(derive the sheet from the system), or use assumption='none'")
    return {"labels": labels, "costs": costs, "table": table, "forced": forced,
            "kinds": kinds}
