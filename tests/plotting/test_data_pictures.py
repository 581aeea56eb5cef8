"""Issue 17: pictures of a system built from data.

The fusioner's rule is on its node (SVG picture and matplotlib drawing), so systems that
differ only by their fusioner draw differently; ``ForcedRuns.picture()`` and
``causalcost draw --data`` draw the system behind a log; titles say what the system is; BIF
export keeps the models' order and the rule.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli import main
from causalcost.errors import NetworkFileError
from causalcost.network.fusioners import make_fusioner
from causalcost.network.picture import SystemPicture
from causalcost.network.sketch import vote_sketch
from causalcost.plotting.drawing import draw_intervention, draw_system

MODELS = ["a", "b", "c"]
# rule -> (make_fusioner options, CLI flags, the lines expected under the node's name)
FUSIONERS = {
    "majority": ({}, [], ["majority"]),
    "or": ({}, [], ["OR"]),
    "and": ({}, [], ["AND"]),
    "k_of_n": ({"k": 2}, ["--k", "2"], ["2 of 3"]),
    "weighted": ({"weights": [1, 2, 1], "threshold": 2},
                 ["--weights", "1,2,1", "--threshold", "2"], ["w 1,2,1", "\u2265 2"]),
}


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, 400)
    frame = pd.DataFrame({"truth": truth, **{m: np.where(rng.random(400) < 0.8, truth,
                                                          1 - truth) for m in MODELS}})
    path = tmp_path_factory.mktemp("log") / "log.csv"
    frame.to_csv(path, index=False)
    return path


def runs_for(log: Path, rule: str) -> cc.ForcedRuns:
    return cc.forced_runs(pd.read_csv(log), truth="truth", models=MODELS, slot="a",
                          fusioner=rule, **FUSIONERS[rule][0])


def node_text(svg: str, node: str, prefix: str = "") -> list[str]:
    group = re.search(rf'<g id="{re.escape(html.escape(prefix + "node:" + node))}">(.*?)</g>',
                      svg)
    assert group is not None, node
    return [html.unescape(t) for t in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", group[1])]


@pytest.mark.parametrize("rule", list(FUSIONERS))
def test_the_rule_is_on_the_fusioner_node(log: Path, rule: str) -> None:
    runs = runs_for(log, rule)
    picture = runs.picture()
    assert isinstance(picture, SystemPicture)  # the network drawing's picture object
    assert node_text(picture.svg, "Fusioner") == ["Fusioner", *FUSIONERS[rule][2]]
    # the other nodes keep their plain names
    assert node_text(picture.svg, "truth") == ["truth"] and node_text(picture.svg, "b") == ["b"]
    # the title says what the system is: the data, its rows, the rule and the models
    assert picture.title.startswith("system from pandas data (400 rows): ")
    assert picture.title.endswith(" over a, b, c")
    # the mutilated graph too: the slot's in-edge is cut, the rule still shown
    do = runs.picture(intervention="N")
    assert node_text(do.svg, "Fusioner") == ["Fusioner", *FUSIONERS[rule][2]]
    assert "edge:truth-&gt;a" in picture.svg and "edge:truth-&gt;a" not in do.svg


def test_different_fusioners_draw_differently(log: Path) -> None:
    pictures = {rule: runs_for(log, rule).picture() for rule in FUSIONERS}
    assert len({p.svg for p in pictures.values()}) == len(FUSIONERS)
    assert len({p.title for p in pictures.values()}) == len(FUSIONERS)
    # majority of 4 says where ties go
    four = vote_sketch(["a", "b", "c", "d"], make_fusioner("majority", list("abcd"),
                                                            tie="positive"), truth="y")
    assert node_text(cc.system_picture(four).svg, "Fusioner") == ["Fusioner", "majority",
                                                                  "ties P"]


def test_networks_show_their_rule_too() -> None:
    for name, rule in (("majority3", ["majority"]), ("thesis_and", ["AND"]),
                       ("thesis_or", ["OR"])):
        system = cc.load_network(name)
        svg = cc.intervention_picture(system, value="P").svg
        assert node_text(svg, "Fusioner") == ["Fusioner", *rule]
        assert node_text(svg, "Fusioner", "do:") == ["Fusioner", *rule]


@pytest.mark.parametrize("rule", ["majority", "weighted"])
def test_matplotlib_drawing_labels_the_rule(log: Path, rule: str) -> None:
    runs = runs_for(log, rule)
    from causalcost.network.sketch import data_sketch

    sketch = data_sketch(runs.models, runs.fusioner, slot=runs.slot, provenance=runs.provenance)
    fig = draw_system(sketch)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "\n".join(["Fusioner", *FUSIONERS[rule][2]]) in texts
    assert fig.axes[0].get_title() == sketch.name
    both = draw_intervention(sketch, value="P")
    assert [ax.get_title() for ax in both.axes] == [sketch.name, "do(a = P)"]


def test_a_learned_system_title_does_not_repeat_system() -> None:
    builder = cc.SystemBuilder(0.4)
    for m in MODELS:
        builder.add_model(m, sensitivity=0.8, specificity=0.8)
    builder.set_fusioner("majority")
    declared = builder.build(slot="a")
    data = declared.network.simulate(500, seed=1, show_progress=False)
    learned = cc.fit_system(declared, data)
    assert learned.name == "system (learned from 500 rows)"
    picture = cc.intervention_picture(learned, value="P")
    assert "system: system" not in picture.svg
    assert ">system (learned from 500 rows)</text>" in picture.svg
    assert node_text(picture.svg, "Fusioner") == ["Fusioner", "majority"]


# ------------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("rule", list(FUSIONERS))
@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_draw_data_writes_a_picture(log: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str], rule: str,
                                    suffix: str) -> None:
    out = tmp_path / f"system{suffix}"
    code = main(["draw", "--data", str(log), "--truth", "truth", "--models", "a,b,c",
                 "--slot", "a", "--fusioner", rule, *FUSIONERS[rule][1], "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    data = out.read_bytes()
    if suffix == ".png":
        assert data.startswith(b"\x89PNG")
    else:
        text = data.decode()
        assert "<svg" in text and "log.csv (400 rows)" in text
        for line in FUSIONERS[rule][2]:  # the rule drawn as text (matplotlib keeps it)
            assert html.escape(line) in text or line in text


@pytest.mark.parametrize(("flags", "needle"), [
    (["--truth", "truth", "--models", "a,b,c", "--fusioner", "or"], "needs --slot"),
    (["--truth", "truth", "--slot", "a", "--fusioner", "or"], "needs --models"),
    (["--truth", "truth", "--models", "a,b,c", "--slot", "a"], "needs --fusioner"),
    (["--truth", "truth", "--models", "a,b,zz", "--slot", "a", "--fusioner", "or"], "'zz'"),
    (["--truth", "truth", "--models", "a,b,c", "--slot", "a", "--fusioner", "weighted",
      "--weights", "1,2"], "weight"),
    (["--truth", "truth", "--models", "a,b,c", "--slot", "a", "--fusioner", "or",
      "--class-node", "y"], "--class-node"),
    (["--truth", "truth", "--models", "a,b,c", "--slot", "a", "--fusioner", "bogus"],
     "--fusioner"),
])
def test_draw_data_refuses_bad_flags(log: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str], flags: list[str],
                                     needle: str) -> None:
    out = tmp_path / "x.png"
    try:
        code = main(["draw", "--data", str(log), *flags, "-o", str(out)])
    except SystemExit as exc:  # argparse's own refusals (an unknown choice)
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert needle in err
    assert not out.exists()


def test_draw_takes_one_source(log: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.png"
    assert main(["draw", "-o", str(out)]) == 2
    assert "exactly one of NETWORK or --data" in capsys.readouterr().err
    assert main(["draw", "majority3", "--data", str(log), "-o", str(out)]) == 2
    assert "got both" in capsys.readouterr().err
    assert main(["draw", "majority3", "--truth", "y", "-o", str(out)]) == 2
    assert "--truth go with --data" in capsys.readouterr().err
    assert main(["draw", "--data", str(log), "--truth", "truth", "--models", "a,b,c",
                 "--slot", "a", "--fusioner", "or", "-o", str(tmp_path / "x.pdf")]) == 2
    assert "--output must end in .png or .svg" in capsys.readouterr().err
    assert not out.exists()


# ------------------------------------------------------------------------------- BIF
def built(order: list[str], rule: str, **options: object) -> cc.System:
    builder = cc.SystemBuilder(0.3)
    for i, m in enumerate(order):
        builder.add_model(m, sensitivity=0.7 + 0.05 * i, specificity=0.9 - 0.05 * i)
    builder.set_fusioner(rule, **options)
    return builder.build(slot=order[1])


@pytest.mark.parametrize(("rule", "options"), [
    ("majority", {}), ("and", {}), ("or", {}), ("k_of_n", {"k": 2}),
    ("weighted", {"weights": [3, 1, 0.5], "threshold": 3}),
])
def test_bif_round_trip_keeps_order_and_rule(tmp_path: Path, rule: str, options: dict) -> None:
    system = built(["zeta", "alpha", "mid"], rule, **options)  # not alphabetical
    path = tmp_path / "s.bif"
    system.to_bif(str(path))
    text = path.read_text()
    assert "property causalcost_models = zeta alpha mid ;" in text
    assert f"property causalcost_rule = {rule} ;" in text
    again = cc.load_bif(path, class_node=system.class_node, system_node=system.system_node)
    assert again.models == ("zeta", "alpha", "mid")
    assert again.fusioner is not None and again.fusioner.rule == rule
    assert again.fusioner.exact_weights == system.fusioner.exact_weights
    assert again.fusioner.exact_threshold == system.fusioner.exact_threshold
    # the same probabilities: the tables agree
    np.testing.assert_allclose(again.network.get_cpds("zeta").get_values(),
                               system.network.get_cpds("zeta").get_values(), rtol=1e-12)
    assert system.network.nodes[system.system_node] == {}  # the caller's network untouched
    # another reader (pgmpy's own) still reads the file
    from causalcost.network._pgmpy import bif_reader

    assert set(bif_reader(str(path)).get_model().nodes()) == set(system.network.nodes())


def test_bif_caller_models_win_and_a_tampered_rule_is_refused(tmp_path: Path) -> None:
    system = built(["zeta", "alpha", "mid"], "weighted", weights=[3, 1, 0.5], threshold=3)
    path = tmp_path / "s.bif"
    system.to_bif(str(path))
    order = ["alpha", "mid", "zeta"]
    again = cc.load_bif(path, class_node="Class", system_node=system.system_node, models=order)
    assert list(again.models) == order
    # a property saying another rule than the tables compute is refused, not trusted
    path.write_text(path.read_text().replace("causalcost_threshold = 3 ;",
                                             "causalcost_threshold = 4 ;"))
    with pytest.raises(cc.CausalCostError, match="s.bif.*not what the tables"):
        cc.load_bif(path, class_node="Class", system_node=system.system_node)
    path.write_text(path.read_text().replace("causalcost_weights = 3 1 0.5 ;",
                                             "causalcost_weights = 3 1 ;"))
    with pytest.raises(NetworkFileError, match="causalcost_weights holds 2 weights for 3"):
        cc.load_bif(path, class_node="Class", system_node=system.system_node)
