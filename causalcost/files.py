"""Files the package writes and reads: atomically, and with one clear error each.

A write goes to a temporary file in the target directory, is flushed to disk and then renamed
over the target, so a full disk or an interrupted process leaves the previous file intact
instead of a cut-off one, and no temporary file behind. A read turns a missing file, a
directory, a permission problem or bytes that are not UTF-8 text into a
:class:`~causalcost.errors.CausalCostError` naming the file.

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

__all__ = ["FileError", "read_text_file", "write_atomic", "write_atomic_with"]


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
        The folder does not exist, or the write failed (disk full, permission denied); the
        message names the file.

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
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise FileError(f"cannot write {str(target)!r}: the folder {str(directory)!r} does not "
                        "exist")
    if target.is_dir():
        raise FileError(f"cannot write {str(target)!r}: it is a folder; give a file name")
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
