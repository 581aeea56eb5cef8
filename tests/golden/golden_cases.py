"""The cases behind the golden files, and the adapters that read numbers off causalcost objects.

Used by ``make_golden.py`` (records the numbers) and ``test_golden.py`` (recomputes them and
compares at rel 1e-12). Every causalcost call and every read of a result goes through one small
adapter function below (``table_T``, ``bound_numbers``, ``k_bound`` ...): when a name changes
(the unified API for any number of labels), update it here, once, and the recorded numbers
must still come out.

Each group of cases is a function ``group_<name>(workdir) -> dict`` returning plain JSON values
(dicts with string keys, lists, numbers, strings, booleans, None). The inputs that define a
case (system specifications, candidates, costs) are part of the recorded JSON, so a change in
a random generator shows up as a changed input, not as a mysterious number.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import causalcost as cc

#: Tolerances of the comparison (relative; absolute for values at or near zero).
REL = 1e-12
ABS = 1e-12

BINARY_RULES = ("and", "or", "majority", "k_of_n", "weighted")
COSTS = ({"tp": 0.0, "fn": 5.0, "fp": 1.0, "tn": 0.0},
         {"tp": 0.0, "fn": 1.0, "fp": 1.0, "tn": 0.0},
         {"tp": 0.25, "fn": 3.5, "fp": 2.0, "tn": 0.125})
CANDIDATES = ({"tp": 50, "fn": 50, "fp": 100, "tn": 100},
              {"tp": 70, "fn": 30, "fp": 60, "tn": 140},
              {"tp": 93, "fn": 7, "fp": 11, "tn": 189},
              {"tp": 0, "fn": 100, "fp": 0, "tn": 200})


# ---------------------------------------------------------------------------------------------
# plain values
# ---------------------------------------------------------------------------------------------
def plain(value: Any) -> Any:
    """numpy scalars and arrays, tuples -> JSON values (ints stay ints, floats stay floats)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)  # NaN: "not defined"
    return value


def cells(m: Any) -> list[Any]:
    """A binary confusion (or cost) matrix's four cells, tp fn fp tn: from its binary names,
    or from its 2 x 2 matrix (``to_numpy()`` or an array; rows the true class P, N)."""
    if hasattr(m, "tp"):
        return plain([m.tp, m.fn, m.fp, m.tn])
    matrix = np.asarray(m.to_numpy() if hasattr(m, "to_numpy") else m)
    if matrix.shape != (2, 2):
        raise AssertionError(f"a binary matrix should be 2 x 2, got {matrix.shape}")
    return plain(matrix.ravel())


def confusion(d: Mapping[str, Any]) -> Any:
    return cc.Confusion(tp=d["tp"], fn=d["fn"], fp=d["fp"], tn=d["tn"])


def costs(d: Mapping[str, Any]) -> Any:
    return cc.CostMatrix(tp=d["tp"], fn=d["fn"], fp=d["fp"], tn=d["tn"])


def error_name(exc: BaseException) -> dict[str, str]:
    return {"error": type(exc).__name__}


def attempt(read: Callable[[Any], Any], fn: Callable[..., Any], *args: Any,
            **kwargs: Any) -> Any:
    """``read(fn(*args, **kwargs))``, or ``{"error": <exception class>}`` for a causalcost
    refusal."""
    try:
        return read(fn(*args, **kwargs))
    except cc.CausalCostError as exc:
        return error_name(exc)


# ---------------------------------------------------------------------------------------------
# adapters: binary objects
# ---------------------------------------------------------------------------------------------
def _binary_cells_to_T(p: np.ndarray) -> np.ndarray:
    """(2, 2, 4) [class, forced, TP FN FP TN] -> T[c, j, s] (2, 2, 2), s in (P, N)."""
    t = np.empty((2, 2, 2))
    t[0, :, 0], t[0, :, 1] = p[0, :, 0], p[0, :, 1]
    t[1, :, 0], t[1, :, 1] = p[1, :, 2], p[1, :, 3]
    return t


def _as_T(values: Any) -> list[Any]:
    p = np.asarray(values, dtype=float)
    if p.shape == (2, 2, 4):
        p = _binary_cells_to_T(p)
    if p.shape != (2, 2, 2):
        raise AssertionError(f"a binary table should be (2, 2, 4) or (2, 2, 2), got {p.shape}")
    return plain(p)


def table_T(table: Any) -> list[Any]:
    """A binary interventional table as ``T[c, j, s]`` (classes, forced labels, outputs P, N)."""
    if hasattr(table, "to_numpy"):
        return _as_T(table.to_numpy())
    return _as_T(table.probabilities)


