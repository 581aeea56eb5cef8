"""Argument types of the ``causalcost`` command: counts, seeds, levels, finite numbers.

Each type turns one command-line word into a value or raises
:class:`argparse.ArgumentTypeError`, which the parser prints as one line. Messages quote the
word, shortened when it is very long (a 400-digit number stays one readable line).
"""

from __future__ import annotations

import argparse
import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

__all__ = ["MAX_COUNT", "count", "exact_number", "exact_numbers", "finite_number",
           "finite_numbers", "name", "output_file", "probability", "sample_count", "seed",
           "shorten"]

#: The largest count a float64 holds exactly (``2**53``); sampling refuses more.
MAX_COUNT = 2**53
_LONG = 60


def shorten(text: str, limit: int = 200) -> str:
    """``text`` with every word longer than ``limit`` characters cut, saying how long it was.

    The limit is above any sensible path, so that file names in messages stay whole.

    Examples
    --------
    >>> shorten("seed " + "9" * 400)
    'seed 999999999999999999999999999999...(400 characters)'
    >>> shorten("a short message")
    'a short message'
    """
    return re.sub(rf"\S{{{limit + 1},}}", lambda m: f"{m[0][:30]}...({len(m[0])} characters)",
                  text)


def _quoted(text: str) -> str:
    if len(text) > _LONG:
        return f"'{text[:30]}...' ({len(text)} characters)"
    return repr(text)


def count(text: str) -> int:
    """A whole number of instances: ``100000``, ``1e5`` or ``1_000_000``; not ``1.5`` or ``-3``.

    Read exactly (no float rounding), so ``1e5`` is 100000 and ``1.5e0`` is refused.

    Examples
    --------
    >>> count("1e5"), count("1_000_000"), count("2.5e1")
    (100000, 1000000, 25)
    >>> count("1.5e0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1.5e0' is not a whole number: give a count like 100000 or 1e5
    """
    try:
        value = Decimal(text.strip().replace("_", ""))
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(f"{_quoted(text)} is not a number") from None
    if not value.is_finite() or not value.adjusted() < 40:  # adjusted(): the decimal exponent
        raise argparse.ArgumentTypeError(
            f"{_quoted(text)} must be a whole number between 1 and 2**53 ({MAX_COUNT})")
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(
            f"{_quoted(text)} is not a whole number: give a count like 100000 or 1e5")
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(
            f"{_quoted(text)} must be a whole number between 1 and 2**53 ({MAX_COUNT})")
    return int(value)


def sample_count(text: str) -> int:
    """A number of simulated instances: a :func:`count` up to the sampler's ceiling, ``10**9``
    (:data:`~causalcost.inference.sampling.MAX_SAMPLES`: about two minutes per slot).

    Examples
    --------
    >>> sample_count("1e9")
    1000000000
    >>> sample_count("1e10")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1e10' exceeds the ceiling of 1000000000 (10**9 simulated \
instances, about two minutes per slot on a small network; more would run for tens of minutes to \
hours): use fewer samples, or --method exact for exact rates
    """
    from causalcost.inference.sampling import MAX_SAMPLES, sample_ceiling_message

    try:
        big = Decimal(text.strip().replace("_", "")) > MAX_SAMPLES
    except (InvalidOperation, ValueError):
        big = False  # count() says what is wrong
    if big:  # 1e10, 1e400, inf: the ceiling, not the counts' own limit, is what binds
        raise argparse.ArgumentTypeError(sample_ceiling_message(None, _quoted(text)))
    return count(text)


def seed(text: str) -> int:
    """A random seed: an integer from 0 to ``2**63 - 1``.

    Examples
    --------
    >>> seed("42")
    42
    >>> seed("-1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: seed '-1' must lie between 0 and 2**63 - 1
    """
    stripped = text.strip().replace("_", "")
    if not re.fullmatch(r"[+-]?\d+", stripped):
        raise argparse.ArgumentTypeError(f"{_quoted(text)} is not an integer")
    if len(stripped.lstrip("+-").lstrip("0")) > 19 or not 0 <= int(stripped) < 2**63:
        raise argparse.ArgumentTypeError(f"seed {_quoted(text)} must lie between 0 and "
                                         "2**63 - 1")
    return int(stripped)


