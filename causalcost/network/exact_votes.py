"""Exact weighted votes: weights and thresholds as rationals, decisions in integer arithmetic.

A weighted vote is positive when ``sum(w_i v_i) >= t``. Compared in floats, ``0.1 + 0.2``
misses ``0.3`` and ``1e20 + 1`` rounds to ``1e20``; a tolerance then either flips tiny weights
(``1e-13`` each against ``2e-13``) or misses huge ones. Here every number is the rational its
decimal text says (a Python float's text is its shortest ``repr``: ``0.1`` is ``1/10``), and
the vote is scaled to integers once (:func:`integer_vote`): ``sum(W_i v_i) >= need`` with
``W_i = w_i D / g`` over the common denominator ``D`` and the weights' common divisor ``g``.
Python integers are exact at any size; :func:`vote_sums` adds them in ``int64`` when the sums
fit and in Python integers otherwise, so a decision never depends on rounding.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import numpy as np

from causalcost.errors import ValidationError

__all__ = ["exact_number", "number_text", "integer_vote", "vote_sums", "INT64_LIMIT"]

#: Sums whose magnitude stays below this are added in ``int64``; larger ones in Python ints.
INT64_LIMIT = 2**62
_FLOAT_MAX = Fraction(sys.float_info.max)


def exact_number(value: Any, field: str) -> Fraction:
    """The rational that a weight or threshold's decimal text stands for.

    Integers and fractions are taken as they are, a :class:`~decimal.Decimal` or a string
    such as ``"0.1"`` or ``"1e-13"`` as the decimal it writes, and a float as its shortest
    decimal text (``0.1`` is ``1/10``, not the binary double nearest to it).

    Raises
    ------
    ValidationError
        Not a number, not finite, or beyond the range of a double (the vote's ``weights`` and
        ``threshold`` are also kept as floats): the message names ``field``.

    Examples
    --------
    >>> exact_number(0.1, "threshold"), exact_number("1e-13", "weights[0]")
    (Fraction(1, 10), Fraction(1, 10000000000000))
    >>> exact_number(10**400, "threshold")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    causalcost.errors.ValidationError: threshold must be a finite number within the range of ...
    """
    shown = _short(value)
    if isinstance(value, (bool, np.bool_)):
        raise ValidationError(f"{field} must be a number, got {shown}")
    try:
        if isinstance(value, Fraction):
            exact = value
        elif isinstance(value, (int, np.integer)):
            exact = Fraction(int(value))
        elif isinstance(value, (float, np.floating)):
            number = float(value)
            if not math.isfinite(number):
                raise ValueError
            exact = Fraction(repr(number))
        elif isinstance(value, Decimal):
            if not value.is_finite():
                raise ValueError
            exact = Fraction(value)
        elif isinstance(value, str):
            exact = Fraction(Decimal(value.strip())) if "/" not in value else Fraction(value)
        else:
            raise TypeError
    except (TypeError, ValueError, InvalidOperation, ZeroDivisionError, OverflowError):
        raise ValidationError(f"{field} must be a finite number, got {shown}") from None
    if abs(exact) > _FLOAT_MAX:
        raise ValidationError(f"{field} must be a finite number within the range of a double "
                              f"(|x| <= 1.8e308), got {shown}")
    return exact


def number_text(value: Fraction) -> str:
    """``value`` as written: an integer, the shortest decimal of a double, or ``p/q``.

    Examples
    --------
    >>> number_text(Fraction(2)), number_text(Fraction(3, 10)), number_text(Fraction(1, 3))
    ('2', '0.3', '1/3')
    >>> number_text(Fraction(100000000000000000001))
    '100000000000000000001'
    """
    if value.denominator == 1:
        return str(value.numerator)
    text = repr(float(value))
    if Fraction(text) == value:
        return text
    decimal = _decimal_text(value)
    return decimal if decimal is not None else f"{value.numerator}/{value.denominator}"


def _decimal_text(value: Fraction) -> str | None:
    """The finite decimal expansion of ``value`` when its denominator is ``2^a 5^b``."""
    d = value.denominator
    twos = fives = 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return None
    digits = max(twos, fives)
    scaled = abs(value.numerator) * 10**digits // value.denominator
    whole, frac = divmod(scaled, 10**digits)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{str(frac).rjust(digits, '0').rstrip('0')}"


def integer_vote(weights: Sequence[Fraction], threshold: Fraction) -> tuple[list[int], int]:
    """Integer weights ``W`` and an integer ``need`` with the same decision for every vote:
    ``sum(w_i v_i) >= t``  exactly when  ``sum(W_i v_i) >= need``.

    Examples
    --------
    >>> integer_vote([Fraction(1, 10), Fraction(2, 10)], Fraction(3, 10))
    ([1, 2], 3)
    >>> integer_vote([Fraction(10**20), Fraction(1), Fraction(1)], Fraction(10**20 + 1))
    ([100000000000000000000, 1, 1], 100000000000000000001)
    >>> integer_vote([Fraction(2), Fraction(4)], Fraction(3))  # sums are even: >= 3 is >= 4
    ([1, 2], 2)
    """
    denominator = math.lcm(*(w.denominator for w in weights), threshold.denominator)
    scaled = [int(w * denominator) for w in weights]
    bar = threshold * denominator
    divisor = math.gcd(*scaled) or 1
    return [w // divisor for w in scaled], math.ceil(bar / divisor)


def vote_sums(weights: Sequence[int], votes: Sequence[np.ndarray], constant: int = 0
              ) -> np.ndarray:
    """``constant + sum_i weights[i] * votes[i]`` for every row, exactly: ``int64`` when every
    partial sum fits, Python integers (an object array) otherwise.

    Examples
    --------
    >>> vote_sums([2, 1], [np.array([True, False]), np.array([True, True])]).tolist()
    [3, 1]
    >>> vote_sums([10**20, 1], [np.array([True]), np.array([True])])[0]
    100000000000000000001
    """
    n = len(votes[0]) if len(votes) else 0
    big = abs(constant) + sum(abs(w) for w in weights) >= INT64_LIMIT
    dtype: Any = object if big else np.int64
    total = np.full(n, constant, dtype=dtype)
    for w, v in zip(weights, votes):
        if w:
            total = total + np.asarray(v, dtype=bool).astype(dtype) * w
    return total


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 48 else text[:45] + "..."


def weights_by_input(weights: Mapping[str, Any] | Sequence[Any] | None,
                     inputs: Sequence[str]) -> list[tuple[str, Any]]:
    """``(model, weight)`` pairs in input order from a mapping or a sequence (checked)."""
    if weights is None:
        raise ValidationError("weighted vote needs weights=... (one per model)")
    if isinstance(weights, Mapping):
        unknown = sorted(map(str, set(weights) - set(inputs)))
        missing = [m for m in inputs if m not in weights]
        if unknown or missing:
            raise ValidationError(
                f"weights must name exactly the models {list(inputs)}"
                + (f"; unknown {unknown}" if unknown else "")
                + (f"; missing {missing}" if missing else "")
            )
        return [(m, weights[m]) for m in inputs]
    if isinstance(weights, (str, bytes)) or not isinstance(weights, (Sequence, np.ndarray)):
        raise ValidationError(
            f"weights must be one number per model (a list, or a mapping by model name), got "
            f"{weights!r}"
        )
    values = list(weights)
    if len(values) != len(inputs):
        raise ValidationError(f"weights needs {len(inputs)} values, got {len(values)}")
    return list(zip(inputs, values))
