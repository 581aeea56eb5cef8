"""Read the candidates for a slot from a CSV file of confusion matrices.

A model owner with several candidates for the slot lists them one a row under the header
``name,tp,fn,fp,tn`` (columns in any order, cells non-negative numbers).
:func:`read_candidates_frame` returns them as one data frame (one row a candidate, in file
order), which :func:`causalcost.evaluation.comparison.compare` ranks in one vectorised pass;
:func:`read_candidates_csv` returns them as ``{name: Confusion}``. Anything malformed (a bad cell,
a repeated name, a field longer than :data:`FIELD_LIMIT` characters, bytes that are not UTF-8
text) is refused with one line naming the file, line and candidate, never skipped.

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
import io
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion, check_labels
from causalcost.errors import CausalCostError, ValidationError
from causalcost.evaluation.candidate_reading import (
    _frame_counts,
    _frame_labels,
    as_confusion,
    candidate_matrices,
    frame_labels,
)

__all__ = ["FIELD_LIMIT", "as_confusion", "candidate_matrices", "candidates_frame",
           "confusions_from_predictions", "frame_labels", "read_candidates_csv",
           "read_candidates_frame", "score_rule"]

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


def _name(name: object) -> str:
    return str(name)


def _refuse_twins(names: list[str]) -> None:
    index = pd.Index(names)
    if index.has_duplicates:
        twice = index[index.duplicated()][0]
        raise ValidationError(f"two candidates are named {twice!r} (names are compared as text, "
                              "so 1 and '1' are one name); rename one")


def _target(parts: tuple[Any, ...], labels: Sequence[Any] | None) -> tuple[str, ...]:
    """The labels of the candidates: given, else those of the first candidate over more than
    two labels, else ("P", "N")."""
    if labels is not None:
        return check_labels(labels, len(list(labels)), "labels")
    for part in parts:
        if isinstance(part, pd.DataFrame):
            own = _frame_labels(part)
            if own is not None:
                return own
        elif isinstance(part, Mapping):
            for candidate in part.values():
                if isinstance(candidate, Confusion) and candidate.k > 2:
                    return candidate.labels
    return CLASSES


def candidates_frame(*parts: Mapping[Any, Any] | pd.DataFrame,
                     labels: Sequence[Any] | None = None) -> pd.DataFrame:
    """Candidates from several sources (mappings of name to confusion, candidate frames) as one
    frame for :func:`~causalcost.compare`, refusing a name used twice.

    Parameters
    ----------
    *parts : mapping of name to candidate, or candidate frame
        A candidate is anything :func:`as_confusion` reads. Names are compared as text.
    labels : sequence, optional
        The K labels (row order). Without it: the labels of the first candidate over more than
        two labels, else the binary ``("P", "N")``. Labelled candidates are matched to them by
        name (reordered, or refused when the names differ).

    Returns
    -------
    pandas.DataFrame
        Index ``candidate``. Two labels: columns ``tp, fn, fp, tn`` (the positive label
        first). K labels: columns ``(true, predicted)`` for every pair of labels, in label
        order. ``attrs["labels"]`` holds the labels;
        :func:`~causalcost.evaluation.candidate_reading.candidate_matrices` reads it back as
        a (candidates, K, K) array.

    Raises
    ------
    ValidationError
        A name used twice, or candidates over other labels.

    Examples
    --------
    >>> import causalcost as cc
    >>> candidates_frame({"coin": cc.Confusion(50, 50, 100, 100)},
    ...                  {"good": {"tp": 90, "fn": 10, "fp": 20, "tn": 180}}).index.tolist()
    ['coin', 'good']
    >>> candidates_frame({"a": cc.Confusion(1, 0, 0, 1)}, {"a": cc.Confusion(0, 1, 1, 0)})
    Traceback (most recent call last):
    causalcost.errors.ValidationError: two candidates are named 'a' (names are compared as text, so 1 and '1' are one name); rename one
    >>> frame = candidates_frame({"x": [[5, 1, 0], [0, 4, 0], [2, 0, 3]]}, labels=["a", "b", "c"])
    >>> frame.loc["x", ("c", "a")], frame.attrs["labels"]
    (np.float64(2.0), ['a', 'b', 'c'])
    """  # noqa: E501
    target = _target(parts, labels)
    k = len(target)
    named = labels is not None or k > 2
    names: list[str] = []
    rows: list[np.ndarray] = []
    for part in parts:
        if isinstance(part, pd.DataFrame):
            rows.append(_frame_counts(part, target))
            names += [_name(n) for n in part.index]
        elif isinstance(part, Mapping):
            for name, candidate in part.items():
                names.append(_name(name))
                c = as_confusion(candidate, name, labels=target if named else None)
                if c.k != k:
                    raise ValidationError(f"candidate {name!r} has {c.k} labels, the others "
                                          f"{k} ({list(target)})")
                rows.append(np.asarray(c.to_numpy(), dtype=float)[None])
        else:
            raise TypeError(f"candidates must be mappings of name to Confusion or candidate "
                            f"frames, got {type(part).__name__}")
    _refuse_twins(names)
    m = np.concatenate(rows) if rows else np.empty((0, k, k))
    return _frame(names, m.reshape(len(m), k * k), target)


def score_rule(scores: Mapping[str, Any] | None, threshold: float | None) -> tuple[float, str]:
    """The cut that turns scores into labels, and the rule in words (printed with the results).

    A stated ``threshold`` is used as given. Without one, scores that are all probabilities
    (every value in [0, 1]) take the documented default 0.5, and the rule says it is the
    default; other scores are refused: the cut is not guessed.

    Examples
    --------
    >>> score_rule({"a": [0.2, 0.9]}, None)
    (0.5, 'scores: positive where score >= 0.5 (the default for probabilities in [0, 1]; give threshold= / --threshold to choose)')
    >>> score_rule({"a": [3.0, -1.0]}, 0.0)[1]
    'scores: positive where score >= 0 (threshold given)'
    """  # noqa: E501
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)) \
                or not np.isfinite(threshold):
            raise ValidationError(f"threshold must be a finite number, got {threshold!r}")
        return float(threshold), (f"scores: positive where score >= {float(threshold):g} "
                                  "(threshold given)")
    for name, values in (scores or {}).items():
        try:
            s = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            continue  # confusions_from_predictions names the unreadable scores
        if s.size and np.isfinite(s).all() and not ((s >= 0) & (s <= 1)).all():
            raise ValidationError(
                f"scores[{str(name)!r}] holds values outside [0, 1], so they are not "
                "probabilities and no cut can be assumed: give threshold= (--threshold) to "
                "say where the candidate predicts positive (score >= threshold)")
    return 0.5, ("scores: positive where score >= 0.5 (the default for probabilities in "
                 "[0, 1]; give threshold= / --threshold to choose)")


def confusions_from_predictions(y_true: Any, *, predictions: Mapping[Any, Any] | None = None,
                                scores: Mapping[Any, Any] | None = None,
                                threshold: float | None = None, positive: Any = None,
                                labels: Sequence[Any] | None = None,
                                ) -> dict[str, Confusion]:
    """Each candidate's confusion from its predictions (labels) or scores on ``y_true``.

    Read by one :class:`~causalcost.data.predictions.PredictionReader` (the rules of
    :func:`~causalcost.data.predictions.count_confusion`): pandas Series are aligned with
    ``y_true`` by index, values matched to the labels by value or name.

    Parameters
    ----------
    y_true : array-like
        The true classes, one a row: bool, 0/1 (1 positive), labels with ``positive``, or any
        labels with ``labels``.
    predictions : mapping of name to array-like, optional
        Each candidate's predicted labels on the same rows (the same label rules as ``y_true``).
    scores : mapping of name to array-like, optional
        Each candidate's scores for the positive class on the same rows: it predicts positive
        where ``score >= threshold`` (two labels only: a cut is binary by nature).
    threshold : float, optional
        The scores' cut. Without it, probabilities (all scores in [0, 1]) are cut at 0.5, the
        documented default (:func:`score_rule`); other scores are refused.
    positive : label, optional
        The positive label of ``y_true`` and ``predictions`` (needed for labels other than
        bool or 0/1).
    labels : sequence, optional
        The K labels in row order. Without it and without ``positive``, values beyond two are
        read as K labels: the sorted union of ``y_true``'s and the predictions' values.

    Returns
    -------
    dict of str to Confusion
        Predictions first, then scores, each in the order given.

    Raises
    ------
    DataError
        Values that are not labels (named), scores that are not finite numbers, arrays of
        another length than ``y_true``, or Series whose index does not match ``y_true``'s.
    ValidationError
        A name used twice (names are compared as text: ``1`` and ``"1"`` are one name),
        neither ``predictions`` nor ``scores``, scores for more than two labels, or scores
        outside [0, 1] without a ``threshold``.

    Examples
    --------
    >>> confusions_from_predictions(["sick", "well", "sick", "well"],
    ...                             predictions={"a": ["sick", "sick", "well", "well"]},
    ...                             scores={"b": [0.9, 0.2, 0.6, 0.7]}, positive="sick")
    {'a': Confusion(tp=1, fn=1, fp=1, tn=1), 'b': Confusion(tp=2, fn=0, fp=1, tn=1)}
    >>> confusions_from_predictions(["ok", "flu", "covid"], predictions={
    ...     "m": ["ok", "covid", "covid"]})["m"].labels
    ('covid', 'flu', 'ok')
    """
    from causalcost.data.predictions import PredictionReader
    from causalcost.errors import DataError

    if not predictions and not scores:
        raise ValidationError("give predictions={name: labels} or scores={name: scores}")
    for what, given in (("predictions", predictions), ("scores", scores)):
        if given is not None and not isinstance(given, Mapping):
            raise ValidationError(f"{what} must be a mapping of candidate name to an array, "
                                  f"got {type(given).__name__}")
    _refuse_twins([_name(n) for part in (predictions or {}, scores or {}) for n in part])
    reader = PredictionReader(y_true, (predictions or {}).values(), labels=labels,
                              positive=positive)
    if scores and len(reader.names) != 2:
        raise ValidationError(
            f"scores= cut at a threshold give two labels, but y_true is read over the "
            f"{len(reader.names)} labels {list(reader.names)}: give each candidate's labels "
            "as predictions=")
    cut = score_rule(scores, threshold)[0] if scores else 0.5
    out: dict[str, Confusion] = {}
    for name, values in (predictions or {}).items():
        out[_name(name)] = reader.confusion(values, f"predictions[{_name(name)!r}]")
    for name, values in (scores or {}).items():
        what = f"scores[{_name(name)!r}]"
        try:
            s = np.asarray(values.to_numpy() if isinstance(values, pd.Series) else values,
                           dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"{what} must hold numbers (scores for the positive class); give "
                            "labels as predictions=") from None
        if s.ndim != 1 or not np.isfinite(s).all():
            raise DataError(f"{what} must be one-dimensional finite numbers")
        aligned = reader.aligned(values, what).astype(float)
        out[_name(name)] = reader.from_codes((aligned < cut).astype(np.int64))
    return out

