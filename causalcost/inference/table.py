"""Interventional tables and the slot's four interventional error rates.

An :class:`InterventionalTable` holds ``T[c, j, s] = P(S = s | Class = c, do(slot = j))`` for
every true class ``c`` (rows: the true class, as everywhere in causalcost), every state ``j`` of
the slot (its own axis, :attr:`~InterventionalTable.slot_states`: the labels for a voting slot)
and every system output ``s``, however it was obtained (exact inference, sampling, or counts
from forced runs of the real system). A binary table (K = 2, labels positive first) keeps its
view ``P(Conf^S = k | Class = c, do(Pred^M = x))`` over the four confusion outcomes ``k`` in
:attr:`~InterventionalTable.probabilities`, and :class:`ErrorRates` keeps the four numbers the
binary cost layer needs::

    e_P(x) = P(Conf^S = FN | Class = P, do(Pred^M = x))
    e_N(x) = P(Conf^S = FP | Class = N, do(Pred^M = x))
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.confusion import CLASSES, OUTCOMES, Confusion
from causalcost.display import format_interval, html_block, html_table
from causalcost.errors import UnknownNameError, ValidationError
from causalcost.inference.monotonicity import MonotonicityCheck

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ErrorRates", "InterventionalTable", "OUTCOMES", "INTERVAL_METHODS", "check_interval_settings",
]

#: Interval methods accepted by :meth:`InterventionalTable.from_counts` (statsmodels names).
INTERVAL_METHODS = {"wilson": "wilson", "clopper-pearson": "beta", "beta": "beta"}
#: ``InterventionalTable.trusted``'s (name, default) per init field, per class.
_INIT_DEFAULTS: dict[type, tuple[tuple[str, Any], ...]] = {}
#: How a table was obtained.
TABLE_METHODS = ("exact", "sampling", "counts")


def _check_rate(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not (0.0 <= value <= 1.0):  # also rejects NaN
        raise ValidationError(f"{name} must be a probability in [0, 1], got {value!r}")
    return value


@dataclass(frozen=True)
class ErrorRates:
    """The slot's interventional error rates.

    Parameters
    ----------
    fn_forced_p : float
        ``e_P(P)``: probability that the system misses a positive when the slot is forced to P.
    fn_forced_n : float
        ``e_P(N)``: the same with the slot forced to N.
    fp_forced_p : float
        ``e_N(P)``: probability of a system false alarm on a negative with the slot forced to P.
    fp_forced_n : float
        ``e_N(N)``: the same with the slot forced to N.

    Examples
    --------
    Thesis §4, AND fusioner with an 80 %/80 % images model:

    >>> r = ErrorRates(fn_forced_p=0.2, fn_forced_n=1.0, fp_forced_p=0.2, fp_forced_n=0.0)
    >>> r.is_monotone
    True
    >>> r.to_dict()
    {'P': {'P': 0.2, 'N': 1.0}, 'N': {'P': 0.2, 'N': 0.0}}
    """

    fn_forced_p: float
    fn_forced_n: float
    fp_forced_p: float
    fp_forced_n: float

    def __post_init__(self) -> None:
        for name in ("fn_forced_p", "fn_forced_n", "fp_forced_p", "fp_forced_n"):
            object.__setattr__(self, name, _check_rate(name, getattr(self, name)))

    def rate(self, true_class: str, forced: str) -> float:
        """``e_c(x)``: system failure rate on class ``true_class``, slot forced to ``forced``."""
        key = (true_class, forced)
        table = {
            ("P", "P"): self.fn_forced_p, ("P", "N"): self.fn_forced_n,
            ("N", "P"): self.fp_forced_p, ("N", "N"): self.fp_forced_n,
        }
        if key not in table:
            raise ValidationError(f"class and forced value must each be 'P' or 'N', got {key!r}")
        return table[key]

    @property
    def is_monotone(self) -> bool:
        """Whether ``e_P(P) <= e_P(N)`` and ``e_N(N) <= e_N(P)`` (the aggregate specification).

        This is necessary, not sufficient, for the monotone worst case: check the network itself
        with :func:`causalcost.check_monotonicity` wherever it is known.
        """
        return self.fn_forced_p <= self.fn_forced_n and self.fp_forced_n <= self.fp_forced_p

    @classmethod
    def from_forced(cls, forced_p: Confusion, forced_n: Confusion) -> ErrorRates:
        """Rates counted from the system's confusion with the slot forced to P and to N.

        >>> ErrorRates.from_forced(Confusion(80, 20, 40, 160), Confusion(0, 100, 0, 200))
        ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0)
        """
        for name, m in (("forced_p", forced_p), ("forced_n", forced_n)):
            if m.positives <= 0 or m.negatives <= 0:
                raise ValidationError(f"{name} needs instances of both classes, got {m!r}")
        return cls(
            fn_forced_p=forced_p.fn / forced_p.positives,
            fn_forced_n=forced_n.fn / forced_n.positives,
            fp_forced_p=forced_p.fp / forced_p.negatives,
            fp_forced_n=forced_n.fp / forced_n.negatives,
        )

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{"P": {"P": e_P(P), "N": e_P(N)}, "N": {"P": e_N(P), "N": e_N(N)}}``."""
        return {
            "P": {"P": self.fn_forced_p, "N": self.fn_forced_n},
            "N": {"P": self.fp_forced_p, "N": self.fp_forced_n},
        }

    @classmethod
    def from_dict(cls, data: dict[str, dict[str, float]]) -> ErrorRates:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(data["P"]["P"], data["P"]["N"], data["N"]["P"], data["N"]["N"])
        except (KeyError, TypeError):
            raise ValidationError(
                "error rates must look like {'P': {'P': .., 'N': ..}, 'N': {'P': .., 'N': ..}}"
            ) from None

    def to_frame(self) -> pd.DataFrame:
        """Rows: true class; columns: forced slot value; cells: system failure rate."""
        import pandas as pd

        return pd.DataFrame(
            [[self.fn_forced_p, self.fn_forced_n], [self.fp_forced_p, self.fp_forced_n]],
            index=pd.Index(list(CLASSES), name="class"),
            columns=pd.Index(list(CLASSES), name="do(slot)"),
        )

    def _repr_html_(self) -> str:
        return html_block("Failure rates e_c(x)", html_table(self.to_frame()),
                          notes=["e_c(x) = P(system wrong | class c, do(slot = x))"])

    def __repr__(self) -> str:
        return (
            f"ErrorRates(e_P(P)={self.fn_forced_p:.6g}, e_P(N)={self.fn_forced_n:.6g}, "
            f"e_N(P)={self.fp_forced_p:.6g}, e_N(N)={self.fp_forced_n:.6g})"
        )


