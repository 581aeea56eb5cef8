"""Files the package writes and reads: atomically, and with one clear error each.

A write goes to a temporary file in the target directory, is flushed to disk and then renamed
over the target, so a full disk or an interrupted process leaves the previous file intact
instead of a cut-off one. A read turns a missing file, a directory, a permission problem or
bytes that are not UTF-8 text into a :class:`~causalcost.errors.CausalCostError` naming the
file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from causalcost.errors import CausalCostError

__all__ = ["FileError", "read_text_file", "write_atomic"]


class FileError(CausalCostError, OSError):
    """A file the user named cannot be read or written."""


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *,
                 encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     target = write_atomic(pathlib.Path(tmp) / "out.txt", "hello\\n")
    ...     target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('hello\\n', ['out.txt'])
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise FileError(f"cannot write {str(target)!r}: the folder {str(directory)!r} does not "
                        "exist")
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix=f".{target.name}.",
                                         suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~_umask())  # as an ordinary open() would create it
        os.replace(handle.name, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        if isinstance(exc, OSError):
            raise FileError(f"cannot write {str(target)!r}: {exc.strerror or exc}; the previous "
                            "file, if any, is unchanged") from None
        raise
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read_text_file(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of ``path``; ``what`` names the file in errors ("sheet", "network", ...).

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
