"""Critical scores inside fitted scikit-learn ensembles (causalcost.data.ensemble).

Independent checks: scikit-learn's own ``predict`` of the fitted ensemble (0 disagreements with
``observed >= critical`` on every row, ties included); real interventions, the fitted ensemble
with the slot's fitted estimator replaced by a candidate (its own ``predict``), and for soft
voting also the fused decision computed by hand from the members' ``predict_proba`` (numpy
average, argmax); the real cost of every candidate inside the same-instances [best, worst].
Data: scikit-learn's breast cancer set and ``make_classification`` (no download).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.data.ensemble import EnsembleMismatchError, ensemble_runs
from causalcost.data.score_runs import ScoreRuns
from causalcost.errors import (
    DataError,
    InputTypeError,
    MonotonicityError,
    UnknownNameError,
    ValidationError,
)

sklearn = pytest.importorskip("sklearn")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.datasets import load_breast_cancer, make_classification  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    StackingClassifier,
    VotingClassifier,
)
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

COSTS = cc.CostMatrix(fn=5, fp=1)


def members() -> list[tuple[str, object]]:
    return [("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))),
            ("nb", GaussianNB()),
            ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]


def candidates(x: object, y: object) -> dict[str, object]:
    """Fitted candidates for a slot: probabilities from a logistic model (p0 = 1 - p1 to the
    float), naive Bayes and trees (pure leaves: 0/1 probabilities, so the vote ties)."""
    found = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=500)),
        "nb": GaussianNB(var_smoothing=1e-3),
        "stump": DecisionTreeClassifier(max_depth=1, random_state=0),
        "deep_tree": DecisionTreeClassifier(random_state=1),
        "tree3": DecisionTreeClassifier(max_depth=3, random_state=2, max_features=0.3),
    }
    return {name: c.fit(x, y) for name, c in found.items()}


@pytest.fixture(scope="module")
def cancer() -> tuple[object, ...]:
    x, y = load_breast_cancer(return_X_y=True, as_frame=True)
    x_fit, x_log, y_fit, y_log = train_test_split(x, y, test_size=0.5, random_state=0)
    return x_fit, x_log, y_fit, y_log, candidates(x_fit, y_fit)


@pytest.fixture(scope="module")
def synthetic() -> tuple[object, ...]:
    x, y = make_classification(n_samples=600, n_features=8, n_informative=4, random_state=3)
    return x[:300], x[300:], y[:300], y[300:], candidates(x[:300], y[:300])


def by_hand_vote(probas: list[np.ndarray], weights: list[float] | None) -> np.ndarray:
    """Soft voting recomputed from the members' predict_proba: P iff the weighted mean
    probability of classes_[1] is strictly above that of classes_[0]."""
    avg = np.average(np.asarray(probas), axis=0, weights=weights)
    return avg[:, 1] > avg[:, 0]


def replaced(ensemble: object, slot: str, candidate: object) -> object:
    """The real intervention: the fitted ensemble with the slot's estimator replaced."""
    names = [n for n, e in ensemble.estimators if not (isinstance(e, str) and e == "drop")]
    real = copy.copy(ensemble)
    real.estimators_ = [candidate if n == slot else e
                        for n, e in zip(names, ensemble.estimators_)]
    return real


def check_interventions(ens: object, runs: ScoreRuns, slot: str, x: object, truth: np.ndarray,
                        cands: dict[str, object], weights: object = "stack") -> None:
    positive = ens.classes_[1]
    for name, cand in cands.items():
        s = cand.predict_proba(x)[:, 1]
        real = replaced(ens, slot, cand).predict(x) == positive
        if weights != "stack":
            probas = [(cand if n == slot else e).predict_proba(x)
                      for n, e in zip([n for n, _ in ens.estimators], ens.estimators_)]
            assert np.array_equal(by_hand_vote(probas, weights), real), name
        real_confusion = cc.Confusion.from_predictions(truth, real)
        assert runs.with_candidate(s) == real_confusion, (slot, name)
        b = runs.price(s, COSTS)
        assert b.best_cost - 1e-12 <= real_confusion.cost(COSTS) <= b.worst_cost + 1e-12


