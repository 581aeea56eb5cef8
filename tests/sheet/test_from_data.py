"""A cost sheet from logged predictions (causalcost.sheet.from_data)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.sheet.from_data import sheet_from_data

COSTS = cc.CostMatrix(fn=5, fp=1)


def logs(seed: int, n: int = 4000, rule: str = "majority") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    u = rng.random(n)  # shared difficulty: the models' errors are correlated
    cols = {m: np.where((u < acc) | (rng.random(n) < 0.2), y, ~y)
            for m, acc in (("a", 0.75), ("b", 0.65), ("c", 0.7))}
    return pd.DataFrame({"y": y, **cols})


@pytest.fixture(scope="module")
def sheet() -> cc.CostSheet:
    return sheet_from_data(logs(0), COSTS, truth="y", models=["a", "b", "c"], slot="b",
                           fusioner="majority")


def test_the_sheet_holds_the_forced_runs_and_the_kinds(sheet: cc.CostSheet) -> None:
    runs = cc.forced_runs(logs(0), truth="y", models=["a", "b", "c"], slot="b",
                          fusioner="majority")
    assert (sheet.forced_p, sheet.forced_n) == (runs.forced_p, runs.forced_n)
    assert sheet.monotonicity["source"] == "data" and sheet.assumption == "monotone"
    assert sheet.monotonicity["right_only"] == 0
    assert sheet.provenance["counts_sha256"] == runs.provenance["counts_sha256"]
    assert sheet.class_counts == (runs.forced_p.positives, runs.forced_p.negatives)


def test_a_candidate_on_the_same_rows_gets_the_exact_kinds_bound(sheet: cc.CostSheet) -> None:
    data = logs(0)
    runs = cc.forced_runs(data, truth="y", models=["a", "b", "c"], slot="b", fusioner="majority")
    rng = np.random.default_rng(9)
    for accuracy in (0.6, 0.8, 0.95):
        pred = np.where(rng.random(len(data)) < accuracy, data.y, ~data.y)
        model = cc.Confusion.from_predictions(data.y, pred, positive=True)
        report = cc.evaluate(sheet, model, same_instances=True)  # declared: the sheet's rows
        real = runs.with_candidate(pred).cost(COSTS)
        assert report.form == "kinds" and report.best_cost <= real <= report.worst_cost
        table = cc.compare(sheet, {"x": model}, same_instances=True)
        assert table.loc["x", "worst_cost"] == pytest.approx(report.worst_cost)


def test_non_monotone_data_get_the_assumption_free_bounds() -> None:
    data = logs(1)
    rule = cc.make_fusioner("function", ["a", "b", "c"], function=lambda a, b, c: (a != b) | c)
    sheet = sheet_from_data(data, COSTS, truth="y", slot="b", fusioner=rule)
    assert sheet.assumption == "none" and sheet.monotonicity["right_only"] > 0
    with pytest.raises(cc.MonotonicityError, match="fails only because the slot is right"):
        sheet_from_data(data, COSTS, truth="y", slot="b", fusioner=rule, assumption="monotone")


def test_the_sheet_survives_a_round_trip_and_a_parquet_file(tmp_path: Path,
                                                            sheet: cc.CostSheet) -> None:
    again = cc.load_sheet(sheet.save(tmp_path / "s.json"))
    assert again == sheet and again.digest == sheet.digest
    logs(0).to_parquet(tmp_path / "logs.parquet")
    lazy = sheet_from_data(tmp_path / "logs.parquet", COSTS, truth="y", models=["a", "b", "c"],
                           slot="b", fusioner="majority")
    assert lazy.rates == sheet.rates
    assert json.loads(lazy.to_json())["provenance"]["source"] == "data"


def test_missing_arguments_are_named() -> None:
    with pytest.raises(cc.CausalCostError, match="truth=, slot= and fusioner="):
        sheet_from_data(logs(0), COSTS, truth="y")
