"""Start-up time of the ``causalcost`` command: what a user waits for before any work.

Run with ``python benchmarks/bench_startup.py`` (``--quick``: three runs each). Each command
runs in a fresh process; the table shows the median wall time of several runs beside the
numbers measured the same way before the package was split into subpackages (median of 5,
2026-11-22: listing the shipped networks built every one of them through pgmpy).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

BEFORE = {"causalcost networks": 1.75, "causalcost query thesis_and": 1.67}
COMMANDS = {
    "python -c 'import causalcost'": [sys.executable, "-c", "import causalcost"],
    "causalcost --help": ["causalcost", "--help"],
    "causalcost networks": ["causalcost", "networks"],
    "causalcost query thesis_and": ["causalcost", "query", "thesis_and"],
    "causalcost bound ...": ["causalcost", "bound", "--forced-p", "tp=80,fn=20,fp=40,tn=160",
                             "--forced-n", "tp=0,fn=100,fp=0,tn=200", "--model",
                             "tp=50,fn=50,fp=100,tn=100"],
}


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three runs per command")
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default: 7)")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    if runs < 1:
        parser.error("--runs must be at least 1")
    exe = shutil.which("causalcost")
    if exe is None:
        sys.exit("the causalcost command is not on PATH: pip install the package first")
    print(f"{'command':<34} {'before':>8} {'now (median)':>13}")
    for label, argv in COMMANDS.items():
        argv = [exe, *argv[1:]] if argv[0] == "causalcost" else argv
        times = [wall(argv) for _ in range(runs)]
        before = BEFORE.get(label)
        print(f"{label:<34} {f'{before:.2f} s' if before else '':>8} "
              f"{statistics.median(times):>11.2f} s")


if __name__ == "__main__":
    main()
