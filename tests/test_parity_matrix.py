"""The parity matrix: every public step and command, for K = 2, 3 and 4 labels, each checked
against a computation that does not go through causalcost's route.

Rows of the matrix (one test each, run for every K):

========================  ===========================================================
step                      independent computation
========================  ===========================================================
interventional_table      pgmpy ``VariableElimination`` on ``network.do([slot])``
sampling                  the exact table (every cell inside a 6-sigma band)
query --json              the Python table
export -o FILE.bif        pgmpy reads the BIF back; VE on its ``do([slot])``
draw -o FILE.svg          the file is an SVG naming every node
forced_runs               a numpy replay of the vote with the slot forced
with_candidate / observed a numpy count of the replayed system
sheet_from_network        ``M1[c, j] = sum_s T[c, j, s] C[c, s]`` by numpy
sheet_from_data, evaluate Eval1 by numpy; worst / best case by a linear programme
                          (scipy) over how the candidate's votes fall on instances
compare                   evaluate, one candidate at a time
backtest                  the real system cost by numpy
slot_importance           the real system costs by numpy
system_scorer             evaluate of the fitted model's counted confusion
CLI runs / derive /       the same numbers as the Python calls above
evaluate / backtest /
importance / experiment
========================  ===========================================================

K = 2 is written with the labels ``("P", "N")``: the binary system is the case K = 2, so the
same file declares it and the same calls price it.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

import causalcost as cc
from causalcost.cli.app import main

KS = [2, 3, 4]
REL = 1e-9
MODELS = ["a", "b", "c"]
SLOT = "b"


def labels_of(k: int) -> list[str]:
    return ["P", "N"] if k == 2 else ["ok", "flu", "covid", "cold"][:k]


def confusion_rates(k: int, right: float) -> np.ndarray:
    return right * np.eye(k) + (1 - right) / (k - 1) * (1 - np.eye(k))


def costs_of(k: int) -> np.ndarray:
    c = (np.arange(k * k, dtype=float).reshape(k, k) * 7) % 5 + 1
    np.fill_diagonal(c, 0.0)
    return c


def prior_of(k: int) -> np.ndarray:
    p = np.arange(k, 0, -1, dtype=float)
    return p / p.sum()


def _rows(m: np.ndarray) -> str:
    return "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in m) + "]"


def network_text(k: int) -> str:
    labels = ", ".join(f'"{x}"' for x in labels_of(k))
    prior = ", ".join(repr(float(v)) for v in prior_of(k))
    easy, hard = confusion_rates(k, 0.9), confusion_rates(k, 0.5)
    return f'''
format = "causalcost-network"
version = 1
name = "parity{k}"
slot = "{SLOT}"

[class]
labels = [{labels}]
prior = [{prior}]

[[latents]]
name = "Difficulty"
states = ["easy", "hard"]
probabilities = {_rows(np.tile([[0.7, 0.3]], (k, 1)))}

[[models]]
name = "a"
latent = "Difficulty"
[models.confusion]
easy = {_rows(easy)}
hard = {_rows(hard)}

[[models]]
name = "b"
confusion = {_rows(confusion_rates(k, 0.8))}

[[models]]
name = "c"
confusion = {_rows(confusion_rates(k, 0.7))}

[fusioner]
rule = "plurality"
'''


def plurality(votes: np.ndarray, k: int) -> np.ndarray:
    """Plurality of integer votes (rows instances), ties to the first label: plain numpy."""
    counts = np.stack([(votes == j).sum(axis=1) for j in range(k)], axis=1)
    return np.argmax(counts, axis=1)


def simulate_log(k: int, n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = np.array(labels_of(k), dtype=object)
    y = rng.choice(k, size=n, p=prior_of(k))
    cols: dict[str, object] = {"truth": names[y]}
    for m, right in (("a", 0.75), ("b", 0.8), ("c", 0.7), ("cand", 0.85), ("cand2", 0.6)):
        wrong = (y + rng.integers(1, k, n)) % k
        cols[m] = names[np.where(rng.random(n) < right, y, wrong)]
    return pd.DataFrame(cols)


def codes(column: pd.Series, k: int) -> np.ndarray:
    return column.map({x: i for i, x in enumerate(labels_of(k))}).to_numpy()


def replay(frame: pd.DataFrame, k: int, slot_votes: np.ndarray) -> np.ndarray:
    """The system's output with ``slot_votes`` in the slot: numpy, no causalcost."""
    votes = np.stack([codes(frame["a"], k), slot_votes, codes(frame["c"], k)], axis=1)
    return plurality(votes, k)