# -------------------------------------------------------------------------- soft voting
@pytest.mark.parametrize("weights", [None, [2.0, 1.0, 1.0], [1.0, 1.0, 3.0]])
def test_soft_voting_agrees_with_predict_and_real_interventions(cancer: tuple,
                                                                weights: object) -> None:
    x_fit, x_log, y_fit, y_log, cands = cancer
    vote = VotingClassifier(members(), voting="soft", weights=weights).fit(x_fit, y_fit)
    truth = y_log.to_numpy() == vote.classes_[1]
    says = vote.predict(x_log) == vote.classes_[1]
    for slot in ("lr", "nb", "tree"):
        runs = ensemble_runs(vote, x_log, y_log, slot=slot)
        assert np.array_equal(says, runs.observed_scores >= runs.critical)  # every row
        assert runs.observed == cc.Confusion.from_predictions(truth, says)
        slot_scores = vote.named_estimators_[slot].predict_proba(x_log)[:, 1]
        assert np.array_equal(runs.observed_scores, slot_scores)
        assert list(runs.index) == list(x_log.index) and runs.positive == 1
        assert runs.models == ("lr", "nb", "tree") and runs.slot == slot
        check_interventions(vote, runs, slot, x_log, truth, cands, weights)


def test_soft_voting_ties_go_to_the_first_class(synthetic: tuple) -> None:
    """Members with pure leaves give probabilities 0 and 1: two of them against a third
    often tie at a mean of exactly 1/2, where scikit-learn predicts classes_[0]."""
    x_fit, x_log, y_fit, y_log, cands = synthetic
    trees = [(f"t{i}", DecisionTreeClassifier(max_features=0.4, random_state=i))
             for i in range(4)]
    vote = VotingClassifier(trees, voting="soft").fit(x_fit, y_fit)
    probas = vote._collect_probas(x_log)
    avg = np.average(probas, axis=0)
    ties = int((avg[:, 1] == avg[:, 0]).sum())
    assert ties >= 20  # the case under test occurs
    says = vote.predict(x_log) == 1
    for slot in ("t0", "t3"):
        runs = ensemble_runs(vote, x_log, y_log, slot=slot)
        assert np.array_equal(says, runs.observed_scores >= runs.critical)
        # 4 equal members with 0/1 scores: when 2 of the 3 others say 1 the fused means are
        # (2 + s, 2 - s) / 4, P iff s > 0 strictly (s = 0 is a 2-2 tie, classes_[0]); the
        # critical score is the least float s at which 2 + s > 3 - (1 - s) ... in floating
        # point, a few units of 1e-16. With fewer others saying 1: never P; with all: always.
        k = int(slot[1])
        others = np.delete(probas[:, :, 1], k, axis=0).sum(axis=0)
        t = runs.critical
        assert np.all((t[others == 2] > 0) & (t[others == 2] < 1e-15))
        assert np.all(t[others <= 1] == np.inf) and np.all(t[others == 3] == -np.inf)
        rows = np.flatnonzero(others == 2)
        for at, expected in ((t[rows], True), (np.nextafter(t[rows], -np.inf), False)):
            forced = probas[:, rows].copy()
            forced[k, :, 1], forced[k, :, 0] = at, 1.0 - at
            assert np.all(by_hand_vote(list(forced), None) == expected)
        check_interventions(vote, runs, slot, x_log, y_log == 1, cands, None)


class Reader(ClassifierMixin, BaseEstimator):
    """A "model" whose probabilities are columns 2k, 2k + 1 of X: any probabilities, ties and
    pairs that do not sum to 1 in floating point included."""

    def __init__(self, k: int = 0) -> None:
        self.k = k

    def fit(self, x: np.ndarray, y: np.ndarray) -> Reader:
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        return np.c_[x[:, 2 * self.k], x[:, 2 * self.k + 1]]

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.classes_[self.predict_proba(x).argmax(axis=1)]


