"""BIF robustness (network.bif, load_bif, System.to_bif): issue 7.

pgmpy's BIF reader keeps the last of two tables for a variable, the last of two rows for one
parent configuration, and fills a missing row with zeros; the files here are written by hand
so that each defect is the only one. Exported files are read back with pgmpy's own reader
(``BIFReader``, no causalcost code) and compared table by table, exactly.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import causalcost as cc
from causalcost.network.bif import BIF_KEYWORDS, bif_name_problem

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork
    from pgmpy.readwrite import BIFReader

HEADER = """network test {
}
variable Class {
    type discrete [ 2 ] { P, N };
}
variable a {
    type discrete [ 2 ] { P, N };
}
variable b {
    type discrete [ 2 ] { P, N };
}
variable Fusioner {
    type discrete [ 2 ] { P, N };
}
probability ( Class ) {
    table 0.4, 0.6 ;
}
probability ( a | Class ) {
    ( P ) 0.8, 0.2;
    ( N ) 0.3, 0.7;
}
"""
B = """probability ( b | Class ) {
    ( P ) 0.6, 0.4;
    ( N ) 0.1, 0.9;
}
"""
FUSIONER = """probability ( Fusioner | a, b ) {
    ( P, P ) 1.0, 0.0;
    ( P, N ) 0.0, 1.0;
    ( N, P ) 0.0, 1.0;
    ( N, N ) 0.0, 1.0;
}
"""


def load(tmp_path: Path, text: str, **roles) -> cc.System:
    path = tmp_path / "net.bif"
    path.write_text(text, encoding="utf-8")
    return cc.load_bif(path, class_node="Class", system_node="Fusioner", **roles)


def test_the_hand_written_file_loads(tmp_path: Path) -> None:
    system = load(tmp_path, HEADER + B + FUSIONER, slot="b")
    assert system.fusioner is not None and system.fusioner.rule == "and"
    # AND with b forced to P: the system says P iff a does: 0.8 on positives (the table above)
    assert cc.interventional_table(system).probabilities[0, 0, 0] == pytest.approx(0.8)


def test_a_repeated_probability_block_is_refused(tmp_path: Path) -> None:
    again = B.replace("0.6, 0.4", "0.9, 0.1")
    with pytest.raises(cc.NetworkFileError,
                       match=r"net\.bif: two probability blocks for variable 'b'"):
        load(tmp_path, HEADER + B + again + FUSIONER)


def test_a_repeated_row_is_refused(tmp_path: Path) -> None:
    doubled = FUSIONER.replace("    ( N, N ) 0.0, 1.0;\n",
                               "    ( N, N ) 0.0, 1.0;\n    ( P, N ) 1.0, 0.0;\n")
    with pytest.raises(cc.NetworkFileError,
                       match=r"the table of 'Fusioner' has two rows for \(a=P, b=N\)"):
        load(tmp_path, HEADER + B + doubled)


def test_a_missing_row_is_refused(tmp_path: Path) -> None:
    missing = FUSIONER.replace("    ( N, P ) 0.0, 1.0;\n", "")
    with pytest.raises(cc.NetworkFileError,
                       match=r"the table of 'Fusioner' has no row for \(a=N, b=P\)"):
        load(tmp_path, HEADER + B + missing)


def test_a_variable_declared_twice_is_refused(tmp_path: Path) -> None:
    text = HEADER.replace("variable b {", "variable a {\n    type discrete [ 2 ] { P, N };\n}\n"
                          "variable b {")
    with pytest.raises(cc.NetworkFileError, match="variable 'a' is declared twice"):
        load(tmp_path, text + B + FUSIONER)


def test_comments_do_not_count_as_blocks(tmp_path: Path) -> None:
    commented = "/* probability ( b | Class ) { ( P ) 0.5, 0.5; } */\n// ( P ) 1, 0;\n"
    system = load(tmp_path, HEADER + commented + B + FUSIONER, slot="a")
    assert system.network.get_cpds("b").values[0, 0] == 0.6


def test_a_model_with_other_states_than_the_class_is_refused(tmp_path: Path) -> None:
    text = (HEADER + B + FUSIONER).replace(
        "variable b {\n    type discrete [ 2 ] { P, N };", "variable b {\n    type discrete [ 2 ] "
        "{ P, X };").replace("( P, N ) 0.0", "( P, X ) 0.0").replace("( N, N ) 0.0",
                                                                      "( N, X ) 0.0")
    with pytest.raises(cc.NetworkStructureError,
                       match=r"has the states \['P', 'X'\], but the class 'Class' has "
                             r"\['P', 'N'\]"):
        load(tmp_path, text, slot="b")


def test_binary_and_non_utf8_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.bif"
    path.write_bytes(b"network x {\n}\n\x00\x01\x02")
    with pytest.raises(cc.NetworkFileError, match=r"x\.bif: a binary file"):
        cc.load_bif(path, class_node="Class", system_node="Fusioner")
    path.write_bytes(b"network caf\xe9 {\n}\n")
    with pytest.raises(cc.NetworkFileError, match=r"x\.bif: not UTF-8 text"):
        cc.load_bif(path, class_node="Class", system_node="Fusioner")


# ------------------------------------------------------------------------ export
def network_named(node: str = "b", state: str = "N") -> DiscreteBayesianNetwork:
    sn = {"Class": ["P", "N"], "a": ["P", "N"], node: ["P", state]}
    net = DiscreteBayesianNetwork([("Class", "a"), ("Class", node)])
    net.add_cpds(
        TabularCPD("Class", 2, [[0.4], [0.6]], state_names={"Class": sn["Class"]}),
        TabularCPD("a", 2, [[0.8, 0.3], [0.2, 0.7]], evidence=["Class"], evidence_card=[2],
                   state_names={"a": sn["a"], "Class": sn["Class"]}),
        TabularCPD(node, 2, [[0.6, 0.1], [0.4, 0.9]], evidence=["Class"], evidence_card=[2],
                   state_names={node: sn[node], "Class": sn["Class"]}))
    return net


@pytest.mark.parametrize("name", ["my model", "a{b", "a;b", "x,y", "p(q)", "a|b", "quo\"te",
                                  "sl/ash", "tab\tname", "", "table", "Probability"])
def test_export_refuses_names_bif_cannot_read_back(name: str, tmp_path: Path) -> None:
    from causalcost.network.bif import write_bif

    assert bif_name_problem(name) is not None
    with pytest.raises(cc.NetworkFileError,
                       match=re.escape(f"cannot write node {name!r} to BIF: ")):
        write_bif(network_named(node=name), tmp_path / "x.bif")
    with pytest.raises(cc.NetworkFileError,
                       match=re.escape(f"cannot write state {name!r} of node 'b' to BIF")):
        write_bif(network_named(state=name), tmp_path / "x.bif")
    assert not (tmp_path / "x.bif").exists()


def test_export_refuses_names_equal_but_for_case(tmp_path: Path) -> None:
    from causalcost.network.bif import write_bif

    with pytest.raises(cc.NetworkFileError, match="regardless of case"):
        write_bif(network_named(node="A"), tmp_path / "x.bif")


def test_system_to_bif_refuses_a_bad_name(tmp_path: Path) -> None:
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("clinical history", sensitivity=0.8, specificity=0.7)
              .add_model("images", sensitivity=0.8, specificity=0.7)
              .set_fusioner("and").build(slot="images"))
    with pytest.raises(cc.NetworkFileError,
                       match=r"cannot write node 'clinical history' to BIF: it holds a space"):
        system.to_bif(tmp_path / "x.bif")


def test_keywords_and_words() -> None:
    assert {"table", "probability", "variable"} <= BIF_KEYWORDS
    for ok in ("images", "m-1", "v2.0", "état", "at_least_3", "0", "-1"):
        assert bif_name_problem(ok) is None, ok


@pytest.mark.parametrize("name", cc.list_networks())
def test_export_is_exact_when_pgmpy_reads_it_back(name: str, tmp_path: Path) -> None:
    # pgmpy's own reader, no causalcost code: every table equal to the last bit
    system = cc.load_network(name)
    path = tmp_path / "x.bif"
    system.to_bif(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = BIFReader(str(path)).get_model()
    for cpd in system.network.get_cpds():
        back = model.get_cpds(cpd.variable)
        assert list(back.variables) == list(cpd.variables)
        np.testing.assert_array_equal(back.get_values(), cpd.get_values())
