"""Re-pricing a sheet without re-deriving it (issue 17): ``CostSheet.with_costs`` and
``causalcost derive SHEET.json --costs ...``.

The reference for every number is a fresh derivation with the new costs (the network, the
forced runs or the data again): the re-priced sheet must agree with it on every field but
the provenance, the time stamp and the digest, and every report computed on it must agree
with the report on the fresh sheet, at rel 1e-12.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.cli.app import main
from causalcost.errors import CausalCostError, CausalCostWarning, InputTypeError, SheetError
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.loading import load_sheet

OLD = cc.CostMatrix(fn=5, fp=1)
NEW = cc.CostMatrix(tp=0.5, fn=12, fp=3, tn=0.25)
FORCED_P = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
FORCED_N = cc.Confusion(tp=30, fn=70, fp=10, tn=190)

# Ten instances of an OR of a and b, slot a: every kind occurs, truth 1 = positive.
DATA = pd.DataFrame({"y": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
                     "a": [1, 0, 1, 0, 1, 0, 1, 0, 0, 1],
                     "b": [0, 0, 1, 1, 0, 0, 0, 1, 0, 0]})

UNPRICED = {"created", "provenance", "digest", "causalcost_version", "signature"}


def close(a: Any, b: Any, where: str = "") -> None:
    """Every number in two JSON-like trees equal at rel 1e-12, everything else equal."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for key in a:
            close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, f"{where}[{i}]")
    elif isinstance(a, (int, float)) and not isinstance(a, bool):
        assert isinstance(b, (int, float)) and not isinstance(b, bool), where
        if math.isnan(a):
            assert math.isnan(b), where
        else:
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (where, a, b)
    else:
        assert a == b, (where, a, b)


def derivations(costs: cc.CostMatrix) -> dict[str, CostSheet]:
    """The same slot derived afresh with ``costs`` by each route."""
    return {
        "network": cc.sheet_from_network("thesis_and", costs),
        "network_none": cc.sheet_from_network("thesis_or", costs, assumption="none"),
        "forced_runs": cc.sheet_from_forced_runs(FORCED_P, FORCED_N, costs, slot="s",
                                                 description="counted elsewhere"),
        "data": cc.sheet_from_data(DATA, costs, truth="y", models=["a", "b"], slot="a",
                                   fusioner="or", description="ten instances"),
    }


PARENTS = derivations(OLD)
FRESH = derivations(NEW)


