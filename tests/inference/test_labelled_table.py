"""The K-label interventional table against pgmpy VariableElimination on ``model.do([slot])``
and against sampling; the builder, the pgmpy loader and the fusioners."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import causalcost as cc
from causalcost.network._pgmpy import variable_elimination

FUSIONERS = [
    ("plurality", {}),
    ("plurality", {"tie": "slot"}),
    ("plurality", {"tie": "reversed"}),
    ("weighted", {"weights": "random"}),
    ("priority", {"order": "last-two"}),
    ("k_of_n", {"label": "last", "k": 2}),
    ("function", {}),
]


def random_system(seed: int, k: int, n: int, fusion: str, opts: dict,
                  latent: bool) -> cc.System:
    rng = np.random.default_rng(seed)
    labels = [f"L{i}" for i in range(k)]
    b = cc.SystemBuilder(list(rng.dirichlet(np.ones(k))), labels=labels)
    if latent:
        b.add_latent("D", ["easy", "mid", "hard"], rng.dirichlet(np.ones(3), size=k))
    for i in range(n):
        if latent and i % 2 == 0:
            b.add_model(f"m{i}", latent="D", confusion={
                z: rng.dirichlet(np.ones(k), size=k) for z in ("easy", "mid", "hard")})
        else:
            b.add_model(f"m{i}", confusion=rng.dirichlet(np.ones(k), size=k))
    opts = dict(opts)
    if opts.get("tie") == "reversed":
        opts["tie"] = labels[::-1]
    if opts.get("weights") == "random":
        opts["weights"] = list(rng.choice([0.5, 1.0, 1.5, 2.0], size=n))
    if opts.get("order") == "last-two":
        opts["order"] = labels[-2:]
    if opts.get("label") == "last":
        opts["label"] = labels[-1]
    if fusion == "function":
        def rule(**votes: str) -> str:  # the vote of the model the votes point at
            return votes[f"m{sum(int(v[1:]) for v in votes.values()) % n}"]
        b.set_fusioner(rule)
    else:
        b.set_fusioner(fusion, **opts)
    return b.build(slot=f"m{n - 1}")


def ve_table(system: cc.System) -> np.ndarray:
    """T[c, j, s] by pgmpy VariableElimination on the mutilated network ``do([slot])``."""
    net = system.network
    mutilated = net.do([system.slot])
    ve = variable_elimination(mutilated)
    labels = list(system.labels)
    k = system.k
    out = np.zeros((k, k, k))
    for c, j in itertools.product(range(k), range(k)):
        q = ve.query([system.system_node], evidence={system.class_node: labels[c],
                                                     system.slot: labels[j]},
                     show_progress=False)
        names = list(q.state_names[system.system_node])
        out[c, j] = [q.values[names.index(s)] for s in labels]
    return out


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("fusion,opts", FUSIONERS)
@pytest.mark.parametrize("latent", [False, True])
def test_exact_table_equals_variable_elimination_on_do(k: int, fusion: str, opts: dict,
                                                       latent: bool) -> None:
    n = 5 if k == 3 else 4
    for seed in range(2):
        system = random_system(100 * k + seed, k, n, fusion, opts, latent)
        t = cc.interventional_table(system)
        assert isinstance(t, cc.InterventionalTable) and t.to_numpy().shape == (k, k, k)
        np.testing.assert_allclose(t.to_numpy(), ve_table(system), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [3, 4])
def test_from_pgmpy_table_fusioner_equals_builder(k: int) -> None:
    system = random_system(7 + k, k, 4, "plurality", {"tie": "slot"}, True)
    net = system.network
    loaded = cc.System.from_pgmpy(net, class_node="Class", system_node="System",
                                  slot=system.slot)
    assert isinstance(loaded, cc.System)
    assert loaded.labels == system.labels and loaded.fusioner.kind == "table"
    np.testing.assert_allclose(cc.interventional_table(loaded).to_numpy(),
                               cc.interventional_table(system).to_numpy(), rtol=1e-12,
                               atol=1e-12)


def test_from_pgmpy_stochastic_system_node_against_variable_elimination() -> None:
    system = random_system(3, 3, 4, "plurality", {}, True)
    net = system.network
    rng = np.random.default_rng(0)
    cpd = net.get_cpds("System")
    noisy = 0.7 * cpd.values + 0.3 * rng.dirichlet(np.ones(3), size=cpd.values.shape[1:]
                                                   ).transpose(4, 0, 1, 2, 3)
    cpd.values = noisy
    loaded = cc.System.from_pgmpy(net, class_node="Class", system_node="System", slot="m3")
    ve = ve_table(loaded)
    np.testing.assert_allclose(cc.interventional_table(loaded).to_numpy(), ve, rtol=1e-12,
                               atol=1e-12)
    sampled = cc.interventional_table(loaded, method="sampling", samples=20_000, seed=5,
                                      confidence=0.999)
    assert np.all((sampled.low <= ve + 1e-12) & (ve <= sampled.high + 1e-12))


@pytest.mark.parametrize("fusion,opts", FUSIONERS)
def test_sampling_intervals_cover_the_exact_table(fusion: str, opts: dict) -> None:
    system = random_system(11, 3, 6, fusion, opts, True)
    exact = cc.interventional_table(system).to_numpy()
    t = cc.interventional_table(system, method="sampling", samples=20_000, seed=2,
                                confidence=0.999)
    assert t.method == "sampling" and t.samples == 20_000
    # 27 cells at 99.9 % each: a miss somewhere has probability < 3 %; seeds fixed
    assert np.all((t.low <= exact + 1e-12) & (exact <= t.high + 1e-12))
    assert np.abs(t.to_numpy() - exact).max() < 0.03


def test_vote_splitting_equals_enumeration_for_many_models() -> None:
    """Plurality through count vectors equals the same rule as a user function (which
    enumerates every configuration) on 9 models."""
    system = random_system(21, 3, 9, "plurality", {"tie": "slot"}, True)
    as_function = random_system(21, 3, 9, "plurality", {"tie": "slot"}, True)
    f = as_function.fusioner
    enumerated = cc.System.declared(
        system.declaration,
        cc.make_fusioner(lambda **v: _slot_plurality(v, system), system.models,
                         labels=system.labels), slot=system.slot)
    assert f.by_counts
    np.testing.assert_allclose(cc.interventional_table(system).to_numpy(),
                               cc.interventional_table(enumerated).to_numpy(), rtol=1e-12,
                               atol=1e-14)


def _slot_plurality(votes: dict[str, str], system: cc.System) -> str:
    counts = {label: 0 for label in system.labels}
    for v in votes.values():
        counts[v] += 1
    top = max(counts.values())
    tied = [label for label in system.labels if counts[label] == top]
    own = votes[system.slot]
    return own if own in tied else tied[0]


def test_thirty_models_by_vote_splitting_sums_to_one() -> None:
    system = random_system(5, 3, 30, "plurality", {}, True)
    t = cc.interventional_table(system).to_numpy()
    np.testing.assert_allclose(t.sum(axis=2), 1.0, rtol=1e-12)
    sampled = cc.interventional_table(system, method="sampling", samples=20_000, seed=4,
                                      confidence=0.999)
    assert np.all((sampled.low <= t + 1e-12) & (t <= sampled.high + 1e-12))


def test_fusioner_rules_by_hand() -> None:
    labels, models = ["a", "b", "c"], ["m1", "m2", "m3", "m4"]
    f = cc.make_fusioner("plurality", models, labels=labels)
    assert f.output((1, 2, 1, 2), 2) == 1  # tie b/c: first label
    slot = cc.make_fusioner("plurality", models, labels=labels, tie="slot")
    assert slot.output((1, 2, 1, 2), 2) == 2 and slot.output((1, 2, 1, 2), 0) == 1
    order = cc.make_fusioner("plurality", models, labels=labels,
                                   tie=["c", "b", "a"])
    assert order.output((1, 2, 1, 2)) == 2
    w = cc.make_fusioner("weighted", models, labels=labels,
                               weights=[2.5, 1, 1, 1])
    assert w.output((0, 1, 1, 2)) == 0 and w.output((0, 1, 1, 1)) == 1
    by_name = cc.make_fusioner("weighted", models, labels=labels,
                                     weights={"m1": 2.5, "m2": 1, "m3": 1, "m4": 1})
    assert by_name.weights == w.weights
    with pytest.raises(cc.ValidationError, match="missing \\['m4'\\]"):
        cc.make_fusioner("weighted", models, labels=labels,
                               weights={"m1": 2.5, "m2": 1, "m3": 1})
    p = cc.make_fusioner("priority", models, labels=labels, order=["c", "b"])
    assert p.output((0, 0, 0, 1)) == 1 and p.output((0, 0, 0, 0)) == 0
    kn = cc.make_fusioner("k_of_n", models, labels=labels, label="c", k=2)
    assert kn.output((2, 2, 0, 0)) == 2 and kn.output((2, 1, 1, 0)) == 1


@pytest.mark.parametrize("call,error,words", [
    (lambda: cc.SystemBuilder([0.5, 0.5], labels=["a", "b"]).add_model(
        "m", confusion=[[0.9, 0.2], [0.1, 0.9]]), cc.CPDError, "row 0"),
    (lambda: cc.SystemBuilder([0.5, 0.6], labels=["a", "b"]), cc.CPDError, "class_prior"),
    (lambda: cc.SystemBuilder(labels=["a", "b", "c"]), cc.ValidationError, "class_prior"),
    (lambda: cc.SystemBuilder([1.0], labels=["a"]), cc.ValidationError, "labels"),
    (lambda: cc.make_fusioner("priority", ["m"], labels=["a", "b"]),
     cc.ValidationError, "order="),
    (lambda: cc.make_fusioner("plurality", ["m"], labels=["a", "b"], tie=["a", "x"]),
     cc.UnknownNameError, "'x'"),
    (lambda: cc.SystemBuilder([0.5, 0.5], labels=["a", "b"]).add_model(
        "m", confusion=np.eye(2)).build(), cc.NetworkStructureError, "set_fusioner"),
])
def test_bad_declarations_are_refused(call, error, words: str) -> None:  # noqa: ANN001
    with pytest.raises(error, match=words):
        call()


def test_user_function_gets_keyword_votes_and_errors_are_explained() -> None:
    f = cc.make_fusioner(lambda a, b: b if a == "x" else a, ["a", "b"], labels=["x", "y", "z"])
    assert f.output((0, 2)) == 2 and f.output((1, 2)) == 1 and f(("y", "z")) == "y"
    bad = cc.make_fusioner(lambda a, b: "w", ["a", "b"], labels=["x", "y"])
    with pytest.raises(cc.UnknownNameError, match="'w' is not one of the labels"):
        bad.output((0, 1))
    with pytest.raises(cc.ValidationError, match="one keyword argument per model"):
        cc.make_fusioner(lambda a: a, ["a", "b"], labels=["x", "y"])  # refused when built
    crashing = cc.make_fusioner(lambda a, b: {}[a], ["a", "b"], labels=["x", "y"])
    with pytest.raises(cc.ValidationError, match="one keyword argument per model"):
        crashing.output((0, 1))


def test_user_function_over_too_many_configurations_is_refused() -> None:
    system = random_system(1, 3, 16, "function", {}, False)
    with pytest.raises(cc.ValidationError, match="method='sampling'"):
        cc.interventional_table(system)


def test_binary_builder_is_unchanged_without_labels() -> None:
    b = cc.SystemBuilder(class_prior=0.3)
    assert type(b) is cc.SystemBuilder
    s = b.add_model("a", sensitivity=0.9, specificity=0.8).add_model(
        "b", sensitivity=0.7, specificity=0.6).set_fusioner("and").build(slot="b")
    assert isinstance(s, cc.System)
