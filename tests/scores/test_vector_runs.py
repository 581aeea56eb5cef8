"""K-label score slots checked end to end: ensembles, logs, prices (issue 30's checks).

Independent checks: scikit-learn's own ``predict`` of the fitted K-class ensemble (0
disagreements with ``argmax(A p + r)`` at the observed vectors, exact ties included) and the
real intervention (the fitted ensemble with the slot's estimator replaced by a candidate,
through scikit-learn's ``predict``); the same-instance worst and best against brute force over
every pairing (all permutations within each class, each priced by the real decision
``decide_rows``), the expected cost against the average over all pairs; K = 2 against the
binary critical-score route; every engine against numpy; the real cost of random ensembles'
candidates inside [best, worst]. Data: scikit-learn's wine and iris sets and
``make_classification`` (no download).
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import causalcost as cc
from causalcost.data.score_runs import ScoreRuns
from causalcost.data.score_vector_log import vector_runs
from causalcost.errors import DataError, InputTypeError, ScoreValueError, ValidationError
from causalcost.pricing.score_vector_price import price_vectors
from causalcost.pricing.score_vectors import decide, decide_rows

sklearn = pytest.importorskip("sklearn")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.datasets import load_iris, load_wine, make_classification  # noqa: E402
from sklearn.dummy import DummyClassifier  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    RandomForestClassifier,
    StackingClassifier,
    VotingClassifier,
)
from sklearn.linear_model import LogisticRegression, RidgeClassifier  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

REL = 1e-12


# ------------------------------------------------------------------------------- helpers
def data_set(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_fit, x_log, y_fit, y_log): every other row fits, the rest is the log (wine's
    features standardized: a passthrough meta-model sees them raw)."""
    if name.startswith("wine"):
        x, y = load_wine(return_X_y=True)
        if name == "wine":
            x = (x - x.mean(axis=0)) / x.std(axis=0)
    elif name == "iris":
        x, y = load_iris(return_X_y=True)
    else:
        x, y = make_classification(n_samples=240, n_features=8, n_informative=5,
                                   n_classes=4, n_clusters_per_class=1, random_state=4)
    return x[::2], x[1::2], y[::2], y[1::2]


