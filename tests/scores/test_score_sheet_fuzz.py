"""Malformed score sheets thrown at ``load_sheet``: a CausalCostError in the user's words, or
the original sheet.

The approach of ``tests/sheet/test_sheet_fuzz.py`` (cost sheets), on score sheets: hypothesis
takes a real score sheet (exact, on breakpoints, with ``always`` / ``never`` counts and a row
fingerprint) and tampers with it: a value set to null, a wrong type, a negative count, a
``"NaN"`` string, a huge number, nested garbage; a list reversed or shuffled (unsorted
breakpoints), a key dropped, renamed or added. Loading must raise a
:class:`~causalcost.errors.CausalCostError` whose one-line message names the file and holds no
Python internals, or give back a sheet equal to the original: the digest admits no other.

When the mutation also recomputes the digest (an editor who knows the rule), a consistent
edit may load; the sheet must then survive its own round trip, print, and price a candidate to
finite numbers.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_paths import parent, paths

import causalcost as cc
from causalcost.errors import CausalCostError
from causalcost.sheet.digest import content_digest
from causalcost.sheet.loading import load_sheet
from causalcost.sheet.score_sheet import ScoreSheet

COSTS = cc.CostMatrix(fn=5, fp=1)
#: Words of Python's own errors that must never reach a user.
PYTHON_WORDS = ("NoneType", "object is not", "unhashable", "has no attribute", "list indices",
                "Traceback", "not subscriptable", "not iterable", "takes", "positional",
                "keyword argument", "invalid literal", "could not convert", "object of type",
                "can't multiply", "unsupported operand", "'<' not supported", "bool_",
                "numpy", "ndarray", "dtype", "int64")


def _log(seed: int, n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return pd.DataFrame({"y": y, "a": np.round(rng.random(n), 2), "b": np.round(rng.random(n), 2),
                         "c": np.round(rng.random(n), 2)})


def _make(kind: str) -> ScoreSheet:
    log = _log({"exact": 0, "breakpoints": 1, "max": 2, "margins": 3}[kind])
    rule = {"fusioner": "max", "threshold": 0.7} if kind == "max" else \
        {"fusioner": "mean", "weights": [1, 2, 1]}
    if kind == "margins":  # scores that are not probabilities: the sheet records their range
        log = log.assign(**{m: 10 * log[m] - 5 for m in "abc"})
        rule = {"fusioner": "logistic", "weights": [0.5, 1.5, -0.5], "bias": 0.2,
                "score_range": (-5, 5)}
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", **rule)
    return cc.sheet_from_data(runs, COSTS, breakpoints=8 if kind == "breakpoints" else None,
                              row_ids=log.index, description=f"a {kind} sheet")


NAMES = ("exact", "breakpoints", "max", "margins")  # max: critical scores -inf / +inf;
# margins: a declared score range (the optional key score_range)


class _Sheets(dict):
    """The sheets under test, made on first use (not at collection)."""

    def __missing__(self, name: str) -> ScoreSheet:
        self[name] = sheet = _make(name)
        return sheet


SHEETS = _Sheets()

REPLACEMENTS = st.sampled_from([
    None, True, False, 0, -1, 1, 2, 0.5, -0.0, 1e308, -1e308, 2**53 + 1, 10**30, -(10**30),
    "", "x", "NaN", "Infinity", "-Infinity", "1e309", "sha256:00", "P", "N", "mean", [], {},
    [1, 2], [None], [[1]], {"a": 1}, {"P": None, "N": None}, [[[[[]]]]], ["P", "N"],
    ["N", "P"], ["P"], ["P", "N", "X"], {"sha256": None}, {"fn": 5, "fp": 1},
])


KINDS = ["delete", "replace", "replace", "wrap", "nest", "scale", "rename", "reverse",
         "shuffle", "extend", "add", "negate"]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict, bool]:
    name = draw(st.sampled_from(NAMES))
    d = copy.deepcopy(SHEETS[name].to_dict())
    for _ in range(draw(st.integers(1, 3))):
        everything = paths(d, depth=12)
        if not everything:
            break
        path = draw(st.sampled_from(everything))
        holder, key = parent(d, path), path[-1]
        kind = draw(st.sampled_from(KINDS))
        value = holder[key]
        if kind == "delete":
            del holder[key]
        elif kind == "replace":
            holder[key] = copy.deepcopy(draw(REPLACEMENTS))
        elif kind == "wrap":
            holder[key] = [value]
        elif kind == "nest":
            for _ in range(draw(st.integers(1, 300))):
                value = {"x": value}
            holder[key] = value
        elif kind == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
            holder[key] = value * draw(st.sampled_from([-1, 0, 2, 10, 1e300, 0.999999, 0.5]))
        elif kind == "negate" and isinstance(value, (int, float)) and not isinstance(value, bool):
            holder[key] = -value - draw(st.sampled_from([0, 1]))
        elif kind == "rename" and isinstance(holder, dict):
            holder[f"{key}_"] = holder.pop(key)
        elif kind == "reverse" and isinstance(value, list):
            holder[key] = value[::-1]
        elif kind == "shuffle" and isinstance(value, list) and len(value) > 1:
            holder[key] = draw(st.permutations(value))
        elif kind == "extend" and isinstance(value, list):
            holder[key] = [*value, copy.deepcopy(draw(REPLACEMENTS))]
        elif kind == "add" and isinstance(value, dict):
            value[draw(st.sampled_from(["x", "extra", "P", "N", "sha256", "at"]))] = \
                copy.deepcopy(draw(REPLACEMENTS))
    return name, d, draw(st.booleans())


def _check_message(exc: CausalCostError, file: str) -> None:
    text = str(exc)
    assert text.startswith(f"{file}: ") and "\n" not in text, text
    assert not any(w in text for w in PYTHON_WORDS), text
    assert len(text) < 2000, text


def _candidate(sheet: ScoreSheet) -> dict[str, np.ndarray]:
    p, n = sheet.class_sizes
    rng = np.random.default_rng(0)
    low, high = (max(v, -9.0) if v < 0 else min(v, 9.0) for v in sheet.score_range)
    return {"P": rng.uniform(low, high, p), "N": rng.uniform(low, high, n)}


def _usable(loaded: ScoreSheet) -> None:
    """A sheet an editor made consistent: whole, printable, priced to finite numbers."""
    assert ScoreSheet.from_dict(loaded.to_dict()) == loaded
    assert str(loaded) and repr(loaded) and loaded._repr_html_()
    json.dumps(loaded.to_dict(), allow_nan=False)
    for same in (True, False):
        bound = loaded.price(_candidate(loaded), same_instances=same,
                             confidence=None if same else 0.9)
        assert all(math.isfinite(v) for v in (bound.eval1, bound.worst_cost, bound.best_cost))
        assert bound.best_cost <= bound.eval1 + 1e-9 <= bound.worst_cost + 2e-9


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=mutated())
def test_a_tampered_score_sheet_is_refused_or_unchanged(case: tuple[str, dict, bool],
                                                        tmp_path: Path) -> None:
    name, d, recompute = case
    original = SHEETS[name]
    if recompute and isinstance(d, dict):
        body = {k: v for k, v in d.items() if k not in ("digest", "signature")}
        try:
            d["digest"] = {"sha256": content_digest(body)}
        except CausalCostError:
            return  # the content cannot even be serialised: nothing an editor could write
    path = tmp_path / "fuzzed.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    try:
        loaded = load_sheet(path)
    except CausalCostError as exc:
        _check_message(exc, "fuzzed.json")
        return
    assert isinstance(loaded, ScoreSheet)
    if not recompute:
        assert loaded == original and loaded.digest == original.digest
        return
    _usable(loaded)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(NAMES), cut=st.integers(0, 10**6), junk=st.text(max_size=8))
def test_an_edited_score_sheet_text_is_refused_or_unchanged(name: str, cut: int, junk: str,
                                                            tmp_path: Path) -> None:
    text = SHEETS[name].to_json()
    at = cut % (len(text) + 1)
    path = tmp_path / "edited.json"
    path.write_text(text[:at] + junk + text[at + cut % 7:], encoding="utf-8")
    try:
        loaded = load_sheet(path)
    except CausalCostError as exc:
        _check_message(exc, "edited.json")
        return
    assert loaded == SHEETS[name]


FIELD_CASES = {  # field -> a value of the wrong type or shape; the message names the field
    "labels": None, "slot": None, "system_name": 3, "rule": ["mean"], "models": "a,b,c",
    "costs": None, "critical": [], "provenance": None, "created": None,
    "causalcost_version": 1.0, "digest": None, "version": None, "format": None,
    "signature": "yes",
}


@pytest.mark.parametrize("field", sorted(FIELD_CASES))
@pytest.mark.parametrize("recompute", [False, True])
def test_each_field_of_the_wrong_type_is_named(field: str, recompute: bool,
                                               tmp_path: Path) -> None:
    d = SHEETS["exact"].to_dict()
    d[field] = FIELD_CASES[field]
    if recompute and field not in ("digest", "signature"):
        body = {k: v for k, v in d.items() if k not in ("digest", "signature")}
        d["digest"] = {"sha256": content_digest(body)}
    path = tmp_path / "typed.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(CausalCostError) as info:
        load_sheet(path)
    _check_message(info.value, "typed.json")
    assert field in str(info.value)


@pytest.mark.parametrize(("where", "value", "words"), [
    (("critical", "P", "at"), None, "critical.P.at"),
    (("critical", "P", "breakpoints"), "0.1", "critical.P.breakpoints"),
    (("critical", "N", "between"), [[1]], "critical.N.between"),
    (("critical", "N", "always"), -1, "critical.N.always"),
    (("critical", "P", "never"), 2.5, "critical.P.never"),
    (("critical", "P", "never"), None, "critical.P.never"),
    (("critical", "P", "always"), "1", "critical.P.always"),
    (("critical", "P"), None, "critical.P"),
    (("costs", "fn"), None, "costs"),
    (("provenance", "rows"), {"x": [None]}, None),
])
def test_nested_fields_are_named(where: tuple, value: Any, words: str | None,
                                 tmp_path: Path) -> None:
    d = SHEETS["breakpoints"].to_dict()
    parent(d, where)[where[-1]] = value
    body = {k: v for k, v in d.items() if k not in ("digest", "signature")}
    d["digest"] = {"sha256": content_digest(body)}
    path = tmp_path / "nested.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    try:
        loaded = load_sheet(path)
    except CausalCostError as exc:
        _check_message(exc, "nested.json")
        assert words is None or words in str(exc), str(exc)
        return
    assert words is None, f"{where} = {value!r} loaded"
    _usable(loaded)


@pytest.mark.parametrize("command", [["show", "{sheet}"], ["show", "{sheet}", "--json"],
                                     ["evaluate", "{sheet}", "--scores", "{scores}", "--truth",
                                      "y", "--score-column", "p"],
                                     ["derive", "{sheet}", "--costs", "fn=9,fp=1", "-o",
                                      "{out}"]])
@pytest.mark.parametrize("field", ["labels", "models", "critical", "provenance"])
def test_the_cli_reads_a_tampered_score_sheet_in_one_line(capsys, tmp_path: Path,
                                                          command: list[str],
                                                          field: str) -> None:
    from causalcost.cli import main

    d = SHEETS["exact"].to_dict()
    d[field] = None
    sheet = tmp_path / "tampered.json"
    sheet.write_text(json.dumps(d), encoding="utf-8")
    scores = tmp_path / "new.csv"
    pd.DataFrame({"y": [1, 0], "p": [0.9, 0.2]}).to_csv(scores, index=False)
    argv = [a.format(sheet=sheet, scores=scores, out=tmp_path / "o.json") for a in command]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "tampered.json" in lines[0] and field in lines[0], err
    assert not any(w in lines[0] for w in PYTHON_WORDS), lines[0]
