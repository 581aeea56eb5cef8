"""Tests of the cost sheet (sheet.costsheet) and the candidate report (evaluation.report).

Expected numbers come from the thesis (seeds/002_c815aea2daaf5faa.txt), §4 "FUNCIÓN DE COSTO
NUMERO 1/2": example 1 (AND fusioner, 80 %/80 % images model, 50 %/50 % candidate on 100
positives and 200 negatives: cost function 1 gives 320, cost function 2 gives 220) and example 2
(OR fusioner, 25 %/50 % images model, candidate tp=40 fn=60 fp=100 tn=100: 375 and 275), with
costs FN 5 and FP 1. Worst and best cases are worked by hand from the closed forms of
design/METHOD.md ("worst errors = min(fw, fc + nw)", "best errors = max(fc, fw - nc)").
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
from sheet_versions import as_version
from statsmodels.stats.proportion import proportion_confint

import causalcost as cc
from causalcost.errors import (
    CountError,
    InfeasibleInputError,
    MonotonicityError,
    SheetError,
    ValidationError,
)
from causalcost.evaluation.candidates import read_candidates_csv
from causalcost.evaluation.comparison import compare
from causalcost.evaluation.report import Report, evaluate
from causalcost.pricing.bounds import bound
from causalcost.sheet.costsheet import SHEET_FORMAT, SHEET_VERSION, CostSheet
from causalcost.sheet.derivation import (
    derive_sheet,
    network_provenance,
    sheet_from_forced_runs,
    sheet_from_network,
)
from causalcost.sheet.digest import content_digest
from causalcost.sheet.loading import load_sheet

REL = 1e-12
COSTS = cc.CostMatrix(fn=5, fp=1)  # thesis §4
# thesis §4, example 1: a 50 %/50 % candidate on 100 positives and 200 negatives
AND_CANDIDATE = cc.Confusion(tp=50, fn=50, fp=100, tn=100)
# thesis §4, example 2: 40 % on 100 positives, 50 % on 200 negatives
OR_CANDIDATE = cc.Confusion(tp=40, fn=60, fp=100, tn=100)
# thesis §4, example 1 as counts on 100 positives / 200 negatives: e_P(P) = 0.2, e_P(N) = 1,
# e_N(P) = 0.2, e_N(N) = 0 (AND fusioner with an 80 %/80 % images model)
AND_FORCED_P = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
AND_FORCED_N = cc.Confusion(tp=0, fn=100, fp=0, tn=200)
CONTRACT = {"eval1", "eval2", "perfect_slot_cost", "worst", "best", "assumption"}


def from_edited(d: dict) -> CostSheet:
    """Load a sheet edited by someone who also recomputed its digest: the consistency and
    field checks behind the digest must still refuse what does not add up."""
    return CostSheet.from_dict({**d, "digest": {"sha256": content_digest(d)}})


@pytest.fixture(scope="module")
def and_sheet() -> CostSheet:
    s = cc.load_network("thesis_and")
    t = cc.interventional_table(s)
    return derive_sheet(t, COSTS, system_name=s.name, prior=1 / 3,
                        monotonicity=cc.check_monotonicity(s),
                        provenance=network_provenance("thesis_and"))


@pytest.fixture(scope="module")
def or_sheet() -> CostSheet:
    s = cc.load_network("thesis_or")
    return derive_sheet(cc.interventional_table(s), COSTS, prior=1 / 3,
                        provenance=network_provenance("thesis_or"))


@pytest.fixture(scope="module")
def count_sheet() -> CostSheet:
    return sheet_from_forced_runs(AND_FORCED_P, AND_FORCED_N, COSTS, slot="clinical_history",
                                  description="thesis §4 example 1, 100 P / 200 N")


@pytest.fixture(scope="module")
def sampled_sheet() -> CostSheet:
    s = cc.load_network("thesis_and")
    t = cc.interventional_table(s, method="sampling", samples=5000, seed=1)
    return derive_sheet(t, COSTS, prior=1 / 3, provenance=network_provenance("thesis_and"))


def _drop(d: dict[str, Any], dotted: str) -> dict[str, Any]:
    out = copy.deepcopy(d)
    *parents, last = dotted.split(".")
    target = out
    for p in parents:
        target = target[p]
    del target[last]
    return out


# --------------------------------------------------------------------- thesis §4 numbers
def test_thesis_and_example_1_eval1_eval2_perfect(and_sheet: CostSheet) -> None:
    # thesis §4, example 1: Eval1 320, Eval2 220; perfect slot 0.2*100*5 + 0*200*1 = 100
    r = evaluate(and_sheet, AND_CANDIDATE)
    assert r.eval1 == pytest.approx(320.0, rel=REL)
    assert r.eval2 == pytest.approx(220.0, rel=REL)
    assert r.perfect_slot_cost == pytest.approx(100.0, rel=REL)
    assert r.expected_cost == pytest.approx(320.0, rel=REL)


def test_thesis_and_example_1_worst_and_best(and_sheet: CostSheet) -> None:
    # METHOD.md closed forms, probability form: positives fc = 0.2*100 = 20, fw = 100, nc = nw
    # = 50 -> worst FN = min(100, 20 + 50) = 70, best FN = max(20, 100 - 50) = 50; negatives
    # fc = 0, fw = 0.2*200 = 40, nc = tn = 100, nw = fp = 100 -> worst FP = 40, best FP = 0.
    r = evaluate(and_sheet, AND_CANDIDATE)
    assert r.worst.to_dict() == pytest.approx({"tp": 30, "fn": 70, "fp": 40, "tn": 160}, rel=REL)
    assert r.best.to_dict() == pytest.approx({"tp": 50, "fn": 50, "fp": 0, "tn": 200}, abs=1e-9)
    assert r.worst_cost == pytest.approx(70 * 5 + 40, rel=REL)
    assert r.best_cost == pytest.approx(50 * 5, rel=REL)
    assert r.assumption == "monotone" and r.form == "probability"


def test_thesis_or_example_2(or_sheet: CostSheet) -> None:
    # thesis §4, example 2: Eval1 375, Eval2 275; perfect slot = 0*100*5 + 0.5*200*1 = 100.
    # Worst/best by METHOD.md: positives fc = 0, fw = 75, nc = 40, nw = 60 -> 60 / 35;
    # negatives fc = 100, fw = 200, nc = 100, nw = 100 -> 200 / 100.
    r = evaluate(or_sheet, OR_CANDIDATE)
    assert r.eval1 == pytest.approx(375.0, rel=REL)
    assert r.eval2 == pytest.approx(275.0, rel=REL)
    assert r.perfect_slot_cost == pytest.approx(100.0, rel=REL)
    assert r.worst_cost == pytest.approx(60 * 5 + 200, rel=REL)
    assert r.best_cost == pytest.approx(35 * 5 + 100, rel=REL)


def test_sheet_holds_thesis_cost_matrices(and_sheet: CostSheet) -> None:
    # thesis §4, cost function 1 example 1: TP 1, FN 5, FP 0.2, TN 0; cost function 2: FN 4,
    # FP 0.2 (= (1 - 0.2) * 5 and (0.2 - 0) * 1)
    assert and_sheet.expected_cost_matrix.to_dict() == pytest.approx(
        {"tp": 1.0, "fn": 5.0, "fp": 0.2, "tn": 0.0}, rel=REL, abs=1e-12)
    assert and_sheet.error_transition_matrix.to_dict() == pytest.approx(
        {"tp": 0.0, "fn": 4.0, "fp": 0.2, "tn": 0.0}, rel=REL, abs=1e-12)


def test_count_form_matches_thesis_and_bound(count_sheet: CostSheet) -> None:
    # the same example as counts; the count-form bound of bounds.bound on the same matrices
    r = evaluate(count_sheet, AND_CANDIDATE, same_instances=True)  # declared: the sheet's rows
    assert (r.eval1, r.eval2, r.perfect_slot_cost) == pytest.approx((320.0, 220.0, 100.0),
                                                                     rel=REL)
    direct = bound(AND_FORCED_P, AND_FORCED_N, AND_CANDIDATE, COSTS)
    assert r.form == "counts"
    assert (r.worst, r.best) == (direct.worst, direct.best)
    assert (r.worst_cost, r.best_cost) == pytest.approx((390.0, 250.0), rel=REL)  # as above


@pytest.mark.parametrize("network", cc.list_networks("votes"))
def test_report_invariants_on_shipped_networks(network: str) -> None:
    # METHOD.md: "Eval2 = Eval1 - (cost of the system with a perfect model in the slot)" and
    # "Cost function 1's estimate always lies between the two" (best and worst)
    sheet = sheet_from_network(network, cc.CostMatrix(tp=0.5, fn=7, fp=2, tn=0.25))
    for m in (AND_CANDIDATE, OR_CANDIDATE, cc.Confusion(100, 0, 0, 200),
              cc.Confusion(0, 100, 200, 0), cc.Confusion(3, 1, 4, 1)):
        r = evaluate(sheet, m)
        assert r.eval1 == pytest.approx(r.eval2 + r.perfect_slot_cost, rel=1e-9)
        assert r.best_cost - 1e-9 <= r.eval1 <= r.worst_cost + 1e-9


# ------------------------------------------------------------------------ report contract
def test_report_to_dict_contract(and_sheet: CostSheet) -> None:
    d = evaluate(and_sheet, AND_CANDIDATE).to_dict()
    assert CONTRACT <= set(d)
    for case in ("worst", "best"):
        assert set(d[case]) == {"tp", "fn", "fp", "tn", "cost"}
    assert d["assumption"] == "monotone"
    json.dumps(d, allow_nan=False)  # JSON-ready


def test_report_frame_text_and_html(and_sheet: CostSheet) -> None:
    r = evaluate(and_sheet, AND_CANDIDATE)
    frame = r.to_frame()
    assert frame.index.tolist() == ["worst", "expected", "best"]
    assert frame.columns.tolist() == ["tp", "fn", "fp", "tn", "cost"]
    assert frame.loc["worst", "cost"] == pytest.approx(390.0, rel=REL)
    assert frame.attrs["eval1"] == pytest.approx(320.0, rel=REL)
    text = str(r)
    for needle in ("'clinical_history'", "Eval1", "320", "Eval2", "220", "worst case 390",
                   "monotone"):
        assert needle in text
    assert "Report(" in repr(r) and "<table" in r._repr_html_()


# ------------------------------------------------------------------------------ round trip
def test_save_load_round_trip(and_sheet: CostSheet, tmp_path: Path) -> None:
    path = and_sheet.save(tmp_path / "sheet.json")
    again = load_sheet(path)
    assert again.to_dict() == and_sheet.to_dict()
    assert again == and_sheet
    assert evaluate(again, AND_CANDIDATE).to_dict() == evaluate(and_sheet, AND_CANDIDATE).to_dict()
    assert evaluate(again, AND_CANDIDATE) == evaluate(and_sheet, AND_CANDIDATE)


def test_count_sheet_round_trip(count_sheet: CostSheet, tmp_path: Path) -> None:
    again = load_sheet(count_sheet.save(tmp_path / "counts.json"))
    assert again == count_sheet
    assert again.form == "counts" and again.forced_p == AND_FORCED_P
    assert evaluate(again, AND_CANDIDATE) == evaluate(count_sheet, AND_CANDIDATE)


def test_sampled_table_keeps_intervals_and_sizes(sampled_sheet: CostSheet, tmp_path: Path) -> None:
    again = load_sheet(sampled_sheet.save(tmp_path / "sampled.json"))
    a, b = sampled_sheet.table, again.table
    assert a is not None and b is not None and b.has_intervals
    for name in ("probabilities", "counts", "lower", "upper"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (b.confidence, b.interval_method, b.seed, b.method) == (0.95, "wilson", 1, "sampling")
    # sizes: every simulated instance is counted once per forced value, 5000 in all
    assert b.counts[0, 0, 0] + b.counts[1, 0, 0] == 5000
    pd.testing.assert_frame_equal(again.to_frame(), sampled_sheet.to_frame())


def test_sheet_document_shape(and_sheet: CostSheet) -> None:
    d = json.loads(and_sheet.to_json())
    assert (d["format"], d["version"]) == (SHEET_FORMAT, SHEET_VERSION) == ("causalcost-sheet", 4)
    assert d["labels"] == ["P", "N"] and d["costs"] == [[0.0, 5.0], [1.0, 0.0]]
    assert d["digest"]["sha256"] == and_sheet.digest and and_sheet.digest.startswith("sha256:")
    assert d["provenance"]["sha256"].startswith("sha256:")
    assert d["provenance"]["file"] == "thesis_and.toml"
    assert d["monotonicity"]["is_monotone"] is True
    assert d["causalcost_version"] == cc.__version__
    assert set(d["derived"]) == {"expected_cost_matrix", "error_transition_matrix"}
    m1 = and_sheet.expected_cost_matrix.to_array().tolist()
    assert d["derived"]["expected_cost_matrix"] == m1


# --------------------------------------------------------------------------- bad documents
@pytest.mark.parametrize("version", [5, 0, 2.0, 1.0, True, "2", None])
def test_other_version_is_refused(and_sheet: CostSheet, version: object) -> None:
    d = as_version(and_sheet, 2)
    d["version"] = version
    with pytest.raises(SheetError, match=r"version .* is not supported.*versions 1, 2, 3, 4"):
        from_edited(d)


def test_other_format_is_refused(and_sheet: CostSheet) -> None:
    d = as_version(and_sheet, 2)
    d["format"] = "causalcost-network"
    with pytest.raises(SheetError, match="not a causalcost cost sheet"):
        from_edited(d)


REQUIRED = ["format", "version", "created", "causalcost_version", "slot", "system_name",
            "provenance", "assumption", "costs", "rates", "derived", "costs.fn", "costs.tp",
            "rates.P", "rates.N.P", "derived.expected_cost_matrix",
            "derived.error_transition_matrix.fp", "table.table", "table.slot",
            "class_counts.negatives", "forced_runs.forced_n", "forced_runs.forced_p.tn",
            "provenance.source"]


@pytest.mark.parametrize("field", REQUIRED)
def test_missing_field_is_named(count_sheet: CostSheet, field: str) -> None:
    with pytest.raises(SheetError, match=repr(field).replace(".", r"\.")):
        from_edited(_drop(as_version(count_sheet, 2), field))


def test_unknown_field_is_refused(and_sheet: CostSheet) -> None:
    d = as_version(and_sheet, 2)
    d["costz"] = {}
    with pytest.raises(SheetError, match="costz"):
        from_edited(d)


@pytest.mark.parametrize(("path", "value", "match"), [
    (("rates", "P", "N"), 1.5, r"rates\.P\.N.*\[0, 1\]"),
    (("rates", "N", "P"), "0.2", r"rates\.N\.P.*number"),
    (("costs", "tp"), 9.0, r"'costs'.*tp=9 exceeds"),
    (("prior",), 2.0, "prior"),
    (("assumption",), "maybe", "assumption"),
    (("created",), "yesterday", "created"),
    (("slot",), 3, "slot"),
    (("derived",), [], "derived"),
])
def test_bad_values_are_named(and_sheet: CostSheet, path: tuple[str, ...], value: Any,
                              match: str) -> None:
    d = as_version(and_sheet, 2)
    target = d
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    with pytest.raises(SheetError, match=match):
        from_edited(d)


@pytest.mark.parametrize("cell", ["tp", "fn", "fp", "tn"])
@pytest.mark.parametrize("matrix", ["expected_cost_matrix", "error_transition_matrix"])
def test_tampered_derived_matrix_is_refused(and_sheet: CostSheet, matrix: str,
                                            cell: str) -> None:
    d = as_version(and_sheet, 2)
    d["derived"][matrix][cell] += 0.5
    with pytest.raises(SheetError, match="tampered or inconsistent"):
        from_edited(d)


def test_tampered_rates_are_refused(and_sheet: CostSheet, count_sheet: CostSheet) -> None:
    # rates and derived matrices edited together still disagree with the table
    d = as_version(and_sheet, 2)
    d["rates"]["P"]["P"] = 0.1
    sheet = derive_sheet(cc.ErrorRates(0.1, 1.0, 0.2, 0.0), COSTS, slot="clinical_history",
                         monotonicity="declared", prior=1 / 3, provenance={"source": "edit"})
    d["derived"] = as_version(sheet, 2)["derived"]
    with pytest.raises(SheetError, match="tampered or inconsistent.*table"):
        from_edited(d)
    # and with the forced runs
    d = as_version(count_sheet, 2)
    d["forced_runs"]["forced_p"].update(fn=30, tp=70)
    with pytest.raises(SheetError, match="tampered or inconsistent"):
        from_edited(d)


def test_class_counts_and_prior_must_agree(count_sheet: CostSheet) -> None:
    d = as_version(count_sheet, 2)
    d["prior"] = 0.5  # counts say 100 / 300
    with pytest.raises(SheetError, match="prior"):
        from_edited(d)


def test_load_sheet_errors_name_the_file(and_sheet: CostSheet, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(SheetError, match="bad.json: not valid JSON"):
        load_sheet(bad)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**as_version(and_sheet, 2), "version": 3}), encoding="utf-8")
    with pytest.raises(SheetError, match="old.json: sheet version 3"):
        load_sheet(old)
    with pytest.raises(SheetError, match="cannot read sheet"):
        load_sheet(tmp_path / "missing.json")


# -------------------------------------------------------------------------- derivation rules
def test_count_form_rejects_fractional_candidate(count_sheet: CostSheet) -> None:
    # declared on the sheet's own instances (100 P / 200 N) the count form needs integer counts
    with pytest.raises(CountError, match="integer"):
        evaluate(count_sheet, cc.Confusion(tp=50.5, fn=49.5, fp=100, tn=100),
                 same_instances=True)


def test_prior_only_sheet_uses_candidate_sizes(and_sheet: CostSheet) -> None:
    # the probability form scales with the candidate's class sizes: a tenth of the candidate
    # (5/5/10/10) costs a tenth (thesis §4 example 1: 320 -> 32)
    small = evaluate(and_sheet, cc.Confusion(tp=5, fn=5, fp=10, tn=10))
    assert small.eval1 == pytest.approx(32.0, rel=REL)
    assert small.worst_cost == pytest.approx(39.0, rel=REL) and not small.warnings


def test_far_class_fraction_warns(and_sheet: CostSheet) -> None:
    # 100 of 120 positive against a prior of 1/3: z = (5/6 - 1/3) / sqrt(2/9 / 120) = 11.6
    r = evaluate(and_sheet, cc.Confusion(tp=40, fn=60, fp=10, tn=10))
    assert len(r.warnings) == 1 and "prior" in r.warnings[0]
    assert r.to_dict()["warnings"] == list(r.warnings)


def test_network_check_refuses_monotone_assumption() -> None:
    # intervene.check_monotonicity's example: an XOR fusioner is not monotone in the slot
    xor = (cc.SystemBuilder(class_prior=0.5)
           .add_model("a", sensitivity=0.9, specificity=0.9)
           .add_model("b", sensitivity=0.9, specificity=0.9)
           .set_fusioner("function", function=lambda a, b: a != b).build(slot="b"))
    check = cc.check_monotonicity(xor)
    table = cc.interventional_table(xor)
    with pytest.raises(MonotonicityError, match="assumption='none'"):
        derive_sheet(table, COSTS, monotonicity=check)
    with pytest.raises(MonotonicityError):
        sheet_from_network(xor, COSTS)
    sheet = derive_sheet(table, COSTS, monotonicity=check, assumption="none", prior=0.5,
                         provenance={"source": "network", "network": "xor"})
    r = evaluate(sheet, AND_CANDIDATE)
    assert r.assumption == "none" and r.best_cost <= r.eval1 <= r.worst_cost
    # a stored non-monotone check with assumption "monotone" is an inconsistent sheet
    d = sheet.to_dict()
    d["assumption"] = "monotone"
    with pytest.raises(SheetError, match="not monotone"):
        from_edited(d)


def test_non_monotone_rates_refuse_monotone_assumption() -> None:
    # e_P(P) = 0.9 > e_P(N) = 0.1 violates the specification (METHOD.md, "Feasibility")
    rates = cc.ErrorRates(0.9, 0.1, 0.5, 0.5)
    with pytest.raises(InfeasibleInputError, match=r"e_P\(P\)=0.9 > e_P\(N\)=0.1"):
        derive_sheet(rates, COSTS, slot="m", monotonicity="declared")
    free = derive_sheet(rates, COSTS, slot="m", assumption="none", prior=0.5,
                        provenance={"source": "test"})
    assert free.assumption == "none"


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"slot": None}, ValidationError, "slot is required"),
    ({"assumption": "sure"}, ValidationError, "assumption"),
    ({"prior": 0.5, "class_counts": (100, 200)}, ValidationError, "contradicts"),
    ({"class_counts": (100, -1)}, ValidationError, "class_counts"),
    ({"forced_p": AND_FORCED_P}, ValidationError, "both"),
    ({"forced_p": AND_FORCED_P, "forced_n": cc.Confusion(0, 100, 0, 100)},
     InfeasibleInputError, "same instances"),
    ({"forced_p": cc.Confusion(90, 10, 40, 160), "forced_n": AND_FORCED_N}, ValidationError,
     "forced runs give"),
])
def test_derive_sheet_argument_errors(kwargs: dict[str, Any], error: type[Exception],
                                      match: str) -> None:
    args = {"slot": "clinical_history", "monotonicity": "declared", **kwargs}
    with pytest.raises(error, match=match):
        derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), COSTS, **args)


def test_forced_runs_sheet_intervals_come_from_statsmodels(count_sheet: CostSheet) -> None:
    # e_P(P) = 20/100 with a 95 % Wilson interval, as statsmodels computes it
    frame = count_sheet.to_frame()
    lo, hi = proportion_confint(20, 100, alpha=0.05, method="wilson")
    assert frame.loc[("P", "P"), "ci_low"] == pytest.approx(lo, rel=REL)
    assert frame.loc[("P", "P"), "ci_high"] == pytest.approx(hi, rel=REL)
    assert frame.loc[("N", "P"), "n"] == 200
    assert count_sheet.class_counts == (100, 200) and count_sheet.prior == pytest.approx(1 / 3)
    assert count_sheet.provenance == {"source": "data",
                                      "description": "thesis §4 example 1, 100 P / 200 N"}


def test_sheet_from_network_prior_and_provenance() -> None:
    # thesis_and.toml declares prior 1/3; the file hash is that of the shipped file
    sheet = sheet_from_network("thesis_and", COSTS)
    assert sheet.prior == pytest.approx(1 / 3, rel=REL)
    assert sheet.system_name == "thesis_and"
    from causalcost.network.netfile import file_digest, network_path

    assert sheet.provenance["sha256"] == file_digest(network_path("thesis_and"))


def test_sheet_display(sampled_sheet: CostSheet) -> None:
    frame = sampled_sheet.to_frame()
    assert frame.columns.tolist() == ["symbol", "rate", "ci_low", "ci_high", "n"]
    assert (frame["ci_low"] <= frame["rate"]).all() and (frame["rate"] <= frame["ci_high"]).all()
    assert "CostSheet(slot='clinical_history'" in repr(sampled_sheet)
    assert "e_P(P)" in str(sampled_sheet) and "<table" in sampled_sheet._repr_html_()
    assert hash(sampled_sheet) == hash(CostSheet.from_dict(sampled_sheet.to_dict()))


# ---------------------------------------------------------------------------------- compare
def test_compare_ranks_by_eval1_then_worst(and_sheet: CostSheet) -> None:
    # Eval1 with the thesis §4 example 1 matrix (TP 1, FN 5, FP 0.2, TN 0):
    # perfect 100 (the perfect-slot cost), good 90 + 10*5 + 20*0.2 = 144, coin 320 (thesis);
    # twin has coin's matrix, so the same Eval1 and worst cost (390): it shares coin's rank
    cands = {
        "coin": AND_CANDIDATE,
        "good": cc.Confusion(90, 10, 20, 180),
        "perfect": cc.Confusion(100, 0, 0, 200),
        "twin": cc.Confusion(50, 50, 100, 100),
    }
    table = compare(and_sheet, cands)
    assert list(table.columns) == ["eval1", "eval2", "perfect_slot_cost", "expected_cost",
                                   "worst_cost", "best_cost", "rank", "accuracy", "precision",
                                   "recall", "f1"]
    assert table.loc["good", "accuracy"] == pytest.approx(270 / 300)  # (90 + 180) / 300
    assert table.loc["good", "recall"] == pytest.approx(0.9)
    assert table.index.tolist() == ["perfect", "good", "coin", "twin"]
    assert table["rank"].tolist() == [1, 2, 3, 3]
    assert table.loc["perfect", "eval1"] == pytest.approx(100.0, rel=REL)
    assert table.loc["good", "eval1"] == pytest.approx(144.0, rel=REL)


def test_compare_breaks_ties_by_worst_cost() -> None:
    # rates e_P(P) = 0.5, e_P(N) = 1 of thesis §3.3 (AND fusioner, model 1 right on half the
    # positives), errors counted (FN cost 1), no assumption; two candidates on positives only.
    rates = cc.ErrorRates(0.5, 1.0, 0.0, 0.0)
    with pytest.warns(cc.CausalCostWarning, match="no prior or class_counts"):
        sheet = derive_sheet(rates, cc.CostMatrix(fn=1, fp=1), slot="m", assumption="none",
                             provenance={"source": "thesis §3.3"})
    # Eval1 (C1: TP 0.5, FN 1): A = 0.5*50 + 50 = 75; B = 0.5*100 + 25 = 75.
    # worst without assumption: min(fc, nc) + min(fw, nw): A (n=100): 50 + 50 = 100;
    # B (n=125): fc = 62.5, fw = 125 -> min(62.5, 100) + min(125, 25) = 87.5
    table = compare(sheet, {"A": cc.Confusion(50, 50, 0, 0), "B": cc.Confusion(100, 25, 0, 0)})
    assert table.index.tolist() == ["B", "A"]
    assert table["eval1"].tolist() == pytest.approx([75.0, 75.0], rel=REL)
    assert table["worst_cost"].tolist() == pytest.approx([87.5, 100.0], rel=REL)
    assert table["rank"].tolist() == [1, 2]


def test_compare_names_the_bad_candidate(count_sheet: CostSheet) -> None:
    with pytest.raises(CountError, match="candidate 'half'"):
        compare(count_sheet, {"ok": AND_CANDIDATE, "half": cc.Confusion(50.5, 49.5, 100, 100)},
                same_instances=True)


def test_count_form_on_other_instances_uses_the_probability_form(count_sheet: CostSheet) -> None:
    """The two-split route: the forced runs counted on one split, the candidate on another."""
    other = cc.Confusion(40, 50, 100, 110)
    report = evaluate(count_sheet, other)
    assert report.form == "probability"
    assert report.worst_cost == pytest.approx(
        cc.bound_from_rates(count_sheet.rates, other, COSTS).worst_cost, rel=REL)
    assert any("counted on other instances" in w for w in report.warnings)
    same = evaluate(count_sheet, AND_CANDIDATE, same_instances=True)
    assert same.form == "counts" and not any("other instances" in w for w in same.warnings)
    table = compare(count_sheet, {"ok": AND_CANDIDATE, "small": cc.Confusion(1, 1, 1, 1)})
    assert set(table.index) == {"ok", "small"}
    with pytest.raises(ValidationError, match="no candidates"):
        compare(count_sheet, {})


# ------------------------------------------------------------------------------------ CSV
def _csv(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "candidates.csv"
    p.write_text(text, encoding="utf-8")
    return p


def test_read_candidates_csv(tmp_path: Path, and_sheet: CostSheet) -> None:
    p = _csv(tmp_path, "tn, fp ,fn,tp,name\n100,100,50,50,coin\n\n180,20,10,90,good\n")
    cands = read_candidates_csv(p)
    assert cands == {"coin": AND_CANDIDATE, "good": cc.Confusion(90, 10, 20, 180)}
    assert compare(and_sheet, cands).index.tolist() == ["good", "coin"]


@pytest.mark.parametrize(("text", "match"), [
    ("", "empty file"),
    ("name,tp,fn,fp,tn,auc\ncoin,50,50,100,100,0.5\n", r"unknown column\(s\) \['auc'\]"),
    ("name,tp,fn,fp\ncoin,50,50,100\n", r"missing column\(s\) \['tn'\]"),
    ("name,tp,fn,fp,tn,tp\ncoin,50,50,100,100,1\n", r"repeated column\(s\) \['tp'\]"),
    ("name,tp,fn,fp,tn\ncoin,50,50,100,100\nbad,5,x,1,1\n",
     r"line 3 \(candidate 'bad'\): fn='x' is not a number"),
    ("name,tp,fn,fp,tn\ncoin,50,50,100,-1\n", r"line 2 \(candidate 'coin'\).*tn must be >= 0"),
    ("name,tp,fn,fp,tn\ncoin,50,50,100,100\ncoin,1,1,1,1\n", r"line 3.*used twice"),
    ("name,tp,fn,fp,tn\n,50,50,100,100\n", "line 2: empty candidate name"),
    ("name,tp,fn,fp,tn\ncoin,50,50,100\n", "line 2: expected 5 fields"),
    ("name,tp,fn,fp,tn\n", "no candidates"),
    ("name,tp,fn,fp,tn\ncoin,50,50,100,nan\n", r"tn must be finite"),
])
def test_read_candidates_csv_errors(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        read_candidates_csv(_csv(tmp_path, text))


def test_read_candidates_csv_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="cannot read candidates file"):
        read_candidates_csv(tmp_path / "nope.csv")


def test_report_is_a_frozen_value(and_sheet: CostSheet) -> None:
    r = evaluate(and_sheet, AND_CANDIDATE)
    assert isinstance(r, Report)
    with pytest.raises(AttributeError):
        r.eval1 = 0.0  # type: ignore[misc]
    assert math.isclose(r.to_series()["worst_cost"], r.worst_cost)