def table_intervals(table: Any) -> dict[str, Any] | None:
    """Lower and upper interval ends of a counted table, as ``T[c, j, s]`` arrays."""
    low = getattr(table, "lower", None)
    if low is None:
        low = getattr(table, "low", None)
    high = getattr(table, "upper", None)
    if high is None:
        high = getattr(table, "high", None)
    if low is None or high is None:
        return None
    return {"low": _as_T(low), "high": _as_T(high)}


def rates_numbers(rates: Any) -> list[list[float]]:
    """``[[e_P(P), e_P(N)], [e_N(P), e_N(N)]]``."""
    d = rates.to_dict()
    return [[float(d["P"]["P"]), float(d["P"]["N"])], [float(d["N"]["P"]), float(d["N"]["N"])]]


def bound_numbers(b: Any) -> dict[str, Any]:
    """Worst, expected, best confusions and costs of a binary bound (or report)."""
    return {"worst": cells(b.worst), "best": cells(b.best), "expected": cells(b.expected),
            "worst_cost": float(b.worst_cost), "best_cost": float(b.best_cost),
            "expected_cost": float(b.expected_cost), "assumption": str(b.assumption),
            "form": str(b.form)}


def report_numbers(r: Any) -> dict[str, Any]:
    """A binary report's costs, cases and (with a confidence level) intervals."""
    out = {**bound_numbers(r), "eval1": float(r.eval1), "eval2": float(r.eval2),
           "perfect_slot_cost": float(r.perfect_slot_cost)}
    if r.intervals is not None:
        f = r.intervals.frame
        out["intervals"] = {str(name): [float(row["ci_low"]), float(row["ci_high"])]
                            for name, row in f.iterrows()}
    if r.high_confidence is not None:
        out["high_confidence_worst"] = [*cells(r.high_confidence.worst),
                                        float(r.high_confidence.worst_cost)]
    if r.high_confidence_best is not None:
        out["high_confidence_best"] = [*cells(r.high_confidence_best.best),
                                       float(r.high_confidence_best.best_cost)]
    return out


def frame_numbers(frame: pd.DataFrame) -> dict[str, Any]:
    """Numeric and boolean columns of a frame: ``{column: {row name: value}}``."""
    out: dict[str, Any] = {}
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
            out[str(col)] = {str(i): plain(v) for i, v in s.items()}
    return out


def runs_numbers(runs: Any) -> dict[str, Any]:
    """Binary forced runs: the count array, the four runs, kinds, monotone on data."""
    kinds = runs.kinds
    return {
        "counts": plain(np.asarray(runs.counts)),
        "n": int(runs.n),
        "forced_p": cells(runs.forced_p), "forced_n": cells(runs.forced_n),
        "observed": None if runs.observed is None else cells(runs.observed),
        "slot_model": None if runs.slot_confusion is None else cells(runs.slot_confusion),
        "kinds": {str(c): {str(k): int(kinds.loc[c, k]) for k in kinds.columns}
                  for c in kinds.index},
        "monotone_on_data": bool(runs.monotone_on_data),
        "rates": rates_numbers(runs_rates(runs)),
    }


def runs_rates(runs: Any) -> Any:
    """The error rates counted by binary forced runs (a method today)."""
    rates = runs.error_rates
    return rates() if callable(rates) else rates


def sheet_numbers(sheet: Any) -> dict[str, Any]:
    """A binary sheet's numbers (no digest, no timestamps)."""
    out: dict[str, Any] = {
        "rates": rates_numbers(sheet.rates),
        "class_counts": None if sheet.class_counts is None else plain(sheet.class_counts),
        "prior": None if sheet.prior is None else float(sheet.prior),
        "costs": cells(sheet.costs),
        "expected_cost_matrix": cells(sheet.expected_cost_matrix),
        "error_transition_matrix": cells(sheet.error_transition_matrix),
        "assumption": str(sheet.assumption),
        "form": str(sheet.form),
        "forced_p": None if sheet.forced_p is None else cells(sheet.forced_p),
        "forced_n": None if sheet.forced_n is None else cells(sheet.forced_n),
    }
    if sheet.table is not None:
        out["table"] = table_T(sheet.table)
        out["intervals"] = table_intervals(sheet.table)
    return out


def backtest_numbers(bt: Any) -> dict[str, Any]:
    """A backtest's table and selection rules (numbers), and each candidate's real system."""
    return {"frame": frame_numbers(bt.frame), "summary": frame_numbers(bt.summary),
            "real": {str(k): cells(v) for k, v in bt.real.items()}}


