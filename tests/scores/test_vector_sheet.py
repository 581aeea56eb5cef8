"""The score sheet of K labels (causalcost.sheet.score_sheet, sheet.offset_cells): one sheet
type for every K.

Independent computations: the runs' own price (:meth:`ScoreRuns.price`, the pricing core on
the log's rows) for the exact sheet; the exact sheet for the sheet on cells (hypothesis:
worst and expected never lower, best never higher); the K-label **vote** sheet of the same
log for one-hot vectors (a hard vote written as a probability vector); brute force over the
pairings for tiny classes.
"""

from __future__ import annotations

import copy
import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_paths import parent, paths

import causalcost as cc
from causalcost.errors import CausalCostError, InputTypeError, SheetError, ValidationError
from causalcost.pricing.score_vectors import decide_rows
from causalcost.sheet.offset_cells import OffsetCells
from causalcost.sheet.offset_pricing import price_offset_cells
from causalcost.sheet.score_sheet import ScoreSheet, score_sheet_from_runs
from causalcost.sheet.signature import signing_available

LABELS = ["a", "b", "c"]
MODELS = ["m1", "m2", "m3"]
COLUMNS = {label: "{model}_" + label for label in LABELS}
#: Unequal error costs, the right answer cheapest: rows the true class.
COSTS = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [1.0, 3.0, 0.0]])


def soft_log(seed: int, n: int = 90, k: int = 3) -> pd.DataFrame:
    """Three members' probability vectors (rounded to 2 decimals: ties happen), leaning to
    the truth."""
    rng = np.random.default_rng(seed)
    labels = [chr(ord("a") + j) for j in range(k)]
    y = rng.integers(0, k, n)
    cols: dict[str, object] = {"y": [labels[i] for i in y]}
    for m in MODELS:
        p = rng.dirichlet(np.ones(k), n) + 0.6 * np.eye(k)[y]
        p = np.round(p / p.sum(axis=1, keepdims=True), 2)
        p[:, -1] = np.round(1 - p[:, :-1].sum(axis=1), 2)
        p = np.clip(p, 0, 1)
        p[:, -1] = 1 - p[:, :-1].sum(axis=1)
        for j, label in enumerate(labels):
            cols[f"{m}_{label}"] = p[:, j]
    return pd.DataFrame(cols)


def runs_of(log: pd.DataFrame, k: int = 3, fusioner: str = "mean", **rule) -> cc.ScoreRuns:
    labels = [chr(ord("a") + j) for j in range(k)]
    return cc.forced_runs(log, truth="y", models=MODELS, slot="m2", fusioner=fusioner,
                          labels=labels, scores={lb: "{model}_" + lb for lb in labels}, **rule)


@pytest.fixture(scope="module")
def runs() -> cc.ScoreRuns:
    return runs_of(soft_log(0))


def candidate(runs: cc.ScoreRuns, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(runs.k), runs.truth.size) + 0.5 * np.eye(runs.k)[runs.classes]
    return p / p.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------ the exact sheet's prices
@pytest.mark.parametrize("seed", [1, 2])
def test_exact_sheet_prices_equal_the_runs_price_on_the_same_rows(runs, seed: int) -> None:
    sheet = cc.sheet_from_data(runs, COSTS)
    assert isinstance(sheet, ScoreSheet) and sheet.k == 3 and sheet.exact
    assert sheet.class_sizes == runs.class_sizes and not sheet.binary
    cand = candidate(runs, seed)
    want = runs.price(cand, COSTS)
    got = sheet.price(runs.candidate_by_class(cand), same_instances=True)
    # the same rows in the same order through the same core: identical numbers
    assert got.expected_cost == want.expected_cost
    assert (got.worst_cost, got.best_cost) == (want.worst_cost, want.best_cost)
    assert got.worst.matrix == want.worst.matrix and got.best.matrix == want.best.matrix
    assert got.expected.matrix == want.expected.matrix
    # and the real system with the candidate lies between the worst and best cost
    real = runs.with_candidate(cand).cost(sheet.costs)
    assert want.best_cost - 1e-9 <= real <= want.worst_cost + 1e-9
    # a mapping per label gives the same price
    by_label = dict(zip(LABELS, runs.candidate_by_class(cand)))
    assert sheet.price(by_label, same_instances=True).worst_cost == want.worst_cost


