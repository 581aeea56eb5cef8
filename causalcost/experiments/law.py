"""The law of one instance, as the bounds see it: the slot's correctness and the instance's kind.

Per class, every instance has two features that decide everything in a two-stage experiment:
whether the candidate in the slot gets it right, and its *kind* (``never``, ``wrong_only``,
``always``, ``right_only``: how the system reacts to the slot's vote on it; see
:mod:`causalcost.pricing.bounds`). An :class:`InstanceLaw` holds, per class, the probability of
each of those 2 x 4 cells, and the class prior. Everything a simulation needs follows from it:
the forced-run counts (the system fails with the slot forced right on ``always`` and
``right_only`` instances, forced wrong on ``always`` and ``wrong_only``) and the real system's
failures with the candidate plugged in (``always``, ``wrong_only`` where the slot is wrong,
``right_only`` where it is right).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causalcost.display import html_table
from causalcost.errors import ValidationError
from causalcost.network.correlation import correlation_range
from causalcost.network.fusioners import Fusioner, make_fusioner
from causalcost.pricing.witness import KINDS

__all__ = ["InstanceLaw", "LawBatch", "random_two_model_laws", "two_model_law"]

_SLOT = ("right", "wrong")


@dataclass(frozen=True)
class InstanceLaw:
    """Per class, P(slot right or wrong, kind); and P(class = P).

    Attributes
    ----------
    prior : float
        Probability that an instance is positive.
    positive, negative : ndarray of shape (2, 4)
        Rows: the slot right, the slot wrong; columns: :data:`~causalcost.pricing.witness.KINDS`.
        Each sums to 1.

    Examples
    --------
    >>> law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    >>> law.to_frame().loc["P"].round(4).to_dict("index")["right"]
    {'never': 0.4875, 'wrong_only': 0.0125, 'always': 0.0, 'right_only': 0.0}
    """

    prior: float
    positive: np.ndarray
    negative: np.ndarray

    def __post_init__(self) -> None:
        if not 0 <= self.prior <= 1:
            raise ValidationError(f"prior ({self.prior!r}) must lie in [0, 1]")
        for name in ("positive", "negative"):
            table = np.asarray(getattr(self, name), dtype=float)
            if table.shape != (2, 4) or np.any(table < -1e-12) or abs(table.sum() - 1) > 1e-9:
                raise ValidationError(f"{name} must be a (2, 4) probability table summing to 1")
            table = np.clip(table, 0.0, None) / np.clip(table, 0.0, None).sum()
            table.setflags(write=False)
            object.__setattr__(self, name, table)

    @property
    def monotone(self) -> bool:
        """No ``right_only`` instance has positive probability."""
        return bool(self.positive[:, 3].sum() == 0 and self.negative[:, 3].sum() == 0)

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """Rows (class, slot right/wrong), columns the kinds."""
        frames = {c: pd.DataFrame(t, index=pd.Index(_SLOT, name="slot"), columns=list(KINDS))
                  for c, t in (("P", self.positive), ("N", self.negative))}
        return pd.concat(frames, names=["class"])

    def __repr__(self) -> str:
        return (f"InstanceLaw(prior={self.prior:g}, monotone={self.monotone}, "
                f"slot accuracy P={self.positive[0].sum():.4g}, N={self.negative[0].sum():.4g})")


def _joint_correctness(a: float, b: float, rho: float) -> np.ndarray:
    """P(first right?, slot right?) as a (2, 2) table [[rr, rw], [wr, ww]]; validated input."""
    both = a * b + rho * math.sqrt(a * (1 - a) * b * (1 - b))
    table = np.array([[both, a - both], [b - both, 1 - a - b + both]])
    return np.clip(table, 0.0, None)


def two_model_law(
    accuracy_other: float | tuple[float, float],
    accuracy_slot: float | tuple[float, float],
    *,
    correlation: float | tuple[float, float] = 0.0,
    fusioner: str | Fusioner | Callable[[bool, bool], bool] = "or",
    prior: float = 0.5,
) -> InstanceLaw:
    """The slides' simulated system: one other model and the slot, correlated per class.

    Parameters
    ----------
    accuracy_other, accuracy_slot : float or (float, float)
        Per-class accuracy (on positives, on negatives) of the other model (images in the
        slides) and of the slot's candidate (clinical history); one number for both classes.
    correlation : float or (float, float)
        Per-class Pearson correlation of the two models' correctness; it must be reachable
        (:func:`causalcost.correlation_range`).
    fusioner : str, Fusioner or callable
        A rule name (``"or"``, ``"and"``), a :class:`~causalcost.Fusioner` over two inputs
        (the other model first), or ``f(other_vote, slot_vote) -> bool`` (True = positive).
    prior : float
        P(class = P).

    Returns
    -------
    InstanceLaw

    Examples
    --------
    The slides' experiment 1: both 50 %, +0.95 on positives, -0.95 on negatives, OR.

    >>> law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    >>> law.monotone, round(float(law.negative[:, 2].sum()), 4)
    (True, 0.5)
    """
    acc_o, acc_s, rho = (_pair(v, name) for v, name in (
        (accuracy_other, "accuracy_other"), (accuracy_slot, "accuracy_slot"),
        (correlation, "correlation")))
    decide = _decider(fusioner)
    tables = []
    for i, positive in enumerate((True, False)):
        low, high = correlation_range(acc_o[i], acc_s[i])
        if not low - 1e-12 <= rho[i] <= high + 1e-12:
            cls = "positives" if positive else "negatives"
            raise ValidationError(
                f"correlation on {cls} ({rho[i]:g}) is not reachable with accuracies "
                f"{acc_o[i]:g} and {acc_s[i]:g}: it must lie in [{low:.4g}, {high:.4g}]")
        joint = _joint_correctness(acc_o[i], acc_s[i], min(max(rho[i], low), high))
        table = np.zeros((2, 4))
        for other_right in (True, False):
            other_vote = positive if other_right else not positive
            right_ok = decide(other_vote, positive) == positive
            wrong_ok = decide(other_vote, not positive) == positive
            kind = KINDS.index(_kind(right_ok, wrong_ok))
            for s, slot_right in enumerate((True, False)):
                table[s, kind] += joint[0 if other_right else 1, 0 if slot_right else 1]
        tables.append(table)
    return InstanceLaw(prior=_probability(prior, "prior"), positive=tables[0],
                       negative=tables[1])


def _kind(right_ok: bool, wrong_ok: bool) -> str:
    """The kind of an instance from whether the system is right with the slot right / wrong."""
    if right_ok:
        return "never" if wrong_ok else "wrong_only"
    return "right_only" if wrong_ok else "always"


_Rule = Callable[[bool, bool], bool]


def _decider(fusioner: str | Fusioner | _Rule) -> _Rule:
    if isinstance(fusioner, str):
        fusioner = make_fusioner(fusioner, ["other", "slot"])
    if isinstance(fusioner, Fusioner):
        rule = fusioner
        return lambda other, slot: rule((other, slot))
    if callable(fusioner):
        return lambda other, slot: bool(fusioner(other, slot))  # type: ignore[operator]
    raise ValidationError(
        f"fusioner must be a rule name, a Fusioner or a callable, got {fusioner!r}")


def _probability(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValidationError(f"{name} ({value!r}) must be a probability in [0, 1]")
    return float(value)


def _pair(value: object, name: str) -> tuple[float, float]:
    values = (value, value) if isinstance(value, (int, float)) else tuple(value)  # type: ignore
    if len(values) != 2:
        raise ValidationError(f"{name} must be one number or a (positives, negatives) pair")
    if name == "correlation":
        out = []
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not -1 <= v <= 1:
                raise ValidationError(f"{name} ({v!r}) must lie in [-1, 1]")
            out.append(float(v))
        return out[0], out[1]
    return _probability(values[0], name), _probability(values[1], name)


@dataclass(frozen=True)
class LawBatch:
    """Many instance laws at once (one per row), for simulations that redraw the system.

    Attributes
    ----------
    prior : ndarray of shape (r,)
    positive, negative : ndarray of shape (r, 2, 4)
    monotone : bool
        No row has a right-only cell.
    """

    prior: np.ndarray
    positive: np.ndarray
    negative: np.ndarray
    monotone: bool


def random_two_model_laws(repetitions: int, rng: np.random.Generator, *,
                          fusioner: str | Fusioner | _Rule = "or",
                          prior: float = 0.5) -> LawBatch:
    """Random systems of the slides' experiment 2, one per row.

    Per class, both models' accuracies are uniform in [0, 1] and their joint correctness
    uniform over what the two accuracies allow (so the correlation is uniform over its
    reachable range).

    Examples
    --------
    >>> import numpy as np
    >>> laws = random_two_model_laws(3, np.random.default_rng(0))
    >>> laws.positive.shape, bool(np.allclose(laws.positive.sum(axis=(1, 2)), 1)), laws.monotone
    ((3, 2, 4), True, True)
    """
    decide = _decider(fusioner)
    tables = []
    for positive in (True, False):
        a, b = rng.random(repetitions), rng.random(repetitions)
        low, high = np.maximum(0.0, a + b - 1), np.minimum(a, b)
        both = low + (high - low) * rng.random(repetitions)
        joint = np.stack([both, a - both, b - both, 1 - a - b + both], axis=1).reshape(-1, 2, 2)
        joint = np.clip(joint, 0.0, None)
        table = np.zeros((repetitions, 2, 4))
        for o, other_right in enumerate((True, False)):
            other_vote = positive if other_right else not positive
            kind = KINDS.index(_kind(decide(other_vote, positive) == positive,
                                     decide(other_vote, not positive) == positive))
            table[:, :, kind] += joint[:, o, :]
        tables.append(table / table.sum(axis=(1, 2), keepdims=True))
    return LawBatch(prior=np.full(repetitions, _probability(prior, "prior")),
                    positive=tables[0], negative=tables[1],
                    monotone=bool(tables[0][:, :, 3].sum() == 0 and tables[1][:, :, 3].sum() == 0))
