"""Exceptions raised by causalcost.

Every error a user can cause derives from :class:`CausalCostError`, so callers can catch
ours in one place; each also derives from the built-in it refines (``ValueError``,
``KeyError``) so generic handlers keep working. Messages name the offending field and say
how to fix it.
"""

from __future__ import annotations

__all__ = [
    "CausalCostError",
    "ValidationError",
    "CountError",
    "CostMatrixError",
    "CPDError",
    "NetworkStructureError",
    "UnknownNameError",
    "NetworkFileError",
    "MonotonicityError",
    "InfeasibleInputError",
    "SheetError",
    "InputTypeError",
    "OverflowInputError",
]


class CausalCostError(Exception):
    """Base class of every error raised by causalcost."""


class ValidationError(CausalCostError, ValueError):
    """A value passed to a public function is not acceptable."""


class CountError(ValidationError):
    """Confusion counts that are negative, infinite, NaN or not integers where required."""


class CostMatrixError(ValidationError):
    """A cost matrix where a hit costs more than a mistake, or a non-finite cost."""


class CPDError(ValidationError):
    """A conditional probability table that is unnormalised, negative or mis-shaped."""


class NetworkStructureError(ValidationError):
    """A network whose graph or roles do not have the shape causalcost needs."""


class UnknownNameError(ValidationError, KeyError):
    """A node or state name that the network does not have; the message lists valid ones."""

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return str(self.args[0]) if self.args else ""


class NetworkFileError(ValidationError):
    """A network file with unknown keys, wrong types or bad probabilities."""


class MonotonicityError(ValidationError):
    """The monotone worst case was asked of a system that is not monotone in the slot."""


class InfeasibleInputError(ValidationError):
    """Inputs to a bound that no system satisfying the specification could produce."""


class SheetError(ValidationError):
    """A cost sheet of another version, with missing fields or inconsistent content."""


class InputTypeError(CausalCostError, TypeError):
    """A value of the wrong type passed to a public function (a string where a count goes)."""


class OverflowInputError(ValidationError):
    """Inputs whose results do not fit in float64 (an infinite or NaN cost); rescale them."""


class DataError(CausalCostError, ValueError):
    """A data set that cannot be counted: a missing or unreadable file, a missing column, or a
    column that is not binary labels (a third label, nulls, fractional values)."""


__all__ += ["DataError"]


class CausalCostWarning(UserWarning):
    """Something causalcost did that the caller may not have meant (a default filled in, an
    assumption recorded without evidence); the result is still correct for what was asked."""


__all__ += ["CausalCostWarning"]


class NoDataWarning(CausalCostWarning):
    """A probability estimated from data had no rows to learn from (a class absent from the
    data): it is the estimator's prior (or pgmpy's uniform fill) alone, not a measurement."""


__all__ += ["NoDataWarning"]


class NotBinaryError(CausalCostError, AttributeError):
    """A binary name (``tp``, ``positives``, ...) asked of a matrix over more than two labels;
    the message names the general call to use (an ``AttributeError``, so ``hasattr`` is
    ``False``)."""


__all__ += ["NotBinaryError"]


class ScoreValueError(DataError, ValidationError):
    """A score that is not a number, missing (NaN, null), infinite or outside the rule's score
    range (:mod:`causalcost.score_values`, the one reader of scores); the message names the
    scores and the first such row. Both a :class:`DataError` and a :class:`ValidationError`,
    as the entries that read scores raised one or the other before there was one reader."""


__all__ += ["ScoreValueError"]


class EnsembleMismatchError(CausalCostError, RuntimeError):
    """The critical scores (or offset vectors) disagree with a scikit-learn ensemble's own
    ``predict`` on a row: a defect of causalcost (please report it with the ensemble), never a
    result to use."""


__all__ += ["EnsembleMismatchError"]