def candidate(sheet: CostSheet) -> cc.Confusion:
    """A candidate on the sheet's class sizes (the counts form requires them)."""
    pos, neg = sheet.class_counts or (100, 200)
    return cc.Confusion(tp=pos - pos // 3, fn=pos // 3, fp=neg // 4, tn=neg - neg // 4)


@pytest.mark.parametrize("route", sorted(PARENTS))
def test_repriced_sheet_equals_a_fresh_derivation(route: str) -> None:
    parent, fresh = PARENTS[route], FRESH[route]
    repriced = parent.with_costs(NEW)
    assert repriced.rates == parent.rates  # the rates are kept, not recomputed
    assert repriced.table == parent.table
    assert (repriced.forced_p, repriced.forced_n) == (parent.forced_p, parent.forced_n)
    assert repriced.costs == NEW
    got = {k: v for k, v in repriced.to_dict().items() if k not in UNPRICED}
    want = {k: v for k, v in fresh.to_dict().items() if k not in UNPRICED}
    close(got, want)
    assert got["derived"] != {k: v for k, v in parent.to_dict().items()}["derived"]


@pytest.mark.parametrize("route", sorted(PARENTS))
@pytest.mark.parametrize("confidence", [None, 0.9])
def test_every_report_number_equals_the_fresh_one(route: str, confidence: float | None) -> None:
    repriced, fresh = PARENTS[route].with_costs(NEW), FRESH[route]
    model = candidate(fresh)
    got = cc.evaluate(repriced, model, confidence=confidence).to_dict()
    want = cc.evaluate(fresh, model, confidence=confidence).to_dict()
    assert got.pop("sheet_sha256") == repriced.digest
    assert want.pop("sheet_sha256") == fresh.digest
    close(got, want)


def test_provenance_names_the_parent_and_the_digest_is_new() -> None:
    parent = PARENTS["network"]
    repriced = parent.with_costs(NEW)
    assert repriced.provenance["repriced_from"] == parent.digest
    assert repriced.digest not in (parent.digest, FRESH["network"].digest)
    for key, value in parent.provenance.items():
        assert repriced.provenance[key] == value
    again = repriced.with_costs(OLD)  # a chain names its own parent
    assert again.provenance["repriced_from"] == repriced.digest
    close(again.expected_cost_matrix.to_dict(), parent.expected_cost_matrix.to_dict())


def test_repriced_sheet_saves_loads_and_passes_the_checks(tmp_path: Path) -> None:
    for route, parent in PARENTS.items():
        repriced = parent.with_costs(NEW)
        path = repriced.save(tmp_path / f"{route}.json")
        loaded = load_sheet(path)  # the digest and every consistency check run here
        assert loaded == repriced and loaded.digest == repriced.digest
        # an edited price is caught like in any sheet
        data = json.loads(path.read_text())
        data["costs"][0][1] = 99.0
        path.write_text(json.dumps(data))
        with pytest.raises(SheetError):
            load_sheet(path)


def test_a_signed_parent_gives_an_unsigned_child(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    private, _ = cc.generate_signing_key(tmp_path / "k.pem", tmp_path / "k.pub.pem")
    signed = load_sheet(cc.sign_sheet(PARENTS["network"].save(tmp_path / "s.json"), private))
    assert signed.signature is not None
    with pytest.warns(CausalCostWarning, match="unsigned"):
        child = signed.with_costs(NEW)
    assert child.signature is None and not child.signature_checked
    assert child.provenance["repriced_from"] == signed.digest


def test_not_a_cost_matrix_is_refused() -> None:
    with pytest.raises(InputTypeError, match="costs must be a CostMatrix"):
        PARENTS["network"].with_costs({"fn": 5, "fp": 1})  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(fn=st.floats(0.5, 1e6), fp=st.floats(0.5, 1e6), tp=st.floats(0, 0.4),
       tn=st.floats(0, 0.4))
def test_any_costs_reprice_like_a_fresh_derivation(fn: float, fp: float, tp: float,
                                                   tn: float) -> None:
    costs = cc.CostMatrix(tp=tp, fn=fn, fp=fp, tn=tn)
    fresh = cc.sheet_from_forced_runs(FORCED_P, FORCED_N, costs, slot="s",
                                      description="counted elsewhere")
    repriced = PARENTS["forced_runs"].with_costs(costs)
    close(repriced.to_dict()["derived"], fresh.to_dict()["derived"])
    model = candidate(fresh)
    close({k: v for k, v in cc.evaluate(repriced, model).to_dict().items()
           if k != "sheet_sha256"},
          {k: v for k, v in cc.evaluate(fresh, model).to_dict().items() if k != "sheet_sha256"})


# -- the command line --------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_derive_reprices_a_saved_sheet(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # short paths: the lines are measured
    parent = PARENTS["forced_runs"].save("parent.json")
    out_path = tmp_path / "child.json"
    code, out, err = run(capsys, "derive", str(parent), "--costs", "tp=0.5,fn=12,fp=3,tn=0.25",
                         "-o", "child.json")
    assert code == 0, err
    child = load_sheet(out_path)
    assert child.provenance["repriced_from"] == PARENTS["forced_runs"].digest
    assert child.digest in out and PARENTS["forced_runs"].digest in out
    close({k: v for k, v in child.to_dict().items() if k not in UNPRICED},
          {k: v for k, v in FRESH["forced_runs"].to_dict().items() if k not in UNPRICED})
    assert all(len(line) < 100 for line in out.splitlines())


def test_cli_says_a_signed_parent_gives_an_unsigned_sheet(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    private, _ = cc.generate_signing_key(tmp_path / "k.pem", tmp_path / "k.pub.pem")
    parent = cc.sign_sheet(PARENTS["network"].save(tmp_path / "s.json"), private)
    code, out, err = run(capsys, "derive", str(parent), "--costs", "fn=9,fp=1",
                         "-o", str(tmp_path / "c.json"))
    assert code == 0 and err == "", err
    assert "unsigned" in out and "causalcost sign" in out
    assert load_sheet(tmp_path / "c.json").signature is None


@pytest.mark.parametrize("extra, flag", [
    (["--slot", "x"], "--slot"), (["--method", "sampling"], "--method"),
    (["--assumption", "none"], "--assumption"), (["--forced-p", "tp=1,fn=0,fp=0,tn=1"],
                                                 "--forced-p"),
    (["--truth", "y"], "--truth"), (["--seed", "3"], "--seed"),
])
def test_cli_reprice_refuses_derivation_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              extra: list[str], flag: str) -> None:
    parent = PARENTS["network"].save(tmp_path / "p.json")
    code, out, err = run(capsys, "derive", str(parent), "--costs", "fn=9,fp=1", *extra,
                         "-o", str(tmp_path / "c.json"))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and flag in err and "re-prices" in err
    assert not (tmp_path / "c.json").exists()


def test_cli_reprice_of_a_broken_sheet_is_one_line(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, _, err = run(capsys, "derive", str(bad), "--costs", "fn=9,fp=1", "-o",
                       str(tmp_path / "c.json"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "c.json").exists()
    with pytest.raises(CausalCostError):
        load_sheet(bad)


def _derive_options() -> list[tuple[str, str]]:
    """Every option of ``derive`` but --costs and -o, with a value that is not its default."""
    import argparse

    from causalcost.cli.app import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    values = {"--method": "sampling", "--interval": "clopper-pearson", "--engine": "duckdb",
              "--assumption": "none", "--fusioner": "or", "--tie": "positive",
              "--samples": "5000", "--confidence": "0.9", "--k": "1", "--weights": "1,1",
              "--threshold": "1", "--seed": "3"}
    options = []
    for action in sub.choices["derive"]._actions:
        flag = max(action.option_strings, key=len) if action.option_strings else None
        if flag in (None, "--help", "--costs", "--output"):
            continue
        options.append((flag, "" if action.nargs == 0 else values.get(flag, "x")))
    return options


@pytest.mark.parametrize("flag, value", _derive_options())
def test_cli_reprice_refuses_every_derivation_option(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path, flag: str,
                                                     value: str) -> None:
    parent = PARENTS["network"].save(tmp_path / "p.json")
    given = [flag, value] if value else [flag]  # a switch (--scores) takes no value
    code, out, err = run(capsys, "derive", str(parent), "--costs", "fn=9,fp=1", *given,
                         "-o", str(tmp_path / "c.json"))
    assert code == 2 and flag in err, (flag, err)
    assert not (tmp_path / "c.json").exists()
