"""CLI errors name what the user typed (issue 16 item 12): flags, not Python arguments;
commands, not ``cc.`` functions; and no option is silently ignored."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

import causalcost as cc
from causalcost.cli.app import build_parser, main
from causalcost.cli.wording import ALIASES, cli_wording, flag_names
from causalcost.errors import CausalCostError

PARSER = build_parser()


def commands(parser: argparse.ArgumentParser = PARSER, prefix: tuple[str, ...] = ()):
    """Every (sub)command's words and parser, ``experiment ratio`` included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield from commands(sub, (*prefix, word))
            return
    yield prefix, parser


COMMANDS = {" ".join(words): parser for words, parser in commands()}


def namespace(words: str, parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The Namespace of ``words`` without running it (required options filled with None)."""
    args = argparse.Namespace(**{a.dest: a.default for a in parser._actions})
    first, *rest = words.split()
    args.command = first
    if rest:
        args.experiment = rest[0]
    return args


def test_every_command_is_covered() -> None:
    assert {"derive", "evaluate", "bound", "runs", "roc", "keygen", "sign", "verify", "query",
            "draw", "export", "networks", "experiment coverage", "experiment ratio"} <= set(
        COMMANDS)


@pytest.mark.parametrize("words", sorted(COMMANDS))
def test_every_option_of_every_command_maps_to_its_flag(words: str) -> None:
    parser = COMMANDS[words]
    args = namespace(words, parser)
    names = flag_names(PARSER, args)
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        flag = names[action.dest]
        assert flag in action.option_strings and flag.startswith("--")
        # the three ways a library message names an argument
        said = cli_wording(PARSER, args, f"got {action.dest}=None; pass {action.dest}= or "
                                         f"{action.dest}=3")
        assert said == f"got no {flag}; pass {flag} or {flag} 3", said
        if "_" in action.dest:
            assert cli_wording(PARSER, args, f"{action.dest} has 3") == f"{flag} has 3"
    for python, dest in ALIASES.items():
        if dest in names and python not in {a.dest for a in parser._actions}:
            assert names[python] == names[dest]


def test_field_paths_and_quoted_names_are_left_alone() -> None:
    args = namespace("derive", COMMANDS["derive"])
    text = "field 'forced_runs.forced_p' must hold counts; column 'forced_p' is missing"
    assert cli_wording(PARSER, args, text) == text


@pytest.mark.parametrize("words, has_data, want", [
    ("runs", False, "--positive-label"), ("roc", False, "--positive-label"),
    ("derive", True, "--positive-label"), ("derive", False, "--positive"),
    ("query", False, "--positive"),
])
def test_positive_is_the_flag_of_the_route_taken(words: str, has_data: bool, want: str) -> None:
    args = namespace(words, COMMANDS[words])
    if has_data:
        args.data = "d.csv"
    assert flag_names(PARSER, args)["positive"] == want


# -- real errors, end to end ---------------------------------------------------------------------
PYTHON_ARGUMENT = re.compile(r"(?<![\w.'\"-])[a-z][a-z_]*=(None\b|\s|$|\.\.\.)")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("wording")
    paths = {
        "strings": "y,a,b\nsick,sick,well\nwell,well,well\nsick,well,sick\n",
        "numbers": "y,a,b\n1,1,0\n0,0,1\n1,1,1\n",
        "header": "y,a,b\n",
        "header_blank": "y,a,b\n\n\n",
    }
    out = {}
    for key, text in paths.items():
        (folder / f"{key}.csv").write_text(text)
        out[key] = str(folder / f"{key}.csv")
    import polars as pl

    pl.DataFrame({"y": [], "a": [], "b": []}, schema={"y": pl.Int64, "a": pl.Int64,
                                                      "b": pl.Int64}).write_parquet(
        folder / "empty.parquet")
    out["empty_parquet"] = str(folder / "empty.parquet")
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    out["sheet"] = str(sheet.save(folder / "s.json"))
    out["out"] = str(folder / "o.json")
    out["folder"] = str(folder)
    try:
        out["public"] = str(cc.generate_signing_key(folder / "k.pem", folder / "k.pub.pem")[1])
    except CausalCostError:  # no cryptography: the signing case is skipped
        out["public"] = out["sheet"]
    return out


VOTE = ["--truth", "y", "--models", "a,b", "--slot", "a", "--fusioner"]
CASES = {
    "runs_strings": (lambda f: ["runs", f["strings"], *VOTE, "or"], ["--positive-label"]),
    "derive_strings": (lambda f: ["derive", "--data", f["strings"], *VOTE, "or", "--costs",
                                  "fn=5,fp=1", "-o", f["out"]], ["--positive-label"]),
    "runs_k": (lambda f: ["runs", f["numbers"], *VOTE, "k_of_n", "--k", "5"], ["--k 5"]),
    "runs_weights": (lambda f: ["runs", f["numbers"], *VOTE, "weighted"], ["--weights"]),
    "derive_forced": (lambda f: ["derive", "--forced-p", "tp=1,fn=0,fp=0,tn=1", "--forced-n",
                                 "tp=1,fn=0,fp=0,tn=2", "--slot", "s", "--costs", "fn=1,fp=1",
                                 "-o", f["out"]], ["--forced-p", "--forced-n"]),
    "bound_totals": (lambda f: ["bound", "--forced-p", "tp=1,fn=0,fp=0,tn=1", "--forced-n",
                                "tp=1,fn=0,fp=0,tn=1", "--model", "tp=1,fn=0,fp=0,tn=5"],
                     ["--forced-p", "--forced-n"]),
    "runs_header": (lambda f: ["runs", f["header"], *VOTE, "or"], ["no rows"]),
    "runs_header_blank": (lambda f: ["runs", f["header_blank"], *VOTE, "or"], ["no rows"]),
    "derive_header": (lambda f: ["derive", "--data", f["header"], *VOTE, "or", "--costs",
                                 "fn=5,fp=1", "-o", f["out"]], ["no rows"]),
    "runs_empty_parquet": (lambda f: ["runs", f["empty_parquet"], *VOTE, "or"], ["no rows"]),
    "runs_candidate": (lambda f: ["runs", f["numbers"], *VOTE, "or", "--candidate", ""],
                       ["--candidate"]),
    "runs_truth": (lambda f: ["runs", f["numbers"], "--truth", " ", "--models", "a,b",
                              "--slot", "a", "--fusioner", "or"], ["--truth"]),
    "runs_slot": (lambda f: ["runs", f["numbers"], "--truth", "y", "--models", "a,b",
                             "--slot", "", "--fusioner", "or"], ["--slot"]),
    "runs_positive": (lambda f: ["runs", f["strings"], *VOTE, "or", "--positive-label", ""],
                      ["--positive-label"]),
    "evaluate_noise": (lambda f: ["evaluate", f["sheet"], "--model", "tp=50,fn=50,fp=100,tn=100",
                                  "--model", "b:tp=60,fn=40,fp=90,tn=110",
                                  "--label-accuracy", "0.9"], ["--label-accuracy"]),
    "experiment_empty": (lambda f: ["experiment", "ratio", "-o", ""], ["-o/--output"]),
    "experiment_blank": (lambda f: ["experiment", "coverage", "-o", " "], ["-o/--output"]),
    "verify_unsigned": (lambda f: ["verify", f["sheet"], "--public-key", f["public"]],
                        ["causalcost sign"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_errors_name_flags_and_commands(capsys: pytest.CaptureFixture[str],
                                            files: dict[str, str], case: str) -> None:
    if case == "verify_unsigned":
        pytest.importorskip("cryptography")
    build, fragments = CASES[case]
    code = main(build(files))
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert not PYTHON_ARGUMENT.search(lines[0]), lines[0]
    assert "cc." not in lines[0]
    assert "holds strings" not in lines[0] or "header" not in case


def test_sign_with_a_public_key_points_to_keygen(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    _, public = cc.generate_signing_key(tmp_path / "k.pem", tmp_path / "k.pub.pem")
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(tmp_path / "s.json")
    assert main(["sign", str(sheet), "--key", str(public)]) == 2
    err = capsys.readouterr().err
    assert "causalcost keygen" in err and "cc." not in err


def test_label_accuracy_with_one_candidate_still_works(capsys: pytest.CaptureFixture[str],
                                                       files: dict[str, str]) -> None:
    code = main(["evaluate", files["sheet"], "--model", "tp=50,fn=50,fp=100,tn=100",
                 "--label-accuracy", "0.9"])
    assert code == 0 and "Eval1" in capsys.readouterr().out


def test_a_file_with_rows_is_still_counted(capsys: pytest.CaptureFixture[str],
                                           files: dict[str, str]) -> None:
    assert main(["runs", files["numbers"], *VOTE, "or", "--json"]) == 0
    assert '"forced_p"' in capsys.readouterr().out
