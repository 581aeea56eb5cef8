"""Start-up: listing networks, help, evaluating and bounding never load pgmpy or matplotlib
(seconds of import time; benchmarks/bench_startup.py measures them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import causalcost as cc

PROBE = """
import contextlib, io, sys
from causalcost.cli import main

def heavy():
    return sorted({m.split('.')[0] for m in sys.modules} & {'pgmpy', 'matplotlib'})

for argv in COMMANDS:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    print(argv[0], code, heavy(), len(out.getvalue().splitlines()))
"""


def test_light_commands_import_neither_pgmpy_nor_matplotlib(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.json"
    cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(sheet)
    commands = [
        ["--help"],
        ["networks"],
        ["evaluate", str(sheet), "--model", "tp=50,fn=50,fp=100,tn=100"],
        ["evaluate", str(sheet), "--model", "a:tp=50,fn=50,fp=100,tn=100", "--model",
         "b:tp=70,fn=30,fp=60,tn=140", "--json"],
        ["bound", "--forced-p", "tp=80,fn=20,fp=40,tn=160", "--forced-n",
         "tp=0,fn=100,fp=0,tn=200", "--model", "tp=50,fn=50,fp=100,tn=100", "--json"],
        ["query", "--help"],
    ]
    done = subprocess.run([sys.executable, "-c", PROBE.replace("COMMANDS", repr(commands))],
                          capture_output=True, text=True, check=True)
    rows = [line.split(" ", 2) for line in done.stdout.strip().splitlines()]
    assert [row[0] for row in rows] == [argv[0] for argv in commands], done.stdout
    for name, code, rest in rows:
        heavy, lines = rest.rsplit(" ", 1)
        assert code == "0" and heavy == "[]", (name, code, heavy, done.stderr)
        assert int(lines) > 0  # it did print something
    listing = [r for r in rows if r[0] == "networks"]
    assert listing and int(listing[0][2].rsplit(" ", 1)[1]) >= 2 * len(cc.list_networks())
