"""One sheet field set and one format (version 4) for every K; versions 1 to 3 still load.

Version 2 files here (``sheets_v2.json``) were written by the previous release (binary sheets
from a network, exactly and by sampling, from forced runs, from bare rates, from logged data)
and version 3 files (``sheets_v3.json``) by the one before: they load into the one type with
their digests, their numbers are the numbers they carry, and they evaluate as the version 4
file of the same sheet does.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import NotBinaryError, SheetError
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.loading import load_sheet

HERE = Path(__file__).resolve().parent
V2 = json.loads((HERE / "sheets_v2.json").read_text(encoding="utf-8"))
V3 = json.loads((HERE / "sheets_v3.json").read_text(encoding="utf-8"))
NAMES = ("ok", "flu", "covid", "other")
CANDIDATE = cc.Confusion(tp=50, fn=50, fp=100, tn=100)


def cells(d: dict) -> list[list[float]]:
    return [[d["tp"], d["fn"]], [d["fp"], d["tn"]]]


def k_table(k: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(k), size=(k, k))


def k_costs(k: int) -> np.ndarray:
    return np.arange(1, k * k + 1, dtype=float).reshape(k, k) * (1 - np.eye(k))


# ------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("k", [2, 3, 4])
def test_version_4_round_trip_for_every_k(k: int, tmp_path: Path) -> None:
    sheet = cc.derive_sheet(k_table(k, k), k_costs(k), slot="m", labels=NAMES[:k],
                            assumption="none", created="2026-01-01T00:00:00+00:00")
    path = sheet.save(tmp_path / "s.json")
    raw = json.loads(path.read_text())
    assert raw["version"] == 4 and raw["labels"] == list(NAMES[:k])
    assert raw["costs"] == k_costs(k).tolist() and raw["table"]["T"] == k_table(k, k).tolist()
    again = load_sheet(path)
    assert again == sheet and again.digest == sheet.digest == raw["digest"]["sha256"]
    np.testing.assert_array_equal(again.m1, np.einsum("cjs,cs->cj", k_table(k, k), k_costs(k)))
    assert again.binary == (k == 2) and again.k == k


@pytest.mark.parametrize("k", [2, 3])
def test_a_sampled_table_keeps_its_detail_for_every_k(k: int) -> None:
    eye = np.eye(k)
    b = cc.SystemBuilder(np.full(k, 1 / k), labels=list(NAMES[:k]))
    for name, acc in (("a", 0.8), ("b", 0.7), ("c", 0.75)):
        b = b.add_model(name, confusion=acc * eye + (1 - acc) / (k - 1) * (1 - eye))
    system = b.set_fusioner("plurality").build(slot="b")
    sheet = cc.sheet_from_network(system, k_costs(k), method="sampling", samples=2000, seed=3,
                                  assumption="none")
    t = sheet.table
    assert isinstance(t, cc.InterventionalTable) and t.method == "sampling" and sheet.table_detail
    again = CostSheet.from_dict(json.loads(sheet.to_json()))
    assert again == sheet
    for name in ("low", "high"):
        np.testing.assert_array_equal(getattr(again.table, name), getattr(t, name))
    assert (again.table.seed, again.table.confidence) == (t.seed, t.confidence)


# ------------------------------------------------------------------- earlier versions
@pytest.mark.parametrize("name", sorted(V2))
def test_version_1_and_2_files_load_with_their_numbers(name: str, tmp_path: Path) -> None:
    d = V2[name]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    sheet = load_sheet(path)
    assert sheet.read_version == d["version"] and sheet.labels == ("P", "N") and sheet.binary
    if d["version"] == 2:
        assert sheet.verified and sheet.digest == d["digest"]["sha256"]  # as issued
    else:
        assert not sheet.verified
    assert sheet.rates.to_dict() == d["rates"]  # the very numbers of the file
    assert sheet.costs.to_dict() == d["costs"]
    assert sheet.prior == d["prior"]
    counts = d["class_counts"]
    assert sheet.class_counts == (None if counts is None else
                                  (counts["positives"], counts["negatives"]))
    for key, m in (("expected_cost_matrix", sheet.m1), ("error_transition_matrix", sheet.m2)):
        np.testing.assert_allclose(m, cells(d["derived"][key]), rtol=1e-12, atol=1e-15)
    if d["forced_runs"] is not None:
        runs = d["forced_runs"]
        np.testing.assert_array_equal(sheet.forced, [cells(runs["forced_p"]),
                                                     cells(runs["forced_n"])])
        assert sheet.forced_p.to_dict() == runs["forced_p"]
    assert sheet.table_detail == (d["table"] is not None)
    assert sheet.monotonicity == d["monotonicity"]


@pytest.mark.parametrize("name", sorted(n for n in V2 if V2[n]["version"] == 2))
def test_a_version_2_file_and_its_version_4_file_evaluate_alike(name: str,
                                                                tmp_path: Path) -> None:
    old = CostSheet.from_dict(V2[name])
    new = load_sheet(old.save(tmp_path / "v4.json"))
    assert new.read_version == 4 and new == old and new.digest != old.digest
    candidate = CANDIDATE
    if old.class_counts is not None:  # a candidate counted on the sheet's own class sizes
        p, n = old.class_counts
        candidate = cc.Confusion(tp=p // 2, fn=p - p // 2, fp=n // 3, tn=n - n // 3)
    a = cc.evaluate(old, candidate, confidence=0.9).to_dict()
    b = cc.evaluate(new, candidate, confidence=0.9).to_dict()
    assert a.pop("sheet_sha256") == old.digest and b.pop("sheet_sha256") == new.digest
    assert a == b


@pytest.mark.parametrize("name", sorted(V3))
def test_version_3_files_load_with_their_numbers(name: str) -> None:
    d = V3[name]
    sheet = CostSheet.from_dict(d)
    assert sheet.read_version == 3 and sheet.digest == d["digest"]["sha256"]
    assert sheet.labels == tuple(d["labels"]) and sheet.table_array.tolist() == d["table"]
    assert sheet.costs_array.tolist() == d["costs"]
    np.testing.assert_allclose(sheet.m1, d["derived"]["expected_cost_matrix"], rtol=1e-12)
    forced = d.get("forced_runs")
    assert (sheet.forced is None) == (forced is None)
    if forced is not None:
        assert sheet.forced.tolist() == forced


# ------------------------------------------------------------------------ binary views
def test_binary_views_are_the_general_arrays() -> None:
    sheet = CostSheet.from_dict(V2["data_kinds"])
    r, t = sheet.rates, sheet.table_array
    assert (r.fn_forced_p, r.fn_forced_n) == (t[0, 0, 1], t[0, 1, 1])
    assert (r.fp_forced_p, r.fp_forced_n) == (t[1, 0, 0], t[1, 1, 0])
    np.testing.assert_array_equal(sheet.forced_p.to_numpy(), sheet.forced[0])
    np.testing.assert_array_equal(sheet.forced_n.to_numpy(), sheet.forced[1])
    assert sheet.class_counts == tuple(sheet.class_sizes.tolist())
    assert sheet.prior == sheet.class_prior[0] and sum(sheet.class_prior) == pytest.approx(1)
    np.testing.assert_array_equal(sheet.expected_cost_matrix.to_array(), sheet.m1)
    np.testing.assert_array_equal(sheet.error_transition_matrix.to_array(), sheet.m2)
    np.testing.assert_array_equal(sheet.costs.to_array(), sheet.costs_array)
    # the closed forms against the general einsum
    m1 = np.einsum("cjs,cs->cj", t, sheet.costs_array)
    np.testing.assert_allclose(sheet.m1, m1, rtol=1e-12)


def test_a_three_label_sheet_has_no_binary_names() -> None:
    sheet = cc.derive_sheet(k_table(3, 0), k_costs(3), slot="m", labels=NAMES[:3],
                            assumption="none")
    for name, use in (("rates", "table_array"), ("forced_p", "forced"), ("forced_n", "forced"),
                      ("class_counts", "class_sizes"), ("prior", "class_prior"),
                      ("expected_cost_matrix", "m1"), ("error_transition_matrix", "m2")):
        with pytest.raises(NotBinaryError, match=use):
            getattr(sheet, name)


def test_a_version_4_file_of_another_shape_is_refused() -> None:
    sheet = cc.derive_sheet(k_table(3, 0), k_costs(3), slot="m", labels=NAMES[:3],
                            assumption="none")
    d = sheet.to_dict()
    d["table"]["T"] = k_table(2, 0).tolist()
    from causalcost.sheet.digest import content_digest

    d["digest"] = {"sha256": content_digest(d)}
    with pytest.raises(SheetError, match="table"):
        CostSheet.from_dict(d)


# ------------------------------------------------------------------------- hypothesis
@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(2, 4), st.integers(0, 2**31), st.booleans(), st.booleans())
def test_random_sheets_round_trip(k: int, seed: int, counted: bool, prior: bool) -> None:
    rng = np.random.default_rng(seed)
    labels = [f"l{i}" for i in range(k)]
    costs = rng.uniform(0, 100, (k, k))
    np.fill_diagonal(costs, 0.0)
    if counted:  # forced runs on one set of instances: every run sees each class n_c times
        sizes = rng.integers(1, 50, k)
        forced = np.stack([np.stack([rng.multinomial(n, rng.dirichlet(np.ones(k)))
                                     for n in sizes]) for _ in range(k)])
        table = np.transpose(forced / sizes[None, :, None], (1, 0, 2))
        sheet = CostSheet(slot="m", system_name="s", labels=labels, costs=costs, table=table,
                          forced=forced)
    else:
        table = rng.dirichlet(np.ones(k), size=(k, k))
        p = rng.dirichlet(np.ones(k)) if prior else None
        sheet = CostSheet(slot="m", system_name="s", labels=labels, costs=costs, table=table,
                          class_prior=p)
    again = CostSheet.from_dict(json.loads(sheet.to_json()))
    assert again == sheet and again.digest == sheet.digest and hash(again) == hash(sheet)
    np.testing.assert_array_equal(again.table_array, sheet.table_array)
    np.testing.assert_array_equal(again.costs_array, costs)
    np.testing.assert_allclose(again.m1, np.einsum("cjs,cs->cj", table, costs), rtol=1e-12,
                               atol=1e-12)
    assert again.form == ("counts" if counted else "probability")
    if k == 2:
        assert again.rates.fn_forced_p == table[0, 0, 1]