@dataclass(frozen=True, eq=False)
class InterventionalTable:
    """``T[c, j, s] = P(S = s | Class = c, do(slot = j))``, for any number of labels.

    A K = 2 table (labels positive first) is held in its binary view over the four confusion
    outcomes (``probabilities`` of shape (2, 2, 4), :attr:`error_rates`); a table of K > 2
    labels holds ``T`` itself (``probabilities`` of shape (K, J, K)). :meth:`to_numpy` gives
    ``T`` for every K; :meth:`from_array` makes a table from ``T`` and its labels.

    Attributes
    ----------
    slot : str
        The intervened model node.
    method : str
        ``"exact"``, ``"sampling"`` or ``"counts"``.
    probabilities : numpy.ndarray
        K = 2: shape ``(2, 2, 4)``, ``[class, forced value, outcome]`` with classes and forced
        values in order (P, N) and outcomes (TP, FN, FP, TN). K > 2: ``T``, shape (K, J, K).
        Each ``[c, x]`` row sums to 1.
    counts : numpy.ndarray or None
        For sampled or counted tables, the number of trials behind each cell's proportion
        (the instances of that class in that forced run, repeated across its four outcomes),
        same shape.
    lower, upper : numpy.ndarray or None
        Confidence interval of each cell (same shape) at ``confidence``.
    confidence : float or None
        Confidence level of the intervals.
    interval_method : str or None
        ``"wilson"`` or ``"clopper-pearson"``.
    seed : int or None
        The sampling seed.
    monotonicity : MonotonicityCheck or None
        For tables computed from a network: the exact check that the system is monotone in
        the slot (None when it could not be decided). :func:`causalcost.bound_from_rates`
        uses it to refuse the monotone worst case for a system that is not monotone.
    labels : tuple of str
        The labels of class and output (binary: positive first).
    slot_states : tuple of str or None
        The slot's states, the ``j`` axis (None: the labels, as for a voting slot).
    samples : int or None
        Simulated instances per class (sampling a system declared by its labels).

    Examples
    --------
    >>> import causalcost as cc
    >>> table = cc.interventional_table(cc.load_network("thesis_and"))
    >>> table.probability("P", "N", "FN")  # AND: forcing the slot to N misses every positive
    1.0
    >>> table.probabilities[1, 0].round(6).tolist()  # class N, do(P): TP, FN, FP, TN
    [0.0, 0.0, 0.2, 0.8]
    """

    slot: str
    method: str
    probabilities: np.ndarray
    counts: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    confidence: float | None = None
    interval_method: str | None = None
    seed: int | None = None
    monotonicity: MonotonicityCheck | None = None
    #: The labels of the class and of the system output (binary: positive first).
    labels: tuple[str, ...] = ("P", "N")
    #: The slot's states, the ``j`` axis (None: the labels, as for a voting slot).
    slot_states: tuple[str, ...] | None = None
    #: Simulated instances per class (sampling of a system declared by its labels).
    samples: int | None = None
    _rates: ErrorRates = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        labels = tuple(str(v) for v in self.labels)
        object.__setattr__(self, "labels", labels)
        if self.slot_states is not None:
            object.__setattr__(self, "slot_states", tuple(str(v) for v in self.slot_states))
        if not self.is_binary:
            self._check_general()
            return
        p = np.array(self.probabilities, dtype=float)
        if p.shape != (2, 2, 4):
            raise ValidationError(f"probabilities must have shape (2, 2, 4), got {p.shape}")
        # min/max propagate NaN, so the comparisons below also reject NaN and infinities
        if not (p.min() >= -1e-12 and p.max() <= 1 + 1e-12):
            raise ValidationError("interventional probabilities must lie in [0, 1]")
        if not np.abs(p.sum(axis=2) - 1.0).max() <= 1e-9:
            raise ValidationError("each (class, forced value) row of the table must sum to 1")
        self._freeze(p)
        self._check_extras(p)

    def _freeze(self, p: np.ndarray) -> None:
        """Keep ``p`` and the per-cell arrays (counts, interval ends) read-only, each of
        ``p``'s shape."""
        p.setflags(write=False)
        object.__setattr__(self, "probabilities", p)
        for name in ("counts", "lower", "upper"):
            arr = getattr(self, name)
            if arr is not None:
                arr = np.array(arr, dtype=float)
                if arr.shape != p.shape:
                    raise ValidationError(f"{name} must have shape {p.shape}, got {arr.shape}")
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)

    @property
    def is_binary(self) -> bool:
        """Whether this is a K = 2 table held in its binary (class, forced, outcome) view."""
        return len(self.labels) == 2 and (self.slot_states is None
                                          or self.slot_states == self.labels)

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def states(self) -> tuple[str, ...]:
        """The slot's states (the ``j`` axis): :attr:`slot_states`, or the labels."""
        return self.slot_states if self.slot_states is not None else self.labels

    def _check_general(self) -> None:
        """Shape ``(K, J, K)``, distributions, intervals: a table of K labels."""
        k, j = len(self.labels), len(self.states)
        if k < 2 or len(set(self.labels)) != k:
            raise ValidationError(f"labels must be at least 2 distinct names, got "
                                  f"{list(self.labels)}")
        p = np.array(self.probabilities, dtype=float)
        if p.shape != (k, j, k):
            raise ValidationError(f"probabilities must have shape {(k, j, k)} (class, slot "
                                  f"state, output), got {p.shape}")
        if not (p.min() >= -1e-12 and p.max() <= 1 + 1e-12) or \
                not np.abs(p.sum(axis=2) - 1.0).max() <= 1e-9:
            raise ValidationError("every row T[c, j, :] must be a probability distribution")
        self._freeze(p)
        self._check_extras(p)

    @classmethod
    def from_array(
        cls, t: Any, *, labels: Any, slot: str, method: str = "exact",
        slot_states: Any = None, lower: Any = None, upper: Any = None, counts: Any = None,
        samples: int | None = None, confidence: float | None = None,
        interval_method: str | None = None, seed: int | None = None,
        monotonicity: MonotonicityCheck | None = None,
    ) -> InterventionalTable:
        """A table from ``T[c, j, s]`` (shape ``(K, J, K)``) and its labels; a K = 2 table
        (its slot's states the labels) is held in its binary view, labels positive first.

        >>> t = np.zeros((3, 3, 3))
        >>> for j in range(3):
        ...     t[:, j, j] = 1
        >>> table = InterventionalTable.from_array(t, labels=("a", "b", "c"), slot="m")
        >>> table.probability("a", "b", "b"), table.to_numpy().shape
        (1.0, (3, 3, 3))
        """
        labels = tuple(str(v) for v in labels)
        states = None if slot_states is None else tuple(str(v) for v in slot_states)
        arr = np.asarray(t, dtype=float)
        extra = {"counts": counts, "lower": lower, "upper": upper}
        if len(labels) == 2 and (states is None or states == labels):
            if arr.shape != (2, 2, 2):
                raise ValidationError(f"probabilities must have shape (2, 2, 2), got "
                                      f"{arr.shape}")
            arr = _outcome_view(arr)
            extra = {k: None if v is None else _outcome_view(np.asarray(v, dtype=float))
                     for k, v in extra.items()}
            if counts is not None:  # trials per (class, forced) row, on all four outcomes
                n = np.asarray(counts, dtype=float)[:, :, :1]
                extra["counts"] = np.repeat(n, 4, axis=2)
            states = None
        return cls(slot=slot, method=method, probabilities=arr, confidence=confidence,
                   interval_method=interval_method, seed=seed, monotonicity=monotonicity,
                   labels=labels, slot_states=states, samples=samples, **extra)

    def to_numpy(self) -> np.ndarray:
        """A copy of ``T[c, j, s]``: shape ``(K, J, K)`` (rows the true class).

        >>> import causalcost as cc
        >>> cc.interventional_table(cc.load_network("thesis_and")).to_numpy()[0].tolist()
        [[0.8, 0.2], [0.0, 1.0]]
        """
        if self.is_binary:
            return _label_view(self.probabilities)
        return np.array(self.probabilities)

    @property
    def low(self) -> np.ndarray | None:
        """Lower interval ends of ``T[c, j, s]`` (sampled or counted tables), else None."""
        return None if self.lower is None else (
            _label_view(self.lower) if self.is_binary else self.lower)

    @property
    def high(self) -> np.ndarray | None:
        """Upper interval ends of ``T[c, j, s]`` (sampled or counted tables), else None."""
        return None if self.upper is None else (
            _label_view(self.upper) if self.is_binary else self.upper)

    def _index(self, name: object, names: tuple[str, ...], what: str) -> int:
        if str(name) in names:
            return names.index(str(name))
        raise UnknownNameError(f"{what} {name!r} is not one of {list(names)}")

    def forced_counts(self, class_sizes: object) -> np.ndarray:
        """Expected forced runs ``F[j, c, s] = n_c T[c, j, s]`` for the class sizes ``n_c``."""
        n = np.asarray(class_sizes, dtype=float)
        if n.shape != (self.k,) or np.any(n < 0) or not np.all(np.isfinite(n)):
            raise ValidationError(f"class_sizes must be {self.k} non-negative numbers")
        return np.transpose(self.to_numpy() * n[:, None, None], (1, 0, 2))

    def _check_extras(self, p: np.ndarray) -> None:
        """Method, sample sizes, intervals, confidence and seed: ranges and agreement."""
        if self.method not in TABLE_METHODS:
            raise ValidationError(f"method ({self.method!r}) must be one of "
                                  f"{', '.join(map(repr, TABLE_METHODS))}")
        if self.counts is not None:
            c = self.counts
            if not (np.all(np.isfinite(c)) and c.min() >= 0 and np.all(c == np.round(c))
                    and c.max() <= 2**53):
                raise ValidationError("counts (n) must be non-negative integers up to 2**53")
        if (self.lower is None) != (self.upper is None):
            raise ValidationError("intervals need both lower (ci_low) and upper (ci_high)")
        if self.lower is not None and self.upper is not None:
            lo, hi = self.lower, self.upper
            if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
                    and lo.min() >= 0 and hi.max() <= 1):
                raise ValidationError("interval ends (ci_low, ci_high) must lie in [0, 1]")
            if np.any(lo > p + 1e-9) or np.any(hi < p - 1e-9):
                raise ValidationError("every interval (ci_low, ci_high) must contain its "
                                      "probability; an inverted or shifted interval is refused")
        if self.confidence is not None and (
                isinstance(self.confidence, bool) or not 0 < float(self.confidence) < 1):
            raise ValidationError(f"confidence ({self.confidence!r}) must lie strictly between "
                                  "0 and 1")
        if self.interval_method is not None and self.interval_method not in INTERVAL_METHODS:
            raise ValidationError(f"interval_method ({self.interval_method!r}) must be one of "
                                  f"{', '.join(map(repr, INTERVAL_METHODS))}")
        if self.seed is not None and (isinstance(self.seed, bool)
                                      or not isinstance(self.seed, (int, np.integer))
                                      or self.seed < 0):
            raise ValidationError(f"seed ({self.seed!r}) must be a non-negative integer")

    @classmethod
    def trusted(cls, **fields: Any) -> InterventionalTable:
        """Build without validation, for tables this package computed itself.

        Assumes validated arguments: ``probabilities`` a float array of shape (2, 2, 4) whose
        rows sum to 1 and that nobody else holds. Public construction validates.
        """
        table = object.__new__(cls)
        defaults = _INIT_DEFAULTS.get(cls)
        if defaults is None:  # the init fields and defaults, read once per class
            defaults = _INIT_DEFAULTS[cls] = tuple(
                (f.name, f.default) for f in dataclasses.fields(cls) if f.init)
        for name, default in defaults:
            object.__setattr__(table, name, fields.pop(name, default))
        if fields:
            raise TypeError(f"unknown fields {sorted(fields)}")
        table.probabilities.setflags(write=False)
        return table

    @property
    def error_rates(self) -> ErrorRates:
        """The four interventional error rates read off the table (K = 2 only)."""
        if not self.is_binary:
            what = (f"{self.k} labels" if self.k != 2 else
                    f"a slot with the states {list(self.states)} (score bins)")
            raise ValidationError(
                f"error_rates are the four binary rates e_P(P), e_P(N), e_N(P), e_N(N); this "
                f"table has {what}: read T[c, j, s] with table.to_numpy() (labels "
                f"{list(self.labels)}) or table.probability(true_class, forced, output)")
        try:
            return self._rates
        except AttributeError:
            p = np.clip(self.probabilities, 0.0, 1.0)  # rounding guard
            rates = ErrorRates(fn_forced_p=float(p[0, 0, 1]), fn_forced_n=float(p[0, 1, 1]),
                               fp_forced_p=float(p[1, 0, 2]), fp_forced_n=float(p[1, 1, 2]))
            object.__setattr__(self, "_rates", rates)
            return rates

    @property
    def has_intervals(self) -> bool:
        """Whether the table carries confidence intervals (sampled or counted)."""
        return self.lower is not None

    def probability(self, true_class: str, forced: str, outcome: str) -> float:
        """One cell: ``P(Conf^S = outcome | Class = true_class, do(slot = forced))``; for K
        labels ``outcome`` is the system's output label: ``T[c, j, s]``."""
        if not self.is_binary:
            return float(self.probabilities[self._index(true_class, self.labels, "true_class"),
                                            self._index(forced, self.states, "forced"),
                                            self._index(outcome, self.labels, "output")])
        return float(self.probabilities[_index(true_class, CLASSES, "class"),
                                        _index(forced, CLASSES, "forced value"),
                                        _index(outcome, OUTCOMES, "outcome")])

    def standard_error(self) -> np.ndarray | None:
        """Binomial standard error ``sqrt(p (1 - p) / n)`` of every cell, or None when exact."""
        if self.counts is None:
            return None
        p = self.probabilities
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.sqrt(p * (1 - p) / self.counts)

    @classmethod
    def from_counts(
        cls,
        slot: str,
        counts: np.ndarray,
        *,
        method: str = "counts",
        confidence: float = 0.95,
        interval_method: str = "wilson",
        seed: int | None = None,
        monotonicity: MonotonicityCheck | None = None,
    ) -> InterventionalTable:
        """Build a table with intervals from outcome counts of shape ``(2, 2, 4)``.

        ``counts[c, x, k]`` is how many instances of class ``c`` ended in outcome ``k`` with the
        slot forced to ``x``. Each cell's interval is a binomial proportion interval on
        ``n = counts[c, x].sum()`` trials (statsmodels ``proportion_confint``).
        """
        from statsmodels.stats.proportion import proportion_confint

        k = np.asarray(counts, dtype=float)
        if k.shape != (2, 2, 4):
            raise ValidationError(f"counts must have shape (2, 2, 4), got {k.shape}")
        if np.any(~np.isfinite(k)) or np.any(k < 0) or np.any(k != np.round(k)):
            raise ValidationError("outcome counts must be finite non-negative integers")
        check_interval_settings(confidence, interval_method)
        n = k.sum(axis=2, keepdims=True)
        empty = [(CLASSES[c], CLASSES[x]) for c in range(2) for x in range(2) if n[c, x, 0] == 0]
        if empty:
            raise ValidationError(
                f"no instances for (class, forced value) {empty}: every class needs at least one "
                "instance in each forced run; use more samples or a larger evaluation set"
            )
        n_full = np.broadcast_to(n, k.shape)
        lo, hi = proportion_confint(k, n_full, alpha=1 - confidence,
                                    method=INTERVAL_METHODS[interval_method])
        # statsmodels' vectorised Wilson bounds carry rounding (2.7e-20 for a zero count):
        # an observed proportion of exactly 0 or 1 has that end of its interval exactly there.
        lo = np.where(k == 0, 0.0, np.clip(lo, 0.0, 1.0))
        hi = np.where(k == n_full, 1.0, np.clip(hi, 0.0, 1.0))
        name = "clopper-pearson" if INTERVAL_METHODS[interval_method] == "beta" else "wilson"
        return cls(slot=slot, method=method, probabilities=k / n, counts=n_full,
                   lower=np.asarray(lo), upper=np.asarray(hi), confidence=confidence,
                   interval_method=name, seed=seed, monotonicity=monotonicity)

    @classmethod
    def from_forced(
        cls, slot: str, forced_p: Confusion, forced_n: Confusion, **kwargs: Any
    ) -> InterventionalTable:
        """Table counted from two runs of the real system: slot forced to P and forced to N."""
        if not (forced_p.is_integral and forced_n.is_integral):
            raise ValidationError("forced-run confusion matrices must hold integer counts")
        counts = np.zeros((2, 2, 4))
        for x, m in enumerate((forced_p, forced_n)):
            counts[0, x, :2] = (m.tp, m.fn)
            counts[1, x, 2:] = (m.fp, m.tn)
        return cls.from_counts(slot, counts, **kwargs)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per cell: class, do, confusion (K labels: output), probability (and
        interval fields)."""
        se = self.standard_error()
        if not self.is_binary:
            out = []
            for (c, j, s), value in np.ndenumerate(self.probabilities):
                row: dict[str, Any] = {"class": self.labels[c], "do": self.states[j],
                                       "output": self.labels[s], "probability": float(value)}
                if self.lower is not None and self.upper is not None:
                    row["ci_low"] = float(self.lower[c, j, s])
                    row["ci_high"] = float(self.upper[c, j, s])
                if se is not None and self.counts is not None:
                    row["std_error"] = float(se[c, j, s])
                    row["n"] = int(self.counts[c, j, s])
                out.append(row)
            return out
        rows = []
        for c, cname in enumerate(CLASSES):
            for x, xname in enumerate(CLASSES):
                for o, oname in enumerate(OUTCOMES):
                    row: dict[str, Any] = {
                        "class": cname, "do": xname, "confusion": oname,
                        "probability": float(self.probabilities[c, x, o]),
                    }
                    if self.has_intervals:
                        assert self.lower is not None and self.upper is not None and se is not None
                        row["ci_low"] = float(self.lower[c, x, o])
                        row["ci_high"] = float(self.upper[c, x, o])
                        row["std_error"] = float(se[c, x, o])
                        row["n"] = int(self.counts[c, x, o])  # type: ignore[index]
                    rows.append(row)
        return rows

    def to_frame(self) -> pd.DataFrame:
        """Long table indexed by (class, do, confusion); for K labels by (class, do, output).
        """
        import pandas as pd

        third = "confusion" if self.is_binary else "output"
        return pd.DataFrame(self.to_records()).set_index(["class", "do", third])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, one shape for every K: slot, method, labels, slot_states and ``T`` as
        nested lists ``[c][j][s]`` (with ``ci_low``/``ci_high``, confidence and interval
        method when sampled or counted; samples and seed when known). A binary table adds
        its views: ``error_rates``, ``table`` (records with their intervals) and
        ``monotone`` when checked."""
        out: dict[str, Any] = {"slot": self.slot, "method": self.method,
                               "labels": list(self.labels), "slot_states": list(self.states),
                               "T": self.to_numpy().tolist()}
        low, high = self.low, self.high
        if low is not None and high is not None:
            out.update(ci_low=low.tolist(), ci_high=high.tolist(),
                       confidence=self.confidence, interval_method=self.interval_method)
        for key in ("samples", "seed"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.is_binary:  # the views, as version-2 sheets wrote them
            view = self.binary_dict()
            out.update({key: view[key] for key in ("error_rates", "table", "monotone")
                        if key in view})
        return out

    def binary_dict(self) -> dict[str, Any]:
        """The binary table as version-2 sheets wrote it (slot, method, error_rates, table,
        interval settings, seed, monotone): kept so those sheets' digests still verify."""
        out: dict[str, Any] = {
            "slot": self.slot,
            "method": self.method,
            "error_rates": self.error_rates.to_dict(),
            "table": self.to_records(),
        }
        if self.has_intervals:
            out["confidence"] = self.confidence
            out["interval_method"] = self.interval_method
        if self.seed is not None:
            out["seed"] = self.seed
        if self.monotonicity is not None:
            out["monotone"] = self.monotonicity.is_monotone
        return out

    def __repr__(self) -> str:
        if not self.is_binary:
            more = f", samples={self.samples}" if self.samples else ""
            return (f"InterventionalTable(slot={self.slot!r}, labels={list(self.labels)}, "
                    f"method={self.method!r}{more})")
        r = self.error_rates
        extra = ""
        if self.counts is not None:
            extra = f", n={int(self.counts.min())}..{int(self.counts.max())}"
        return (
            f"InterventionalTable(slot={self.slot!r}, method={self.method!r}, "
            f"e_P(P)={r.fn_forced_p:.4g}, e_P(N)={r.fn_forced_n:.4g}, "
            f"e_N(P)={r.fp_forced_p:.4g}, e_N(N)={r.fp_forced_n:.4g}{extra})"
        )

    def grid(self) -> pd.DataFrame:
        """The probabilities as a grid: one row per (class, do), one column per outcome.

        >>> import causalcost as cc
        >>> cc.interventional_table(cc.load_network("thesis_and")).grid().loc[("P", "N")].tolist()
        [0.0, 1.0, 0.0, 0.0]
        """
        import pandas as pd

        if not self.is_binary:
            index = pd.MultiIndex.from_product([list(self.labels), list(self.states)],
                                               names=["class", "do"])
            return pd.DataFrame(self.probabilities.reshape(self.k * len(self.states), self.k),
                                index=index, columns=pd.Index(list(self.labels), name="output"))

        index = pd.MultiIndex.from_product([CLASSES, CLASSES], names=["class", "do"])
        return pd.DataFrame(self.probabilities.reshape(4, 4), index=index,
                            columns=pd.Index(list(OUTCOMES), name="confusion"))

    def _repr_html_(self) -> str:
        grid = self.grid()
        if not self.is_binary:
            return html_block(f"T[c, j, s] = P(output | class, do({self.slot} = j)), "
                              f"{self.method}", html_table(grid))
        if self.has_intervals:
            assert self.lower is not None and self.upper is not None
            low, high = self.lower.reshape(4, 4), self.upper.reshape(4, 4)
            import pandas as pd

            grid = pd.DataFrame([[format_interval(grid.iat[i, j], low[i, j], high[i, j])
                                  for j in range(4)] for i in range(4)],
                                index=grid.index, columns=grid.columns)
        notes = []
        if self.has_intervals:
            notes.append(f"{self.confidence:.0%} intervals ({self.interval_method}); "
                         f"{int(self.counts.sum(axis=2).min())} or more draws per row"  # type: ignore[union-attr]
                         if self.counts is not None else
                         f"{self.confidence:.0%} intervals ({self.interval_method})")
        if self.monotonicity is not None:
            notes.append(repr(self.monotonicity))
        return html_block(
            f"P(Conf | Class, do({self.slot})), {self.method}",
            html_table(grid), self.error_rates._repr_html_(), notes=notes)

    def __str__(self) -> str:
        """The table pivoted to one row per (class, do) and one column per outcome (K
        labels: per output)."""
        text = self.grid().to_string(float_format=lambda v: f"{v:.6g}")
        if not self.is_binary:
            return f"T[c, j, s] = P(output | class, do({self.slot} = j)) [{self.method}]\n{text}"
        return f"P(Conf | Class, do({self.slot})) [{self.method}]\n{text}"


def check_interval_settings(confidence: object, interval_method: object) -> None:
    """Raise :class:`ValidationError` unless ``0 < confidence < 1`` and ``interval_method`` is
    one of :data:`INTERVAL_METHODS` (checked before sampling, not after)."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not 0 < confidence < 1:
        raise ValidationError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not isinstance(interval_method, str) or interval_method not in INTERVAL_METHODS:
        raise ValidationError(
            f"interval_method ({interval_method!r}) must be one of "
            + ", ".join(repr(m) for m in INTERVAL_METHODS)
        )


def _outcome_view(t: np.ndarray) -> np.ndarray:
    """The binary (class, forced, outcome) view of ``T[c, j, s]`` (2, 2, 2): outcomes TP, FN
    on the positive class, FP, TN on the negative one."""
    out = np.zeros((2, 2, 4))
    out[0, :, :2] = t[0]
    out[1, :, 2:] = t[1]
    return out


def _label_view(p: np.ndarray) -> np.ndarray:
    """``T[c, j, s]`` (2, 2, 2) from the binary (class, forced, outcome) view."""
    return np.stack([p[0, :, :2], p[1, :, 2:]])


def _index(name: str, valid: tuple[str, ...], what: str) -> int:
    try:
        return valid.index(name)
    except ValueError:
        raise ValidationError(f"{what} {name!r} is not one of {', '.join(valid)}") from None


class _AnyTable(type):
    """``isinstance(x, MulticlassTable)`` is ``isinstance(x, InterventionalTable)``."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, InterventionalTable)


class _MulticlassTable(metaclass=_AnyTable):
    """The deprecated ``MulticlassTable(labels, slot, method, probabilities, ...)`` call: an
    :class:`InterventionalTable` made by :meth:`InterventionalTable.from_array`."""

    def __new__(cls, labels: Any, slot: str, method: str, probabilities: Any,  # type: ignore[misc]
                low: Any = None, high: Any = None, samples: int | None = None,
                confidence: float | None = None) -> InterventionalTable:
        return InterventionalTable.from_array(probabilities, labels=labels, slot=slot,
                                              method=method, lower=low, upper=high,
                                              samples=samples, confidence=confidence)