PROBS = [0.0, 0.1, 0.2, 0.25, 0.3, 1 / 3, 0.5, 0.6, 2 / 3, 0.7, 0.75, 0.9, 1.0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(2, 25), st.integers(0, 2**31))
def test_soft_voting_on_tied_probabilities(m: int, n: int, seed: int) -> None:
    """Members reading their probabilities from X (on a grid that ties constantly, p0 either
    1 - p1 or one float off it): ensemble_runs agrees with VotingClassifier.predict on every
    row (it raises otherwise), and a candidate's with_candidate equals the real ensemble with
    the slot's estimator replaced by the candidate (p0 = 1 - p1), through sklearn's predict."""
    rng = np.random.default_rng(seed)
    p1 = rng.choice(PROBS, size=(n, m + 1))
    p0 = 1.0 - p1
    off = rng.random((n, m)) < 0.3  # members whose two probabilities miss 1 by a float
    p0[:, :m] = np.where(off, np.nextafter(p0[:, :m], rng.choice([-1.0, 2.0], (n, m))),
                         p0[:, :m])
    x = np.stack([p0, p1], axis=-1).reshape(n, -1)
    y = np.r_[0, 1, rng.integers(0, 2, n - 2)]  # both classes, for fit
    weights = list(rng.choice([0.5, 1.0, 2.0, 3.0], m)) if rng.random() < 0.5 else None
    vote = VotingClassifier([(f"m{k}", Reader(k)) for k in range(m)], voting="soft",
                            weights=weights).fit(x, y)
    slot = int(rng.integers(m))
    runs = ensemble_runs(vote, x, y, slot=f"m{slot}")
    says = vote.predict(x) == 1
    assert np.array_equal(says, runs.observed_scores >= runs.critical)
    # where the slot's own p0 is off 1 - p1, a candidate scoring exactly the slot's observed
    # score counts as the slot itself (one critical score per row; documented)
    as_observed = off[:, slot] & (p1[:, m] == p1[:, slot])
    real = replaced(vote, f"m{slot}", Reader(m).fit(x, y)).predict(x) == 1
    expected = np.where(as_observed, says, real)
    assert runs.with_candidate(p1[:, m]) == cc.Confusion.from_predictions(y == 1, expected)
    for s in (0.0, 0.5, 1.0):  # forced runs: the slot's probabilities (1 - s, s)
        forced = np.stack([p0[:, :m], p1[:, :m]], axis=-1)
        forced[:, slot] = (1.0 - s, s)
        by_hand = by_hand_vote(list(forced.transpose(1, 0, 2)), weights)
        by_hand = np.where(off[:, slot] & (p1[:, slot] == s), says, by_hand)
        assert runs.forced_at(s) == cc.Confusion.from_predictions(y == 1, by_hand)


def test_a_member_whose_probabilities_miss_one_decides_a_tie() -> None:
    """Slot (p0 one float below 0.7, 0.3) against (0.3, 0.7): the real means favour P by a
    float, the slot's probabilities (1 - s, s) at its observed score tie (N); the critical
    score is moved to the observed score so the observed system is the real one."""
    p0 = np.nextafter(0.7, 0.0)
    x = np.array([[p0, 0.3, 0.3, 0.7], [0.7, 0.3, 0.3, 0.7]])
    vote = VotingClassifier([("a", Reader(0)), ("b", Reader(1))], voting="soft").fit(x, [1, 0])
    assert vote.predict(x).tolist() == [1, 0]  # scikit-learn itself: the float decides
    runs = ensemble_runs(vote, x, [1, 0], slot="a")
    assert runs.adjusted == 1
    assert runs.critical[0] == 0.3  # moved: the real member says P at its own score
    t = runs.critical[1]  # a tie at 0.3 (N); the float step of s + 0.7 > (1 - s) + 0.3 above
    assert 0.3 < t < 0.3 + 1e-15
    for s, p in ((t, True), (np.nextafter(t, 0.0), False)):
        assert by_hand_vote([[[1.0 - s, s]], [[0.3, 0.7]]], None).tolist() == [p]
    assert runs.observed == cc.Confusion(tp=1, fn=0, fp=0, tn=1)


