"""Instance-level assignments attaining a bound: which instances are of which kind.

Each instance of a class is of one *kind* (``never``, ``wrong_only``, ``always`` or
``right_only``, by how the system reacts to the slot; see :mod:`~causalcost.pricing.bounds`)
and is a hit
or a mistake of the model. A :class:`Witness` places the model's hits and mistakes on the kinds so
that the system errors it implies equal the bound it witnesses.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion, _as_count, _exact, _num, _show, _sum
from causalcost.confusion import format_number as _fmt
from causalcost.display import html_block, html_table
from causalcost.errors import CountError, InputTypeError, ValidationError
from causalcost.pricing.closed_forms import _check_assumption

__all__ = ["KINDS", "KIND_LABELS", "ClassWitness", "Witness", "display_count"]

#: Instance kinds, by how the system reacts to the slot.
KINDS: tuple[str, str, str, str] = ("never", "wrong_only", "always", "right_only")
#: What each kind means.
KIND_LABELS: dict[str, str] = {
    "never": "never fails",
    "wrong_only": "fails only when the slot is wrong",
    "always": "always fails",
    "right_only": "fails only when the slot is right",
}
_Pair = tuple[float, float]


# ------------------------------------------------------------------------------ witnesses
@dataclass(frozen=True)
class ClassWitness:
    """Instances of one class by kind, each as ``(model hits, model mistakes)``.

    Examples
    --------
    >>> w = ClassWitness(never=(0, 0), wrong_only=(0, 50), always=(50, 0))
    >>> w.fails_forced_correct, w.fails_forced_wrong, w.hits, w.mistakes, w.errors
    (50.0, 100.0, 50.0, 50.0, 100.0)
    """

    never: _Pair = (0.0, 0.0)
    wrong_only: _Pair = (0.0, 0.0)
    always: _Pair = (0.0, 0.0)
    right_only: _Pair = (0.0, 0.0)

    def __post_init__(self) -> None:
        for kind in KINDS:
            value = getattr(self, kind)
            if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, np.ndarray)):
                raise InputTypeError(f"witness {kind} must be a pair (hits, mistakes), got "
                                     f"{type(value).__name__}")
            if len(value) != 2:
                raise CountError(f"witness {kind} must be a pair (hits, mistakes) >= 0, got "
                                 f"{len(value)} values")
            pair = tuple(_as_count(f"witness {kind}", v, CountError) for v in value)
            if min(pair) < 0:
                raise CountError(f"witness {kind} must be (hits, mistakes) >= 0, got "
                                 f"({_fmt(pair[0])}, {_fmt(pair[1])})")
            object.__setattr__(self, kind, pair)
        if self.size > sys.float_info.max:
            raise CountError("witness counts too large: the class's total overflows float64")

    @property
    def size(self) -> float:
        """Instances of the class."""
        return _sum(self.hits, self.mistakes)

    @property
    def hits(self) -> float:
        """Instances the model gets right (``nc``)."""
        return _sum(*(getattr(self, k)[0] for k in KINDS))

    @property
    def mistakes(self) -> float:
        """Instances the model gets wrong (``nw``)."""
        return _sum(*(getattr(self, k)[1] for k in KINDS))

    @property
    def fails_forced_correct(self) -> float:
        """System failures with the slot forced to the correct class (``fc``)."""
        return _sum(*self.always, *self.right_only)

    @property
    def fails_forced_wrong(self) -> float:
        """System failures with the slot forced to the wrong class (``fw``)."""
        return _sum(*self.always, *self.wrong_only)

    def errors_by_kind(self) -> dict[str, float]:
        """System errors each kind contributes under this placement of the model's outcomes."""
        return {"never": 0.0, "wrong_only": self.wrong_only[1], "always": _sum(*self.always),
                "right_only": self.right_only[0]}

    @property
    def errors(self) -> float:
        """System errors in the class under this placement."""
        return _sum(*self.errors_by_kind().values())

    def __repr__(self) -> str:
        shown = [k for k in KINDS if k != "right_only" or any(self.right_only)]
        inner = ", ".join(f"{k}=({_fmt(getattr(self, k)[0])}, {_fmt(getattr(self, k)[1])})"
                          for k in shown)
        return f"ClassWitness({inner})"


