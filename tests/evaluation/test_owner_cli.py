"""``causalcost backtest`` and ``causalcost importance``: the same numbers as the Python API,
JSON output, the chart file, and bad input refused with one line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from owner_reference import random_log

import causalcost as cc
from causalcost.cli import main

COSTS = cc.CostMatrix(fn=5, fp=1)


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(8)
    frame = random_log(rng, 400, ["a", "b", "c"])
    y = frame["y"].to_numpy()
    for name, accuracy in (("new1", 0.6), ("new2", 0.85), ("new3", 0.95)):
        frame[name] = np.where(rng.random(len(y)) < accuracy, y, 1 - y)
    path = tmp_path_factory.mktemp("owner") / "log.csv"
    frame.to_csv(path, index=False)
    return path


BACKTEST = ["--truth", "y", "--models", "a,b,c", "--slot", "b", "--fusioner", "majority",
            "--candidates", "new1,new2,new3"]
IMPORTANCE = ["--truth", "y", "--models", "a,b,c", "--fusioner", "majority"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("causalcost") and "error:" in lines[0], lines[0]
    return lines[0]


def test_backtest_matches_the_api(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    import pandas as pd

    frame = pd.read_csv(log)
    runs = cc.forced_runs(frame, truth="y", models=["a", "b", "c"], slot="b",
                          fusioner="majority", observed=False)
    api = cc.backtest(runs, {c: frame[c].to_numpy() for c in ("new1", "new2", "new3")},
                      costs=COSTS)
    code, out, _ = run(capsys, "backtest", str(log), *BACKTEST, "--costs", "fn=5,fp=1",
                       "--json")
    assert code == 0
    record = json.loads(out)
    assert [c["name"] for c in record["candidates"]] == ["new1", "new2", "new3"]
    for c in record["candidates"]:
        assert c["real_cost"] == pytest.approx(api.frame.loc[c["name"], "real_cost"],
                                               rel=1e-12)
        assert c["worst_cost"] == pytest.approx(api.frame.loc[c["name"], "worst_cost"],
                                                rel=1e-12)
        assert c["inside"] is True
    assert {s["rule"] for s in record["summary"]} == {"expected", "worst", "accuracy"}
    code, out, _ = run(capsys, "backtest", str(log), *BACKTEST, "--costs", "fn=5,fp=1")
    assert code == 0
    best = api.frame["real_cost"].idxmin()
    assert f"lowest real system cost: {best!r}" in out
    assert "every candidate" in out and "Selection rules" in out


def test_backtest_with_a_sheet(capsys: pytest.CaptureFixture[str], log: Path,
                               tmp_path: Path) -> None:
    sheet_path = tmp_path / "sheet.json"
    assert main(["derive", "--data", str(log), "--truth", "y", "--models", "a,b,c", "--slot",
                 "b", "--fusioner", "majority", "--costs", "fn=5,fp=1", "-o",
                 str(sheet_path)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "backtest", str(log), *BACKTEST, "--sheet", str(sheet_path),
                       "--confidence", "0.9", "--json")
    assert code == 0
    record = json.loads(out)
    assert record["confidence"] == 0.9
    assert record["sheet_sha256"] == cc.load_sheet(sheet_path).digest
    assert all("sheet_hc_worst_cost" in c for c in record["candidates"])
    line = one_line_error(capsys, "backtest", str(log), *BACKTEST, "--sheet", str(sheet_path),
                          "--costs", "fn=1,fp=1")
    assert "--costs" in line


def test_importance_matches_the_api(capsys: pytest.CaptureFixture[str], log: Path,
                                    tmp_path: Path) -> None:
    import pandas as pd

    api = cc.slot_importance(pd.read_csv(log), truth="y", models=["a", "b", "c"],
                             fusioner="majority", costs=COSTS, removal_tie="negative")
    png = tmp_path / "importance.png"
    code, out, _ = run(capsys, "importance", str(log), *IMPORTANCE, "--costs", "fn=5,fp=1",
                       "--removal-tie", "negative", "--plot", str(png), "--json")
    assert code == 0
    record = json.loads(out)
    for m in record["models"]:
        for version in ("as_is", "perfect", "constant_p", "constant_n", "removed"):
            assert m[f"{version}_cost"] == pytest.approx(
                api.frame.loc[m["model"], f"{version}_cost"], rel=1e-12)
    assert png.read_bytes()[:4] == b"\x89PNG"
    code, out, _ = run(capsys, "importance", str(log), *IMPORTANCE, "--costs", "fn=5,fp=1")
    assert code == 0
    assert "not defined: the majority of the other 2 models can tie" in out
    assert "a perfect" in out


@pytest.mark.parametrize(("extra", "needle"), [
    (["--candidates", "zz"], "'zz'"),
    (["--candidates", "a"], "--candidates"),
    (["--candidates", "new1"], "--costs"),
])
def test_backtest_bad_input(capsys: pytest.CaptureFixture[str], log: Path,
                            extra: list[str], needle: str) -> None:
    argv = ["backtest", str(log), "--truth", "y", "--models", "a,b,c", "--slot", "b",
            "--fusioner", "majority", *extra]
    if needle != "--costs":
        argv += ["--costs", "fn=5,fp=1"]
    assert needle in one_line_error(capsys, *argv)


def test_importance_bad_input(capsys: pytest.CaptureFixture[str], log: Path,
                              tmp_path: Path) -> None:
    one_line_error(capsys, "importance", str(log), *IMPORTANCE, "--costs", "fn=five")
    one_line_error(capsys, "importance", str(log), *IMPORTANCE, "--costs", "fn=5,fp=1",
                   "--removal-tie", "sideways")
    one_line_error(capsys, "importance", str(tmp_path / "missing.csv"), *IMPORTANCE,
                   "--costs", "fn=5,fp=1")
    assert "'zz'" in one_line_error(capsys, "importance", str(log), "--truth", "y",
                                    "--models", "a,zz", "--fusioner", "and", "--costs",
                                    "fn=5,fp=1")


FLAGS = {
    "backtest": [("--truth", ["y", "a", "nope"]), ("--models", ["a,b,c", "a,b", "a,,b", "b"]),
                 ("--slot", ["b", "a", "zz", ""]), ("--fusioner", ["majority", "and", "xor"]),
                 ("--candidates", ["new1", "new1,new2", "a", "nope", ""]),
                 ("--costs", ["fn=5,fp=1", "fn=-1", "x", "fn=inf,fp=1"]),
                 ("--confidence", ["0.95", "1.5", "nan"]), ("--json", None)],
    "importance": [("--truth", ["y", "a", "nope"]), ("--models", ["a,b,c", "a", "a,a"]),
                   ("--fusioner", ["majority", "or", "k_of_n", "nope"]),
                   ("--costs", ["fn=5,fp=1", "fn=1e400", ""]),
                   ("--confidence", ["0.9", "0", "1"]),
                   ("--removal-tie", ["negative", "up"]), ("--json", None)],
}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), command=st.sampled_from(sorted(FLAGS)))
def test_random_argument_vectors_exit_0_or_one_line(capsys: pytest.CaptureFixture[str],
                                                    log: Path, data: st.DataObject,
                                                    command: str) -> None:
    chosen = [f for f in FLAGS[command]  # each flag present four times in five
              if data.draw(st.integers(0, 4), label=f[0])]
    argv = [command, str(log)]
    for flag, values in chosen:  # the first value (a valid one) half of the time
        value = None if values is None else data.draw(
            st.one_of(st.just(values[0]), st.sampled_from(values)), label=flag)
        argv += [flag] if value is None else [flag, value]
    capsys.readouterr()
    code, out, err = run(capsys, *argv)
    assert code in (0, 2), (argv, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err, (argv, err)
    else:
        assert out and not err.strip(), (argv, err)