def members() -> list[tuple[str, Any]]:
    return [("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
            ("nb", GaussianNB()),
            ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]


def candidates(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Fitted candidates: smooth probabilities, pure tree leaves (0/1 vectors: ties) and a
    2-neighbour vote (0.5/0.5 ties)."""
    found = {"weak_lr": make_pipeline(StandardScaler(), LogisticRegression(C=0.02,
                                                                           max_iter=2000)),
             "nb": GaussianNB(var_smoothing=1e-2),
             "deep_tree": DecisionTreeClassifier(random_state=1),
             "knn2": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=2))}
    return {name: c.fit(x, y) for name, c in found.items()}


def positions(values: np.ndarray, labels: tuple[Any, ...]) -> np.ndarray:
    return np.array([labels.index(v.item() if isinstance(v, np.generic) else v)
                     for v in values])


def confusion(truth: np.ndarray, said: np.ndarray, labels: tuple[Any, ...]) -> cc.Confusion:
    """The K x K confusion counted by hand (rows the true class)."""
    cells = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(cells, (truth, said), 1)
    return cc.Confusion(matrix=cells.tolist(), labels=labels)


def replaced(ensemble: Any, slot: str, candidate: Any) -> Any:
    """The real intervention: the fitted ensemble with the slot's estimator replaced."""
    names = [n for n, e in ensemble.estimators if not (isinstance(e, str) and e == "drop")]
    real = copy.copy(ensemble)
    real.estimators_ = [candidate if n == slot else e
                        for n, e in zip(names, ensemble.estimators_)]
    return real


def check_ensemble(ens: Any, runs: ScoreRuns, slot: str, x: np.ndarray, y: np.ndarray,
                   cands: dict[str, Any]) -> None:
    """0 disagreements with predict; the slot's own vectors give the ensemble's confusion;
    each candidate's with_candidate is the real intervention's confusion, inside the price."""
    labels = runs.labels
    assert labels == tuple(ens.classes_.tolist()) and runs.k == len(labels) > 2
    truth = positions(y, labels)
    said = positions(ens.predict(x), labels)
    ours = decide_rows(runs.slot_matrix, runs.offsets, runs.observed_scores)
    assert int((ours != said).sum()) == 0  # every row, ties included
    assert np.array_equal(runs.classes, truth)
    own = ens.named_estimators_[slot].predict_proba(x)
    assert np.array_equal(runs.observed_scores, own)
    observed = confusion(truth, said, labels)
    assert runs.observed == observed
    assert runs.with_candidate(own) == observed  # the member's own vectors: the ensemble
    assert isinstance(runs.adjusted, int) and 0 <= runs.adjusted <= 2  # near-ties moved
    costs = np.array([[0, 1, 4, 2][:len(labels)] for _ in labels], dtype=float)
    costs[np.arange(len(labels)), np.arange(len(labels))] = 0
    costs += np.eye(len(labels))[::-1] * 3  # uneven off-diagonal costs
    np.fill_diagonal(costs, 0)
    for name, cand in cands.items():
        p = cand.predict_proba(x)
        real = positions(replaced(ens, slot, cand).predict(x), labels)
        assert runs.with_candidate(p) == confusion(truth, real, labels), name
        b = runs.price(p, costs)
        real_cost = confusion(truth, real, labels).cost(cc.CostMatrix(costs, labels=labels))
        assert b.best_cost - 1e-9 <= real_cost <= b.worst_cost + 1e-9, name
        assert b.best_cost - 1e-9 <= b.expected_cost <= b.worst_cost + 1e-9, name


# ---------------------------------------------------------------------- real ensembles
@pytest.fixture(scope="module", params=["wine", "iris", "four"])
def split(request: pytest.FixtureRequest) -> tuple[Any, ...]:
    x_fit, x_log, y_fit, y_log = data_set(request.param)
    return x_fit, x_log, y_fit, y_log, candidates(x_fit, y_fit)


@pytest.mark.parametrize("weights", [None, [2.0, 1.0, 0.5]])
def test_soft_voting_agrees_with_predict_and_real_interventions(split: tuple,
                                                                weights: Any) -> None:
    x_fit, x_log, y_fit, y_log, cands = split
    vote = VotingClassifier(members(), voting="soft", weights=weights).fit(x_fit, y_fit)
    for slot in ("lr", "nb", "tree"):
        runs = cc.ensemble_runs(vote, x_log, y_log, slot=slot)
        w = 1.0 if weights is None else weights[["lr", "nb", "tree"].index(slot)]
        assert np.array_equal(runs.slot_matrix, w * np.eye(runs.k))
        check_ensemble(vote, runs, slot, x_log, y_log, cands)


@pytest.mark.parametrize("final", ["logistic", "logistic_passthrough", "ridge"])
def test_linear_stacking_agrees_with_predict_and_real_interventions(split: tuple,
                                                                    final: str) -> None:
    x_fit, x_log, y_fit, y_log, cands = split
    meta = RidgeClassifier(alpha=0.5) if final == "ridge" else LogisticRegression(max_iter=5000)
    stack = StackingClassifier(members(), final_estimator=meta, cv=3,
                               stack_method="predict_proba",
                               passthrough=final.endswith("passthrough")).fit(x_fit, y_fit)
    for slot in ("nb", "tree"):
        runs = cc.ensemble_runs(stack, x_log, y_log, slot=slot)
        pos = ["lr", "nb", "tree"].index(slot)
        k = runs.k
        assert np.array_equal(runs.slot_matrix, stack.final_estimator_.coef_[:, pos * k:
                                                                             (pos + 1) * k])
        check_ensemble(stack, runs, slot, x_log, y_log, cands)


# ------------------------------------------------------------------------------- ties
def test_exact_ties_in_the_soft_vote_go_to_the_first_class() -> None:
    """A 2-neighbour vote (0.5/0.5 on many rows), a uniform dummy (1/K each) and a
    4-neighbour vote on wine's raw features: the fused vectors tie exactly on 10 of 89 rows;
    the offsets agree with predict there, the slot's own vectors give the
    ensemble's confusion, and the uniform vector forced in the slot is the real ensemble with
    a uniform dummy there."""
    x_fit, x_log, y_fit, y_log = data_set("wine_raw")
    vote = VotingClassifier([("knn", KNeighborsClassifier(n_neighbors=2)),
                             ("uniform", DummyClassifier(strategy="uniform", random_state=0)),
                             ("knn4", KNeighborsClassifier(n_neighbors=4))],
                            voting="soft").fit(x_fit, y_fit)
    avg = np.average(vote._collect_probas(x_log), axis=0)
    top = np.sort(avg, axis=1)
    assert int((top[:, -1] == top[:, -2]).sum()) >= 5  # the case under test occurs
    cands = {"uniform": DummyClassifier(strategy="uniform").fit(x_fit, y_fit),
             "prior": DummyClassifier(strategy="prior").fit(x_fit, y_fit),
             **candidates(x_fit, y_fit)}
    for slot in ("knn", "uniform", "knn4"):
        runs = cc.ensemble_runs(vote, x_log, y_log, slot=slot)
        check_ensemble(vote, runs, slot, x_log, y_log, cands)
        forced = runs.forced_at(np.full(runs.k, 1.0 / runs.k))  # the uniform vector
        real = replaced(vote, slot, cands["uniform"]).predict(x_log)
        assert forced == confusion(runs.classes, positions(real, runs.labels), runs.labels)


def test_exact_ties_in_a_stacking_of_dummies() -> None:
    """Prior and uniform dummies stacked by a logistic model: every row's decision is the
    same near-flat argmax; the slot's own vectors give the ensemble's confusion."""
    x_fit, x_log, y_fit, y_log = data_set("iris")
    stack = StackingClassifier([("prior", DummyClassifier(strategy="prior")),
                                ("knn", KNeighborsClassifier(n_neighbors=2)),
                                ("uniform", DummyClassifier(strategy="uniform"))],
                               final_estimator=LogisticRegression(max_iter=5000), cv=3,
                               stack_method="predict_proba").fit(x_fit, y_fit)
    for slot in ("prior", "knn"):
        runs = cc.ensemble_runs(stack, x_log, y_log, slot=slot)
        check_ensemble(stack, runs, slot, x_log, y_log, candidates(x_fit, y_fit))


# --------------------------------------------------------------------------- refusals
def test_a_non_linear_meta_model_is_refused_naming_the_fix() -> None:
    x_fit, x_log, y_fit, y_log = data_set("wine")
    stack = StackingClassifier(members(), cv=3, stack_method="predict_proba",
                               final_estimator=RandomForestClassifier(n_estimators=5,
                                                                      random_state=0)
                               ).fit(x_fit, y_fit)
    with pytest.raises(ValidationError, match=r"RandomForestClassifier is not a linear model"
                                              r".*use a linear final_estimator"):
        cc.ensemble_runs(stack, x_log, y_log, slot="nb")


def test_a_slot_stacked_by_its_decision_function_is_refused() -> None:
    x_fit, x_log, y_fit, y_log = data_set("iris")
    stack = StackingClassifier([("svm", make_pipeline(StandardScaler(), LinearSVC())),
                                ("nb", GaussianNB())], cv=3,
                               final_estimator=LogisticRegression(max_iter=5000)
                               ).fit(x_fit, y_fit)
    assert stack.stack_method_[0] == "decision_function"
    with pytest.raises(ValidationError, match=r"slot 'svm' enters the meta-model through "
                                              r"decision_function.*stack_method="
                                              r"'predict_proba'"):
        cc.ensemble_runs(stack, x_log, y_log, slot="svm")
    runs = cc.ensemble_runs(stack, x_log, y_log, slot="nb")  # the other slot is priced
    assert runs.k == 3


def test_labels_outside_the_classes_are_refused() -> None:
    x_fit, x_log, y_fit, y_log = data_set("wine")
    vote = VotingClassifier(members(), voting="soft").fit(x_fit, y_fit)
    bad = y_log.copy()
    bad[3] = 7
    with pytest.raises(DataError, match=r"truth: column 'y' holds 7 \(1 row\(s\)\), not among "
                                        r"the labels \[0, 1, 2\]; give y with the labels the "
                                        r"ensemble was fitted on"):
        cc.ensemble_runs(vote, x_log, bad, slot="nb")


# ---------------------------------------------------------- worst / best: brute force
def brute_force(runs: ScoreRuns, vectors: np.ndarray, costs: np.ndarray
                ) -> tuple[float, float, float]:
    """Worst, best over every pairing within each class (every permutation, priced by the
    real decision row by row) and the expected cost (the mean over all pairs)."""
    worst = best = expected = 0.0
    for c, (off, vec) in enumerate(zip(runs.offsets_by_class, runs.candidate_by_class(vectors))):
        n = off.shape[0]
        if n == 0:
            continue
        perms = np.array(list(itertools.permutations(range(n))))
        said = decide_rows(runs.slot_matrix, np.tile(off, (len(perms), 1)),
                           vec[perms.ravel()]).reshape(len(perms), n)
        totals = costs[c, said].sum(axis=1)
        worst += max(totals)
        best += min(totals)
        expected += costs[c, decide(runs.slot_matrix, off, vec)].sum() / n
    return worst, best, expected


def random_runs(rng: np.random.Generator, k: int, sizes: list[int], general: bool
                ) -> tuple[ScoreRuns, np.ndarray]:
    """K-label runs of a random soft vote (offsets on a coarse grid: many ties) or of a
    random linear meta-model (general A), and a candidate's vectors on the same rows."""
    truth = np.repeat(np.arange(k), sizes)
    rng.shuffle(truth)
    n = truth.size

    def safe(v: np.ndarray) -> np.ndarray:
        empty = v.sum(axis=1) == 0
        v[empty] = 1.0
        return v / v.sum(axis=1, keepdims=True)

    obs = safe(rng.choice([0.0, 1.0, 2.0, 3.0], size=(n, k)))
    cand = safe(rng.choice([0.0, 1.0, 2.0, 3.0], size=(n, k)))
    if general:
        matrix = np.round(rng.normal(1.0, 0.6, (k, k)), 1)
        offsets = np.round(rng.normal(0.0, 0.5, (n, k)), 1)
    else:
        matrix = float(rng.choice([0.5, 1.0, 2.0])) * np.eye(k)
        offsets = np.round(safe(rng.choice([0.0, 1.0, 2.0], size=(n, k))) * 2, 2)
    labels = tuple(f"l{i}" for i in range(k))
    runs = ScoreRuns(slot="s", models=("s",), rule="random", truth=truth, critical=None,
                     observed_scores=obs, labels=labels, offsets=offsets, matrix=matrix)
    return runs, cand


def random_costs(rng: np.random.Generator, k: int) -> np.ndarray:
    """Zero diagonal, positive off-diagonal; half the time two values per row."""
    if rng.random() < 0.5:
        costs = np.repeat(rng.integers(1, 6, (k, 1)).astype(float), k, axis=1)
    else:
        costs = rng.integers(1, 9, (k, k)).astype(float) / 2
    np.fill_diagonal(costs, 0.0)
    return costs


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([3, 4]), st.integers(0, 2**31), st.booleans())
def test_worst_and_best_are_the_brute_force_over_every_pairing(k: int, seed: int,
                                                                general: bool) -> None:
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(0, 7 if k == 3 else 6, k)]
    sizes[int(rng.integers(k))] += 1  # at least one row
    runs, cand = random_runs(rng, k, sizes, general)
    costs = random_costs(rng, k)
    b = runs.price(cand, costs)
    worst, best, expected = brute_force(runs, cand, costs)
    assert b.worst_cost == pytest.approx(worst, rel=REL, abs=1e-12)
    assert b.best_cost == pytest.approx(best, rel=REL, abs=1e-12)
    assert b.expected_cost == pytest.approx(expected, rel=REL, abs=1e-12)
    cm = cc.CostMatrix(costs, labels=runs.labels)
    assert b.worst.cost(cm) == pytest.approx(worst, rel=REL, abs=1e-12)  # attained pairings
    assert b.best.cost(cm) == pytest.approx(best, rel=REL, abs=1e-12)
    assert b.worst.class_sizes == b.best.class_sizes == tuple(float(s) for s in runs.class_sizes)
    # the candidate's own pairing is one of them
    assert best - 1e-12 <= runs.with_candidate(cand).cost(cm) <= worst + 1e-12