def count(y: np.ndarray, out: np.ndarray, k: int) -> np.ndarray:
    m = np.zeros((k, k), dtype=np.int64)
    np.add.at(m, (y, out), 1)
    return m


def real_cost(frame: pd.DataFrame, k: int, column: str) -> float:
    y = codes(frame["truth"], k)
    return float(costs_of(k)[y, replay(frame, k, codes(frame[column], k))].sum())


def transport(k: int, frame: pd.DataFrame, column: str, worst: bool) -> float:
    """Worst (or best) system cost over every way the candidate's votes of each class fall
    on that class's instances, each instance keeping its own response to the slot: a
    transportation linear programme per class (scipy), with responses from a numpy replay."""
    y = codes(frame["truth"], k)
    responses = np.stack([replay(frame, k, np.full(len(frame), j)) for j in range(k)], axis=1)
    candidate = count(y, codes(frame[column], k), k)
    costs = costs_of(k)
    total = 0.0
    for c in range(k):
        kinds, sizes = np.unique(responses[y == c], axis=0, return_counts=True)
        r, jn = len(kinds), k
        gain = np.array([costs[c, kinds[i, j]] for i in range(r) for j in range(jn)])
        a_eq = np.zeros((r + jn, r * jn))
        for i in range(r):
            a_eq[i, i * jn:(i + 1) * jn] = 1
        for j in range(jn):
            a_eq[r + j, j::jn] = 1
        b_eq = np.concatenate([sizes, candidate[c]]).astype(float)
        res = linprog(-gain if worst else gain, A_eq=a_eq, b_eq=b_eq, bounds=(0, None),
                      method="highs")
        assert res.status == 0
        total += float(gain @ res.x)
    return total


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module", params=KS, ids=lambda k: f"K={k}")
def case(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    k = request.param
    tmp = tmp_path_factory.mktemp(f"parity{k}")
    net = tmp / f"parity{k}.toml"
    net.write_text(network_text(k), encoding="utf-8")
    frame = simulate_log(k)
    frame.to_csv(tmp / "log.csv", index=False)
    system = cc.load_network(net)
    runs = cc.forced_runs(frame, truth="truth", models=MODELS, slot=SLOT, fusioner="plurality",
                          labels=labels_of(k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheet = cc.sheet_from_data(runs, cc.CostMatrix(costs_of(k), labels=labels_of(k)))
    return {"k": k, "tmp": tmp, "net": net, "frame": frame, "system": system, "runs": runs,
            "sheet": sheet}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def pgmpy_table(network: object, k: int, class_node: str = "Class",
                system_node: str = "System") -> np.ndarray:
    from pgmpy.inference import VariableElimination

    labels = labels_of(k)
    engine = VariableElimination(network.do([SLOT]))  # type: ignore[attr-defined]
    t = np.zeros((k, k, k))
    for c, cname in enumerate(labels):
        for j, jname in enumerate(labels):
            q = engine.query([system_node], evidence={class_node: cname, SLOT: jname},
                             show_progress=False)
            t[c, j] = [q.get_value(**{system_node: s}) for s in labels]
    return t


# ------------------------------------------------------------------- declare / intervene
def test_exact_table_equals_pgmpy_on_the_mutilated_graph(case: dict) -> None:
    k, system = case["k"], case["system"]
    table = cc.interventional_table(system)
    assert table.labels == tuple(labels_of(k))
    np.testing.assert_allclose(table.to_numpy(), pgmpy_table(system.network, k), rtol=REL,
                               atol=1e-12)


def test_sampled_table_lies_around_the_exact_one(case: dict) -> None:
    k, system = case["k"], case["system"]
    exact = cc.interventional_table(system).to_numpy()
    sampled = cc.interventional_table(system, method="sampling", samples=40_000, seed=3)
    t = sampled.to_numpy()
    assert t.shape == exact.shape and np.allclose(t.sum(axis=2), 1)
    per_cell = 40_000 / (k * k)  # a generous floor of the instances behind each cell
    band = 6 * np.sqrt(exact * (1 - exact) / per_cell) + 1e-3
    assert (np.abs(t - exact) <= band).all()


def test_query_json_is_the_python_table(case: dict, capsys: pytest.CaptureFixture[str]) -> None:
    k = case["k"]
    data = json.loads(run_cli(capsys, "query", case["net"], "--json"))
    assert data["labels"] == labels_of(k) and data["slot"] == SLOT
    np.testing.assert_allclose(np.array(data["T"]),
                               cc.interventional_table(case["system"]).to_numpy(), rtol=REL)


def test_exported_bif_is_read_back_by_pgmpy(case: dict, capsys: pytest.CaptureFixture[str]) -> None:
    from pgmpy.readwrite import BIFReader

    k, bif = case["k"], case["tmp"] / "system.bif"
    run_cli(capsys, "export", case["net"], "-o", bif)
    model = BIFReader(str(bif)).get_model()
    expected = cc.interventional_table(case["system"]).to_numpy()
    np.testing.assert_allclose(pgmpy_table(model, k), expected, rtol=1e-9, atol=1e-12)
    again = json.loads(run_cli(capsys, "query", bif, "--class-node", "Class", "--system-node",
                               "System", "--slot", SLOT, "--json"))
    np.testing.assert_allclose(np.array(again["T"]), expected, rtol=1e-9, atol=1e-12)


def test_draw_writes_a_picture_of_every_node(case: dict,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    svg = case["tmp"] / "system.svg"
    run_cli(capsys, "draw", case["net"], "-o", svg)
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text
    for node in ["Class", *MODELS]:
        assert node in text


# ---------------------------------------------------------------------------------- data
def test_forced_runs_are_a_numpy_replay(case: dict) -> None:
    k, frame, runs = case["k"], case["frame"], case["runs"]
    y = codes(frame["truth"], k)
    expected = np.stack([count(y, replay(frame, k, np.full(len(frame), j)), k)
                         for j in range(k)])
    np.testing.assert_array_equal(np.asarray(runs.forced), expected)
    observed = count(y, replay(frame, k, codes(frame[SLOT], k)), k)
    np.testing.assert_array_equal(runs.observed.to_numpy(), observed)
    shuffled = frame["cand"].sample(frac=1.0, random_state=4)  # aligned by index, not order
    with_cand = runs.with_candidate(shuffled)
    np.testing.assert_array_equal(with_cand.to_numpy(),
                                  count(y, replay(frame, k, codes(frame["cand"], k)), k))
    costs = cc.CostMatrix(costs_of(k), labels=labels_of(k))
    assert with_cand.cost(costs) == pytest.approx(real_cost(frame, k, "cand"), rel=REL)


# ---------------------------------------------------------------------------- price / sheet
def test_sheet_from_network_matrices_by_numpy(case: dict) -> None:
    k = case["k"]
    costs = cc.CostMatrix(costs_of(k), labels=labels_of(k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheet = cc.sheet_from_network(case["net"], costs, assumption="none")
    t = pgmpy_table(case["system"].network, k)
    m1 = np.einsum("cjs,cs->cj", t, costs_of(k))
    np.testing.assert_allclose(sheet.m1, m1, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sheet.m2, m1 - np.diag(m1)[:, None], rtol=1e-9, atol=1e-12)
    assert sheet.k == k and tuple(sheet.label_names) == tuple(labels_of(k))


def test_evaluate_on_the_sheets_rows_by_numpy_and_linear_programme(case: dict) -> None:
    k, frame, sheet = case["k"], case["frame"], case["sheet"]
    y, pred = codes(frame["truth"], k), codes(frame["cand"], k)
    n = count(y, pred, k)
    f = np.asarray(sheet.forced, dtype=float)  # F[j, c, s]
    sizes = f[0].sum(axis=1)
    eval1 = sum(n[c, j] * (f[j, c] @ costs_of(k)[c]) / sizes[c]
                for c in range(k) for j in range(k))
    r = cc.evaluate(sheet, (frame["truth"], frame["cand"]), same_instances=True)
    assert r.eval1 == pytest.approx(eval1, rel=REL)
    assert r.worst_cost == pytest.approx(transport(k, frame, "cand", worst=True), rel=1e-7)
    assert r.best_cost == pytest.approx(transport(k, frame, "cand", worst=False), rel=1e-7)
    assert r.best_cost - 1e-9 <= real_cost(frame, k, "cand") <= r.worst_cost + 1e-9


def test_compare_rows_are_evaluate_one_at_a_time(case: dict) -> None:
    k, frame, sheet = case["k"], case["frame"], case["sheet"]
    preds = {m: frame[m] for m in ("a", "c", "cand", "cand2")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = cc.compare(sheet, y_true=frame["truth"], predictions=preds, same_instances=True)
    for name, p in preds.items():
        one = cc.evaluate(sheet, (frame["truth"], p), same_instances=True)
        for column in ("eval1", "worst_cost", "best_cost"):
            assert table.loc[name, column] == pytest.approx(getattr(one, column), rel=REL)
        assert table.loc[name, "best_cost"] - 1e-9 <= real_cost(frame, k, name) \
            <= table.loc[name, "worst_cost"] + 1e-9
    assert list(table["rank"]) == sorted(table["rank"])


# -------------------------------------------------------------------------------- judge
def test_backtest_real_costs_by_numpy(case: dict) -> None:
    k, frame = case["k"], case["frame"]
    costs = cc.CostMatrix(costs_of(k), labels=labels_of(k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = cc.backtest(case["runs"], {"cand": frame["cand"], "cand2": "cand2"},
                             costs=costs).to_frame()
    for name in ("cand", "cand2"):
        assert result.loc[name, "real_cost"] == pytest.approx(real_cost(frame, k, name), rel=REL)
    assert result["inside"].all()


def test_slot_importance_by_numpy(case: dict) -> None:
    k, frame = case["k"], case["frame"]
    imp = cc.slot_importance(frame, truth="truth", models=MODELS, fusioner="plurality",
                             labels=labels_of(k), costs=costs_of(k)).to_frame()
    assert imp.loc[SLOT, "as_is_cost"] == pytest.approx(real_cost(frame, k, SLOT), rel=REL)
    assert imp.loc[SLOT, "perfect_cost"] == pytest.approx(real_cost(frame, k, "truth"), rel=REL)


def test_system_scorer_is_evaluate_of_the_counted_confusion(case: dict) -> None:
    from sklearn.linear_model import LogisticRegression

    k, sheet = case["k"], case["sheet"]
    rng = np.random.default_rng(k)
    x = rng.normal(size=(300, k))
    names = np.array(labels_of(k), dtype=object)
    y = names[np.argmax(x + rng.normal(size=(300, k)), axis=1)]
    model = LogisticRegression().fit(x, y)
    scorer = cc.system_scorer(sheet)
    counted = count(codes(pd.Series(y), k), codes(pd.Series(model.predict(x)), k), k)
    expected = cc.evaluate(sheet, counted).expected_cost
    assert scorer(model, x, y) == pytest.approx(-expected, rel=REL)


# ---------------------------------------------------------------------------------- CLI
def _log_options(case: dict) -> list[str]:
    return ["--truth", "truth", "--models", ",".join(MODELS), "--fusioner", "plurality",
            "--labels", ",".join(labels_of(case["k"]))]


def _costs_option(k: int) -> str:
    return ";".join(",".join(repr(float(v)) for v in row) for row in costs_of(k))


def test_cli_runs_equal_the_python_runs(case: dict, capsys: pytest.CaptureFixture[str]) -> None:
    k = case["k"]
    data = json.loads(run_cli(capsys, "runs", case["tmp"] / "log.csv", "--slot", SLOT,
                              *_log_options(case), "--candidate", "cand", "--json"))
    assert data["labels"] == labels_of(k) and data["n"] == len(case["frame"])
    runs = case["runs"]
    forced = np.array([data["forced"][label] for label in labels_of(k)])
    np.testing.assert_array_equal(forced, np.asarray(runs.forced))
    np.testing.assert_array_equal(np.array(data["observed"]), runs.observed.to_numpy())
    np.testing.assert_array_equal(np.array(data["candidate"]["system"]),
                                  runs.with_candidate("cand").to_numpy())


def _find_matrix(data: object, shape: tuple[int, ...]) -> np.ndarray:
    """The first nested list of the given shape in a JSON object."""
    stack = [data]
    while stack:
        item = stack.pop(0)
        if isinstance(item, list):
            try:
                arr = np.array(item, dtype=float)
            except (TypeError, ValueError):
                arr = None
            if arr is not None and arr.shape == shape:
                return arr
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    raise AssertionError(f"no {shape} matrix in the JSON")


def test_cli_derive_and_evaluate_equal_python(case: dict,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    k, tmp, frame = case["k"], case["tmp"], case["frame"]
    sheet_path = tmp / "sheet.json"
    run_cli(capsys, "derive", "--data", tmp / "log.csv", "--slot", SLOT, *_log_options(case),
            "--costs", _costs_option(k), "-o", sheet_path)
    sheet = cc.load_sheet(sheet_path)
    np.testing.assert_array_equal(np.asarray(sheet.forced), np.asarray(case["runs"].forced))
    np.testing.assert_allclose(sheet.m1, case["sheet"].m1, rtol=REL)
    pd.DataFrame({"truth": frame["truth"], "prediction": frame["cand"]}).to_csv(
        tmp / "cand.csv", index=False)
    data = json.loads(run_cli(capsys, "evaluate", sheet_path, "--predictions", tmp / "cand.csv",
                              "--json"))
    expected = cc.evaluate(sheet, (frame["truth"], frame["cand"]))
    text = json.dumps(data)
    assert sheet.digest in text
    assert _first_number(data, "eval1") == pytest.approx(expected.eval1, rel=REL)
    assert _first_number(data, "worst_cost") == pytest.approx(expected.worst_cost, rel=REL)


def test_cli_derive_from_a_network_file_equals_python(case: dict,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    k, tmp = case["k"], case["tmp"]
    path = tmp / "net_sheet.json"
    run_cli(capsys, "derive", case["net"], "--costs", _costs_option(k), "--assumption", "none",
            "-o", path)
    sheet = cc.load_sheet(path)
    t = pgmpy_table(case["system"].network, k)
    np.testing.assert_allclose(sheet.m1, np.einsum("cjs,cs->cj", t, costs_of(k)), rtol=1e-9,
                               atol=1e-12)
    assert sheet.label_names == tuple(labels_of(k)) and sheet.slot == SLOT


def _first_number(data: object, key: str) -> float:
    stack = [data]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            if key in item and isinstance(item[key], (int, float)):
                return float(item[key])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    raise AssertionError(f"no number {key!r} in the JSON")


def test_cli_backtest_and_importance_equal_python(case: dict,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    k, tmp, frame = case["k"], case["tmp"], case["frame"]
    data = json.loads(run_cli(capsys, "backtest", tmp / "log.csv", "--slot", SLOT,
                              *_log_options(case), "--candidates", "cand,cand2", "--costs",
                              _costs_option(k), "--json"))
    text = json.dumps(data)
    for name in ("cand", "cand2"):
        assert name in text
    reals = sorted(_all_numbers(data, "real_cost"))
    assert reals == pytest.approx(sorted(real_cost(frame, k, n) for n in ("cand", "cand2")),
                                  rel=REL)
    imp = json.loads(run_cli(capsys, "importance", tmp / "log.csv", *_log_options(case),
                             "--costs", _costs_option(k), "--json"))
    assert real_cost(frame, k, SLOT) == pytest.approx(
        _all_numbers(imp, "as_is_cost")[MODELS.index(SLOT)], rel=REL)


def _all_numbers(data: object, key: str) -> list[float]:
    out: list[float] = []
    stack = [data]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            if key in item and isinstance(item[key], (int, float)):
                out.append(float(item[key]))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def test_cli_coverage_experiment_runs_for_every_k(case: dict,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    k, tmp = case["k"], case["tmp"]
    out = tmp / "coverage"
    run_cli(capsys, "experiment", "coverage", "--labels", str(k), "--n1", "50", "--n2", "40",
            "--repetitions", "30", "--seed", "1", "--quiet", "-o", out)
    frame = pd.read_csv(out / "coverage.csv")
    assert len(frame) == 1 and 0 <= frame["p_plain"].iloc[0] <= 1
