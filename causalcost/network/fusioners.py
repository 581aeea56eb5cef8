"""Fusioners: deterministic rules that merge the models' predictions into the system's.

Each rule is a :class:`Fusioner`: a name and a function from the tuple of model votes
(``True`` = the model predicts positive, in input order) to the system's vote. The builder
turns it into a deterministic CPD (a 0/1 table over every combination of inputs).

Ties in ``majority`` with an even number of models go to ``tie`` ("negative" by default,
the conservative choice for screening systems where a positive triggers action).
``k_of_n(k)`` predicts positive when at least ``k`` models do; ``weighted(weights, threshold)``
when the weights of the positive voters add up to at least ``threshold``. The comparison is
exact: each weight and the threshold are the rationals their decimal text says (a float's text
is its shortest ``repr``), so weights such as 0.1 + 0.2 reach a threshold of 0.3, ``1e-13``
three times stays below ``4e-13``, and ``1e20 + 1`` reaches ``100000000000000000001`` (see
:mod:`causalcost.network.exact_votes`).

AND, OR, majority, k-of-n and weighted votes with non-negative weights are monotone in every
input (the worst case needs that); a user function need not be, and
:func:`causalcost.check_monotonicity` will say so.

:func:`decision_table` lists the rule's output at every combination of votes, the fusioner's
CPD. For a vote it is computed with numpy from the weights and the threshold (never by calling
the rule ``2**k`` times); a user function is called once per combination, so it is refused
beyond :data:`MAX_FUNCTION_INPUTS` models.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from causalcost.errors import ValidationError
from causalcost.network.exact_votes import (
    exact_number,
    integer_vote,
    number_text,
    vote_sums,
    weights_by_input,
)

__all__ = ["Fusioner", "make_fusioner", "decision_table", "RULES", "MAX_FUNCTION_INPUTS"]

Vote = tuple[bool, ...]

#: Rule names accepted by :func:`make_fusioner` (and by network files).
RULES = ("and", "or", "majority", "k_of_n", "weighted", "function")
#: Most models a user ``function`` rule may read: its table calls it ``2**k`` times in Python.
MAX_FUNCTION_INPUTS = 20
#: Kept for compatibility: weighted votes are now compared exactly (no tolerance is applied).
TOLERANCE = 0.0


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
        The vote form of the rule (``None`` for a user function), as floats for display.
    exact_weights, exact_threshold : tuple of Fraction and Fraction, or None
        The same, exactly: the rationals the decisions are computed from (derived from the
        floats' decimal text when not given).

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
    exact_weights: tuple[Fraction, ...] | None = field(default=None, repr=False)
    exact_threshold: Fraction | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.weights is not None and self.exact_weights is None:
            object.__setattr__(self, "exact_weights", tuple(
                exact_number(w, f"weight of {m!r}") for m, w in zip(self.inputs, self.weights)))
        if self.threshold is not None and self.exact_threshold is None:
            object.__setattr__(self, "exact_threshold", exact_number(self.threshold,
                                                                     "threshold"))

    def integer_vote(self) -> tuple[list[int], int]:
        """Integer weights and bar with the same decisions as the vote (exact; see
        :func:`~causalcost.network.exact_votes.integer_vote`).

        Examples
        --------
        >>> make_fusioner("weighted", ["a", "b"], weights=[0.1, 0.2], threshold=0.3).integer_vote()
        ([1, 2], 3)
        """
        if not self.is_vote:
            raise ValidationError(f"{self!r} has no vote form")
        return integer_vote(self.exact_weights or (), self.exact_threshold)  # type: ignore

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
    tie: str | None = None,
    function: Callable[..., bool] | None = None,
) -> Fusioner:
    """Build a fusioner for the models ``inputs``.

    Parameters
    ----------
    rule : {"and", "or", "majority", "k_of_n", "weighted", "function"}
    inputs : sequence of str
        Model names (distinct) in the order votes are passed.
    k : int, optional
        For ``k_of_n`` only: positive when at least ``k`` models vote positive (1 <= k <= n).
    weights, threshold : optional
        For ``weighted`` only: one weight per input (a mapping by name or a sequence);
        positive when the weights of positive voters sum to at least ``threshold``.
    tie : {"negative", "positive"}, optional
        For ``majority`` only: the output on a tie with an even number of inputs (default
        ``"negative"``).
    function : callable, optional
        For ``function`` only: called with **one keyword argument per model**, each a bool
        (``function(images=True, history=False)``), returns the system's vote. A function
        taking one tuple of votes does not fit: write ``lambda images, history: ...``.

    Raises
    ------
    ValidationError
        An unknown rule, duplicate inputs, an option the rule does not take (``k`` for
        ``and``), or a function whose parameters are not the models' names.

    Examples
    --------
    >>> f = make_fusioner("majority", ["a", "b", "c", "d"], tie="positive")
    >>> f((True, True, False, False)), f((True, False, False, False))
    (True, False)
    >>> make_fusioner("k_of_n", ["a", "b", "c"], k=2)((True, False, True))
    True
    >>> make_fusioner("function", ["a", "b"], function=lambda a, b: a and not b)((True, False))
    True
    """
    if rule not in RULES:
        raise ValidationError(f"fusioner rule ({rule!r}) must be one of {', '.join(RULES)}")
    names = tuple(str(m) for m in inputs)
    n = len(names)
    if n == 0:
        raise ValidationError("a fusioner needs at least one input model")
    repeated = sorted({m for m in names if names.count(m) > 1})
    if repeated:
        raise ValidationError(f"fusioner inputs name {repeated} more than once; list each model "
                              "once")
    _only_for(rule, k=k, weights=weights, threshold=threshold, tie=tie, function=function)
    ones = (1.0,) * n

    def vote(decide: Callable[[Vote], bool], description: str, threshold: float,
             weights: tuple[float, ...] = ones) -> Fusioner:
        return Fusioner(rule, decide, description, names, weights, float(threshold))

    if rule == "and":
        return vote(all, "AND: positive when every model says positive", n)
    if rule == "or":
        return vote(any, "OR: positive when any model says positive", 1)
    if rule == "majority":
        tie = "negative" if tie is None else tie
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
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
            raise ValidationError(f"k_of_n needs an integer k with 1 <= k <= {n}, got k={k!r}")
        need_k = int(k)
        return vote(lambda votes: sum(votes) >= need_k, f"{need_k} of {n}", need_k)
    if rule == "weighted":
        w = _weights(weights, names)
        if threshold is None:
            raise ValidationError("weighted vote needs a finite threshold, got None")
        try:
            t = exact_number(threshold, "threshold")
        except ValidationError:
            shown = repr(threshold) if len(repr(threshold)) <= 48 else repr(threshold)[:45] + "..."
            raise ValidationError(
                f"weighted vote needs a finite threshold, got {shown}: threshold must be a "
                "finite number within the range of a double (|x| <= 1.8e308)") from None
        scaled, need = integer_vote(w, t)

        def weighted(votes: Vote) -> bool:
            return sum(wi for wi, v in zip(scaled, votes) if v) >= need

        shown = "{" + ", ".join(f"{m!r}: {number_text(wi)}" for m, wi in zip(names, w)) + "}"
        return Fusioner(rule, weighted, f"weighted vote {shown} >= {number_text(t)}", names,
                        tuple(float(wi) for wi in w), float(t), tuple(w), t)
    if function is None or not callable(function):
        raise ValidationError("rule 'function' needs a callable function=...")
    label = getattr(function, "__name__", "function")
    _check_signature(function, names, label)

    def user(votes: Vote) -> bool:
        arguments = dict(zip(names, votes))
        try:
            result = function(**arguments)
        except Exception as exc:  # the user's code: say how it was called
            raise ValidationError(
                f"fusioner function {label} failed with {type(exc).__name__}: {exc}. It is "
                f"called with one keyword argument per model: {_call_text(label, arguments)}"
            ) from exc
        if isinstance(result, np.bool_):
            result = bool(result)
        if not isinstance(result, (bool, int)) or result not in (0, 1):
            raise ValidationError(
                f"fusioner function must return True or False, got {result!r} for "
                f"{_call_text(label, arguments)}"
            )
        return bool(result)

    return Fusioner(rule, user, f"user function {label}", names)


def decision_table(fusioner: Fusioner) -> np.ndarray:
    """The rule's output at every combination of votes: a bool array of length ``2**k``.

    Combinations follow ``itertools.product((True, False), repeat=k)`` (the first input
    slowest, positive first): the column order of the fusioner's CPD. A vote is computed
    with numpy from its weights and threshold; a user function is called once per
    combination, and refused beyond :data:`MAX_FUNCTION_INPUTS` inputs.

    Raises
    ------
    ValidationError
        A user function over more than :data:`MAX_FUNCTION_INPUTS` models (the message
        says how many calls it would take and suggests a vote rule).

    Examples
    --------
    >>> decision_table(make_fusioner("and", ["a", "b"])).tolist()
    [True, False, False, False]
    >>> decision_table(make_fusioner("weighted", ["a", "b"], weights=[2, 1], threshold=2))
    array([ True,  True, False, False])
    """
    k = len(fusioner.inputs)
    if not fusioner.is_vote:
        if k > MAX_FUNCTION_INPUTS:
            raise ValidationError(
                f"a function fusioner over {k} models would be called 2**{k} = {2 ** k:,} times "
                f"to tabulate it (at most {MAX_FUNCTION_INPUTS} models, 2**"
                f"{MAX_FUNCTION_INPUTS} calls); declare the rule as a vote (and, or, majority, "
                "k_of_n, or weighted with weights and a threshold), which is tabulated without "
                "calling Python per combination and can be divorced into count nodes"
            )
        out = np.fromiter((fusioner(v) for v in itertools.product((True, False), repeat=k)),
                          dtype=bool, count=2**k)
        return out
    index = np.arange(2**k, dtype=np.int64)
    scaled, need = fusioner.integer_vote()
    says_positive = [((index >> (k - 1 - i)) & 1) == 0 for i in range(k)]
    return np.asarray(vote_sums(scaled, says_positive) >= need, dtype=bool)


_OPTIONS = {"k": "k_of_n", "weights": "weighted", "threshold": "weighted", "tie": "majority",
            "function": "function"}


def _only_for(rule: str, **given: object) -> None:
    """Refuse an option the rule does not read (``k`` for ``and`` would be silently ignored)."""
    extra = [key for key, value in given.items() if value is not None and _OPTIONS[key] != rule]
    if extra:
        uses = "; ".join(f"{key} is for rule {_OPTIONS[key]!r}" for key in extra)
        raise ValidationError(
            f"fusioner rule {rule!r} does not take {', '.join(extra)} ({uses}); remove "
            f"{'it' if len(extra) == 1 else 'them'} or change the rule"
        )


def _call_text(label: str, arguments: Mapping[str, bool]) -> str:
    shown = list(arguments.items())
    text = ", ".join(f"{m}={v}" for m, v in shown[:4]) + (", ..." if len(shown) > 4 else "")
    return f"{label}({text})"


def _check_signature(function: Callable[..., bool], names: tuple[str, ...], label: str) -> None:
    """Refuse early a function that cannot take one keyword argument per model."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # builtins without a signature: checked when called
        return
    example = dict(zip(names, itertools.cycle((True, False))))
    try:
        signature.bind(**example)
    except TypeError as exc:
        raise ValidationError(
            f"fusioner function {label}{signature} cannot be called with one keyword argument "
            f"per model, as it is: {_call_text(label, example)} ({exc}); name its parameters "
            f"after the models, e.g. lambda {', '.join(names[:3])}"
            f"{', ...' if len(names) > 3 else ''}: ..."
        ) from None


def _weights(
    weights: Mapping[str, float] | Sequence[float] | None, inputs: Sequence[str]
) -> list[Fraction]:
    return [exact_number(v, f"weight of {m!r}") for m, v in weights_by_input(weights, inputs)]
