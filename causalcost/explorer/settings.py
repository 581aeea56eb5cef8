"""What the explorer's controls hold: one settings type for every system and every K.

A system declared by its parts can be rebuilt from a handful of numbers: the class prior, each
model's confusion rates ``P(model = j | Class = c)`` (rows the true class), the latents, and
the fusion rule with its options. :class:`ExplorerSettings` holds them for any K:

* a binary network (the shipped ones, one made with the binary
  :class:`~causalcost.SystemBuilder`, a pgmpy network) has labels ``("P", "N")``, its class
  prior as ``P(Class = positive)`` and each model's rates also as the binary view ``rates``
  (sensitivity, specificity); two models may share a latent that correlates their correctness
  (``correlation``); the fusioner is its own rule or AND / OR / majority;
* a system declared by its labels (``SystemBuilder(prior, labels=[...])``, ``by_labels``) has
  its class prior as K probabilities, the rule's options in ``fusioner_options``, and its
  latents kept as declared (the models that depend on one are ``fixed``).

:func:`~causalcost.explorer.reading.explorer_settings` reads the settings off a system;
:func:`~causalcost.explorer.declare.declared_system` builds the system they describe. A system
of another shape cannot be re-declared: its settings say so (``adjustable`` is False) and the
explorer keeps the system as it is while the costs, the candidate and the intervention move.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import NotBinaryError, ValidationError

__all__ = ["FUSIONER_CHOICES", "LABEL_FUSIONER_CHOICES", "ExplorerSettings"]

#: The fusioner choices for a binary network: the system's own rule, or a standard vote.
FUSIONER_CHOICES = ("as declared", "and", "or", "majority")
#: The fusion rules for a system declared by its labels besides its own ("as declared").
LABEL_FUSIONER_CHOICES = ("as declared", "plurality", "weighted", "priority", "k_of_n")

Matrix = tuple[tuple[float, ...], ...]


def as_matrix(value: Any) -> Matrix:
    """A K x K matrix (array, nested list, or an object with ``to_numpy()``) as tuples."""
    arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=float)
    return tuple(tuple(float(v) for v in row) for row in np.atleast_2d(arr))


def binary_rates(sensitivity: float, specificity: float) -> Matrix:
    """The confusion rates of a binary model: ``[[se, 1 - se], [1 - sp, sp]]``."""
    return ((float(sensitivity), 1.0 - sensitivity), (1.0 - specificity, float(specificity)))


@dataclass(frozen=True)
class ExplorerSettings:
    """Everything the explorer's controls set, for a system of any K labels.

    Attributes
    ----------
    labels : tuple of str
        The K labels (``("P", "N")`` for a binary network).
    class_prior : float or tuple of float
        A binary network: ``P(Class = positive)``; a system declared by its labels: the K
        probabilities ``P(Class = label)``. :attr:`prior` is the K probabilities for both.
    confusions : tuple of (str, K x K tuple)
        Each model's confusion rates ``P(model = j | Class = c)`` (rows the true class), in
        the system's order; for a model with a latent, the marginal over it. For K = 2,
        :attr:`rates` is the same as ``(model, sensitivity, specificity)``.
    fusioner : str
        One of :data:`FUSIONER_CHOICES` (binary network) or :data:`LABEL_FUSIONER_CHOICES`.
    costs : CostMatrix
        K x K costs (rows the true class).
    candidate : Confusion
        The candidate's K x K confusion (rows the true class).
    intervention : str
        The label the slot is forced to in the picture (``"P"`` or ``"N"`` for a binary
        network).
    fusioner_options : tuple of (str, object)
        The rule's options (``tie``, ``weights``, ``order``, ``label``, ``k``) as
        :meth:`causalcost.SystemBuilder.set_fusioner` takes them; ignored for
        ``"as declared"``.
    correlation : tuple of (str, str, float, float) or None
        Binary network: ``(first, second, on positives, on negatives)``, the Pearson
        correlation of two models' correctness through their shared latent.
    high_confidence : bool
        Also show the worst case that holds with probability ``confidence`` on the
        candidate's own instances (binary network; it needs the binary closed forms).
    confidence : float
    adjustable : bool
        Whether the system's declaration can change; ``reason`` says why not.
    reason : str
    fixed : tuple of str
        Models whose rates per latent state stay as declared (changing them is refused).
    by_labels : bool
        The system was declared by its labels and is rebuilt so.
    """

    labels: tuple[str, ...]
    class_prior: float | tuple[float, ...]
    confusions: tuple[tuple[str, Matrix], ...]
    fusioner: str
    costs: CostMatrix
    candidate: Confusion
    intervention: str
    fusioner_options: tuple[tuple[str, Any], ...] = ()
    correlation: tuple[str, str, float, float] | None = None
    high_confidence: bool = False
    confidence: float = 0.95
    adjustable: bool = True
    reason: str = ""
    fixed: tuple[str, ...] = ()
    by_labels: bool = False

    # -- views ------------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def prior(self) -> tuple[float, ...]:
        """``P(Class = label)`` for each label (for a binary network ``(p, 1 - p)``)."""
        if isinstance(self.class_prior, tuple):
            return self.class_prior
        return (float(self.class_prior), 1.0 - float(self.class_prior))

    @property
    def rates(self) -> tuple[tuple[str, float, float], ...]:
        """``(model, sensitivity, specificity)`` per model: the two-label view of
        :attr:`confusions` (first label positive)."""
        if self.k != 2:
            raise NotBinaryError(f"rates (sensitivity, specificity) are for two labels; these "
                                 f"settings have {self.k}: use confusions / confusion_of")
        return tuple((m, c[0][0], c[1][1]) for m, c in self.confusions)

    def confusion_of(self, model: str) -> Matrix:
        """One model's K x K confusion rates."""
        for m, c in self.confusions:
            if m == model:
                return c
        raise ValidationError(f"no model {model!r} among {[m for m, _ in self.confusions]}")

    # -- changes ----------------------------------------------------------------------
    def replace(self, **changes: object) -> ExplorerSettings:
        """A copy with ``changes`` (field names, or ``rates`` for two labels), checked;
        matrices may be arrays.

        >>> import causalcost as cc
        >>> s = cc.explorer_settings(cc.load_network("thesis_and"))
        >>> s.replace(fusioner="or").fusioner
        'or'
        """
        names = [f.name for f in dataclasses.fields(self)]
        unknown = set(changes) - set(names) - {"rates"}
        if unknown:
            raise ValidationError(f"unknown explorer setting(s) {sorted(unknown)}; valid: "
                                  f"{[*names, 'rates']}")
        if "rates" in changes:
            changes["confusions"] = _from_rates(changes.pop("rates"))
        if "class_prior" in changes:
            changes["class_prior"] = self._read_prior(changes["class_prior"])
        if "confusions" in changes:
            changes["confusions"] = tuple((str(m), as_matrix(c))
                                          for m, c in changes["confusions"])  # type: ignore[attr-defined]
        if isinstance(changes.get("fusioner_options"), dict):
            changes["fusioner_options"] = tuple(changes["fusioner_options"].items())  # type: ignore[union-attr]
        new = dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        new.check()
        return new

    def _read_prior(self, value: Any) -> float | tuple[float, ...]:
        if isinstance(self.class_prior, tuple):
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise ValidationError(f"class_prior must be {self.k} probabilities (one per "
                                      f"label, {list(self.labels)}), got {value!r}")
            return tuple(float(v) for v in value)
        _probability("class_prior", value, open_interval=True)
        return float(value)

    def with_confusion(self, model: str, confusion: Any) -> ExplorerSettings:
        """A copy with one model's K x K confusion rates replaced."""
        self.confusion_of(model)
        return self.replace(confusions=tuple((m, as_matrix(confusion) if m == model else c)
                                             for m, c in self.confusions))

    def with_rate(self, model: str, *, sensitivity: float | None = None,
                  specificity: float | None = None) -> ExplorerSettings:
        """A copy with one model's sensitivity and/or specificity changed (two labels)."""
        _, se, sp = next((r for r in self.rates if r[0] == model), (None, None, None))
        if se is None:
            self.confusion_of(model)  # names the models
        return self.with_confusion(model, binary_rates(
            se if sensitivity is None else sensitivity, sp if specificity is None else
            specificity))

    def with_accuracy(self, model: str, label: str, accuracy: float) -> ExplorerSettings:
        """A copy where ``model`` is right on class ``label`` with probability ``accuracy``
        and its errors on that class are spread evenly over the other labels (the slider's
        rule)."""
        if label not in self.labels:
            raise ValidationError(f"no label {label!r} among {list(self.labels)}")
        _probability(f"accuracy of {model!r} on {label!r}", accuracy)
        rows = [list(r) for r in self.confusion_of(model)]
        c = self.labels.index(label)
        off = (1.0 - float(accuracy)) / (self.k - 1)
        rows[c] = [float(accuracy) if j == c else off for j in range(self.k)]
        return self.with_confusion(model, rows)

    # -- checks -----------------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`ValidationError` naming the first setting out of range or shape."""
        k = self.k
        if k < 2 or len(set(self.labels)) != k:
            raise ValidationError(f"labels must be at least 2 distinct names, got {self.labels}")
        if self.adjustable:  # otherwise the system is kept as it is: its rates are not used
            self._check_prior()
        self._check_confusions()
        self._check_choices()
        _check_correlation(self.correlation)
        for name, kind in (("costs", CostMatrix), ("candidate", Confusion)):
            value = getattr(self, name)
            labels = getattr(value, "labels", None)
            same = labels is not None and (tuple(map(str, labels)) == self.labels or (
                not self.by_labels and len(labels) == 2))  # binary: positive first
            if not isinstance(value, kind) or not same:
                raise ValidationError(f"{name} must be a {k} x {k} {kind.__name__} with the "
                                      f"labels {list(self.labels)}, got {value!r}")
        if self.intervention not in self.labels:
            raise ValidationError(f"intervention must be one of {list(self.labels)}, got "
                                  f"{self.intervention!r}")
        for name in ("high_confidence", "adjustable", "by_labels"):
            if not isinstance(getattr(self, name), bool):
                raise ValidationError(f"{name} must be True or False, got "
                                      f"{getattr(self, name)!r}")
        if self.high_confidence and self.by_labels:
            raise ValidationError("the high-confidence worst case needs counts on data, which "
                                  "an explorer of a system declared by its labels has not")
        _probability("confidence", self.confidence, open_interval=True)

    def _check_prior(self) -> None:
        if not isinstance(self.class_prior, tuple):
            _probability("class_prior", self.class_prior, open_interval=True)
            return
        prior = np.asarray(self.class_prior, dtype=float)
        if prior.shape != (self.k,) or not np.isfinite(prior).all() or prior.min() < 0 or abs(
                prior.sum() - 1) > 1e-9 or prior.max() >= 1:
            raise ValidationError(f"class_prior must be {self.k} probabilities (one per label, "
                                  f"{list(self.labels)}) summing to 1 with at least two above 0, "
                                  f"got {self.class_prior!r}")

    def _check_confusions(self) -> None:
        k = self.k
        if not isinstance(self.confusions, tuple):
            raise ValidationError(f"confusions must be a tuple of (model, {k} x {k} rates) "
                                  f"pairs, got {type(self.confusions).__name__}")
        for entry in self.confusions:
            if not isinstance(entry, tuple) or len(entry) != 2 or not isinstance(entry[0], str):
                raise ValidationError(f"confusions must be (model, {k} x {k} rates) pairs, "
                                      f"got the entry {entry!r}")
            m, c = entry
            arr = np.asarray(c, dtype=float)
            bad = arr.shape != (k, k) or (self.adjustable and (
                not np.isfinite(arr).all() or arr.min() < 0 or arr.max() > 1
                or (np.abs(arr.sum(axis=1) - 1) > 1e-9).any()))
            if bad:
                what = ("sensitivity and specificity must be numbers in [0, 1]" if k == 2
                        and not self.by_labels else f"confusion rates must be {k} x {k} rows "
                        "of probabilities summing to 1 (rows the true class)")
                raise ValidationError(f"the {what} for {m!r}, got {c!r}")

    def _check_choices(self) -> None:
        choices = LABEL_FUSIONER_CHOICES if self.by_labels else FUSIONER_CHOICES
        if self.fusioner not in choices:
            raise ValidationError(f"fusioner must be one of {choices}, got {self.fusioner!r}")

    def declaration(self) -> tuple[object, ...]:
        """The part that defines the system (what a rebuild depends on)."""
        return (self.class_prior, self.confusions, self.correlation, self.fusioner,
                self.fusioner_options)


