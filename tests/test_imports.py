"""Lazy loading: a model owner evaluating candidates needs neither pgmpy nor matplotlib."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import causalcost as cc


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_evaluating_a_sheet_imports_no_network_or_plotting_library(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.json"
    cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(sheet)
    out = run_python(
        "import sys, causalcost as cc\n"
        f"sheet = cc.load_sheet({str(sheet)!r})\n"
        "report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))\n"
        "bound = cc.bound(cc.Confusion(50, 50, 0, 0), cc.Confusion(0, 100, 0, 0),\n"
        "                 cc.Confusion(50, 50, 0, 0))\n"
        "print(round(report.eval1, 9), bound.worst_cost,\n"
        "      any(m.split('.')[0] in ('pgmpy', 'matplotlib') for m in sys.modules))\n"
    )
    # thesis §4 example 1 (320) and §3.3 (worst case 100), with neither library loaded
    assert out == "320.0 100.0 False"


def test_every_public_name_resolves() -> None:
    for name in cc.__all__:
        assert getattr(cc, name) is not None, name
    assert set(cc.__all__) <= set(dir(cc))