def test_worst_and_best_equal_brute_force_over_the_pairings() -> None:
    runs = runs_of(soft_log(5, n=12))
    sheet = score_sheet_from_runs(runs, COSTS)
    cand = candidate(runs, 7)
    by_class = runs.candidate_by_class(cand)
    got = sheet.price(by_class, same_instances=True)
    worst = best = 0.0
    for c, (off, vec) in enumerate(zip(runs.offsets_by_class, by_class)):
        totals = [COSTS[c, decide_rows(runs.slot_matrix, off, vec[list(perm)])].sum()
                  for perm in itertools.permutations(range(len(vec)))]
        worst, best = worst + max(totals), best + min(totals)
    assert (got.worst_cost, got.best_cost) == (worst, best)


def test_probability_form_and_many_candidates(runs) -> None:
    sheet = cc.sheet_from_data(runs, COSTS)
    cands = [runs.candidate_by_class(candidate(runs, s)) for s in (3, 4)]
    other = [c[: max(1, len(c) // 2)] for c in cands[0]]  # other instances: fewer rows
    b = sheet.price(other)
    assert b.form == "probability" and b.worst is None and b.best is None
    assert b.best_cost <= b.expected_cost <= b.worst_cost
    stacked = [np.stack([c[k] for c in cands]) for k in range(3)]
    table = sheet.price_many(stacked, same_instances=True, names=["x", "y"])
    for name, c in zip(["x", "y"], cands):
        one = sheet.price(c, same_instances=True)
        assert table.loc[name, "worst_cost"] == one.worst_cost
        assert table.loc[name, "eval1"] == one.expected_cost
        assert table.loc[name, "best_right[b]"] == one.best.matrix[1][1]


def test_refusals_name_the_problem(runs) -> None:
    sheet = cc.sheet_from_data(runs, COSTS)
    by_class = runs.candidate_by_class(candidate(runs, 1))
    with pytest.raises(ValidationError, match="confidence"):
        sheet.price(by_class, same_instances=True, confidence=0.9)
    cells = cc.sheet_from_data(runs, COSTS, breakpoints=8)
    with pytest.raises(ValidationError, match="confidence: .* cells"):
        cells.price(by_class, confidence=0.9)
    high = sheet.price(by_class, confidence=0.9)  # the probability form's band
    assert high.confidence == 0.9
    assert high.high_confidence_worst_cost >= high.worst_cost >= high.expected_cost
    assert high.expected_cost >= high.best_cost >= high.high_confidence_best_cost
    with pytest.raises(ValidationError, match="critical_by_class belongs to a two-label"):
        sheet.critical_by_class()
    with pytest.raises(ValidationError, match=r"vectors: 2 classes for the 3 labels"):
        sheet.price(by_class[:2])
    with pytest.raises(ValidationError, match=r"classes \['z'\] are not labels"):
        sheet.price({"z": by_class[0]})
    with pytest.raises(InputTypeError, match="vectors must be given per class"):
        sheet.price("abc")
    bad = [v.copy() for v in by_class]
    bad[0][0] = [0.5, 0.5, 0.5]
    with pytest.raises(CausalCostError, match="sum"):
        sheet.price(bad, same_instances=True)
    with pytest.raises(CausalCostError, match="same_instances=True needs"):
        sheet.price([v[:-1] for v in by_class], same_instances=True)


# --------------------------------------------------------------- cells: valid outward rounding
def test_offset_cells_hold_every_vector_between_their_corners() -> None:
    rng = np.random.default_rng(3)
    r = np.round(rng.random((200, 4)), 1)
    cells = OffsetCells.of(r, breakpoints=7)
    assert cells.size == 200 and cells.cells <= 7 and not cells.exact
    # every vector lies in a cell (between its corners), and the counts match
    inside = np.all((r[:, None, :] >= cells.lower) & (r[:, None, :] <= cells.upper), axis=2)
    assert inside.any(axis=1).all()
    exact = OffsetCells.of(r[:5], breakpoints=7)  # few distinct vectors: kept, counted
    assert exact.exact and exact.size == 5
    assert sorted(map(tuple, exact.corner(0, True))) == sorted(map(tuple, r[:5]))


@st.composite
def systems(draw):
    k = draw(st.integers(3, 4))
    sizes = [draw(st.integers(0, 6)) for _ in range(k)]
    if not sum(sizes):
        sizes[0] = 1
    grid = st.one_of(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5]),  # ties
                     st.floats(-2, 2, allow_nan=False, allow_subnormal=False))
    offsets = [np.array(draw(st.lists(st.lists(grid, min_size=k, max_size=k), min_size=n,
                                      max_size=n)), dtype=float).reshape(n, k)
               for n in sizes]
    diagonal = draw(st.booleans())
    if diagonal:
        matrix = draw(st.sampled_from([0.5, 1.0, 2.0])) * np.eye(k)
    else:
        matrix = np.array(draw(st.lists(st.lists(grid, min_size=k, max_size=k), min_size=k,
                                        max_size=k)))
    vectors = []
    for n in sizes:
        raw = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=k, max_size=k),
                                     min_size=n, max_size=n)), dtype=float).reshape(n, k)
        raw[raw.sum(axis=1) == 0, 0] = 1
        vectors.append(raw / raw.sum(axis=1, keepdims=True))
    costs = np.array(draw(st.lists(st.lists(st.integers(0, 5), min_size=k, max_size=k),
                                   min_size=k, max_size=k)), dtype=float)
    for c in range(k):  # the right answer costs no more than a wrong one (CostMatrix's rule)
        costs[c, c] = min(costs[c, c], np.delete(costs[c], c).min())
    fusion = draw(st.sampled_from(["linear", "linear", "max", "min"]))
    return k, offsets, matrix, vectors, costs, draw(st.integers(2, 4)), fusion


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems())
def test_cells_never_tighten_a_bound(system) -> None:
    """Worst and expected costs on cells are at least the exact ones, best costs at most,
    in both forms, for any costs (unequal errors, a right answer as dear as a wrong one) and
    every fusion (linear ``argmax(A p + r)``, ``max``, ``min``)."""
    k, offsets, matrix, vectors, costs, b, fusion = system
    labels = tuple("abcd"[:k])
    exact = tuple(OffsetCells.of(o, k=k) for o in offsets)
    cells = tuple(OffsetCells.of(o, breakpoints=b, k=k) for o in offsets)
    assert [c.size for c in cells] == [o.shape[0] for o in offsets]
    for same in (True, False):
        if not same and k == 2:
            continue
        e = price_offset_cells(matrix, exact, vectors, costs, labels=labels,
                               same_instances=same, fusion=fusion)
        r = price_offset_cells(matrix, cells, vectors, costs, labels=labels,
                               same_instances=same, fusion=fusion)
        tol = 1e-9 * (1 + abs(e.expected_cost))
        assert r.worst_cost >= e.worst_cost - tol
        assert r.best_cost <= e.best_cost + tol
        assert r.expected_cost >= e.expected_cost - tol


