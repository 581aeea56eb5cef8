"""The README's and the worked-examples page's Python blocks run as written (in a scratch
directory), every ``causalcost ...`` line of its code blocks runs as written (exit 0), its
notebook list names every notebook, and the README stays what a newcomer needs: short, with
its picture current."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from doc_commands import with_examples

import causalcost as cc

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXAMPLES = ROOT / "docs" / "examples.md"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def command_lines(path: Path) -> list[str]:
    """Every ``causalcost ...`` command of the file's shell code blocks, in order (a line
    chained with ``&&`` gives each ``causalcost`` part; comments dropped)."""
    blocks = re.findall(r"```(?:bash|sh|console)?\n(.*?)```", path.read_text(encoding="utf-8"),
                        re.S)
    return [part.strip() for block in blocks for line in block.splitlines()
            for part in line.split("&&") if part.strip().startswith("causalcost ")]


def run(block: str, name: str) -> dict[str, object]:
    namespace: dict[str, object] = {}
    exec(compile(block, name, "exec"), namespace)
    return namespace


def test_readme_python_api_runs_and_gives_the_thesis_numbers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (block,) = python_blocks(README)
    code = [line for line in block.splitlines() if line.strip()]
    assert len(code) <= 12  # the Python API in about ten lines
    ns = run(block, "README.md[python]")
    report = ns["report"]
    # thesis §4, example 1: Eval1 320, Eval2 220; bounds 390 / 250
    assert (report.eval1, report.eval2, report.worst_cost, report.best_cost) == (  # type: ignore[attr-defined]
        pytest.approx(320), pytest.approx(220), pytest.approx(390), pytest.approx(250))
    assert report.high_confidence.worst_cost >= report.worst_cost  # type: ignore[attr-defined]
    assert (tmp_path / "do_P.svg").read_text().startswith("<svg")
    for line in block.splitlines():  # every printed number in a comment is the real one
        if "# 448.0" in line:
            assert report.high_confidence.worst_cost == pytest.approx(448)  # type: ignore[attr-defined]


def test_readme_is_short_and_its_picture_is_current() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150  # with the two kinds of system and the extras' table
    picture = re.search(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert picture is not None
    committed = (ROOT / picture.group(1)).read_text(encoding="utf-8")
    current = cc.intervention_picture(cc.load_network("thesis_and"), value="P").svg
    assert committed == current, "regenerate docs/images/thesis_and_do.svg"
    for target in re.findall(r"\]\(([^)#]+)\)", text):  # every local link resolves
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


@pytest.mark.parametrize("index", range(len(python_blocks(EXAMPLES))))
def test_worked_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the tour writes sheet.json
    ns = run(python_blocks(EXAMPLES)[index], f"examples.md[python {index}]")
    if index == 0:
        # thesis §4 example 1 (320) and §3.3 (75 expected, worst 100, best 50)
        assert ns["report"].eval1 == pytest.approx(320)  # type: ignore[attr-defined]
        result = ns["result"]
        assert (result.expected_cost, result.worst_cost, result.best_cost) == (  # type: ignore[attr-defined]
            pytest.approx(75), 100, 50)


def test_correlated_example_gives_the_slides_rates() -> None:
    """The correlated-models block is the slides' experiment system written with a user rule:
    its rates equal those of the shipped ``experiment_or`` network (an OR fusioner)."""
    block = next(b for b in python_blocks(EXAMPLES) if "add_correlated_models" in b)
    rates = cc.error_rates(run(block, "examples.md[correlated]")["system"])  # type: ignore[arg-type]
    reference = cc.error_rates(cc.load_network("experiment_or"))
    for c in ("P", "N"):
        assert rates.to_dict()[c] == pytest.approx(reference.to_dict()[c], abs=1e-12)


def test_breast_cancer_example_keeps_every_real_cost_inside_the_bounds() -> None:
    """The data route on scikit-learn's breast-cancer set: forced runs and candidates on the
    same rows, so the kinds bound is exact and every real system cost lies in [best, worst]."""
    block = next(b for b in python_blocks(EXAMPLES) if "load_breast_cancer" in b)
    table = run(block, "examples.md[breast cancer]")["table"]
    assert len(table) == 4  # type: ignore[arg-type]
    assert (table["best_cost"] <= table["real_cost"]).all()  # type: ignore[index]
    assert (table["real_cost"] <= table["worst_cost"]).all()  # type: ignore[index]
    code = [line for line in block.splitlines()
            if line.strip() and not line.startswith(("import", "from")) and line[0] != " "]
    assert len(code) < 15  # under 15 lines of user code


def test_every_readme_command_runs_as_written(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """In a scratch folder holding a copy of ``examples/`` (the sample logs the data commands
    read, named from the repository root), each command exits 0 in the README's order (the
    sheet the first ``derive`` writes is what ``evaluate`` and ``sign`` read). The
    experiments run for minutes: they are the lines of the ``readme:experiments`` block, which
    ``test_docs`` runs as written and checks against the README's table."""
    from causalcost.cli.app import main

    monkeypatch.chdir(with_examples(tmp_path))
    text = README.read_text(encoding="utf-8")
    experiments = re.search(r"<!-- readme:experiments -->\n```bash\n(.*?)```", text, re.S)
    assert experiments is not None
    checked_elsewhere = {" ".join(shlex.split(line)) for line in experiments.group(1).splitlines()}
    commands = command_lines(README)
    assert len(commands) >= 15
    ran = []
    for command in commands:
        words = shlex.split(command, comments=True)
        if words[1] == "experiment":
            assert " ".join(words) in checked_elsewhere, command
            continue
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            status = main(words[1:])
        assert status == 0, f"{command!r} exited {status}: {err.getvalue().strip()}"
        ran.append(words[1])
    assert {"derive", "evaluate", "bound", "runs", "backtest", "importance", "keygen",
            "sign", "query", "draw", "networks"} <= set(ran)
    assert (tmp_path / "owner.pem").exists() and (tmp_path / "dag.svg").exists()


def test_command_lines_finds_chained_and_commented_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```bash\npip install . && causalcost networks  # all\n```\n"
                    "```\ncausalcost a\nnot causalcost b\n```\n```python\ncausalcost c\n```\n")
    assert command_lines(page) == ["causalcost networks  # all", "causalcost a"]


def test_readme_lists_every_notebook() -> None:
    text = README.read_text(encoding="utf-8")
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks, "no notebook found"
    missing = [name for name in notebooks if f"`{name}`" not in text]
    assert not missing, f"the README's notebook list omits {missing}"


def test_what_the_readme_makes_is_ignored_by_git() -> None:
    """The keys ``keygen`` writes, every file a command writes with ``-o`` and the
    experiments' ``results/`` never get committed."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    made = ["results/coverage.csv", "sheet.json", "dag.svg"]
    for command in command_lines(README):
        words = shlex.split(command, comments=True)
        if words[1] == "keygen":
            made += [w for w in words[2:] if not w.startswith("-")]
        made += [words[i + 1] for i, w in enumerate(words[:-1])
                 if w == "-o" and not words[i + 1].endswith("/") and words[i + 1] not in made]
    assert any(m.endswith(".pem") for m in made) and "votes_sheet.json" in made
    found = subprocess.run(["git", "check-ignore", "--no-index", *made], cwd=ROOT,
                           capture_output=True, text=True)
    assert sorted(found.stdout.split()) == sorted(made)