@dataclass(frozen=True)
class Witness:
    """An instance-level assignment attaining a bound: per class, kind -> (hits, mistakes).

    Its kind totals reproduce the forced failure counts, its hit/mistake totals the model's
    confusion, and the system errors it implies equal the bound it witnesses.

    Attributes
    ----------
    positives, negatives : ClassWitness
        The assignment on each class.
    assumption : str
        ``"monotone"`` (no ``right_only`` instances) or ``"none"``.

    Examples
    --------
    >>> from causalcost.pricing.bounds import bound
    >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
    >>> b.worst_witness.positives
    ClassWitness(never=(0, 0), wrong_only=(0, 50), always=(50, 0))
    >>> b.worst_witness.system_confusion()
    Confusion(tp=0, fn=100, fp=0, tn=0)
    """

    positives: ClassWitness
    negatives: ClassWitness
    assumption: str

    def __post_init__(self) -> None:
        for name in ("positives", "negatives"):
            if not isinstance(getattr(self, name), ClassWitness):
                raise InputTypeError(f"witness {name} must be a ClassWitness, got "
                                     f"{type(getattr(self, name)).__name__}")
        _check_assumption(self.assumption)
        if self.assumption == "monotone" and (any(self.positives.right_only)
                                              or any(self.negatives.right_only)):
            raise ValidationError("a monotone witness cannot hold 'right_only' instances")

    def system_confusion(self) -> Confusion:
        """The system confusion this assignment produces."""
        fn, fp = self.positives.errors, self.negatives.errors
        return Confusion(tp=_rest(self.positives.size, fn), fn=fn, fp=fp,
                         tn=_rest(self.negatives.size, fp))

    def _kinds(self) -> tuple[str, ...]:
        return KINDS if self.assumption == "none" else KINDS[:3]

    def to_dict(self) -> dict[str, Any]:
        """``{"assumption": .., "positives": {kind: {"hits", "mistakes"}}, "negatives": ..}``."""
        out: dict[str, Any] = {"assumption": self.assumption}
        for name, cw in (("positives", self.positives), ("negatives", self.negatives)):
            out[name] = {k: dict(zip(("hits", "mistakes"), getattr(cw, k), strict=True))
                         for k in self._kinds()}
        return out

    def to_frame(self) -> pd.DataFrame:
        """Rows (class, kind); columns hits, mistakes, system_errors.

        Float64 columns, or ``object`` with exact Python ints when a count exceeds ``2**53``.
        """
        rows, index = [], []
        for cls, cw in (("P", self.positives), ("N", self.negatives)):
            errors = cw.errors_by_kind()
            for k in self._kinds():
                rows.append([*getattr(cw, k), errors[k]])
                index.append((cls, k))
        exact = any(isinstance(v, int) for row in rows for v in row)
        return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["class", "kind"]),
                            columns=["hits", "mistakes", "system_errors"],
                            dtype=object if exact else float)

    def describe(self) -> str:
        """The assignment in sentences, one line per class.

        Kinds come in the order of the table in :mod:`~causalcost.pricing.bounds` (``never``,
        ``wrong_only``, ``always``, ``right_only``), each with the model's hits and then its
        mistakes on it; kinds with no instance are skipped. Expected (fractional) counts say
        so and are rounded for reading: "about 174 model mistakes" (whole from 10 on, two
        significant digits below: "about 6.6"); numbers and nouns agree ("1 model hit", "2
        model hits").

        >>> from causalcost.pricing.bounds import bound
        >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
        >>> print(b.worst_witness.describe())
        positives: 50 model mistakes on instances that fail only when the slot is wrong, 50 model hits on instances that always fail -> 100 system errors
        >>> w = Witness(ClassWitness(always=(1, 0), never=(0, 0.915888)), ClassWitness(), "none")
        >>> print(w.describe())
        positives: about 0.92 model mistakes on instances that never fail, 1 model hit on an instance that always fails -> 1 system error
        >>> w = Witness(ClassWitness(wrong_only=(25.5, 173.6)), ClassWitness(), "none")
        >>> print(w.describe())
        positives: about 26 model hits and about 174 model mistakes on instances that fail only when the slot is wrong -> about 174 system errors
        """  # noqa: E501
        lines = []
        for name, cw in (("positives", self.positives), ("negatives", self.negatives)):
            parts = []
            for kind in self._kinds():
                pair = getattr(cw, kind)
                said = [_counted(count, f"model {noun}")
                        for count, noun in zip(pair, ("hit", "mistake"), strict=True) if count]
                if said:
                    parts.append(f"{' and '.join(said)} on "
                                 f"{_instances(_sum(*pair), KIND_LABELS[kind])}")
            if parts:
                lines.append(f"{name}: {', '.join(parts)} -> "
                             f"{_counted(cw.errors, 'system error')}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Witness(assumption={self.assumption!r}, positives={self.positives!r}, "
                f"negatives={self.negatives!r})")

    def _repr_html_(self) -> str:
        return html_block("Witness: one way the instances can be arranged",
                          html_table(self.to_frame()), self.describe().splitlines())


# ------------------------------------------------------------------------------ text
def display_count(value: float) -> str:
    """A count for reading: whole numbers whole, expected counts to two decimals.

    Values under 0.005 keep two significant digits so they do not read as zero.

    >>> display_count(1.0), display_count(0.915888), display_count(2.5), display_count(0.0012)
    ('1', '0.92', '2.5', '0.0012')
    """
    text = _fmt(value)  # refuses what is not a real number
    if isinstance(value, (int, np.integer)) or float(value).is_integer() or not np.isfinite(value):
        return text
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") else f"{value:.2g}"