def test_dropped_member_and_string_labels(cancer: tuple) -> None:
    x_fit, x_log, y_fit, y_log, _ = cancer
    names = np.array(["malignant", "benign"])
    vote = VotingClassifier([*members(), ("off", "drop")], voting="soft",
                            weights=[1.0, 2.0, 1.0, 5.0]).fit(x_fit, names[y_fit])
    runs = ensemble_runs(vote, x_log, names[y_log], slot="nb")
    assert runs.positive == "malignant"  # classes_ sorted: ['benign', 'malignant']
    assert runs.models == ("lr", "nb", "tree")
    says = vote.predict(x_log) == "malignant"
    assert np.array_equal(says, runs.observed_scores >= runs.critical)
    assert runs.class_sizes == (int((y_log == 0).sum()), int((y_log == 1).sum()))
    with pytest.raises(UnknownNameError, match=r"\['off'\] are dropped"):
        ensemble_runs(vote, x_log, names[y_log], slot="off")


def test_pipeline_and_index_alignment(cancer: tuple) -> None:
    x_fit, x_log, y_fit, y_log, cands = cancer
    vote = VotingClassifier([("nb", GaussianNB()), ("lr", LogisticRegression(max_iter=500))],
                            voting="soft")
    pipe = make_pipeline(StandardScaler(), vote).fit(x_fit, y_fit)
    runs = ensemble_runs(pipe, x_log, y_log, slot="nb")
    says = pipe.predict(x_log) == 1
    assert np.array_equal(says, runs.observed_scores >= runs.critical)
    scaled = pipe[:-1].transform(x_log)
    cand = GaussianNB(var_smoothing=1e-2).fit(pipe[:-1].transform(x_fit), y_fit)
    s = pd.Series(cand.predict_proba(scaled)[:, 1], index=x_log.index)
    real = replaced(vote, "nb", cand).predict(scaled) == 1
    shuffled = s.sample(frac=1.0, random_state=0)
    assert runs.with_candidate(shuffled) == cc.Confusion.from_predictions(y_log == 1, real)
    y_shuffled = y_log.sample(frac=1.0, random_state=1)  # a Series y is aligned on X's index
    assert ensemble_runs(pipe, x_log, y_shuffled, slot="nb").observed == runs.observed


# ----------------------------------------------------------------------------- stacking
@pytest.mark.parametrize("passthrough", [False, True])
def test_stacking_logistic_closed_form(cancer: tuple, synthetic: tuple,
                                       passthrough: bool) -> None:
    x_fit, x_log, y_fit, y_log, cands = synthetic if passthrough else cancer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stack = StackingClassifier(members(), final_estimator=LogisticRegression(max_iter=5000),
                                   passthrough=passthrough, cv=3).fit(x_fit, y_fit)
    truth = np.asarray(y_log) == 1
    says = stack.predict(x_log) == 1
    coef = stack.final_estimator_.coef_[0]
    for pos, slot in enumerate(("lr", "nb", "tree")):
        if coef[pos] <= 0:
            with pytest.raises(MonotonicityError, match=f"slot '{slot}'.*coefficient"):
                ensemble_runs(stack, x_log, y_log, slot=slot)
            continue
        runs = ensemble_runs(stack, x_log, y_log, slot=slot)
        assert "closed form" in runs.rule
        assert np.array_equal(says, runs.observed_scores >= runs.critical)
        # the closed form: z = intercept + coef . meta, t = slot score - z / coef_slot
        meta = stack.transform(x_log)
        z = stack.final_estimator_.decision_function(meta)
        np.testing.assert_allclose(runs.critical, meta[:, pos] - z / coef[pos], rtol=1e-9,
                                   atol=1e-9)
        check_interventions(stack, runs, slot, x_log, truth, cands)


