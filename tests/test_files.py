"""Atomic writes and clear reads (causalcost.files): a full disk leaves the old file whole."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from causalcost.errors import CausalCostError
from causalcost.files import (
    FileError,
    output_target,
    read_text_file,
    write_atomic,
    write_atomic_with,
)


def _disk_full(*_: object, **__: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_write_replaces_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "sheet.json"
    assert write_atomic(target, "first") == target
    write_atomic(target, b"second \xe2\x82\xac")
    assert target.read_text(encoding="utf-8") == "second €"
    write_atomic(target, "caf\u00e9", encoding="latin-1")
    assert target.read_bytes() == b"caf\xe9"
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.json"]


def test_full_disk_on_sync_keeps_the_old_file(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "sheet.json"
    target.write_text("old content")
    monkeypatch.setattr(os, "fsync", _disk_full)
    with pytest.raises(FileError, match="No space left on device") as info:
        write_atomic(target, "new content " * 1000)
    assert isinstance(info.value, CausalCostError) and str(target) in str(info.value)
    assert "unchanged" in str(info.value)
    assert target.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.json"]


def test_full_disk_mid_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "net.bif"
    target.write_text("old")

    def half_then_full(temporary: Path) -> None:
        temporary.write_text("network unknown {")  # a cut-off file...
        _disk_full()  # ...then the disk is full

    with pytest.raises(FileError, match="net.bif"):
        write_atomic_with(target, half_then_full)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["net.bif"]


def test_failed_rename_and_other_errors_clean_up(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.txt"
    monkeypatch.setattr(os, "replace", _disk_full)
    with pytest.raises(FileError):
        write_atomic(target, "x")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []

    def bug(_: Path) -> None:
        raise ZeroDivisionError  # not a file problem: propagates unchanged, still cleaned up

    with pytest.raises(ZeroDivisionError):
        write_atomic_with(target, bug)
    assert list(tmp_path.iterdir()) == []


def test_missing_folder_and_folder_target_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="the folder .*nope.* does not exist"):
        write_atomic(tmp_path / "nope" / "x.json", "{}")
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileError, match="it is a folder"):
        write_atomic(tmp_path / "dir", "{}")


def test_permissions_new_existing_and_explicit(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        fresh = write_atomic(tmp_path / "fresh.txt", "x")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644  # as open() would make it
        kept = tmp_path / "kept.txt"
        kept.write_text("x")
        os.chmod(kept, 0o640)
        write_atomic(kept, "y")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640  # an existing file keeps its mode
        secret = write_atomic(tmp_path / "key.pem", "s", mode=0o600)
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    finally:
        os.umask(mask)


def test_read_text_file_errors_name_the_file(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    good = tmp_path / "net.toml"
    good.write_text("name = 'é'\n", encoding="utf-8")
    assert read_text_file(good, "network") == "name = 'é'\n"
    with pytest.raises(FileError, match="cannot read network .*missing.toml.*No such file"):
        read_text_file(tmp_path / "missing.toml", "network")
    with pytest.raises(FileError, match="it is a folder"):
        read_text_file(tmp_path, "sheet")
    binary = tmp_path / "x.json"
    binary.write_bytes(b"{\x00\xff\xfe}")
    with pytest.raises(FileError, match=r"sheet .*x.json.* is not UTF-8 text \(byte 2\)"):
        read_text_file(binary, "sheet")

    def denied(self: Path) -> bytes:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)  # root ignores chmod: simulate
    with pytest.raises(FileError, match="cannot read candidates .*Permission denied"):
        read_text_file(good, "candidates")


# -- read-only files (issue 23): refused as cp refuses them, never replaced by the rename ------
def _read_only(folder: Path, mode: int = 0o444) -> Path:
    path = folder / "kept.json"
    path.write_text("old")
    os.chmod(path, mode)
    return path


def test_a_read_only_file_is_refused_and_kept(tmp_path: Path) -> None:
    """Whoever runs the test (root included): a file nobody may write stays as it was."""
    kept = _read_only(tmp_path)
    for write in (lambda p: write_atomic(p, "new"), lambda p: write_atomic_with(
            p, lambda t: t.write_text("new")), output_target):
        with pytest.raises(FileError) as caught:
            write(kept)
        message = str(caught.value)
        assert "\n" not in message and repr(str(kept)) in message
        assert "read-only" in message and f"chmod u+w {str(kept)!r}" in message
    assert kept.read_text() == "old" and stat.S_IMODE(kept.stat().st_mode) == 0o444
    assert [p.name for p in tmp_path.iterdir()] == ["kept.json"]  # no temporary left
    with pytest.raises(FileError, match="-o '.*kept.json' is a read-only file"):
        output_target(kept, flag="-o")
    os.chmod(kept, 0o644)  # the fix the message names works
    write_atomic(kept, "new")
    assert kept.read_text() == "new"


def test_a_link_to_a_read_only_file_is_refused(tmp_path: Path) -> None:
    kept = _read_only(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(kept.name)
    with pytest.raises(FileError, match=r"symbolic link to .*kept.json.*, which is a read-only"):
        write_atomic(link, "new")
    assert link.is_symlink() and kept.read_text() == "old"


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX user ids")
@pytest.mark.parametrize("mode, refused", [(0o444, True), (0o464, True), (0o066, True),
                                           (0o644, False), (0o200, False), (0o600, False)])
def test_for_root_the_owners_write_bit_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               mode: int, refused: bool) -> None:
    """Root may write anything: a file whose owner may not write it was protected on purpose
    (group or other write bits do not count)."""
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    kept = _read_only(tmp_path, mode)
    if refused:
        with pytest.raises(FileError, match="read-only"):
            write_atomic(kept, "new")
        assert kept.read_bytes() == b"old"
    else:
        write_atomic(kept, "new")
        assert kept.read_bytes() == b"new" and stat.S_IMODE(kept.stat().st_mode) == mode


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX user ids")
@pytest.mark.parametrize("allowed", [True, False])
def test_other_users_are_asked_what_they_may_write(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   allowed: bool) -> None:
    """For anyone but root the system decides (os.access: owner, group, ACLs), not the bits."""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    kept = _read_only(tmp_path, 0o644)
    asked = []

    def access(path: object, mode: int, **kwargs: object) -> bool:
        asked.append((Path(str(path)), mode))
        return allowed

    monkeypatch.setattr(os, "access", access)
    if allowed:
        write_atomic(kept, "new")
        assert kept.read_text() == "new"
    else:
        with pytest.raises(FileError, match="read-only"):
            write_atomic(kept, "new")
        assert kept.read_text() == "old"
    assert (kept, os.W_OK) in asked


def test_a_new_file_in_a_folder_needs_no_permission_check(tmp_path: Path) -> None:
    assert output_target(tmp_path / "new.json") == tmp_path / "new.json"
