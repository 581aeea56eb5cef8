"""A sheet cannot be quietly altered, and never yields a wrong bound (issue: reliability).

The case from the issue: a non-monotone network's sheet is derived with ``assumption="none"``
and edited to claim ``"monotone"`` with no evidence; evaluating it used to print the monotone
worst case (too low). Each layer refuses it: the digest (any edit), and behind it the
evidence rule (an editor who recomputes the digest), and for version 1 files (no digest) the
evidence rule alone.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import causalcost as cc
from causalcost.errors import CausalCostError, SheetError
from causalcost.sheet.costsheet import CostSheet, load_sheet
from causalcost.sheet.digest import content_digest

COSTS = cc.CostMatrix(fn=5, fp=1)
CANDIDATE = cc.Confusion(tp=60, fn=40, fp=10, tn=90)


def hidden_reversal_system() -> cc.System:
    """Majority of three, except that the slot's vote is reversed when only ``a`` says P:
    the aggregate rates look monotone, the network is not."""

    def rule(a: bool, b: bool, c: bool) -> bool:
        if a and not c:
            return not b
        return (a and b) or (a and c) or (b and c)

    builder = cc.SystemBuilder(class_prior=0.5)
    for name in ("a", "b", "c"):
        builder.add_model(name, sensitivity=0.95, specificity=0.95)
    return builder.set_fusioner("function", function=rule).build(slot="b")


@pytest.fixture(scope="module")
def free_sheet() -> CostSheet:
    return cc.sheet_from_network(hidden_reversal_system(), COSTS, assumption="none")


def claim_monotone(d: dict) -> dict:
    return {**d, "assumption": "monotone", "monotonicity": None}


def write(tmp_path: Path, d: dict, name: str = "sheet.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def test_the_untampered_sheet_gives_the_assumption_free_worst_case(free_sheet: CostSheet) -> None:
    honest = cc.evaluate(free_sheet, CANDIDATE)
    monotone = cc.bound_from_rates(free_sheet.rates, CANDIDATE, COSTS)  # what tampering sought
    assert honest.assumption == "none" and honest.worst_cost > monotone.worst_cost


def test_dropping_the_evidence_is_refused_by_the_digest(free_sheet: CostSheet,
                                                        tmp_path: Path) -> None:
    path = write(tmp_path, claim_monotone(free_sheet.to_dict()))
    with pytest.raises(SheetError, match="does not match its digest: it was changed"):
        load_sheet(path)


def test_dropping_the_evidence_is_refused_behind_a_recomputed_digest(
        free_sheet: CostSheet, tmp_path: Path) -> None:
    d = claim_monotone(free_sheet.to_dict())
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="'monotone' needs evidence in 'monotonicity'"):
        load_sheet(write(tmp_path, d))


def test_dropping_the_evidence_is_refused_in_a_version_1_file(free_sheet: CostSheet,
                                                              tmp_path: Path) -> None:
    d = claim_monotone(free_sheet.to_dict())
    d["version"] = 1
    del d["digest"]
    with pytest.raises(SheetError, match="needs evidence"):
        load_sheet(write(tmp_path, d))


def test_a_consistent_edit_is_refused(tmp_path: Path) -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    edited = cc.derive_sheet(cc.interventional_table(cc.load_network("thesis_and")),
                             cc.CostMatrix(fn=50, fp=1), prior=sheet.prior,
                             provenance=sheet.provenance)
    d = sheet.to_dict()
    d["costs"] = edited.to_dict()["costs"]
    d["derived"] = edited.to_dict()["derived"]  # every number consistent with the new costs
    with pytest.raises(SheetError, match="changed after it was issued"):
        load_sheet(write(tmp_path, d))


def test_a_version_1_sheet_loads_and_every_report_says_it_is_unverified(tmp_path: Path) -> None:
    d = cc.sheet_from_network("thesis_and", COSTS).to_dict()
    d["version"] = 1
    del d["digest"]
    sheet = load_sheet(write(tmp_path, d))
    report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    assert report.eval1 == pytest.approx(320)  # thesis §4, example 1
    assert not sheet.verified and "cannot be verified" in report.to_dict()["warnings"][0]
    assert "cannot be verified" in str(report)


def test_reports_echo_the_digest_of_the_sheet_they_used(tmp_path: Path) -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    again = load_sheet(sheet.save(tmp_path / "s.json"))
    issued = json.loads((tmp_path / "s.json").read_text())["digest"]["sha256"]
    assert again.digest == sheet.digest == issued
    report = cc.evaluate(again, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    assert report.to_dict()["sheet_sha256"] == issued and issued in str(report)
    table = cc.compare(again, {"a": cc.Confusion(50, 50, 100, 100)})
    assert table.attrs["sheet_sha256"] == issued


def test_a_declared_assumption_is_said_in_every_report() -> None:
    sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
                                      COSTS, slot="clinical_history", description="thesis set")
    assert sheet.monotonicity == {"source": "declared", "by": "system owner", "is_monotone": True}
    report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    assert any("declared by the system owner, not checked" in w for w in report.warnings)
    with pytest.raises(cc.MonotonicityError, match="needs evidence"):
        cc.derive_sheet(cc.ErrorRates(0.2, 1, 0.2, 0), COSTS, slot="m")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["table"]["table"][0].update(ci_low=0.9, ci_high=0.1), "contain"),
        (lambda d: d["table"]["table"][0].update(ci_high=1.5), r"\[0, 1\]"),
        (lambda d: d["table"]["table"][0].update(n=-4), "non-negative integers"),
        (lambda d: d["table"]["table"][0].update(n=2.5), "non-negative integers"),
        (lambda d: d["table"]["table"][0].update(std_error=-1), "std_error"),
        (lambda d: d["table"].update(confidence=0), "confidence"),
        (lambda d: d["table"].update(seed=-3), "seed"),
        (lambda d: d["table"].update(seed=[1, 2]), "seed"),
        (lambda d: d["table"].update(method="guess"), "method"),
        (lambda d: d["table"].update(interval_method="wald"), "interval_method"),
        (lambda d: d.update(prior=1.5), "prior"),
        (lambda d: d["monotonicity"].update(source="rumour"), "monotonicity.source"),
    ],
)
def test_every_field_is_checked(edit, message: str) -> None:  # noqa: ANN001
    sheet = cc.sheet_from_network("thesis_and", COSTS, method="sampling", samples=4000, seed=1)
    d = sheet.to_dict()
    edit(d)
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match=message):
        CostSheet.from_dict(d)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "causalcost-sheet", "format": "x"}', "duplicate key 'format'"),
        ('{"prior": NaN}', "NaN"),
        ('{"prior": Infinity}', "Infinity"),
        ('{"prior": 1e309}', "overflows"),
        ('{"n": ' + "9" * 400 + "}", "beyond 2\\*\\*53"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply|not valid JSON"),
        ("{not json", "not valid JSON"),
    ],
)
def test_malformed_json_is_refused_with_one_error(tmp_path: Path, text: str,
                                                  message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SheetError, match=message):
        load_sheet(path)


def test_binary_and_non_utf8_files_are_refused(tmp_path: Path) -> None:
    for name, data in (("bin.json", bytes(range(256))), ("latin.json", "{\"é\": 1}".encode(
            "latin-1"))):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(SheetError, match="not UTF-8 text"):
            load_sheet(path)


def test_saving_is_atomic_on_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    path = sheet.save(tmp_path / "sheet.json")
    before = path.read_bytes()

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(CausalCostError, match="No space left.*previous file.*unchanged"):
        cc.sheet_from_network("thesis_or", COSTS).save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.json"]  # no temp file left


def test_reports_are_json_without_nan_or_infinity() -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    json.dumps(report.to_dict(), allow_nan=False)
    json.dumps(sheet.to_dict(), allow_nan=False)


def test_evidence_for_another_slot_is_refused() -> None:
    d = cc.sheet_from_network("thesis_and", COSTS).to_dict()
    d["monotonicity"]["slot"] = "images"
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="evidence is for slot 'images'"):
        CostSheet.from_dict(d)
