"""One report, one evaluate and one compare for every K: parity against independent
computations, the binary fast path against the general route, and the hostile cases of
issue 23 (permuted Series, equal names, labels in another order, equal class sizes) for every K,
on sheets of K labels and on binary sheets (the fast path)."""

from __future__ import annotations

import itertools
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import ValidationError
from causalcost.evaluation.general import compare_general, evaluate_general

sys.path.insert(0, str(Path(__file__).parent))
from klabel_fixtures import CREATED, costs_of, labels_of, log, runs_of  # noqa: E402

KS = [2, 3, 4]
REL = 1e-9
COSTS = ("eval1", "eval2", "perfect_slot_cost", "expected_cost", "worst_cost", "best_cost")


def counted(k: int, truth, pred) -> np.ndarray:
    """The K x K confusion by a plain numpy count (rows the true class)."""
    index = {n: i for i, n in enumerate(labels_of(k))}
    out = np.zeros((k, k), dtype=np.int64)
    np.add.at(out, ([index[v] for v in truth], [index[v] for v in pred]), 1)
    return out


def monotone_table(k: int) -> np.ndarray:
    """T[c, j, s]: right when the slot is right; otherwise the slot's vote (0.6), the truth
    (0.25) or another label (0.15): per instance the slot being right never hurts, so the
    system is monotone for any costs with a zero diagonal."""
    t = np.zeros((k, k, k))
    t[np.arange(k), np.arange(k), np.arange(k)] = 1.0
    for c, j in itertools.permutations(range(k), 2):
        other = [s for s in range(k) if s not in (c, j)] or [c]
        np.add.at(t[c, j], [j, c, other[-1]], [0.6, 0.25, 0.15])
    return t


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


@pytest.fixture(scope="module", params=KS)
def labelled(request):
    k = request.param
    frame = log(k)
    sheets = {
        "kinds": quiet(cc.derive_sheet, runs_of(k, frame), costs_of(k), created=CREATED,
                       assumption="none"),
        "counts": quiet(cc.derive_sheet, runs_of(k, frame), costs_of(k), created=CREATED,
                        kinds=False, assumption="none"),
        "monotone": quiet(cc.derive_sheet, monotone_table(k), costs_of(k), slot="m",
                          labels=labels_of(k), assumption="monotone", monotonicity="declared",
                          created=CREATED),
    }
    return k, frame, sheets


# ------------------------------------------------------------------ independent computations
def test_evaluate_and_compare_against_the_pricing_route_and_a_numpy_sum(labelled) -> None:
    """Eval1 by an explicit sum over (c, j, s); worst and best by the one-candidate bound of
    the pricing layer; compare's rows equal evaluate's, every sheet kind and every K."""
    k, frame, sheets = labelled
    costs = costs_of(k)
    mats = {m: counted(k, frame["truth"], frame[m]) for m in ("m1", "m3", "cand", "cand2")}
    for kind, sheet in sheets.items():
        t = np.asarray(sheet.table_array, dtype=float)
        table = quiet(cc.compare, sheet, mats)
        assert sorted(table.index) == sorted(mats)
        for name, n in mats.items():
            r = quiet(cc.evaluate, sheet, n)
            assert isinstance(r, cc.Report) and r.labels == tuple(labels_of(k))
            eval1 = sum(n[c, j] * t[c, j, s] * costs[c, s]
                        for c in range(k) for j in range(k) for s in range(k))
            assert r.eval1 == pytest.approx(eval1, rel=REL), kind
            direct = quiet(cc.bound, np.transpose(t, (1, 0, 2)), n, costs,
                           assumption=sheet.assumption, labels=labels_of(k))
            assert r.worst_cost == pytest.approx(direct.worst_cost, rel=REL), kind
            assert r.best_cost == pytest.approx(direct.best_cost, rel=REL), kind
            np.testing.assert_allclose(r.to_numpy("worst").sum(axis=1), n.sum(axis=1))
            assert r.worst_cost == pytest.approx(float((r.to_numpy("worst") * costs).sum()),
                                                 rel=REL)
            for column in COSTS:
                assert table.loc[name, column] == pytest.approx(getattr(r, column), rel=REL)


def test_same_instances_against_the_count_bound(labelled) -> None:
    k, frame, sheets = labelled
    sheet = sheets["counts"]
    mats = {m: counted(k, frame["truth"], frame[m]) for m in ("cand", "cand2")}
    table = quiet(cc.compare, sheet, mats, same_instances=True)
    for name, n in mats.items():
        direct = cc.bound(np.asarray(sheet.forced), n, costs_of(k), same_instances=True,
                          labels=labels_of(k))
        assert table.loc[name, "worst_cost"] == pytest.approx(direct.worst_cost, rel=REL)
        assert table.loc[name, "best_cost"] == pytest.approx(direct.best_cost, rel=REL)
    assert table.attrs["form"] == "counts"


def test_report_views_for_every_k(labelled) -> None:
    k, frame, sheets = labelled
    n = counted(k, frame["truth"], frame["cand"])
    r = quiet(cc.evaluate, sheets["kinds"], n, confidence=0.9)
    data = r.to_dict()
    for key in ("eval1", "eval2", "perfect_slot_cost", "worst_cost", "best_cost", "assumption",
                "form", "slot", "sheet_sha256", "instances", "warnings"):
        assert key in data, key
    assert "Report(" in repr(r) and "<table" in r._repr_html_() and "Eval" in str(r)
    assert r.high_confidence.worst_cost >= r.worst_cost - 1e-9
    assert r.high_confidence_best_cost <= r.best_cost + 1e-9
    assert r.eval1_ci_low <= r.eval1 <= r.eval1_ci_high
    np.testing.assert_array_equal(r.to_numpy("model"), n)
    assert len(r.to_frame()) >= 3