def probability(text: str) -> float:
    """A level strictly between 0 and 1, e.g. ``0.95``.

    Examples
    --------
    >>> probability("0.95")
    0.95
    >>> probability("1e309")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1e309' must lie strictly between 0 and 1
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_quoted(text)} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{_quoted(text)} must lie strictly between 0 and 1")
    return value


def finite_number(text: str) -> float:
    """A finite number: not ``nan``, ``inf`` or beyond float64's range (``1e309``).

    Examples
    --------
    >>> finite_number("0.5")
    0.5
    >>> finite_number("1e309")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1e309' is not a finite number
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_quoted(text)} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{_quoted(text)} is not a finite number")
    return value


def finite_numbers(text: str) -> list[float]:
    """Comma-separated finite numbers, e.g. weights ``1,2,1``.

    Examples
    --------
    >>> finite_numbers("1,2.5,1")
    [1.0, 2.5, 1.0]
    >>> finite_numbers("1,nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1,nan': 'nan' is not a finite number
    """
    try:
        return [finite_number(part) for part in text.split(",")]
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{_quoted(text)}: {exc}") from None


def score_range(text: str) -> tuple[float, float]:
    """``LOW,HIGH``: the scores a score rule takes (``inf`` for an open end).

    Examples
    --------
    >>> score_range("-10,10"), score_range("-inf,inf")
    ((-10.0, 10.0), (-inf, inf))
    >>> score_range("1,0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1,0': LOW must be below HIGH
    """
    parts = text.split(",")
    try:
        low, high = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_quoted(text)} is not LOW,HIGH (two numbers, e.g. "
                                         "0,1 or -inf,inf)") from None
    if math.isnan(low) or math.isnan(high) or not low < high:
        raise argparse.ArgumentTypeError(f"{_quoted(text)}: LOW must be below HIGH")
    return low, high


def exact_number(text: str) -> Fraction:
    """A finite number kept exact as the rational its decimal text says (a vote's weight or
    threshold: ``0.1`` is ``1/10``, ``100000000000000000001`` is not rounded to ``1e20``).

    Examples
    --------
    >>> exact_number("0.1"), exact_number("100000000000000000001")
    (Fraction(1, 10), Fraction(100000000000000000001, 1))
    >>> exact_number("inf")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'inf' is not a finite number
    """
    finite_number(text)  # the same refusals: not a number, nan, inf, beyond float64's range
    return Fraction(Decimal(text.strip()))


def exact_numbers(text: str) -> list[Fraction]:
    """Comma-separated finite numbers kept exact, e.g. weights ``1e20,1,1``.

    Examples
    --------
    >>> exact_numbers("0.1,0.2")
    [Fraction(1, 10), Fraction(1, 5)]
    """
    try:
        return [exact_number(part) for part in text.split(",")]
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{_quoted(text)}: {exc}") from None


def name(text: str) -> str:
    """A node, state or model name: not empty (``--slot ""`` is a mistake, not the default).

    Examples
    --------
    >>> name("clinical_history")
    'clinical_history'
    >>> name(" ")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: an empty name; give one, or leave the option out for its default
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name; give one, or leave the option out for "
                                         "its default")
    return text


def output_file(text: str) -> str:
    """A path the command may write: a regular file or a new name in an existing folder.

    Checked when the command line is read, before any work: a device (``/dev/null``), a named
    pipe, a socket or a folder is refused (an atomic write would replace it with a regular
    file), and so is a symbolic link to one of them or to nothing; a link to a regular file is
    written through (:func:`causalcost.files.output_target`).

    Examples
    --------
    >>> output_file("sheet.json")
    'sheet.json'
    >>> try:
    ...     output_file("/dev/null")
    ... except argparse.ArgumentTypeError as exc:
    ...     print(str(exc).split(";")[0])
    '/dev/null' is a character device, not a regular file
    """
    from causalcost.files import FileError, output_target

    try:
        output_target(text, flag="")
    except FileError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text
