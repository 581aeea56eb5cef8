"""Every user error of the reliability issue: one line on stderr, exit 2, no traceback; and
files written atomically by export, draw and derive."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

import causalcost as cc
from causalcost.cli import main
from causalcost.cli.parsing import count

FOUR_HUNDRED = "9" * 400
MODEL = "tp=50,fn=50,fp=100,tn=100"
BOUND = ["bound", "--forced-p", "tp=80,fn=20,fp=40,tn=160", "--forced-n",
         "tp=0,fn=100,fp=0,tn=200", "--model", MODEL]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run ``argv``; assert exit 2, nothing on stdout, one short error line; return it."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("causalcost") and "error:" in lines[0], lines[0]
    assert len(lines[0]) < 400, lines[0]  # long arguments are shortened, not echoed whole
    return lines[0]


@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sheet") / "sheet.json"
    assert main(["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(path)]) == 0
    return path


# -- files that are not text -------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".toml", ".bif", ".json", ".csv"])
def test_binary_and_non_utf8_files_are_one_line(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, sheet: Path,
                                                suffix: str) -> None:
    capsys.readouterr()
    for name, payload in (("binary", bytes(range(256)) * 8), ("latin1", "prior = 0.3 # café\n"
                                                              .encode("latin-1"))):
        path = tmp_path / f"{name}{suffix}"
        path.write_bytes(payload)
        argv = {".toml": ["query", str(path)],
                ".bif": ["query", str(path), "--class-node", "Class", "--system-node", "F"],
                ".json": ["evaluate", str(path), "--model", MODEL],
                ".csv": ["evaluate", str(sheet), "--candidates", str(path)]}[suffix]
        line = one_line_error(capsys, *argv)
        assert path.name in line and ("UTF-8" in line or "binary" in line), line


def test_csv_field_over_the_csv_module_limit(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path, sheet: Path) -> None:
    huge = tmp_path / "huge.csv"
    huge.write_text("name,tp,fn,fp,tn\n" + "x" * 131_073 + ",1,1,1,1\n")
    line = one_line_error(capsys, "evaluate", str(sheet), "--candidates", str(huge))
    assert "huge.csv" in line and "131072" in line


# -- numbers in arguments ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["query", "thesis_and", "--method", "sampling", "--seed", "-1"], "seed '-1'"),
        (["query", "thesis_and", "--method", "sampling", "--seed", FOUR_HUNDRED], "--seed"),
        (["query", "thesis_and", "--method", "sampling", "--seed", "1e3"], "not an integer"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "1e20"], "10**9"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "1000000001"],
         "10**9"),
        (["query", "thesis_and", "--method", "sampling", "--samples", FOUR_HUNDRED], "10**9"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "9" * 5000], "5000 char"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "1e309"], "--samples"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "1.5e0"], "whole number"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "nan"], "--samples"),
        (["query", "thesis_and", "--method", "sampling", "--samples", "-3"], "--samples"),
        (["query", "thesis_and", "--confidence", "1e309"], "--confidence"),
        (["query", "thesis_and", "--confidence", FOUR_HUNDRED], "--confidence"),
        ([*BOUND[:-1], f"tp={FOUR_HUNDRED},fn=1,fp=1,tn=1"], "tp"),
        ([*BOUND[:-1], "tp=1e309,fn=1,fp=1,tn=1"], "tp"),
        ([*BOUND, "--costs", "fn=1e309,fp=1"], "fn"),
        ([*BOUND, "--costs", f"fn={FOUR_HUNDRED},fp=1"], "fn"),
        ([*BOUND, "--confidence", "nan"], "--confidence"),
        (["runs", "x.csv", "--truth", "y", "--models", "a,b", "--slot", "a", "--fusioner",
          "weighted", "--weights", "1,inf"], "--weights"),
        (["runs", "x.csv", "--truth", "y", "--models", "a,b", "--slot", "a", "--fusioner",
          "weighted", "--threshold", "1e309"], "--threshold"),
    ],
)
def test_bad_numbers_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                  needle: str) -> None:
    assert needle in one_line_error(capsys, *argv)


def test_samples_in_scientific_notation(capsys: pytest.CaptureFixture[str]) -> None:
    assert (count("1e5"), count("1e6"), count("1E3"), count("2_000"), count("9007199254740992")) \
        == (100_000, 1_000_000, 1000, 2000, 2**53)
    common = ["query", "thesis_and", "--method", "sampling", "--seed", "7", "--json"]
    code, short, err = run(capsys, *common, "--samples", "1e4")
    assert code == 0, err
    code, long, _ = run(capsys, *common, "--samples", "10000")
    assert short == long and json.loads(short)["table"][0]["n"] > 0


# -- names and roles ---------------------------------------------------------------------------
def test_empty_candidate_name(capsys: pytest.CaptureFixture[str], sheet: Path) -> None:
    line = one_line_error(capsys, "evaluate", str(sheet), "--model", f":{MODEL}")
    assert "name before ':' is empty" in line
    code, out, _ = run(capsys, "evaluate", str(sheet), "--model", f"mine:{MODEL}", "--model",
                       "tp=70,fn=30,fp=60,tn=140", "--json")
    assert code == 0 and [c["name"] for c in json.loads(out)["candidates"]] \
        in (["mine", "model2"], ["model2", "mine"])


@pytest.mark.parametrize("flags", [["--positive", "P"], ["--class-node", "Class"],
                                   ["--system-node", "Fusioner", "--class-node", "Class"]])
def test_bif_roles_for_a_toml_network(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      flags: list[str]) -> None:
    for argv in (["query", "thesis_and"], ["export", "thesis_and", "-o", str(tmp_path / "x.bif")],
                 ["derive", "thesis_and", "--costs", "fn=1,fp=1", "-o", str(tmp_path / "s")]):
        line = one_line_error(capsys, *argv, *flags)
        assert "BIF files only" in line and "'thesis_and'" in line
        assert all(flag in line for flag in flags[::2])
    assert not list(tmp_path.iterdir())


# -- the top level turns user errors into one line ---------------------------------------------
@pytest.mark.parametrize(
    ("raised", "code", "needle"),
    [
        (RecursionError(), 2, "nested too deeply"),
        (MemoryError(), 2, "not enough memory"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 2, "UTF-8"),
        (PermissionError(errno.EACCES, "Permission denied", "/etc/x"), 2, "Permission denied"),
        (KeyboardInterrupt(), 130, "interrupted"),
    ],
)
def test_top_level_turns_errors_into_one_line(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch,
                                              raised: BaseException, code: int,
                                              needle: str) -> None:
    from causalcost.pricing import bounds

    def boom(*_: object, **__: object) -> None:
        raise raised

    monkeypatch.setattr(bounds, "bound", boom)
    got, out, err = run(capsys, *BOUND)
    assert got == code and out == "" and len(err.strip().splitlines()) == 1
    assert needle in err and "Traceback" not in err


def test_a_bug_still_shows_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from causalcost.pricing import bounds

    def bug(*_: object, **__: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(bounds, "bound", bug)
    with pytest.raises(ZeroDivisionError):
        main(BOUND)


# -- files written atomically ------------------------------------------------------------------
def test_export_on_a_full_disk_keeps_the_old_file(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    target = tmp_path / "net.bif"
    assert run(capsys, "export", "thesis_and", "-o", str(target))[0] == 0
    old = target.read_text()
    real = cc.System.to_bif

    def full_disk(self: cc.System, path: str) -> None:
        real(self, path)  # a complete file, then the disk fills before the rename
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(cc.System, "to_bif", full_disk)
    line = one_line_error(capsys, "export", "thesis_or", "-o", str(target))
    assert "No space left" in line and "net.bif" in line
    assert target.read_text() == old and [p.name for p in tmp_path.iterdir()] == ["net.bif"]


def test_draw_and_derive_on_a_full_disk_keep_the_old_files(capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    png, sheet = tmp_path / "dag.png", tmp_path / "sheet.json"
    png.write_bytes(b"old picture")
    sheet.write_text("old sheet")

    def full_disk(_: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    assert "No space left" in one_line_error(capsys, "draw", "thesis_and", "-o", str(png))
    assert "No space left" in one_line_error(capsys, "derive", "thesis_and", "--costs",
                                             "fn=5,fp=1", "-o", str(sheet))
    assert png.read_bytes() == b"old picture" and sheet.read_text() == "old sheet"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dag.png", "sheet.json"]


@pytest.mark.parametrize("command", [["export", "thesis_and", "-o"],
                                     ["draw", "thesis_and", "-o"],
                                     ["derive", "thesis_and", "--costs", "fn=1,fp=1", "-o"]])
def test_output_into_a_missing_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      command: list[str]) -> None:
    name = {"export": "x.bif", "draw": "x.png", "derive": "x.json"}[command[0]]
    line = one_line_error(capsys, *command, str(tmp_path / "nope" / name))
    assert "nope" in line and "does not exist" in line


# -- keys ----------------------------------------------------------------------------------
def test_keygen_with_flags_or_words(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                    sheet: Path) -> None:
    pytest.importorskip("cryptography")
    key, pub = tmp_path / "owner.pem", tmp_path / "owner.pub.pem"
    code, out, err = run(capsys, "keygen", "--private", str(key), "--public", str(pub))
    assert code == 0 and "keep it secret" in out, err
    assert oct(key.stat().st_mode & 0o777) == oct(0o600)
    signed = tmp_path / "signed.json"
    assert run(capsys, "sign", str(sheet), "--key", str(key), "-o", str(signed))[0] == 0
    code, out, _ = run(capsys, "verify", str(signed), "--public-key", str(pub), "--json")
    assert code == 0 and json.loads(out)["slot"] == "clinical_history"
    assert "once" in one_line_error(capsys, "keygen", "a.pem", "--private", "b.pem",
                                    "--public", "c.pem")
    assert "--public" in one_line_error(capsys, "keygen", "--private", str(tmp_path / "k.pem"))
    assert "never overwritten" in one_line_error(capsys, "keygen", "--private", str(key),
                                                 "--public", str(tmp_path / "p.pem"))


@pytest.mark.parametrize("flag", ["--slot", "--class-node", "--system-node", "--positive"])
def test_an_empty_name_is_not_the_default(capsys: pytest.CaptureFixture[str], flag: str) -> None:
    line = one_line_error(capsys, "query", "thesis_and", flag, "")
    assert flag in line and "empty name" in line


@pytest.mark.parametrize("command", [
    ["runs"], ["derive", "--costs", "fn=5,fp=1", "-o", "SHEET"]])
def test_a_fifo_as_data_is_refused_without_blocking(tmp_path: Path, command: list[str]) -> None:
    """Nothing writes to the pipe: opening it to read would wait for ever. The command must
    refuse it in one line instead (run in a child with a deadline, so a hang fails)."""
    import subprocess
    import sys

    fifo = tmp_path / "log.csv"
    os.mkfifo(fifo)
    words = [w.replace("SHEET", str(tmp_path / "s.json")) for w in command]
    data = ["--truth", "y", "--models", "a,b", "--slot", "a", "--fusioner", "and"]
    argv = (words + ["--data", str(fifo)] + data if words[0] == "derive"
            else words + [str(fifo)] + data)
    try:
        done = subprocess.run([sys.executable, "-m", "causalcost", *argv], capture_output=True,
                              text=True, timeout=60, cwd=Path(cc.__file__).parent.parent)
    except subprocess.TimeoutExpired:
        pytest.fail(f"causalcost {' '.join(argv)} blocked on a FIFO")
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
