"""Hostile input through the command line: a result, or one line and exit 2; never a
traceback, never NaN or Infinity in JSON (the reliability issue's fuzz test).

Malformed network files (TOML text mutated and random bytes), sheets (JSON mutated), BIF
files, candidate CSVs and cell arguments are thrown at the CLI in-process.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causalcost.cli import main

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
NUMBERS = st.sampled_from(["0", "1", "-1", "1e309", "nan", "inf", "2.5", "9" * 400, "1e5",
                           "", "x", "1_000", "0x10", "-0", "1e-320", "5", "100"])
CELL = st.sampled_from(["tp", "fn", "fp", "tn", "TP", "q", ""])


def cells(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 5))
    return ",".join(f"{draw(CELL)}={draw(NUMBERS)}" for _ in range(n))


@st.composite
def cell_text(draw: st.DrawFn) -> str:
    return cells(draw)


def check(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, err)
    elif "--json" in argv:
        def refuse(name: str) -> None:
            raise AssertionError(f"{name} in JSON for {argv}")
        json.loads(out, parse_constant=refuse)


@SETTINGS
@given(forced_p=cell_text(), forced_n=cell_text(), model=cell_text(), costs=cell_text(),
       confidence=st.sampled_from([None, "0.95", "1", "0", "x"]))
def test_bound_arguments(capsys: pytest.CaptureFixture[str], forced_p: str, forced_n: str,
                         model: str, costs: str, confidence: str | None) -> None:
    argv = ["bound", "--forced-p", forced_p, "--forced-n", forced_n, "--model", model,
            "--costs", costs or "fn=1,fp=1", "--json"]
    check(capsys, argv + (["--confidence", confidence] if confidence else []))


def _mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(chars))
        action = rng.randrange(4)
        if action == 0:
            del chars[i]
        elif action == 1:
            chars.insert(i, rng.choice('[]{}="\\,.:-1e9x\n#'))
        elif action == 2:
            chars[i] = rng.choice("0123456789.-e\"'")
        else:
            chars[i:i] = list(rng.choice(["1e309", "9" * 400, "nan", "[[[[", "true", "-1"]))
    return "".join(chars)


@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("orig")
    sheet = folder / "sheet.json"
    assert main(["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(sheet)]) == 0
    bif = folder / "n.bif"
    assert main(["export", "thesis_and", "-o", str(bif)]) == 0
    toml = Path(__file__).resolve().parents[1] / "causalcost/network/shipped/majority3.toml"
    return {"sheet": sheet.read_text(), "bif": bif.read_text(), "toml": toml.read_text(),
            "csv": "name,tp,fn,fp,tn\na,50,50,100,100\nb,70,30,60,140\n"}


@SETTINGS
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(["sheet", "bif", "toml", "csv", "bytes"]))
def test_mutated_files(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                       originals: dict[str, str], seed: int, kind: str) -> None:
    rng = random.Random(seed)
    folder = tmp_path / f"case{seed}"
    folder.mkdir(exist_ok=True)
    if kind == "bytes":
        path = folder / "x.toml"
        path.write_bytes(rng.randbytes(rng.randint(0, 400)))
        check(capsys, ["query", str(path), "--json"])
        return
    suffix = {"sheet": ".json", "bif": ".bif", "toml": ".toml", "csv": ".csv"}[kind]
    path = folder / f"x{suffix}"
    path.write_text(_mutate(originals[kind], rng), encoding="utf-8")
    if kind == "sheet":
        check(capsys, ["evaluate", str(path), "--model", "tp=50,fn=50,fp=100,tn=100", "--json"])
    elif kind == "bif":
        check(capsys, ["query", str(path), "--class-node", "Class", "--system-node", "Fusioner",
                       "--slot", "clinical_history", "--json"])
    elif kind == "toml":
        check(capsys, ["query", str(path), "--json"])
    else:
        sheet = folder / "sheet.json"
        sheet.write_text(originals["sheet"], encoding="utf-8")
        check(capsys, ["evaluate", str(sheet), "--candidates", str(path), "--json"])
