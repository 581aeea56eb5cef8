"""Fusioners: deterministic rules that merge the models' predictions into the system's.

Each rule is a :class:`Fusioner`: a name and a function from the tuple of model votes
(``True`` = the model predicts positive, in input order) to the system's vote. The builder
turns it into a deterministic CPD (a 0/1 table over every combination of inputs).

Ties in ``majority`` with an even number of models go to ``tie`` ("negative" by default,
the conservative choice for screening systems where a positive triggers action).
``k_of_n(k)`` predicts positive when at least ``k`` models do; ``weighted(weights, threshold)``
when the weights of the positive voters add up to at least ``threshold`` (compared with a
1e-12 tolerance, so that weights such as 0.1 + 0.2 reach a threshold of 0.3).

AND, OR, majority, k-of-n and weighted votes with non-negative weights are monotone in every
input (the worst case needs that); a user function need not be, and
:func:`causalcost.check_monotonicity` will say so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from causalcost.errors import ValidationError

__all__ = ["Fusioner", "make_fusioner", "RULES"]

Vote = tuple[bool, ...]

#: Rule names accepted by :func:`make_fusioner` (and by network files).
RULES = ("and", "or", "majority", "k_of_n", "weighted", "function")


@dataclass(frozen=True)
class Fusioner:
    """A named deterministic rule over the models' votes.

    Vote rules (``and``, ``or``, ``majority``, ``k_of_n``, ``weighted``) are also described by
    numbers: positive when ``sum(weights[i] * vote[i]) >= threshold``. That form is what
    lets the same rule act on data frames, be divorced into a chain of count nodes, and be
    known monotone without enumeration (``weights`` all non-negative). A user ``function``
    rule has ``weights = threshold = None``.

    Attributes
    ----------
    rule : str
        One of :data:`RULES`.
    decide : callable
        From the tuple of votes (in ``inputs`` order) to the system's vote.
    description : str
        The rule in words.
    inputs : tuple of str
        The models, in the order votes are passed.
    weights, threshold : tuple of float and float, or None
        The vote form of the rule (``None`` for a user function).

    Examples
    --------
    >>> f = make_fusioner("or", ["images", "history"])
    >>> f((False, True)), f
    (True, Fusioner(OR: positive when any model says positive))
    >>> f.weights, f.threshold, f.is_vote, f.monotone
    ((1.0, 1.0), 1.0, True, True)
    """

    rule: str
    decide: Callable[[Vote], bool]
    description: str
    inputs: tuple[str, ...] = ()
    weights: tuple[float, ...] | None = None
    threshold: float | None = None

    def __call__(self, votes: Vote) -> bool:
        return bool(self.decide(votes))

    def __repr__(self) -> str:
        return f"Fusioner({self.description})"

    @property
    def is_vote(self) -> bool:
        """Whether the rule is a weighted vote against a threshold (every rule but ``function``)."""
        return self.weights is not None and self.threshold is not None

    @property
    def monotone(self) -> bool | None:
        """``True`` for a vote with non-negative weights (monotone by construction), ``False``
        for a vote with a negative weight, ``None`` (unknown: check it) for a user function."""
        if not self.is_vote:
            return None
        return all(w >= 0 for w in self.weights or ())


def make_fusioner(
    rule: str,
    inputs: Sequence[str],
    *,
    k: int | None = None,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    threshold: float | None = None,
    tie: str = "negative",
    function: Callable[..., bool] | None = None,
) -> Fusioner:
    """Build a fusioner for the models ``inputs``.

    Parameters
    ----------
    rule : {"and", "or", "majority", "k_of_n", "weighted", "function"}
    inputs : sequence of str
        Model names in the order votes are passed.
    k : int, optional
        For ``k_of_n``: positive when at least ``k`` models vote positive (1 <= k <= n).
    weights, threshold : optional
        For ``weighted``: one weight per input (a mapping by name or a sequence); positive
        when the weights of positive voters sum to at least ``threshold``.
    tie : {"negative", "positive"}
        For ``majority`` with an even number of inputs: the output on a tie.
    function : callable, optional
        For ``function``: called with one bool per input (keyword arguments named after the
        models), returns the system's vote.

    Examples
    --------
    >>> f = make_fusioner("majority", ["a", "b", "c", "d"], tie="positive")
    >>> f((True, True, False, False)), f((True, False, False, False))
    (True, False)
    >>> make_fusioner("k_of_n", ["a", "b", "c"], k=2)((True, False, True))
    True
    """
    n = len(inputs)
    if n == 0:
        raise ValidationError("a fusioner needs at least one input model")
    if rule not in RULES:
        raise ValidationError(f"fusioner rule ({rule!r}) must be one of {', '.join(RULES)}")
    names = tuple(inputs)
    ones = (1.0,) * n

    def vote(decide: Callable[[Vote], bool], description: str, threshold: float,
             weights: tuple[float, ...] = ones) -> Fusioner:
        return Fusioner(rule, decide, description, names, weights, float(threshold))

    if rule == "and":
        return vote(all, "AND: positive when every model says positive", n)
    if rule == "or":
        return vote(any, "OR: positive when any model says positive", 1)
    if rule == "majority":
        if tie not in ("negative", "positive"):
            raise ValidationError(f"tie ({tie!r}) must be 'negative' or 'positive'")
        positive_tie = tie == "positive"

        def majority(votes: Vote) -> bool:
            yes = sum(votes)
            return yes * 2 > n or (yes * 2 == n and positive_tie)

        extra = f", ties go {tie}" if n % 2 == 0 else ""
        need = n // 2 + 1 if n % 2 or not positive_tie else n // 2
        return vote(majority, f"majority of {n}{extra}", need)
    if rule == "k_of_n":
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
            raise ValidationError(f"k_of_n needs an integer k with 1 <= k <= {n}, got k={k!r}")
        return vote(lambda votes: sum(votes) >= k, f"{k} of {n}", k)
    if rule == "weighted":
        w = _weights(weights, inputs)
        if threshold is None or not math.isfinite(float(threshold)):
            raise ValidationError("weighted vote needs a finite threshold")
        t = float(threshold)
        return vote(
            lambda votes: sum(wi for wi, v in zip(w, votes) if v) >= t - 1e-12,
            f"weighted vote {dict(zip(inputs, w))} >= {t:g}",
            t,
            tuple(w),
        )
    if function is None or not callable(function):
        raise ValidationError("rule 'function' needs a callable function=...")

    def user(votes: Vote) -> bool:
        result = function(**dict(zip(names, votes)))
        if not isinstance(result, (bool, int)) or result not in (0, 1):
            raise ValidationError(
                f"fusioner function must return True or False, got {result!r} for {votes}"
            )
        return bool(result)

    label = getattr(function, "__name__", "function")
    return Fusioner(rule, user, f"user function {label}", names)


def _weights(
    weights: Mapping[str, float] | Sequence[float] | None, inputs: Sequence[str]
) -> list[float]:
    if weights is None:
        raise ValidationError("weighted vote needs weights=... (one per model)")
    if isinstance(weights, Mapping):
        unknown = sorted(set(weights) - set(inputs))
        missing = [m for m in inputs if m not in weights]
        if unknown or missing:
            raise ValidationError(
                f"weights must name exactly the models {list(inputs)}"
                + (f"; unknown {unknown}" if unknown else "")
                + (f"; missing {missing}" if missing else "")
            )
        values = [weights[m] for m in inputs]
    else:
        values = list(weights)
        if len(values) != len(inputs):
            raise ValidationError(f"weights needs {len(inputs)} values, got {len(values)}")
    out = []
    for m, v in zip(inputs, values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValidationError(f"weight of {m!r} must be a finite number, got {v!r}")
        out.append(float(v))
    return out
