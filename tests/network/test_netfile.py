"""Network files (network.netfile): the shipped TOML files, schema errors, BIF import/export.

Expected values are read from the TOML files themselves with ``tomllib`` (an independent
parser of the declaration) and compared with the CPDs of the loaded network; interventional
tables are compared with the brute-force enumeration of conftest.py.
"""

from __future__ import annotations

import itertools
import sys
import textwrap
import warnings
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from conftest import brute_force_table

import causalcost as cc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork
    from pgmpy.readwrite import BIFWriter

NETWORKS = cc.list_networks()
NETWORK_DIR = Path(str(resources.files("causalcost.network.shipped")))


def _prob(value) -> float:
    return float(Fraction(value)) if isinstance(value, str) else float(value)


# ------------------------------------------------------------------------ shipped files
def test_list_networks_matches_the_directory() -> None:
    assert NETWORKS == sorted(p.stem for p in NETWORK_DIR.glob("*.toml"))
    assert len(NETWORKS) >= 6


@pytest.mark.parametrize("name", NETWORKS)
def test_shipped_file_loads_as_declared(name: str) -> None:
    doc = tomllib.loads((NETWORK_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    system = cc.load_network(name)
    assert system.name == doc["name"] == name
    assert system.slot == doc["slot"]
    net = system.network
    declared = [m["name"] for m in doc.get("models", [])]
    declared += [m for pair in doc.get("correlated", []) for m in pair["models"]]
    assert system.models == tuple(declared)
    if "prior" in doc.get("class", {}):
        assert net.get_cpds("Class").get_value(Class="P") == pytest.approx(
            _prob(doc["class"]["prior"]), abs=1e-15)
    for model in doc.get("models", []):
        cpd = net.get_cpds(model["name"])
        if "sensitivity" in model:
            assert cpd.get_value(**{model["name"]: "P", "Class": "P"}) == pytest.approx(
                model["sensitivity"], abs=1e-15)
            assert cpd.get_value(**{model["name"]: "N", "Class": "N"}) == pytest.approx(
                model["specificity"], abs=1e-15)
        elif "scores" in model:  # a score node: P(bin | class) from the Beta shapes
            from scipy.stats import beta

            edges = model["scores"]["edges"]
            assert system.states(model["name"]) == [
                f"{a:g}-{b:g}" for a, b in zip(edges, edges[1:])]
            for c, cls in enumerate(("P", "N")):
                a, b = model["scores"]["beta"][cls]
                np.testing.assert_allclose(cpd.get_values()[:, c],
                                           np.diff(beta.cdf(edges, a, b)), atol=1e-12)
        else:
            parents = model["parents"]
            configs = itertools.product(*(system.states(p) for p in parents))
            for config, p in zip(configs, model["positive_probability"], strict=True):
                got = cpd.get_value(**{model["name"]: "P"}, **dict(zip(parents, config)))
                assert got == pytest.approx(p, abs=1e-15)
    if "population" in doc:
        pop = doc["population"]
        cls = net.get_cpds("Class")
        for state, p in zip(pop["states"], pop["class_positive"], strict=True):
            assert cls.get_value(Class="P", Population=state) == pytest.approx(p, abs=1e-15)
    for node in doc.get("nodes", []):
        cpd = net.get_cpds(node["name"])
        configs = itertools.product(*(system.states(p) for p in node.get("parents", [])))
        for config, row in zip(configs, node["cpd"], strict=True):
            for state, p in zip(node["states"], row, strict=True):
                got = cpd.get_value(**{node["name"]: state},
                                    **dict(zip(node.get("parents", []), config)))
                assert got == pytest.approx(p, abs=1e-15)
    rule = doc["fusioner"]["rule"]
    fus = net.get_cpds("Fusioner")
    if rule == "mean":  # soft voting: the weighted mean of the bins' midpoints >= threshold
        weights = [doc["fusioner"]["weights"][m] for m in system.models]
        bins = [system.states(m) for m in system.models]
        for combo in itertools.product(*bins):
            mid = [sum(map(float, b.split("-"))) / 2 for b in combo]
            says = sum(w * s for w, s in zip(weights, mid)) / sum(weights) \
                >= doc["fusioner"]["threshold"]
            got = fus.get_value(Fusioner="P", **dict(zip(system.models, combo)))
            assert got == (1.0 if says else 0.0)
        return
    assert rule in ("and", "or", "majority")  # what the shipped vote files use
    for votes in itertools.product("PN", repeat=len(system.models)):
        yes = votes.count("P")
        expected = {"and": yes == len(votes), "or": yes > 0,
                    "majority": 2 * yes > len(votes)}[rule]
        got = fus.get_value(Fusioner="P", **dict(zip(system.models, votes)))
        assert got == (1.0 if expected else 0.0)


def test_slot_override() -> None:
    default = cc.load_network("majority3")
    other = cc.load_network("majority3", slot="lab_tests")
    assert default.slot == "clinical_history" and other.slot == "lab_tests"
    np.testing.assert_allclose(cc.interventional_table(other).probabilities,
                               brute_force_table(default, "lab_tests"), atol=1e-12)
    with pytest.raises(cc.UnknownNameError, match="majority3.toml: slot 'nope'"):
        cc.load_network("majority3", slot="nope")


def test_load_by_path_and_unknown_name(tmp_path: Path) -> None:
    path = tmp_path / "copy.toml"
    path.write_text((NETWORK_DIR / "thesis_or.toml").read_text(encoding="utf-8"))
    by_path = cc.load_network(path)
    np.testing.assert_allclose(cc.interventional_table(by_path).probabilities,
                               cc.interventional_table(cc.load_network("thesis_or"))
                               .probabilities, atol=0)
    with pytest.raises(cc.UnknownNameError, match="shipped networks: .*thesis_and"):
        cc.load_network("no_such_network")
    bif = tmp_path / "x.bif"
    bif.write_text("network x {}\n")
    with pytest.raises(cc.NetworkFileError, match="x.bif is a BIF file: load it with load_bif"):
        cc.load_network(bif)


# ------------------------------------------------------------------------ schema errors
VALID = """
format = "causalcost-network"
version = 1
name = "t"
slot = "b"

[class]
prior = 0.4

[population]
states = ["u", "v"]
probabilities = [0.5, 0.5]
class_positive = [0.2, 0.6]

[[nodes]]
name = "F"
states = ["lo", "hi"]
parents = ["Population"]
cpd = [[0.3, 0.7], [0.6, 0.4]]

[[models]]
name = "a"
parents = ["F"]
positive_probability = [0.2, 0.9]

[[models]]
name = "b"
sensitivity = 0.8
specificity = 0.7

[fusioner]
rule = "and"
"""


def _write(tmp_path: Path, text: str, name: str = "net.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _valid_without_prior() -> str:
    return VALID.replace("[class]\nprior = 0.4\n", "")


def test_valid_document_loads(tmp_path: Path) -> None:
    system = cc.load_network(_write(tmp_path, _valid_without_prior()))
    assert system.models == ("a", "b") and system.slot == "b"
    np.testing.assert_allclose(cc.interventional_table(system).probabilities,
                               brute_force_table(system), atol=1e-12)


@pytest.mark.parametrize(("old", "new", "error", "message"), [
    ('name = "t"', 'name = "t"\ncolour = "red"', cc.NetworkFileError,
     r"unknown key\(s\) \['colour'\] in the top level"),
    ("sensitivity = 0.8", "sensitivty = 0.8", cc.NetworkFileError,
     r"unknown key\(s\) \['sensitivty'\] in models\[1\]"),
    ('rule = "and"', 'rule = "and"\ncolour = 1', cc.NetworkFileError,
     r"unknown key\(s\) \['colour'\] in \[fusioner\]"),
    ("sensitivity = 0.8", 'sensitivity = "high"', cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a number or a fraction"),
    ("sensitivity = 0.8", "sensitivity = true", cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a number, got True"),
    ("sensitivity = 0.8", "sensitivity = 1.5", cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a probability in \[0, 1\], got 1.5"),
    ("specificity = 0.7", "specificity = -0.1", cc.NetworkFileError,
     r"models\[1\]\.specificity must be a probability in \[0, 1\]"),
    ("positive_probability = [0.2, 0.9]", "positive_probability = [0.2, 2]",
     cc.NetworkFileError, r"models\[0\]\.positive_probability\[1\] must be a probability"),
    ("cpd = [[0.3, 0.7], [0.6, 0.4]]", "cpd = [[0.3, 0.7], [0.6, 0.5]]", cc.NetworkFileError,
     r"nodes\[0\]\.cpd\[1\] must sum to 1, sums to 1.1"),
    ("cpd = [[0.3, 0.7], [0.6, 0.4]]", "cpd = [[0.3, 0.7], [1.2, -0.2]]", cc.NetworkFileError,
     r"nodes\[0\]\.cpd\[1\]\[0\] must be a probability"),
    ('states = ["lo", "hi"]', 'states = "lohi"', cc.NetworkFileError,
     r"nodes\[0\]\.states must be a list of strings"),
    ('name = "F"', "", cc.NetworkFileError, r"nodes\[0\]\.name is missing"),
    ("probabilities = [0.5, 0.5]", "probabilities = [0.5, 0.6]", cc.NetworkFileError,
     r"population\.probabilities must sum to 1"),
    ("class_positive = [0.2, 0.6]", 'class_positive = [0.2, "x"]', cc.NetworkFileError,
     r"population\.class_positive\[1\] must be a number or a fraction"),
    ('format = "causalcost-network"', 'format = "other"', cc.NetworkFileError,
     r"format must be 'causalcost-network'"),
    ("version = 1", "version = 2", cc.NetworkFileError, r"version must be the integer 1 .*got 2"),
    ('rule = "and"', 'rule = "k_of_n"\nk = 1.5', cc.NetworkFileError,
     r"fusioner\.k must be an integer"),
    ('rule = "and"', 'rule = "xor"', cc.ValidationError,
     r"fusioner rule \('xor'\) must be one of and, or, majority"),
    ('rule = "and"', 'rule = "weighted"\nthreshold = 1\nweights = { a = 1, b = "x" }',
     cc.NetworkFileError, r"fusioner\.weights\.b must be a number"),
    ('parents = ["F"]', 'parents = ["G"]', cc.UnknownNameError,
     r"parent 'G' of 'a' is not declared"),
    ('slot = "b"', 'slot = 3', cc.NetworkFileError, r"slot must be a non-empty string"),
    ('slot = "b"', 'slot = "F"', cc.NetworkStructureError, r"slot 'F' must have two states"),
    # issue 7: values that used to pass, or to fail with a bare Python error
    ("version = 1", "version = true", cc.NetworkFileError, r"version must be the integer 1"),
    ("version = 1", "version = 1.0", cc.NetworkFileError, r"version must be .*got 1\.0"),
    ('rule = "and"', 'rule = "and"\nk = 2', cc.NetworkFileError,
     r"fusioner\.k is only read by rule 'k_of_n', and the rule is 'and'"),
    ('rule = "and"', 'rule = "or"\ntie = "positive"', cc.NetworkFileError,
     r"fusioner\.tie is only read by rule 'majority'"),
    ('rule = "and"', 'rule = "majority"\nthreshold = 2', cc.NetworkFileError,
     r"fusioner\.threshold is only read by rule 'weighted'"),
    ('rule = "and"', 'rule = "weighted"\nthreshold = 1\nweights = 5', cc.NetworkFileError,
     r"fusioner\.weights must be a table of model = weight .*got 5"),
    ('rule = "and"', 'rule = "and"\ninputs = ["a", "b", "a"]', cc.NetworkFileError,
     r"fusioner\.inputs lists \['a'\] more than once"),
    ('rule = "and"', 'rule = "and"\ndivorce = "yes"', cc.NetworkFileError,
     r"fusioner\.divorce must be true or false"),
    ("cpd = [[0.3, 0.7], [0.6, 0.4]]", "cpd = [[0.3, 0.7], [1.0]]", cc.NetworkFileError,
     r"nodes\[0\]\.cpd\[1\] needs 2 values, got 1"),
    ("cpd = [[0.3, 0.7], [0.6, 0.4]]", "cpd = [[0.3, 0.7], [0.6, 0.4, 0.0]]",
     cc.NetworkFileError, r"nodes\[0\]\.cpd\[1\] needs 2 values, got 3"),
    ("probabilities = [0.5, 0.5]", "probabilities = [0.5, 0.25, 0.25]", cc.NetworkFileError,
     r"population\.probabilities needs 2 values, got 3"),
    ("class_positive = [0.2, 0.6]", "class_positive = [0.2, 0.6, 0.1]", cc.NetworkFileError,
     r"population\.class_positive needs 2 values, got 3"),
    ("sensitivity = 0.8", "sensitivity = " + "1" * 400, cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a finite number that fits in a double, got 1111"),
    ("sensitivity = 0.8", "sensitivity = 1e309", cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a finite number .*got inf"),
    ("sensitivity = 0.8", "sensitivity = nan", cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a finite number"),
    ("sensitivity = 0.8", 'sensitivity = "' + "3" * 400 + '/1"', cc.NetworkFileError,
     r"models\[1\]\.sensitivity must be a finite number .*\(404 characters\)"),
    ('rule = "and"', 'rule = "weighted"\nthreshold = 1e309\nweights = { a = 1, b = 1 }',
     cc.NetworkFileError, r"fusioner\.threshold must be a finite number"),
    ('rule = "and"', 'rule = "weighted"\nthreshold = 1\nweights = { a = 1e309, b = 1 }',
     cc.NetworkFileError, r"fusioner\.weights\.a must be a finite number"),
])
def test_schema_errors_name_the_field(tmp_path: Path, old: str, new: str, error, message: str,
                                      ) -> None:
    text = _valid_without_prior()
    assert old in text
    path = _write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(error, match=message) as info:
        cc.load_network(path)
    assert str(info.value).startswith("net.toml: ")  # errors name the file too


def test_correlated_rates_are_pairs_never_truncated(tmp_path: Path) -> None:
    doc = CORRELATED.replace("sensitivity = [0.8, 0.5]", "sensitivity = [0.8, 0.5, 0.3]")
    with pytest.raises(cc.NetworkFileError,
                       match=r"correlated\[0\]\.sensitivity needs two values .*got 3"):
        cc.load_network(_write(tmp_path, doc))
    doc = CORRELATED.replace("correlation_positive = 0.9", "correlation_positive = 1e309")
    with pytest.raises(cc.NetworkFileError, match=r"correlation_positive must be a finite"):
        cc.load_network(_write(tmp_path, doc))
    # and in Python: three values are refused, not cut to two
    with pytest.raises(cc.ValidationError, match="sensitivity needs two values .*got 3"):
        cc.SystemBuilder(class_prior=0.5).add_correlated_models(
            "a", "b", sensitivity=(0.5, 0.5, 0.9), specificity=(0.5, 0.5),
            correlation_positive=0.0, correlation_negative=0.0)


@pytest.mark.parametrize(("content", "message"), [
    (b"format = \"causalcost-network\"\nname = \"caf\xe9\"\n", r"not UTF-8 text \(byte"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r"a binary file, not a text network file"),
    (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", r"nested too deeply to parse"),
    (b"x = " + b"{ y = " * 3000 + b"1" + b" }" * 3000 + b"\n", r"nested too deeply to parse"),
    (b"format = [\n", r"not valid TOML"),
])
def test_unreadable_files_are_refused_by_name(tmp_path: Path, content: bytes,
                                              message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(cc.NetworkFileError, match=message) as info:
        cc.read_network(path)
    assert str(info.value).startswith("bad.toml: ")


def test_schema_errors_of_whole_tables(tmp_path: Path) -> None:
    text = _valid_without_prior()
    cases = [
        (text.replace("[fusioner]\nrule = \"and\"\n", ""), r"\[fusioner\] table is missing"),
        (text.replace("[population]", "[population]\ncolour = 1"),
         r"unknown key\(s\) \['colour'\] in \[population\]"),
        (text.replace("[population]\nstates", "[class]\nprior = 0.5\nname = 'C'\ncolour = 1\n"
                      "[population]\nstates"), r"unknown key\(s\) \['colour'\] in \[class\]"),
        ("format = \"causalcost-network\"\nversion = 1\nmodels = 3\n[class]\nprior = 0.5\n",
         r"models must be an array of tables"),
        ("format = \"causalcost-network\"\nversion = 1\n[[models]]\nname = 'a'\n"
         "sensitivity = 0.5\nspecificity = 0.5\n[fusioner]\nrule = 'and'\n",
         r"class\.prior is missing"),
        ("format = = 1", "not valid TOML"),
        (VALID, "drop class_prior"),  # a prior and a population: ambiguous class
    ]
    for i, (doc, message) in enumerate(cases):
        path = _write(tmp_path, doc, f"case{i}.toml")
        with pytest.raises(cc.ValidationError, match=message):
            cc.load_network(path)


CORRELATED = """
format = "causalcost-network"
version = 1
[class]
prior = 0.5
[[correlated]]
models = ["m1", "m2"]
sensitivity = [0.8, 0.5]
specificity = [0.5, 0.5]
correlation_positive = 0.9
correlation_negative = 0.0
[fusioner]
rule = "or"
"""


def test_correlated_block_errors(tmp_path: Path) -> None:
    doc = CORRELATED
    # 0.8 / 0.5: reachable correlations [-0.5, 0.5] (by hand, see test_system.py)
    with pytest.raises(cc.ValidationError, match=r"reachable correlations lie in \[-0.5, 0.5\]"):
        cc.load_network(_write(tmp_path, doc))
    with pytest.raises(cc.NetworkFileError, match=r"correlated\[0\]\.sensitivity needs two"):
        cc.load_network(_write(tmp_path, doc.replace("[0.8, 0.5]", "[0.8]")))
    with pytest.raises(cc.NetworkFileError, match=r"correlated\[0\]\.models must name two"):
        cc.load_network(_write(tmp_path, doc.replace('["m1", "m2"]', '["m1"]')))


def test_fraction_prior_is_exact(tmp_path: Path) -> None:
    # thesis §4: 100 positives, 200 negatives -> prior "1/3", stored as the float 1/3
    assert cc.load_network("thesis_and").network.get_cpds("Class").get_value(Class="P") == 1 / 3
    bad = _valid_without_prior().replace("[population]", "[class]\nprior = \"1/0\"\n"
                                         "[population]")
    with pytest.raises(cc.NetworkFileError, match=r"class\.prior must be a number or a fraction"):
        cc.load_network(_write(tmp_path, bad))


# ------------------------------------------------------------------------ BIF
@pytest.mark.parametrize("name", NETWORKS)
def test_bif_round_trip(name: str, tmp_path: Path) -> None:
    system = cc.load_network(name)
    path = tmp_path / f"{name}.bif"
    system.to_bif(path)
    again = cc.load_bif(path, class_node="Class", system_node="Fusioner", slot=system.slot)
    assert again.confusion_node == "Confusion" and again.name == name
    assert set(again.models) == set(system.models)
    np.testing.assert_allclose(cc.interventional_table(again).probabilities,
                               cc.interventional_table(system).probabilities,
                               rtol=0, atol=1e-12)


def test_bif_without_confusion_node(tmp_path: Path) -> None:
    # A pgmpy network written by pgmpy's BIFWriter, no causalcost involved in the file:
    # Class -> x (3-valued feature) -> a; Class -> b; OR of a and b.
    sn = {"Class": ["P", "N"], "x": ["lo", "mid", "hi"], "a": ["P", "N"], "b": ["P", "N"],
          "Fus": ["P", "N"]}
    net = DiscreteBayesianNetwork([("Class", "x"), ("x", "a"), ("Class", "b"), ("a", "Fus"),
                                   ("b", "Fus")])
    net.add_cpds(
        TabularCPD("Class", 2, [[0.25], [0.75]], state_names={"Class": sn["Class"]}),
        TabularCPD("x", 3, [[0.1, 0.6], [0.3, 0.3], [0.6, 0.1]], evidence=["Class"],
                   evidence_card=[2], state_names={"x": sn["x"], "Class": sn["Class"]}),
        TabularCPD("a", 2, [[0.1, 0.5, 0.95], [0.9, 0.5, 0.05]], evidence=["x"],
                   evidence_card=[3], state_names={"a": sn["a"], "x": sn["x"]}),
        TabularCPD("b", 2, [[0.7, 0.2], [0.3, 0.8]], evidence=["Class"], evidence_card=[2],
                   state_names={"b": sn["b"], "Class": sn["Class"]}),
        TabularCPD("Fus", 2, [[1, 1, 1, 0], [0, 0, 0, 1]], evidence=["a", "b"],
                   evidence_card=[2, 2], state_names={"Fus": sn["Fus"], "a": sn["a"],
                                                      "b": sn["b"]}),
    )
    path = tmp_path / "plain.bif"
    BIFWriter(net).write(str(path))
    system = cc.load_bif(path, class_node="Class", system_node="Fus", slot="a")
    assert "Confusion" in system.network.nodes() and system.confusion_node == "Confusion"
    assert set(system.network.get_parents("Confusion")) == {"Class", "Fus"}
    assert system.models == ("a", "b") or set(system.models) == {"a", "b"}
    expected = brute_force_table(system)  # brute-force enumeration
    np.testing.assert_allclose(cc.interventional_table(system).probabilities, expected,
                               rtol=0, atol=1e-12)
    # OR, slot forced to N: a positive is missed iff b misses it: 1 - 0.7 (the CPD above)
    assert expected[0, 1, 1] == pytest.approx(0.3, abs=1e-12)


def test_bif_errors(tmp_path: Path) -> None:
    with pytest.raises(cc.UnknownNameError, match="no BIF file"):
        cc.load_bif(tmp_path / "missing.bif", class_node="Class", system_node="Fusioner")
    path = tmp_path / "and.bif"
    cc.load_network("thesis_and").to_bif(path)
    with pytest.raises(cc.UnknownNameError, match=r"and.bif: system node 'Fus' is not a node"):
        cc.load_bif(path, class_node="Class", system_node="Fus")


@pytest.mark.parametrize("stem", NETWORKS)
def test_the_listing_summary_is_what_the_file_declares(stem: str) -> None:
    """``causalcost networks`` reads each file without declaring it; what it lists is what
    ``read_network`` declares (slot, rule, models in order, description)."""
    from causalcost.network.netfile import shipped_summary

    spec, summary = cc.read_network(stem), shipped_summary(stem)
    assert summary == {"slot": spec.slot, "fusioner": spec.fusioner,
                       "models": list(spec.models), "description": spec.description}