def importance_numbers(si: Any) -> dict[str, Any]:
    """Slot importance: the per-model table and the system's confusion in every version."""
    return {"frame": frame_numbers(si.frame),
            "confusions": {f"{m}/{v}": cells(c) for (m, v), c in si.confusions.items()}}


def bound_many_numbers(frame: pd.DataFrame) -> dict[str, Any]:
    """``bound_many`` columns as lists (row order kept)."""
    return {str(c): plain(frame[c].to_numpy()) for c in frame.columns}


# ---------------------------------------------------------------------------------------------
# adapters: K-label objects (today the multiclass_* names; one place to update)
# ---------------------------------------------------------------------------------------------
def k_system(spec: Mapping[str, Any]) -> Any:
    """A K-label system from its recorded specification."""
    b = cc.SystemBuilder(spec["prior"], labels=spec["labels"])
    for lat in spec.get("latents", []):
        b = b.add_latent(lat["name"], lat["states"], lat["probabilities"])
    for m in spec["models"]:
        if m.get("latent"):
            b = b.add_model(m["name"], confusion=m["confusion"], latent=m["latent"])
        else:
            b = b.add_model(m["name"], confusion=m["confusion"])
    return b.set_fusioner(spec["fusioner"], **spec.get("options", {})).build(slot=spec["slot"])


def k_table(system: Any, slot: str) -> list[Any]:
    """``T[c, j, s]`` of a K-label system's slot."""
    return plain(np.asarray(cc.interventional_table(system, slot).to_numpy(), dtype=float))


def k_bound(forced: Any, model: Any, cost: Any, **kwargs: Any) -> dict[str, Any]:
    """A K-label bound's numbers (today ``cc.multiclass_bound``; ``cc.bound`` for any K next)."""
    b = cc.multiclass_bound(forced, model, cost, **kwargs)
    return k_bound_numbers(b)


def k_bound_kinds(kinds: Any, model: Any, cost: Any) -> dict[str, Any]:
    return k_bound_numbers(cc.multiclass_bound(kinds=kinds, model=model, costs=cost))


def k_bound_numbers(b: Any) -> dict[str, Any]:
    def matrix(m: Any) -> list[Any]:
        return plain(np.asarray(m.to_numpy() if hasattr(m, "to_numpy") else m, dtype=float))

    return {"worst": matrix(b.worst), "best": matrix(b.best), "expected": matrix(b.expected),
            "worst_cost": float(b.worst_cost), "best_cost": float(b.best_cost),
            "expected_cost": float(b.expected_cost), "assumption": str(b.assumption),
            "form": str(b.form)}


def k_runs(frame: pd.DataFrame, **kwargs: Any) -> Any:
    return cc.forced_runs(frame, **kwargs)


def k_kinds_numbers(kinds: Any) -> dict[str, int]:
    """``{"c|r0,r1,..": count}`` by label index."""
    return {f"{c}|{','.join(map(str, r))}": int(n) for (c, r), n in sorted(kinds.counts.items())}


def k_runs_numbers(runs: Any) -> dict[str, Any]:
    def matrix(m: Any) -> Any:
        return None if m is None else plain(np.asarray(
            m.to_numpy() if hasattr(m, "to_numpy") else m, dtype=np.int64))

    return {"forced": matrix(runs.forced), "observed": matrix(runs.observed),
            "slot_model": matrix(runs.slot_model), "n": int(runs.n),
            "kinds": k_kinds_numbers(runs.kinds)}


def k_with_candidate(runs: Any, column: str) -> dict[str, Any]:
    """The real system's K x K confusion with a candidate column in the slot, and its own."""
    system = runs.with_candidate(column)
    own = runs.candidate_confusion(column)
    return {"system": plain(np.asarray(system.to_numpy() if hasattr(system, "to_numpy")
                                       else system, dtype=np.int64)),
            "candidate": plain(np.asarray(own.to_numpy() if hasattr(own, "to_numpy") else own,
                                          dtype=np.int64))}


# ---------------------------------------------------------------------------------------------
# group 1: the shipped networks
# ---------------------------------------------------------------------------------------------
#: (costs, candidates) indices priced for every slot of the random systems (all for networks).
SMALL = ((0, 2), (0, 1, 2))


