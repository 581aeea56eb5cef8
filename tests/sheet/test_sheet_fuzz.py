"""Malformed sheets thrown at ``load_sheet``: a CausalCostError, or the original sheet.

Hypothesis mutates valid sheets (network, sampled, counted, signed-free): it deletes keys,
changes a value's type or number (``"NaN"`` strings, huge integers, negative counts, nested
lists), nests a value deep, or edits the JSON text itself. Loading must then raise a
:class:`~causalcost.errors.CausalCostError` (one line naming the file) or give back a sheet equal
to the original: never another exception, never a silently different number.

When the mutation also recomputes the digest (an editor who knows the rule), an edit can be
legitimate (a new system name); loading must still raise a CausalCostError or give a sheet that
is consistent: it survives its own round trip and evaluates a candidate to finite numbers.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_paths import parent, paths
from sheet_versions import as_version

import causalcost as cc
from causalcost.errors import CausalCostError
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import content_digest
from causalcost.sheet.loading import load_sheet

COSTS = cc.CostMatrix(fn=5, fp=1)
MAKERS = {
    "network": lambda: cc.sheet_from_network("thesis_and", COSTS),
    "sampled": lambda: cc.sheet_from_network("thesis_or", COSTS, method="sampling",
                                             samples=2000, seed=3),
    "counts": lambda: cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160),
                                                cc.Confusion(0, 100, 0, 200), COSTS, slot="m",
                                                description="thesis set"),
}
NAMES = sorted(MAKERS)


class _Sheets(dict):
    """The sheets under test, derived on first use (not at collection)."""

    def __missing__(self, name: str) -> CostSheet:
        self[name] = sheet = MAKERS[name]()
        return sheet


SHEETS = _Sheets()
CANDIDATE = cc.Confusion(tp=50, fn=50, fp=100, tn=100)

REPLACEMENTS = st.sampled_from([
    None, True, False, 0, -1, 1, 2, 0.5, 1.5, -0.0, 1e308, 2**53 + 1, 10**30, "", "x", "NaN",
    "Infinity", "-Infinity", "1e309", "sha256:00", [], {}, [1, 2], {"a": 1}, [[[[[]]]]],
    "P", "N", "monotone", "none", "declared", "exact", "sampling", "counted", "wilson",
])


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict, bool]:
    name = draw(st.sampled_from(NAMES))
    version = draw(st.sampled_from([4, 2]))  # the current format, and one still read
    d = copy.deepcopy(SHEETS[name].to_dict() if version == 4 else as_version(SHEETS[name], 2))
    for _ in range(draw(st.integers(1, 3))):
        everything = paths(d)
        if not everything:
            break
        path = draw(st.sampled_from(everything))
        holder, key = parent(d, path), path[-1]
        kind = draw(st.sampled_from(["delete", "replace", "wrap", "nest", "scale", "rename"]))
        if kind == "delete":
            del holder[key]
        elif kind == "replace":
            holder[key] = copy.deepcopy(draw(REPLACEMENTS))
        elif kind == "wrap":
            holder[key] = [holder[key]]
        elif kind == "nest":
            value: Any = holder[key]
            for _ in range(draw(st.integers(1, 400))):
                value = {"x": value}
            holder[key] = value
        elif kind == "scale":
            v = holder[key]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                holder[key] = v * draw(st.sampled_from([-1, 0, 2, 10, 1e300, 0.999999]))
        elif kind == "rename" and isinstance(holder, dict):
            holder[f"{key}_"] = holder.pop(key)
    return name, d, draw(st.booleans())


def _write(path: Path, d: dict) -> None:
    path.write_text(json.dumps(d), encoding="utf-8")


def _numbers(sheet: CostSheet) -> dict:
    d = sheet.to_dict()
    return {k: d[k] for k in ("labels", "costs", "derived", "class_counts", "prior", "table",
                              "forced_runs", "assumption", "monotonicity")}


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=mutated())
def test_a_mutated_sheet_is_refused_or_unchanged(case: tuple[str, dict, bool],
                                                 tmp_path: Path) -> None:
    name, d, recompute = case
    original = SHEETS[name]
    if recompute and isinstance(d, dict):
        try:
            d["digest"] = {"sha256": content_digest(d)}
        except CausalCostError:
            return  # the content cannot even be serialised: nothing an editor could write
    path = tmp_path / "fuzzed.json"
    _write(path, d)
    try:
        loaded = load_sheet(path)
    except CausalCostError as exc:
        assert str(exc).startswith("fuzzed.json: ") and "\n" not in str(exc)
        return
    if not recompute:
        assert loaded == original  # the digest admits no other sheet
        return
    # a deliberate, consistent edit: the sheet must be whole and give finite numbers, or
    # refuse the candidate in one line (a prior of 0 for a class the candidate has)
    assert CostSheet.from_dict(loaded.to_dict()) == loaded
    if _numbers(loaded) != _numbers(original):
        try:
            report = cc.evaluate(loaded, CANDIDATE.with_labels(loaded.labels))  # renamed too
        except CausalCostError as exc:
            assert "\n" not in str(exc) and "cannot occur" in str(exc), str(exc)
        else:
            assert all(math.isfinite(v) for v in report.to_series())
    json.dumps(loaded.to_dict(), allow_nan=False)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(NAMES), cut=st.integers(0, 10**6),
       junk=st.text(max_size=8))
def test_an_edited_json_text_is_refused_or_unchanged(name: str, cut: int, junk: str,
                                                     tmp_path: Path) -> None:
    text = SHEETS[name].to_json()
    at = cut % (len(text) + 1)
    span = cut % 7
    path = tmp_path / "edited.json"
    path.write_text(text[:at] + junk + text[at + span:], encoding="utf-8")
    try:
        loaded = load_sheet(path)
    except CausalCostError as exc:
        assert "\n" not in str(exc)
        return
    assert loaded == SHEETS[name]


@pytest.mark.parametrize("depth", [50, 5000, 200_000])
def test_deep_nesting_is_one_error(tmp_path: Path, depth: int) -> None:
    d = SHEETS["network"].to_dict()
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(d)[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}",
                    encoding="utf-8")
    with pytest.raises(CausalCostError, match="deep.json"):
        load_sheet(path)
