"""One System for any K: exact tables against pgmpy VariableElimination on ``model.do([slot])``
for random K in {2, 3, 4} systems built by the one builder, sampling intervals covering the
exact table, the BIF round trip, the network commands on a K-label file and BIF, the sample
ceiling, and the deprecated names."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.cli.app import main
from causalcost.network._pgmpy import variable_elimination


def random_system(seed: int, k: int, n: int, *, latent: bool, rule: str = "plurality",
                  tie: str | None = None) -> cc.System:
    rng = np.random.default_rng(seed)
    labels = [f"L{i}" for i in range(k)]
    b = cc.SystemBuilder(list(rng.dirichlet(np.ones(k))), labels=labels)
    if latent:
        b.add_latent("D", ["easy", "hard"], rng.dirichlet(np.ones(2), size=k))
    for i in range(n):
        if latent and i % 2 == 0:
            b.add_model(f"m{i}", latent="D", confusion={
                z: rng.dirichlet(np.ones(k), size=k) for z in ("easy", "hard")})
        else:
            b.add_model(f"m{i}", confusion=rng.dirichlet(np.ones(k), size=k))
    options: dict[str, object] = {} if tie is None else {"tie": tie}
    if rule == "weighted":
        options["weights"] = list(rng.choice([0.5, 1.0, 2.0], size=n))
    return b.set_fusioner(rule, **options).build(slot=f"m{n - 1}")


def ve_table(system: cc.System) -> np.ndarray:
    """T[c, j, s] by pgmpy VariableElimination on ``network.do([slot])``."""
    ve = variable_elimination(system.network.do([system.slot]))
    labels, k = list(system.labels), system.k
    out = np.zeros((k, k, k))
    for c, j in itertools.product(range(k), range(k)):
        q = ve.query([system.system_node], evidence={system.class_node: labels[c],
                                                     system.slot: labels[j]},
                     show_progress=False)
        names = [str(v) for v in q.state_names[system.system_node]]
        out[c, j] = [q.values[names.index(s)] for s in labels]
    return out


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.sampled_from([2, 3, 4]), n=st.integers(1, 4),
       latent=st.booleans(), rule=st.sampled_from(["plurality", "weighted"]),
       tie=st.sampled_from([None, "slot"]))
def test_exact_table_equals_variable_elimination_for_any_k(seed: int, k: int, n: int,
                                                           latent: bool, rule: str,
                                                           tie: str | None) -> None:
    system = random_system(seed, k, n, latent=latent, rule=rule, tie=tie)
    assert isinstance(system, cc.System) and system.k == k
    table = cc.interventional_table(system)
    assert isinstance(table, cc.InterventionalTable)
    assert table.labels == system.labels and table.states == system.labels
    np.testing.assert_allclose(table.to_numpy(), ve_table(system), rtol=1e-10, atol=1e-12)


def test_k2_table_is_the_binary_view_of_the_same_numbers() -> None:
    system = random_system(4, 2, 3, latent=True)
    table = cc.interventional_table(system)
    t = ve_table(system)
    assert table.is_binary and table.probabilities.shape == (2, 2, 4)
    r = table.error_rates  # e_P(x) = P(output N | P, do(x)), e_N(x) = P(output P | N, do(x))
    np.testing.assert_allclose([r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n],
                               [t[0, 0, 1], t[0, 1, 1], t[1, 0, 0], t[1, 1, 0]], atol=1e-12)
    # one JSON shape for every K, the binary views added at K = 2
    assert set(table.to_dict()) == {"slot", "method", "labels", "slot_states", "T", "error_rates",
                                    "table"}


@pytest.mark.parametrize("k", [2, 3, 4])
def test_sampling_intervals_cover_the_exact_table(k: int) -> None:
    system = random_system(30 + k, k, 5, latent=True, tie="slot")
    exact = cc.interventional_table(system).to_numpy()
    sampled = cc.interventional_table(system, method="sampling", samples=20_000, seed=k,
                                      confidence=0.999)
    low, high = sampled.low, sampled.high
    assert low is not None and high is not None
    assert np.all((low <= exact + 1e-12) & (exact <= high + 1e-12))
    assert np.abs(sampled.to_numpy() - exact).max() < 0.03


@pytest.mark.parametrize("samples", [10**12, 10**9 + 1])
def test_the_sample_ceiling_holds_for_every_k(samples: int) -> None:
    for k in (2, 3):
        system = random_system(1, k, 3, latent=False)
        with pytest.raises(cc.ValidationError, match="exceeds the ceiling"):
            cc.interventional_table(system, method="sampling", samples=samples)


def test_k_label_error_rates_say_what_to_use() -> None:
    table = cc.interventional_table(random_system(2, 3, 3, latent=False))
    with pytest.raises(cc.ValidationError, match="to_numpy"):
        _ = table.error_rates


@pytest.mark.parametrize("k", [2, 3, 4])
def test_bif_round_trip_for_any_k(tmp_path: Path, k: int) -> None:
    system = random_system(50 + k, k, 3, latent=True)
    path = tmp_path / f"k{k}.bif"
    system.to_bif(str(path))
    # two labels read back as a binary network: the first label is the positive state
    again = cc.load_bif(path, class_node="Class", system_node="System", slot=system.slot,
                        positive="L0" if k == 2 else None)
    assert again.labels == system.labels and again.models == system.models
    np.testing.assert_allclose(cc.interventional_table(again).to_numpy(),
                               cc.interventional_table(system).to_numpy(), rtol=1e-12,
                               atol=1e-12)


def test_one_builder_type_and_pgmpy_for_any_k() -> None:
    builder = cc.SystemBuilder([0.2, 0.3, 0.5], labels=["a", "b", "c"])
    assert type(builder) is cc.SystemBuilder
    system = random_system(3, 3, 3, latent=True)
    again = cc.System.from_pgmpy(system.network, class_node="Class", system_node="System",
                                 slot=system.slot)
    assert type(again) is cc.System and again.fusioner.kind == "table"
    np.testing.assert_allclose(cc.interventional_table(again).to_numpy(),
                               cc.interventional_table(system).to_numpy(), atol=1e-12)
    with pytest.raises(cc.ValidationError, match="labels="):
        cc.SystemBuilder([0.5, 0.5], labels=["a", "b"]).add_model("m", sensitivity=0.9,
                                                                  specificity=0.8)
    with pytest.raises(cc.ValidationError, match="labels="):
        cc.SystemBuilder(0.3).add_model("m", confusion=np.eye(2))


def test_deprecated_names_warn_and_name_the_replacement() -> None:
    system = random_system(5, 3, 2, latent=False)
    for name, replacement in (("MulticlassSystem", "System"), ("MulticlassTable",
                                                               "InterventionalTable"),
                              ("MulticlassSystemBuilder", "SystemBuilder"),
                              ("multiclass_to_pgmpy", "system.network")):
        with pytest.warns(DeprecationWarning, match=replacement):
            getattr(cc, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert isinstance(system, cc.MulticlassSystem)
        table = cc.MulticlassTable(("a", "b", "c"), "m", "exact", np.full((3, 3, 3), 1 / 3))
        assert isinstance(table, cc.InterventionalTable)
        assert isinstance(cc.interventional_table(system), cc.MulticlassTable)
        assert cc.multiclass_to_pgmpy(system).edges() == system.network.edges()


# -- the network commands on a K-label file and a K-label BIF ------------------------------
NETWORK = '''
format = "causalcost-network"
version = 1
name = "triage"
slot = "c"

[class]
labels = ["ok", "flu", "covid"]
prior = [0.6, 0.3, 0.1]

[[models]]
name = "a"
confusion = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]

[[models]]
name = "b"
confusion = [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]

[[models]]
name = "c"
confusion = [[0.7, 0.15, 0.15], [0.15, 0.7, 0.15], [0.15, 0.15, 0.7]]

[fusioner]
rule = "plurality"
tie = "slot"
'''


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def network(tmp_path: Path) -> Path:
    path = tmp_path / "triage.toml"
    path.write_text(NETWORK)
    return path


def test_query_json_holds_labels_and_t(capsys: pytest.CaptureFixture[str],
                                       network: Path) -> None:
    code, out, _ = run(capsys, "query", str(network), "--json")
    assert code == 0
    data = json.loads(out)
    exact = cc.interventional_table(cc.load_network(network)).to_numpy()
    assert data["labels"] == ["ok", "flu", "covid"] and data["slot"] == "c"
    np.testing.assert_allclose(np.array(data["T"]), exact, rtol=1e-12)
    code, out, _ = run(capsys, "query", str(network))
    assert code == 0 and "covid" in out and "flu" in out
    code, out, _ = run(capsys, "query", str(network), "--method", "sampling", "--samples",
                       "5000", "--seed", "1", "--json")
    assert code == 0 and len(json.loads(out)["ci_low"]) == 3


def test_draw_and_export_then_query_the_bif(capsys: pytest.CaptureFixture[str],
                                            network: Path, tmp_path: Path) -> None:
    svg = tmp_path / "t.svg"
    code, _, _ = run(capsys, "draw", str(network), "--do", "flu", "-o", str(svg))
    assert code == 0 and "do(c = flu)" in svg.read_text()
    code, _, err = run(capsys, "draw", str(network), "--do", "P", "-o", str(svg))
    assert code == 2 and "valid states" in err and len(err.strip().splitlines()) == 1
    bif = tmp_path / "t.bif"
    code, out, _ = run(capsys, "export", str(network), "-o", str(bif))
    assert code == 0 and "--positive" not in out
    code, out, _ = run(capsys, "query", str(bif), "--class-node", "Class", "--system-node",
                       "System", "--slot", "c", "--json")
    assert code == 0
    np.testing.assert_allclose(
        np.array(json.loads(out)["T"]),
        cc.interventional_table(cc.load_network(network)).to_numpy(), rtol=1e-12)


def test_too_many_samples_is_a_one_line_error(capsys: pytest.CaptureFixture[str],
                                              network: Path) -> None:
    code, _, err = run(capsys, "query", str(network), "--method", "sampling", "--samples",
                       str(10**12))
    assert code == 2 and "ceiling" in err and len(err.strip().splitlines()) == 1


def test_a_two_label_file_queries_as_the_binary_view(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    path = tmp_path / "two.toml"
    path.write_text(NETWORK.replace('["ok", "flu", "covid"]', '["sick", "well"]')
                    .replace("[0.6, 0.3, 0.1]", "[0.3, 0.7]")
                    .replace("[[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]",
                             "[[0.9, 0.1], [0.2, 0.8]]")
                    .replace("[[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]",
                             "[[0.8, 0.2], [0.1, 0.9]]")
                    .replace("[[0.7, 0.15, 0.15], [0.15, 0.7, 0.15], [0.15, 0.15, 0.7]]",
                             "[[0.7, 0.3], [0.1, 0.9]]"))
    system = cc.load_network(path)
    assert system.labels == ("sick", "well")
    code, out, _ = run(capsys, "query", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    t = ve_table(system)
    assert data["error_rates"]["P"]["N"] == pytest.approx(t[0, 1, 1], abs=1e-12)
    assert data["error_rates"]["N"]["P"] == pytest.approx(t[1, 0, 0], abs=1e-12)
    code, out, _ = run(capsys, "query", str(path))
    assert code == 0 and "monotonicity not decided" in out


def test_the_light_system_cpd_is_the_cpd_pgmpy_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large system tables skip pgmpy's copies; forced on a small system the CPD equals the
    one pgmpy's constructor makes, and VariableElimination on do() agrees with the engine."""
    from causalcost.network import labelled

    system = random_system(8, 3, 4, latent=True, tie="slot")
    columns = labelled._fusion_columns(system)
    light = labelled.system_cpd("System", columns, list(system.models), list(system.labels),
                                large=0)
    full = labelled.system_cpd("System", columns, list(system.models), list(system.labels))
    assert light == full and vars(light).keys() == vars(full).keys()
    assert light.name_to_no == full.name_to_no and light.no_to_name == full.no_to_name
    monkeypatch.setattr(labelled, "LARGE_TABLE", 0)
    fresh = cc.System.declared(system.declaration, system.fusioner, slot=system.slot)
    np.testing.assert_allclose(ve_table(fresh), cc.interventional_table(fresh).to_numpy(),
                               rtol=1e-10, atol=1e-12)
