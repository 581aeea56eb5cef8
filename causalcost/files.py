"""Files the package writes and reads: atomically, and with one clear error each.

A write goes to a temporary file in the target directory, is flushed to disk and then renamed
over the target, so a full disk or an interrupted process leaves the previous file intact
instead of a cut-off one, and no temporary file behind. Only a regular file is ever replaced
(or a new one created): a device (``/dev/null``, ``/dev/full``), a named pipe, a socket or a
folder at the target is refused before anything is written (:func:`output_target`), since
renaming a file over it would put a regular file in its place. A symbolic link is followed: the
regular file it points to is replaced and the link is kept; a link to anything else, or to
nothing, is refused. (A second hard link to the old file keeps the old content.) A file the
user may not write is refused too, as ``cp`` would: the rename would replace it whatever its
permissions, since only the folder's count. For root, who may write anything, a file whose
owner has no write permission counts as read-only (someone protected it on purpose).

A read turns a missing file, a directory, a permission problem or bytes that are not UTF-8
text into a :class:`~causalcost.errors.CausalCostError` naming the file.

:func:`write_atomic` writes bytes or text; :func:`write_atomic_with` hands a temporary path to
a writer that only writes to paths (pgmpy's BIF writer, matplotlib's ``savefig``).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from causalcost.errors import CausalCostError

__all__ = ["FileError", "output_target", "read_text_file", "write_atomic", "write_atomic_with"]


class FileError(CausalCostError, OSError):
    """A file the user named cannot be read or written."""


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *,
                 encoding: str = "utf-8", mode: int | None = None) -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    The data goes to a temporary file beside ``path``, is flushed and synced to disk, and the
    temporary file is then renamed over ``path``: readers see the old file or the new one,
    never a part. On any failure the temporary file is removed and the old file is unchanged.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write; its folder must exist.
    data : str or bytes
        Text (encoded with ``encoding``) or bytes.
    encoding : str, default "utf-8"
        The encoding of text ``data``.
    mode : int, optional
        Permissions of the new file, set before it appears under ``path`` (``0o600`` for a
        secret). By default an existing file keeps its permissions and a new one gets those
        of an ordinary ``open`` (``0o666`` less the umask).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    FileError
        The folder does not exist, the target is not a regular file (a device, a named pipe,
        a socket, a folder: see :func:`output_target`) or is read-only, or the write failed
        (disk full, permission denied); the message names the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     target = write_atomic(pathlib.Path(tmp) / "out.txt", "hello\\n")
    ...     target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('hello\\n', ['out.txt'])
    >>> write_atomic("/no/such/a.txt", "x")
    Traceback (most recent call last):
    causalcost.files.FileError: cannot write '/no/such/a.txt': the folder '/no/such' does not exist
    >>> write_atomic("/dev/null", "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    causalcost.files.FileError: cannot write '/dev/null': it is a character device, not a ...
    """
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:
            handle.write(payload)

    return write_atomic_with(path, write, mode=mode)


def write_atomic_with(path: str | os.PathLike[str], write: Callable[[Path], object], *,
                      mode: int | None = None) -> Path:
    """Call ``write(temporary_path)``, sync the file and rename it over ``path``.

    For writers that take a path rather than return text. ``write`` must write a complete file
    at the path it is given (it may replace it); anything it raises leaves ``path`` unchanged
    and no temporary file behind. ``mode`` as in :func:`write_atomic`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     target = write_atomic_with(pathlib.Path(tmp) / "x.txt",
    ...                                lambda p: p.write_text("via a path"))
    ...     target.read_text()
    'via a path'
    """
    target = output_target(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        handle = tempfile.NamedTemporaryFile(dir=directory, prefix=f".{target.name}.",
                                             suffix=".tmp", delete=False)
    except OSError as exc:
        raise FileError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from None
    handle.close()
    temporary = Path(handle.name)
    try:
        write(temporary)
        with open(temporary, "rb+") as synced:
            os.fsync(synced.fileno())
        os.chmod(temporary, _mode(target) if mode is None else mode)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and not isinstance(exc, CausalCostError):
            raise FileError(f"cannot write {str(target)!r}: {exc.strerror or exc}; the previous "
                            "file, if any, is unchanged") from None
        raise
    return target


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISSOCK, "a socket"))


