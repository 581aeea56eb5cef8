"""Hostile input through the command line: the right result, or one line and exit 2; never a
traceback, never NaN or Infinity in JSON (the reliability issue's fuzz test).

Malformed network files (TOML mutated as text and as a tree: wrong types, missing keys, huge
numbers, NaN, deep nesting, random bytes), sheets (JSON mutated as a tree, with and without a
recomputed digest), BIF files, candidate CSVs and argument vectors are thrown at the CLI
in-process. Where the answer is known it is checked: an edit that does not change what a file
means (comments, key order, number spelling, row order) gives the reference output exactly, an
edited sheet whose digest was not updated is refused, and ``bound`` agrees with the library.
Two subprocess runs check the installed entry point. The whole file runs in about 20 s.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.cli import main
from causalcost.errors import CausalCostError
from causalcost.sheet.digest import content_digest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

SHIPPED = Path(cc.__file__).resolve().parent / "network" / "shipped"
NETWORKS = sorted(p.stem for p in SHIPPED.glob("*.toml"))
SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
FEW = settings(SETTINGS, max_examples=6)  # for inputs that take pgmpy's BIF parser ~1 s


# -- running the CLI ---------------------------------------------------------------------------
#: ``positive=None``, ``pass weights=...``: how a Python caller is told; the CLI says flags
PYTHON_ARGUMENT = re.compile(r"(?<![\w.'\"-])[a-z][a-z_]*=(None\b|\s|$|\.\.\.)")
PYTHON_HINT = re.compile(r"\bcc\.[A-Za-z_]")


def _refuse(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


def cli(argv: list[str]) -> tuple[int, str]:
    """Run ``causalcost argv`` in-process; check the invariants; return (status, stdout).

    Exit 0, or exit 2 with exactly one line on stderr; no traceback ever; ``--json`` output
    parses with NaN and Infinity refused.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text, error = out.getvalue(), err.getvalue()
    assert code in (0, 2), (argv, code, error)
    assert "Traceback" not in error, (argv, error)
    if code == 2:
        lines = error.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("causalcost"), (argv, error)
        # in the user's words: flags and commands, never Python arguments or cc. hints
        # (a Python hint is ``cc.name``: a digest shortened to "...01cc..." is not one)
        assert not PYTHON_ARGUMENT.search(lines[0]) and not PYTHON_HINT.search(lines[0]), \
            (argv, error)
    elif "--json" in argv:
        json.loads(text, parse_constant=_refuse)
    return code, text


# -- a small TOML writer (the standard library only reads TOML) --------------------------------
class _Deep:
    """Stands for an array nested far deeper than any parser's recursion limit; one instance,
    kept by ``copy.deepcopy`` (a mutation may copy a branch that already holds it)."""

    def __deepcopy__(self, memo: dict) -> _Deep:
        return self


DEEP = _Deep()


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: Any) -> str:
    if value is DEEP:
        return "[" * 5000 + "]" * 5000
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, int | str):
        return json.dumps(value) if isinstance(value, str) else str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def to_toml(document: dict[str, Any]) -> str:
    """TOML text for a document: scalars, then tables, then arrays of tables."""
    lines = [f"{_key(k)} = {_value(v)}" for k, v in document.items()
             if not isinstance(v, dict) and not _is_table_array(v)]
    for k, v in document.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]", *(f"{_key(a)} = {_value(b)}" for a, b in v.items())]
        elif _is_table_array(v):
            for table in v:
                lines += ["", f"[[{_key(k)}]]",
                          *(f"{_key(a)} = {_value(b)}" for a, b in table.items())]
    return "\n".join(lines) + "\n"


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


# -- tree mutations (TOML documents and sheet JSON) --------------------------------------------
WEIRD = ["text", "", True, False, 0, -1, 1, 10**30, -(10**30), 1e308, -1e-320, 0.5, 1.0000001,
         float("nan"), float("inf"), [], {}, [[0.5, 0.5]], {"unknown": 1}, None, DEEP,
         "P", "N", "Class", "clinical_history", "x" * 1000, "\u0000", "é"]


