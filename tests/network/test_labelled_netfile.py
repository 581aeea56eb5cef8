"""K-label network files: read, build, compare with the builder; errors name the field."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import causalcost as cc

TEXT = '''
format = "causalcost-network"
version = 1
name = "triage"
description = "three labels, a latent difficulty"
slot = "c"

[class]
labels = ["ok", "flu", "covid"]
prior = [0.6, 0.3, 0.1]

[[latents]]
name = "Difficulty"
states = ["easy", "hard"]
probabilities = [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]]

[[models]]
name = "a"
latent = "Difficulty"
[models.confusion]
easy = [[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]]
hard = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]

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


def test_file_equals_builder(tmp_path: Path) -> None:
    path = tmp_path / "triage.toml"
    path.write_text(TEXT, encoding="utf-8")
    spec = cc.read_network(path)
    assert spec.labels == ("ok", "flu", "covid") and spec.models == ("a", "b", "c")
    system = cc.load_network(path)
    eye = np.eye(3)
    built = (cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
             .add_latent("Difficulty", ["easy", "hard"], [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]])
             .add_model("a", confusion={"easy": 0.85 * eye + 0.05,
                                        "hard": 0.25 * eye + 0.25}, latent="Difficulty")
             .add_model("b", confusion=0.7 * eye + 0.1)
             .add_model("c", confusion=0.55 * eye + 0.15)
             .set_fusioner("plurality", tie="slot").build(slot="c"))
    np.testing.assert_allclose(cc.interventional_table(system).to_numpy(),
                               cc.interventional_table(built).to_numpy(), rtol=1e-12,
                               atol=1e-15)


@pytest.mark.parametrize("old,new,words", [
    ('prior = [0.6, 0.3, 0.1]', 'prior = [0.6, 0.3, 0.2]', "class.prior must sum to 1"),
    ('name = "b"\n', 'name = "b"\ncolour = 1\n', "unknown key"),
    ('[[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]', '[[0.8, 0.1, 0.1]]',
     "models\\[1\\].confusion needs 3 rows"),
    ('tie = "slot"', 'tie = ["ok", "flu"]', "tie must list every label"),
])
def test_errors_name_the_field(tmp_path: Path, old: str, new: str, words: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(TEXT.replace(old, new), encoding="utf-8")
    with pytest.raises(cc.ValidationError, match=words):
        cc.load_network(path)


def test_binary_files_unchanged() -> None:
    assert isinstance(cc.load_network("thesis_and"), cc.System)
