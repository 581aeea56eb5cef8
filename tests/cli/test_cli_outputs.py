"""Every command that writes a file replaces only a regular file (issue 16 item 7).

An atomic write renames a temporary file over its target; run as root on ``-o /dev/null`` it
used to put a regular file where the device was. Every writing command × every kind of target:
a character device, a named pipe, a socket, a folder, a symbolic link to a device and a link to
nothing are refused before any work with one line naming the flag and the path (exit 2), and
the target is left as it was; a link to a regular file is written through (the link stays).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import causalcost as cc
from causalcost.cli.app import main
from causalcost.errors import CausalCostError, CausalCostWarning
from causalcost.files import FileError, output_target, write_atomic

pytestmark = pytest.mark.skipif(os.name != "posix", reason="devices, FIFOs and sockets")


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A short folder: a socket path must stay under ~100 bytes."""
    with tempfile.TemporaryDirectory(prefix="cc", dir="/tmp") as tmp:
        yield Path(tmp)


def make_fifo(folder: Path) -> Path:
    path = folder / "pipe"
    os.mkfifo(path)
    return path


def make_socket(folder: Path) -> Path:
    path = folder / "sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()
    return path


def make_folder(folder: Path) -> Path:
    path = folder / "sub.out"
    path.mkdir()
    return path


def make_link_to_device(folder: Path) -> Path:
    path = folder / "null.link"
    path.symlink_to("/dev/null")
    return path


def make_dangling_link(folder: Path) -> Path:
    path = folder / "gone.link"
    path.symlink_to(folder / "missing" / "x")
    return path


#: kind -> (maker, a word the message must hold)
TARGETS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "dev_null": (lambda _: Path("/dev/null"), "character device"),
    "dev_full": (lambda _: Path("/dev/full"), "character device"),
    "fifo": (make_fifo, "named pipe"),
    "socket": (make_socket, "socket"),
    "folder": (make_folder, "folder"),
    "link_to_device": (make_link_to_device, "symbolic link"),
    "dangling_link": (make_dangling_link, "does not exist"),
}