# ----------------------------------------------------------- K = 2: the binary route
def test_two_labels_the_vector_way_equal_the_binary_route() -> None:
    """A binary soft vote priced by its critical scores (``cc.ensemble_runs``, price_scores)
    and the K-label way (offsets from ``vector_runs`` with vectors ``(p_P, p_N)``, A = w I,
    ``price_vectors``): expected, worst and best costs equal at rel 1e-12. Exact float ties
    are kept out (checked below): there the vector route's first label is P, while
    scikit-learn's argmax (and so the binary runs) gives classes_[0], N."""
    x, y = make_classification(n_samples=400, n_features=8, n_informative=4, random_state=7)
    x_fit, x_log, y_fit, y_log = x[::2], x[1::2], y[::2], y[1::2]
    weights = [1.0, 2.5, 0.7]
    mem = [("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
           ("nb", GaussianNB()), ("lr2", LogisticRegression(C=0.1, max_iter=2000))]
    vote = VotingClassifier(mem, voting="soft", weights=weights).fit(x_fit, y_fit)
    cand = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=2000)
                         ).fit(x_fit, y_fit).predict_proba(x_log)
    costs = cc.CostMatrix(fn=5, fp=1)  # labels (P, N): C[P, N] = fn, C[N, P] = fp
    c2 = np.asarray(costs.matrix, dtype=float)
    for pos, slot in enumerate(["lr", "nb", "lr2"]):
        binary = cc.ensemble_runs(vote, x_log, y_log, slot=slot)
        assert binary.adjusted == 0
        vecs = [np.asarray(e.predict_proba(x_log))[:, ::-1] for e in vote.estimators_]
        classes = np.where(y_log == 1, 0, 1)  # P (classes_[1]) is label 0
        runs = vector_runs(vecs, ["lr", "nb", "lr2"], classes, ("P", "N"), slot=pos,
                           weights=weights, index=None, rule="soft vote")
        off = [runs.offsets[classes == c] for c in (0, 1)]
        vec = [cand[:, ::-1][classes == c] for c in (0, 1)]
        a = runs.matrix
        # away from exact ties: every pair (instance, vector) of a class decided with room
        for o, v in zip(off, vec):
            z = (v @ a.T)[None, :, :] + o[:, None, :]
            assert float(np.abs(z[..., 0] - z[..., 1]).min()) > 1e-9
        k_way = price_vectors(a, off, vec, c2, labels=("P", "N"))
        b = binary.price(cand[:, 1], costs)
        for got, want in ((k_way.expected_cost, b.expected_cost),
                          (k_way.worst_cost, b.worst_cost), (k_way.best_cost, b.best_cost)):
            assert got == pytest.approx(want, rel=REL, abs=1e-12), slot
        assert k_way.worst.cost(costs) == pytest.approx(b.worst.cost(costs), rel=REL)
        assert np.allclose(np.asarray(k_way.expected.matrix), np.asarray(b.expected.matrix),
                           rtol=REL, atol=1e-12)
        said = decide_rows(a, runs.offsets, runs.observed_scores)
        assert np.array_equal(said == 0, binary.observed_scores >= binary.critical)


