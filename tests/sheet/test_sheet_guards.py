"""No wrong number under bad input, at derivation and on load (issue 7).

The case from the issue on an XOR fusioner (the network is not monotone in the slot, and its
rates show it too); silent defaults at derivation; seeds that cannot be written; sheets whose
content is consistent but not in the form this causalcost writes; reports that would hold an
infinite number.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from sheet_versions import as_version

import causalcost as cc
from causalcost.errors import CausalCostWarning, SheetError, ValidationError
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import content_digest
from causalcost.sheet.loading import load_sheet

COSTS = cc.CostMatrix(fn=5, fp=1)
CANDIDATE = cc.Confusion(tp=60, fn=40, fp=10, tn=90)


def xor_system() -> cc.System:
    return (cc.SystemBuilder(class_prior=0.5)
            .add_model("a", sensitivity=0.9, specificity=0.9)
            .add_model("b", sensitivity=0.9, specificity=0.9)
            .set_fusioner("function", function=lambda a, b: a != b).build(slot="b"))


def write(tmp_path: Path, d: dict, name: str = "sheet.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


# --------------------------------------------------------------------- the case
def test_an_xor_sheet_edited_to_claim_monotone_is_refused(tmp_path: Path) -> None:
    sheet = cc.sheet_from_network(xor_system(), COSTS, assumption="none")
    assert sheet.monotonicity is not None and sheet.monotonicity["is_monotone"] is False
    honest = cc.evaluate(sheet, CANDIDATE)
    d = sheet.to_dict()
    d.update(assumption="monotone", monotonicity=None)
    with pytest.raises(SheetError, match="does not match its digest"):
        load_sheet(write(tmp_path, d))
    d["digest"] = {"sha256": content_digest(d)}  # an editor who recomputes the digest
    with pytest.raises(SheetError, match="needs evidence in 'monotonicity': the network's "
                                         "exact check, data with no right_only instance, or "
                                         "the system owner's declaration"):
        load_sheet(write(tmp_path, d))
    d = {**as_version(sheet, 1), "assumption": "monotone", "monotonicity": None}
    with pytest.raises(SheetError, match="needs evidence"):
        load_sheet(write(tmp_path, d))
    # the check it carried is refused too: it says the system is not monotone
    d = {**sheet.to_dict(), "assumption": "monotone"}
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="not monotone"):
        load_sheet(write(tmp_path, d))
    assert honest.assumption == "none"


def test_data_evidence_must_count_no_right_only_instance(tmp_path: Path) -> None:
    rates = cc.ErrorRates(0.2, 1.0, 0.2, 0.0)
    kw = {"slot": "m", "prior": 0.5, "provenance": {"source": "data", "description": "x"}}
    evidence = {"source": "data", "is_monotone": True, "right_only": 0, "wrong_only": 30}
    sheet = cc.derive_sheet(rates, COSTS, monotonicity=evidence, **kw)
    assert load_sheet(sheet.save(tmp_path / "s.json")).monotonicity == evidence
    assert not cc.evaluate(sheet, CANDIDATE).warnings  # checked on data: nothing to say
    with pytest.raises(cc.MonotonicityError):
        cc.derive_sheet(rates, COSTS, monotonicity={**evidence, "is_monotone": False,
                                                    "right_only": 3}, **kw)
    d = sheet.to_dict()
    d["monotonicity"] = {**evidence, "right_only": 2}  # claims monotone with right_only > 0
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="right_only"):
        CostSheet.from_dict(d)


def test_a_declaration_loads_and_every_report_says_so(tmp_path: Path) -> None:
    sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
                                      COSTS, slot="clinical_history", description="thesis set")
    again = load_sheet(sheet.save(tmp_path / "s.json"))
    report = cc.evaluate(again, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    for text in (str(report), json.dumps(report.to_dict()),
                 json.dumps(cc.compare(again, {"a": report.model}).attrs["warnings"])):
        assert "declared by the system owner, not checked" in text
    d = again.to_dict()
    d["monotonicity"] = {"source": "declared", "is_monotone": True}  # by whom?
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="monotonicity.by"):
        CostSheet.from_dict(d)


def test_sheet_from_network_without_the_check_records_a_declaration() -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS, check=False)
    assert sheet.monotonicity is not None
    assert sheet.monotonicity["source"] in ("network", "declared")
    if sheet.monotonicity["source"] == "declared":
        assert any("declared" in w for w in cc.evaluate(sheet, CANDIDATE).warnings)


# ----------------------------------------------------------------- no silent defaults
def test_derive_sheet_warns_about_what_it_records_as_unknown() -> None:
    rates = cc.ErrorRates(0.2, 1.0, 0.2, 0.0)
    with pytest.warns(CausalCostWarning) as caught:
        sheet = cc.derive_sheet(rates, COSTS, slot="m", monotonicity="declared")
    messages = [str(w.message) for w in caught]
    assert any("{'source': 'unspecified'}" in m for m in messages)
    assert any("no prior or class_counts" in m for m in messages)
    assert sheet.provenance == {"source": "unspecified"} and sheet.prior is None
    assert issubclass(CausalCostWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cc.derive_sheet(rates, COSTS, slot="m", monotonicity="declared", prior=0.5,
                        provenance={"source": "data", "description": "split 1"})
        cc.sheet_from_network("thesis_and", COSTS)
        cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
                                  COSTS, slot="m", description="split 1")


# ---------------------------------------------------------------------------- seeds
@pytest.mark.parametrize("seed", [[1, 2], -1, 1.5, True, "7"])
def test_a_seed_the_sheet_cannot_record_is_refused_at_derivation(seed: object) -> None:
    with pytest.raises(ValidationError, match="seed"):
        cc.sheet_from_network("thesis_and", COSTS, method="sampling", samples=500, seed=seed)


def test_a_numpy_seed_is_written_as_a_number(tmp_path: Path) -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS, method="sampling", samples=500,
                                  seed=np.int64(3))
    again = load_sheet(sheet.save(tmp_path / "s.json"))
    assert again == sheet and json.loads((tmp_path / "s.json").read_text())["table"]["seed"] == 3


# ------------------------------------------------------------------- canonical content
def test_consistent_content_in_another_form_is_refused(tmp_path: Path) -> None:
    sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
                                      COSTS, slot="m", description="split 1")
    d = sheet.to_dict()
    d["class_counts"] = [100.0, 200.0]  # the same counts as floats
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="not in the form this causalcost writes"):
        load_sheet(write(tmp_path, d))
    d = as_version(sheet, 2)  # so in a version 2 file
    d["class_counts"] = {"positives": 100.0, "negatives": 200.0}
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="not in the form this causalcost writes"):
        load_sheet(write(tmp_path, d))
    # what causalcost writes loads with its digest intact
    assert load_sheet(sheet.save(tmp_path / "ok.json")).digest == sheet.digest


def test_load_errors_name_the_file_and_keep_their_kind(tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(SheetError, match="^odd.json: .*not UTF-8 text") as info:
        load_sheet(path)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------------- reports
def test_a_report_never_holds_an_infinite_number() -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    report = cc.evaluate(sheet, CANDIDATE)
    json.dumps(report.to_dict(), allow_nan=False)
    broken = dataclasses.replace(report, worst_cost=math.inf)
    with pytest.raises(cc.OverflowInputError, match="'worst.cost' is inf"):
        broken.to_dict()
    with pytest.raises(cc.OverflowInputError, match="'eval2' is nan"):
        dataclasses.replace(report, eval2=math.nan).to_dict()


def test_costs_that_overflow_are_refused_before_the_report() -> None:
    sheet = cc.derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=1e300, fp=1),
                            slot="m", prior=0.5, monotonicity="declared",
                            provenance={"source": "test"})
    with pytest.raises(cc.OverflowInputError):
        cc.evaluate(sheet, cc.Confusion(1e10, 1e10, 1e10, 1e10))


def test_reports_and_compare_echo_the_issued_digest(tmp_path: Path) -> None:
    sheet = cc.sheet_from_network("thesis_or", COSTS)
    path = sheet.save(tmp_path / "s.json")
    issued = json.loads(path.read_text())["digest"]["sha256"]
    again = load_sheet(path)
    report = cc.evaluate(again, CANDIDATE)
    assert f"sheet:           {issued}" in str(report)
    assert report.to_dict()["sheet_sha256"] == issued
    assert cc.compare(again, cc.candidates_frame({"a": CANDIDATE})).attrs["sheet_sha256"] == issued


def test_counted_kinds_are_data_evidence(tmp_path: Path) -> None:
    # per-instance results of the thesis §4 example 1 set: no instance fails only when the
    # slot is right, so the counted runs prove the system monotone on these instances
    kinds = cc.kinds_frame({"never": 0, "wrong_only": 80, "always": 20},
                           {"never": 160, "wrong_only": 40, "always": 0})
    forced_p, forced_n = cc.forced_from_kinds(kinds)
    sheet = cc.sheet_from_forced_runs(forced_p, forced_n, COSTS, slot="m",
                                      description="split 1", monotonicity=kinds)
    m = sheet.monotonicity
    assert m is not None and (m["source"], m["is_monotone"], m["right_only"]) == ("data", True, 0)
    assert m["kinds"]["P"] == {"never": 0, "wrong_only": 80, "always": 20, "right_only": 0}
    again = load_sheet(sheet.save(tmp_path / "s.json"))
    assert again == sheet
    assert not cc.evaluate(again, cc.Confusion(tp=50, fn=50, fp=100, tn=100),
                           same_instances=True).warnings
    d = again.to_dict()
    d["monotonicity"]["kinds"]["N"]["right_only"] = 3  # counts that contradict right_only = 0
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="monotonicity"):
        CostSheet.from_dict(d)
    bad = cc.kinds_frame({"wrong_only": 80, "always": 10, "right_only": 10},
                         {"never": 160, "wrong_only": 40})
    with pytest.raises(cc.MonotonicityError):
        cc.sheet_from_forced_runs(*cc.forced_from_kinds(bad), COSTS, slot="m",
                                  description="split 1", monotonicity=bad)
