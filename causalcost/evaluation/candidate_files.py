"""Read the candidates for a slot from a CSV file of confusion matrices.

A model owner with several candidates for the slot lists them one a row under the header
``name,tp,fn,fp,tn`` (columns in any order, cells non-negative numbers).
:func:`read_candidates_frame` returns them as one data frame (one row a candidate, in file
order), which :func:`causalcost.compare` ranks in one vectorised pass;
:func:`read_candidates_csv` returns them as ``{name: Confusion}``. Anything malformed (a bad cell,
a repeated name, a field longer than :data:`FIELD_LIMIT` characters, bytes that are not UTF-8
text) is refused with one line naming the file, line and candidate, never skipped.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion
from causalcost.errors import CausalCostError, ValidationError

__all__ = ["FIELD_LIMIT", "read_candidates_csv", "read_candidates_frame"]

_CSV_COLUMNS = ("name", *CELLS)
#: The longest field a candidates file may hold (the ``csv`` module's limit).
FIELD_LIMIT = 131_072


def _text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise ValidationError(f"cannot read candidates file {str(path)!r}: it is a folder") \
            from None
    except OSError as exc:
        raise ValidationError(f"cannot read candidates file {str(path)!r}: "
                              f"{exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{path.name}: not UTF-8 text (byte {exc.start}); a candidates "
                              "file is CSV text with the header name,tp,fn,fp,tn") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise ValidationError(f"{path.name} line {text.count(chr(10), 0, nul) + 1}: binary "
                              "content (a NUL byte): is it the right file?")
    return text


def _csv_error(where: str, exc: csv.Error) -> ValidationError:
    text = str(exc)
    if "field limit" in text:
        text = (f"a field is longer than {FIELD_LIMIT} characters; a candidates file holds "
                "names and four numbers a row")
    return ValidationError(f"{where}: not a readable CSV file: {text}")


def _header(path: Path, reader: Iterator[list[str]]) -> list[str]:
    header = next(reader, None)
    if header is None:
        raise ValidationError(f"{path.name}: empty file; expected the header "
                              f"{','.join(_CSV_COLUMNS)}")
    columns = [c.strip().lower() for c in header]
    unknown = [c for c in columns if c not in _CSV_COLUMNS]
    missing = [c for c in _CSV_COLUMNS if c not in columns]
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if unknown or missing or repeated:
        problems = ([f"unknown column(s) {unknown}"] if unknown else []) + (
            [f"missing column(s) {missing}"] if missing else []) + (
            [f"repeated column(s) {repeated}"] if repeated else [])
        raise ValidationError(f"{path.name}: {'; '.join(problems)}; the header must be "
                              f"{','.join(_CSV_COLUMNS)} (any order)")
    return columns


def read_candidates_frame(path: str | Path) -> pd.DataFrame:
    """Read candidates from a CSV file with the header ``name,tp,fn,fp,tn`` (any order).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    pandas.DataFrame
        One row per candidate in file order, index ``candidate`` (the names), columns ``tp``,
        ``fn``, ``fp``, ``tn`` (float). Pass it to :func:`~causalcost.compare`.

    Raises
    ------
    ValidationError
        For a missing or unreadable file, bytes that are not UTF-8 text, an empty file, missing
        or unknown columns, an empty or repeated name, a row with the wrong number of fields, a
        field longer than :data:`FIELD_LIMIT` characters, or a cell that is not a finite
        non-negative number; the message names the line and the candidate.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp, "c.csv")
    ...     _ = p.write_text("name,tp,fn,fp,tn\\ncoin,50,50,100,100\\ngood,90,10,20,180\\n")
    ...     frame = read_candidates_frame(p)
    >>> frame.index.tolist(), frame.columns.tolist()
    (['coin', 'good'], ['tp', 'fn', 'fp', 'tn'])
    >>> frame.loc["good"].tolist()
    [90.0, 10.0, 20.0, 180.0]
    """
    path = Path(path)
    text = _text(path)
    fast = _quick(path, text)
    return fast if fast is not None else _careful(path, text)


def _quick(path: Path, text: str) -> pd.DataFrame | None:
    """The candidates of a well-formed file, with array checks; None at the first doubt (then
    :func:`_careful` reads it line by line and names what is wrong)."""
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        return None
    if not rows or not rows[0]:
        return None
    columns = _header(path, iter(rows[:1]))
    width, name_at = len(columns), columns.index("name")
    cell_at = [columns.index(k) for k in CELLS]
    body = [row for row in rows[1:] if row]  # blank lines
    if not body:
        return None
    if any(len(row) != width for row in body):
        return None
    names = [row[name_at].strip() for row in body]
    if not all(names) or len(set(names)) != len(names):
        return None
    try:
        m = np.array([[row[i] for i in cell_at] for row in body], dtype=float)
    except ValueError:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        if not (np.isfinite(m).all() and (m >= 0).all() and np.isfinite(m.sum(axis=1)).all()):
            return None
    return _frame(names, m)


def _careful(path: Path, text: str) -> pd.DataFrame:
    """Read line by line, refusing the first problem with its line and candidate named."""
    reader = csv.reader(io.StringIO(text, newline=""))
    names: list[str] = []
    values: list[list[str]] = []
    lines: list[int] = []
    seen: set[str] = set()
    try:
        columns = _header(path, reader)
        name_at = columns.index("name")
        cell_at = [columns.index(k) for k in CELLS]
        width = len(columns)
        for row in reader:
            name = row[name_at].strip() if len(row) == width else ""
            if not name:  # a blank line, or an error
                if not any(cell.strip() for cell in row):
                    continue
                where = f"{path.name} line {reader.line_num}"
                if len(row) != width:
                    raise ValidationError(f"{where}: expected {width} fields "
                                          f"({','.join(columns)}), got {len(row)}")
                raise ValidationError(f"{where}: empty candidate name")
            line = reader.line_num
            if name in seen:
                raise ValidationError(f"{path.name} line {line} (candidate {name!r}): the name "
                                      "is used twice")
            seen.add(name)
            names.append(name)
            values.append([row[i] for i in cell_at])
            lines.append(line)
    except csv.Error as exc:
        raise _csv_error(f"{path.name} line {reader.line_num}", exc) from None
    if not names:
        raise ValidationError(f"{path.name}: no candidates after the header")
    try:
        m = np.array(values, dtype=float)  # each cell as float() reads it
    except ValueError:
        _not_a_number(path, names, values, lines)
        raise
    with np.errstate(over="ignore", invalid="ignore"):
        bad = ~np.isfinite(m).all(axis=1) | (m < 0).any(axis=1) | ~np.isfinite(m.sum(axis=1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        try:
            Confusion(*m[i].tolist())
        except CausalCostError as exc:
            raise ValidationError(f"{path.name} line {lines[i]} (candidate {names[i]!r}): "
                                  f"{exc}") from None
    return _frame(names, m)


def _not_a_number(path: Path, names: list[str], values: list[list[str]],
                  lines: list[int]) -> None:
    """Raise for the first cell that is not a number, naming its line and candidate."""
    for name, cells, line in zip(names, values, lines):
        for k, text in zip(CELLS, cells):
            try:
                float(text)
            except ValueError:
                raise ValidationError(f"{path.name} line {line} (candidate {name!r}): {k}="
                                      f"{text.strip()[:40]!r} is not a number") from None


def _frame(names: list[str], m: np.ndarray, labels: tuple[str, ...] = CLASSES) -> pd.DataFrame:
    if len(labels) == 2:
        columns: Any = list(CELLS)
    else:
        columns = pd.MultiIndex.from_product([list(labels), list(labels)],
                                             names=["true", "predicted"])
    frame = pd.DataFrame(m, index=pd.Index(names, name="candidate", dtype=object),
                         columns=columns)
    frame.attrs["labels"] = list(labels)
    return frame


def read_candidates_csv(path: str | Path) -> dict[str, Confusion]:
    """Read candidates from a CSV file with the header ``name,tp,fn,fp,tn`` (any order).

    As :func:`read_candidates_frame`, but one :class:`~causalcost.Confusion` per candidate
    (slower for many thousands of candidates: :func:`~causalcost.compare` takes the frame).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    dict of str to Confusion
        In file order.

    Raises
    ------
    ValidationError
        As :func:`read_candidates_frame`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp, "c.csv")
    ...     _ = p.write_text("name,tp,fn,fp,tn\\ncoin,50,50,100,100\\n")
    ...     read_candidates_csv(p)
    {'coin': Confusion(tp=50, fn=50, fp=100, tn=100)}
    """
    frame = read_candidates_frame(path)
    return {name: Confusion(*row) for name, row in zip(frame.index, frame.to_numpy().tolist())}