def test_a_binary_log_of_vectors_is_the_binary_route() -> None:
    """``forced_runs(labels=[P, N], scores={...})`` returns the binary runs; the K-label way
    (``vector_runs`` on the same columns) prices a candidate the same (rel 1e-12)."""
    rng = np.random.default_rng(11)
    n = 80
    frame = pd.DataFrame({"y": rng.choice(["yes", "no"], n)})
    vecs = []
    for m in ("a", "b", "c"):
        p = rng.random(n)
        frame[f"{m}_yes"], frame[f"{m}_no"] = p, 1.0 - p
        vecs.append(np.c_[p, 1.0 - p])
    kw = {"truth": "y", "models": ["a", "b", "c"], "slot": "b", "fusioner": "mean",
          "labels": ["yes", "no"], "scores": {"yes": "{model}_yes", "no": "{model}_no"},
          "weights": [1.0, 1.5, 0.5]}
    binary = cc.forced_runs(frame, **kw)
    assert binary.k == 2 and binary.critical is not None
    classes = np.where(frame["y"] == "yes", 0, 1)
    runs = vector_runs(vecs, ["a", "b", "c"], classes, ("yes", "no"), slot=1,
                       weights=[1.0, 1.5, 0.5], index=None, rule="soft vote")
    p = rng.random(n)
    cand = np.c_[p, 1.0 - p]
    costs = np.array([[0.0, 3.0], [1.0, 0.0]])
    k_way = price_vectors(runs.matrix, [runs.offsets[classes == c] for c in (0, 1)],
                          [cand[classes == c] for c in (0, 1)], costs, labels=("yes", "no"))
    b = binary.price(p, costs)
    for got, want in ((k_way.expected_cost, b.expected_cost),
                      (k_way.worst_cost, b.worst_cost), (k_way.best_cost, b.best_cost)):
        assert got == pytest.approx(want, rel=REL, abs=1e-12)


