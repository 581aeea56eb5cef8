"""Judging a K-label score slot's candidates (K > 2): compare, evaluate, backtest and
system_scorer on score runs of K labels, each candidate one probability vector per row.

Independent computations: the system's decision ``argmax(A p + r)`` written out in numpy (and
scikit-learn's own ``VotingClassifier.predict`` inside ``ensemble_runs``); the expected cost
as the mean over every (candidate vector, instance) pair of the same class; the worst and best
case as the costliest and cheapest pairing over every permutation of a class's vectors
(``itertools.permutations``, classes of at most five rows); the candidate's own confusion by
``sklearn.metrics.confusion_matrix`` of the argmax; GridSearchCV's choice against a hand-made
loop over the same folds. Data: scikit-learn's wine set (no download) and random logs.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.score_runs import ScoreRuns
from causalcost.errors import DataError, ScoreValueError, ValidationError
from causalcost.evaluation.score_report import ScoreReport
from causalcost.pricing.score_vector_price import price_vectors
from causalcost.sheet.instances import FINGERPRINT_KEY

sklearn = pytest.importorskip("sklearn")

from sklearn.datasets import load_wine  # noqa: E402
from sklearn.ensemble import VotingClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import confusion_matrix  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

LABELS = ("a", "b", "c")
#: A cost matrix whose mistakes differ (rows the true class): which wrong label matters.
COSTS = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [6.0, 3.0, 0.0]])
TOL = 1e-9


# ------------------------------------------------------------------ independent oracles
def decide(matrix: np.ndarray, offsets: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The system's label per row: argmax(A p + r), first largest on ties."""
    return np.argmax(vectors @ np.asarray(matrix).T + offsets, axis=1)


def pair_cost(runs: ScoreRuns, c: int, off: np.ndarray, vec: np.ndarray,
              costs: np.ndarray) -> float:
    return float(costs[c, decide(runs.slot_matrix, off[None, :], vec[None, :])[0]])


def brute(runs: ScoreRuns, vectors: np.ndarray, costs: np.ndarray
          ) -> tuple[float, float, float]:
    """(expected, worst, best) on the runs' own rows: all pairs, all pairings per class."""
    expected = worst = best = 0.0
    for c in range(runs.k):
        offs = runs.offsets[runs.classes == c]
        vecs = vectors[runs.classes == c]
        if not len(vecs):
            continue
        grid = np.array([[pair_cost(runs, c, o, v, costs) for o in offs] for v in vecs])
        expected += grid.mean() * len(vecs)
        totals = [sum(grid[p[i], i] for i in range(len(offs)))
                  for p in itertools.permutations(range(len(vecs)))]
        worst += max(totals)
        best += min(totals)
    return expected, worst, best


def real_cost(runs: ScoreRuns, vectors: np.ndarray, costs: np.ndarray) -> float:
    said = decide(runs.slot_matrix, runs.offsets, vectors)
    return float(costs[runs.classes, said].sum())


def random_runs(rng: np.random.Generator, sizes: tuple[int, ...], weight: float) -> ScoreRuns:
    truth = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(truth)
    n, k = truth.size, len(sizes)
    others = rng.dirichlet(np.ones(k), size=(n, 2)).sum(axis=1)  # two other members
    observed = rng.dirichlet(np.ones(k), size=n)
    return ScoreRuns(slot="m", models=("x", "m", "z"), rule="soft vote", truth=truth,
                     critical=None, observed_scores=observed, labels=LABELS[:k],
                     offsets=others, matrix=weight * np.eye(k))


