"""Bad input at the public boundary of the score path: a one-line CausalCostError naming the
field and the fix, never a bare Python exception or a wrong number.

Independent checks: the scaled weights of a mean against the rule computed with the weights as
given, in plain numpy (decisions on every row; each critical score the least float at which
that computation says P); weights near the float limit against the same rule with weights 1.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from engine_frames import ENGINES as SHARED_ENGINES

import causalcost as cc
from causalcost.errors import (
    CausalCostError,
    DataError,
    InputTypeError,
    OverflowInputError,
    ValidationError,
)
from causalcost.network.score_rules import score_rule

COSTS = cc.CostMatrix(fn=5, fp=1)
PYTHON_WORDS = ("NoneType", "object is not", "unhashable", "has no attribute", "list indices",
                "Traceback", "positional argument", "unexpected keyword")


def one_line(exc: BaseException) -> str:
    """The error's message, checked to be one line in the user's words."""
    assert isinstance(exc, CausalCostError), repr(exc)
    text = str(exc)
    assert "\n" not in text and not any(w in text for w in PYTHON_WORDS), text
    return text


def score_log(n: int, seed: int, models: str = "ab") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return pd.DataFrame({"y": y, **{m: rng.random(n) for m in models}})


def runs_of(log: pd.DataFrame, **rule) -> cc.ScoreRuns:
    models = [c for c in log.columns if c != "y"]
    return cc.forced_runs(log, truth="y", models=models, slot=models[-1], **rule)


# ------------------------------------------------------------- 1. weights near the float limit
def test_mean_weights_near_the_float_limit_give_the_plain_mean() -> None:
    log = score_log(3000, 0)
    plain = runs_of(log, fusioner="mean", weights=[1, 1])
    huge = runs_of(log, fusioner="mean", weights=[1e308, 1e308])  # their sum is not a float
    # 1e308 is not a power of two times 1: the same rule up to the rounding of each product
    assert np.max(np.abs(huge.critical - plain.critical)) <= 4 * np.finfo(float).eps
    assert huge.observed == plain.observed
    candidate = np.random.default_rng(1).random(len(log))
    assert huge.with_candidate(candidate) == plain.with_candidate(candidate)
    y = log["y"].to_numpy()
    by_class = {"P": candidate[y], "N": candidate[~y]}
    a = cc.sheet_from_data(plain, COSTS).price(by_class, same_instances=True)
    b = cc.sheet_from_data(huge, COSTS).price(by_class, same_instances=True)
    assert (a.eval1, a.worst_cost, a.best_cost) == (b.eval1, b.worst_cost, b.best_cost)
    three = runs_of(score_log(500, 2, "abc"), fusioner="mean", weights=[1e308] * 3)
    assert np.isfinite(three.critical).all()


def _plain(x: np.ndarray, w: list[float], tau: float) -> np.ndarray | None:
    """The mean rule with the weights as given, left to right over their fsum, in numpy;
    None where that computation overflows."""
    try:
        weight_sum = math.fsum(w)
    except OverflowError:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        total = x[:, 0] * w[0]
        for j in range(1, len(w)):
            total = total + x[:, j] * w[j]
        if not (math.isfinite(weight_sum) and np.isfinite(total).all()):
            return None
        return total / weight_sum >= tau


@pytest.mark.parametrize("seed", range(6))
def test_scaled_mean_decides_as_the_weights_given(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    names = list("abcd"[:m])
    log = score_log(400, seed, "".join(names))
    s = log[names].to_numpy()
    base = rng.integers(1, 9, m) / float(rng.choice([1, 3, 7]))
    tau = float(rng.choice([0.3, 0.5, 1 / 3]))
    top = 1023 - math.frexp(float(base.max()))[1]  # the largest weight in [2**1022, 2**1023)
    crit, overflowed = {}, 0
    for k in (0, 600, -600, top):
        w = [math.ldexp(float(v), k) for v in base]
        rule = score_rule("mean", threshold=tau, weights=w, n_models=m)
        assert rule.given_weights == tuple(w)
        t = runs_of(log, fusioner="mean", weights=w, threshold=tau).critical
        crit[k] = t
        direct = _plain(s, w, tau)
        if direct is None:  # only the largest weights can overflow: nothing to compare with
            overflowed += 1
            continue
        assert np.array_equal(rule.decide(s), direct)
        forced = s.copy()  # each t is the least float at which the given weights say P
        forced[:, -1] = t
        assert _plain(forced, w, tau).all()
        forced[:, -1] = np.nextafter(t, -np.inf)
        assert not _plain(forced, w, tau).any()
    assert overflowed <= 1
    for k in crit:  # a power of two on every weight changes no critical score, even near 1e308
        assert np.array_equal(crit[k], crit[0])


def test_the_rule_shows_and_exports_the_weights_as_given() -> None:
    rule = score_rule("mean", weights=[2.0**600, 3 * 2.0**600], n_models=2)
    assert rule.describe() == f"mean of 2 scores >= 0.5, weights ({2.0**600:g}, {3 * 2.0**600:g})"
    assert score_rule("mean", weights=[1, 3], n_models=2).weights == \
        score_rule("mean", weights=[2**600, 3 * 2**600], n_models=2).weights
    from causalcost.network.scores import score_fusioner

    f = score_fusioner("mean", ["a", "b"], [("lo", "hi")] * 2, [(0.25, 0.75)] * 2,
                       weights=[1e308, 5e307])
    assert f.weights == (1e308, 5e307)
    assert f.to_frame()["weight"].tolist() == [1e308, 5e307]
    assert f.decisions.tolist() == [[False, False], [True, True]]  # 2a + b >= 1.5 at .25/.75


@pytest.mark.parametrize("kw", [
    {"weights": [1e308, 1e308]},
    {"weights": [1e308, 1.0], "bias": 1e308},
    {"weights": [1.7e308, 1.7e307]},
])
def test_logistic_weights_that_overflow_are_refused(kw: dict) -> None:
    with pytest.raises(OverflowInputError) as info:
        score_rule("logistic", n_models=2, slot=1, **kw)
    text = one_line(info.value)
    assert text.startswith("weights:") and "overflows float64" in text
    with pytest.raises(OverflowInputError, match="^weights: "):
        runs_of(score_log(50, 3), fusioner="logistic", **kw)
    assert score_rule("logistic", weights=[1e307, 1.0], n_models=2).kind == "logistic"


def test_mean_weights_too_far_apart_are_refused() -> None:
    with pytest.raises(OverflowInputError) as info:
        score_rule("mean", weights=[1e308, 1e-300], n_models=2)
    assert "1e-300 is too small beside 1e+308" in one_line(info.value)


def test_a_rule_built_by_hand_refuses_a_weight_sum_that_overflows() -> None:
    from causalcost.network.score_rules import ScoreRule

    rule = ScoreRule("mean", 0.5, (1e308, 1e308))
    with pytest.raises(OverflowInputError, match="weights: the sum of"):
        rule.decide(np.array([[0.5, 0.5]]))


# ------------------------------------------------------------------------------ 2. breakpoints
@pytest.mark.parametrize(("value", "error"), [
    (float("nan"), ValidationError), (float("inf"), ValidationError),
    (-float("inf"), ValidationError), (2.5, ValidationError), (1, ValidationError),
    (0, ValidationError), (-3, ValidationError), (np.float64("nan"), ValidationError),
    (True, InputTypeError), (np.bool_(True), InputTypeError), ("3", InputTypeError),
    ([5], InputTypeError), (1 + 0j, InputTypeError),
])
def test_bad_breakpoints_are_refused_naming_them(value: object, error: type) -> None:
    runs = runs_of(score_log(200, 4), fusioner="mean")
    with pytest.raises(error) as info:
        cc.sheet_from_data(runs, COSTS, breakpoints=value)
    assert one_line(info.value).startswith("breakpoints must be a whole number >= 2")
    with pytest.raises(error, match="^breakpoints must be"):  # refused before any counting
        cc.sheet_from_data(score_log(200, 4), COSTS, truth="y", models=["a", "b"], slot="b",
                           fusioner="mean", breakpoints=value)


def test_good_breakpoints_are_taken() -> None:
    runs = runs_of(score_log(200, 4), fusioner="mean")
    small = cc.sheet_from_data(runs, COSTS, breakpoints=np.int64(5))
    assert not small.exact and max(c.breakpoints.size for c in small.critical) == 5
    assert cc.sheet_from_data(runs, COSTS, breakpoints=5.0) == small
    assert cc.sheet_from_data(runs, COSTS, breakpoints=10**6).exact


# ---------------------------------------------------------------- 3. a sheet's costs overflow
def test_costs_whose_system_cost_overflows_are_refused() -> None:
    runs = runs_of(score_log(300, 5), fusioner="mean")
    with pytest.raises(OverflowInputError) as info:
        cc.sheet_from_data(runs, cc.CostMatrix(fn=1e308, fp=1))
    assert one_line(info.value).startswith("costs: tp=0 fn=1e+308 fp=1 tn=0 on 300 instances")
    sheet = cc.sheet_from_data(runs, COSTS)
    with pytest.raises(OverflowInputError, match="^costs: "):
        sheet.with_costs(cc.CostMatrix(fn=5, fp=1e307))


# ----------------------------------------------------------------- 4. candidates named twice
def _vote_log(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return pd.DataFrame({"y": y, **{m: np.where(rng.random(n) < 0.8, y, ~y)
                                    for m in ("a", "b", "c")}})


@pytest.mark.parametrize("kind", ["scores", "votes", "labels"])
def test_backtest_refuses_two_candidates_with_one_name(kind: str) -> None:
    rng = np.random.default_rng(6)
    if kind == "scores":
        log = score_log(120, 6, "abc")
        runs = cc.forced_runs(log, truth="y", models=list("abc"), slot="b", fusioner="mean")
        one, two = rng.random(120), rng.random(120)
        costs = COSTS
    elif kind == "votes":
        log = _vote_log(120, 6)
        runs = cc.forced_runs(log, truth="y", models=list("abc"), slot="b",
                              fusioner="majority")
        one, two = rng.random(120) < 0.5, rng.random(120) < 0.5
        costs = COSTS
    else:
        labels = ["x", "y", "z"]
        log = pd.DataFrame({m: rng.choice(labels, 120) for m in ("t", "a", "b", "c")})
        runs = cc.forced_runs(log, truth="t", models=list("abc"), slot="b",
                              fusioner="plurality", labels=labels)
        one, two = rng.choice(labels, 120), rng.choice(labels, 120)
        costs = 1 - np.eye(3)
    assert len(cc.backtest(runs, {"1": one, "2": two}, costs=costs).frame) == 2
    with pytest.raises(ValidationError) as info:
        cc.backtest(runs, {1: one, "1": two}, costs=costs)
    assert one_line(info.value).startswith("two candidates are named '1'")


def test_score_compare_and_price_many_refuse_a_name_used_twice() -> None:
    log = score_log(100, 7, "abc")
    runs = cc.forced_runs(log, truth="y", models=list("abc"), slot="b", fusioner="mean")
    sheet = cc.sheet_from_data(runs, COSTS)
    y = log["y"].to_numpy()
    rng = np.random.default_rng(7)
    with pytest.raises(ValidationError) as info:
        cc.compare(sheet, y_true=y, scores={1: rng.random(100), "1": rng.random(100)})
    assert "two candidates are named '1'" in one_line(info.value)
    p, n = sheet.class_sizes
    with pytest.raises(ValidationError) as info:
        sheet.price_many((rng.random((2, p)), rng.random((2, n))), names=["x", "x"])
    assert one_line(info.value).startswith("names: two candidates are named 'x'")


# -------------------------------------------------------------- 5. ensemble_runs and its rows
@pytest.fixture(scope="module")
def fitted() -> dict:
    pytest.importorskip("sklearn")
    from sklearn.datasets import make_classification
    from sklearn.ensemble import (
        HistGradientBoostingClassifier,
        StackingClassifier,
        VotingClassifier,
    )
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = make_classification(n_samples=300, n_features=4, random_state=0)
    fit = (x[:200], y[:200])
    pair = [("lr", LogisticRegression()), ("nb", GaussianNB())]
    return {
        "vote": VotingClassifier(pair, voting="soft").fit(*fit),
        "stack": StackingClassifier(pair).fit(*fit),
        "pipe": make_pipeline(StandardScaler(), VotingClassifier(pair, voting="soft")).fit(*fit),
        "hist": VotingClassifier([("h", HistGradientBoostingClassifier(max_iter=5)),
                                  ("h2", HistGradientBoostingClassifier(max_iter=9))],
                                 voting="soft").fit(*fit),
        "mixed": VotingClassifier([("h", HistGradientBoostingClassifier(max_iter=5)),
                                   ("nb", GaussianNB())], voting="soft").fit(*fit),
        "x": x[200:], "y": y[200:],
    }


@pytest.mark.parametrize("kind", ["vote", "stack", "pipe"])
@pytest.mark.parametrize("frame", [False, True])
def test_x_with_nan_is_one_data_error_naming_the_cell(fitted: dict, kind: str,
                                                     frame: bool) -> None:
    x = fitted["x"].copy()
    x[7, 2] = np.nan
    x[9, 0] = np.nan
    y: object = fitted["y"]
    if frame:
        x = pd.DataFrame(x, columns=["age", "bmi", "dose", "heart"], index=range(500, 600))
        y = pd.Series(fitted["y"], index=x.index)
    with pytest.raises(DataError) as info:
        cc.ensemble_runs(fitted[kind], x, y, slot="nb")
    text = one_line(info.value)
    assert text.startswith("X: ") and "refused it, saying \"Input X contains NaN." in text
    where = "row 507, column 'dose' is NaN" if frame else "row 7, column 2 is NaN"
    assert f"X's {where}; fill or drop the missing values" in text, text


def test_x_with_an_infinity_or_the_wrong_columns(fitted: dict) -> None:
    x = fitted["x"].copy()
    x[3, 1] = np.inf
    with pytest.raises(DataError) as info:
        cc.ensemble_runs(fitted["vote"], x, fitted["y"], slot="nb")
    assert "X's row 3, column 1 is infinite; replace the infinite values" in one_line(info.value)
    with pytest.raises(DataError) as info:
        cc.ensemble_runs(fitted["stack"], fitted["x"][:, :3], fitted["y"], slot="nb")
    text = one_line(info.value)
    assert "X has 3 features, but" in text and "give X as the ensemble was fitted on" in text


def test_members_that_accept_nan_still_count(fitted: dict) -> None:
    x = fitted["x"].copy()
    x[4, 0] = np.nan  # HistGradientBoosting accepts NaN: the ensemble's own rule decides
    runs = cc.ensemble_runs(fitted["hist"], x, fitted["y"], slot="h")
    assert ((runs.observed_scores >= runs.critical) == (fitted["hist"].predict(x) == 1)).all()
    with pytest.raises(DataError) as info:  # beside a member that does not
        cc.ensemble_runs(fitted["mixed"], x, fitted["y"], slot="h")
    assert "GaussianNB does not accept missing values" in one_line(info.value)


@pytest.mark.parametrize(("x", "y", "error", "words"), [
    ("empty", "empty", DataError, "X: no rows; give the rows to count"),
    ("all", "short", DataError, "y: 50 values for 100 rows of X"),
    ("all", "long", DataError, "y: 150 values for 100 rows of X"),
    ("none", "all", InputTypeError, "X must be the rows to count"),
    ("all", "none", DataError, "y: the true class of each of the 100 rows of X is needed"),
])
@pytest.mark.parametrize("kind", ["vote", "pipe"])
def test_empty_x_and_y_of_another_length_are_refused_up_front(fitted: dict, kind: str, x: str,
                                                              y: str, error: type,
                                                              words: str) -> None:
    xs = {"empty": fitted["x"][:0], "all": fitted["x"], "none": None}
    ys = {"empty": fitted["y"][:0], "all": fitted["y"], "short": fitted["y"][:50],
          "long": np.r_[fitted["y"], fitted["y"][:50]], "none": None}
    with pytest.raises(error) as info:
        cc.ensemble_runs(fitted[kind], xs[x], ys[y], slot="nb")
    assert one_line(info.value).startswith(words)


def test_labels_are_refused_with_what_to_do(fitted: dict) -> None:
    with pytest.raises(ValidationError) as info:
        cc.ensemble_runs(fitted["vote"], fitted["x"], fitted["y"], slot="nb", labels=[0, 1])
    text = one_line(info.value)
    assert text.startswith("labels: ensemble_runs takes no labels=; the labels are the "
                           "ensemble's classes_ [0, 1]")
    assert "leave labels= out" in text


# --------------------------------------------------- 6. a positive label the truth does not hold
@pytest.mark.parametrize("encoding", ["int", "bool", "text"])
@pytest.mark.parametrize("kind", ["scores", "votes"])
def test_a_positive_label_no_column_holds_is_refused(kind: str, encoding: str) -> None:
    log = score_log(80, 8, "abc") if kind == "scores" else _vote_log(80, 8)
    log = log.assign(y={"int": log["y"].astype(int), "bool": log["y"],
                        "text": log["y"].astype(int).astype(str)}[encoding])
    if kind == "votes" and encoding == "text":  # every label column text of 0/1
        log = log.assign(**{m: log[m].astype(int).astype(str) for m in "abc"})
    rule = {"fusioner": "mean"} if kind == "scores" else {"fusioner": "majority"}
    for engine in ("pandas", "polars"):
        data = log if engine == "pandas" else pytest.importorskip("polars").from_pandas(log)
        for positive in ("7", "sick"):
            with pytest.raises(DataError) as info:
                cc.forced_runs(data, truth="y", models=list("abc"), slot="b",
                               positive=positive, **rule)
            text = one_line(info.value)
            assert text.startswith(f"positive={positive!r} is not a label of the truth "
                                   "column 'y'"), text
            assert "leave positive= out" in text
        zero = "False" if encoding == "bool" else "0"  # a boolean spelling is still taken
        runs = cc.forced_runs(data, truth="y", models=list("abc"), slot="b", positive=zero,
                              **rule)
        flipped = cc.forced_runs(data, truth="y", models=list("abc"), slot="b", **rule)
        if kind == "scores":
            assert runs.class_sizes == flipped.class_sizes[::-1]


def test_a_named_label_of_a_prediction_column_is_still_taken() -> None:
    # the documented mix: a 0/1 truth beside string predictions whose positive label is named
    log = _vote_log(60, 9)
    named = log.assign(b=np.where(log["b"], "pos", "neg"), y=log["y"].astype(int))
    plain = log.assign(y=log["y"].astype(int))
    got = cc.forced_runs(named, truth="y", models=list("abc"), slot="b", fusioner="majority",
                         positive="pos")
    assert got == cc.forced_runs(plain, truth="y", models=list("abc"), slot="b",
                                 fusioner="majority")


def test_system_thresholds_refuses_a_positive_label_y_does_not_hold() -> None:
    runs = runs_of(score_log(100, 10), fusioner="mean")
    vote_sheet = cc.sheet_from_network("thesis_and", COSTS)
    y = runs.truth.astype(int)
    scores = np.random.default_rng(10).random(y.size)
    with pytest.raises(DataError) as info:
        cc.system_thresholds(vote_sheet, y, scores, positive="7")
    assert one_line(info.value).startswith("positive='7' is not a label of the truth column")
    labelled = np.where(y == 1, "sick", "well")
    assert cc.system_thresholds(vote_sheet, labelled, scores, positive="sick").positives == \
        int(y.sum())


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("engine", sorted(SHARED_ENGINES))
@pytest.mark.parametrize("kind", ["scores", "votes"])
def test_every_engine_refuses_a_label_of_no_column(engine: str, kind: str) -> None:
    # a CSV read as text: truth (and votes) are the text "1" / "0", looked at in the engine
    rng = np.random.default_rng(12)
    y = rng.random(60) < 0.4
    text = {True: "1", False: "0"}
    frame = pd.DataFrame({"y": [text[v] for v in y], **{
        m: (rng.random(60) if kind == "scores" else [text[v] for v in rng.random(60) < 0.5])
        for m in ("a", "b")}})
    rule = "mean" if kind == "scores" else "or"
    with pytest.raises(DataError, match="^positive='7' is not a label of the truth column 'y'"):
        cc.forced_runs(SHARED_ENGINES[engine](frame), truth="y", models=["a", "b"], slot="b",
                       fusioner=rule, positive="7")