# -------------------------------------------------------------- logs on every engine
LABELS = ["cat", "dog", "emu"]
MODELS = ["m1", "m2", "m3"]
TEMPLATES = {label: "{model}_" + label for label in LABELS}
LOG: dict[str, Any] = {"truth": "y", "models": MODELS, "fusioner": "mean", "labels": LABELS}


def vector_log(n: int = 60, seed: int = 5) -> tuple[pd.DataFrame, list[np.ndarray]]:
    """Three models' probability vectors over three labels (a third of them on a coarse grid:
    ties), the truth a label per row."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"y": rng.choice(LABELS, n)})
    vecs = []
    for m in MODELS:
        v = rng.dirichlet(np.ones(3), n)
        grid = rng.random(n) < 0.35
        v[grid] = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [1.0, 0.0, 0.0]]
                           )[rng.integers(0, 3, int(grid.sum()))]
        vecs.append(v)
        for i, label in enumerate(LABELS):
            frame[f"{m}_{label}"] = v[:, i]
    return frame, vecs


def engines() -> dict[str, Any]:
    found: dict[str, Any] = {"pandas": lambda df, _: df, "polars": lambda df, _: pl.from_pandas(df),
                             "polars_lazy": lambda df, _: pl.from_pandas(df).lazy()}
    try:
        import duckdb
        import pyarrow as pa
        found["duckdb"] = lambda df, _: duckdb.from_arrow(pa.Table.from_pandas(
            df, preserve_index=False))
    except ImportError:  # pragma: no cover - an optional engine
        found["duckdb"] = None

    def csv(df: pd.DataFrame, tmp: Any) -> Any:
        path = tmp / "log.csv"
        df.to_csv(path, index=False, float_format="%.17g")
        return path

    found["csv"] = csv
    return found


ENGINES = engines()


@pytest.mark.parametrize("weights", [None, [1.0, 2.0, 0.5], {"m3": 0.5, "m1": 1.0, "m2": 2.0}])
@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_gives_the_numpy_runs(engine: str, weights: Any, tmp_path: Any) -> None:
    if ENGINES[engine] is None:
        pytest.skip(f"{engine} is not installed")
    frame, vecs = vector_log()
    runs = cc.forced_runs(ENGINES[engine](frame, tmp_path), truth="y", models=MODELS,
                          slot="m2", fusioner="mean", labels=LABELS, scores=TEMPLATES,
                          weights=weights)
    w = [1.0, 1.0, 1.0] if weights is None else \
        [weights[m] for m in MODELS] if isinstance(weights, dict) else weights
    truth = positions(frame["y"].to_numpy(), tuple(LABELS))
    want = vecs[0] * w[0] + vecs[2] * w[2]
    assert runs.k == 3 and runs.labels == tuple(LABELS)
    assert np.array_equal(runs.classes, truth)
    assert np.array_equal(runs.observed_scores, vecs[1])
    assert np.array_equal(runs.slot_matrix, w[1] * np.eye(3))
    assert np.array_equal(runs.offsets, want)
    fused = np.average(np.stack(vecs), axis=0, weights=w)
    said = decide_rows(runs.slot_matrix, runs.offsets, runs.observed_scores)
    near = np.sort(fused, axis=1)
    clear = near[:, -1] - near[:, -2] > 1e-12  # np.average rounds near-ties its own way
    assert np.array_equal(said[clear], fused.argmax(axis=1)[clear])
    assert runs.observed == confusion(truth, said, tuple(LABELS))
    rng = np.random.default_rng(1)
    cand = rng.dirichlet(np.ones(3), len(frame))
    b = runs.price(cand)
    reference = cc.forced_runs(frame, truth="y", models=MODELS, slot="m2", fusioner="mean",
                               labels=LABELS, scores=TEMPLATES, weights=weights).price(cand)
    assert (b.expected_cost, b.worst_cost, b.best_cost) == \
        (reference.expected_cost, reference.worst_cost, reference.best_cost)


def test_the_two_mapping_forms_read_the_same_runs() -> None:
    frame, _ = vector_log()
    by_model = {m: {label: f"{m}_{label}" for label in reversed(LABELS)} for m in MODELS}
    a = cc.forced_runs(frame, slot="m3", scores=TEMPLATES, **LOG)
    b = cc.forced_runs(frame, slot="m3", scores=by_model, **LOG)
    assert np.array_equal(a.offsets, b.offsets) and a.observed == b.observed
    renamed = frame.rename(columns={f"m1_{label}": f"first {label}" for label in LABELS})
    by_model["m1"] = {label: f"first {label}" for label in LABELS}
    c = cc.forced_runs(renamed, slot="m3", scores=by_model, **LOG)
    assert np.array_equal(a.offsets, c.offsets)


BAD_MAPPINGS = [
    ({"cat": "{model}_cat", "dog": "{model}_dog"}, ValidationError,
     r"one column template per label \['cat', 'dog', 'emu'\]"),
    ({"cat": "m1_cat", "dog": "m1_dog", "emu": "m1_emu"}, ValidationError,
     r"scores= names each model's column for each label"),
    ({"m1": {"cat": "m1_cat", "dog": "m1_dog", "emu": "m1_emu"}}, ValidationError,
     r"must name every model \['m1', 'm2', 'm3'\] once"),
    ({m: {"cat": f"{m}_cat", "dog": f"{m}_dog"} for m in MODELS}, ValidationError,
     r"scores\['m1'\]: one column per label"),
    ({"cat": "{model}_cat", "dog": "{model}_cat", "emu": "{model}_emu"}, ValidationError,
     r"name a column twice"),
    ({"cat": "{model}_cat", "dog": "{model}_dog", "emu": "{model}_ostrich"}, DataError,
     r"m1_ostrich"),
]


@pytest.mark.parametrize(("scores", "error", "message"), BAD_MAPPINGS)
def test_bad_mappings_are_refused(scores: Any, error: type, message: str) -> None:
    frame, _ = vector_log()
    with pytest.raises(error, match=message):
        cc.forced_runs(frame, slot="m1", scores=scores, **LOG)


def test_a_mapping_is_required_and_labels_with_it() -> None:
    frame, _ = vector_log()
    with pytest.raises(ValidationError, match=r"give the labels too"):
        cc.forced_runs(frame, truth="y", models=MODELS, slot="m1", fusioner="mean",
                       scores=TEMPLATES)
    with pytest.raises(ValidationError, match=r"fusioner 'logistic'.*fusioner='mean'"):
        cc.forced_runs(frame, truth="y", models=MODELS, slot="m1", labels=LABELS,
                       scores=TEMPLATES, fusioner="logistic")
    with pytest.raises(ValidationError, match=r"weights= is an option of fusioner='mean'"):
        cc.forced_runs(frame, truth="y", models=MODELS, slot="m1", labels=LABELS,
                       scores=TEMPLATES, fusioner="max", weights=[1, 2, 3])


@pytest.mark.parametrize("engine", ["pandas", "polars_lazy", "duckdb", "csv"])
@pytest.mark.parametrize(("cell", "message"), [
    (np.nan, r"score column 'm2_dog' on row 7 is missing \(NaN or null\)"),
    ("high", r"'m2_dog'.* row 7 holds the text 'high', not a number"),
    (1.7, r"score column 'm2_dog' on row 7 holds 1.7, outside the score range"),
    (0.95, r"model 'm2'.*row 7.*sum"),
])
def test_bad_cells_are_refused_naming_the_cell(engine: str, cell: Any, message: str,
                                               tmp_path: Any) -> None:
    if ENGINES[engine] is None:
        pytest.skip(f"{engine} is not installed")
    frame, _ = vector_log()
    if isinstance(cell, str):  # text in a column of numbers (a CSV's cell is text)
        frame["m2_dog"] = frame["m2_dog"].astype(object)
    frame.loc[7, "m2_dog"] = cell
    if isinstance(cell, str) and engine in ("polars_lazy", "duckdb"):
        pytest.skip("a typed engine holds no text in a number column")
    with pytest.raises(ScoreValueError, match=message):
        cc.forced_runs(ENGINES[engine](frame, tmp_path), slot="m1", scores=TEMPLATES, **LOG)


def test_an_unknown_truth_label_is_refused() -> None:
    frame, _ = vector_log()
    frame.loc[4, "y"] = "yak"
    with pytest.raises(DataError, match=r"truth: column 'y' holds 'yak' \(1 row\(s\)\), not "
                                        r"among the labels \['cat', 'dog', 'emu'\]"):
        cc.forced_runs(frame, slot="m1", scores=TEMPLATES, **LOG)


def test_bad_weights_are_refused() -> None:
    frame, _ = vector_log()
    for weights, error in (([1.0, 2.0], ValidationError), ({"m1": 1.0}, ValidationError),
                           ("heavy", (InputTypeError, ValidationError))):
        with pytest.raises(error, match=r"weights"):
            cc.forced_runs(frame, slot="m1", scores=TEMPLATES, weights=weights, **LOG)


# --------------------------------------------- random ensembles: the real cost inside
POOL = {
    "lr": lambda seed: LogisticRegression(C=0.3, max_iter=2000),
    "nb": lambda seed: GaussianNB(),
    "tree": lambda seed: DecisionTreeClassifier(max_depth=3, random_state=seed),
    "knn": lambda seed: KNeighborsClassifier(n_neighbors=int(2 + seed % 4)),
    "prior": lambda seed: DummyClassifier(strategy="prior"),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 5), st.integers(0, 2**31), st.booleans())
def test_real_costs_of_random_ensembles_lie_inside_best_and_worst(k: int, seed: int,
                                                                  stacking: bool) -> None:
    rng = np.random.default_rng(seed)
    x, y = make_classification(n_samples=30 * k, n_features=6, n_informative=4,
                               n_redundant=0, n_classes=k, n_clusters_per_class=1,
                               random_state=int(seed % 10_000))
    x_fit, x_log, y_fit, y_log = x[::2], x[1::2], y[::2], y[1::2]
    names = list(rng.choice(list(POOL), size=3, replace=False))
    mem = [(n, POOL[n](int(seed % 97))) for n in names]
    if stacking:
        ens = StackingClassifier(mem, final_estimator=LogisticRegression(max_iter=5000),
                                 cv=2, stack_method="predict_proba").fit(x_fit, y_fit)
    else:
        weights = [float(w) for w in rng.choice([0.5, 1.0, 2.0, 3.0], 3)]
        ens = VotingClassifier(mem, voting="soft", weights=weights).fit(x_fit, y_fit)
    slot = str(names[int(rng.integers(3))])
    runs = cc.ensemble_runs(ens, x_log, y_log, slot=slot)
    truth = positions(y_log, runs.labels)
    assert np.array_equal(decide_rows(runs.slot_matrix, runs.offsets, runs.observed_scores),
                          positions(ens.predict(x_log), runs.labels))
    costs = rng.integers(1, 10, (k, k)).astype(float)
    np.fill_diagonal(costs, 0.0)
    cm = cc.CostMatrix(costs, labels=runs.labels)
    others = [n for n in POOL if n not in names][:2]
    for name in others:
        cand = POOL[name](int(seed % 89)).fit(x_fit, y_fit)
        p = cand.predict_proba(x_log)
        real = confusion(truth, positions(replaced(ens, slot, cand).predict(x_log),
                                          runs.labels), runs.labels)
        assert runs.with_candidate(p) == real
        b = runs.price(p, costs)
        tol = 1e-9 * max(1.0, b.worst_cost)
        assert b.best_cost - tol <= real.cost(cm) <= b.worst_cost + tol
        assert b.best_cost - tol <= b.expected_cost <= b.worst_cost + tol