def output_target(path: str | os.PathLike[str], *, flag: str | None = None) -> Path:
    """The file a write to ``path`` replaces; refuses anything but a regular file.

    ``path`` itself when it is a regular file the user may write, or does not exist yet (its
    folder must exist); for a symbolic link, the regular file it points to (written through:
    the link is kept). Nothing is written.

    Parameters
    ----------
    path : str or os.PathLike
        Where the caller means to write.
    flag : str, optional
        How the user named the path (a command-line flag such as ``"-o"``): errors then read
        ``-o '/dev/null' is a character device, ...`` instead of ``cannot write '/dev/null':
        it is ...``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileError
        An empty path; a folder, device, named pipe or socket at ``path`` (or behind the link);
        a link to nothing; a folder that does not exist; a read-only file (one the user may not
        write; for root, one without its owner's write permission), as ``cp`` refuses it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (pathlib.Path(tmp) / "real.json").write_text("{}")
    ...     (pathlib.Path(tmp) / "link.json").symlink_to("real.json")
    ...     output_target(pathlib.Path(tmp) / "link.json").name
    2
    'real.json'
    >>> output_target("/dev/full", flag="-o")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    causalcost.files.FileError: -o '/dev/full' is a character device, not a regular file; ...
    """
    text = os.fspath(path)
    where = f"{flag} {text!r}".lstrip() if flag is not None else f"cannot write {text!r}"
    shown = where if flag is not None else f"{where}: it"
    if not text:
        raise FileError(f"{flag or 'the path'} is empty: give the path of a file to write"
                        if flag is not None
                        else "cannot write '': the path is empty; give the path of a file")
    target = Path(text)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        directory = target.parent if str(target.parent) else Path(".")
        if not directory.is_dir():
            raise FileError(f"{where}: the folder {str(directory)!r} does not exist") from None
        return target
    except OSError as exc:  # a file where a folder goes, a name too long, no permission
        raise FileError(f"{where}: {exc.strerror or exc}") from None
    link = ""
    if stat.S_ISLNK(info.st_mode):
        real = Path(os.path.realpath(target))
        try:
            info = os.stat(real)
        except OSError:
            raise FileError(f"{shown} is a symbolic link to {str(real)!r}, which does not exist"
                            "; write to that path itself, or remove the link") from None
        link, target = f" is a symbolic link to {str(real)!r}, which", real
    if stat.S_ISREG(info.st_mode):
        if not _writable(target, info.st_mode):
            raise FileError(f"{shown}{link} is a read-only file (mode "
                            f"{stat.filemode(info.st_mode)}), not replaced: make it writable "
                            f"(chmod u+w {str(target)!r}) or give another path")
        return target
    kind = next((what for test, what in _KINDS if test(info.st_mode)), "a special file")
    fix = "give a file name inside it" if stat.S_ISDIR(info.st_mode) else \
        "give the path of a file"
    raise FileError(f"{shown}{link} is {kind}, not a regular file; only a regular file is "
                    f"replaced: {fix}")


def _writable(target: Path, mode: int) -> bool:
    """Whether the user may write the existing regular file ``target`` (as ``cp`` checks).

    Root may write any file, so for root the owner's write bit decides: a file its owner may
    not write was made read-only on purpose.
    """
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return bool(mode & stat.S_IWUSR)
    return os.access(target, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def _mode(target: Path) -> int:
    """The existing file's permissions, or those an ordinary ``open()`` would give."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def read_text_file(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of ``path``; ``what`` names the file in errors ("sheet", "network", ...).

    Raises
    ------
    FileError
        The file is missing, a folder, unreadable, or not UTF-8 text (a binary file); the
        message names ``what`` and the path.

    Examples
    --------
    >>> read_text_file("/no/such/file.json", "sheet")
    Traceback (most recent call last):
    causalcost.files.FileError: cannot read sheet '/no/such/file.json': No such file or directory
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except IsADirectoryError:
        raise FileError(f"cannot read {what} {str(p)!r}: it is a folder") from None
    except OSError as exc:
        raise FileError(f"cannot read {what} {str(p)!r}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileError(f"{what} {str(p)!r} is not UTF-8 text (byte {exc.start}): is it the "
                        "right file?") from None
