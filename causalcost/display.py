"""How values show themselves: numbers as text, and the HTML Jupyter renders.

Every value object (confusion and cost matrices, tables, bounds, reports, sheets, forced runs,
experiment results) has a readable ``repr`` and a ``_repr_html_`` built from the pieces here,
so that all of them look alike in a notebook: a short heading, the table with whole numbers
shown whole (``7``, not ``7.0``) and intervals as ``estimate [low, high]``, and notes below.
Everything user-supplied (node names, descriptions) is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.errors import InputTypeError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXACT_LIMIT", "format_number", "format_cells", "format_interval", "format_matrix",
           "wrapped", "html_table", "html_block", "html_side_by_side"]

#: Largest integer a float64 holds exactly: counts above it are kept as Python ints.
EXACT_LIMIT = 2**53

_REAL = (int, float, np.integer, np.floating)


def format_number(value: float) -> str:
    """Whole numbers without a decimal point, others to six significant digits.

    Integral floats print whole up to ``2**53`` (beyond, a float is not an exact count);
    Python ints, the exact form of counts beyond ``2**53``, always print whole.

    >>> format_number(320.0), format_number(0.19999999999999996), format_number(1e308)
    ('320', '0.2', '1e+308')
    >>> format_number(2**60 + 1)
    '1152921504606846977'
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, _REAL):
        raise InputTypeError(f"value must be a real number, got {type(value).__name__}")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if value.is_integer() and abs(value) <= EXACT_LIMIT:
        return str(int(value))
    return f"{value:.6g}"


def format_cells(matrix: Any) -> str:
    """A confusion or cost matrix as a user writes it: ``tp=50 fn=50 fp=100 tn=100`` (counts as
    integers, never ``50.0``; costs to six significant digits), never a repr.

    >>> from causalcost.confusion import CostMatrix
    >>> format_cells(CostMatrix(fn=5, fp=1))
    'tp=0 fn=5 fp=1 tn=0'
    >>> format_cells(CostMatrix([[0, 1, 1], [5, 0, 5], [2, 2, 0]], labels=["ok", "flu", "c"]))
    'ok: 0 1 1; flu: 5 0 5; c: 2 2 0'

    More than two labels: one row per true class, ``label: cells`` in label order.
    """
    if getattr(matrix, "k", 2) != 2:
        return "; ".join(f"{label}: " + " ".join(format_number(v) for v in row)
                         for label, row in zip(matrix.labels, matrix.matrix))
    return " ".join(f"{k}={format_number(v)}" for k, v in matrix.to_dict().items())


def format_matrix(rows: Iterable[Iterable[float]], indent: int = 0) -> str:
    """A K x K matrix as a nested list, one row a line, columns aligned, numbers as
    :func:`format_number` writes them; ``indent`` is the column of the opening bracket (the
    rows after the first line up under the first).

    >>> print(format_matrix([[5, 10.5, 0], [100, 0, 2]]))
    [[  5, 10.5, 0],
     [100,    0, 2]]
    """
    texts = [[format_number(v) for v in row] for row in rows]
    widths = [max(len(row[j]) for row in texts) for j in range(len(texts[0]))] if texts else []
    lines = ["[" + ", ".join(t.rjust(w) for t, w in zip(row, widths)) + "]" for row in texts]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def wrapped(lines: Iterable[str], width: int = 99) -> list[str]:
    """Text lines longer than ``width`` broken at spaces, each continuation indented four more
    than its line (tables and numbers, which carry no long prose, stay as they are).

    >>> lines = wrapped(["  " + "word " * 30])
    >>> len(lines), lines[1].startswith("      word")
    (2, True)
    """
    import textwrap

    out: list[str] = []
    for block in lines:
        for line in block.splitlines() or [""]:
            if len(line) <= width:
                out.append(line)
                continue
            indent = line[: len(line) - len(line.lstrip())]
            out += textwrap.wrap(line.strip(), width, initial_indent=indent,
                                 subsequent_indent=indent + "    ", break_long_words=False,
                                 break_on_hyphens=False)
    return out


def format_interval(estimate: float, low: float, high: float, digits: int = 4) -> str:
    """``"estimate [low, high]"``: whole numbers whole, others to ``digits`` significant
    digits (an interval's own width makes more digits noise).

    >>> format_interval(0.2, 0.1875, 0.21250001)
    '0.2 [0.1875, 0.2125]'
    >>> format_interval(0.789756, 0.769615, 0.808574)
    '0.7898 [0.7696, 0.8086]'
    """
    def short(value: float) -> str:
        text = format_number(value)
        return text if text.lstrip("-").isdigit() else f"{float(value):.{digits}g}"

    return f"{short(estimate)} [{short(low)}, {short(high)}]"


def _cell(value: Any) -> str:
    """The text of one table cell: numbers as :func:`format_number`, missing as an en dash."""
    if value is None or (isinstance(value, (float, np.floating)) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, _REAL):
        return format_number(value)
    return str(value)


def html_table(frame: pd.DataFrame, *, caption: str | None = None) -> str:
    """``frame`` as an HTML table, whole numbers whole and other numbers to six digits.

    Parameters
    ----------
    frame : pandas.DataFrame
        Any table; its index and column names are kept.
    caption : str, optional
        Shown above the table (escaped).

    Returns
    -------
    str
        One ``<table>`` element with class ``causalcost``.

    Examples
    --------
    >>> import pandas as pd
    >>> text = html_table(pd.DataFrame({"n": [7.0, 3.0], "rate": [0.25, 1 / 3]}))
    >>> "<td>7</td>" in text and "<td>0.333333</td>" in text
    True
    """
    shown = frame.astype(object).apply(lambda column: column.map(_cell))
    table = shown.to_html(classes="causalcost", border=0, escape=True, na_rep="–")
    if caption:
        table = table.replace(">", f"><caption>{html.escape(caption)}</caption>", 1)
    return table


def html_block(title: str, *parts: str | Iterable[str], notes: Iterable[str] = ()) -> str:
    """A titled block of HTML: ``title`` (escaped, bold), then ``parts`` (HTML, in order; an
    iterable of plain-text lines becomes one escaped paragraph with line breaks), then each
    of ``notes`` as an escaped paragraph.

    Examples
    --------
    >>> html_block("Bound", ["worst 100", "best 50"], notes=["a < b"])
    '<div class="causalcost"><p><b>Bound</b></p><p>worst 100<br>best 50</p><p>a &lt; b</p></div>'
    """
    body = [f'<div class="causalcost"><p><b>{html.escape(title)}</b></p>']
    for part in parts:
        if isinstance(part, str):
            body.append(part)
        else:
            lines = [html.escape(line) for line in part]
            if lines:
                body.append("<p>" + "<br>".join(lines) + "</p>")
    body += [f"<p>{html.escape(note)}</p>" for note in notes]
    body.append("</div>")
    return "".join(body)


def html_side_by_side(picture: str, *rest: str) -> str:
    """A picture at its own size with HTML beside it (below it when the page is narrow).

    >>> html_side_by_side("<svg></svg>", "<p>x</p>").count("<div")
    3
    """
    return ('<div style="display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start">'
            f'<div style="flex:none;max-width:100%">{picture}</div>'
            f'<div>{"".join(rest)}</div></div>')