def test_stacking_non_linear_meta_models(synthetic: tuple) -> None:
    from threadpoolctl import threadpool_limits

    x_fit, x_log, y_fit, y_log, cands = synthetic
    finals = [GradientBoostingClassifier(n_estimators=8, max_depth=2, random_state=0),
              DecisionTreeClassifier(max_depth=4, monotonic_cst=[1, 1, 1], random_state=0),
              HistGradientBoostingClassifier(max_iter=5, monotonic_cst=[1, 1, 1],
                                             random_state=0)]
    accepted = 0
    for final in finals:
        constrained = getattr(final, "monotonic_cst", None) is not None
        with threadpool_limits(limits=1, user_api="openmp"):  # each call costs less
            stack = StackingClassifier(members(), final_estimator=final, cv=3)
            stack.fit(x_fit, y_fit)
            says = stack.predict(x_log) == 1
            for slot in ("lr", "nb"):
                try:
                    runs = ensemble_runs(stack, x_log, y_log, slot=slot)
                except MonotonicityError as exc:  # only an unconstrained model may be refused
                    assert not constrained, exc
                    assert f"slot {slot!r}" in str(exc) and "monotonic_cst" in str(exc)
                    continue
                accepted += 1
                assert "P iff its predict says classes_[1]" in runs.rule
                assert np.array_equal(says, runs.observed_scores >= runs.critical)
                check_interventions(stack, runs, slot, x_log, y_log == 1, cands)
    assert accepted >= 4


def test_non_monotone_meta_model_is_refused(cancer: tuple) -> None:
    """A tree meta-model on the members' outputs and the raw features (passthrough): on some
    row it says P at a slot score and N at a higher one; the refusal names the slot, the row
    and both scores, and a brute-force sweep of the real meta-model confirms the drop."""
    x_fit, x_log, y_fit, _, _ = cancer
    stack = StackingClassifier(members(), final_estimator=DecisionTreeClassifier(
        max_depth=3, random_state=0), passthrough=True, cv=3).fit(x_fit, y_fit)
    meta = stack.transform(x_log)
    final = stack.final_estimator_
    grid = np.linspace(0, 1, 1001)
    drops = {}
    for pos, slot in enumerate(("lr", "nb", "tree")):
        says = np.stack([final.predict(np.where(np.arange(meta.shape[1]) == pos, g, meta))
                         for g in grid], axis=1) == 1
        drops[slot] = bool((says[:, :-1] & ~says[:, 1:]).any())
    assert any(drops.values())
    for slot, drop in drops.items():
        if drop:
            with pytest.raises(MonotonicityError, match=rf"slot '{slot}'.*on row \d+ the "
                                                        r"ensemble says P at score"):
                ensemble_runs(stack, x_log, np.zeros(len(x_log)), slot=slot)


def test_negative_weight_or_coefficient_is_refused(cancer: tuple) -> None:
    x_fit, x_log, y_fit, y_log, _ = cancer
    stack = StackingClassifier(members(), cv=3).fit(x_fit, y_fit)
    # a meta-model put exactly on its boundary at row 0 (decision 0 up to rounding): the
    # closed form and LogisticRegression.predict may round differently there; predict wins
    tied = copy.deepcopy(stack)
    meta = stack.transform(x_log)
    coef = tied.final_estimator_.coef_[0]
    slot = ("lr", "nb", "tree")[int(np.argmax(coef))]
    tied.final_estimator_.intercept_[0] = -float(meta[0] @ coef)
    assert abs(tied.final_estimator_.decision_function(meta[:1])[0]) < 1e-12
    runs = ensemble_runs(tied, x_log, y_log, slot=slot)
    assert np.array_equal(tied.predict(x_log) == 1, runs.observed_scores >= runs.critical)
    assert abs(runs.critical[0] - runs.observed_scores[0]) < 1e-12
    flipped = copy.deepcopy(stack)
    flipped.final_estimator_.coef_[0, 1] = -1.0
    with pytest.raises(MonotonicityError, match=r"slot 'nb'.*coefficient -1\.0 < 0"):
        ensemble_runs(flipped, x_log, y_log, slot="nb")
    vote = VotingClassifier(members(), voting="soft", weights=[2, -0.5, 1]).fit(x_fit, y_fit)
    with pytest.raises(MonotonicityError, match="'nb' has weight -0.5"):
        ensemble_runs(vote, x_log, y_log, slot="nb")


