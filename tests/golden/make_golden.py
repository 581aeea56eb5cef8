"""Record today's outputs of causalcost as golden files (run by hand, not by pytest).

What it records, one JSON file per group under ``tests/golden/data/`` (sorted keys, floats at
repr precision; the inputs of every case are recorded beside its numbers):

- ``networks.json``: every shipped network, every slot: the interventional table ``T[c, j, s]``,
  the error rates, ``bound_from_rates`` for 3 costs x 4 candidates x both assumptions, the
  sheet from the network, ``evaluate`` reports (with intervals at 95 %) and
  ``slot_importance`` from the network;
- ``random_systems.json``: 20 random binary systems (AND, OR, majority, k-of-n, weighted;
  their specifications recorded), tables, rates and ``bound_from_rates`` (2 costs x 3
  candidates x both assumptions) per slot;
- ``logs.json``: 5 random pandas logs through ``forced_runs`` (counts, runs, kinds,
  ``with_candidate``), ``sheet_from_data`` sheets' numbers, ``evaluate``, ``compare`` (from
  confusions and from ``y_true=``/``predictions=``), ``backtest``, ``slot_importance``,
  ``bound`` (counts and kinds) and ``bound_many`` (counts, kinds, rates);
- ``cli.json``: the JSON of ``causalcost query``, ``evaluate``, ``bound``, ``runs``,
  ``backtest``, ``importance`` (numeric and boolean leaves by path, and every key path);
- ``klabel.json``: K = 3 and K = 4 systems' tables and bounds, K-label forced runs from logs
  with candidates and bounds (counts, probability, kinds forms).

The cases and the adapters that read numbers off the objects are in ``golden_cases.py``;
``test_golden.py`` recomputes everything and compares at rel 1e-12 (abs 1e-12 near zero).

Regenerate (only when a change of numbers is intended and explained in the commit)::

    cd <repository> && PYTHONPATH=$PWD python tests/golden/make_golden.py            # all groups
    cd <repository> && PYTHONPATH=$PWD python tests/golden/make_golden.py cli logs   # some
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    from golden_cases import GROUPS, dumps

    names = argv or list(GROUPS)
    unknown = sorted(set(names) - set(GROUPS))
    if unknown:
        print(f"unknown group(s) {unknown}; groups: {list(GROUPS)}", file=sys.stderr)
        return 2
    DATA.mkdir(exist_ok=True)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = GROUPS[name](Path(tmp))
        path = DATA / f"{name}.json"
        path.write_text(dumps(value), encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parents[1])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