def test_a_compact_sheet_from_a_log_is_smaller_and_valid(runs) -> None:
    exact = cc.sheet_from_data(runs, COSTS)
    small = cc.sheet_from_data(runs, COSTS, breakpoints=6)
    assert not small.exact and max(c.cells for c in small.offsets) <= 6
    assert small.class_sizes == exact.class_sizes
    assert sum(c.cells for c in small.offsets) <= 18 < sum(c.cells for c in exact.offsets)
    for seed in range(4):
        c = runs.candidate_by_class(candidate(runs, seed))
        e, s = exact.price(c, same_instances=True), small.price(c, same_instances=True)
        assert s.worst_cost >= e.worst_cost and s.best_cost <= e.best_cost
        assert s.expected_cost >= e.expected_cost - 1e-9
        # unequal error costs: the cells bound the cost, not which wrong label is said
        assert s.worst is None and s.best is None
    count_errors = small.with_costs(1 - np.eye(3))
    b = count_errors.price(runs.candidate_by_class(candidate(runs, 0)), same_instances=True)
    assert b.worst is not None and b.worst.cost(count_errors.costs) == b.worst_cost


# --------------------------------------------------------------- one-hot vectors = the vote sheet
def one_hot_log(seed: int, n: int = 75) -> pd.DataFrame:
    """Each member's hard vote, also written as a one-hot probability vector."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols: dict[str, object] = {"y": [LABELS[i] for i in y]}
    for m in MODELS:
        v = np.where(rng.random(n) < 0.55, y, rng.integers(0, 3, n))
        cols[m] = [LABELS[i] for i in v]
        for j, label in enumerate(LABELS):
            cols[f"{m}_{label}"] = (v == j).astype(float)
    return pd.DataFrame(cols)


@pytest.mark.parametrize(("seed", "vote_rule", "weights"), [
    (0, "plurality", None), (1, "plurality", None), (2, "weighted", [2, 1, 1]),
    (3, "weighted", [1, 3, 2])])
def test_one_hot_score_sheet_equals_the_vote_sheet(seed: int, vote_rule: str,
                                                   weights: list[int] | None) -> None:
    """The score sheet of one-hot vectors (fusioner mean, argmax with first-max ties) against
    the K-label vote sheet of the same log (plurality, ties to the first label; weighted with
    the same weights). "Equal": for a one-hot candidate counted on the sheet's own rows, the
    expected cost agrees to 1e-9 (a sum of fractions in another order), the worst and best
    costs exactly, and the expected confusion cell by cell to 1e-9 (the worst and best
    confusions may differ: any optimal pairing will do)."""
    log = one_hot_log(seed)
    rule = {} if weights is None else {"weights": weights}
    score_runs = cc.forced_runs(log, truth="y", models=MODELS, slot="m2", fusioner="mean",
                                labels=LABELS, scores=COLUMNS, **rule)
    vote_runs = cc.forced_runs(log, truth="y", models=MODELS, slot="m2", fusioner=vote_rule,
                               labels=LABELS, **rule)
    score_sheet = cc.sheet_from_data(score_runs, COSTS)
    vote_sheet = cc.sheet_from_data(vote_runs, COSTS)
    # the systems agree row by row on the log itself
    assert score_runs.observed.matrix == vote_runs.observed.matrix
    rng = np.random.default_rng(seed + 10)
    y = score_runs.classes
    said = np.where(rng.random(y.size) < 0.7, y, rng.integers(0, 3, y.size))
    counts = np.zeros((3, 3), dtype=int)
    np.add.at(counts, (y, said), 1)
    vectors = np.eye(3)[said]
    got = score_sheet.price(score_runs.candidate_by_class(vectors), same_instances=True)
    want = cc.evaluate(vote_sheet, counts.tolist(), same_instances=True)
    assert got.expected_cost == pytest.approx(want.expected_cost, abs=1e-9)
    assert (got.worst_cost, got.best_cost) == (want.worst_cost, want.best_cost)
    np.testing.assert_allclose(np.asarray(got.expected.matrix),
                               np.asarray(want.expected), atol=1e-9)
    # and the real system with the candidate agrees on both routes
    assert score_runs.with_candidate(vectors).matrix == \
        vote_runs.with_candidate([LABELS[i] for i in said]).matrix


# ----------------------------------------------------------------------- file, digest, signature
@pytest.mark.parametrize("breakpoints", [None, 5])
def test_json_round_trip(tmp_path, runs, breakpoints) -> None:
    sheet = cc.sheet_from_data(runs, COSTS, breakpoints=breakpoints, system_name="clinic")
    back = cc.load_sheet(sheet.save(tmp_path / "s.json"))
    assert isinstance(back, ScoreSheet) and back == sheet and back.digest == sheet.digest
    assert back.to_dict() == sheet.to_dict() and back.labels == ("a", "b", "c")
    assert np.array_equal(back.matrix, sheet.matrix)
    for x, y in zip(back.offsets, sheet.offsets):
        assert np.array_equal(x.lower, y.lower) and x.size == y.size
    data = json.loads((tmp_path / "s.json").read_text())
    assert "critical" not in data and set(data["offsets"]) == set(LABELS)
    assert data["costs"] == COSTS.tolist()
    c = runs.candidate_by_class(candidate(runs, 2))
    assert back.price(c, same_instances=True) == sheet.price(c, same_instances=True)


def test_digest_covers_the_k_label_content(runs) -> None:
    sheet = cc.sheet_from_data(runs, COSTS, breakpoints=5)
    data = sheet.to_dict()
    for edit in (lambda d: d["matrix"][0].__setitem__(0, 2.0),
                 lambda d: d["offsets"]["a"]["rows"][0].__setitem__(1, -3.0),
                 lambda d: d["offsets"]["b"]["counts"].__setitem__(0, 99),
                 lambda d: d["costs"][0].__setitem__(1, 7.0)):
        changed = copy.deepcopy(data)
        edit(changed)
        with pytest.raises(SheetError, match="digest does not match"):
            ScoreSheet.from_dict(changed)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(labels=["a", "b"]), "labels: a K-label score sheet"),
    (lambda d: d.update(labels=["a", "b", 3]), "labels: a K-label score sheet"),
    (lambda d: d.update(matrix=[[1, 0, 0], [0, 1, 0]]), "matrix: the slot's coefficients"),
    (lambda d: d["matrix"][1].__setitem__(2, None), r"matrix: rows of 3 finite numbers, got "
                                                    r"null at row 1, entry 2"),
    (lambda d: d["costs"][0].__setitem__(0, "x"), "costs: rows of 3 finite numbers"),
    (lambda d: d.update(costs={"fn": 1, "fp": 1}), "costs: a list of rows"),
    (lambda d: d["offsets"].pop("c"), "offsets: an object with one entry per label"),
    (lambda d: d["offsets"]["a"].pop("upper"), r"offsets.a: unknown keys \[\], missing "
                                               r"\['upper'\]"),
    (lambda d: d["offsets"]["a"]["rows"].__setitem__(0, [0.1, 0.2]),
     "offsets.a.rows: rows of 3 finite numbers, got a list of 2 values at row 0"),
    (lambda d: d["offsets"]["b"]["upper"].__setitem__(0, [-9.0, -9.0, -9.0]),
     "offsets.b.upper: row 0 lies below its lower corner"),
    (lambda d: d["offsets"]["b"]["counts"].__setitem__(0, 0),
     "offsets.b.counts: every cell holds at least one instance"),
    (lambda d: d["offsets"]["c"]["counts"].__setitem__(0, 1.5),
     r"offsets.c.counts: a list of counts"),
    (lambda d: d["offsets"]["c"].update(counts=[1]), "offsets.c.counts: 1 counts where"),
    (lambda d: d.update(critical={}), r"unknown keys|labels: "),
    (lambda d: d.update(extra=1), r"unknown keys \['extra'\]"),
    (lambda d: d.update(fusion="mean"), "fusion: one of"),
    (lambda d: d.update(fusion=None), "fusion: one of .* got null"),
    (lambda d: d.pop("matrix"), r"missing keys \['matrix'\]"),
])
def test_tampered_k_label_fields_are_refused_naming_the_field(runs, edit, message) -> None:
    data = cc.sheet_from_data(runs, COSTS, breakpoints=5).to_dict()
    edit(data)
    with pytest.raises(SheetError, match=message):
        ScoreSheet.from_dict(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.data_too_large])
@given(st.data())
def test_any_tampering_is_a_sheet_error_or_the_same_sheet(data) -> None:
    sheet = _small_sheet()
    body = sheet.to_dict()
    where = data.draw(st.sampled_from(paths(body)))
    junk = data.draw(st.sampled_from([None, "x", -1, 1.5, [], {}, [[1, 2, 3]], True, 1e308]))
    tampered = copy.deepcopy(body)
    parent(tampered, where)[where[-1]] = junk
    try:
        back = ScoreSheet.from_dict(tampered)
    except CausalCostError as exc:
        assert "\n" not in str(exc) and "NoneType" not in str(exc)
    else:
        assert back == sheet


_SHEETS: dict[str, ScoreSheet] = {}


def _small_sheet() -> ScoreSheet:
    if "s" not in _SHEETS:
        _SHEETS["s"] = cc.sheet_from_data(runs_of(soft_log(9, n=30)), COSTS, breakpoints=3)
    return _SHEETS["s"]


def test_with_costs_is_a_new_unsigned_sheet_priced_with_the_new_costs(tmp_path, runs) -> None:
    sheet = cc.sheet_from_data(runs, COSTS)
    count = 1 - np.eye(3)
    other = sheet.with_costs(count)
    assert other.digest != sheet.digest and other.signature is None
    assert other.provenance["repriced_from"] == sheet.digest
    assert other.offsets == sheet.offsets and np.array_equal(other.matrix, sheet.matrix)
    cand = candidate(runs, 5)
    want = runs.price(cand, count)
    got = other.price(runs.candidate_by_class(cand), same_instances=True)
    assert (got.worst_cost, got.best_cost, got.expected_cost) == \
        (want.worst_cost, want.best_cost, want.expected_cost)
    with pytest.raises(CausalCostError, match="3"):
        sheet.with_costs(cc.CostMatrix(fn=1, fp=1))
    if signing_available():
        private, public = cc.generate_signing_key(tmp_path / "k.pem", tmp_path / "k.pub")
        path = cc.sign_sheet(sheet.save(tmp_path / "s.json"), private)
        signed = cc.load_sheet(path)
        assert signed.signature_checked and signed.digest == sheet.digest
        assert cc.verify_sheet(path, public).sheet == signed
        repriced = signed.with_costs(count)
        assert repriced.signature is None and not repriced.signature_checked


# ------------------------------------------------------------------------------------ display
def test_display_and_quantiles_of_leads(runs) -> None:
    exact = cc.sheet_from_data(runs, COSTS)
    small = cc.sheet_from_data(runs, COSTS, breakpoints=4)
    q = exact.critical_quantiles((0.0, 1.0))
    # the lead of class a over b: r_a - r_b on class a's rows, computed here directly
    lead = runs.offsets_by_class[0][:, 0] - runs.offsets_by_class[0][:, 1]
    assert q.loc[("a", "b", "exact"), "min"] == lead.min()
    assert q.loc[("a", "b", "exact"), "max"] == lead.max()
    qs = small.critical_quantiles((0.0, 1.0))
    assert qs.loc[("a", "b", "down"), "min"] <= lead.min()
    assert qs.loc[("a", "b", "up"), "max"] >= lead.max()
    frame = exact.to_frame()
    assert list(frame.columns) == ["count", "offset[a]", "offset[b]", "offset[c]"]
    assert len(frame) == runs.truth.size
    assert small.to_frame()["count"].sum() == runs.truth.size
    text = str(small)
    assert "in 4 cells per class at most" in text and small.digest in text
    assert "a: 0 1 4; b: 2 0 1; c: 1 3 0" in text
    assert "n={'a': " in repr(exact) and "exact" in repr(exact)
    assert "Leads of the true class" in small._repr_html_()


def test_a_k_label_sheet_of_a_fitted_ensemble(tmp_path) -> None:
    from sklearn.datasets import load_wine
    from sklearn.ensemble import VotingClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_wine(return_X_y=True)
    vote = VotingClassifier([("tree", DecisionTreeClassifier(max_depth=2, random_state=0)),
                             ("nb", GaussianNB())], voting="soft").fit(X[::2], y[::2])
    runs = cc.ensemble_runs(vote, X[1::2], y[1::2], slot="nb")
    sheet = cc.load_sheet(cc.sheet_from_data(runs, 1 - np.eye(3)).save(tmp_path / "w.json"))
    assert sheet.labels == ("0", "1", "2")
    cand = GaussianNB(var_smoothing=1e-3).fit(X[::2], y[::2]).predict_proba(X[1::2])
    want = runs.price(cand, 1 - np.eye(3))
    got = sheet.price(runs.candidate_by_class(cand), same_instances=True)
    assert (got.worst_cost, got.best_cost) == (want.worst_cost, want.best_cost)
    assert math.isclose(got.expected_cost, want.expected_cost, abs_tol=1e-12)


def test_four_labels_round_trip_and_price_as_the_runs(tmp_path) -> None:
    runs = runs_of(soft_log(11, n=40, k=4), k=4)
    costs = np.array([[0, 1, 2, 3], [1, 0, 1, 1], [2, 2, 0, 1], [1, 1, 1, 0]], dtype=float)
    sheet = cc.load_sheet(cc.sheet_from_data(runs, costs).save(tmp_path / "s4.json"))
    assert sheet.k == 4 and sheet.labels == ("a", "b", "c", "d")
    cand = candidate(runs, 4)
    want = runs.price(cand, costs)
    got = sheet.price(runs.candidate_by_class(cand), same_instances=True)
    assert (got.worst_cost, got.best_cost, got.expected_cost) == \
        (want.worst_cost, want.best_cost, want.expected_cost)
    small = cc.sheet_from_data(runs, costs, breakpoints=3)
    b = small.price(runs.candidate_by_class(cand), same_instances=True)
    assert b.worst_cost >= got.worst_cost and b.best_cost <= got.best_cost


@pytest.mark.parametrize("fusion", ["max", "min"])
def test_max_and_min_fusion_sheets_price_as_their_runs(tmp_path, fusion: str) -> None:
    runs = runs_of(soft_log(12, n=45), fusioner=fusion)
    assert runs.fusion == fusion
    sheet = cc.load_sheet(cc.sheet_from_data(runs, COSTS).save(tmp_path / "m.json"))
    assert sheet.fusion == fusion and f"argmax_k {fusion}(p_k, r_k)" in str(sheet)
    cand = candidate(runs, 2)
    want = runs.price(cand, COSTS)
    got = sheet.price(runs.candidate_by_class(cand), same_instances=True)
    assert (got.worst_cost, got.best_cost, got.expected_cost) == \
        (want.worst_cost, want.best_cost, want.expected_cost)
    small = cc.sheet_from_data(runs, COSTS, breakpoints=4)
    b = small.price(runs.candidate_by_class(cand), same_instances=True)
    assert b.worst_cost >= got.worst_cost and b.best_cost <= got.best_cost
    assert b.expected_cost >= got.expected_cost - 1e-9


def test_an_exact_sheet_is_priced_by_price_scores_as_its_runs(runs) -> None:
    from causalcost.pricing.scores import price_scores

    sheet = cc.sheet_from_data(runs, COSTS)
    cand = runs.candidate_by_class(candidate(runs, 6))
    assert price_scores(sheet, cand, COSTS).worst_cost == \
        sheet.price(cand, same_instances=True).worst_cost
    with pytest.raises(ValidationError, match="keeps its offset vectors in cells"):
        _ = cc.sheet_from_data(runs, COSTS, breakpoints=3).offsets_by_class