# ------------------------------------------------------------------------------ refusals
def test_bad_input_is_refused(synthetic: tuple) -> None:
    x_fit, x_log, y_fit, y_log, _ = synthetic
    vote = VotingClassifier(members(), voting="soft")
    with pytest.raises(ValidationError, match="not fitted; call estimator.fit"):
        ensemble_runs(vote, x_log, y_log, slot="nb")
    vote.fit(x_fit, y_fit)
    with pytest.raises(UnknownNameError, match=r"'svm' is not one of the ensemble's "
                                               r"estimators \['lr', 'nb', 'tree'\]"):
        ensemble_runs(vote, x_log, y_log, slot="svm")
    with pytest.raises(DataError, match="y: 299 values for 300 rows"):
        ensemble_runs(vote, x_log, y_log[1:], slot="nb")
    with pytest.raises(DataError, match=r"labels \['2'\] \(1 row\(s\)\) are not among"):
        ensemble_runs(vote, x_log, np.r_[y_log[:-1], 2], slot="nb")
    hard = VotingClassifier(members(), voting="hard").fit(x_fit, y_fit)
    with pytest.raises(ValidationError, match="fuses votes.*forced_runs"):
        ensemble_runs(hard, x_log, y_log, slot="nb")
    three = VotingClassifier(members(), voting="soft").fit(x_fit, y_fit % 2 + (x_fit[:, 0] > 1))
    with pytest.raises(DataError, match=r"truth: column 'y' holds 7 .*not among the labels "
                                        r"\[0, 1, 2\]"):
        ensemble_runs(three, x_log, np.r_[y_log[:-1], 7], slot="nb")
    with pytest.raises(InputTypeError, match="got GaussianNB"):
        ensemble_runs(GaussianNB().fit(x_fit, y_fit), x_log, y_log, slot="nb")
    svm = StackingClassifier([("svm", LinearSVC()), ("nb", GaussianNB())], cv=3)
    svm.fit(x_fit, y_fit)
    with pytest.raises(ValidationError, match="through decision_function.*stack_method="):
        ensemble_runs(svm, x_log, y_log, slot="svm")
    runs = ensemble_runs(svm, x_log, y_log, slot="nb")  # another member's decision is fine
    assert np.array_equal(svm.predict(x_log) == 1, runs.observed_scores >= runs.critical)


class Contrary(VotingClassifier):
    """A soft vote whose predict is flipped on its first row: the check must notice."""

    def predict(self, x: object) -> np.ndarray:
        out = super().predict(x)
        out[0] = self.classes_[1] if out[0] == self.classes_[0] else self.classes_[0]
        return out


def test_the_check_against_predict_is_live(synthetic: tuple) -> None:
    x_fit, x_log, y_fit, y_log, _ = synthetic
    vote = Contrary(members(), voting="soft").fit(x_fit, y_fit)
    with pytest.raises(EnsembleMismatchError, match=r"1 row\(s\), first row 0"):
        ensemble_runs(vote, x_log, y_log, slot="nb")
    with pytest.raises(InputTypeError, match="got StandardScaler"):
        ensemble_runs(make_pipeline(GaussianNB(), StandardScaler()), x_log, y_log, slot="nb")


def test_public_name() -> None:
    assert cc.ensemble_runs is ensemble_runs
