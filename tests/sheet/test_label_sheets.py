"""One sheet type for any K (K = 2, 3, 4): sheets with labels from data, from a K-label system
and from a table; JSON round trip with digest, tampering detected, version 3 files written by
the previous release still load, ``with_costs`` equal to a fresh derivation, and one rule for
the monotone assumption (needs evidence, refused when false)."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sheet_versions import as_version

import causalcost as cc
from causalcost.errors import MonotonicityError, NotBinaryError, SheetError, ValidationError
from causalcost.sheet.digest import content_digest

CREATED = "2026-01-01T00:00:00+00:00"
V3 = json.loads((Path(__file__).parent / "sheets_v3.json").read_text())
NAMES = ["ok", "flu", "covid", "cold"]


def log(k: int, n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    cols = {"truth": [NAMES[i] for i in y]}
    for m in ("m1", "m2", "m3", "cand"):
        vote = np.where(rng.random(n) < 0.65, y, rng.integers(0, k, n))
        cols[m] = [NAMES[i] for i in vote]
    return pd.DataFrame(cols)


def costs_for(k: int, seed: int = 1) -> np.ndarray:
    c = np.random.default_rng(seed).integers(1, 9, (k, k)).astype(float)
    np.fill_diagonal(c, 0.0)
    return c


def runs_for(k: int) -> cc.ForcedRuns:
    return cc.forced_runs(log(k), truth="truth", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="plurality", labels=NAMES[:k])


def system_for(k: int) -> object:
    eye = np.eye(k)
    b = cc.SystemBuilder(np.full(k, 1 / k), labels=NAMES[:k])
    for m, acc in (("m1", 0.8), ("m2", 0.7), ("m3", 0.6)):
        b = b.add_model(m, confusion=acc * eye + (1 - acc) / (k - 1) * (1 - eye))
    return b.set_fusioner("plurality").build(slot="m3")


@pytest.mark.parametrize("k", [2, 3, 4])
def test_sheet_from_data_round_trips_with_its_digest(k: int, tmp_path: Path) -> None:
    runs, costs = runs_for(k), costs_for(k)
    sheet = cc.sheet_from_data(runs, costs, assumption="none")
    assert isinstance(sheet, cc.CostSheet) and sheet.labels == tuple(NAMES[:k])
    np.testing.assert_array_equal(sheet.forced, runs.forced)
    assert sheet.kinds == runs.kinds and sheet.form == "counts"
    # the table and M1 against a direct count: T[c, j, s] = F[j, c, s] / n_c
    t = np.transpose(runs.forced / runs.forced[0].sum(axis=1)[None, :, None], (1, 0, 2))
    np.testing.assert_allclose(sheet.table_array, t, rtol=1e-12)
    m1 = np.einsum("cjs,cs->cj", t, costs)
    np.testing.assert_allclose(sheet.m1, m1, rtol=1e-12)
    np.testing.assert_allclose(sheet.m2, m1 - np.diag(m1)[:, None], rtol=1e-12, atol=1e-12)
    path = sheet.save(tmp_path / "s.json")
    raw = json.loads(path.read_text())
    assert raw["version"] == 4 and raw["digest"]["sha256"] == sheet.digest
    again = cc.load_sheet(path)
    assert again == sheet and again.digest == sheet.digest and again.verified
    # a cell edited after issue is refused; with the digest recomputed, by the consistency checks
    raw["forced_runs"][0][0][0] += 1
    path.write_text(json.dumps(raw))
    with pytest.raises(SheetError, match="does not match its digest"):
        cc.load_sheet(path)
    raw["digest"]["sha256"] = content_digest(raw)
    path.write_text(json.dumps(raw))
    with pytest.raises(SheetError):
        cc.load_sheet(path)


@pytest.mark.parametrize("name", sorted(V3))
def test_version_3_files_of_the_previous_release_load(name: str, tmp_path: Path) -> None:
    path = tmp_path / "v3.json"
    path.write_text(json.dumps(V3[name]))
    sheet = cc.load_sheet(path)
    assert isinstance(sheet, cc.CostSheet) and sheet.read_version == 3
    assert sheet.digest == V3[name]["digest"]["sha256"]  # the same content, the same digest
    np.testing.assert_allclose(sheet.m1, V3[name]["derived"]["expected_cost_matrix"],
                               rtol=1e-12)
    assert as_version(sheet, 3) == {**V3[name], "signature": None}  # read as written
    again = cc.CostSheet.from_dict(json.loads(sheet.to_json()))  # written as version 4
    assert again == sheet and again.read_version == 4 and again.digest != sheet.digest
    np.testing.assert_array_equal(again.table_array, sheet.table_array)
    np.testing.assert_array_equal(again.m1, sheet.m1)


def test_versions_1_and_2_load_into_the_same_type(tmp_path: Path) -> None:
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    v2, v1 = as_version(sheet, 2), as_version(sheet, 1)
    for d in (v1, v2):
        again = cc.CostSheet.from_dict(d)
        assert isinstance(again, cc.CostSheet) and again.binary and again.k == 2
        np.testing.assert_allclose(again.m1, sheet.expected_cost_matrix.to_array(), rtol=1e-12)
        assert again.label_names == ("P", "N") and again.forced is None


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("source", ["data", "table", "network"])
def test_with_costs_equals_a_fresh_derivation(k: int, source: str) -> None:
    old, new = costs_for(k, 1), costs_for(k, 2)
    if source == "data":
        def derive(c: np.ndarray) -> cc.CostSheet:
            return cc.sheet_from_data(runs_for(k), c, assumption="none")
    elif source == "table":
        t = np.random.default_rng(k).dirichlet(np.ones(k), size=(k, k))

        def derive(c: np.ndarray) -> cc.CostSheet:
            return cc.derive_sheet(t, c, slot="m", labels=NAMES[:k], assumption="none")
    else:
        def derive(c: np.ndarray) -> cc.CostSheet:
            return cc.sheet_from_network(system_for(k), c, assumption="none")
    parent = derive(old)
    repriced, fresh = parent.with_costs(new), derive(new)
    for name in ("m1", "m2", "costs_array", "table_array"):
        np.testing.assert_allclose(getattr(repriced, name), getattr(fresh, name), rtol=1e-12,
                                   atol=1e-300, err_msg=name)
    assert repriced.provenance["repriced_from"] == parent.digest != repriced.digest
    assert repriced.kinds == fresh.kinds and repriced.form == fresh.form
    body = {key: v for key, v in repriced.to_dict().items()
            if key not in ("provenance", "created", "digest")}
    assert body == {key: v for key, v in fresh.to_dict().items()
                    if key not in ("provenance", "created", "digest")}
    # costs labelled in another order are matched by name
    frame = pd.DataFrame(new, index=NAMES[:k], columns=NAMES[:k]).iloc[::-1, ::-1]
    np.testing.assert_array_equal(parent.with_costs(frame).costs_array, new)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_sheet_from_network_for_k_labels(k: int) -> None:
    system, costs = system_for(k), costs_for(k)
    sheet = cc.sheet_from_network(system, costs, assumption="none")
    table = cc.interventional_table(system).to_numpy()
    np.testing.assert_allclose(sheet.table_array, table, rtol=1e-12)
    np.testing.assert_allclose(sheet.m1, np.einsum("cjs,cs->cj", table, costs), rtol=1e-12)
    assert sheet.form == "probability" and sheet.provenance["source"] == "network"
    # 0/1 costs: plurality is monotone, checked and stored for these costs
    checked = cc.sheet_from_network(system, 1 - np.eye(k))
    assert checked.assumption == "monotone"
    assert checked.monotonicity["source"] == "network" and checked.monotonicity["is_monotone"]
    assert checked.monotonicity["costs"] == (1 - np.eye(k)).tolist()


def test_a_false_monotone_assumption_is_refused_for_every_source() -> None:
    # plurality of 4 models, ties to the first label: monotone for 0/1 costs, not for these
    b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    for m in "abcd":
        b = b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    system = b.set_fusioner("plurality").build(slot="d")
    costs = np.array([[0, 1, 5], [1, 0, 1], [1, 1, 0]], dtype=float)
    check = cc.check_monotonicity(system, costs)
    assert not check.is_monotone
    table = cc.interventional_table(system)
    with pytest.raises(MonotonicityError, match="not monotone|false"):
        cc.sheet_from_network(system, costs)  # the default assumption is checked
    with pytest.raises(MonotonicityError):
        cc.derive_sheet(table, costs, assumption="monotone", monotonicity=check)
    with pytest.raises(MonotonicityError, match="needs evidence"):
        cc.derive_sheet(table, costs, assumption="monotone")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(MonotonicityError, match="needs evidence"):
            cc.multiclass_sheet(table, costs, assumption="monotone")
    assert cc.sheet_from_network(system, costs, assumption="none").assumption == "none"
    # the binary path refuses a false assumption the same way
    with pytest.raises(MonotonicityError):
        cc.derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=5, fp=1), slot="s",
                        prior=0.5, provenance={"source": "t"},
                        monotonicity={"is_monotone": False, "violation": "x"})


def test_monotone_on_data_depends_on_the_costs() -> None:
    # class a: the others vote b, c, c; slot right (a) -> c, slot b -> tie b/c -> b
    df = pd.DataFrame({"y": list("aabc"), "m1": list("bbbc"), "m2": list("ccbc"),
                       "m3": list("ccbc"), "m4": list("aabc")})
    runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3", "m4"], slot="m4",
                          fusioner="plurality", labels=["a", "b", "c"])
    bad = [[0, 1, 5], [1, 0, 1], [1, 1, 0]]
    assert runs.monotone_for(1 - np.eye(3)) and not runs.monotone_for(bad)
    assert cc.sheet_from_data(runs, bad).assumption == "none"
    with pytest.raises(MonotonicityError, match="not monotone"):
        cc.sheet_from_data(runs, bad, assumption="monotone")
    sheet = cc.sheet_from_data(runs, 1 - np.eye(3))
    assert sheet.assumption == "monotone"
    with pytest.raises(MonotonicityError, match="2 instance"):
        sheet.with_costs(bad)  # re-checked for the new costs


def test_sheet_from_data_counts_a_k_label_frame() -> None:
    df = log(3)
    sheet = cc.sheet_from_data(df, costs_for(3), truth="truth", models=["m1", "m2", "m3"],
                               slot="m2", fusioner="plurality", labels=NAMES[:3],
                               row_ids=df.index)
    np.testing.assert_array_equal(sheet.forced, runs_for(3).forced)
    assert sheet.provenance["source"] == "data" and "rows_sha256" in sheet.provenance
    report = cc.evaluate(sheet, runs_for(3).candidate_confusion("cand"))
    assert report.eval1 == pytest.approx(float(
        (runs_for(3).candidate_confusion("cand").to_numpy() * sheet.m1).sum()), rel=1e-12)


def test_names_and_refusals() -> None:
    sheet = cc.sheet_from_data(runs_for(3), costs_for(3), assumption="none")
    assert "labels=['ok', 'flu', 'covid']" in repr(sheet) and "M1" in str(sheet)
    assert len(sheet.to_frame()) == 6 and "C[c, s]" in sheet._repr_html_()
    with pytest.warns(DeprecationWarning, match="CostSheet"):
        assert cc.MulticlassSheet is cc.CostSheet
    with pytest.raises(ValidationError, match="labels"):
        sheet.with_costs(pd.DataFrame(np.zeros((3, 3)), index=list("abc"), columns=list("abc")))
    with pytest.raises(ValidationError, match="3 x 3"):
        sheet.with_costs(np.zeros((2, 2)))
    fields = {f.name: getattr(sheet, f.name) for f in dataclasses.fields(sheet)}
    with pytest.raises(TypeError, match="rates"):  # a view, not a field
        cc.CostSheet(**{**fields, "rates": cc.ErrorRates(0.1, 0.2, 0.1, 0.2)})
    for name, use in (("rates", "table_array"), ("forced_p", "sheet.forced"),
                      ("class_counts", "class_sizes"), ("prior", "class_prior"),
                      ("expected_cost_matrix", "m1"), ("error_transition_matrix", "m2")):
        with pytest.raises(NotBinaryError, match=use):
            getattr(sheet, name)
        assert not hasattr(sheet, name)


def test_sheet_from_a_k_label_network_file(tmp_path: Path) -> None:
    path = tmp_path / "triage.toml"
    path.write_text('''format = "causalcost-network"
version = 1
name = "triage"
slot = "c"

[class]
labels = ["ok", "flu", "covid"]
prior = [0.6, 0.3, 0.1]

[[models]]
name = "a"
confusion = [[0.85, 0.1, 0.05], [0.2, 0.75, 0.05], [0.1, 0.3, 0.6]]

[[models]]
name = "b"
confusion = [[0.6, 0.3, 0.1], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]]

[[models]]
name = "c"
confusion = [[0.7, 0.2, 0.1], [0.25, 0.7, 0.05], [0.1, 0.1, 0.8]]

[fusioner]
rule = "plurality"
''', encoding="utf-8")
    costs = pd.DataFrame(  # labelled costs in another order: read by name
        [[0, 5, 1], [1, 0, 1], [9, 3, 0]], index=["covid", "ok", "flu"],
        columns=["covid", "ok", "flu"])
    sheet = cc.sheet_from_network(path, costs, assumption="none")
    assert sheet.label_names == ("ok", "flu", "covid") and sheet.slot == "c"
    assert sheet.provenance["file"] == "triage.toml" and sheet.provenance["sha256"]
    ordered = costs.loc[["ok", "flu", "covid"], ["ok", "flu", "covid"]].to_numpy(float)
    np.testing.assert_array_equal(sheet.costs_array, ordered)
    table = cc.interventional_table(cc.load_network(path)).to_numpy()
    np.testing.assert_allclose(sheet.m1, np.einsum("cjs,cs->cj", table, ordered), rtol=1e-12)
    again = cc.load_sheet(sheet.save(tmp_path / "s.json"))
    assert again == sheet


def test_binary_sheets_read_through_the_general_views() -> None:
    df = log(2, n=500, seed=4).replace({"ok": "P", "flu": "N"})
    binary = cc.sheet_from_data(df, cc.CostMatrix(fn=5, fp=1), truth="truth",
                                models=["m1", "m2", "m3"], slot="m2", fusioner="majority",
                                positive="P", assumption="none")
    labelled = cc.sheet_from_data(df, [[0, 5], [1, 0]], truth="truth",
                                  models=["m1", "m2", "m3"], slot="m2", fusioner="plurality",
                                  labels=["P", "N"], assumption="none")
    assert binary.binary and labelled.binary and binary.k == labelled.k == 2
    np.testing.assert_array_equal(binary.forced, labelled.forced)  # majority of 3 = plurality
    assert binary.forced.dtype == np.int64
    np.testing.assert_array_equal(binary.forced[0], binary.forced_p.to_array())
    np.testing.assert_allclose(binary.table_array, labelled.table_array, rtol=1e-12)
    np.testing.assert_allclose(binary.m1, labelled.m1, rtol=1e-12)  # closed form = general
    np.testing.assert_allclose(binary.m2, labelled.m2, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(binary.costs_array, labelled.costs_array)
    np.testing.assert_array_equal(binary.class_sizes, labelled.class_sizes)


def test_a_binary_sheet_takes_its_costs_as_a_two_by_two_matrix_too() -> None:
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    by_cells = sheet.with_costs(cc.CostMatrix(fn=10, fp=2))
    by_matrix = sheet.with_costs(np.array([[0.0, 10.0], [2.0, 0.0]]))
    assert by_matrix.costs == by_cells.costs
    np.testing.assert_allclose(by_matrix.m1, by_cells.m1, rtol=1e-12)
    named = pd.DataFrame([[0, 2], [10, 0]], index=["N", "P"], columns=["N", "P"])
    assert sheet.with_costs(named).costs == by_cells.costs  # read by name


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(2, 4), st.integers(0, 2**31), st.sampled_from(["none", "monotone"]))
def test_any_sheet_round_trips_and_reprices_back(k: int, seed: int, assumption: str) -> None:
    rng = np.random.default_rng(seed)
    table = rng.dirichlet(np.ones(k) * 0.5, size=(k, k))
    costs = rng.uniform(0, 1e6, (k, k)) * (rng.random((k, k)) < 0.8)
    other = rng.uniform(0, 10, (k, k))
    for c in (costs, other):  # the right output never costs more than a wrong one
        np.fill_diagonal(c, c.min(axis=1) * rng.random())
    m1 = np.einsum("cjs,cs->cj", table, costs)
    if assumption == "monotone" and np.any(m1 - np.diag(m1)[:, None] < -1e-9 * m1.max()):
        # no system monotone in the slot for these costs has this table: refused, any K
        with pytest.raises((SheetError, cc.InfeasibleInputError), match="monotone|correct"):
            cc.derive_sheet(table, costs, slot="m", labels=NAMES[:k], assumption=assumption,
                            monotonicity="declared", created=CREATED)
        return
    sheet = cc.derive_sheet(table, costs, slot="m", labels=NAMES[:k], assumption=assumption,
                            monotonicity="declared", created=CREATED)
    again = cc.CostSheet.from_dict(json.loads(sheet.to_json()))
    assert again == sheet and again.digest == sheet.digest
    np.testing.assert_allclose(again.m1, np.einsum("cjs,cs->cj", table, costs), rtol=1e-12,
                               atol=1e-6)
    back = sheet.with_costs(other).with_costs(costs)
    np.testing.assert_allclose(back.m1, sheet.m1, rtol=1e-12, atol=0)
    assert back.digest != sheet.digest  # its provenance names its parent
