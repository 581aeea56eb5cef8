"""``compare`` ranks candidates in one vectorised pass (evaluation.ranking) with the numbers, the
refusals and the order that one ``evaluate`` per candidate gives, also on a candidates file of
fifty thousand rows (its speed is a benchmark's business, not a unit test's).

The reference is the one-at-a-time path: :func:`causalcost.evaluate` on each candidate, ranked
by hand (sort by Eval1 then the worst case, equal pairs share a rank).

The two paths sum the same products in different orders (numpy's vectorised sums against one
Python sum per candidate; the order numpy uses may change between releases), so their numbers
agree to rounding, not bit for bit: they are compared at a relative tolerance of 1e-12 (a
few units in the last place of a float64 sum of a handful of terms, far below any cost that
matters), with an absolute floor of 1e-9 for costs that cancel to zero.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import CountError, SheetError, ValidationError
from causalcost.evaluation.candidates import (
    FIELD_LIMIT,
    candidates_frame,
    read_candidates_csv,
    read_candidates_frame,
)
from causalcost.evaluation.comparison import compare
from causalcost.evaluation.report import COMPARE_COLUMNS, evaluate
from causalcost.sheet.costsheet import CostSheet

COSTS = cc.CostMatrix(tp=0.25, fn=5, fp=1.5, tn=0.125)
FORCED_P = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
FORCED_N = cc.Confusion(tp=0, fn=100, fp=0, tn=200)


class _Sheets(dict):
    """The sheets under test, derived on first use (not at collection)."""

    MAKERS = {
        "network": lambda: cc.sheet_from_network("thesis_and", COSTS),
        "network-none": lambda: cc.sheet_from_network("majority3", COSTS, assumption="none"),
        "counts": lambda: cc.sheet_from_forced_runs(FORCED_P, FORCED_N, COSTS,
                                                    slot="clinical_history",
                                                    description="thesis set"),
        "counts-none": lambda: cc.sheet_from_forced_runs(FORCED_P, FORCED_N, COSTS, slot="s",
                                                         description="set", assumption="none"),
    }

    def __missing__(self, name: str) -> CostSheet:
        self[name] = sheet = self.MAKERS[name]()
        return sheet


SHEETS = _Sheets()

#: Relative tolerance between numbers summed in different orders (see the module docstring).
REL = 1e-12
#: Absolute floor, for costs that cancel to (nearly) zero.
ABS = 1e-9


def assert_close(got: list[float], expected: list[float]) -> None:
    """Equal up to the rounding of sums taken in different orders."""
    np.testing.assert_allclose(got, expected, rtol=REL, atol=ABS)


def one_at_a_time(sheet: CostSheet, candidates: dict[str, cc.Confusion],
                  same: frozenset[str] = frozenset()) -> pd.DataFrame:
    rows = {name: evaluate(sheet, c, same_instances=name in same).to_series()
            for name, c in candidates.items()}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    return frame.sort_values(["eval1", "worst_cost"], kind="mergesort")


def random_candidates(rng: np.random.Generator, n: int, sheet: CostSheet,
                      ) -> dict[str, cc.Confusion]:
    """Half with the class sizes of the sheet's own instances (100/200), half with others."""
    out = {}
    for i in range(n):
        p, q = (100, 200) if i % 2 or sheet.form != "counts" else rng.integers(1, 400, 2)
        tp, fp = rng.integers(0, p + 1), rng.integers(0, q + 1)
        out[f"c{i}"] = cc.Confusion(tp=int(tp), fn=int(p - tp), fp=int(fp), tn=int(q - fp))
    return out


def declared(sheet: CostSheet, candidates: dict[str, cc.Confusion]) -> list[str]:
    """The candidates with the class sizes of a counted sheet's rows (to declare them)."""
    if sheet.forced_p is None:
        return []
    return [name for name, c in candidates.items()
            if (c.positives, c.negatives) == tuple(map(float, sheet.class_counts))]


