"""Read the candidates for a slot from a CSV file of confusion matrices.

A model owner with several candidates for the slot lists them one a row under the header
``name,tp,fn,fp,tn`` (columns in any order, cells non-negative numbers);
:func:`read_candidates_csv` returns them as ``{name: Confusion}`` in file order, ready for
:func:`causalcost.sheet.report.compare`. Anything malformed is refused with the file, line and
candidate named, never skipped.

Examples
--------
>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     p = pathlib.Path(tmp, "c.csv")
...     _ = p.write_text("name,tp,fn,fp,tn\\ncoin,50,50,100,100\\ngood,90,10,20,180\\n")
...     list(read_candidates_csv(p))
['coin', 'good']
"""

from __future__ import annotations

import csv
from pathlib import Path

from causalcost.confusion import CELLS, Confusion
from causalcost.errors import CausalCostError, ValidationError

__all__ = ["read_candidates_csv"]

_CSV_COLUMNS = ("name", *CELLS)


def read_candidates_csv(path: str | Path) -> dict[str, Confusion]:
    """Read candidates from a CSV file with the header ``name,tp,fn,fp,tn`` (any order).

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
        For a missing file, an empty file, missing or unknown columns, an empty or repeated
        name, a row with the wrong number of fields, or a cell that is not a non-negative
        number; the message names the line and the candidate.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp, "c.csv")
    ...     _ = p.write_text("name,tp,fn,fp,tn\\ncoin,50,50,100,100\\n")
    ...     read_candidates_csv(p)
    {'coin': Confusion(tp=50, fn=50, fp=100, tn=100)}
    """
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise ValidationError(f"cannot read candidates file {str(path)!r}: "
                              f"{exc.strerror or exc}") from None
    with handle:
        reader = csv.reader(handle)
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
        out: dict[str, Confusion] = {}
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            where = f"{path.name} line {line}"
            if len(row) != len(columns):
                raise ValidationError(f"{where}: expected {len(columns)} fields "
                                      f"({','.join(columns)}), got {len(row)}")
            cells = dict(zip(columns, (c.strip() for c in row)))
            name = cells.pop("name")
            if not name:
                raise ValidationError(f"{where}: empty candidate name")
            where += f" (candidate {name!r})"
            if name in out:
                raise ValidationError(f"{where}: the name is used twice")
            values = {}
            for k in CELLS:
                try:
                    values[k] = float(cells[k])
                except ValueError:
                    raise ValidationError(f"{where}: {k}={cells[k]!r} is not a number") from None
            try:
                out[name] = Confusion(**values)
            except CausalCostError as exc:
                raise ValidationError(f"{where}: {exc}") from None
    if not out:
        raise ValidationError(f"{path.name}: no candidates after the header")
    return out
