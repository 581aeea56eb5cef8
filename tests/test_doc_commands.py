"""The shipped sample logs (``examples/``) and the command lines that read them.

* Every ``causalcost ...`` command line of the README and of the documentation pages that
  reads a sample log runs as written, with exit status 0, in a scratch folder holding a copy
  of ``examples/`` (so a line behaves as from the repository root, and what it writes lands
  in the scratch folder): the lines of one page in the page's order, so a sheet one line
  derives is the sheet the next line reads. There are such lines on every page that shows
  the data commands, so the test cannot pass on none.
* Every command line that reads a log names a shipped one: a user can paste it.
* The sample logs are what ``examples/make_logs.py`` writes, byte for byte, and what its
  docstring says they are; nothing in the package reads them.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from doc_commands import (
    EXAMPLES,
    PREFIX,
    ROOT,
    commands,
    documents,
    reads_examples,
    with_examples,
    words,
)

#: Pages that show the data commands: each must show at least one on a sample log.
MUST_SHOW = {"README.md", "docs/guide/data.md", "docs/guide/owner.md", "docs/guide/scores.md"}


def example_commands() -> dict[str, list[str]]:
    """Per document (path from the root), its command lines that read a sample log."""
    found = {}
    for path in documents():
        lines = [c for c in commands(path.read_text(encoding="utf-8")) if reads_examples(c)]
        if lines:
            found[path.relative_to(ROOT).as_posix()] = lines
    return found


EXAMPLE_COMMANDS = example_commands()


def test_the_documents_show_commands_on_the_sample_logs() -> None:
    assert MUST_SHOW <= set(EXAMPLE_COMMANDS), set(EXAMPLE_COMMANDS)
    every = [c for lines in EXAMPLE_COMMANDS.values() for c in lines]
    assert len(every) >= 12
    verbs = {words(c)[1] for c in every}
    assert {"runs", "backtest", "importance", "derive", "evaluate", "draw"} <= verbs, verbs
    logs = {w for c in every for w in words(c) if w.startswith(PREFIX)}
    assert {"examples/votes_log.csv", "examples/scores_log.csv"} <= logs


@pytest.mark.parametrize("document", sorted(EXAMPLE_COMMANDS))
def test_command_lines_on_the_sample_logs_run_as_written(
        document: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from causalcost.cli.app import main

    monkeypatch.chdir(with_examples(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    for command in EXAMPLE_COMMANDS[document]:
        with contextlib.redirect_stdout(io.StringIO()) as out, \
                contextlib.redirect_stderr(io.StringIO()) as err:
            status = main(words(command)[1:])
        assert status == 0, f"{document}: {command!r} exited {status}: {err.getvalue().strip()}"
        assert out.getvalue().strip() or "-o" in words(command), command
    # nothing was written into the copy of the sample logs
    assert sorted(p.name for p in (tmp_path / "examples").iterdir()) == sorted(
        p.name for p in EXAMPLES.iterdir() if p.name != "__pycache__")


def logs_read(command: str) -> list[str] | None:
    """The log files a command line reads (a data file, a scores file), or None when it is a
    mention rather than a command (``causalcost runs`` alone in a sentence)."""
    from causalcost.cli.app import build_parser

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            args = build_parser().parse_args(words(command)[1:])
    except SystemExit:
        return None
    read = [args.data] if getattr(args, "data", None) else []
    scores = getattr(args, "scores", None)  # derive's --scores is a flag, evaluate's files
    for spec in scores if isinstance(scores, list) else []:
        read.append(spec if spec.startswith(PREFIX) else spec.partition(":")[2] or spec)
    return read


def test_every_command_line_that_reads_a_log_reads_a_shipped_one() -> None:
    checked = 0
    for path in documents():
        for command in commands(path.read_text(encoding="utf-8")):
            read = logs_read(command)
            if read is None:
                assert not any(w.endswith((".csv", ".parquet")) for w in words(command)), \
                    f"{path.name}: {command!r} names a file but is not a command line"
                continue
            for log in read:
                assert log.startswith(PREFIX) and (ROOT / log).is_file(), \
                    f"{path.name}: {command!r} reads {log}, not a shipped sample log"
                checked += 1
    assert checked >= 12


def test_command_extraction_sees_blocks_continuations_chains_and_prose() -> None:
    text = ("Run `causalcost runs examples/a.csv\n--truth y` first.\n"
            "```bash\ncausalcost derive --data examples/a.csv \\\n    --truth y -o s.json\n"
            "pip install . && causalcost show s.json  # a comment\n```\n"
            "```python\ncausalcost = 1\n```\n"
            "```text\ncausalcost networks\n```\nthen `causalcost networks`.\n")
    assert commands(text) == ["causalcost runs examples/a.csv --truth y",
                              "causalcost derive --data examples/a.csv --truth y -o s.json",
                              "causalcost show s.json  # a comment",
                              "causalcost networks"]
    assert [reads_examples(c) for c in commands(text)] == [True, True, False, False]


# ------------------------------------------------------------------------ the sample logs

def test_the_sample_logs_are_what_make_logs_writes(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "make_logs.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ["scores_log.csv", "votes_log.csv"]
    for name in made:
        assert (tmp_path / name).read_bytes() == (EXAMPLES / name).read_bytes(), \
            f"examples/{name} is not what make_logs.py writes: rerun it"


def test_the_sample_logs_are_what_their_docstring_says() -> None:
    scores = pd.read_csv(EXAMPLES / "scores_log.csv")
    votes = pd.read_csv(EXAMPLES / "votes_log.csv")
    models = ["a", "b", "c", "new1", "new2"]
    assert list(scores.columns) == list(votes.columns) == ["y", *models]
    assert len(scores) == len(votes) == 400
    assert (scores["y"] == votes["y"]).all() and set(scores["y"]) == {0, 1}
    assert 0.3 < scores["y"].mean() < 0.45
    s = scores[models].to_numpy()
    assert ((0 <= s) & (s <= 1)).all()
    assert (votes[models].to_numpy() == (s >= 0.5)).all()  # a vote is a score >= 0.5
    wrong = votes[models].to_numpy() != votes[["y"]].to_numpy()
    accuracy = dict(zip(models, 1 - wrong.mean(axis=0)))
    assert accuracy["a"] > accuracy["b"] > accuracy["c"]  # of different quality
    errors = np.corrcoef(wrong[:, :3].T)
    assert (errors[np.triu_indices(3, 1)] > 0.1).all()  # they err together
    assert np.corrcoef(wrong.T)[4, :3].max() < errors[np.triu_indices(3, 1)].min()  # new2 less


def test_nothing_in_the_package_reads_the_sample_logs() -> None:
    package = ROOT / "causalcost"
    for module in package.rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        for needle in ("examples/", "votes_log", "scores_log", "make_logs"):
            assert needle not in text, f"{module.relative_to(ROOT)} names {needle}"
