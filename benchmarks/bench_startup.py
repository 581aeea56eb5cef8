"""Start-up time of ``causalcost``: what a user waits for before any work.

Run from the repository root with ``python benchmarks/bench_startup.py`` (``--quick``: three
runs each, ``--runs N`` otherwise seven). Every command runs in a fresh process as
``python -m causalcost ...`` (what the ``causalcost`` script runs) and the table shows medians.

Compared in the same run:

* ``--before REF`` (default ``main``): the same commands on the package as it is at git ref
  ``REF`` (exported with ``git archive`` into a temporary directory, run from there), so the
  gain is measured on the same machine in the same minute; ``--before ''`` skips it.
* ``python -c 'import pgmpy'``: the floor of any command that builds a pgmpy object, and
  ``python -c 'import numpy'``, the floor of any command that computes.

Rounds are interleaved (one run of every command, then the next round), so a slow spell of a
shared machine hits all alike.

Targets: ``import causalcost``, ``causalcost --help`` and ``causalcost networks`` under 0.3 s;
``causalcost evaluate`` on a sheet under 0.5 s; ``causalcost query thesis_and`` under 1.2 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"import causalcost": 0.3, "causalcost --help": 0.3, "causalcost networks": 0.3,
           "causalcost evaluate SHEET --model ...": 0.5, "causalcost query thesis_and": 1.2}


def commands(sheet: str) -> dict[str, list[str]]:
    """Label -> argv (after the interpreter) of every timed causalcost command."""
    cli = ["-m", "causalcost"]
    return {
        "import causalcost": ["-c", "import causalcost"],
        "causalcost --help": [*cli, "--help"],
        "causalcost networks": [*cli, "networks"],
        "causalcost evaluate SHEET --model ...": [*cli, "evaluate", sheet, "--model",
                                                  "tp=50,fn=50,fp=100,tn=100"],
        "causalcost query thesis_and": [*cli, "query", "thesis_and"],
        "causalcost bound ...": [*cli, "bound", "--forced-p", "tp=80,fn=20,fp=40,tn=160",
                                 "--forced-n", "tp=0,fn=100,fp=0,tn=200", "--model",
                                 "tp=50,fn=50,fp=100,tn=100"],
    }


BASELINES = {"python -c 'import pgmpy'": ["-c", "import pgmpy"],
             "python -c 'import numpy'": ["-c", "import numpy"]}


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the package is found from the working directory only
    env["MPLBACKEND"] = "Agg"
    return env


def wall(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, from the kernel's child accounting) of a run."""
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True)
    took = time.perf_counter() - start
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv} failed in {cwd}: {done.stderr.decode()[-400:]}")
    return took, (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)


def export(ref: str, into: Path) -> Path:
    """The package at git ``ref``, written under ``into`` (git archive)."""
    archive = into / "before.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref, "causalcost"], check=True,
                       stdout=out)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "before", filter="data")
    return into / "before"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three runs per command")
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default: 7)")
    parser.add_argument("--before", default="main",
                        help="git ref to compare with (default: main; '' to skip)")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    if runs < 1:
        parser.error("--runs must be at least 1")
    env = environment()
    with tempfile.TemporaryDirectory() as tmp:
        sheet = str(Path(tmp) / "sheet.json")
        subprocess.run([sys.executable, "-m", "causalcost", "derive", "thesis_and", "--costs",
                        "tp=0,fn=10,fp=1,tn=0", "-o", sheet], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        trees = {"now": ROOT}
        if args.before:
            trees["before"] = export(args.before, Path(tmp))
        jobs = [(label, tree, argv) for label, argv in commands(sheet).items()
                for tree in trees.values()]
        jobs += [(label, ROOT, argv) for label, argv in BASELINES.items()]
        for _label, tree, argv in jobs:  # warm the file cache and byte-compile once
            wall(argv, tree, env)
        times: dict[tuple[str, Path], list[tuple[float, float]]] = {
            (lab, tree): [] for lab, tree, _ in jobs}
        for _ in range(runs):
            for label, tree, argv in jobs:
                times[label, tree].append(wall(argv, tree, env))
    median = {key: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
              for key, v in times.items()}
    print(f"median of {runs} runs, seconds (wall; cpu = user + system, which a busy machine "
          f"inflates less); python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    head = (f"{'command':<40} {'before':>7} {'now':>7} {'cpu bef':>8} {'cpu now':>8} "
            f"{'x':>5} {'target':>7}")
    print(head)
    print("-" * len(head))
    nan = (float("nan"), float("nan"))
    for label in commands(sheet):
        before = median.get((label, trees.get("before")), nan)
        now = median[label, ROOT]
        target = TARGETS.get(label)
        print(f"{label:<40} {before[0]:>7.3f} {now[0]:>7.3f} {before[1]:>8.3f} {now[1]:>8.3f} "
              f"{before[0] / now[0]:>5.1f} {'<' + format(target, '.1f') if target else '':>7}")
    for label in BASELINES:
        now = median[label, ROOT]
        print(f"{label:<40} {'':>7} {now[0]:>7.3f} {'':>8} {now[1]:>8.3f}")


if __name__ == "__main__":
    main()
