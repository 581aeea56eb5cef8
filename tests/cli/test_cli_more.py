"""The command line beyond the foundation: data, experiments, confidence, signing, and one
line with exit 2 for every user error the reliability issue listed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from causalcost.cli import main
from causalcost.cli.app import build_parser


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def strict_json(text: str) -> object:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in JSON output")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.random(n) < 0.3
    frame = pd.DataFrame({"y": np.where(y, "sick", "well"), **{
        m: np.where(np.where(rng.random(n) < acc, y, ~y), "sick", "well")
        for m, acc in (("a", 0.8), ("b", 0.7), ("c", 0.75), ("cand", 0.85))}})
    path = tmp_path_factory.mktemp("logs") / "logs.csv"
    frame.to_csv(path, index=False)
    return path


def test_every_command_has_a_help_line_in_the_overview(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("query", "draw", "export", "networks", "derive", "evaluate", "bound", "runs",
                    "keygen", "sign", "verify", "experiment"):
        assert command in out
    for flag in ("--forced-p", "--forced-n", "--model"):
        action = next(a for a in build_parser()._subparsers._group_actions[0]  # noqa: SLF001
                      .choices["bound"]._actions if flag in a.option_strings)
        assert action.help, flag


def test_derive_from_data_runs_and_evaluate_with_confidence(
        capsys: pytest.CaptureFixture[str], logs: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.json"
    code, out, err = run(capsys, "derive", "--data", str(logs), "--truth", "y",
                         "--models", "a,b,c", "--slot", "b", "--fusioner", "majority",
                         "--positive-label", "sick", "--costs", "fn=5,fp=1", "-o", str(sheet))
    assert code == 0, err
    assert json.loads(sheet.read_text())["monotonicity"]["source"] == "data"
    code, out, err = run(capsys, "runs", str(logs), "--truth", "y", "--models", "a,b,c",
                         "--slot", "b", "--fusioner", "majority", "--positive-label", "sick",
                         "--candidate", "cand", "--json")
    assert code == 0, err
    runs = strict_json(out)
    assert runs["n"] == 3000 and set(runs["kinds"]) == {"P", "N"}
    code, out, err = run(capsys, "evaluate", str(sheet), "--model", "tp=200,fn=100,fp=300,tn=400",
                         "--confidence", "0.95", "--json")
    assert code == 0, err
    report = strict_json(out)
    assert report["worst"]["ci_low"] <= report["worst"]["cost"] <= report["worst"]["ci_high"]
    assert report["high_confidence_worst"]["cost"] >= report["worst"]["cost"]
    assert report["sheet_sha256"] == json.loads(sheet.read_text())["digest"]["sha256"]


def test_bound_with_confidence(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bound", "--forced-p", "tp=50,fn=0,fp=50,tn=0", "--forced-n",
            "tp=25,fn=25,fp=25,tn=25", "--model", "tp=25,fn=25,fp=25,tn=25", "--json"]
    plain = strict_json(run(capsys, *args)[1])
    high = strict_json(run(capsys, *args, "--confidence", "0.95")[1])
    assert high["worst"]["cost"] >= plain["worst"]["cost"] and high["confidence"] == 0.95


def test_experiments_write_csv_and_pictures(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    code, out, err = run(capsys, "experiment", "coverage", "--n1", "10,1000", "--n2", "10,1000",
                         "--repetitions", "100", "--seed", "1", "--quiet", "-o", str(tmp_path))
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "coverage.csv")
    assert list(frame.columns[:6]) == ["n1", "n2", "repetitions", "p_plain", "p_high_confidence",
                                       "tightness_high_confidence"] and len(frame) == 4
    assert (tmp_path / "coverage_heatmap.png").stat().st_size > 0
    code, out, err = run(capsys, "experiment", "ratio", "--n", "500", "--repetitions", "200",
                         "--quiet", "-o", str(tmp_path))
    assert code == 0, err
    assert list(pd.read_csv(tmp_path / "ratio.csv").columns) == [
        "ratio_plain", "ratio_high_confidence", "ratio_expected"]
    again = tmp_path / "again"
    run(capsys, "experiment", "coverage", "--n1", "10,1000", "--n2", "10,1000",
        "--repetitions", "100", "--seed", "1", "--quiet", "--workers", "2", "-o", str(again))
    assert (again / "coverage.csv").read_text() == (tmp_path / "coverage.csv").read_text()


def test_sign_and_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    sheet, key, pub = tmp_path / "s.json", tmp_path / "k.pem", tmp_path / "p.pem"
    assert run(capsys, "derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(sheet))[0] == 0
    assert run(capsys, "keygen", str(key), str(pub))[0] == 0
    assert run(capsys, "sign", str(sheet), "--key", str(key))[0] == 0
    code, out, _ = run(capsys, "verify", str(sheet), "--public-key", str(pub))
    assert code == 0 and "signature valid" in out
    other_key, other_pub = tmp_path / "k2.pem", tmp_path / "p2.pem"
    run(capsys, "keygen", str(other_key), str(other_pub))
    code, _, err = run(capsys, "verify", str(sheet), "--public-key", str(other_pub))
    assert code == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["query", "thesis_and", "--method", "sampling", "--seed", "-1"], "seed"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "1e300"], "samples"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "1.5"], "samples"),
        (["query", "thesis_and", "--positive", "yes"], "BIF files only"),
        (["evaluate", "SHEET", "--model", ":tp=1,fn=1,fp=1,tn=1"], "name before ':' is empty"),
        (["bound", "--forced-p", "tp=1e309,fn=0,fp=0,tn=0", "--forced-n", "tp=1,fn=0,fp=0,tn=0",
          "--model", "tp=1,fn=0,fp=0,tn=0"], "tp"),
        (["bound", "--forced-p", "tp=1,fn=0,fp=0,tn=1", "--forced-n", "tp=1,fn=0,fp=0,tn=1",
          "--model", "tp=1,fn=0,fp=0,tn=1", "--costs", "fn=1e308,fp=1e308,tp=-1e308"], ""),
        (["query", "BINARY"], ""),
        (["evaluate", "BINARY", "--model", "tp=1,fn=1,fp=1,tn=1"], ""),
        (["evaluate", "SHEET", "--candidates", "HUGECSV"], ""),
        (["derive", "--data", "MISSING.csv", "--truth", "y", "--models", "a", "--slot", "a",
          "--fusioner", "and", "--costs", "fn=1,fp=1", "-o", "OUT"], ""),
        (["experiment", "coverage", "--n1", "0", "-o", "OUT"], "n1"),
    ],
)
def test_user_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                  argv: list[str], needle: str) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    sheet = tmp_path / "sheet.json"
    main(["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(sheet)])
    huge = tmp_path / "huge.csv"
    huge.write_text("name,tp,fn,fp,tn\n" + "x" * 200_000 + ",1,1,1,1\n")
    capsys.readouterr()
    swap = {"SHEET": str(sheet), "BINARY": str(binary), "HUGECSV": str(huge),
            "MISSING.csv": str(tmp_path / "missing.csv"), "OUT": str(tmp_path / "out")}
    code, out, err = run(capsys, *[swap.get(a, a) for a in argv])
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert needle in err


def test_roc_and_label_accuracy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    y = rng.random(400) < 0.33
    scores = tmp_path / "scores.csv"
    pd.DataFrame({"y": y, "s": np.where(y, rng.normal(1, 1, 400),
                                        rng.normal(0, 1, 400))}).to_csv(scores, index=False)
    sheet = tmp_path / "sheet.json"
    assert main(["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(sheet)]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "roc", str(sheet), "--scores", str(scores), "--truth", "y",
                         "--score", "s", "--json", "-o", str(tmp_path / "roc.png"))
    assert code == 0, err
    assert (tmp_path / "roc.png").exists() and (tmp_path / "roc_costs.png").exists()
    code, out, err = run(capsys, "roc", str(sheet), "--scores", str(scores), "--truth", "nope",
                         "--score", "s")
    assert code == 2 and "no column(s) ['nope']" in err
    code, out, err = run(capsys, "evaluate", str(sheet), "--model", "tp=50,fn=50,fp=100,tn=100",
                         "--label-accuracy", "0.96", "--json")
    assert code == 0, err
    noise = strict_json(out)["label_noise"]
    assert noise["worst_cost"]["low"] <= 390 <= noise["worst_cost"]["high"]  # thesis §4: 390
    code, _, err = run(capsys, "evaluate", str(sheet), "--model", "tp=50,fn=50,fp=100,tn=100",
                       "--label-accuracy", "0.4")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_confidence_on_compare_runs_and_label_accuracy_on_bound(
        capsys: pytest.CaptureFixture[str], logs: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.json"
    main(["derive", "--forced-p", "tp=800,fn=200,fp=400,tn=1600", "--forced-n",
          "tp=0,fn=1000,fp=0,tn=2000", "--slot", "x", "--costs", "fn=5,fp=1", "-o", str(sheet)])
    capsys.readouterr()
    code, out, err = run(capsys, "evaluate", str(sheet), "--model",
                         "good:tp=950,fn=50,fp=100,tn=1900", "--model",
                         "coin:tp=500,fn=500,fp=1000,tn=1000", "--confidence", "0.95", "--json")
    assert code == 0, err
    rows = {r["name"]: r for r in strict_json(out)["candidates"]}
    assert rows["good"]["better_than_next"] is True and rows["coin"]["better_than_next"] is False
    assert rows["good"]["eval1_ci_low"] <= rows["good"]["eval1"] <= rows["good"]["eval1_ci_high"]
    code, out, err = run(capsys, "runs", str(logs), "--truth", "y", "--models", "a,b,c",
                         "--slot", "b", "--fusioner", "majority", "--positive-label", "sick",
                         "--confidence", "0.9", "--json")
    assert code == 0, err
    cells = strict_json(out)["table"]["table"]
    assert all(c["ci_low"] <= c["probability"] <= c["ci_high"] for c in cells)
    code, out, err = run(capsys, "bound", "--forced-p", "tp=80,fn=20,fp=40,tn=160",
                         "--forced-n", "tp=0,fn=100,fp=0,tn=200", "--model",
                         "tp=50,fn=50,fp=100,tn=100", "--costs", "fn=5,fp=1",
                         "--label-accuracy", "0.96", "--json")
    assert code == 0, err
    noise = strict_json(out)["label_noise"]
    assert noise["eval1"]["low"] <= 320 <= noise["eval1"]["high"]  # thesis §4: Eval1 = 320
