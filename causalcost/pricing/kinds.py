"""Counted instance kinds: the exact worst and best case, with no assumption on the system.

Per class, each instance is of one *kind* by how the system reacts to the slot (the table in
:mod:`~causalcost.pricing.bounds`): ``never`` fails, fails only when the slot is wrong
(``wrong_only``), ``always`` fails, fails only when the slot is right (``right_only``). The
forced runs give only two sums per class (``fc = always + right_only``,
``fw = always + wrong_only``); when the system's per-instance results with the slot forced to
P and to N are at hand, the four kinds can be counted (:func:`count_kinds`), and the bounds
become exact for those instances and need no monotonicity assumption.

**The exact extremes.** Write ``a, b, d, e`` for a class's ``never``, ``wrong_only``,
``always`` and ``right_only`` counts and ``h`` for the candidate's hits in the class (``tp``
on positives, ``tn`` on negatives; its mistakes are the other ``n - h``). A placement of the
candidate's outcomes on the instances puts ``h_k`` hits on kind ``k`` (``0 <= h_k <= count``,
``sum h_k = h``), and the system then fails on::

    errors = d + (b - h_b) + h_e

(``always`` fails anyway, ``wrong_only`` on the mistakes placed on it, ``right_only`` on the
hits). Only ``h_b`` and ``h_e`` matter, and ``h_b = h - h_a - h_d - h_e >= h - a - d - e``.
So ``h_e <= min(h, e)`` and ``h_b >= max(0, h - e - a - d)``; filling hits onto
``right_only`` first, then ``never`` and ``always``, then ``wrong_only`` attains both at once,
which proves the worst case; the mirror argument (``h_b <= min(h, b)``,
``h_e >= max(0, h - b - a - d)``, hits onto ``wrong_only`` first) proves the best::

    worst errors = d + b + min(h, e) - max(0, h - e - a - d)
    best errors  = d + b - min(h, b) + max(0, h - b - a - d)

System failures on class P are false negatives, on class N false positives, and the system's
cost grows with its errors in each class (a mistake never costs less than a hit), so the worst
and best confusions give the worst and best costs. Unlike the forced-run bounds, not every
integer in between need occur (one ``right_only`` and one ``wrong_only`` instance with one hit
give 0 or 2 errors, never 1).

**Against the forced-run bounds.** The kinds determine the forced runs
(:func:`forced_from_kinds`): positives fail forced to P (right) on ``always + right_only`` and
forced to N (wrong) on ``always + wrong_only``; negatives fail forced to N (right) on
``always + right_only`` and forced to P (wrong) on ``always + wrong_only``. The forced-run bound
without assumption maximises over every kind split with those sums, this one is exact for the
split that occurred, so it is never looser; with no ``right_only`` instance it equals the
monotone forced-run bound (``d + b - max(0, h - a - d) = min(fw, fc + nw)`` and
``d + b - min(h, b) = max(fc, fw - nc)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.errors import InfeasibleInputError, InputTypeError, ValidationError
from causalcost.pricing.witness import KINDS, ClassWitness, KindCounts, _read_kinds

__all__ = ["count_kinds", "forced_from_kinds", "kinds_frame"]



def kinds_frame(positives: Mapping[str, int], negatives: Mapping[str, int]) -> pd.DataFrame:
    """The kinds table from two mappings kind -> count (missing kinds count 0).

    >>> kinds_frame({"wrong_only": 50, "always": 50}, {"never": 200}).to_dict(orient="index")
    {'P': {'never': 0, 'wrong_only': 50, 'always': 50, 'right_only': 0}, 'N': {'never': 200, 'wrong_only': 0, 'always': 0, 'right_only': 0}}
    """  # noqa: E501
    rows = {}
    for cls, counts in zip(CLASSES, (positives, negatives), strict=True):
        if not isinstance(counts, Mapping):
            raise InputTypeError(f"the {cls} kind counts must be a mapping kind -> count, got "
                                 f"{type(counts).__name__}")
        unknown = sorted(map(str, set(counts) - set(KINDS)))
        if unknown:
            raise ValidationError(f"unknown kinds {unknown} for class {cls}; kinds are "
                                  f"{', '.join(KINDS)}")
        rows[cls] = [counts.get(k, 0) for k in KINDS]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(KINDS))
    frame.index.name = "class"
    _read_kinds(frame)  # validates the counts
    return frame


def forced_from_kinds(kinds: pd.DataFrame | Mapping[str, Any]) -> tuple[Confusion, Confusion]:
    """The system's confusion with the slot forced to P and to N that the kinds imply.

    Parameters
    ----------
    kinds : DataFrame
        Index ``"P"``, ``"N"``; columns ``never, wrong_only, always, right_only``.

    Returns
    -------
    (forced_p, forced_n) : tuple of Confusion

    Examples
    --------
    Thesis §3.3 (AND fusioner, model 1 right on 50 of 100 positives): 50 positives fail only
    when the slot is wrong, 50 always.

    >>> forced_from_kinds(kinds_frame({"wrong_only": 50, "always": 50}, {}))
    (Confusion(tp=50, fn=50, fp=0, tn=0), Confusion(tp=0, fn=100, fp=0, tn=0))
    """
    return _forced(_read_kinds(kinds))


def _forced(counts: dict[str, KindCounts]) -> tuple[Confusion, Confusion]:
    n_p, n_n = sum(counts["P"]), sum(counts["N"])
    # failures per class with the slot forced to the right / the wrong class
    right = {c: counts[c][2] + counts[c][3] for c in CLASSES}  # always + right_only
    wrong = {c: counts[c][2] + counts[c][1] for c in CLASSES}  # always + wrong_only
    # forced to P the slot is right on positives and wrong on negatives; forced to N the reverse
    forced_p = Confusion(tp=n_p - right["P"], fn=right["P"], fp=wrong["N"], tn=n_n - wrong["N"])
    forced_n = Confusion(tp=n_p - wrong["P"], fn=wrong["P"], fp=right["N"], tn=n_n - right["N"])
    return forced_p, forced_n


def count_kinds(y_true: Iterable[Any], system_forced_p: Iterable[Any],
                system_forced_n: Iterable[Any] | None = None, positive: Any = 1, *,
                labels: Any = None) -> Any:
    """Count the instance kinds from the system's predictions with the slot forced to P and N.

    For K labels give ``labels=`` and, instead of the two forced predictions, the outputs
    ``outputs[i][j]`` (label indices) with the slot forced to each label ``j``:
    ``count_kinds(true, outputs, labels=[...])`` returns a
    :class:`~causalcost.pricing.responses.Kinds` of response vectors (whose K = 2 view,
    :meth:`~causalcost.pricing.responses.Kinds.binary_frame`, is this frame).

    Parameters
    ----------
    y_true : sequence
        The true class of each instance.
    system_forced_p, system_forced_n : sequence
        The system's prediction on each instance with the slot forced to P / to N.
    positive : label, default 1
        The positive label; every other label is the negative class (one at most).

    Returns
    -------
    DataFrame
        Index ``"P"``, ``"N"`` (name ``class``); integer columns
        ``never, wrong_only, always, right_only``.

    Examples
    --------
    Four positives (the slot forced to P is right on them) and two negatives:

    >>> kinds = count_kinds([1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 1], [1, 0, 0, 1, 0, 0])
    >>> kinds.loc["P"].tolist(), kinds.loc["N"].tolist()  # never, wrong_only, always, right_only
    ([1, 1, 1, 1], [1, 1, 0, 0])
    """
    if labels is not None:
        from causalcost.pricing.responses import count_response_kinds

        if system_forced_n is not None:
            raise InputTypeError("with labels= give count_kinds(true, outputs, labels=...): "
                                 "outputs[i][j] is the output with the slot forced to label j")
        return count_response_kinds(y_true, system_forced_p, labels=labels)  # type: ignore
    if system_forced_n is None:
        raise InputTypeError("count_kinds needs system_forced_p and system_forced_n (or, for K "
                             "labels, the outputs per forced label and labels=)")
    try:
        y = np.asarray(list(y_true))
        s_p = np.asarray(list(system_forced_p))
        s_n = np.asarray(list(system_forced_n))
        labels = set(np.unique(np.concatenate([y, s_p, s_n])).tolist()) - {positive}
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"y_true and the forced predictions must be sequences of hashable, "
                             f"comparable labels ({exc})") from None
    if y.ndim != 1 or y.shape != s_p.shape or y.shape != s_n.shape:
        raise ValidationError(f"y_true, system_forced_p and system_forced_n must be flat and of "
                              f"the same length, got shapes {y.shape}, {s_p.shape}, {s_n.shape}")
    if len(labels) > 1:
        raise ValidationError(f"binary labels expected: besides the positive {positive!r} found "
                              f"{sorted(map(str, labels))}")
    is_pos, says_p, says_n = y == positive, s_p == positive, s_n == positive
    # per instance: fails with the slot forced to the right class, to the wrong class
    fails_right = np.where(is_pos, ~says_p, says_n)
    fails_wrong = np.where(is_pos, ~says_n, says_p)
    kind = np.select([~fails_right & ~fails_wrong, ~fails_right & fails_wrong,
                      fails_right & fails_wrong], [0, 1, 2], default=3)
    rows = [np.bincount(kind[mask], minlength=4) for mask in (is_pos, ~is_pos)]
    frame = pd.DataFrame(np.array(rows, dtype=np.int64), index=pd.Index(list(CLASSES),
                         name="class"), columns=list(KINDS))
    return frame


# ------------------------------------------------------------------------ closed forms
def _kind_extremes(counts: Any, hits: Any, minimum: Callable = min,
                   maximum: Callable = max) -> tuple[Any, Any]:
    """Worst and best errors of one class from its kind counts and the candidate's hits.

    ``counts`` is ``(never, wrong_only, always, right_only)``; pass ``np.minimum`` and
    ``np.maximum`` to broadcast over arrays. Assumes validated arguments.
    """
    a, b, d, e = counts
    worst = d + b + minimum(hits, e) - maximum(0, hits - e - a - d)
    best = d + b - minimum(hits, b) + maximum(0, hits - b - a - d)
    return worst, best


def _kind_witness(counts: KindCounts, hits: int, worst: bool) -> ClassWitness:
    """The placement attaining the worst (or best) case: hits onto the kinds in order."""
    a, b, d, e = counts
    sizes = {"never": a, "wrong_only": b, "always": d, "right_only": e}
    order = ("right_only", "never", "always", "wrong_only") if worst else (
        "wrong_only", "never", "always", "right_only")
    placed, left = {}, hits
    for kind in order:
        placed[kind] = min(left, sizes[kind])
        left -= placed[kind]
    return ClassWitness(**{k: (placed[k], sizes[k] - placed[k]) for k in KINDS})


def _check_sizes(counts: dict[str, KindCounts], model: Confusion) -> None:
    """The kinds must count the candidate's own instances."""
    n_p, n_n = sum(counts["P"]), sum(counts["N"])
    if (n_p, n_n) != (model.positives, model.negatives):
        raise InfeasibleInputError(
            f"the kinds count {n_p} positives and {n_n} negatives (the sums of rows 'P' and "
            f"'N') but the model has {_fmt(model.positives)} positives and "
            f"{_fmt(model.negatives)} negatives: count the kinds on the candidate's own "
            "instances, the ones its confusion was counted on")