def vectors(rng: np.random.Generator, n: int, k: int, sharp: float) -> np.ndarray:
    return rng.dirichlet(np.full(k, sharp), size=n)


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def wine() -> dict[str, object]:
    """A fitted soft vote on half of the wine set, its runs on the other half (K = 3), and
    three candidates for the slot fitted on the first half."""
    x, y = load_wine(return_X_y=True)
    fit_x, fit_y, run_x, run_y = x[::2], y[::2], x[1::2], y[1::2]
    vote = VotingClassifier([("lr", make_pipeline(StandardScaler(), LogisticRegression())),
                             ("nb", GaussianNB()),
                             ("dt", DecisionTreeClassifier(max_depth=3, random_state=0))],
                            voting="soft").fit(fit_x, fit_y)
    runs = cc.ensemble_runs(vote, run_x, run_y, slot="nb")
    cands = {f"C={c:g}": make_pipeline(StandardScaler(), LogisticRegression(C=c))
             .fit(fit_x, fit_y).predict_proba(run_x) for c in (1e-3, 0.03, 1.0)}
    cands["nb"] = GaussianNB().fit(fit_x, fit_y).predict_proba(run_x)
    return {"runs": runs, "cands": cands, "fit": (fit_x, fit_y), "run": (run_x, run_y)}


@pytest.fixture(scope="module")
def log_runs() -> tuple[ScoreRuns, pd.DataFrame]:
    """Runs of a mean of three models' vectors over labels a, b, c read from a log with an
    index of its own (so candidates' DataFrames are aligned on it)."""
    rng = np.random.default_rng(7)
    n = 40
    y = rng.choice(list(LABELS), size=n)
    columns: dict[str, object] = {"y": y}
    for model in ("m1", "m2", "m3"):
        v = rng.dirichlet(np.ones(3), size=n)
        v[np.arange(n), [LABELS.index(t) for t in y]] += rng.random(n)
        v /= v.sum(axis=1, keepdims=True)
        columns.update({f"{model}_{label}": v[:, i] for i, label in enumerate(LABELS)})
    frame = pd.DataFrame(columns, index=[f"r{i}" for i in range(n)])
    runs = cc.forced_runs(frame, truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="mean", labels=list(LABELS),
                          scores={label: f"{{model}}_{label}" for label in LABELS})
    return runs, frame


# ------------------------------------------------------------------ compare
def test_compare_equals_runs_price_and_the_real_system(wine: dict) -> None:
    runs, cands = wine["runs"], wine["cands"]
    table = cc.compare(runs, scores=cands, costs=COSTS)
    assert runs.k == 3 and set(table.index) == set(cands)
    for name, v in cands.items():
        b = runs.price(v, COSTS)  # the runs' own pricing, the same instances
        row = table.loc[name]
        assert (row["eval1"], row["worst_cost"], row["best_cost"]) == \
            (b.expected_cost, b.worst_cost, b.best_cost)
        assert row["real_cost"] == runs.with_candidate(v).cost(COSTS)
        assert row["real_cost"] == pytest.approx(real_cost(runs, v, COSTS), abs=TOL)
        assert row["best_cost"] - TOL <= row["real_cost"] <= row["worst_cost"] + TOL
        own = confusion_matrix(runs.classes, np.argmax(v, axis=1), labels=range(3))
        assert row["accuracy"] == pytest.approx(np.trace(own) / own.sum())
        assert [row[f"n_{label}"] for label in runs.labels] == list(runs.class_sizes)
    key = list(zip(table["eval1"], table["worst_cost"]))
    assert key == sorted(key) and table["rank"].tolist()[0] == 1
    assert table.attrs["form"] == "same instances" and table.attrs["labels"] == [0, 1, 2]
    assert "real_cost" in repr(table) and "accuracy" in repr(table)


def test_compare_defaults_to_counting_errors(wine: dict) -> None:
    runs, cands = wine["runs"], wine["cands"]
    table = cc.compare(runs, scores=cands)
    for name, v in cands.items():
        assert table.loc[name, "eval1"] == runs.price(v).expected_cost
        errors = runs.with_candidate(v).to_numpy()
        assert table.loc[name, "real_cost"] == errors.sum() - np.trace(errors)


