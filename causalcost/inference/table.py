"""Interventional tables and the slot's four interventional error rates.

An :class:`InterventionalTable` holds ``P(Conf^S = k | Class = c, do(Pred^M = x))`` for the two
classes ``c``, the two forced slot values ``x`` and the four confusion outcomes ``k``, however it
was obtained (exact inference, sampling, or counts from two forced runs of the real system).
:class:`ErrorRates` keeps the four numbers the cost layer needs::

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
from causalcost.errors import ValidationError
from causalcost.inference.monotonicity import MonotonicityCheck

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ErrorRates", "InterventionalTable", "OUTCOMES", "INTERVAL_METHODS", "check_interval_settings",
]

#: Interval methods accepted by :meth:`InterventionalTable.from_counts` (statsmodels names).
INTERVAL_METHODS = {"wilson": "wilson", "clopper-pearson": "beta", "beta": "beta"}
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
    """``P(Conf^S | Class, do(Pred^M = x))`` for both classes and both forced slot values.

    Attributes
    ----------
    slot : str
        The intervened model node.
    method : str
        ``"exact"``, ``"sampling"`` or ``"counts"``.
    probabilities : numpy.ndarray
        Shape ``(2, 2, 4)``: ``[class, forced value, outcome]`` with classes and forced values in
        order (P, N) and outcomes (TP, FN, FP, TN). Each ``[c, x]`` row sums to 1.
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
    _rates: ErrorRates = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        p = np.array(self.probabilities, dtype=float)
        if p.shape != (2, 2, 4):
            raise ValidationError(f"probabilities must have shape (2, 2, 4), got {p.shape}")
        # min/max propagate NaN, so the comparisons below also reject NaN and infinities
        if not (p.min() >= -1e-12 and p.max() <= 1 + 1e-12):
            raise ValidationError("interventional probabilities must lie in [0, 1]")
        if not np.abs(p.sum(axis=2) - 1.0).max() <= 1e-9:
            raise ValidationError("each (class, forced value) row of the table must sum to 1")
        p.setflags(write=False)
        object.__setattr__(self, "probabilities", p)
        for name in ("counts", "lower", "upper"):
            arr = getattr(self, name)
            if arr is not None:
                arr = np.array(arr, dtype=float)
                if arr.shape != (2, 2, 4):
                    raise ValidationError(f"{name} must have shape (2, 2, 4), got {arr.shape}")
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)
        self._check_extras(p)

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
        for f in dataclasses.fields(cls):
            if f.init:
                value = fields.pop(f.name, f.default)
                object.__setattr__(table, f.name, value)
        if fields:
            raise TypeError(f"unknown fields {sorted(fields)}")
        table.probabilities.setflags(write=False)
        return table

    @property
    def error_rates(self) -> ErrorRates:
        """The four interventional error rates read off the table."""
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
        """One cell: ``P(Conf^S = outcome | Class = true_class, do(slot = forced))``."""
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
        """One dict per cell: class, do, confusion, probability (and interval fields)."""
        se = self.standard_error()
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
        """Long table indexed by (class, do, confusion)."""
        import pandas as pd

        return pd.DataFrame(self.to_records()).set_index(["class", "do", "confusion"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: slot, method, error_rates, table (records) and interval settings."""
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

        index = pd.MultiIndex.from_product([CLASSES, CLASSES], names=["class", "do"])
        return pd.DataFrame(self.probabilities.reshape(4, 4), index=index,
                            columns=pd.Index(list(OUTCOMES), name="confusion"))

    def _repr_html_(self) -> str:
        grid = self.grid()
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
        """The table pivoted to one row per (class, do) and one column per outcome."""
        text = self.grid().to_string(float_format=lambda v: f"{v:.6g}")
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


def _index(name: str, valid: tuple[str, ...], what: str) -> int:
    try:
        return valid.index(name)
    except ValueError:
        raise ValidationError(f"{what} {name!r} is not one of {', '.join(valid)}") from None

