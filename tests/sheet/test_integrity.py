"""A sheet cannot be quietly altered, and never yields a wrong bound (issue: reliability).

The case from the issue: a non-monotone network's sheet is derived with ``assumption="none"``
and edited to claim ``"monotone"`` with no evidence; evaluating it used to print the monotone
worst case (too low). Each layer refuses it: the digest (any edit), and behind it the
evidence rule (an editor who recomputes the digest), and for version 1 files (no digest) the
evidence rule alone.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from sheet_versions import as_version

import causalcost as cc
from causalcost.errors import CausalCostError, SheetError
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import content_digest
from causalcost.sheet.loading import load_sheet

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
    path = write(tmp_path, claim_monotone(as_version(free_sheet, 2)))
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
    d = claim_monotone(as_version(free_sheet, 1))
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
    d = as_version(cc.sheet_from_network("thesis_and", COSTS), 1)
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
        (lambda d: d["table"]["ci_low"][0][0].__setitem__(0, 0.99), "table.ci_low"),
        (lambda d: d["table"]["ci_high"][0][0].__setitem__(0, 1.5), "table.ci_high"),
        (lambda d: d["table"]["n"][0].__setitem__(0, -4), "field .table."),
        (lambda d: d["table"]["n"][0].__setitem__(0, True), "table.n"),
        (lambda d: d["table"].update(confidence=0), "confidence"),
        (lambda d: d["table"].update(seed=-3), "seed"),
        (lambda d: d["table"].update(seed=[1, 2]), "seed"),
        (lambda d: d["table"].update(method="guess"), "method"),
        (lambda d: d["table"].update(interval_method="wald"), "interval_method"),
        (lambda d: d["table"].update(extra=1), "table.extra"),
        (lambda d: d["table"]["T"][0][0].__setitem__(0, 0.5), "table"),
        (lambda d: d.update(prior=[1.5, -0.5]), "prior"),
        (lambda d: d.update(prior=0.3), "prior"),
        (lambda d: d.update(labels=["P", "P"]), "labels"),
        (lambda d: d.update(labels="PN"), "labels"),
        (lambda d: d["costs"][0].__setitem__(0, 9.0), "costs"),
        (lambda d: d["derived"]["expected_cost_matrix"][0].__setitem__(0, 9.0),
         "derived.expected_cost_matrix"),
        (lambda d: d.update(kinds=3), "kinds"),
        (lambda d: d.update(forced_runs=[[[1, 2], [3, 4]]]), "forced_runs"),
        (lambda d: d["monotonicity"].update(source="rumour"), "monotonicity.source"),
    ],
)
def test_every_version_4_field_is_checked(edit, message: str) -> None:  # noqa: ANN001
    sheet = cc.sheet_from_network("thesis_and", COSTS, method="sampling", samples=4000, seed=1)
    d = sheet.to_dict()
    edit(d)
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match=message):
        CostSheet.from_dict(d)


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
    d = as_version(sheet, 2)  # the records of a version 2 table
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


# -- the fields agree with each other: a tamper test over every number --------------------------
# The case: kinds edited with their totals kept, the digest recomputed. The kinds
# determine the forced runs (per class, failures forced to the right class = always +
# right_only, to the wrong class = always + wrong_only), so an edit that keeps the forced runs
# must change the kinds' split, and the exact kinds bound would move with it.
KINDS_P = {"never": 40, "wrong_only": 30, "always": 20, "right_only": 10}
KINDS_N = {"never": 150, "wrong_only": 25, "always": 15, "right_only": 10}
ON_ITS_INSTANCES = cc.Confusion(tp=60, fn=40, fp=30, tn=170)  # 100 positives, 200 negatives
ELSEWHERE = cc.Confusion(tp=30, fn=20, fp=40, tn=110)


def kinds_sheet(kinds_p: dict, kinds_n: dict, assumption: str) -> CostSheet:
    kinds = cc.kinds_frame(kinds_p, kinds_n)
    forced_p, forced_n = cc.forced_from_kinds(kinds)
    table = cc.InterventionalTable.from_forced("m", forced_p, forced_n)
    return cc.derive_sheet(table, COSTS, forced_p=forced_p, forced_n=forced_n,
                           assumption=assumption, monotonicity=kinds,
                           provenance={"source": "data", "description": "kinds test"})


def numbers(sheet: CostSheet, own: bool = True) -> list[tuple[str, float]]:
    """Every number two evaluations give, on the sheet's instances (declared the same when
    ``own``) and on others."""
    out = []
    for name, model, same in (("own", ON_ITS_INSTANCES, own), ("other", ELSEWHERE, False)):
        d = cc.evaluate(sheet, model, same_instances=same).to_dict()
        out += [(f"{name}.{k}", d[k]) for k in ("eval1", "eval2", "perfect_slot_cost")]
        out += [(f"{name}.{part}.{cell}", d[part][cell]) for part in ("worst", "best",
                                                                       "expected")
                for cell in ("tp", "fn", "fp", "tn", "cost")]
        out.append((f"{name}.assumption", d["assumption"]))
    return out


def same_numbers(a: list[tuple[str, Any]], b: list[tuple[str, Any]]) -> bool:
    return [k for k, _ in a] == [k for k, _ in b] and all(
        x == y if isinstance(x, str) else math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)
        for (_, x), (_, y) in zip(a, b))


def test_the_kinds_bound_is_exact_and_its_kinds_are_the_sheets() -> None:
    sheet = kinds_sheet(KINDS_P, KINDS_N, "none")
    report = cc.evaluate(sheet, ON_ITS_INSTANCES, same_instances=True)  # declared, never guessed
    # independent: place the candidate's 60 hits on positives and 170 on negatives over every
    # kind split by brute force, system errors = always + wrong_only misses + right_only hits
    worst = best = 0
    for kinds, hits, price in ((KINDS_P, 60, 5), (KINDS_N, 170, 1)):
        a, b, d, e = (kinds[k] for k in ("never", "wrong_only", "always", "right_only"))
        errors = [d + (b - hb) + he for ha in range(a + 1) for hb in range(b + 1)
                  for hd in range(d + 1) for he in range(e + 1) if ha + hb + hd + he == hits]
        worst += price * max(errors)
        best += price * min(errors)
    assert report.worst_cost == pytest.approx(worst, rel=1e-12)
    assert report.best_cost == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("edit", [
    {"P": {"never": 41, "wrong_only": 29}},  # totals kept, the forced runs change
    {"P": {"wrong_only": 40, "right_only": 0}},  # right_only moved into wrong_only...
    {"P": {"always": 30, "right_only": 0}, "N": {"always": 25, "right_only": 0}},
])
def test_kinds_edited_behind_a_recomputed_digest_are_refused(edit: dict) -> None:
    d = kinds_sheet(KINDS_P, KINDS_N, "none").to_dict()
    for cls, change in edit.items():
        d["monotonicity"]["kinds"][cls].update(change)
    kinds = d["monotonicity"]["kinds"]
    right_only = kinds["P"]["right_only"] + kinds["N"]["right_only"]
    d["monotonicity"].update(right_only=right_only, is_monotone=right_only == 0)
    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match=r"'monotonicity\.kinds' (imply|count)"):
        CostSheet.from_dict(d)


def _leaves(tree: Any, here: tuple = ()) -> list[tuple[tuple, Any]]:
    if isinstance(tree, dict):
        return [leaf for k, v in tree.items() for leaf in _leaves(v, (*here, k))]
    if isinstance(tree, list):
        return [leaf for i, v in enumerate(tree) for leaf in _leaves(v, (*here, i))]
    return [(here, tree)]


def _set(tree: dict, path: tuple, value: Any) -> None:
    for step in path[:-1]:
        tree = tree[step]
    tree[path[-1]] = value


def _tampers(d: dict) -> list[tuple[str, tuple, dict]]:
    """Each numeric leaf nudged alone, each pair of numeric siblings moved one step from one to
    the other (totals kept), each boolean flipped; every one with its digest recomputed."""
    out = []
    leaves = [(p, v) for p, v in _leaves(d) if p[0] not in ("digest", "signature", "version")]
    numeric = [(p, v) for p, v in leaves if isinstance(v, int | float) and not isinstance(v, bool)]
    for path, value in leaves:
        if isinstance(value, bool):
            out.append((f"{path} flipped", path, {path: not value}))
    for path, value in numeric:
        step = 1 if isinstance(value, int) else (0.01 if value <= 0.5 else -0.01)
        out.append((f"{path} {value}+{step}", path, {path: value + step}))
        if isinstance(value, int) and value >= 1:
            out.append((f"{path} {value}-1", path, {path: value - 1}))
    for (a, x), (b, y) in itertools.permutations(numeric, 2):
        if a[:-1] != b[:-1] or (isinstance(x, int) and x < 1):
            continue
        step = 1 if isinstance(x, int) and isinstance(y, int) else min(0.01, x)
        if step > 0:
            out.append((f"{a} -> {b[-1]}", a, {a: x - step, b: y + step}))
    tampered = []
    for label, path, changes in out:
        copy_ = json.loads(json.dumps(d))
        for p, v in changes.items():
            _set(copy_, p, v)
        copy_["digest"] = {"sha256": content_digest(copy_)}
        tampered.append((label, path, copy_))
    return tampered


def _sheets() -> dict[str, CostSheet]:
    return {
        "kinds, not monotone": kinds_sheet(KINDS_P, KINDS_N, "none"),
        "kinds, monotone": kinds_sheet({**KINDS_P, "right_only": 0},
                                       {**KINDS_N, "right_only": 0}, "monotone"),
        "forced runs": cc.sheet_from_forced_runs(
            cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200), COSTS,
            slot="clinical_history", description="thesis set"),
        "network": cc.sheet_from_network("thesis_and", COSTS),
        "network, sampled": cc.sheet_from_network("thesis_or", COSTS, method="sampling",
                                                  samples=3000, seed=2, assumption="none"),
    }


@pytest.mark.parametrize("kind", list(_sheets()))
def test_every_tampered_number_is_refused_or_changes_nothing(kind: str) -> None:
    """Every field, and every pair of related fields (siblings moved with their total kept):
    a tampered sheet with a recomputed digest is refused naming the field, or evaluates to
    the untampered numbers."""
    sheet = _sheets()[kind]
    # the candidate is declared counted on the sheet's rows where it can have been
    own = sheet.forced_p is not None and (sheet.forced_p.positives,
                                          sheet.forced_p.negatives) == (100, 200)
    reference = numbers(sheet, own)
    refused = accepted = 0
    for label, path, d in _tampers(sheet.to_dict()):
        try:
            tampered = CostSheet.from_dict(d)
        except SheetError as exc:
            named = [str(p) for p in path[:2] if isinstance(p, str)]
            assert any(name in str(exc) for name in named), (label, str(exc))
            refused += 1
            continue
        try:
            got = numbers(tampered, own)
        except CausalCostError as exc:  # refused on use: only when it names the field
            named = [str(p) for p in path[:2] if isinstance(p, str)]
            assert any(name in str(exc) for name in named), (label, str(exc))
            refused += 1
            continue
        assert same_numbers(got, reference), (label, got, reference)
        accepted += 1
    assert refused > 0  # the test reached the checks