def _bounds_from_rates(rates_or_table: Any, subset: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cost_ix, cand_ix = subset or (range(len(COSTS)), range(len(CANDIDATES)))
    for ci in cost_ix:
        cost = COSTS[ci]
        for mi in cand_ix:
            cand = CANDIDATES[mi]
            for assumption in ("monotone", "none"):
                out[f"costs{ci}/cand{mi}/{assumption}"] = attempt(
                    bound_numbers, cc.bound_from_rates, rates_or_table, confusion(cand),
                    costs(cost), assumption=assumption)
    return out


def _system_numbers(system: Any, slots: Any, subset: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for slot in slots:
        table = cc.interventional_table(system, slot)
        out[slot] = {
            "table": table_T(table),
            "rates": rates_numbers(table.error_rates),
            "monotone": None if table.monotonicity is None
            else bool(table.monotonicity.is_monotone),
            "bounds": _bounds_from_rates(table, subset),
        }
    return out


def group_networks(workdir: Path | None = None, recorded: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in cc.list_networks("votes"):
        system = cc.load_network(name)
        entry = {"slot": system.slot, "models": list(system.models),
                 "slots": _system_numbers(system, system.models)}
        sheet = cc.sheet_from_network(system, costs(COSTS[0]))
        entry["sheet"] = sheet_numbers(sheet)
        entry["reports"] = {f"cand{i}": report_numbers(cc.evaluate(sheet, confusion(c),
                                                                   confidence=0.95))
                            for i, c in enumerate(CANDIDATES)}
        entry["slot_importance"] = importance_numbers(cc.slot_importance(
            system, costs=costs(COSTS[0])))
        out[name] = entry
    return out


# ---------------------------------------------------------------------------------------------
# group 2: random binary systems
# ---------------------------------------------------------------------------------------------
def random_system_specs(count: int = 20, seed: int = 20231) -> list[dict[str, Any]]:
    """Specifications (recorded in the JSON) of ``count`` random binary systems."""
    rng = np.random.default_rng(seed)
    specs = []
    for i in range(count):
        n = int(rng.integers(2, 6))
        rule = BINARY_RULES[i % len(BINARY_RULES)]
        models = [{"name": f"m{j}", "sensitivity": float(rng.uniform(0.5, 0.99)),
                   "specificity": float(rng.uniform(0.5, 0.99))} for j in range(n)]
        options: dict[str, Any] = {}
        if rule == "k_of_n":
            options["k"] = int(rng.integers(1, n + 1))
        elif rule == "weighted":
            w = [float(x) for x in rng.uniform(0.1, 3.0, n)]
            options["weights"] = w
            options["threshold"] = float(sum(w) * rng.uniform(0.25, 0.75))
        elif rule == "majority" and n % 2 == 0:
            options["tie"] = "positive" if i % 2 else "negative"
        specs.append({"prior": float(rng.uniform(0.05, 0.95)), "models": models,
                      "rule": rule, "options": options, "slot": f"m{int(rng.integers(0, n))}"})
    return specs


def build_binary(spec: Mapping[str, Any]) -> Any:
    b = cc.SystemBuilder(class_prior=spec["prior"])
    for m in spec["models"]:
        b = b.add_model(m["name"], sensitivity=m["sensitivity"], specificity=m["specificity"])
    return b.set_fusioner(spec["rule"], **spec["options"]).build(slot=spec["slot"])


def group_random_systems(workdir: Path | None = None, recorded: Any = None) -> dict[str, Any]:
    """With ``recorded`` (the golden file), the recorded specifications are rebuilt."""
    specs = (random_system_specs() if recorded is None
             else [recorded[key]["spec"] for key in sorted(recorded)])
    out: dict[str, Any] = {}
    for i, spec in enumerate(specs):
        system = build_binary(spec)
        out[f"system{i:02d}"] = {"spec": spec,
                                 "slots": _system_numbers(system, system.models, SMALL)}
    return out


# ---------------------------------------------------------------------------------------------
# group 3: random logs (pandas) through forced runs, sheets, evaluate, compare, bound_many
# ---------------------------------------------------------------------------------------------
LOG_CASES = (
    {"seed": 1, "rows": 400, "prior": 0.3, "accuracies": [0.8, 0.7, 0.75], "rule": "majority",
     "options": {}, "slot": "m1", "candidates": [0.6, 0.85, 0.95]},
    {"seed": 2, "rows": 1000, "prior": 0.5, "accuracies": [0.9, 0.6], "rule": "and",
     "options": {}, "slot": "m0", "candidates": [0.7, 0.9]},
    {"seed": 3, "rows": 700, "prior": 0.2, "accuracies": [0.85, 0.65, 0.7, 0.8], "rule": "or",
     "options": {}, "slot": "m3", "candidates": [0.5, 0.75, 0.9]},
    {"seed": 4, "rows": 1200, "prior": 0.4, "accuracies": [0.7, 0.7, 0.8, 0.9],
     "rule": "k_of_n", "options": {"k": 2}, "slot": "m2", "candidates": [0.8, 0.95]},
    {"seed": 5, "rows": 900, "prior": 0.6, "accuracies": [0.75, 0.8, 0.65],
     "rule": "weighted", "options": {"weights": [1.5, 1.0, 0.75], "threshold": 1.6},
     "slot": "m0", "candidates": [0.55, 0.9]},
)


def log_frame(case: Mapping[str, Any]) -> pd.DataFrame:
    """A random log: truth ``y`` (0/1), model columns ``m*``, candidate columns ``c*``."""
    rng = np.random.default_rng(case["seed"])
    n = case["rows"]
    y = (rng.random(n) < case["prior"]).astype(np.int64)
    cols: dict[str, Any] = {"y": y}
    for j, acc in enumerate(case["accuracies"]):
        cols[f"m{j}"] = np.where(rng.random(n) < acc, y, 1 - y)
    for j, acc in enumerate(case["candidates"]):
        cols[f"c{j}"] = np.where(rng.random(n) < acc, y, 1 - y)
    return pd.DataFrame(cols)


def frame_digest(frame: pd.DataFrame) -> str:
    return hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()


def _fusion_kwargs(case: Mapping[str, Any]) -> dict[str, Any]:
    return {"truth": "y", "models": [f"m{j}" for j in range(len(case["accuracies"]))],
            "slot": case["slot"], "fusioner": case["rule"], **case["options"]}


def group_logs(workdir: Path | None = None, recorded: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, case in enumerate(LOG_CASES):
        frame = log_frame(case)
        kw = _fusion_kwargs(case)
        runs = cc.forced_runs(frame, **kw)
        names = [f"c{j}" for j in range(len(case["candidates"]))]
        with_cand = {c: runs.with_candidate(c) for c in names}
        own = {c: cc.confusion_from_predictions(frame, "y", c) for c in names}
        entry: dict[str, Any] = {"case": dict(case), "frame_sha256": frame_digest(frame),
                                 "runs": runs_numbers(runs),
                                 "with_candidate": {c: cells(m) for c, m in with_cand.items()},
                                 "candidates": {c: cells(m) for c, m in own.items()}}
        sheets = {}
        sheets_made = []
        for ci, cost in enumerate(COSTS[:2]):
            sheet = cc.sheet_from_data(frame, costs(cost), **kw)
            sheets_made.append(sheet)
            evals = {}
            for c in names:
                evals[c] = report_numbers(cc.evaluate(sheet, own[c], confidence=0.9))
                evals[f"{c}/same"] = report_numbers(cc.evaluate(sheet, own[c],
                                                                same_instances=True))
            evals["thesis"] = report_numbers(cc.evaluate(sheet, confusion(CANDIDATES[1])))
            ranked = cc.compare(sheet, own, confidence=0.95)
            ranked_same = cc.compare(sheet, own, same_instances=True)
            sheets[f"costs{ci}"] = {"sheet": sheet_numbers(sheet), "evaluate": evals,
                                    "compare": frame_numbers(ranked),
                                    "compare_order": [str(x) for x in ranked.index],
                                    "compare_same": frame_numbers(ranked_same)}
        entry["sheets"] = sheets
        entry["compare_predictions"] = frame_numbers(cc.compare(
            sheets_made[0], y_true=frame["y"], predictions={c: frame[c] for c in names},
            confidence=0.95))
        entry["backtest"] = backtest_numbers(cc.backtest(runs, {c: c for c in names},
                                                         costs=costs(COSTS[0])))
        entry["slot_importance"] = importance_numbers(cc.slot_importance(
            frame, costs=costs(COSTS[0]), truth="y", models=kw["models"],
            fusioner=case["rule"], **case["options"]))
        models = np.array([cells(own[c]) for c in names], dtype=np.int64)
        entry["bound"] = {f"{c}/{a}": attempt(
            bound_numbers, cc.bound, runs.forced_p, runs.forced_n, own[c], costs(COSTS[0]),
            assumption=a)
            for c in names for a in ("monotone", "none")}
        entry["bound_kinds"] = {c: bound_numbers(cc.bound(kinds=runs.kinds, model=own[c],
                                                          costs=costs(COSTS[2])))
                                for c in names}
        entry["bound_many"] = {
            "counts_none": bound_many_numbers(cc.bound_many(
                runs.forced_p, runs.forced_n, models, costs(COSTS[0]), assumption="none")),
            "kinds": bound_many_numbers(cc.bound_many(models=models, kinds=runs.kinds,
                                                      costs=costs(COSTS[2]))),
            "rates": bound_many_numbers(cc.bound_many_from_rates(
                runs_rates(runs), models, costs(COSTS[1]), assumption="none")),
        }
        entry["bound_many"]["counts_monotone"] = attempt(
            bound_many_numbers, cc.bound_many, runs.forced_p, runs.forced_n, models,
            costs(COSTS[0]))
        out[f"log{i}"] = entry
    return out


# ---------------------------------------------------------------------------------------------
# group 4: the command line's JSON
# ---------------------------------------------------------------------------------------------
def run_cli(argv: list[str]) -> Any:
    """Run ``causalcost ARGV`` in this process; its parsed JSON output (exit status 0)."""
    from causalcost.cli.app import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    if status != 0:
        raise AssertionError(f"causalcost {' '.join(argv)} exited {status}")
    return json.loads(buffer.getvalue())


def cli_commands(workdir: Path) -> dict[str, list[str]]:
    """Every recorded command line (paths inside ``workdir``)."""
    cmds: dict[str, list[str]] = {}
    for name in cc.list_networks("votes"):
        system = cc.load_network(name)
        cmds[f"query {name}"] = ["query", name, "--json"]
        for slot in system.models:
            cmds[f"query {name} --slot {slot}"] = ["query", name, "--slot", slot, "--json"]
        sheet = str(workdir / f"{name}.json")
        cmds[f"evaluate {name}"] = ["evaluate", sheet, "--model", "tp=50,fn=50,fp=100,tn=100",
                                    "--json"]
        cmds[f"evaluate {name} --confidence"] = [
            "evaluate", sheet, "--model", "tp=50,fn=40,fp=100,tn=110", "--confidence", "0.95",
            "--json"]
        cmds[f"evaluate {name} two models"] = [
            "evaluate", sheet, "--model", "a:tp=50,fn=50,fp=100,tn=100",
            "--model", "b:tp=70,fn=30,fp=60,tn=140", "--json"]
    cmds["bound"] = ["bound", "--forced-p", "tp=50,fn=50,fp=0,tn=0", "--forced-n",
                     "tp=0,fn=100,fp=0,tn=0", "--model", "tp=50,fn=50,fp=0,tn=0", "--json"]
    cmds["bound --confidence"] = [
        "bound", "--forced-p", "tp=40,fn=10,fp=30,tn=70", "--forced-n", "tp=10,fn=40,fp=5,tn=95",
        "--model", "tp=45,fn=5,fp=20,tn=80", "--costs", "fn=5,fp=1", "--confidence", "0.95",
        "--json"]
    log = str(workdir / "log.csv")
    common = ["--truth", "y", "--models", "m0,m1,m2", "--slot", "m1", "--fusioner", "majority"]
    cmds["runs"] = ["runs", log, *common, "--json"]
    cmds["runs --candidate"] = ["runs", log, *common, "--candidate", "c0", "--confidence",
                                "0.95", "--json"]
    cmds["backtest"] = ["backtest", log, *common, "--candidates", "c0,c1,c2", "--costs",
                        "fn=5,fp=1", "--json"]
    cmds["importance"] = ["importance", log, "--truth", "y", "--models", "m0,m1,m2",
                          "--fusioner", "majority", "--costs", "fn=5,fp=1", "--json"]
    return cmds


def prepare_cli(workdir: Path) -> None:
    """The sheets and the log the recorded commands read."""
    from causalcost.cli.app import main

    for name in cc.list_networks("votes"):
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            status = main(["derive", name, "--costs", "fn=5,fp=1", "-o",
                           str(workdir / f"{name}.json")])
        if status != 0:
            raise AssertionError(f"derive {name} exited {status}")
    log_frame(LOG_CASES[0]).to_csv(workdir / "log.csv", index=False)


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """``(path, leaf)`` for every leaf of a JSON value; list items as ``[i]``."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def key_paths(value: Any) -> list[str]:
    """Every key path of a JSON value (list positions as ``[]``), containers included."""
    paths: set[str] = set()

    def walk(v: Any, path: str) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                paths.add(f"{path}/{k}")
                walk(x, f"{path}/{k}")
        elif isinstance(v, list):
            for x in v:
                walk(x, f"{path}[]")

    walk(value, "")
    return sorted(paths)


def json_numbers(value: Any) -> dict[str, Any]:
    """The numeric (and boolean) leaves of a JSON value by path."""
    return {p: v for p, v in leaves(value)
            if isinstance(v, (int, float)) and not isinstance(v, str)}


def group_cli(workdir: Path, recorded: Any = None) -> dict[str, Any]:
    prepare_cli(workdir)
    out = {}
    for label, argv in cli_commands(workdir).items():
        data = run_cli(argv)
        out[label] = {"argv": [a.replace(str(workdir), "WORKDIR") for a in argv],
                      "keys": key_paths(data), "numbers": json_numbers(data)}
    return out


# ---------------------------------------------------------------------------------------------
# group 5: K labels (today's multiclass API)
# ---------------------------------------------------------------------------------------------
def _rates(rng: np.random.Generator, k: int, accuracy: float) -> list[list[float]]:
    """A K x K confusion-rate matrix with ``accuracy`` on the diagonal, the rest at random."""
    rows = []
    for c in range(k):
        rest = rng.dirichlet(np.ones(k - 1)) * (1 - accuracy)
        row = list(rest[:c]) + [accuracy] + list(rest[c:])
        rows.append([float(x) for x in row])
    return rows


def k_system_specs(seed: int = 77) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    plans = [
        (["ok", "flu", "covid"], 3, "plurality", {}),
        (["ok", "flu", "covid"], 4, "weighted", {"weights": [1.0, 2.0, 1.5, 0.5]}),
        (["a", "b", "c"], 3, "priority", {"order": ["c", "b", "a"]}),
        (["w", "x", "y", "z"], 3, "plurality", {"tie": "slot"}),
        (["w", "x", "y", "z"], 4, "k_of_n", {"label": "z", "k": 2}),
    ]
    specs = []
    for i, (labels, n, rule, options) in enumerate(plans):
        k = len(labels)
        prior = [float(x) for x in rng.dirichlet(np.ones(k) * 2)]
        models: list[dict[str, Any]] = [
            {"name": f"m{j}", "confusion": _rates(rng, k, float(rng.uniform(0.5, 0.9)))}
            for j in range(n)]
        spec: dict[str, Any] = {"labels": labels, "prior": prior, "models": models,
                                "fusioner": rule, "options": options, "slot": f"m{n - 1}"}
        if i == 0:  # a latent difficulty correlating two models' errors
            spec["latents"] = [{"name": "Difficulty", "states": ["easy", "hard"],
                                "probabilities": [[0.8, 0.2], [0.6, 0.4], [0.5, 0.5]]}]
            models[0]["latent"] = "Difficulty"
            models[0]["confusion"] = {"easy": _rates(rng, k, 0.9), "hard": _rates(rng, k, 0.5)}
        specs.append(spec)
    return specs


def _k_candidate(rng: np.random.Generator, k: int) -> list[list[int]]:
    return [[int(x) for x in row] for row in rng.integers(0, 40, size=(k, k))
            + np.eye(k, dtype=np.int64) * 60]


K_LOGS = (
    {"seed": 11, "rows": 600, "labels": ["ok", "flu", "covid"], "accuracies": [0.8, 0.7, 0.6],
     "fusioner": "plurality", "options": {}, "slot": "m2", "candidates": [0.5, 0.9]},
    {"seed": 12, "rows": 800, "labels": ["w", "x", "y", "z"],
     "accuracies": [0.75, 0.6, 0.7, 0.65], "fusioner": "weighted",
     "options": {"weights": [1.0, 0.5, 2.0, 1.25]}, "slot": "m0", "candidates": [0.6, 0.85]},
    {"seed": 13, "rows": 500, "labels": ["a", "b", "c"], "accuracies": [0.7, 0.8, 0.75],
     "fusioner": "priority", "options": {"order": ["c", "a", "b"]}, "slot": "m1",
     "candidates": [0.65]},
)


def k_log_frame(case: Mapping[str, Any]) -> pd.DataFrame:
    rng = np.random.default_rng(case["seed"])
    labels = np.array(case["labels"], dtype=object)
    k, n = len(labels), case["rows"]
    y = rng.integers(0, k, n)

    def votes(acc: float) -> np.ndarray:
        wrong = (y + rng.integers(1, k, n)) % k
        return labels[np.where(rng.random(n) < acc, y, wrong)]

    cols: dict[str, Any] = {"y": labels[y]}
    for j, acc in enumerate(case["accuracies"]):
        cols[f"m{j}"] = votes(acc)
    for j, acc in enumerate(case["candidates"]):
        cols[f"c{j}"] = votes(acc)
    return pd.DataFrame(cols)


def group_klabel(workdir: Path | None = None, recorded: Any = None) -> dict[str, Any]:
    """With ``recorded`` (the golden file), the recorded systems and candidates are rebuilt."""
    out: dict[str, Any] = {}
    rng = np.random.default_rng(99)
    specs = k_system_specs()
    for i in range(len(specs)):
        if recorded is None:
            spec, cand = specs[i], _k_candidate(rng, len(specs[i]["labels"]))
        else:
            spec, cand = recorded[f"system{i}"]["spec"], recorded[f"system{i}"]["candidate"]
        system = k_system(spec)
        k = len(spec["labels"])
        cost = [[0.0 if c == s else float(1 + c + 2 * s) for s in range(k)] for c in range(k)]
        slots = {}
        for m in spec["models"]:
            table = cc.interventional_table(system, m["name"])
            slots[m["name"]] = {
                "table": k_table(system, m["name"]),
                "bound_none": k_bound(table, cand, cost),
                "bound_monotone": attempt(
                    lambda b: b, k_bound, table, cand, cost, assumption="monotone"),
            }
        out[f"system{i}"] = {"spec": spec, "candidate": cand, "costs": cost, "slots": slots}
    for i, case in enumerate(K_LOGS):
        frame = k_log_frame(case)
        k = len(case["labels"])
        runs = k_runs(frame, truth="y", models=[f"m{j}" for j in range(len(case["accuracies"]))],
                      slot=case["slot"], fusioner=case["fusioner"], labels=case["labels"],
                      **case["options"])
        cost = [[0.0 if c == s else float(2 + (c * 3 + s) % 4) for s in range(k)]
                for c in range(k)]
        cands = {}
        for j in range(len(case["candidates"])):
            name = f"c{j}"
            numbers = k_with_candidate(runs, name)
            own = numbers["candidate"]
            numbers["bound_counts"] = k_bound(runs.forced, own, cost, same_instances=True)
            numbers["bound_counts_monotone"] = attempt(
                lambda b: b, k_bound, runs.forced, own, cost, same_instances=True,
                assumption="monotone")
            numbers["bound_probability"] = k_bound(runs.forced, own, cost)
            numbers["bound_kinds"] = k_bound_kinds(runs.kinds, own, cost)
            cands[name] = numbers
        out[f"log{i}"] = {"case": dict(case), "frame_sha256": frame_digest(frame),
                          "runs": k_runs_numbers(runs), "costs": cost, "candidates": cands}
    return out


GROUPS: dict[str, Callable[..., dict[str, Any]]] = {
    "networks": group_networks,
    "random_systems": group_random_systems,
    "logs": group_logs,
    "cli": group_cli,
    "klabel": group_klabel,
}


# ---------------------------------------------------------------------------------------------
# writing and comparing
# ---------------------------------------------------------------------------------------------
def dumps(value: Any) -> str:
    """Stable JSON: sorted keys, floats at repr precision, one trailing newline."""
    return json.dumps(plain(value), sort_keys=True, indent=1, allow_nan=False) + "\n"


def differences(recorded: Any, current: Any, path: str = "") -> list[str]:
    """Where ``current`` departs from ``recorded``: numbers beyond rel/abs 1e-12, other leaves
    unequal, recorded keys missing (keys only in ``current`` are allowed)."""
    out: list[str] = []
    if isinstance(recorded, dict):
        if not isinstance(current, dict):
            return [f"{path}: recorded a mapping, got {type(current).__name__}"]
        for k, v in recorded.items():
            if k not in current:
                out.append(f"{path}/{k}: missing")
            else:
                out.extend(differences(v, current[k], f"{path}/{k}"))
        return out
    if isinstance(recorded, list):
        if not isinstance(current, list) or len(current) != len(recorded):
            return [f"{path}: recorded a list of {len(recorded)}, got {current!r:.80}"]
        for i, (a, b) in enumerate(zip(recorded, current)):
            out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    if isinstance(recorded, bool) or recorded is None or isinstance(recorded, str):
        return [] if current == recorded and type(current) is type(recorded) else [
            f"{path}: recorded {recorded!r}, got {current!r}"]
    if isinstance(recorded, (int, float)):
        if isinstance(current, bool) or not isinstance(current, (int, float)):
            return [f"{path}: recorded {recorded!r}, got {current!r}"]
        if math.isclose(float(recorded), float(current), rel_tol=REL, abs_tol=ABS):
            return []
        return [f"{path}: recorded {recorded!r}, got {current!r}"]
    return [f"{path}: unexpected recorded value {recorded!r}"]