def _about(value: float) -> str:
    """A count in a sentence: whole counts as they are; expected (fractional) ones as "about
    174" (whole from 10 on) or "about 6.6" (two significant digits below 10).

    >>> _about(174.0), _about(173.6), _about(6.6000000000000005), _about(2.0000000000000004)
    ('174', 'about 174', 'about 6.6', '2')
    """
    text = display_count(value)  # refuses what is not a real number
    number = float(value)
    if not np.isfinite(number) or abs(number - round(number)) <= 1e-9 * max(1.0, abs(number)):
        return display_count(round(number)) if np.isfinite(number) else text
    return f"about {round(number)}" if abs(number) >= 10 else f"about {number:.2g}"


def _counted(value: float, noun: str) -> str:
    """``"1 model hit"``, ``"2 model hits"``, ``"about 0.5 model hits"``."""
    text = _about(value)
    return f"{text} {noun}" if text.removeprefix("about ") == "1" else f"{text} {noun}s"


def _instances(value: float, label: str) -> str:
    """``"an instance that always fails"`` or ``"instances that always fail"``."""
    if value == 1:
        return f"an instance that {label}"
    return f"instances that {label.replace('fails', 'fail')}"


def _rest(size: float, part: float) -> float:
    """``size - part`` exactly for counts, clipped at 0 (rounding of expected counts)."""
    return _num(max(0, _exact(size) - _exact(part)))


# ------------------------------------------------------------------------------ construction
def _split(size: float, in_fc: float, in_fw: float) -> dict[str, float]:
    """Split a group into kinds given how many of it fail forced-correct / forced-wrong."""
    always = max(0, in_fc + in_fw - size)
    return {"never": max(0, size - in_fc - in_fw + always),
            "wrong_only": max(0, in_fw - always), "always": always,
            "right_only": max(0, in_fc - always)}


def _class_witness(fc: float, fw: float, nc: float, nw: float, assumption: str,
                   worst: bool) -> ClassWitness:
    if assumption == "monotone":  # hits: on always (c), never (a), wrong_only (b)
        spare = nc + nw - fw
        if worst:  # hits where the system fails anyway, then where it never fails
            hc = min(nc, fc)
            ha = min(nc - hc, spare)
            hb = max(0, nc - hc - ha)
        else:  # hits where they rescue the system first
            hb = min(nc, fw - fc)
            ha = min(nc - hb, spare)
            hc = max(0, nc - hb - ha)
        return ClassWitness(never=(ha, max(0, spare - ha)),
                            wrong_only=(hb, max(0, fw - fc - hb)),
                            always=(hc, max(0, fc - hc)))
    hits_fc = min(nc, fc) if worst else max(0, fc - nw)
    mistakes_fw = min(nw, fw) if worst else max(0, fw - nc)
    h = _split(nc, hits_fc, max(0, fw - mistakes_fw))
    m = _split(nw, max(0, fc - hits_fc), mistakes_fw)
    return ClassWitness(**{k: (h[k], m[k]) for k in KINDS})


# ------------------------------------------------------------------------------ the kinds frame
#: Kind counts of one class: (never, wrong_only, always, right_only).
KindCounts = tuple[int, int, int, int]


def _read_kinds(kinds: object) -> dict[str, KindCounts]:
    """Validated kind counts per class from a DataFrame (or a mapping class -> kind -> count)."""
    if isinstance(kinds, Mapping):
        kinds = pd.DataFrame.from_dict(dict(kinds), orient="index")
    if not isinstance(kinds, pd.DataFrame):
        raise InputTypeError(
            "kinds must be a pandas DataFrame indexed by class 'P', 'N' with columns "
            f"{', '.join(KINDS)} (see count_kinds), got {type(kinds).__name__}")
    index, columns = list(kinds.index), list(kinds.columns)
    if sorted(map(str, index)) != sorted(CLASSES) or len(set(index)) != 2:
        raise ValidationError(f"kinds must have exactly the rows 'P' and 'N' (one per class), "
                              f"got {_show(index)}")
    if len(set(columns)) != len(columns) or set(columns) != set(KINDS):
        missing = [k for k in KINDS if k not in columns]
        unknown = sorted(map(str, set(columns) - set(KINDS)))
        raise ValidationError(
            f"kinds must have exactly the columns {', '.join(KINDS)}"
            + (f"; missing {missing}" if missing else "")
            + (f"; unknown {unknown}" if unknown else "")
            + ("; a column is repeated" if len(set(columns)) != len(columns) else ""))
    out = {}
    for cls in CLASSES:
        counts = []
        for kind in KINDS:
            value = kinds.at[cls, kind]
            value = value.item() if isinstance(value, np.generic) else value
            value = _as_count(f"kinds[{cls!r}, {kind!r}]", value, CountError)
            if value < 0 or not float(value).is_integer():
                raise CountError(f"kinds[{cls!r}, {kind!r}] must be an integer count >= 0, got "
                                 f"{_fmt(value)}")
            counts.append(int(value))
        out[cls] = tuple(counts)
    return out  # type: ignore[return-value]