def test_other_rows_are_priced_in_the_probability_form(wine: dict) -> None:
    """Vectors made on other rows (their own y_true): no real cost, the probability form,
    and an expected cost equal to the mean over every (vector, instance) pair per class."""
    runs = wine["runs"]
    fit_x, fit_y = wine["fit"]
    run_x, run_y = wine["run"]
    # candidates fitted on the runs' half, scored on the fitting half: other rows
    other = {f"C={c:g}": make_pipeline(StandardScaler(), LogisticRegression(C=c))
             .fit(run_x, run_y).predict_proba(fit_x) for c in (0.01, 1.0)}
    table = cc.compare(runs, y_true=fit_y, scores=other, costs=COSTS)
    assert "real_cost" not in table.columns and table.attrs["form"] == "probability"
    for name, v in other.items():
        by_class = [v[fit_y == c] for c in range(3)]
        direct = price_vectors(runs.slot_matrix, runs.offsets_by_class, by_class, COSTS,
                               labels=runs.labels, same_instances=False)
        assert table.loc[name, "eval1"] == direct.expected_cost
        assert (table.loc[name, "worst_cost"], table.loc[name, "best_cost"]) == \
            (direct.worst_cost, direct.best_cost)
        pairs = 0.0
        for c in range(3):
            offs = runs.offsets[runs.classes == c]
            said = decide(runs.slot_matrix, np.repeat(offs, len(by_class[c]), axis=0),
                          np.tile(by_class[c], (len(offs), 1)))
            pairs += COSTS[c, said].mean() * len(by_class[c])
        assert table.loc[name, "eval1"] == pytest.approx(pairs, rel=1e-12)
        assert direct.best_cost - TOL <= pairs <= direct.worst_cost + TOL
    # the same candidate given with its own rows as a tuple: the same numbers
    mixed = cc.compare(runs, scores={"own": (fit_y, other["C=1"]), "here": wine["cands"]["nb"]},
                       costs=COSTS)
    assert mixed.attrs["form"] == "mixed"
    assert mixed.loc["own", "eval1"] == table.loc["C=1", "eval1"]
    assert math.isnan(mixed.loc["own", "real_cost"]) and not math.isnan(
        mixed.loc["here", "real_cost"])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.tuples(*[st.integers(0, 4)] * 3),
       weight=st.sampled_from([0.5, 1.0, 2.0]), sharp=st.sampled_from([0.3, 1.0, 5.0]))
def test_real_cost_lies_between_the_exact_best_and_worst(seed: int, sizes: tuple[int, ...],
                                                         weight: float, sharp: float) -> None:
    """Every pairing checked by brute force; the real system (numpy argmax) between them."""
    if sum(sizes) == 0:
        sizes = (1, 0, 0)
    rng = np.random.default_rng(seed)
    runs = random_runs(rng, sizes, weight)
    v = vectors(rng, runs.truth.size, 3, sharp)
    r = cc.evaluate(runs, scores=v, costs=COSTS)
    expected, worst, best = brute(runs, v, COSTS)
    assert r.eval1 == pytest.approx(expected, abs=TOL)
    assert (r.worst_cost, r.best_cost) == (pytest.approx(worst, abs=TOL),
                                           pytest.approx(best, abs=TOL))
    assert r.real_cost == pytest.approx(real_cost(runs, v, COSTS), abs=TOL)
    assert r.best_cost - TOL <= r.real_cost <= r.worst_cost + TOL
    assert r.worst is not None and r.worst.cost(r.costs) == pytest.approx(worst, abs=TOL)