@pytest.mark.parametrize("which", list(_Sheets.MAKERS))
def test_every_number_is_the_one_evaluate_gives(which: str) -> None:
    sheet = SHEETS[which]
    candidates = random_candidates(np.random.default_rng(7), 400, sheet)
    # on a counted sheet, those with its class sizes are declared counted on its own rows
    same = frozenset(declared(sheet, candidates))
    fast = compare(sheet, candidates, same_instances=same)
    slow = one_at_a_time(sheet, candidates, same)
    assert sorted(fast.index) == sorted(slow.index)
    for name in candidates:  # row by row, up to rounding
        assert_close(fast.loc[name, list(COMPARE_COLUMNS[:-1])].tolist(), slow.loc[name].tolist())
    # the order is evaluate's: (Eval1, worst case) never decreases down the table, judged on
    # the one-at-a-time numbers up to rounding (candidates equal up to rounding may swap)
    ordered = slow.loc[fast.index, ["eval1", "worst_cost"]].to_numpy()
    tol = REL * np.abs(ordered).max() + ABS
    step = np.diff(ordered, axis=0)
    assert ((step[:, 0] > -tol) & ((step[:, 0] > tol) | (step[:, 1] > -tol))).all()
    # ranks: equal (Eval1, worst case) pairs share a rank, a new pair takes its position
    keys = list(zip(fast["eval1"], fast["worst_cost"]))
    ranks = [1 + next(j for j, k in enumerate(keys) if k == key) for key in keys]
    assert fast["rank"].tolist() == ranks


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(st.tuples(*[st.floats(0, 1e6, allow_nan=False)] * 4).filter(
    lambda c: sum(c) > 0), min_size=1, max_size=8))
def test_fractional_candidates_agree_with_evaluate(cells: list[tuple[float, ...]]) -> None:
    sheet = SHEETS["network"]
    candidates = {f"c{i}": cc.Confusion(*c) for i, c in enumerate(cells)}
    fast = compare(sheet, candidates)
    for name, c in candidates.items():
        series = evaluate(sheet, c).to_series()
        assert_close(fast.loc[name, list(COMPARE_COLUMNS[:-1])].tolist(), series.tolist())


def test_a_frame_and_a_mapping_give_the_same_table() -> None:
    sheet = SHEETS["counts"]
    candidates = random_candidates(np.random.default_rng(3), 50, sheet)
    same = declared(sheet, candidates)
    by_mapping = compare(sheet, candidates, same_instances=same)
    by_frame = compare(sheet, candidates_frame(candidates), same_instances=same)
    pd.testing.assert_frame_equal(by_mapping, by_frame)
    assert by_mapping.attrs == by_frame.attrs
    assert by_mapping.attrs["sheet_sha256"] == sheet.digest
    assert by_mapping.attrs["form"] == "mixed"
    assert any("taken as counted on other instances" in w for w in by_mapping.attrs["warnings"])
    # undeclared, equal class sizes prove nothing: every candidate gets the probability form
    assert compare(sheet, candidates).attrs["form"] == "probability"


@pytest.mark.parametrize(("which", "bad", "error", "match"), [
    ("network", cc.Confusion(0, 0, 0, 0), ValidationError, "no instances"),
    ("counts", cc.Confusion(50.5, 49.5, 100, 100), CountError, "integer"),
])
def test_a_refused_candidate_is_named_as_evaluate_refuses_it(which: str, bad: cc.Confusion,
                                                             error: type, match: str) -> None:
    sheet = SHEETS[which]
    candidates = {"ok": cc.Confusion(50, 50, 100, 100), "bad": bad}
    same = which == "counts"  # fractional counts are refused on the sheet's own rows only
    with pytest.raises(error, match=match) as fast:
        compare(sheet, candidates, same_instances=same)
    with pytest.raises(error) as slow:
        evaluate(sheet, bad, same_instances=same)
    assert str(fast.value) == f"candidate 'bad': {slow.value}"


def test_a_prior_of_one_refuses_negatives() -> None:
    sheet = cc.derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), COSTS, slot="m", prior=1.0,
                            monotonicity="declared", provenance={"source": "test"})
    with pytest.raises(SheetError, match="candidate 'n': .*cannot occur"):
        compare(sheet, {"p": cc.Confusion(5, 5, 0, 0), "n": cc.Confusion(5, 5, 1, 0)})


def test_far_candidates_are_summarised_in_one_warning() -> None:
    sheet = SHEETS["network"]  # prior 1/3
    candidates = {"near": cc.Confusion(50, 50, 100, 100), "far": cc.Confusion(500, 500, 10, 10)}
    table = compare(sheet, candidates)
    far = [w for w in table.attrs["warnings"] if "far from the sheet's prior" in w]
    assert len(far) == 1 and "'far'" in far[0] and "'near'" not in far[0]
    assert any("far from" in w for w in evaluate(sheet, candidates["far"]).warnings)


def test_costs_that_overflow_are_refused_with_the_candidate_named() -> None:
    sheet = cc.derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=1e300, fp=1),
                            slot="m", prior=0.5, monotonicity="declared",
                            provenance={"source": "test"})
    frame = pd.DataFrame({"tp": [1.0, 1e10], "fn": [1.0, 1e10], "fp": [1.0, 1e10],
                          "tn": [1.0, 1e10]}, index=["small", "huge"])
    with pytest.raises(cc.CausalCostError, match="candidate 'huge'.*overflow"):
        compare(sheet, frame)


