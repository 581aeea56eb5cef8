"""Start-up: what ``import causalcost`` and the commands load (times: benchmarks/bench_startup.py).

Each check runs in a fresh interpreter from the repository root and reads ``sys.modules`` once
the work is done, so a heavy library imported anywhere on the way is caught. ``import
causalcost`` and ``causalcost --help`` load none of pgmpy, scikit-learn, scipy, pandas or
matplotlib (not even numpy); ``causalcost query thesis_and`` computes its table without pgmpy
or scikit-learn (its network is declared in a file, not built with pgmpy).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pgmpy", "sklearn", "scipy", "pandas", "matplotlib")

#: Runs ``causalcost`` as the script does, then prints the top-level packages loaded (JSON).
CLI = """
import json, sys
from causalcost.cli.app import main
sys.argv = ["causalcost", *{args!r}]
try:
    code = main()
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("\\n" + json.dumps({{"code": code or 0,
                          "loaded": sorted({{m.split(".")[0] for m in sys.modules}})}}))
"""


def run(code: str) -> tuple[str, dict[str, object]]:
    """Output of ``code`` in a fresh interpreter (before the last line) and its last line."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    *out, last = done.stdout.rstrip("\n").split("\n")
    return "\n".join(out), json.loads(last)


def test_import_causalcost_loads_no_heavy_library() -> None:
    _, got = run("import json, sys, causalcost\n"
                 "print(json.dumps({'loaded': sorted({m.split('.')[0] for m in sys.modules}),"
                 " 'version': causalcost.__version__}))")
    assert got["version"] == __import__("causalcost").__version__
    loaded = set(got["loaded"])  # type: ignore[arg-type]
    assert "causalcost" in loaded
    assert loaded.isdisjoint({*HEAVY, "numpy"}), loaded & {*HEAVY, "numpy"}


@pytest.mark.parametrize("args", [["--help"], ["networks"]])
def test_help_and_network_list_load_no_heavy_library(args: list[str]) -> None:
    out, got = run(CLI.format(args=args))
    assert got["code"] == 0
    assert ("usage: causalcost" in out) if args == ["--help"] else ("thesis_and" in out)
    loaded = set(got["loaded"])  # type: ignore[arg-type]
    assert loaded.isdisjoint(HEAVY), loaded & set(HEAVY)


def test_query_thesis_and_needs_neither_pgmpy_nor_scikit_learn() -> None:
    out, got = run(CLI.format(args=["query", "thesis_and"]))
    assert got["code"] == 0
    # the thesis' AND example: e_P(P) = 0.2, e_P(N) = 1, e_N(P) = 0.2, e_N(N) = 0
    rates = out.split("interventional error rates")[1].split("\n")
    assert rates[3].split() == ["P", "0.2", "1"], out
    assert rates[4].split() == ["N", "0.2", "0"], out
    loaded = set(got["loaded"])  # type: ignore[arg-type]
    assert loaded.isdisjoint({"pgmpy", "sklearn"}), loaded & {"pgmpy", "sklearn"}


def test_asking_for_the_pgmpy_network_still_gives_one() -> None:
    """The lazy build is still pgmpy's network, loaded only when asked for."""
    _, got = run("import json, sys, causalcost as cc\n"
                 "system = cc.load_network('thesis_and')\n"
                 "before = 'pgmpy' in sys.modules\n"
                 "net = system.network\n"
                 "print(json.dumps({'before': before, 'type': type(net).__module__,"
                 " 'check': bool(net.check_model())}))")
    assert got == {"before": False, "type": "pgmpy.models.DiscreteBayesianNetwork",
                   "check": True}


def test_evaluating_a_binary_sheet_loads_no_solver_and_no_pgmpy(tmp_path: Path) -> None:
    """The K-label route (scipy's LP solvers) loads only for a K-label sheet."""
    import causalcost as cc

    sheet = tmp_path / "s.json"
    cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(sheet)
    out, got = run(CLI.format(args=["evaluate", str(sheet), "--model",
                                    "tp=50,fn=50,fp=100,tn=100"]))
    assert got["code"] == 0 and "Eval1 (expected system cost)                    320" in out
    loaded = set(got["loaded"])  # type: ignore[arg-type]
    assert loaded.isdisjoint({"pgmpy", "sklearn", "scipy", "matplotlib"}), loaded
