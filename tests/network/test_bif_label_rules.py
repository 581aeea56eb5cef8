"""A K-label system written to BIF keeps its fusion rule's name (K = 3, 4; K = 2 reads back as
the binary view).

Each system is built with one rule, written by ``System.to_bif`` and read back by
``cc.load_bif``: the rule comes back equal (name and options), and the interventional table
equals both the original's and pgmpy's VariableElimination on ``model.do([slot])`` of the
file read by pgmpy's own BIF reader (no causalcost code). ``causalcost query`` on the file
shows the rule. A rule the file's table does not compute is refused.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import causalcost as cc
from causalcost.cli.app import main

RULES: list[tuple[str, dict[str, Any]]] = [
    ("plurality", {}),
    ("plurality", {"tie": "slot"}),
    ("plurality", {"tie": "reversed"}),
    ("weighted", {"weights": [0.5, 1.25, 2]}),
    ("weighted", {"weights": [1, 1, 1.5], "threshold": "1.5", "label": "last"}),
    ("priority", {"order": "reversed"}),
    ("k_of_n", {"k": 2, "label": "last"}),
]


def built(k: int, rule: str, options: dict[str, Any], seed: int = 0) -> cc.System:
    rng = np.random.default_rng(seed + k)
    labels = [f"L{i}" for i in range(k)]
    b = cc.SystemBuilder(list(rng.dirichlet(np.ones(k))), labels=labels)
    b.add_latent("D", ["easy", "hard"], rng.dirichlet(np.ones(2), size=k))
    for i in range(3):
        if i == 1:
            b.add_model(f"m{i}", latent="D", confusion={
                z: rng.dirichlet(np.ones(k) * 2, size=k) for z in ("easy", "hard")})
        else:
            b.add_model(f"m{i}", confusion=rng.dirichlet(np.ones(k) * 2, size=k))
    given = dict(options)
    for key in ("tie", "order"):
        if given.get(key) == "reversed":
            given[key] = labels[::-1]
    if given.get("label") == "last":
        given["label"] = labels[-1]
    return b.set_fusioner(rule, **given).build(slot="m2")


def pgmpy_table(path: Path, slot: str, labels: list[str]) -> np.ndarray:
    """T[c, j, s] from the BIF file alone: pgmpy's reader and VariableElimination."""
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import BIFReader

    model = BIFReader(str(path)).get_model()
    ve = VariableElimination(model.do([slot]))
    k = len(labels)
    out = np.zeros((k, k, k))
    for c, j in itertools.product(range(k), range(k)):
        q = ve.query(["System"], evidence={"Class": labels[c], slot: labels[j]},
                     show_progress=False)
        names = [str(v) for v in q.state_names["System"]]
        out[c, j] = [q.values[names.index(s)] for s in labels]
    return out


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize(("rule", "options"), RULES)
def test_the_rule_reads_back_by_name(tmp_path: Path, k: int, rule: str,
                                     options: dict[str, Any]) -> None:
    system = built(k, rule, options)
    path = tmp_path / "s.bif"
    system.to_bif(str(path))
    again = cc.load_bif(path, class_node="Class", system_node="System", slot="m2")
    assert again.fusioner == system.fusioner
    assert again.fusioner.description == system.fusioner.description
    table = cc.interventional_table(again).to_numpy()
    np.testing.assert_allclose(table, cc.interventional_table(system).to_numpy(), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(table, pgmpy_table(path, "m2", list(system.labels)),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("k", [3, 4])
def test_query_shows_the_rule_of_the_exported_bif(tmp_path: Path, k: int,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    system = built(k, "k_of_n", {"k": 2, "label": "last"})
    path = tmp_path / "s.bif"
    system.to_bif(str(path))
    argv = ["query", str(path), "--class-node", "Class", "--system-node", "System", "--slot",
            "m2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"fusioner: {system.fusioner.description}\n" in out
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fusioner"] == system.fusioner.description == f"2 of 3 for 'L{k - 1}'"
    np.testing.assert_allclose(np.array(data["T"]), cc.interventional_table(system).to_numpy(),
                               rtol=1e-12)


def test_ties_to_the_slot_name_the_table_only_for_that_slot(tmp_path: Path) -> None:
    system = built(3, "plurality", {"tie": "slot"})
    path = tmp_path / "s.bif"
    system.to_bif(str(path))
    other = cc.load_bif(path, class_node="Class", system_node="System", slot="m0")
    assert other.fusioner.rule == "table"  # its ties went to m2's vote, not m0's
    np.testing.assert_allclose(cc.interventional_table(other).to_numpy(),
                               pgmpy_table(path, "m0", list(system.labels)), rtol=1e-9,
                               atol=1e-12)


def test_a_user_function_reads_back_as_its_table(tmp_path: Path) -> None:
    system = built(3, "plurality", {})
    rule = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["L0", "L1", "L2"])
            .add_model("m0", confusion=np.full((3, 3), 1 / 3))
            .add_model("m1", confusion=np.eye(3) * 0.4 + 0.2)
            .set_fusioner(lambda m0, m1: m1 if m0 == "L0" else m0).build(slot="m1"))
    path = tmp_path / "f.bif"
    rule.to_bif(str(path))
    again = cc.load_bif(path, class_node="Class", system_node="System", slot="m1")
    assert again.fusioner.rule == "table"
    np.testing.assert_allclose(cc.interventional_table(again).to_numpy(),
                               cc.interventional_table(rule).to_numpy(), rtol=1e-12)
    assert system.fusioner.rule == "plurality"


@pytest.mark.parametrize(("edit", "words"), [
    (("causalcost_k = 2", "causalcost_k = 1"), "is not what the table of 'System' computes"),
    (("causalcost_rule = k_of_n", "causalcost_rule = coin"), "does not make a rule"),
    (("causalcost_label = L2", "causalcost_label = wolf"), "does not make a rule"),
])
def test_a_rule_the_table_does_not_compute_is_refused(tmp_path: Path, edit: tuple[str, str],
                                                      words: str) -> None:
    path = tmp_path / "s.bif"
    built(3, "k_of_n", {"k": 2, "label": "last"}).to_bif(str(path))
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(*edit))
    with pytest.raises(cc.NetworkFileError, match=re.escape(words)):
        cc.load_bif(path, class_node="Class", system_node="System", slot="m2")


def test_two_labels_read_back_as_the_binary_view(tmp_path: Path) -> None:
    system = built(2, "plurality", {})
    path = tmp_path / "two.bif"
    system.to_bif(str(path))
    assert "causalcost_labels = L0 L1" in path.read_text()
    again = cc.load_bif(path, class_node="Class", system_node="System", slot="m2",
                        positive="L0")
    np.testing.assert_allclose(cc.interventional_table(again).to_numpy(),
                               cc.interventional_table(system).to_numpy(), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("k", [3, 4])
def test_the_network_table_of_a_thresholded_vote_is_the_rule(k: int) -> None:
    """The system node's table (what pgmpy, BIF and the sampler read) decides every vote
    configuration as the rule does: the threshold is compared in the rule's own units."""
    from causalcost.network.labelled import fusion_table

    system = built(k, "weighted", {"weights": [1, 1, 1.5], "threshold": "1.5",
                                   "label": "last"})
    table = fusion_table(system)
    for votes in itertools.product(range(k), repeat=3):
        tally = [sum(w for w, v in zip((1, 1, 1.5), votes) if v == s) for s in range(k)]
        expected = k - 1 if tally[k - 1] >= 1.5 else max(range(k - 1), key=lambda s: (
            tally[s], -s))
        assert table[votes].tolist() == np.eye(k)[expected].tolist(), votes
    sampled = cc.interventional_table(system, method="sampling", samples=4000, seed=3)
    exact = cc.interventional_table(system).to_numpy()
    assert np.abs(sampled.to_numpy() - exact).max() < 0.05


def test_export_of_a_network_file_keeps_the_rule(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    network = tmp_path / "triage.toml"
    network.write_text('''
format = "causalcost-network"
version = 1
name = "triage"
slot = "c"

[class]
labels = ["ok", "flu", "covid", "cold"]
prior = [0.5, 0.2, 0.1, 0.2]

[[models]]
name = "a"
confusion = [[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.7]]

[[models]]
name = "b"
confusion = [[0.6, 0.2, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.6, 0.2], [0.2, 0.1, 0.1, 0.6]]

[[models]]
name = "c"
confusion = [[0.8, 0.1, 0.05, 0.05], [0.1, 0.8, 0.05, 0.05],
             [0.05, 0.05, 0.8, 0.1], [0.05, 0.05, 0.1, 0.8]]

[fusioner]
rule = "priority"
order = ["covid", "flu"]
''')
    bif = tmp_path / "triage.bif"
    assert main(["export", str(network), "-o", str(bif)]) == 0
    capsys.readouterr()
    assert main(["query", str(bif), "--class-node", "Class", "--system-node", "System",
                 "--slot", "c", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    declared = cc.load_network(network)
    assert data["fusioner"] == declared.fusioner.description
    assert "priority" in data["fusioner"]
    np.testing.assert_allclose(np.array(data["T"]),
                               cc.interventional_table(declared).to_numpy(), rtol=1e-12)