def test_frame_input_is_checked() -> None:
    sheet = SHEETS["network"]
    with pytest.raises(CountError, match="candidate 'x'"):
        compare(sheet, pd.DataFrame({"tp": [-1.0], "fn": [1.0], "fp": [1.0], "tn": [1.0]},
                                    index=["x"]))
    with pytest.raises(ValidationError, match="missing \\['tn'\\]"):
        compare(sheet, pd.DataFrame({"tp": [1.0], "fn": [1.0], "fp": [1.0]}, index=["x"]))
    with pytest.raises(ValidationError, match="two candidates are named 'x'"):
        compare(sheet, pd.DataFrame({k: [1.0, 2.0] for k in ("tp", "fn", "fp", "tn")},
                                    index=["x", "x"]))
    with pytest.raises(ValidationError, match="no candidates"):
        compare(sheet, pd.DataFrame(columns=["tp", "fn", "fp", "tn"]))
    with pytest.raises(TypeError, match="candidate 'x' must be a Confusion"):
        compare(sheet, {"x": [1, 2, 3, 4]})


def test_counts_beyond_2_53_take_the_exact_path() -> None:
    sheet = SHEETS["network"]
    big = cc.Confusion(2**60 + 1, 2**60, 2**61, 2**61 + 3)
    table = compare(sheet, {"big": big, "small": cc.Confusion(50, 50, 100, 100)})
    assert table.loc["big", "eval1"] == evaluate(sheet, big).eval1


# ------------------------------------------------------------------------------------ CSV
def _write_candidates(path: Path, n: int, seed: int = 0) -> dict[str, cc.Confusion]:
    rng = np.random.default_rng(seed)
    tp, fp = rng.integers(0, 101, n), rng.integers(0, 201, n)
    out = {f"c{i}": cc.Confusion(int(tp[i]), int(100 - tp[i]), int(fp[i]), int(200 - fp[i]))
           for i in range(n)}
    path.write_text("name,tp,fn,fp,tn\n" + "".join(
        f"{name},{m.tp:.0f},{m.fn:.0f},{m.fp:.0f},{m.tn:.0f}\n" for name, m in out.items()),
        encoding="utf-8")
    return out


def test_fifty_thousand_candidates_from_a_file_give_evaluates_numbers(tmp_path: Path) -> None:
    path = tmp_path / "many.csv"
    written = _write_candidates(path, 50_000)
    sheet = SHEETS["counts"]
    table = compare(sheet, read_candidates_frame(path))
    assert len(table) == 50_000 and table["rank"].iloc[0] == 1
    assert set(table.index) == set(written)
    for name, row in table.sample(300, random_state=0).iterrows():  # against evaluate
        series = evaluate(sheet, written[str(name)]).to_series()
        assert_close(row[list(COMPARE_COLUMNS[:-1])].tolist(), series.tolist())


def test_the_frame_and_the_mapping_readers_agree(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    written = _write_candidates(path, 300, seed=5)
    frame = read_candidates_frame(path)
    mapping = read_candidates_csv(path)
    assert mapping == written and list(mapping) == frame.index.tolist()
    assert [m.cells() for m in mapping.values()] == [tuple(r) for r in frame.to_numpy().tolist()]


@pytest.mark.parametrize(("data", "match"), [
    (b"name,tp,fn,fp,tn\ncoin,1,2,3,4\n" + b"x" * (FIELD_LIMIT + 1) + b",1,1,1,1\n",
     f"line 3: not a readable CSV file: a field is longer than {FIELD_LIMIT}"),
    (b"name,tp,fn,fp,tn\ncoin,1,2,3,\x004\n", "binary content"),
    (bytes(range(256)), "not UTF-8 text"),
    (b"name,tp,fn,fp,tn\ncoin,1,2,3,4e999\n", "line 2 \\(candidate 'coin'\\).*finite"),
])
def test_unreadable_files_are_one_line_errors(tmp_path: Path, data: bytes, match: str) -> None:
    path = tmp_path / "c.csv"
    path.write_bytes(data)
    for read in (read_candidates_frame, read_candidates_csv):
        with pytest.raises(ValidationError, match=match) as info:
            read(path)
        assert "\n" not in str(info.value)


def test_a_folder_is_not_a_candidates_file(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="it is a folder"):
        read_candidates_frame(tmp_path)
