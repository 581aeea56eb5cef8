"""The command line as a user types it: outputs, JSON shapes, and one-line errors with exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import causalcost as cc
from causalcost.cli.app import build_parser, main

SUBCOMMANDS = ("query", "draw", "export", "networks", "derive", "evaluate", "bound", "runs", "roc",
               "keygen", "sign", "verify", "experiment")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_subcommand_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in SUBCOMMANDS:
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args([command, "--help"])
        assert exit_info.value.code == 0
        assert f"usage: causalcost {command}" in capsys.readouterr().out


def test_query_prints_thesis_rates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "query", "thesis_and", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    # JSON contract of the foundation issue
    assert set(data) >= {"slot", "method", "error_rates", "table"}
    assert data["slot"] == "clinical_history" and data["method"] == "exact"
    rates = data["error_rates"]
    # thesis §4, example 1 (AND): 20 %, 100 %, 20 %, 0 %
    assert rates["P"]["P"] == pytest.approx(0.2, abs=1e-12)
    assert rates["P"]["N"] == pytest.approx(1.0, abs=1e-12)
    assert rates["N"]["P"] == pytest.approx(0.2, abs=1e-12)
    assert rates["N"]["N"] == pytest.approx(0.0, abs=1e-12)
    assert len(data["table"]) == 16
    assert {row["confusion"] for row in data["table"]} == set(cc.OUTCOMES)


def test_query_text_mentions_rates_and_monotonicity(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "query", "thesis_or")
    assert code == 0
    assert "0.75" in out  # thesis §4, example 2: e_P(N) = 75 %
    assert "monotone" in out


def test_query_sampling_json_has_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "query", "thesis_and", "--method", "sampling", "--samples",
                       "4000", "--seed", "3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["method"] == "sampling" and data["seed"] == 3
    cell = next(r for r in data["table"]
                if (r["class"], r["do"], r["confusion"]) == ("P", "P", "FN"))
    assert cell["ci_low"] <= 0.2 <= cell["ci_high"]  # exact value 0.2 (thesis §4)
    assert cell["n"] > 0 and cell["std_error"] > 0


def test_slot_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "query", "thesis_and", "--slot", "images", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["slot"] == "images"
    # forcing images with clinical history at 50 %/50 %: e_P(P) = 0.5, e_N(P) = 0.5
    assert data["error_rates"]["P"]["P"] == pytest.approx(0.5)
    assert data["error_rates"]["N"]["P"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["query", "no_such_network"], "shipped networks"),
        (["query", "thesis_and", "--slot", "bogus"], "bogus"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "0"], "samples"),
        (["bound", "--forced-p", "tp=1,fn=1", "--forced-n", "tp=0,fn=2,fp=0,tn=2",
          "--model", "tp=1,fn=1,fp=1,tn=1"], "fp"),
        (["bound", "--forced-p", "tp=1,fn=1,fp=1,tn=1", "--forced-n", "tp=0,fn=2,fp=0,tn=2",
          "--model", "tp=1,fn=1,fp=1,tn=1", "--costs", "tp=9,fn=1,fp=1"], "tp"),
        (["evaluate", "missing_sheet.json", "--model", "tp=1,fn=1,fp=1,tn=1"], "missing_sheet"),
    ],
)
def test_user_errors_print_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "error" in lines[0] and fragment in lines[0]
    assert "Traceback" not in err


def test_bad_flag_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "thesis_and", "--method", "magic"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "magic" in err


def test_bif_export_and_query_round_trip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bif = tmp_path / "and.bif"
    code, out, _ = run(capsys, "export", "thesis_and", "-o", str(bif))
    assert code == 0 and bif.is_file() and "--class-node Class" in out
    code, out, err = run(capsys, "query", str(bif), "--class-node", "Class", "--system-node",
                         "Fusioner", "--slot", "clinical_history", "--json")
    assert code == 0, err
    from_bif = json.loads(out)["error_rates"]
    shipped = cc.error_rates(cc.load_network("thesis_and")).to_dict()
    for true_class in ("P", "N"):
        assert from_bif[true_class] == pytest.approx(shipped[true_class], abs=1e-12)
    code, _, err = run(capsys, "query", str(bif), "--slot", "clinical_history")
    assert code == 2 and "--class-node" in err


def test_draw_writes_png_and_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png, svg = tmp_path / "dag.png", tmp_path / "dag.svg"
    assert run(capsys, "draw", "population_and", "--do", "P", "-o", str(png))[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run(capsys, "draw", "thesis_and", "-o", str(svg))[0] == 0
    assert b"<svg" in svg.read_bytes()[:2000]
    code, _, err = run(capsys, "draw", "thesis_and", "-o", str(tmp_path / "dag.gif"))
    assert code == 2 and ".png" in err


def test_networks_lists_every_shipped_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "networks")
    assert code == 0
    for name in ("thesis_and", "thesis_or", "anticorrelated_and", "experiment_or", "majority3",
                 "population_and"):
        assert name in out


def test_derive_then_evaluate_reproduces_thesis(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sheet = tmp_path / "sheet.json"
    code, _, err = run(capsys, "derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(sheet))
    assert code == 0, err
    code, out, err = run(capsys, "evaluate", str(sheet), "--model", "tp=50,fn=50,fp=100,tn=100",
                         "--json")
    assert code == 0, err
    report = json.loads(out)
    assert set(report) >= {"eval1", "eval2", "perfect_slot_cost", "worst", "best", "assumption"}
    # thesis §4, cost function 1 and 2, example 1: 320 and 220
    assert report["eval1"] == pytest.approx(320)
    assert report["eval2"] == pytest.approx(220)
    assert report["perfect_slot_cost"] == pytest.approx(100)  # 0.2 * 100 * 5 + 0 * 200 * 1
    assert set(report["worst"]) == {"tp", "fn", "fp", "tn", "cost"}
    assert report["best"]["cost"] <= report["eval1"] <= report["worst"]["cost"]
    assert report["assumption"] == "monotone"


def test_evaluate_several_models_ranks_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sheet = tmp_path / "sheet.json"
    assert run(capsys, "derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(sheet))[0] == 0
    code, out, err = run(capsys, "evaluate", str(sheet),
                         "--model", "weak:tp=50,fn=50,fp=100,tn=100",
                         "--model", "strong:tp=90,fn=10,fp=20,tn=180", "--json")
    assert code == 0, err
    rows = json.loads(out)["candidates"]
    assert [r["name"] for r in rows] == ["strong", "weak"]
    assert rows[0]["eval1"] < rows[1]["eval1"]
    csv = tmp_path / "candidates.csv"
    csv.write_text("name,tp,fn,fp,tn\nweak,50,50,100,100\nstrong,90,10,20,180\n")
    code, out, err = run(capsys, "evaluate", str(sheet), "--candidates", str(csv))
    assert code == 0, err
    assert out.index("strong") < out.index("weak")


def test_bound_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    # thesis §3.3: AND, model 1 right on half of 100 positives, errors never overlap: the
    # slot forced to P fails 50 times, forced to N 100 times; the 50 % candidate can reach 100.
    code, out, err = run(capsys, "bound", "--forced-p", "tp=50,fn=50,fp=0,tn=0",
                         "--forced-n", "tp=0,fn=100,fp=0,tn=0",
                         "--model", "tp=50,fn=50,fp=0,tn=0", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) >= {"assumption", "worst", "best", "expected"}
    assert data["worst"]["fn"] == 100 and data["worst"]["cost"] == 100
    assert data["expected"]["cost"] == pytest.approx(75)  # cost function 1's estimate
    assert data["best"]["fn"] == 50


@pytest.mark.skipif(shutil.which("causalcost") is None, reason="console script not installed")
def test_console_script_exit_status() -> None:
    ok = subprocess.run(["causalcost", "query", "thesis_and"], capture_output=True, text=True)
    assert ok.returncode == 0 and "clinical_history" in ok.stdout
    bad = subprocess.run(["causalcost", "query", "thesis_and", "--slot", "nope"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    module = subprocess.run([sys.executable, "-m", "causalcost", "--version"],
                            capture_output=True, text=True)
    assert module.returncode == 0 and "causalcost" in module.stdout


NON_MONOTONE = """
format = "causalcost-network"
version = 1
name = "negative_weight"
slot = "b"
[class]
prior = 0.4
[[models]]
name = "a"
sensitivity = 0.8
specificity = 0.7
[[models]]
name = "b"
sensitivity = 0.6
specificity = 0.9
[fusioner]
rule = "weighted"
weights = { a = 1.0, b = -0.6 }
threshold = 0.5
"""


def test_derive_refuses_monotone_bound_on_non_monotone_network(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a P vote of b pulls the weighted sum below the threshold: not monotone in b
    network = tmp_path / "negative_weight.toml"
    network.write_text(NON_MONOTONE)
    sheet = tmp_path / "sheet.json"
    code, _, err = run(capsys, "derive", str(network), "--costs", "fn=5,fp=1", "-o", str(sheet))
    assert code == 2 and "not monotone" in err and "--assumption none" in err
    assert not sheet.exists()
    code, _, err = run(capsys, "derive", str(network), "--costs", "fn=5,fp=1", "--assumption",
                       "none", "-o", str(sheet))
    assert code == 0, err
    code, out, err = run(capsys, "evaluate", str(sheet), "--model", "tp=60,fn=40,fp=10,tn=90",
                         "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["assumption"] == "none"
    assert report["best"]["cost"] <= report["eval1"] <= report["worst"]["cost"]


def test_sampled_query_text_shows_rate_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "query", "thesis_and", "--method", "sampling", "--samples",
                       "5000", "--seed", "0", "--confidence", "0.99")
    assert code == 0
    line = next(li for li in out.splitlines() if li.strip().startswith("e_P(P) ="))
    low, high = (float(v) for v in line.split("[")[1].split("]")[0].split(","))
    assert low < 0.2 < high  # exact e_P(P) = 0.2 (thesis §4) inside the 99 % interval
    assert "99% wilson intervals" in out


def test_derive_from_forced_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the data route: the system run on 100 positives / 200 negatives with the slot forced to
    # P and to N (counts of thesis §4 example 1: e_P(P) = 0.2, e_P(N) = 1, e_N(P) = 0.2)
    sheet = tmp_path / "sheet.json"
    code, _, err = run(capsys, "derive", "--forced-p", "tp=80,fn=20,fp=40,tn=160",
                       "--forced-n", "tp=0,fn=100,fp=0,tn=200", "--slot", "clinical_history",
                       "--costs", "fn=5,fp=1", "--name", "screening", "-o", str(sheet))
    assert code == 0, err
    code, out, err = run(capsys, "evaluate", str(sheet), "--model", "tp=50,fn=50,fp=100,tn=100")
    assert code == 0, err
    assert "system 'screening'" in out and "320" in out  # thesis §4: Eval1 = 320
    code, out, err = run(capsys, "evaluate", str(sheet), "--model", "tp=50,fn=40,fp=100,tn=100")
    # counted on other instances (the two-split route): the probability form, and it says so
    assert code == 0 and "200 negatives) is taken as counted on other instances" in out
