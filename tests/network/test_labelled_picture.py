"""Pictures of K-label systems: every node drawn, the K labels and the fusion rule shown, the
slot's incoming edges cut under do(), and the picture a notebook displays."""

from __future__ import annotations

import re

import numpy as np
import pytest

import causalcost as cc

EYE = np.eye(3)


def system(fusioner: str, **options: object) -> cc.System:
    b = cc.SystemBuilder([0.5, 0.3, 0.2], labels=["low", "mid", "high"])
    latent = options.pop("latent", False)
    if latent:  # history's errors depend on a difficulty the class makes likelier when high
        b = b.add_latent("Difficulty", ["easy", "hard"], [[0.7, 0.3], [0.5, 0.5], [0.4, 0.6]])
    for i, name in enumerate(["images", "history", "labs"]):
        rates = (0.8 - 0.05 * i) * EYE + (0.1 + 0.025 * i) * (1 - EYE)
        if latent and name == "history":
            b = b.add_model(name, confusion={"easy": rates, "hard": 0.5 * EYE + 0.25 * (1 - EYE)},
                            latent="Difficulty")
        else:
            b = b.add_model(name, confusion=rates)
    return b.set_fusioner(fusioner, **options).build(slot="history")


def node_ids(svg: str) -> set[str]:
    return set(re.findall(r'id="node:([^"]+)"', svg))


def edge_ids(svg: str) -> set[str]:
    return {e.replace("&gt;", ">") for e in re.findall(r'id="edge:([^"]+)"', svg)}


@pytest.mark.parametrize(("fusioner", "options", "words"), [
    ("plurality", {}, ["plurality"]),
    ("priority", {"order": ["high", "mid", "low"]}, ["first voted of", "high &gt; mid &gt; low"]),
    ("k_of_n", {"label": "high", "k": 2}, ["high if 2 of 3 vote high"]),
    ("weighted", {"weights": [2, 1, 1]}, ["weighted plurality"]),
])
def test_the_rule_and_the_labels_are_on_the_picture(fusioner: str, options: dict,
                                                    words: list[str]) -> None:
    s = system(fusioner, **options)
    svg = s.picture().svg
    assert node_ids(svg) == {"Class", "images", "history", "labs", "System", "Confusion"}
    for word in [*words, "low / mid / high"]:
        assert word in svg, word
    assert {"Class->images", "images->System", "System->Confusion", "Class->Confusion"} \
        <= edge_ids(svg)


def test_do_cuts_the_slots_parents_and_keeps_the_rest() -> None:
    s = system("plurality", latent=True)
    sketch = s
    assert set(sketch.graph.predecessors("history")) == {"Class", "Difficulty"}
    assert set(sketch.graph.predecessors("images")) == {"Class"}
    plain, cut = s.picture().svg, s.picture("high").svg
    assert "Class->history" in edge_ids(plain)
    assert "do(history" in cut and "= high)" in cut
    assert not any(e.endswith("->history") for e in edge_ids(cut))
    assert "Class->Difficulty" in edge_ids(cut)  # the latent stays: only the slot is fixed
    assert "Class->images" in edge_ids(cut)
    with pytest.raises(cc.UnknownNameError, match="valid states"):
        s.picture("urgent")


def test_a_notebook_shows_the_system_as_its_picture() -> None:
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(system("plurality"))
    assert data["image/svg+xml"].startswith("<svg")


def test_the_picture_has_the_edges_of_the_pgmpy_network() -> None:
    s = system("plurality", latent=True)
    net = s.network
    drawn = {e for e in s.graph.edges if "Confusion" not in e}
    assert drawn == {(str(a), str(b)) for a, b in net.edges()}