def _paths(tree: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here] if here else []
    if isinstance(tree, dict):
        for k, v in tree.items():
            found += _paths(v, (*here, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            found += _paths(v, (*here, i))
    return found


def mutate_tree(tree: Any, rng: random.Random, *, toml: bool) -> Any:
    """``tree`` with 1-3 random edits: a value replaced, deleted, duplicated or a key added."""
    tree = copy.deepcopy(tree)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(tree)
        if not paths:
            break
        path = rng.choice(paths)
        parent = tree
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        action = rng.randrange(4)
        weird = [w for w in WEIRD if not (toml and w is None)]  # TOML has no null
        if action == 0:
            parent[last] = rng.choice(weird)
        elif action == 1:
            del parent[last]
        elif action == 2 and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif isinstance(parent, dict):
            parent[rng.choice(["extra", "name", "slot", "prior", "rule", "version"])] = \
                rng.choice(weird)
    return tree


# -- originals and their reference outputs -----------------------------------------------------
@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("originals")
    sheets = {}
    for name, argv in (("network", ["thesis_and"]),
                       ("forced", ["--forced-p", "tp=80,fn=20,fp=40,tn=160", "--forced-n",
                                   "tp=0,fn=100,fp=0,tn=200", "--slot", "clinical_history"])):
        path = folder / f"{name}.json"
        assert cli(["derive", *argv, "--costs", "fn=5,fp=1", "-o", str(path)])[0] == 0
        sheets[name] = json.loads(path.read_text())
    bif = folder / "thesis_and.bif"
    assert cli(["export", "thesis_and", "-o", str(bif)])[0] == 0
    csv = "name,tp,fn,fp,tn\na,50,50,100,100\nb,70,30,60,140\nc,90,10,150,50\n"
    (folder / "candidates.csv").write_text(csv)
    rng = random.Random(0)
    rows = [(y, *(y if rng.random() < 0.8 else 1 - y for _ in range(3)), y + rng.random())
            for y in (int(rng.random() < 0.3) for _ in range(200))]
    (folder / "logs.csv").write_text("y,a,b,c,s\n" + "".join(
        f"{y},{a},{b},{c},{score:.6f}\n" for y, a, b, c, score in rows))
    (folder / "header.csv").write_text("y,a,b,c,s\n")
    word = {0: "well", 1: "sick"}
    (folder / "strings.csv").write_text("y,a,b,c,s\n" + "".join(
        f"{word[y]},{word[a]},{word[b]},{word[c]},{score:.6f}\n" for y, a, b, c, score in rows))
    return {
        "folder": folder,
        "sheets": sheets,
        "bif": bif.read_text(),
        "toml": {n: (SHIPPED / f"{n}.toml").read_text() for n in NETWORKS},
        "csv": csv,
        "query": {n: cli(["query", n, "--json"])[1] for n in NETWORKS},
        "evaluate": {k: cli(["evaluate", str(folder / f"{k}.json"), "--model",
                             "tp=50,fn=50,fp=100,tn=100", "--json"])[1] for k in sheets},
        "compare": cli(["evaluate", str(folder / "network.json"), "--candidates",
                        str(folder / "candidates.csv"), "--json"])[1],
    }


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- edits that change nothing give the reference exactly --------------------------------------
@pytest.mark.parametrize("network", NETWORKS)
def test_meaning_preserving_toml_edits_give_the_reference(originals: dict[str, Any],
                                                          tmp_path: Path, network: str) -> None:
    text = originals["toml"][network]
    document = tomllib.loads(text)
    rewritten = to_toml(document)  # comments gone, keys in the writer's order
    commented = "# a comment\n\n" + re.sub(r"(?m)^(\w+ = .*)$", r"\1   # note", text)
    respelled = "\n".join(  # 0.85 as 85e-2, outside strings
        line if '"' in line else re.sub(r"(?<![\w.])0\.(\d+)(?![\w.])",
                                        lambda m: f"{m[1]}e-{len(m[1])}", line)
        for line in text.splitlines()) + "\n"
    for i, variant in enumerate((rewritten, commented, respelled, text.replace("\n", "\r\n"))):
        assert tomllib.loads(variant) == document
        path = _write(tmp_path, f"v{i}.toml", variant)
        assert cli(["query", str(path), "--json"]) == (0, originals["query"][network]), i


def test_meaning_preserving_sheet_and_csv_edits_give_the_reference(
        originals: dict[str, Any], tmp_path: Path) -> None:
    rng = random.Random(0)
    for kind, sheet in originals["sheets"].items():
        reordered = dict(rng.sample(list(sheet.items()), len(sheet)))
        for i, text in enumerate((json.dumps(reordered), json.dumps(sheet, indent=7),
                                  json.dumps(sheet, ensure_ascii=True))):
            path = _write(tmp_path, f"{kind}{i}.json", text)
            assert cli(["evaluate", str(path), "--model", "tp=50,fn=50,fp=100,tn=100",
                        "--json"]) == (0, originals["evaluate"][kind])
    header, *rows = originals["csv"].splitlines()
    sheet = str(originals["folder"] / "network.json")
    for i, body in enumerate((rows[::-1], rows[1:] + rows[:1])):
        for newline in ("\n", "\r\n"):
            path = _write(tmp_path, f"c{i}.csv", newline.join([header, *body]) + newline)
            assert cli(["evaluate", sheet, "--candidates", str(path), "--json"]) \
                == (0, originals["compare"])


# -- malformed networks ------------------------------------------------------------------------
@SETTINGS
@given(seed=st.integers(0, 2**32), network=st.sampled_from(NETWORKS))
def test_tree_mutated_networks(originals: dict[str, Any], tmp_path: Path, seed: int,
                               network: str) -> None:
    rng = random.Random(seed)
    document = mutate_tree(tomllib.loads(originals["toml"][network]), rng, toml=True)
    path = _write(tmp_path / str(seed), f"{network}.toml", to_toml(document))
    cli(["query", str(path), "--json"])


def _mutate_text(text: str, rng: random.Random) -> str:
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


@SETTINGS
@given(seed=st.integers(0, 2**32), network=st.sampled_from(NETWORKS),
       binary=st.booleans())
def test_text_mutated_and_binary_networks(originals: dict[str, Any], tmp_path: Path, seed: int,
                                          network: str, binary: bool) -> None:
    rng = random.Random(seed)
    content: str | bytes = (rng.randbytes(rng.randint(0, 400)) if binary
                            else _mutate_text(originals["toml"][network], rng))
    cli(["query", str(_write(tmp_path / str(seed), "x.toml", content)), "--json"])


@FEW
@given(seed=st.integers(0, 2**32))
def test_mutated_bif(originals: dict[str, Any], tmp_path: Path, seed: int) -> None:
    path = _write(tmp_path / str(seed), "x.bif", _mutate_text(originals["bif"],
                                                               random.Random(seed)))
    cli(["query", str(path), "--class-node", "Class", "--system-node", "Fusioner", "--slot",
         "clinical_history", "--json"])


# -- malformed sheets --------------------------------------------------------------------------
@SETTINGS
@given(seed=st.integers(0, 2**32), kind=st.sampled_from(["network", "forced"]),
       redigest=st.booleans())
@example(seed=81300, kind="forced", redigest=True)  # table.ci_high nulled: was AttributeError
def test_tree_mutated_sheets(originals: dict[str, Any], tmp_path: Path, seed: int, kind: str,
                             redigest: bool) -> None:
    sheet = originals["sheets"][kind]
    mutated = mutate_tree(sheet, random.Random(seed), toml=False)
    content = _digest(mutated)
    if redigest and content is not None:  # past the digest: every field is checked
        mutated["digest"] = {"sha256": content}
    path = _write(tmp_path / str(seed), "sheet.json", to_json(mutated))
    code, out = cli(["evaluate", str(path), "--model", "tp=50,fn=50,fp=100,tn=100", "--json"])
    unchanged = content == sheet["digest"]["sha256"]
    if not redigest and not unchanged:
        assert code == 2, "an edited sheet with its old digest was accepted"
    if unchanged and all(mutated.get(k, KeyError) == sheet[k] for k in ("digest", "signature")):
        assert (code, out) == (0, originals["evaluate"][kind]), "a sheet left as it was"


@pytest.mark.parametrize("bad", ["text", None, [], {"a": 1}])
def test_sheet_monotonicity_assignments_of_the_wrong_type(originals: dict[str, Any],
                                                         tmp_path: Path, bad: Any) -> None:
    sheet = copy.deepcopy(originals["sheets"]["network"])
    sheet["monotonicity"]["assignments"] = bad
    sheet["digest"] = {"sha256": content_digest(sheet)}
    path = _write(tmp_path, "sheet.json", json.dumps(sheet))
    assert cli(["evaluate", str(path), "--model", "tp=50,fn=50,fp=100,tn=100"])[0] == 2


def _digest(tree: dict[str, Any]) -> str | None:
    """The content digest, or None for content no sheet can hold (NaN, a deep array)."""
    try:
        return content_digest(tree)
    except (CausalCostError, TypeError):
        return None


def to_json(tree: Any) -> str:
    """JSON text; NaN and Infinity written as such and DEEP as 100000 nested arrays."""
    text = json.dumps(tree, default=lambda value: "<deep>")
    return text.replace('"<deep>"', "[" * 100_000 + "]" * 100_000)


# -- malformed candidate files -----------------------------------------------------------------
@SETTINGS
@given(seed=st.integers(0, 2**32), binary=st.booleans())
def test_mutated_candidate_csv(originals: dict[str, Any], tmp_path: Path, seed: int,
                               binary: bool) -> None:
    rng = random.Random(seed)
    content: str | bytes = (rng.randbytes(rng.randint(0, 300)) if binary
                            else _mutate_text(originals["csv"], rng))
    path = _write(tmp_path / str(seed), "c.csv", content)
    cli(["evaluate", str(originals["folder"] / "network.json"), "--candidates", str(path),
         "--json"])


# -- argument vectors --------------------------------------------------------------------------
NUMBERS = st.sampled_from(["0", "1", "-1", "1e309", "nan", "inf", "2.5", "9" * 400, "1e5", "",
                           "x", "1_000", "0x10", "-0", "1e-320", "5", "100", "80", "20", "160",
                           "1e300"])
CELL = st.sampled_from(["tp", "fn", "fp", "tn", "tp", "fn", "fp", "tn", "TP", "q", ""])


@st.composite
def cells(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 5))
    return ",".join(f"{draw(CELL)}={draw(NUMBERS)}" for _ in range(n))


@st.composite
def valid_cells(draw: st.DrawFn) -> str:
    values = draw(st.lists(st.integers(0, 10**6), min_size=4, max_size=4))
    order = draw(st.permutations(["tp", "fn", "fp", "tn"]))
    return ",".join(f"{k}={v}" for k, v in zip(order, values, strict=True))


def _reference_bound(forced_p: str, forced_n: str, model: str, costs: str,
                     confidence: str | None, assumption: str) -> tuple[int, Any]:
    """The library's answer: (0, JSON of the result) or (2, None) when it refuses."""
    from causalcost.pricing.high_confidence import high_confidence_bound

    try:
        args = (cc.Confusion.parse(forced_p), cc.Confusion.parse(forced_n),
                cc.Confusion.parse(model), cc.CostMatrix.parse(costs))
        result = (cc.bound(*args, assumption=assumption) if confidence is None
                  else high_confidence_bound(*args, confidence=float(confidence),
                                             assumption=assumption))
        return 0, json.loads(json.dumps(result.to_dict(), allow_nan=False))
    except (CausalCostError, ValueError):
        return 2, None


@SETTINGS
@given(forced_p=st.one_of(cells(), valid_cells()), forced_n=st.one_of(cells(), valid_cells()),
       model=st.one_of(cells(), valid_cells()), costs=st.sampled_from(
           ["fn=1,fp=1", "fn=5,fp=1", "tp=0,fn=5,fp=1,tn=0", "fn=1e309,fp=1", "fn=-1,fp=1",
            "fn=1,fp=1,tp=2", "fn=nan,fp=1", f"fn={'9' * 400},fp=1", "", "fp=1"]),
       confidence=st.sampled_from([None, "0.95", "0.5"]),
       assumption=st.sampled_from(["monotone", "none"]))
def test_bound_agrees_with_the_library(forced_p: str, forced_n: str, model: str, costs: str,
                                       confidence: str | None, assumption: str) -> None:
    argv = ["bound", "--forced-p", forced_p, "--forced-n", forced_n, "--model", model,
            "--costs", costs, "--assumption", assumption, "--json"]
    code, out = cli(argv + (["--confidence", confidence] if confidence else []))
    expected_code, expected = _reference_bound(forced_p, forced_n, model, costs, confidence,
                                               assumption)
    assert code == expected_code, (argv, out)
    if code == 0:
        assert json.loads(out) == expected


FLAGS: dict[str, list[tuple[str, st.SearchStrategy[str] | None]]] = {
    "query": [("--method", st.sampled_from(["exact", "sampling", "magic"])),
              ("--samples", st.sampled_from(["1e3", "2000", "0", "-5", "1.5e0", "1e20",
                                             "9" * 400, "nan"])),
              ("--seed", st.sampled_from(["0", "1", "-1", "9" * 400, "1e3", "2**63"])),
              ("--confidence", st.sampled_from(["0.95", "1", "0", "1e309", "nan", "x"])),
              ("--interval", st.sampled_from(["wilson", "clopper-pearson", "z"])),
              ("--slot", st.sampled_from(["images", "clinical_history", "nobody", "", "Class"])),
              ("--positive", st.sampled_from(["P", "N", ""])),
              ("--class-node", st.sampled_from(["Class", "X"])),
              ("--json", None)],
    "evaluate": [("--model", st.one_of(cells(), valid_cells(),
                                       st.sampled_from([":tp=1,fn=1,fp=1,tn=1",
                                                        "a:tp=1,fn=1,fp=1,tn=1"]))),
                 ("--confidence", st.sampled_from(["0.95", "0", "nan"])),
                 ("--label-accuracy", st.sampled_from(["0.9", "0.4", "1", "nan"])),
                 ("--json", None)],
    "networks": [],
    "derive": [("--slot", st.sampled_from(["images", "clinical_history", "a", "nobody"])),
               ("--forced-p", st.one_of(cells(), valid_cells())),
               ("--forced-n", st.one_of(cells(), valid_cells())),
               ("--costs", st.sampled_from(["fn=5,fp=1", "fn=1e309,fp=1", "x", "fn=0,fp=0"])),
               ("--assumption", st.sampled_from(["monotone", "none", "maybe"])),
               ("--method", st.sampled_from(["exact", "sampling"])),
               ("--samples", st.sampled_from(["1e3", "0", "1.5"])),
               ("--data", st.sampled_from(["logs.csv", "candidates.csv", "missing.csv",
                                           "header.csv", "strings.csv"])),
               ("--truth", st.sampled_from(["y", "a", "nope"])),
               ("--models", st.sampled_from(["a,b,c", "a", "", ",", "a,a", "y,a"])),
               ("--fusioner", st.sampled_from(["and", "or", "majority", "k_of_n", "weighted"])),
               ("--k", st.sampled_from(["0", "2", "-1", "9" * 30])),
               ("--weights", st.sampled_from(["1,1,1", "1,nan,1", "-1,2,1", "1"])),
               ("--threshold", st.sampled_from(["1.5", "inf", "-1"])),
               ("--name", st.sampled_from(["sys", "", "x" * 300]))],
    "runs": [("--truth", st.sampled_from(["y", "nope", ""])),
             ("--models", st.sampled_from(["a,b,c", "a", "", "a,a"])),
             ("--slot", st.sampled_from(["a", "b", "zz"])),
             ("--fusioner", st.sampled_from(["and", "or", "majority", "k_of_n", "weighted"])),
             ("--k", st.sampled_from(["0", "2", "-1"])),
             ("--candidate", st.sampled_from(["c", "s", "nope", ""])),
             ("--positive-label", st.sampled_from(["1", "P", ""])),
             ("--json", None)],
    "roc": [("--scores", st.sampled_from(["logs.csv", "candidates.csv", "missing.csv"])),
            ("--truth", st.sampled_from(["y", "a", "nope"])),
            ("--score", st.sampled_from(["s", "a", "y", "nope"])),
            ("--positive-label", st.sampled_from(["1", "P", ""])),
            ("--json", None)],
}
IN_FOLDER = {"--data", "--scores"}


@SETTINGS
@given(data=st.data(), command=st.sampled_from(sorted(FLAGS)),
       network=st.sampled_from([*NETWORKS, "nothere", "", "x.bif", "/"]))
def test_random_argument_vectors(originals: dict[str, Any], tmp_path: Path,
                                 data: st.DataObject, command: str, network: str) -> None:
    chosen = data.draw(st.lists(st.sampled_from(FLAGS[command]), max_size=5,
                                unique_by=lambda f: f[0]) if FLAGS[command] else st.just([]))
    folder = originals["folder"]
    argv = [command]
    if command == "query" or (command == "derive" and data.draw(st.booleans())):
        argv.append(network)
    elif command in ("evaluate", "roc"):
        argv.append(str(folder / data.draw(st.sampled_from(
            ["network.json", "forced.json", "candidates.csv", "missing.json"]))))
    elif command == "runs":
        argv.append(str(folder / data.draw(st.sampled_from(["logs.csv", "missing.csv",
                                                            "header.csv", "strings.csv"]))))
    for flag, values in chosen:
        value = None if values is None else data.draw(values)
        argv += [flag] if value is None else [flag, str(folder / value) if flag in IN_FOLDER
                                              else value]
    if command == "derive":
        argv += ["-o", str(tmp_path / "sheet.json")]
    cli(argv)


# -- re-pricing a saved sheet (issue 17) --------------------------------------------------------
COSTS = st.one_of(cells(), st.builds(
    lambda tp, fn, fp, tn: f"tp={tp!r},fn={fn!r},fp={fp!r},tn={tn!r}",
    st.floats(0, 1), st.floats(0, 1e6), st.floats(0, 1e6), st.floats(0, 1)))


def _numbers_close(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(
            _numbers_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_numbers_close, a, b))
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


@SETTINGS
@given(costs=COSTS, kind=st.sampled_from(["network", "forced"]))
def test_repricing_agrees_with_a_fresh_derivation(originals: dict[str, Any], tmp_path: Path,
                                                  costs: str, kind: str) -> None:
    parent = originals["folder"] / f"{kind}.json"
    out = tmp_path / f"{abs(hash(costs))}.json"
    code, _ = cli(["derive", str(parent), "--costs", costs, "-o", str(out)])
    try:  # the reference: the same source derived afresh with these costs
        matrix = cc.CostMatrix.parse(costs)
        fresh = (cc.sheet_from_network("thesis_and", matrix) if kind == "network" else
                 cc.sheet_from_forced_runs(cc.Confusion(tp=80, fn=20, fp=40, tn=160),
                                           cc.Confusion(tp=0, fn=100, fp=0, tn=200), matrix,
                                           slot="clinical_history", description="-"))
        model = cc.Confusion(tp=50, fn=50, fp=100, tn=100)
        want = fresh.to_dict()["derived"], cc.evaluate(fresh, model).to_dict()
    except CausalCostError:
        assert code == 2 and not out.exists()
        return
    assert code == 0
    child = cc.load_sheet(out)
    assert child.provenance["repriced_from"] == originals["sheets"][kind]["digest"]["sha256"]
    got = child.to_dict()["derived"], cc.evaluate(child, model).to_dict()
    assert got[1].pop("sheet_sha256") == child.digest
    want[1].pop("sheet_sha256")
    assert _numbers_close(got, want), (costs, got, want)


# -- output paths that must not be replaced (issue 16 item 7) -----------------------------------
def _target(folder: Path, kind: str, suffix: str) -> Path:
    import os
    import socket

    path = folder / f"target_{kind}{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
    elif kind == "folder":
        path.mkdir()
    elif kind == "regular":
        path.write_text("old")
    elif kind == "link_regular":
        (folder / f"real{suffix}").write_text("old")
        path.symlink_to(f"real{suffix}")
    elif kind == "link_device":
        path.symlink_to("/dev/null")
    elif kind == "dangling":
        path.symlink_to(folder / "none" / "x")
    elif kind in ("dev_null", "dev_full"):
        path = Path(f"/dev/{kind[4:]}")
    elif kind == "no_folder":
        path = folder / "none" / f"out{suffix}"
    return path


WRITERS = {
    "derive": lambda f, t: ["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", t],
    "reprice": lambda f, t: ["derive", str(f / "network.json"), "--costs", "fn=2,fp=1",
                             "-o", t],
    "export": lambda f, t: ["export", "thesis_and", "-o", t],
    "keygen": lambda f, t: ["keygen", "--private", t, "--public", t + ".pub"],
}


@settings(SETTINGS, max_examples=40)
@given(command=st.sampled_from(sorted(WRITERS)), kind=st.sampled_from(
    ["regular", "fresh", "fifo", "socket", "folder", "link_regular", "link_device", "dangling",
     "dev_null", "dev_full", "no_folder"]))
def test_random_output_targets(originals: dict[str, Any], command: str, kind: str) -> None:
    import os
    import stat
    import tempfile

    if command == "keygen":
        pytest.importorskip("cryptography")
    with tempfile.TemporaryDirectory(prefix="cc", dir="/tmp") as tmp:  # short: for sockets
        folder = Path(tmp)
        path = _target(folder, kind, ".bif" if command == "export" else ".json")
        argv = WRITERS[command](originals["folder"], str(path))
        written = path
        before = os.lstat(written).st_mode if os.path.lexists(written) else None
        code, _ = cli(argv)
        writable = kind in ("fresh", "regular", "link_regular") and not (
            command == "keygen" and kind != "fresh")  # a private key is never overwritten
        if writable:
            assert code == 0, (argv, kind)
            assert stat.S_ISREG(os.stat(written).st_mode)
            assert os.path.islink(written) == (kind == "link_regular")
        else:
            assert code == 2, (argv, kind)
            after = os.lstat(written).st_mode if os.path.lexists(written) else None
            assert after == before  # the device, pipe, socket, folder or link is untouched
        assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


# -- the installed entry point -----------------------------------------------------------------
def test_entry_point_smoke(tmp_path: Path) -> None:
    binary = _write(tmp_path, "x.toml", bytes(range(256)))
    done = subprocess.run([sys.executable, "-m", "causalcost", "query", str(binary)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "x.toml" in done.stderr
    done = subprocess.run([sys.executable, "-m", "causalcost", "bound", "--forced-p",
                           "tp=80,fn=20,fp=40,tn=160", "--forced-n", "tp=0,fn=100,fp=0,tn=200",
                           "--model", "tp=50,fn=50,fp=100,tn=100", "--costs", "fn=5,fp=1",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout, parse_constant=_refuse)["worst"]["cost"] >= 0