def _from_rates(rates: object) -> tuple[tuple[str, Matrix], ...]:
    """``(model, sensitivity, specificity)`` triples as confusions (two labels)."""
    shape = ("rates must be a tuple of (model, sensitivity, specificity) triples, one per "
             "model in the system's order (or use with_rate(model, sensitivity=...))")
    if not isinstance(rates, tuple):
        raise ValidationError(f"{shape}; got {type(rates).__name__} {rates!r}")
    out = []
    for entry in rates:
        if not isinstance(entry, tuple) or len(entry) != 3 or not isinstance(entry[0], str):
            raise ValidationError(f"{shape}; got the entry {entry!r}")
        m, se, sp = entry
        _probability(f"sensitivity of {m!r}", se)
        _probability(f"specificity of {m!r}", sp)
        out.append((m, binary_rates(se, sp)))
    return tuple(out)


def _check_correlation(correlation: object) -> None:
    if correlation is None:
        return
    if not isinstance(correlation, tuple) or len(correlation) != 4:
        raise ValidationError(f"correlation must be None or (first model, second model, on "
                              f"positives, on negatives), got {correlation!r}")
    for where, rho in zip(("positives", "negatives"), correlation[2:]):
        if not _is_real(rho) or not -1 <= rho <= 1:
            raise ValidationError(f"correlation on {where} must lie in [-1, 1], got {rho!r}")


def _is_real(value: object) -> bool:
    return isinstance(value, (Real, np.floating)) and not isinstance(value, bool)


def _probability(name: str, value: Any, *, open_interval: bool = False) -> None:
    ok = _is_real(value) and (0 < value < 1 if open_interval else 0 <= value <= 1)
    if not ok:
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise ValidationError(f"{name} must be a number in {interval}, got {value!r}")
