"""The judge for any K: evaluate, compare and the scorer on sheets of K = 2, 3, 4 labels, each
checked against an independent computation (a numpy count of the real cost, the pricing layer's
own bound, brute force over assignments on tiny cases), and every hostile case of issue 23 for
every K."""

from __future__ import annotations

import itertools
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import (
    CausalCostError,
    DataError,
    OverflowInputError,
    ValidationError,
)
from causalcost.evaluation.pricing_many import free_bounds

sys.path.insert(0, str(Path(__file__).parent))
from klabel_fixtures import (  # noqa: E402
    CREATED,
    costs_of,
    labels_of,
    log,
    real_cost,
    runs_of,
    sheet_of,
)

KS = [2, 3, 4]
REL = 1e-12


@pytest.fixture(scope="module", params=KS)
def case(request):
    k = request.param
    frame = log(k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheet = sheet_of(k, frame)
    return k, frame, sheet


def counted(k: int, truth, pred) -> np.ndarray:
    """The K x K confusion by a plain numpy count (rows the true class)."""
    index = {n: i for i, n in enumerate(labels_of(k))}
    out = np.zeros((k, k), dtype=np.int64)
    np.add.at(out, ([index[v] for v in truth], [index[v] for v in pred]), 1)
    return out


# ------------------------------------------------------------------------- parity matrix
def test_eval1_and_bounds_against_independent_computations(case) -> None:
    k, frame, sheet = case
    n = counted(k, frame["truth"], frame["cand"])
    r = cc.evaluate(sheet, n)
    f = np.asarray(sheet.forced, dtype=float)  # [j, c, s]
    sizes = f[0].sum(axis=1)
    eval1 = sum(n[c, j] * f[j, c, s] * costs_of(k)[c, s] / sizes[c]
                for c in range(k) for j in range(k) for s in range(k))
    assert r.eval1 == pytest.approx(eval1, rel=REL)
    assert r.eval2 == pytest.approx(eval1 - r.perfect_slot_cost, rel=REL)
    direct = cc.bound(np.transpose(sheet.table_array, (1, 0, 2)), n, costs_of(k))
    assert r.worst_cost == pytest.approx(direct.worst_cost, rel=REL)
    assert r.best_cost == pytest.approx(direct.best_cost, rel=REL)
    assert r.form == "probability"  # not declared: never guessed from the class sizes


def test_same_instances_bracket_the_real_cost(case) -> None:
    k, frame, sheet = case
    real = real_cost(k, frame, "cand")  # numpy count, independent of causalcost
    r = cc.evaluate(sheet, (frame["truth"], frame["cand"]), same_instances=True)
    assert r.form == "kinds"
    assert r.best_cost - 1e-9 <= real <= r.worst_cost + 1e-9
    counts = cc.derive_sheet(runs_of(k, frame), costs_of(k), kinds=False, assumption="none",
                            created=CREATED)
    c = cc.evaluate(counts, (frame["truth"], frame["cand"]), same_instances=True)
    assert c.form == "counts" and c.best_cost - 1e-9 <= real <= c.worst_cost + 1e-9
    assert c.worst_cost >= r.worst_cost - 1e-9 and c.best_cost <= r.best_cost + 1e-9


def test_compare_rows_equal_evaluate_and_binary_columns(case) -> None:
    k, frame, sheet = case
    preds = {m: frame[m] for m in ("m1", "m3", "cand", "cand2")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = cc.compare(sheet, y_true=frame["truth"], predictions=preds, confidence=0.9)
    for column in ("eval1", "eval2", "perfect_slot_cost", "expected_cost", "worst_cost",
                   "best_cost", "rank", "eval1_ci_low", "eval1_ci_high",
                   "high_confidence_worst_cost", "high_confidence_best_cost",
                   "better_than_next", "accuracy", "precision", "recall", "f1"):
        assert column in table.columns, column
    assert list(table["eval1"]) == sorted(table["eval1"])
    for name in preds:
        r = cc.evaluate(sheet, (frame["truth"], preds[name]), confidence=0.9)
        for column in ("eval1", "worst_cost", "best_cost"):
            assert table.loc[name, column] == pytest.approx(getattr(r, column), rel=REL)
        assert table.loc[name, "high_confidence_worst_cost"] == pytest.approx(
            r.high_confidence.worst_cost, rel=REL)
        row = table.loc[name]
        assert row["eval1_ci_low"] <= row["eval1"] <= row["eval1_ci_high"]
        assert row["high_confidence_worst_cost"] >= row["worst_cost"] - 1e-9
        assert row["high_confidence_best_cost"] <= row["best_cost"] + 1e-9
        n = counted(k, frame["truth"], preds[name])
        assert row["accuracy"] == pytest.approx(np.trace(n) / n.sum(), rel=REL)
    assert not table["better_than_next"].iloc[-1]


def test_compare_from_matrices_equals_compare_from_predictions(case) -> None:
    k, frame, sheet = case
    mats = {m: counted(k, frame["truth"], frame[m]) for m in ("m1", "cand")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = cc.compare(sheet, mats)
        b = cc.compare(sheet, y_true=frame["truth"].tolist(),
                       predictions={m: frame[m].tolist() for m in mats})
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(KS), st.integers(0, 10**6), st.booleans())
def test_vectorised_bounds_equal_the_general_bound(k, seed, same) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, k)
    t = rng.dirichlet(np.ones(k), size=(k, k))  # [c, j, s]
    forced = np.stack([np.stack([rng.multinomial(sizes[c], t[c, j]) for c in range(k)])
                       for j in range(k)])  # [j, c, s]
    model = np.stack([rng.multinomial(sizes[c] if same else int(rng.integers(1, 15)),
                                      np.ones(k) / k) for c in range(k)])
    costs = rng.integers(1, 6, (k, k)).astype(float)
    np.fill_diagonal(costs, 0.0)
    if same:
        mass = np.transpose(forced, (1, 0, 2)).astype(float)
    else:
        rates = forced / forced.sum(axis=2, keepdims=True)
        mass = np.transpose(rates, (1, 0, 2)) * model.sum(axis=1)[:, None, None]
    w, b = free_bounds(mass, model[None], costs)
    ref = cc.bound(forced, model, costs, same_instances=same)
    assert float((w[0] * costs).sum()) == pytest.approx(ref.worst_cost, rel=1e-9, abs=1e-9)
    assert float((b[0] * costs).sum()) == pytest.approx(ref.best_cost, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("k", KS)
def test_kinds_bound_equals_brute_force_on_tiny_cases(k) -> None:
    frame = next(f for f in (log(k, n=2 * k + 2, seed=s) for s in range(100))
                 if f["truth"].nunique() == k and f["truth"].value_counts().max() <= 4)
    runs = runs_of(k, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheet = cc.derive_sheet(runs, costs_of(k), assumption="none", created=CREATED)
    n = counted(k, frame["truth"], frame["cand"])
    r = cc.evaluate(sheet, n, same_instances=True)
    costs = costs_of(k)
    worst = best = 0.0
    for c in range(k):  # every way the candidate's predictions fall on the class's instances
        vectors = [r_ for (cls, r_), m in runs.kinds.counts.items() if cls == c
                   for _ in range(m)]
        preds = [j for j in range(k) for _ in range(int(n[c, j]))]
        totals = [sum(costs[c, v[p]] for v, p in zip(vectors, order))
                  for order in set(itertools.permutations(preds))] or [0.0]
        worst += max(totals)
        best += min(totals)
    assert r.worst_cost == pytest.approx(worst, rel=REL)
    assert r.best_cost == pytest.approx(best, rel=REL)


def test_system_scorer_for_k_labels(case) -> None:
    k, frame, sheet = case
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(k)
    x = rng.normal(size=(240, k))
    y = np.array(labels_of(k), dtype=object)[np.argmax(x + rng.normal(size=(240, k)), axis=1)]
    scorer = cc.system_scorer(sheet)
    grid = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scorer, cv=3)
    grid.fit(x, y)
    model = grid.best_estimator_
    expected = cc.evaluate(sheet, counted(k, y, model.predict(x))).expected_cost
    assert scorer(model, x, y) == pytest.approx(-expected, rel=REL)


# ------------------------------------------------------------------------- hostile cases
def test_equal_names_are_refused(case) -> None:
    k, frame, sheet = case
    m = counted(k, frame["truth"], frame["cand"])
    with pytest.raises(ValidationError, match="two candidates are named '1'"):
        cc.compare(sheet, {1: m, "1": 2 * m})
    with pytest.raises(ValidationError, match="two candidates are named 'cand'"):
        cc.compare(sheet, {"cand": m}, y_true=frame["truth"],
                   predictions={"cand": frame["cand"]})


def test_labels_are_matched_by_name(case) -> None:
    k, frame, sheet = case
    labels = labels_of(k)
    m = counted(k, frame["truth"], frame["cand"])
    reversed_frame = pd.DataFrame(m, index=labels, columns=labels).loc[labels[::-1],
                                                                       labels[::-1]]
    a, b = cc.evaluate(sheet, m), cc.evaluate(sheet, reversed_frame)
    np.testing.assert_array_equal(b.to_numpy("model"), m)
    assert (a.eval1, a.worst_cost) == (b.eval1, b.worst_cost)
    class Labelled:  # any object with .to_numpy() and .labels (a K-label Confusion)
        def __init__(self, matrix, names):
            self.matrix, self.labels = matrix, tuple(names)

        def to_numpy(self):
            return self.matrix

    flipped = Labelled(m[::-1, ::-1], labels[::-1])
    assert cc.evaluate(sheet, flipped).eval1 == a.eval1
    wrong = [*labels[:-1], labels[-1].capitalize()]  # e.g. covid,flu,Ok
    with pytest.raises(ValidationError, match="candidate 'x'.*labels are matched by name"):
        cc.compare(sheet, {"x": Labelled(m, wrong)})
    with pytest.raises(ValidationError, match="labels"):
        cc.evaluate(sheet, pd.DataFrame(m, index=wrong, columns=wrong))
    with pytest.raises(DataError, match="is not one of the labels"):
        cc.compare(sheet, y_true=frame["truth"],
                   predictions={"x": frame["cand"].str.capitalize()})


def test_equal_class_sizes_are_not_the_same_instances(case) -> None:
    k, frame, sheet = case
    # other rows with the sheet's class sizes: the candidate shuffled within each class
    other = frame.copy()
    for label in labels_of(k):
        rows = other.index[other["truth"] == label]
        other.loc[rows, "cand"] = other.loc[rows, "cand"].sample(frac=1, random_state=1).values
    n = counted(k, other["truth"], other["cand"])
    assert (n.sum(axis=1) == np.asarray(sheet.class_sizes)).all()
    r = cc.evaluate(sheet, n)
    assert r.form == "probability" and "declare it" in r.warnings[0]
    assert cc.evaluate(sheet, n, same_instances=True).form == "kinds"
    with pytest.raises(ValidationError, match="row fingerprint"):
        cc.evaluate(sheet, n, row_fingerprint=cc.row_fingerprint(range(len(frame))))


def test_huge_costs_do_not_crash(case) -> None:
    k, frame, sheet = case
    costs = costs_of(k)
    costs[0, 1] = 1e308
    costs[1, 0] = 1e308
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = cc.derive_sheet(runs_of(k, frame), costs, assumption="none", created=CREATED)
    n = counted(k, frame["truth"], frame["cand"])
    for call in (lambda: cc.evaluate(big, n), lambda: cc.compare(big, {"a": n, "b": n + 1}),
                 lambda: cc.evaluate(big, n, same_instances=True)):
        with pytest.raises(OverflowInputError, match="overflows float64"):
            call()


def test_permuted_series_are_aligned_by_index(case) -> None:
    k, frame, sheet = case
    truth = frame["truth"]
    pred = frame["cand"].sample(frac=1, random_state=0)  # same rows, another order
    direct = cc.evaluate(sheet, (truth, frame["cand"]))
    for given_ in ((truth, pred),):
        assert cc.evaluate(sheet, given_).eval1 == pytest.approx(direct.eval1, rel=REL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = cc.compare(sheet, y_true=truth, predictions={"p": pred, "q": frame["cand"]})
    assert table.loc["p", "eval1"] == table.loc["q", "eval1"]
    shifted = pred.copy()
    shifted.index = shifted.index + 10_000
    with pytest.raises(DataError, match="index"):
        cc.compare(sheet, y_true=truth, predictions={"p": shifted})
    with pytest.raises(DataError, match="index"):
        cc.evaluate(sheet, (truth.to_numpy(), pred))


@pytest.mark.parametrize("level", ["x", 1.5, 0, True])
def test_bad_confidence_is_a_causalcost_error(case, level) -> None:
    k, frame, sheet = case
    n = counted(k, frame["truth"], frame["cand"])
    with pytest.raises(CausalCostError, match="confidence"):
        cc.compare(sheet, {"a": n}, confidence=level)
    binary = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    with pytest.raises(ValidationError, match=r"confidence must be None or a number in \(0, 1\)"):
        cc.compare(binary, {"a": cc.Confusion(5, 5, 5, 5)}, confidence=level)


def test_binary_by_nature_steps_refuse_k_labels(case) -> None:
    k, frame, sheet = case
    if k == 2:  # two named labels: one threshold, the first label the positive
        scores = np.linspace(0, 1, len(frame))
        sweep = cc.system_thresholds(sheet, frame["truth"], scores)
        truth = (frame["truth"] == labels_of(2)[0]).to_numpy()
        assert sweep.positives == int(truth.sum())
        return
    with pytest.raises(ValidationError, match="is for two labels.*cc.compare"):
        cc.system_thresholds(sheet, frame["truth"], np.linspace(0, 1, len(frame)))
    with pytest.raises(ValidationError, match="is for two labels"):
        cc.system_threshold_classifier(object(), sheet, [[0.0]], ["covid"])


def test_deprecated_names_warn_and_point_to_the_replacement() -> None:
    for old, new in (("MulticlassReport", "LabelReport"),
                     ("MulticlassCoverageResult", "LabelCoverageResult"),
                     ("multiclass_confusion", "label_confusion")):
        with pytest.warns(DeprecationWarning, match="use causalcost"):
            value = getattr(cc, old)
        assert value is getattr(cc, new)
    with pytest.warns(DeprecationWarning, match="coverage_experiment"):
        function = cc.multiclass_coverage
    assert function(3, n1=[20], n2=[20], repetitions=2, seed=0).frame.equals(
        cc.coverage_experiment(labels=3, n1=[20], n2=[20], repetitions=2, seed=0).frame)


def test_the_coverage_experiment_bounds_its_work() -> None:
    with pytest.raises(ValidationError, match="at most 10 labels"):
        cc.coverage_experiment(labels=50, n1=[10], n2=[10], repetitions=1)
    with pytest.raises(ValidationError, match="more work than one run does"):
        cc.coverage_experiment(labels=10, repetitions=1000)


# ------------------------------------------------------------------ backtest and importance
def test_backtest_real_costs_by_numpy_and_permuted_series(case) -> None:
    k, frame, sheet = case
    runs = runs_of(k, frame)
    permuted = frame["m1"].sample(frac=1, random_state=2)  # same rows, another order
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = cc.backtest(runs, {"cand": frame["cand"], "col": "cand2", "m1": permuted},
                             costs=costs_of(k))
        other = sheet_of(k, log(k, seed=11))
        with_sheet = cc.backtest(runs, {"cand": frame["cand"], "col": "cand2"}, sheet=other)
    f = result.to_frame()
    for name, column in (("cand", "cand"), ("col", "cand2"), ("m1", "m1")):
        assert f.loc[name, "real_cost"] == pytest.approx(real_cost(k, frame, column), rel=REL)
        n = counted(k, frame["truth"], frame[column])
        assert f.loc[name, "accuracy"] == pytest.approx(np.trace(n) / n.sum(), rel=REL)
    assert f["inside"].all()
    g = with_sheet.to_frame()
    assert g.loc["cand", "sheet_expected_cost"] == pytest.approx(
        cc.evaluate(other, counted(k, frame["truth"], frame["cand"])).eval1, rel=REL)
    assert (g["sheet_hc_worst_cost"] >= g["sheet_worst_cost"] - 1e-9).all()
    assert json.dumps(with_sheet.to_dict())
    shifted = frame["cand"].copy()
    shifted.index += 10_000
    with pytest.raises(DataError, match="index"):
        cc.backtest(runs, {"x": shifted}, costs=costs_of(k))
    with pytest.raises(ValidationError, match="two candidates are named '1'"):
        cc.backtest(runs, {1: "cand", "1": "cand2"}, costs=costs_of(k))


def test_slot_importance_versions_by_numpy(case) -> None:
    k, frame, sheet = case
    labels = labels_of(k)
    imp = cc.slot_importance(frame, truth="truth", models=["m1", "m2", "m3"],
                             fusioner="plurality", labels=labels, costs=costs_of(k))
    f = imp.to_frame()
    row = f.loc["m2"]
    assert row["as_is_cost"] == pytest.approx(real_cost(k, frame, "m2"), rel=REL)
    assert row["perfect_cost"] == pytest.approx(real_cost(k, frame, "truth"), rel=REL)
    for label in labels:
        constant = frame.assign(const=label)
        assert row[f"constant_{label}_cost"] == pytest.approx(
            real_cost(k, constant, "const"), rel=REL)
    assert np.isnan(row["removed_cost"]) and "m2" in imp.notes
    assert row["as_is_ci_low"] <= row["as_is_cost"] <= row["as_is_ci_high"]
    assert json.dumps(imp.to_dict())
    cc.draw_slot_importance(imp)


def test_label_noise_and_explorer_take_k_labels(case) -> None:
    """Label noise on a K-label sheet: the range over symmetric label noise holds the costs
    of the candidate corrected by each transition, priced independently with cc.evaluate."""
    k, frame, sheet = case
    n = counted(k, frame["truth"], frame["cand"])
    ts = [cc.LabelTransition.symmetric(a, labels_of(k)) for a in (1.0, 0.99)]
    r = cc.label_noise_range(sheet, n, transitions=ts)
    fixed = [np.linalg.solve(t.matrix.T, n) for t in ts]
    ok = [f for f in fixed if (f >= -1e-9).all()]
    worst = [cc.evaluate(sheet, cc.Confusion(np.maximum(f, 0), labels=labels_of(k))).worst_cost
             for f in ok]
    assert r.range_of("worst_cost") == (pytest.approx(min(worst), rel=REL),
                                        pytest.approx(max(worst), rel=REL))
    eye = np.eye(3)
    system = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["a", "b", "c"])
              .add_model("m1", confusion=0.8 * eye + 0.1 * (1 - eye))
              .add_model("m2", confusion=0.7 * eye + 0.15 * (1 - eye))
              .set_fusioner("plurality").build(slot="m2"))
    view = cc.explorer_view(system, cc.explorer_settings(system))
    np.testing.assert_allclose(view.table.to_numpy(),
                               cc.interventional_table(system).to_numpy(), atol=1e-12)


def test_two_labels_rank_as_the_binary_sheet_does() -> None:
    """K = 2 through the K-label route gives the binary route's numbers (positive first)."""
    frame = log(2)
    runs = runs_of(2, frame)
    costs = costs_of(2)
    f = np.asarray(runs.forced)
    forced = [cc.Confusion(tp=int(f[j, 0, 0]), fn=int(f[j, 0, 1]), fp=int(f[j, 1, 0]),
                           tn=int(f[j, 1, 1])) for j in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binary = cc.sheet_from_forced_runs(*forced, cc.CostMatrix(fn=costs[0, 1],
                                                                  fp=costs[1, 0]),
                                           slot="m2", description="test", assumption="none",
                                           monotonicity=None)
        general = cc.derive_sheet(runs, costs, kinds=False, assumption="none",
                                  created=CREATED)
        mats = {m: counted(2, frame["truth"], frame[m]) for m in ("m1", "cand", "cand2")}
        a = cc.compare(general, mats)
        b = cc.compare(binary, {m: cc.Confusion(*n.ravel().tolist()) for m, n in mats.items()})
    assert a.index.tolist() == b.index.tolist()
    for column in ("eval1", "eval2", "perfect_slot_cost", "worst_cost", "best_cost", "rank",
                   "accuracy"):
        np.testing.assert_allclose(a[column].to_numpy(dtype=float),
                                   b[column].to_numpy(dtype=float), rtol=1e-12)