@pytest.mark.parametrize("fusioner", ["max", "min"])
def test_max_and_min_fusions_are_priced_as_the_runs_price_them(fusioner: str) -> None:
    """Fusions that are not linear in the slot (per-label extremes): compare's numbers are
    runs.price's, the real system (with_candidate) lies between the exact cases, and the
    probability form brackets the mean over every (vector, instance) pair."""
    rng = np.random.default_rng(11)
    n = 36
    y = rng.choice(list(LABELS), size=n)
    columns: dict[str, object] = {"y": y}
    for model in ("m1", "m2", "m3"):
        v = rng.dirichlet(np.ones(3), size=n)
        columns.update({f"{model}_{label}": v[:, i] for i, label in enumerate(LABELS)})
    runs = cc.forced_runs(pd.DataFrame(columns), truth="y", models=["m1", "m2", "m3"],
                          slot="m2", fusioner=fusioner, labels=list(LABELS),
                          scores={label: f"{{model}}_{label}" for label in LABELS})
    assert runs.fusion == fusioner
    cands = {f"c{i}": rng.dirichlet(np.full(3, a), size=n) for i, a in enumerate((0.3, 3.0))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the ranking's warning is not under test here
        table = cc.compare(runs, scores=cands, costs=COSTS)
    for name, v in cands.items():
        b = runs.price(v, COSTS)
        row = table.loc[name]
        assert (row["eval1"], row["worst_cost"], row["best_cost"]) == \
            (b.expected_cost, b.worst_cost, b.best_cost)
        assert row["real_cost"] == runs.with_candidate(v).cost(COSTS)
        assert row["best_cost"] - TOL <= row["real_cost"] <= row["worst_cost"] + TOL
    other = cc.evaluate(runs, y_true=y[:20], scores=cands["c1"][:20], costs=COSTS)
    pairs = 0.0
    for c, label in enumerate(LABELS):
        mine = cands["c1"][:20][y[:20] == label]
        for p in mine:
            said = runs.with_candidate(np.tile(p, (n, 1))).to_numpy()[c]
            pairs += float(said @ COSTS[c]) / said.sum()
    assert other.eval1 == pytest.approx(pairs, rel=1e-12)
    assert other.best_cost - TOL <= other.eval1 <= other.worst_cost + TOL


# ------------------------------------------------------------------ evaluate
def test_evaluate_reports_every_table_for_k_labels(wine: dict) -> None:
    runs, v = wine["runs"], wine["cands"]["C=0.03"]
    r = cc.evaluate(runs, scores=v, costs=COSTS)
    assert isinstance(r, ScoreReport) and r.k == 3 and r.form == "same instances"
    own = confusion_matrix(runs.classes, np.argmax(v, axis=1), labels=range(3))
    assert r.model is not None and r.model.to_numpy().tolist() == own.tolist()
    assert r.real is not None and r.real.to_numpy().tolist() == \
        runs.with_candidate(v).to_numpy().tolist()
    assert r.real_cost == runs.with_candidate(v).cost(COSTS)
    b = runs.price(v, COSTS)
    assert (r.eval1, r.worst_cost, r.best_cost) == (b.expected_cost, b.worst_cost, b.best_cost)
    frame = r.to_frame()
    assert frame.index.get_level_values("table").unique().tolist() == \
        ["candidate", "worst", "expected", "best", "real"]
    assert frame.loc["candidate"].to_numpy().tolist() == own.tolist()
    assert frame.attrs["real_cost"] == r.real_cost
    data = json.loads(json.dumps(r.to_dict()))
    assert data["labels"] == [0, 1, 2] and data["model"] == own.tolist()
    assert data["worst"]["cost"] == r.worst_cost
    assert np.array(data["worst"]["matrix"]).sum(axis=1).tolist() == list(runs.class_sizes)
    assert data["real"]["matrix"] == r.real.to_numpy().astype(int).tolist()
    assert data["costs"] == COSTS.tolist() and data["class_sizes"] == {"0": 29, "1": 36,
                                                                       "2": 24}
    assert f"real_cost={r.real_cost:g}" in repr(r) and "n={0: 29" in repr(r)
    text = str(r)
    assert "real system cost with the candidate plugged in" in text and "candidate" in text


def test_evaluate_on_other_rows_has_costs_without_confusions(wine: dict) -> None:
    runs = wine["runs"]
    fit_x, fit_y = wine["fit"]
    v = GaussianNB().fit(*wine["run"]).predict_proba(fit_x)
    r = cc.evaluate(runs, (fit_y, v), costs=COSTS)
    assert r.form == "probability" and r.worst is None and r.best is None
    assert r.real is None and r.real_cost is None and r.how == "not-declared"
    assert r.best_cost - TOL <= r.eval1 <= r.worst_cost + TOL
    data = json.loads(json.dumps(r.to_dict()))
    assert data["worst"] == {"matrix": None, "cost": r.worst_cost} and "real" not in data
    assert r.to_frame().index.get_level_values("table").unique().tolist() == \
        ["candidate", "expected"]
    assert any("probability form" in w for w in r.warnings)


def test_frames_are_read_by_label_name_and_aligned_on_the_index(
        log_runs: tuple[ScoreRuns, pd.DataFrame]) -> None:
    runs, frame = log_runs
    v = frame[[f"m1_{label}" for label in LABELS]].to_numpy()
    as_frame = pd.DataFrame(v, index=frame.index, columns=list(LABELS))
    shuffled = as_frame[["c", "a", "b"]].iloc[::-1]  # other column order, rows reversed
    table = cc.compare(runs, scores={"array": v, "frame": shuffled}, costs=COSTS)
    first, second = table.loc["array"], table.loc["frame"]
    assert first[["eval1", "worst_cost", "best_cost", "real_cost"]].tolist() == \
        second[["eval1", "worst_cost", "best_cost", "real_cost"]].tolist()
    # truth as a Series on other rows: the vectors' DataFrame aligned on its index
    y = frame["y"].iloc[::-1]
    a = cc.evaluate(runs, y_true=y, scores=shuffled, costs=COSTS)
    b = cc.evaluate(runs, y_true=frame["y"], scores=v, costs=COSTS)
    assert (a.eval1, a.worst_cost, a.best_cost) == (b.eval1, b.worst_cost, b.best_cost)


# ------------------------------------------------------------------ bad inputs
def bad_inputs(frame: pd.DataFrame) -> list[tuple[object, str]]:
    v = frame[[f"m1_{label}" for label in LABELS]].to_numpy()
    nan = v.copy()
    nan[3, 1] = np.nan
    loose = v.copy()
    loose[5] = [0.5, 0.4, 0.3]
    return [(v[:, :2], "2 columns for the K = 3 labels"),
            (pd.DataFrame(v, index=frame.index, columns=["a", "b", "x"]),
             "no column for the label 'c'"),
            (nan, "scores['bad']['b']"),
            (loose, "row 'r5' sums to")]


def test_bad_vectors_raise_naming_the_candidate_and_the_cell(
        log_runs: tuple[ScoreRuns, pd.DataFrame]) -> None:
    runs, frame = log_runs
    for value, where in bad_inputs(frame):
        with pytest.raises(ScoreValueError) as info:
            cc.compare(runs, scores={"good": frame[[f"m3_{x}" for x in LABELS]].to_numpy(),
                                     "bad": value})
        assert "scores['bad']" in str(info.value) and where in str(info.value)
        with pytest.raises(ScoreValueError, match="candidates\\['bad'\\]"):
            cc.backtest(runs, {"bad": value}, costs=COSTS)
        with pytest.raises(ScoreValueError, match="scores"):
            cc.evaluate(runs, scores=value)
    with pytest.raises(ScoreValueError, match="row 'r3' is missing"):
        cc.evaluate(runs, scores=bad_inputs(frame)[2][0])


def test_refusals_name_the_fix(wine: dict, log_runs: tuple[ScoreRuns, pd.DataFrame]) -> None:
    runs, v = wine["runs"], wine["cands"]["nb"]
    with pytest.raises(ValidationError, match="confidence"):
        cc.compare(runs, scores={"nb": v}, confidence=0.9)
    with pytest.raises(ValidationError, match="positive="):
        cc.evaluate(runs, scores=v, positive=1)
    with pytest.raises(ValidationError, match="score runs know their own rows"):
        cc.evaluate(runs, y_true=wine["run"][1], scores=v, same_instances=True)
    with pytest.raises(ValidationError, match="record no fingerprint"):
        cc.evaluate(runs, scores=v, row_fingerprint="abc")
    with pytest.raises(ValidationError, match="threshold="):
        cc.backtest(runs, {"nb": v}, costs=COSTS, threshold=0.5)
    with pytest.raises(ValidationError, match="needs costs="):
        cc.backtest(runs, {"nb": v})
    with pytest.raises(ValidationError, match="criterion must be one of expected, worst, "
                                              "high_confidence_worst, got 'cheapest'"):
        cc.system_scorer(runs, "cheapest")
    log, frame = log_runs
    with pytest.raises(DataError, match="'d'.*system's labels"):  # outside the system's
        cc.evaluate(log, y_true=["d"] + frame["y"].tolist()[1:],
                    scores=frame[[f"m1_{x}" for x in LABELS]].to_numpy())


class DuckSheet:
    """A K-label score sheet as the judges see it (the surface ScoreRuns shares): the runs'
    offsets per class, the slot's matrix, costs, and ``price(vectors, same_instances=)``."""

    def __init__(self, runs: ScoreRuns, costs: np.ndarray) -> None:
        self.runs, self.costs = runs, cc.CostMatrix(costs, labels=runs.labels)
        self.labels, self.k, self.slot, self.rule = runs.labels, runs.k, runs.slot, runs.rule
        self.offsets_by_class, self.slot_matrix = runs.offsets_by_class, runs.slot_matrix
        self.score_range, self.digest = runs.score_range, "f" * 64
        self.provenance = {"source": "data", FINGERPRINT_KEY: "abc"}

    def price(self, vectors: object, *, same_instances: bool = False) -> object:
        return price_vectors(self.slot_matrix, self.offsets_by_class, vectors, self.costs,
                             labels=self.labels, same_instances=same_instances)


def test_a_k_label_sheet_is_judged_through_its_price(wine: dict) -> None:
    """No rows to plug into: y_true is needed; declared or fingerprinted candidates are the
    same instances (runs.price's numbers), others the probability form; costs are the
    sheet's."""
    runs, cands = wine["runs"], wine["cands"]
    sheet = DuckSheet(runs, COSTS)
    y = runs.classes  # the runs' rows, in their order (labels 0, 1, 2 are the positions)
    with pytest.raises(ValidationError, match="y_true"):
        cc.compare(sheet, scores=cands)
    with pytest.raises(ValidationError, match="its own costs"):
        cc.compare(sheet, y_true=y, scores=cands, costs=np.ones((3, 3)) - np.eye(3))
    table = cc.compare(sheet, y_true=y, scores=cands, same_instances=["nb"])
    assert table.attrs["form"] == "mixed" and table.attrs["sheet_sha256"] == "f" * 64
    assert "real_cost" not in table.columns
    b = runs.price(cands["nb"], COSTS)
    assert table.loc["nb", ["eval1", "worst_cost", "best_cost"]].tolist() == \
        [b.expected_cost, b.worst_cost, b.best_cost]
    r = cc.evaluate(sheet, y_true=y, scores=cands["nb"], row_fingerprint="abc")
    assert (r.how, r.worst_cost, r.best_cost) == ("fingerprint", b.worst_cost, b.best_cost)
    other = cc.evaluate(sheet, y_true=y, scores=cands["nb"], row_fingerprint="xyz")
    assert other.how == "fingerprint-differs" and other.worst is None
    assert other.best_cost - TOL <= other.eval1 <= other.worst_cost + TOL
    scorer = cc.system_scorer(sheet, "worst")
    x, _ = wine["run"]
    model = GaussianNB().fit(*wine["fit"])
    direct = sheet.price([model.predict_proba(x)[y == c] for c in range(3)])
    assert scorer(model, x, y) == -direct.worst_cost


def test_binary_sheet_route_is_unchanged() -> None:
    from causalcost.data.score_runs import score_runs

    runs = score_runs(np.array([[0.9, 0.6], [0.3, 0.5], [0.2, 0.1], [0.6, 0.7]]),
                      truth=[1, 1, 0, 0], slot=1)
    sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    with pytest.raises(ValidationError, match="its own costs"):
        cc.evaluate(sheet, y_true=[1, 1, 0, 0], scores=[0.8, 0.2, 0.1, 0.9], costs=COSTS)
    r = cc.evaluate(sheet, y_true=[1, 1, 0, 0], scores=[0.8, 0.2, 0.1, 0.9])
    assert (r.eval1, r.worst_cost, r.best_cost) == (3.5, 6.0, 1.0)  # score_judge's doctest
    assert r.model is None and r.real_cost is None
    assert "model" not in r.to_dict() and "real" not in r.to_dict()
    assert r.to_frame().index.tolist() == ["worst", "expected", "best"]


def test_two_label_runs_take_the_same_calls() -> None:
    """Score runs of two labels: compare / evaluate / system_scorer price through the runs'
    own exact sheet (the numbers of the sheet route with same_instances=True), with the real
    system's cost between the exact cases; scores as a Series align on the log's index."""
    from sklearn.linear_model import LogisticRegression as LR

    rng = np.random.default_rng(5)
    n = 60
    y = rng.random(n) < 0.4
    log = pd.DataFrame(np.clip(rng.normal(0.4, 0.2, (n, 3)) + 0.3 * y[:, None], 0, 1),
                       columns=["a", "b", "c"], index=[f"r{i}" for i in range(n)])
    log["y"] = y
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    costs = cc.CostMatrix(fn=5, fp=1)
    cands = {"sharp": np.where(y, 0.8, 0.2), "noisy": rng.random(n)}
    sheet = cc.sheet_from_data(runs, costs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = cc.compare(runs, scores=cands, costs=costs)
        expected = cc.compare(sheet, y_true=y, scores=cands, same_instances=True)
    for name, s in cands.items():
        assert table.loc[name, ["eval1", "worst_cost", "best_cost"]].tolist() == \
            expected.loc[name, ["eval1", "worst_cost", "best_cost"]].tolist()
        real = runs.with_candidate(s).cost(costs)
        assert table.loc[name, "real_cost"] == real
        assert table.loc[name, "best_cost"] <= real <= table.loc[name, "worst_cost"]
    assert "score runs' own rows" in table.attrs["instances"]
    shuffled = pd.Series(cands["noisy"], index=log.index).iloc[::-1]
    r = cc.evaluate(runs, scores=shuffled, costs=costs)
    assert (r.eval1, r.real_cost) == (table.loc["noisy", "eval1"],
                                      table.loc["noisy", "real_cost"])
    assert r.to_dict()["real"]["cost"] == r.real_cost and "real" in r.to_frame().index
    other = cc.evaluate(runs, (y[:30], cands["noisy"][:30]), costs=costs)
    assert other.form == "probability" and other.real_cost is None
    x = rng.normal(size=(n, 2)) + y[:, None]
    model = LR().fit(x, y)
    assert cc.system_scorer(runs, costs=costs)(model, x, y) == \
        cc.system_scorer(sheet)(model, x, y)
    with pytest.raises(ValidationError, match="score runs know their own rows"):
        cc.compare(runs, y_true=y, scores=cands, same_instances=True)


# ------------------------------------------------------------------ backtest
def test_backtest_puts_real_costs_between_the_exact_cases(wine: dict) -> None:
    runs, cands = wine["runs"], wine["cands"]
    result = cc.backtest(runs, cands, costs=COSTS)
    frame = result.to_frame()
    assert frame["inside"].all()
    for name, v in cands.items():
        assert frame.loc[name, "real_cost"] == pytest.approx(real_cost(runs, v, COSTS))
        b = runs.price(v, COSTS)
        assert frame.loc[name, ["expected_cost", "worst_cost", "best_cost"]].tolist() == \
            [b.expected_cost, b.worst_cost, b.best_cost]
        own = confusion_matrix(runs.classes, np.argmax(v, axis=1), labels=range(3))
        assert result.models[name].tolist() == own.tolist()
    summary = result.summary
    cheapest = frame["real_cost"].min()
    assert summary.loc["expected", "pick"] == frame["expected_cost"].idxmin()
    assert summary.loc["expected", "pick_real_cost"] >= cheapest
    data = json.loads(json.dumps(result.to_dict()))
    assert data["costs"] == COSTS.tolist() and len(data["candidates"]) == len(cands)
    assert "lowest real system cost" in repr(result)


# ------------------------------------------------------------------ system_scorer
def test_grid_search_picks_the_lowest_system_cost(wine: dict) -> None:
    """The scorer inside GridSearchCV against a hand-made loop over the same folds: the mean
    expected system cost per C (the probability form on each fold), and the argmin."""
    runs = wine["runs"]
    x, y = wine["fit"]
    grid = [1e-3, 0.03, 1.0]
    estimator = make_pipeline(StandardScaler(), LogisticRegression())
    search = GridSearchCV(estimator, {"logisticregression__C": grid}, cv=3,
                          scoring=cc.system_scorer(runs, costs=COSTS)).fit(x, y)
    folds = list(StratifiedKFold(3).split(x, y))
    means = []
    for c in grid:
        costs = []
        for train, test in folds:
            model = make_pipeline(StandardScaler(), LogisticRegression(C=c)).fit(x[train],
                                                                                 y[train])
            p = model.predict_proba(x[test])
            by_class = [p[y[test] == k] for k in range(3)]
            costs.append(price_vectors(runs.slot_matrix, runs.offsets_by_class, by_class,
                                       COSTS, labels=runs.labels,
                                       same_instances=False).expected_cost)
        means.append(float(np.mean(costs)))
    np.testing.assert_allclose(-search.cv_results_["mean_test_score"], means, rtol=1e-12)
    assert search.best_params_["logisticregression__C"] == grid[int(np.argmin(means))]
    assert len(set(np.round(means, 9))) == 3  # the grid's costs differ: the pick means something


def test_scorer_matches_labels_through_classes(log_runs: tuple[ScoreRuns, pd.DataFrame]
                                               ) -> None:
    """String labels, an estimator fitted on two of the three classes (probability 0 for the
    third), and the worst-case criterion."""
    runs, frame = log_runs
    x = frame[[f"m1_{label}" for label in LABELS]].to_numpy()
    y = frame["y"].to_numpy()
    keep = y != "b"
    model = LogisticRegression().fit(x[keep], y[keep])
    scorer = cc.system_scorer(runs, "worst", costs=COSTS)
    p = model.predict_proba(x)
    full = np.column_stack([p[:, 0], np.zeros(len(y)), p[:, 1]])
    by_class = [full[y == label] for label in LABELS]
    direct = price_vectors(runs.slot_matrix, runs.offsets_by_class, by_class, COSTS,
                           labels=runs.labels, same_instances=False)
    assert scorer(model, x, y) == -direct.worst_cost
    odd = LogisticRegression().fit(x, np.where(y == "a", "z", y))
    with pytest.raises(ValidationError, match="'z'"):
        scorer(odd, x, y)
    assert "VectorScorer" in repr(scorer)
    again = pickle.loads(pickle.dumps(scorer))  # GridSearchCV(n_jobs=...) pickles scorers
    assert again(model, x, y) == scorer(model, x, y)


def test_the_scorer_guards_with_the_high_confidence_worst_case(wine: dict) -> None:
    runs = wine["runs"]
    fit_x, fit_y = wine["fit"]
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.03)).fit(fit_x, fit_y)
    x, y = fit_x[:60], fit_y[:60]  # rows other than the runs'
    worst = cc.system_scorer(runs, "worst")(model, x, y)
    high = cc.system_scorer(runs, "high_confidence_worst", confidence=0.8)(model, x, y)
    bound = cc.evaluate(runs, (y, model.predict_proba(x)), confidence=0.8)
    assert high == pytest.approx(-bound.high_confidence_worst_cost, rel=1e-12)
    assert high <= worst
