"""Today's numbers, recorded before the K-label unification (issue 23), come out again.

``make_golden.py`` recorded them (the shipped networks, 20 random binary systems, 5 random
logs, the command line's JSON, K = 3 and K = 4 systems and logs) into ``data/*.json``; here every
case is recomputed through the adapters of ``golden_cases.py`` and compared number by number at
rel 1e-12 (abs 1e-12 near zero). Texts and reprs are not compared; the command line's key paths
must all still exist (scripts rely on them). A failure names the JSON path of each difference.

Sheets: the recorded sheet numbers were read through the binary names (``rates``,
``class_counts``, ``prior``, ``costs`` cells, the two model cost matrices, ``forced_p`` /
``forced_n``, the table), which stay as views of the one field set of every K; they are
compared as before. The sheet *file* changed format (version 2 for binary sheets and 3 for
labels, before; version 4 for every K, now), so sheet digests, and so the ``sheet_sha256`` a
report echoes, change with the format, as issue 23 allows: no digest is recorded here. The CLI
JSON keys a user reads (``slot``, ``assumption``, ``sheet_sha256``, ``form``, ``instances``,
...) are unchanged. :data:`SHEET_PATHS` maps each number of a version 2 file to where the
version 4 file holds it; ``test_a_version_4_sheet_holds_the_version_2_numbers`` checks the
mapping on the shipped networks' sheets.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from golden_cases import (
    GROUPS,
    K_LOGS,
    LOG_CASES,
    differences,
    dumps,
    frame_digest,
    json_numbers,
    k_bound_numbers,
    k_log_frame,
    key_paths,
    log_frame,
    plain,
)

import causalcost as cc

DATA = Path(__file__).resolve().parent / "data"
#: K-label results under the monotone assumption: their definition is the one part of today's
#: K-label pricing the unification may change on purpose (one definition for every K); they
#: are compared by their own test so that such a change shows as exactly that. The one change
#: made: system1 (slots m1, m3) and system4 (every slot) are refused as MonotonicityError (the
#: system is not monotone for these costs, checked on the table's system) where the forced runs
#: alone were refused as InfeasibleInputError before; every number stayed.
K_MONOTONE = ("bound_monotone", "bound_counts_monotone")


#: Where a version 4 sheet holds each number of a version 2 sheet (binary, labels P, N):
#: ``rates.c.j`` (``e_c(j)``, the rate of a wrong system output for class c with the slot forced
#: to j) is ``table.T[c][j][s]`` with s the other class; cells tp, fn, fp, tn are [0][0],
#: [0][1], [1][0], [1][1]; the counts and the prior are one number per label.
SHEET_PATHS = {
    "rates.P.P": ("table", "T", 0, 0, 1), "rates.P.N": ("table", "T", 0, 1, 1),
    "rates.N.P": ("table", "T", 1, 0, 0), "rates.N.N": ("table", "T", 1, 1, 0),
    **{f"costs.{cell}": ("costs", i // 2, i % 2) for i, cell in enumerate(("tp", "fn", "fp",
                                                                           "tn"))},
    **{f"derived.{m}.{cell}": ("derived", m, i // 2, i % 2)
       for m in ("expected_cost_matrix", "error_transition_matrix")
       for i, cell in enumerate(("tp", "fn", "fp", "tn"))},
    **{f"forced_runs.{run}.{cell}": ("forced_runs", r, i // 2, i % 2)
       for r, run in enumerate(("forced_p", "forced_n"))
       for i, cell in enumerate(("tp", "fn", "fp", "tn"))},
    "class_counts.positives": ("class_counts", 0), "class_counts.negatives": ("class_counts", 1),
    "prior": ("prior", 0),
}


@functools.cache
def recorded(group: str) -> dict[str, Any]:
    return json.loads((DATA / f"{group}.json").read_text(encoding="utf-8"))


@functools.cache
def current(group: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecations and data warnings: numbers only here
        value = GROUPS[group](Path(tmp), recorded(group))
    return plain(json.loads(json.dumps(plain(value))))


def without(value: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: without(v, keys) for k, v in value.items() if k not in keys}
    return value


def only(value: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        out = {k: (v if k in keys else only(v, keys)) for k, v in value.items()}
        return {k: v for k, v in out.items() if k in keys or v}
    return None


def check(group: str, case: str, recorded_value: Any, current_value: Any) -> None:
    found = differences(recorded_value, current_value, f"{group}/{case}")
    assert not found, f"{len(found)} difference(s):\n" + "\n".join(found[:25])


def cases(group: str) -> list[str]:
    return sorted(recorded(group))


@pytest.mark.parametrize("group", ["networks", "random_systems", "logs"])
def test_binary_numbers_are_reproduced(group: str) -> None:
    now = current(group)
    for case in cases(group):
        assert case in now, f"{group}/{case} is no longer computed"
        check(group, case, recorded(group)[case], now[case])


def test_cli_json_numbers_are_reproduced_and_every_key_remains() -> None:
    now = current("cli")
    for case in cases("cli"):
        rec = recorded("cli")[case]
        check("cli", case, rec["numbers"], now[case]["numbers"])
        missing = sorted(set(rec["keys"]) - set(now[case]["keys"]))
        assert not missing, f"causalcost {' '.join(rec['argv'])}: keys gone: {missing}"


def test_klabel_tables_runs_and_bounds_are_reproduced() -> None:
    now = current("klabel")
    for case in cases("klabel"):
        check("klabel", case, without(recorded("klabel")[case], K_MONOTONE),
              without(now[case], K_MONOTONE))


def test_klabel_monotone_bounds_are_reproduced() -> None:
    now = current("klabel")
    for case in cases("klabel"):
        check("klabel", case, only(recorded("klabel")[case], K_MONOTONE),
              only(now[case], K_MONOTONE))


def test_the_random_inputs_are_the_recorded_ones() -> None:
    """The logs are regenerated from their seeds: the same rows as recorded, or the golden
    numbers would be compared on other data."""
    for i, case in enumerate(LOG_CASES):
        assert frame_digest(log_frame(case)) == recorded("logs")[f"log{i}"]["frame_sha256"]
    for i, case in enumerate(K_LOGS):
        assert frame_digest(k_log_frame(case)) == recorded("klabel")[f"log{i}"]["frame_sha256"]


def test_the_golden_files_are_stable_json() -> None:
    """Sorted keys and repr floats: rewriting a file changes nothing."""
    for path in sorted(DATA.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert dumps(json.loads(text)) == text, path.name


def test_the_comparison_sees_a_change() -> None:
    """The comparison is not vacuous: a relative change of 1e-9, a lost key, a changed flag."""
    rec = {"a": [1.0, 0.0], "b": {"c": 3}, "d": True}
    assert differences(rec, {"a": [1.0, 1e-13], "b": {"c": 3.0}, "d": True, "e": 0}) == []
    assert differences(rec, {"a": [1.0 + 1e-9, 0.0], "b": {"c": 3}, "d": True})
    assert differences(rec, {"a": [1.0, 0.0], "b": {}, "d": True})
    assert differences(rec, {"a": [1.0, 0.0], "b": {"c": 3}, "d": False})
    assert key_paths({"x": [{"y": 1}, {"y": 2, "z": 3}]}) == ["/x", "/x[]/y", "/x[]/z"]


def test_deprecated_klabel_names_still_give_the_recorded_numbers() -> None:
    """Today's K-label names (aliases after the unification) keep working, with today's numbers."""
    rec = recorded("klabel")["system0"]
    spec, slot = rec["spec"], rec["spec"]["slot"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        b = cc.MulticlassSystemBuilder(spec["prior"], labels=spec["labels"])
        for lat in spec["latents"]:
            b.add_latent(lat["name"], lat["states"], lat["probabilities"])
        for m in spec["models"]:
            b.add_model(m["name"], confusion=m["confusion"], latent=m.get("latent"))
        system = b.set_fusioner(spec["fusioner"], **spec["options"]).build(slot=slot)
        table = cc.interventional_table(system)
        bound = cc.multiclass_bound(table, rec["candidate"], rec["costs"])
    check("klabel", "system0/table", rec["slots"][slot]["table"],
          plain(np.asarray(table.to_numpy(), dtype=float)))
    check("klabel", "system0/bound", rec["slots"][slot]["bound_none"], k_bound_numbers(bound))


def test_the_installed_command_prints_the_recorded_json() -> None:
    """The in-process runs above are the real command: one through ``python -m causalcost``."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-m", "causalcost", "query", "thesis_and", "--json"],
                         capture_output=True, text=True, check=True, env=env, cwd=root)
    rec = recorded("cli")["query thesis_and"]
    data = json.loads(out.stdout)
    check("cli", "query thesis_and (subprocess)", rec["numbers"], json_numbers(data))
    assert set(rec["keys"]) <= set(key_paths(data))


@pytest.mark.parametrize("network", ["thesis_and", "thesis_or", "majority3"])
def test_a_version_4_sheet_holds_the_version_2_numbers(network: str) -> None:
    """Every number a version 2 file held is in the version 4 file, at :data:`SHEET_PATHS`."""
    from causalcost.sheet.legacy import content_of_version

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheets = [cc.sheet_from_network(network, cc.CostMatrix(fn=5, fp=1)),
                  cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160),
                                            cc.Confusion(0, 100, 0, 200),
                                            cc.CostMatrix(fn=5, fp=1), slot="m",
                                            description="thesis set")]
    for sheet in sheets:
        v2, v4 = content_of_version(sheet, 2), sheet.to_dict()
        seen = 0
        for old, new in SHEET_PATHS.items():
            value: Any = v2
            for step in old.split("."):
                value = None if value is None else value[step]
            if value is None:
                assert v4[new[0]] is None, old
                continue
            here: Any = v4
            for step in new:
                here = here[step]
            assert here == pytest.approx(value, rel=1e-12, abs=1e-15), (old, new)
            seen += 1
        assert seen >= 16
