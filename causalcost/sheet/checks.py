"""The field checks a cost sheet shares with its derivation and its readers.

The timestamp, the provenance and the monotonicity evidence (a network check, data counts or
the owner's declaration) are checked here for every K; :func:`_check_binary` holds what a sheet
of two labels also satisfies (the rates' monotone order, a counted table's intervals, data
evidence counted per kind). :mod:`causalcost.sheet.validation` runs them on every sheet; the
number tests are shared with the derivation (:mod:`causalcost.sheet.derivation`) and the JSON
readers. Each failure raises :class:`~causalcost.errors.SheetError` naming the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.errors import SheetError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable

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
def _check_created(created: str) -> None:
    try:
        datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        raise SheetError(f"field 'created' must be an ISO 8601 timestamp, got {created!r}") \
            from None


#: Where a sheet's monotonicity evidence comes from.
EVIDENCE_SOURCES = ("network", "data", "declared")


def evidence_source(m: Mapping[str, Any]) -> str:
    """``"network"``, ``"data"`` or ``"declared"`` (a network check written before sources
    were recorded has none: it is the network's)."""
    return str(m.get("source", "network"))


def _check_evidence(m: Mapping[str, Any], binary: bool = True) -> None:
    """The monotonicity evidence: a network check, data counts, or an owner's declaration
    (data counts of two labels may carry the four kinds per class, ``binary``)."""
    if not isinstance(m, Mapping):
        raise SheetError("field 'monotonicity' must be a record with 'is_monotone' true or false")
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
    if source == "data" and "right_only" in m:
        right_only = m.get("right_only")
        if isinstance(right_only, bool) or not isinstance(right_only, int) or right_only < 0:
            raise SheetError("field 'monotonicity.right_only' must be the count of instances "
                             "that fail only when the slot is right (an integer >= 0)")
        if m["is_monotone"] != (right_only == 0):
            raise SheetError("field 'monotonicity.is_monotone' must say whether the data have "
                             "no right_only instance")
        if "kinds" in m and binary:
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


# ---------------------------------------------------------------------- two labels
def _check_binary(s: Any, bad: str) -> None:
    """What a sheet of two labels also satisfies: under the monotone assumption the rates are
    ordered (``e_P(P) <= e_P(N)``, ``e_N(N) <= e_N(P)``); a counted table is the one counted
    from its counts (intervals recomputed); counted kinds of data evidence give the forced runs,
    the class counts and the rates."""
    _check_table_counted(s, bad)
    _check_kinds_agree(s, bad)
    if s.assumption != "monotone" or s.monotonicity is None \
            or s.monotonicity["is_monotone"] is False:
        return
    r, c = s.rates, s.costs.to_numpy()
    # per class whose mistake costs more than its hit (a free mistake constrains nothing)
    ordered = ((c[0, 0] >= c[0, 1] or r.fn_forced_p <= r.fn_forced_n)
               and (c[1, 1] >= c[1, 0] or r.fp_forced_n <= r.fp_forced_p))
    if not ordered:
        raise SheetError(f"{bad}'assumption' is 'monotone' but the 'rates' {s.rates!r} violate "
                         "e_P(P) <= e_P(N) or e_N(N) <= e_N(P)")


def _check_table_counted(s: Any, bad: str) -> None:
    """A table with counts is the one counted from them: its outcome counts are whole numbers
    (the forced runs' cells when the sheet holds them) and its intervals are recomputed."""
    t = s.table
    if t is None or t.counts is None or not t.is_binary:
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
    # T[c, j, s] and its interval ends (the cells a table of two labels holds), and the counts
    for name, stored, counted in (("probabilities", t.to_numpy(), fresh.to_numpy()),
                                  ("counts", t.counts, fresh.counts),
                                  ("lower", t.low, fresh.low), ("upper", t.high, fresh.high)):
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


def _check_kinds_agree(s: Any, bad: str) -> None:
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