def kind_of(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


def signed_inputs(folder: Path) -> tuple[Path, Path]:
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(folder / "s.json")
    private, _ = cc.generate_signing_key(folder / "k.pem", folder / "k.pub.pem")
    return sheet, private


def scores(folder: Path) -> Path:
    path = folder / "scores.csv"
    path.write_text("y,s\n1,0.9\n0,0.2\n1,0.6\n0,0.7\n1,0.4\n0,0.1\n")
    return path


#: command -> (flag as the error names it, argv builder given (folder, target))
def commands() -> dict[str, tuple[str, Callable[[Path, str], list[str]]]]:
    return {
        "derive": ("-o/--output", lambda d, t: ["derive", "thesis_and", "--costs", "fn=5,fp=1",
                                                "-o", t]),
        "derive_forced": ("-o/--output", lambda d, t: [
            "derive", "--forced-p", "tp=8,fn=2,fp=4,tn=16", "--forced-n",
            "tp=3,fn=7,fp=1,tn=19", "--slot", "s", "--costs", "fn=5,fp=1", "-o", t]),
        "derive_reprice": ("-o/--output", lambda d, t: [
            "derive", str(cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
                          .save(d / "parent.json")), "--costs", "fn=9,fp=1", "-o", t]),
        "sign": ("-o/--output", lambda d, t: ["sign", str(signed_inputs(d)[0]), "--key",
                                              str(d / "k.pem"), "-o", t]),
        "export": ("-o/--output", lambda d, t: ["export", "thesis_and", "-o", t]),
        "draw": ("-o/--output", lambda d, t: ["draw", "thesis_and", "-o", t]),
        "roc": ("-o/--output", lambda d, t: ["roc", str(
            cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(d / "r.json")),
            "--scores", str(scores(d)), "--truth", "y", "--score", "s", "-o", t]),
        "keygen_private": ("--private", lambda d, t: ["keygen", "--private", t, "--public",
                                                      str(d / "p.pub.pem")]),
        "keygen_public": ("--public", lambda d, t: ["keygen", "--private", str(d / "p.pem"),
                                                    "--public", t]),
        "keygen_private_word": ("PRIVATE.pem", lambda d, t: ["keygen", t, str(d / "p.pub")]),
        "keygen_public_word": ("PUBLIC.pem", lambda d, t: ["keygen", str(d / "p.pem"), t]),
    }


COMMANDS = commands()


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_writer_refuses_every_special_target(
        capsys: pytest.CaptureFixture[str], short_tmp: Path, command: str, target: str) -> None:
    if "keygen" in command or command == "sign":
        pytest.importorskip("cryptography")
    make, word = TARGETS[target]
    path = make(short_tmp)
    flag, argv = COMMANDS[command]
    before = kind_of(path)
    listing = sorted(p.name for p in short_tmp.iterdir())
    code, out, err = one_line(capsys, argv(short_tmp, str(path)))
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert flag in lines[0] and repr(str(path)) in lines[0] and word in lines[0]
    assert kind_of(path) == before  # nothing replaced the device, pipe, socket, folder, link
    if path.is_dir():
        assert list(path.iterdir()) == []
    # nothing left behind: no temporary file, and keygen wrote no half of a pair
    after = sorted(p.name for p in short_tmp.iterdir())
    assert not [name for name in after if name.endswith(".tmp")]
    if "keygen" in command:
        assert after == listing


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_link_to_a_regular_file_is_written_through(
        capsys: pytest.CaptureFixture[str], short_tmp: Path, command: str) -> None:
    if "keygen" in command or command == "sign":
        pytest.importorskip("cryptography")
    if "private" in command:
        pytest.skip("a private key is never overwritten, by a link or not")
    suffix = {"export": ".bif", "draw": ".svg", "roc": ".png"}.get(command, ".json")
    real = short_tmp / f"real{suffix}"
    real.write_text("old")
    link = short_tmp / f"link{suffix}"
    link.symlink_to(real.name)
    flag, argv = COMMANDS[command]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CausalCostWarning)
        code, out, err = one_line(capsys, argv(short_tmp, str(link)))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_bytes() != b"old" and stat.S_ISREG(os.lstat(real).st_mode)
    assert not [p for p in short_tmp.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_writer_refuses_a_read_only_file(capsys: pytest.CaptureFixture[str],
                                               short_tmp: Path, command: str) -> None:
    """A file the user may not write is not replaced by the rename (issue 23): one line naming
    the flag, the file and the fix, exit 2, the file and its mode kept; through a link too."""
    if "keygen" in command or command == "sign":
        pytest.importorskip("cryptography")
    kept = short_tmp / "kept.out"
    kept.write_text("old")
    os.chmod(kept, 0o444)
    link = short_tmp / "link.out"
    link.symlink_to(kept.name)
    flag, argv = COMMANDS[command]
    for i, path in enumerate((kept, link)):
        inputs = short_tmp / f"inputs{i}"  # each run's own sheet and key
        inputs.mkdir()
        code, out, err = one_line(capsys, argv(inputs, str(path)))
        assert code == 2, (out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err
        assert flag in lines[0] and repr(str(path)) in lines[0]
        assert "read-only" in lines[0] and "chmod u+w" in lines[0]
        assert kept.read_text() == "old" and stat.S_IMODE(kept.stat().st_mode) == 0o444
        assert not [p for p in short_tmp.rglob("*.tmp")]
    assert link.is_symlink()


def test_sign_in_place_refuses_a_read_only_sheet(capsys: pytest.CaptureFixture[str],
                                                 short_tmp: Path) -> None:
    pytest.importorskip("cryptography")
    sheet, private = signed_inputs(short_tmp)
    before = sheet.read_bytes()
    os.chmod(sheet, 0o444)
    code, out, err = one_line(capsys, ["sign", str(sheet), "--key", str(private)])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "SHEET.json" in err and repr(str(sheet)) in err and "read-only" in err
    assert sheet.read_bytes() == before
    os.chmod(sheet, 0o644)  # the fix the message names
    assert one_line(capsys, ["sign", str(sheet), "--key", str(private)])[0] == 0


def test_experiment_refuses_a_read_only_result_file(capsys: pytest.CaptureFixture[str],
                                                    short_tmp: Path) -> None:
    kept = short_tmp / "coverage.csv"
    kept.write_text("old")
    os.chmod(kept, 0o444)
    code, out, err = one_line(capsys, ["experiment", "coverage", "--repetitions", "2",
                                       "-o", str(short_tmp), "--quiet"])
    assert code == 2 and "read-only" in err and "coverage.csv" in err
    assert kept.read_text() == "old"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_empty_path_is_refused(capsys: pytest.CaptureFixture[str], short_tmp: Path,
                                  command: str) -> None:
    flag, argv = COMMANDS[command]
    code, out, err = one_line(capsys, argv(short_tmp, ""))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert flag in err and "empty" in err


@pytest.mark.parametrize("experiment", ["coverage", "ratio"])
@pytest.mark.parametrize("target", ["", "/dev/null", "fifo", "file"])
def test_experiment_folder_is_checked_before_any_work(
        capsys: pytest.CaptureFixture[str], short_tmp: Path, experiment: str, target: str) -> None:
    if target == "fifo":
        target = str(make_fifo(short_tmp))
    elif target == "file":
        target = str(short_tmp / "a.txt")
        Path(target).write_text("keep")
    code, out, err = one_line(capsys, ["experiment", experiment, "--repetitions", "2", "-o",
                                       target])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "-o/--output" in err and ("empty" in err if not target else repr(target) in err)
    if target.endswith("a.txt"):
        assert Path(target).read_text() == "keep"


@pytest.mark.parametrize("experiment, name", [("coverage", "coverage.csv"),
                                              ("ratio", "ratio.png")])
def test_experiment_files_in_the_folder_are_checked(capsys: pytest.CaptureFixture[str],
                                                    short_tmp: Path, experiment: str,
                                                    name: str) -> None:
    os.mkfifo(short_tmp / name)
    code, out, err = one_line(capsys, ["experiment", experiment, "--repetitions", "2",
                                       "--quiet", "-o", str(short_tmp)])
    assert code == 2 and out == "" and "named pipe" in err and name in err
    assert stat.S_ISFIFO(os.lstat(short_tmp / name).st_mode)


# -- keygen: one file by two names, and a public key replaced -----------------------------------
@pytest.mark.parametrize("spell", [
    lambda d: (str(d / "same.pem"), str(d / "same.pem")),
    lambda d: (str(d / "same.pem"), str(d / "sub" / ".." / "same.pem")),
    lambda d: (str(d / "same.pem"), str(d / "alias.pem")),  # a link to it
])
def test_keygen_refuses_one_file_by_two_names(capsys: pytest.CaptureFixture[str],
                                              short_tmp: Path, spell: Callable) -> None:
    pytest.importorskip("cryptography")
    (short_tmp / "sub").mkdir()
    (short_tmp / "alias.pem").symlink_to(short_tmp / "same.pem")
    private, public = spell(short_tmp)
    for argv in (["keygen", private, public], ["keygen", "--private", private, "--public",
                                                  public]):
        code, out, err = one_line(capsys, argv)
        assert code == 2 and len(err.strip().splitlines()) == 1
        if public.endswith("alias.pem"):  # a link to a file not written yet: a dangling link
            assert "symbolic link" in err and "does not exist" in err
        else:
            assert "same file" in err
            assert ("PRIVATE.pem and PUBLIC.pem" in err) or ("--private and --public" in err)
    assert not (short_tmp / "same.pem").exists()
    with pytest.raises(CausalCostError, match="private_path and public_path name the same"):
        cc.generate_signing_key(private, public)


def test_keygen_refuses_a_hard_link_to_the_same_file(short_tmp: Path) -> None:
    pytest.importorskip("cryptography")
    public = short_tmp / "pub.pem"
    public.write_text("old public key")
    os.link(public, short_tmp / "hard.pem")
    with pytest.raises(CausalCostError, match="same file"):
        cc.generate_signing_key(short_tmp / "hard.pem", public)


def test_keygen_says_when_it_replaces_a_public_key(capsys: pytest.CaptureFixture[str],
                                                   short_tmp: Path) -> None:
    pytest.importorskip("cryptography")
    public = short_tmp / "k.pub.pem"
    public.write_text("an older public key")
    code, out, err = one_line(capsys, ["keygen", str(short_tmp / "k.pem"), str(public)])
    assert code == 0
    assert err.strip().splitlines() == [
        f"causalcost keygen: warning: {str(public)!r} exists and is replaced by the new public key"]
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    with pytest.warns(CausalCostWarning, match="replaced by the new public key"):
        cc.generate_signing_key(short_tmp / "k2.pem", public)


def test_no_warning_for_a_new_public_key(capsys: pytest.CaptureFixture[str],
                                         short_tmp: Path) -> None:
    pytest.importorskip("cryptography")
    code, out, err = one_line(capsys, ["keygen", str(short_tmp / "a.pem"),
                                       str(short_tmp / "a.pub.pem")])
    assert code == 0 and err == ""


# -- an output never destroys an input ----------------------------------------------------------
def test_sign_refuses_to_write_over_its_key(capsys: pytest.CaptureFixture[str],
                                            short_tmp: Path) -> None:
    pytest.importorskip("cryptography")
    sheet, private = signed_inputs(short_tmp)
    key = private.read_bytes()
    code, _, err = one_line(capsys, ["sign", str(sheet), "--key", str(private), "-o",
                                     str(private)])
    assert code == 2 and "--key" in err and "-o" in err
    assert private.read_bytes() == key


@pytest.mark.parametrize("route", ["network", "data"])
def test_derive_refuses_to_write_over_its_input(capsys: pytest.CaptureFixture[str],
                                                short_tmp: Path, route: str) -> None:
    if route == "network":
        source = short_tmp / "net.toml"
        source.write_text("# a network the user keeps\n")  # refused before it is read
        argv = ["derive", str(source), "--costs", "fn=5,fp=1", "-o", str(source)]
        flag = "NETWORK"
    else:
        source = short_tmp / "d.csv"
        source.write_text("y,a,b\n1,1,0\n0,0,1\n")
        argv = ["derive", "--data", str(source), "--truth", "y", "--models", "a,b", "--slot",
                "a", "--fusioner", "or", "--costs", "fn=5,fp=1", "-o", str(source)]
        flag = "--data"
    before = source.read_text()
    code, _, err = one_line(capsys, argv)
    assert code == 2 and flag in err and "destroy" in err
    assert source.read_text() == before


# -- the library: full disks and read-only folders ----------------------------------------------
def _fail(code: int) -> Callable[..., None]:
    def fail(*_: object, **__: object) -> None:
        raise OSError(code, os.strerror(code))
    return fail


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT])
@pytest.mark.parametrize("where", ["os.write", "os.fsync", "os.replace", "mkstemp"])
def test_failed_writes_are_clear_and_leave_nothing_behind(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, code: int, where: str) -> None:
    target = tmp_path / "sheet.json"
    target.write_text("old")
    if where == "os.write":  # the write itself (through the file object)
        import builtins

        real_open = builtins.open

        class Full:
            def __init__(self, handle: object) -> None:
                self.handle = handle

            def __enter__(self) -> Full:
                return self

            def __exit__(self, *exc: object) -> None:
                self.handle.close()  # type: ignore[attr-defined]

            def write(self, _: bytes) -> int:
                raise OSError(code, os.strerror(code))

        def opener(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
            handle = real_open(file, mode, *args, **kwargs)  # type: ignore[call-overload]
            return Full(handle) if str(file).endswith(".tmp") and "w" in mode else handle

        monkeypatch.setattr(builtins, "open", opener)
    elif where == "mkstemp":  # a read-only folder: no temporary file can be made
        monkeypatch.setattr(tempfile, "NamedTemporaryFile", _fail(code))
    else:
        monkeypatch.setattr(os, where.split(".")[1], _fail(code))
    with pytest.raises(FileError) as info:
        write_atomic(target, "new")
    message = str(info.value)
    assert isinstance(info.value, CausalCostError)
    assert repr(str(target)) in message and os.strerror(code) in message
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.json"]


def test_a_full_disk_in_the_cli_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "fsync", _fail(errno.ENOSPC))
    code, out, err = one_line(capsys, ["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o",
                                       str(tmp_path / "s.json")])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "No space left on device" in err and "s.json" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_library_writers_refuse_special_targets(short_tmp: Path, target: str) -> None:
    make, word = TARGETS[target]
    path = make(short_tmp)
    before = kind_of(path)
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    for write in (sheet.save, lambda p: write_atomic(p, "x"), output_target):
        with pytest.raises(FileError, match=word):
            write(path)
    assert kind_of(path) == before
    with contextlib.suppress(ImportError):
        import cryptography  # noqa: F401

        with pytest.raises(FileError, match=word):
            cc.generate_signing_key(short_tmp / "new.pem", path)
        assert not (short_tmp / "new.pem").exists()  # checked before the private key is written
