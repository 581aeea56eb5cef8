"""Score slots in the network: score nodes over bins, score fusioners, ``T[c, bin, s]``.

Every table is checked against a computation outside causalcost's route: pgmpy
``VariableElimination`` on ``network.do([slot])`` with the slot's bin as evidence (never
``CausalInference.query``), and a brute-force enumeration of every combination of bins in
plain Python (``itertools.product``) with the rule evaluated on the representative scores.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import causalcost as cc
from causalcost.errors import NetworkFileError, NetworkStructureError, ValidationError
from causalcost.network.netschema import from_document
from causalcost.network.scores import MAX_COMBINATIONS, score_bins, score_fusioner

TOL = 1e-12  # exact tables against pgmpy VE / brute force
EDGES = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
SHAPES = {"a": ((5, 2), (2, 5)), "b": ((3, 2), (2, 3)), "c": ((4, 2), (2, 4))}


def beta_system(rule: object = "mean", slot: str = "b", **options: object) -> cc.System:
    b = cc.SystemBuilder(class_prior=0.3)
    for name, (p, n) in SHAPES.items():
        b.add_model(name, scores={"edges": EDGES, "beta": {"P": list(p), "N": list(n)}})
    return b.set_fusioner(rule, **options).build(slot=slot)  # type: ignore[arg-type]


def bumpy(s: np.ndarray) -> np.ndarray:
    """Not monotone in any score: P when the mean sits in a middle band."""
    m = s.mean(axis=1)
    return (m >= 0.4) & (m < 0.6)


RULES = {
    "mean": ("mean", {"threshold": 0.5}),
    "weighted mean": ("mean", {"threshold": 0.45, "weights": {"a": 2, "b": 1, "c": 0.5}}),
    "max": ("max", {"threshold": 0.7}),
    "min": ("min", {"threshold": 0.3}),
    "logistic": ("logistic", {"weights": [1.5, 2.0, -0.5], "bias": -1.2, "threshold": 0.6}),
    "function": (lambda s: s[:, 0] * s[:, 1] + s[:, 2] ** 2, {"threshold": 0.4}),
    "bumpy": (bumpy, {}),
}


def ve_table(system: cc.System, slot: str) -> np.ndarray:
    """``T[c, bin, s]`` by pgmpy VE on ``network.do([slot])``, the bin as evidence."""
    from pgmpy.inference import VariableElimination

    engine = VariableElimination(system.network.do([slot]))
    bins = system.states(slot)
    t = np.zeros((2, len(bins), 2))
    for c, cname in enumerate(("P", "N")):
        for j, jname in enumerate(bins):
            q = engine.query([system.system_node], evidence={system.class_node: cname,
                                                             slot: jname},
                             show_progress=False)
            t[c, j] = [q.get_value(**{system.system_node: s}) for s in ("P", "N")]
    return t


def brute_table(system: cc.System, slot: str) -> np.ndarray:
    """``T[c, bin, s]`` by enumerating every combination of the other models' bins, the rule
    evaluated on one row of representative scores at a time."""
    f = system.fusioner
    i = f.inputs.index(slot)
    probs = {m: system.network.get_cpds(m).get_values() for m in f.inputs}  # (bins, class)
    t = np.zeros((2, len(f.bins[i]), 2))
    for c in range(2):
        for j in range(len(f.bins[i])):
            p_pos = 0.0
            ranges = [range(len(b)) if m != slot else [j] for m, b in zip(f.inputs, f.bins)]
            for combo in itertools.product(*ranges):
                weight = math.prod(float(probs[m][k, c]) for m, k in zip(f.inputs, combo)
                                   if m != slot)
                row = np.array([[f.values[q][k] for q, k in enumerate(combo)]])
                if bool(f.rule.decide(row)[0]):
                    p_pos += weight
            t[c, j] = [p_pos, 1 - p_pos]
    return t


# ------------------------------------------------------------------------------ declare
def test_beta_bins_are_the_beta_mass_on_each_bin() -> None:
    bins = score_bins({"edges": EDGES, "beta": {"P": [5, 2], "N": [2, 5]}})
    for c, (a, b) in enumerate(((5, 2), (2, 5))):
        mass = [integrate.quad(stats.beta(a, b).pdf, lo, hi)[0]
                for lo, hi in zip(EDGES, EDGES[1:])]
        np.testing.assert_allclose(bins.probabilities[c], mass, atol=1e-10)
    assert bins.values == pytest.approx([0.1, 0.3, 0.5, 0.7, 0.9], abs=1e-15)
    assert bins.labels == ("0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1")
    assert bins.to_frame().shape == (5, 3)


def test_explicit_bins_with_values_and_labels() -> None:
    bins = score_bins({"edges": [0, 0.5, 1], "values": [0.4, 0.9], "labels": ["low", "high"],
                       "probabilities": [[0.3, 0.7], [0.8, 0.2]]})
    assert bins.labels == ("low", "high") and bins.values == (0.4, 0.9)
    assert bins.probabilities.tolist() == [[0.3, 0.7], [0.8, 0.2]]


@pytest.mark.parametrize(("spec", "message"), [
    ({"edges": [0, 1], "beta": {"P": [1, 1], "N": [1, 1]}, "bins": 3}, "unknown key"),
    ({"edges": [0, 0.5, 0.5, 1], "beta": {"P": [1, 1], "N": [1, 1]}}, "strictly increasing"),
    ({"edges": [0, 0.5, 0.9], "beta": {"P": [1, 1], "N": [1, 1]}}, "edges from 0 to 1"),
    ({"edges": [0, 0.5, 1], "beta": {"P": [0, 1], "N": [1, 1]}}, "must be > 0"),
    ({"edges": [0, 0.5, 1], "probabilities": {"P": [0.5, 0.6], "N": [0.5, 0.5]}}, "sum to 1"),
    ({"edges": [0, 0.5, 1], "probabilities": {"P": [1.0], "N": [0.5, 0.5]}}, "needs 2"),
    ({"edges": [0, 0.5, 1], "probabilities": {"pos": [1, 0], "N": [0.5, 0.5]}}, "keys"),
    ({"edges": [0, 0.5, 1], "values": [0.7, 0.8], "probabilities": [[1, 0], [0, 1]]},
     "outside its bin"),
    ({"values": [0.2, 0.8]}, "exactly one of probabilities"),
    ({"probabilities": [[1.0], [1.0]]}, "edges"),
])
def test_bad_score_declarations_name_the_field(spec: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        score_bins(spec)


def test_builder_refuses_mixing_votes_and_scores_and_wrong_rules() -> None:
    spec = {"edges": [0, 0.5, 1], "probabilities": [[0.2, 0.8], [0.7, 0.3]]}
    b = cc.SystemBuilder(class_prior=0.5).add_model("a", sensitivity=0.9, specificity=0.9)
    with pytest.raises(ValidationError, match="vote"):
        b.add_model("s", scores=spec)
    b = cc.SystemBuilder(class_prior=0.5).add_model("a", scores=spec).add_model("b", scores=spec)
    with pytest.raises(ValidationError, match="is a vote"):
        b.set_fusioner("majority")
    with pytest.raises(ValidationError, match="apply to vote fusioners"):
        b.set_fusioner("mean", k=2)
    with pytest.raises(ValidationError, match="bias"):
        b.set_fusioner("mean", bias=1.0)
    with pytest.raises(ValidationError, match="every weight > 0"):
        b.set_fusioner("mean", weights=[1, 0])
    with pytest.raises(ValidationError, match="takes no sensitivity"):
        b.add_model("c", scores=spec, sensitivity=0.9)
    votes = cc.SystemBuilder(class_prior=0.5).add_model("a", sensitivity=0.9, specificity=0.9)
    with pytest.raises(ValidationError, match="fuses scores"):
        votes.set_fusioner("mean")
    with pytest.raises(ValidationError, match="labels P, N"):
        cc.SystemBuilder([0.5, 0.3, 0.2], labels=["x", "y", "z"]).add_model("a", scores=spec)


def test_too_many_bin_combinations_are_refused_before_enumerating() -> None:
    n = int(round(MAX_COMBINATIONS ** (1 / 2))) + 1  # two models of n bins: > the limit
    labels = [str(i) for i in range(n)]
    with pytest.raises(ValidationError, match="combinations"):
        score_fusioner("mean", ["a", "b"], [labels, labels],
                       [np.linspace(0, 1, n).tolist()] * 2)


def test_the_fusioner_table_is_the_rule_on_every_combination() -> None:
    system = beta_system("mean", threshold=0.5, weights={"a": 2, "b": 1, "c": 1})
    cpd = system.network.get_cpds("Fusioner")
    assert list(cpd.variables[1:]) == ["a", "b", "c"]
    f = system.fusioner
    for combo in itertools.product(range(5), repeat=3):
        s = [f.values[q][k] for q, k in enumerate(combo)]
        says = (2 * s[0] + s[1] + s[2]) / 4 >= 0.5
        value = cpd.get_value(Fusioner="P", **{m: f.bins[q][k] for q, (m, k)
                                               in enumerate(zip(f.inputs, combo))})
        assert value == (1.0 if says else 0.0)
    assert system.is_deterministic("Fusioner")


# ------------------------------------------------------------------- exact and sampled
@pytest.mark.parametrize("name", list(RULES))
def test_exact_table_equals_pgmpy_ve_and_brute_force(name: str) -> None:
    rule, options = RULES[name]
    for slot in ("a", "b", "c"):
        system = beta_system(rule, slot=slot, **options)
        table = cc.interventional_table(system)
        t = table.to_numpy()
        assert t.shape == (2, 5, 2)
        assert table.states == tuple(system.states(slot)) and table.labels == ("P", "N")
        np.testing.assert_allclose(t, ve_table(system, slot), atol=TOL, rtol=0)
        np.testing.assert_allclose(t, brute_table(system, slot), atol=TOL, rtol=0)


@pytest.mark.parametrize("name", ["weighted mean", "logistic", "bumpy"])
def test_sampling_is_within_six_sigma_of_exact(name: str) -> None:
    rule, options = RULES[name]
    system = beta_system(rule, **options)
    exact = cc.interventional_table(system).to_numpy()
    n = 200_000
    sampled = cc.interventional_table(system, method="sampling", samples=n, seed=7)
    assert sampled.method == "sampling" and sampled.seed == 7
    counts = sampled.counts
    assert counts is not None and counts.shape == (2, 5, 2)
    assert counts[0, 0, 0] + counts[1, 0, 0] == n  # every instance of the sample, each class
    sigma = np.sqrt(np.maximum(exact * (1 - exact), 1e-12) / counts)
    assert np.all(np.abs(sampled.to_numpy() - exact) <= 6 * sigma + 1e-12)
    assert np.all(sampled.low <= sampled.to_numpy()) and np.all(sampled.to_numpy()
                                                                <= sampled.high)


def test_sampling_is_reproducible_and_the_same_instances_meet_every_bin() -> None:
    system = beta_system("mean", threshold=0.5)
    one = cc.interventional_table(system, method="sampling", samples=5000, seed=3)
    two = cc.interventional_table(system, method="sampling", samples=5000, seed=3)
    assert np.array_equal(one.to_numpy(), two.to_numpy())
    # common random numbers: each instance meets every bin, so a class's count is the same
    assert np.all(one.counts[:, :, 0] == one.counts[:, :1, 0])


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["mean", "max", "min", "logistic"]),
       st.lists(st.floats(0.05, 5.0), min_size=3, max_size=3),
       st.floats(0.15, 0.85), st.integers(0, 2))
def test_a_monotone_rule_gives_a_table_non_decreasing_in_the_bin(
        rule: str, weights: list[float], threshold: float, slot: int) -> None:
    options: dict = {"threshold": threshold}
    if rule in ("mean", "logistic"):
        options["weights"] = weights
    if rule == "logistic":
        options["bias"] = -sum(weights) / 2
    system = beta_system(rule, slot="abc"[slot], **options)
    t = cc.interventional_table(system).to_numpy()[:, :, 0]  # P(system says P | c, do(bin))
    assert np.all(np.diff(t, axis=1) >= -1e-12)
    assert system.fusioner.monotone_in("abc"[slot])
    assert cc.check_monotonicity(system).is_monotone


def test_a_non_monotone_rule_still_has_a_table_and_names_where_it_fails() -> None:
    system = beta_system(bumpy, slot="b")
    table = cc.interventional_table(system)
    np.testing.assert_allclose(table.to_numpy(), ve_table(system, "b"), atol=TOL, rtol=0)
    check = table.monotonicity
    assert check is not None and not check.is_monotone and check.method == "bin grid"
    assert cc.check_monotonicity(system) == check
    violation = check.violation
    assert set(violation) == {"a", "b", "c"}
    low, high = (part.split(" (")[0] for part in violation["b"].split(" -> "))
    f = system.fusioner
    bins = {m: f.bins[i] for i, m in enumerate(f.inputs)}
    assert bins["b"].index(high) == bins["b"].index(low) + 1

    def at(slot_bin: str) -> bool:
        row = [f.values[i][bins[m].index(violation[m] if m != "b" else slot_bin)]
               for i, m in enumerate(f.inputs)]
        return bool(f.rule.decide(np.array([row]))[0])

    assert at(low) and not at(high)  # the named configuration: P at the lower bin, N above
    assert not system.known_monotone


def test_the_rule_is_a_score_rule_of_the_log_layer() -> None:
    """One rule object: the network's fusioner decides with the groundwork's ScoreRule."""
    from causalcost.network.score_rules import ScoreRule, score_rule

    system = beta_system("logistic", weights=[1.5, 2.0, -0.5], bias=-1.2, threshold=0.6)
    assert isinstance(system.fusioner.rule, ScoreRule)
    assert system.fusioner.rule == score_rule("logistic", weights=[1.5, 2.0, -0.5], bias=-1.2,
                                              threshold=0.6, n_models=3)


def test_observed_confusion_of_a_score_system_equals_ve_without_intervention() -> None:
    from pgmpy.inference import VariableElimination

    system = beta_system("mean", threshold=0.5)
    engine = VariableElimination(system.network)
    got = cc.observed_confusion(system, 100, 200)
    on_p = engine.query(["Fusioner"], evidence={"Class": "P"}, show_progress=False)
    on_n = engine.query(["Fusioner"], evidence={"Class": "N"}, show_progress=False)
    assert got.tp == pytest.approx(100 * on_p.get_value(Fusioner="P"), abs=1e-9)
    assert got.fp == pytest.approx(200 * on_n.get_value(Fusioner="P"), abs=1e-9)


def test_from_pgmpy_verifies_the_score_fusioner_against_the_tables() -> None:
    from pgmpy.factors.discrete import TabularCPD

    system = beta_system("max", threshold=0.7)
    again = cc.System.from_pgmpy(system.network, class_node="Class", system_node="Fusioner",
                                 slot="b", fusioner=system.fusioner)
    np.testing.assert_allclose(cc.interventional_table(again).to_numpy(),
                               cc.interventional_table(system).to_numpy(), atol=TOL, rtol=0)
    net = system.network.copy()
    cpd = net.get_cpds("Fusioner")
    values = cpd.get_values()[::-1].copy()  # the opposite decision everywhere
    net.remove_cpds(cpd)
    net.add_cpds(TabularCPD("Fusioner", 2, values, evidence=["a", "b", "c"],
                            evidence_card=[5, 5, 5], state_names=cpd.state_names))
    with pytest.raises(NetworkStructureError, match="not the score rule"):
        cc.System.from_pgmpy(net, class_node="Class", system_node="Fusioner",
                             fusioner=system.fusioner)


def test_table_views_of_a_score_slot() -> None:
    table = cc.interventional_table(beta_system("mean", threshold=0.5))
    d = table.to_dict()
    assert d["slot_states"] == ["0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1"]
    assert np.asarray(d["T"]).shape == (2, 5, 2)
    json.dumps(d)
    frame = table.to_frame()
    assert frame.shape == (20, 1)
    assert table.probability("P", "0.8-1", "P") == pytest.approx(table.to_numpy()[0, 4, 0])
    with pytest.raises(ValidationError, match="binary rates"):
        _ = table.error_rates


# ---------------------------------------------------------------------- network files
def test_shipped_soft_vote3_equals_pgmpy_ve() -> None:
    assert "soft_vote3" in cc.list_networks()
    system = cc.load_network("soft_vote3")
    assert system.slot == "clinical_history"
    f = system.fusioner
    assert f.kind == "mean" and f.weights == (2.0, 1.0, 1.0) and f.rule.threshold == 0.5
    for slot in system.models:
        t = cc.interventional_table(system, slot).to_numpy()
        np.testing.assert_allclose(t, ve_table(system, slot), atol=TOL, rtol=0)
        assert np.all(np.diff(t[:, :, 0], axis=1) >= -1e-12)
    mass = system.network.get_cpds("images").get_values()[:, 0]  # P(bin | P): Beta(5, 2)
    np.testing.assert_allclose(mass, np.diff(stats.beta.cdf(EDGES, 5, 2)), atol=1e-12)


def _doc(**fusioner: object) -> dict:
    scores = {"edges": [0, 0.5, 1], "probabilities": {"P": [0.2, 0.8], "N": [0.7, 0.3]}}
    return {"format": "causalcost-network", "version": 1, "slot": "b",
            "class": {"prior": 0.4},
            "models": [{"name": m, "scores": dict(scores)} for m in ("a", "b")],
            "fusioner": {"rule": "logistic", "weights": [1.0, 2.0], "bias": -1.0, **fusioner}}


def test_network_file_keys_for_scores() -> None:
    system = from_document(_doc()).build()
    assert system.fusioner.kind == "logistic" and system.fusioner.rule.bias == -1.0
    np.testing.assert_allclose(cc.interventional_table(system).to_numpy(),
                               ve_table(system, "b"), atol=TOL, rtol=0)
    doc = _doc()
    doc["models"][0]["scores"]["bins"] = 4
    with pytest.raises(NetworkFileError, match=r"models\[0\].scores"):
        from_document(doc)
    doc = _doc(rule="mean")
    with pytest.raises(NetworkFileError, match="fusioner.bias is only read by rule 'logistic'"):
        from_document(doc)
    doc = _doc(rule="max")
    with pytest.raises(NetworkFileError, match="fusioner.weights"):
        from_document(doc)
    doc = _doc(rule="mean", colour=1)
    with pytest.raises(NetworkFileError, match="unknown key"):
        from_document(doc)


def test_vote_files_keep_refusing_score_keys() -> None:
    doc = cc.read_network("majority3").to_dict()
    assert doc["fusioner"] == "majority"
    vote = {"format": "causalcost-network", "version": 1, "class": {"prior": 0.3},
            "models": [{"name": "a", "sensitivity": 0.9, "specificity": 0.9}],
            "fusioner": {"rule": "and", "bias": 1.0}}
    with pytest.raises(NetworkFileError, match="bias"):
        from_document(vote)


# ---------------------------------------------------------------------------- picture
def test_the_picture_shows_score_nodes_and_the_rule() -> None:
    system = cc.load_network("soft_vote3")
    svg = system.picture().svg
    assert "score" in svg and "0-0.2" in svg and "mean \u2265 0.5" in svg and "w 2,1,1" in svg
    svg = system.picture("0.4-0.6").svg  # do(slot = a bin)
    assert "do(clinical_" in svg and "= 0.4-0.6)" in svg
    assert system.to_frame().loc["clinical_history", "states"].startswith("0-0.2, 0.2-0.4")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        repr(system)


# ------------------------------------------------------------------- BIF and refusals
@pytest.mark.parametrize("name", ["weighted mean", "logistic", "max"])
def test_bif_round_trip_keeps_the_score_rule(name: str, tmp_path) -> None:
    rule, options = RULES[name]
    system = beta_system(rule, **options)
    path = tmp_path / "scores.bif"
    system.to_bif(path)
    again = cc.load_bif(path, class_node="Class", system_node="Fusioner", slot="b")
    assert again.fusioner.rule == system.fusioner.rule
    assert again.fusioner.values == system.fusioner.values
    np.testing.assert_array_equal(cc.interventional_table(again).to_numpy(),
                                  cc.interventional_table(system).to_numpy())


def test_binary_forced_run_counts_refuse_a_score_slot() -> None:
    from causalcost.inference.sampling import outcome_counts

    system = beta_system("mean")
    with pytest.raises(ValidationError, match="score node over bins"):
        outcome_counts(system, samples=100, seed=0)
    with pytest.raises(ValidationError, match="score node over bins"):
        cc.simulate_forced_runs(system, samples=100, seed=0)
    with pytest.raises(ValidationError, match=r"score bins"):
        cc.error_rates(system)


# ---------------------------------------------------------------------------------- CLI
def test_cli_query_draw_and_export_work_on_the_shipped_score_network(tmp_path, capsys) -> None:
    from causalcost.cli.app import main

    system = cc.load_network("soft_vote3")
    assert main(["query", "soft_vote3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["slot_states"] == system.states("clinical_history")
    np.testing.assert_allclose(out["T"], ve_table(system, "clinical_history"), atol=1e-9)
    svg = tmp_path / "soft.svg"
    assert main(["draw", "soft_vote3", "--do", "0.4-0.6", "-o", str(svg)]) == 0
    text = svg.read_text(encoding="utf-8")
    assert all(f"node:{n}" in text for n in system.network.nodes())
    assert "score" in text and "mean \u2265 0.5" in text
    bif = tmp_path / "soft.bif"
    assert main(["export", "soft_vote3", "-o", str(bif)]) == 0
    capsys.readouterr()
    assert main(["query", str(bif), "--class-node", "Class", "--system-node", "Fusioner",
                 "--positive", "P", "--slot", "clinical_history", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(again["T"], out["T"], atol=0, rtol=0)


def test_cli_query_text_names_the_bin_grid_check_and_derive_refuses_in_one_line(
        tmp_path, capsys) -> None:
    from causalcost.cli.app import main

    assert main(["query", "soft_vote3"]) == 0
    out = capsys.readouterr().out
    assert "is monotone in slot 'clinical_history' (checked on the score bins)" in out
    assert "depends on the costs" not in out
    assert main(["derive", "soft_vote3", "--costs", "fn=5,fp=1", "-o",
                 str(tmp_path / "s.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "fuses scores" in captured.err and "--data LOG --scores" in captured.err
    assert not (tmp_path / "s.json").exists()


def test_sheet_from_network_refuses_a_score_system_naming_the_way() -> None:
    system = cc.load_network("soft_vote3")
    f = system.score_fusioner
    assert f is not None and f.monotone_in("clinical_history")
    with pytest.raises(ValidationError, match="fuses scores"):
        cc.sheet_from_network(system, cc.CostMatrix(fn=5, fp=1))


@pytest.mark.parametrize("call", ["explorer_settings", "law_from_system", "explore"])
def test_vote_only_tools_refuse_a_score_system_in_one_line(call: str) -> None:
    """The explorer and the instance-kind law read each model's vote: a score system is
    refused by name (it used to fail deep inside with a bare ValueError)."""
    system = cc.load_network("soft_vote3")
    with pytest.raises(ValidationError, match="'soft_vote3' fuses scores"):
        getattr(cc, call)(system) if call != "explore" else cc.explore(system)


def test_experiment_cli_refuses_a_score_network_in_one_line(capsys, tmp_path) -> None:
    from causalcost.cli.app import main

    assert main(["experiment", "coverage", "soft_vote3", "--repetitions", "2", "-o",
                 str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "fuses scores" in err


def test_a_score_node_from_a_fitted_models_scores() -> None:
    """``scores_from_data``: per class the share of a fitted model's scores in each bin
    (against numpy's histogram), declared as a score node whose CPD is that share; the
    system's exact table equals pgmpy's VE on do(slot)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression

    X, y = load_breast_cancer(return_X_y=True)
    y = 1 - y  # malignant is P
    edges = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    builder = cc.SystemBuilder(class_prior=float(y.mean()))
    columns = {"a": slice(0, 10), "b": slice(10, 20), "c": slice(20, 30)}
    for name, cols in columns.items():
        fitted = LogisticRegression(max_iter=5000).fit(X[::2, cols], y[::2])
        s = fitted.predict_proba(X[1::2, cols])[:, 1]
        spec = cc.scores_from_data(s, y[1::2], edges)
        for row, mask in zip(("P", "N"), (y[1::2] == 1, y[1::2] == 0)):
            counts, _ = np.histogram(s[mask], bins=edges)
            np.testing.assert_allclose(spec["probabilities"][row], counts / mask.sum(),
                                       atol=1e-15)
        builder.add_model(name, scores=spec)
    system = builder.set_fusioner("mean", threshold=0.5).build(slot="b")
    np.testing.assert_allclose(cc.interventional_table(system).to_numpy(),
                               ve_table(system, "b"), atol=1e-12)
    with pytest.raises(cc.ScoreValueError, match=r"row 0 holds 1.2, outside the score range "
                                                 r"\[0, 1\]"):
        cc.scores_from_data([1.2], [1], edges)
    with pytest.raises(cc.ScoreValueError, match="row 1 holds the text 'x'"):
        cc.scores_from_data([0.2, "x"], [1, 0], edges)
    with pytest.raises(ValidationError, match="both classes"):
        cc.scores_from_data([0.2, 0.3], [1, 1], edges)
    with pytest.raises(ValidationError, match="positive="):
        cc.scores_from_data([0.2, 0.3], ["sick", "well"], edges)
    assert cc.scores_from_data([0.2, 0.7], ["sick", "well"], [0, 0.5, 1],
                               positive="sick")["probabilities"] == {"P": [1.0, 0.0],
                                                                      "N": [0.0, 1.0]}