# ------------------------------------------------------- the binary fast path = general route
def _binary_sheet(seed: int, n_p: int, n_n: int, assumption: str):
    rng = np.random.default_rng(seed)
    fail = rng.integers(0, [n_p + 1, n_p + 1, n_n + 1, n_n + 1])
    fn_p, fn_n, fp_p, fp_n = (int(v) for v in fail)
    if assumption == "monotone":  # forcing the slot right never adds errors
        fn_p, fn_n = sorted((fn_p, fn_n))
        fp_n, fp_p = sorted((fp_n, fp_p))
    forced_p = cc.Confusion(n_p - fn_p, fn_p, fp_p, n_n - fp_p)
    forced_n = cc.Confusion(n_p - fn_n, fn_n, fp_n, n_n - fp_n)
    costs = cc.CostMatrix(fn=float(rng.integers(1, 9)), fp=float(rng.integers(1, 9)))
    kwargs = {"monotonicity": "declared"} if assumption == "monotone" else {
        "assumption": "none"}
    return quiet(cc.sheet_from_forced_runs, forced_p, forced_n, costs, slot="m",
                 description="random", **kwargs)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_p=st.integers(1, 40), n_n=st.integers(1, 40),
       assumption=st.sampled_from(["none", "monotone"]), same=st.booleans(),
       cells=st.lists(st.integers(0, 30), min_size=4, max_size=4))
def test_binary_fast_path_equals_the_general_route(seed, n_p, n_n, assumption, same,
                                                   cells) -> None:
    sheet = _binary_sheet(seed, n_p, n_n, assumption)
    assert sheet.k == 2
    if same:  # on the sheet's own rows: the sheet's class sizes
        tp = min(cells[0], n_p)
        tn = min(cells[3], n_n)
        model = cc.Confusion(tp, n_p - tp, n_n - tn, tn)
    else:
        if sum(cells) == 0:
            cells = [1, 0, 0, 1]
        model = cc.Confusion(*cells)
    fast = quiet(cc.evaluate, sheet, model, same_instances=same)
    general = quiet(evaluate_general, sheet, model, same_instances=same)
    for column in COSTS:
        assert getattr(general, column) == pytest.approx(getattr(fast, column), rel=1e-9,
                                                         abs=1e-9), column
    assert general.form == fast.form and general.k == fast.k == 2
    np.testing.assert_allclose(general.to_numpy("expected"), fast.to_numpy("expected"),
                               rtol=1e-9, atol=1e-9)
    other = cc.Confusion(*(v + 1 for v in model.cells())) if not same else model
    many = {"a": model, "b": other}
    table = quiet(cc.compare, sheet, many, same_instances=same)
    general_table = quiet(compare_general, sheet, many, same_instances=same)
    for name in many:
        for column in COSTS:
            assert general_table.loc[name, column] == pytest.approx(
                table.loc[name, column], rel=1e-9, abs=1e-9), column


# -------------------------------------------------------- hostile cases on binary sheets
@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    pred = np.where(rng.random(300) < 0.7, y, 1 - y)
    sheet = _binary_sheet(3, int(y.sum()), int((1 - y).sum()), "none")
    return sheet, pd.Series(y), pd.Series(pred)


def test_binary_permuted_series_are_aligned_by_index(binary) -> None:
    sheet, y, pred = binary
    shuffled = pred.sample(frac=1, random_state=0)
    table = quiet(cc.compare, sheet, y_true=y, predictions={"p": shuffled, "q": pred})
    assert table.loc["p", "eval1"] == table.loc["q", "eval1"]
    shifted = pred.copy()
    shifted.index = shifted.index + 10_000
    with pytest.raises(cc.CausalCostError):
        quiet(cc.compare, sheet, y_true=y, predictions={"p": shifted})


def test_binary_equal_names_are_refused(binary) -> None:
    sheet = binary[0]
    with pytest.raises(ValidationError, match="'1'"):
        cc.compare(sheet, {1: cc.Confusion(1, 2, 3, 4), "1": cc.Confusion(4, 3, 2, 1)})


def test_binary_labels_in_another_order_are_read_by_name(binary) -> None:
    sheet = binary[0]
    m = np.array([[40, 10], [20, 130]])
    framed = pd.DataFrame(m, index=["P", "N"], columns=["P", "N"]).loc[["N", "P"], ["N", "P"]]
    a = quiet(cc.evaluate, sheet, cc.Confusion(40, 10, 20, 130))
    b = quiet(cc.evaluate, sheet, framed)
    assert b.model == a.model and b.eval1 == a.eval1
    with pytest.raises(ValidationError, match="labels"):
        cc.evaluate(sheet, pd.DataFrame(m, index=["P", "n"], columns=["P", "n"]))


def test_binary_equal_class_sizes_are_not_the_same_instances(binary) -> None:
    sheet = binary[0]
    sp, sn = (int(v) for v in sheet.class_sizes)
    model = cc.Confusion(sp // 2, sp - sp // 2, sn // 3, sn - sn // 3)
    r = quiet(cc.evaluate, sheet, model)
    assert r.form == "probability" and any("declare it" in w for w in r.warnings)
    assert quiet(cc.evaluate, sheet, model, same_instances=True).form == "counts"


def test_label_report_is_a_deprecated_alias() -> None:
    with pytest.warns(DeprecationWarning, match="causalcost.Report"):
        alias = cc.LabelReport
    assert alias is cc.Report
    from causalcost.evaluation import label_report

    with pytest.warns(DeprecationWarning, match="causalcost.Report"):
        assert label_report.LabelReport is cc.Report
