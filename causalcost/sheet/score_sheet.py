"""The score sheet: what a system owner issues for a slot whose system fuses scores.

A score-fusing system (soft voting, stacking, max / min of scores; labels P, N) says P on an
instance iff the slot's score reaches the instance's **critical score** ``t``
(:mod:`causalcost.data.critical_scores`). Everything a candidate needs to be priced from its
scores is, per class, the distribution of ``t`` on the owner's instances: a
:class:`ScoreSheet` holds it with the system's costs, the slot, the rule in words and the
provenance, under a SHA-256 digest (and an optional signature) like a :class:`CostSheet`.

**Exact or on breakpoints.** Per class the distribution is kept on sorted finite
*breakpoints* with ``at[k]`` critical scores equal to ``b[k]`` and ``between[k]`` strictly
between ``b[k]`` and ``b[k + 1]``, plus ``always`` (``t = -inf``: P whatever the slot says)
and ``never`` (``t = +inf``). A sheet of every distinct value has nothing *between*: it is
exact. With ``breakpoints=B`` at most ``B`` finite values are kept per class and each
critical score in a gap is **rounded outward**: to the gap's upper end where that makes the
system worse and to its lower end where it makes it better. The worst case (and its
high-confidence form) is then computed on the worse rounding, the best case on the better
one and the expected cost on the worse one, so every bound stays valid: the worst and
expected costs can only be overstated, the best cost only understated.

**K labels.** A slot giving a probability vector ``p`` to a system that says
``argmax_k (A p + r)_k`` (soft voting, linear stacking; :class:`~causalcost.ScoreRuns` of K
labels) has, per instance, an **offset vector** ``r`` in place of a critical score. The same
sheet type then holds, per class, the offset vectors of the owner's instances
(:class:`~causalcost.sheet.offset_cells.OffsetCells`) with the slot's coefficients ``A``, the K
labels and the K x K costs, and prices a candidate's vectors with
:func:`~causalcost.pricing.score_vector_price.price_vectors`. With ``breakpoints=B`` the
vectors of a class are grouped into at most ``B`` cells (boxes), each priced at the corner
that keeps a bound valid (:func:`~causalcost.sheet.offset_pricing.price_offset_cells`): again the
worst and expected costs can only be overstated, the best cost only understated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, CostMatrix
from causalcost.cost_matrix import as_costs
from causalcost.display import format_cells
from causalcost.errors import SheetError, ValidationError
from causalcost.files import write_atomic
from causalcost.pricing.scores import ScoreBound, price_scores, price_scores_many
from causalcost.score_values import PROBABILITIES, as_score_range
from causalcost.sheet.critical import CriticalScores
from causalcost.sheet.digest import content_digest, created_now
from causalcost.sheet.offset_cells import OffsetCells
from causalcost.sheet.offset_pricing import (
    class_vectors,
    price_offset_cells,
    price_vector_candidates,
)
from causalcost.sheet.score_format import (
    SCORE_SHEET_FORMAT,
    SCORE_SHEET_VERSION,
    score_range_json,
    score_sheet_fields,
)
from causalcost.sheet.score_sheet_view import (
    QUANTILES,
    sheet_frame,
    sheet_html,
    sheet_quantiles,
    sheet_repr,
    sheet_text,
)
from causalcost.sheet.signature import SignedSheet
from causalcost.sheet.vector_fields import vector_content, vector_parts

if TYPE_CHECKING:
    from causalcost.data.score_runs import ScoreRuns

__all__ = ["SCORE_SHEET_FORMAT", "SCORE_SHEET_VERSION", "CriticalScores", "ScoreSheet",
           "score_sheet_from_runs"]

#: The sides a rounded distribution is read on.
SIDES = ("worse", "better")

# Per case: how each class's critical scores are rounded. The system is worse with a higher
# critical score on a positive (it says P less) and a lower one on a negative.
_ROUNDING = {"worse": ("up", "down"), "better": ("down", "up")}


@dataclass(frozen=True, eq=False)
class ScoreSheet(SignedSheet):
    """A score slot's sheet: per class the system's side (critical scores, or offset vectors
    for K labels), and the costs.

    Build it with :func:`causalcost.sheet_from_data` on score runs (a log read with a score
    fusioner, or :func:`causalcost.ensemble_runs`); price a candidate's scores with
    :meth:`price` (or :func:`causalcost.evaluate` / :func:`causalcost.compare` with
    ``scores=``).

    Attributes
    ----------
    slot : str
    system_name : str
    costs : CostMatrix
        The system's costs (labels P, N; K labels: K x K, rows the true class).
    critical : tuple of CriticalScores or None
        Per class (P, N). ``None`` for K labels.
    rule : str
        The fusion rule in words.
    models : tuple of str
        The score columns the rule fuses, the slot among them.
    provenance : dict
        Where the critical scores come from (``source``, ``description``, rows, ...).
    created, causalcost_version : str
    signature : dict or None
    labels : tuple of str
        ``("P", "N")``, or the K labels (as text) of a K-label slot.
    score_range : (float, float)
        The scores the rule takes (``(0, 1)``, probabilities, unless the log's rule declared
        another): a candidate's scores outside it are refused.
    offsets : tuple of OffsetCells or None
        K labels: per class (label order) its instances' offset vectors, exact or in cells.
        ``None`` for two labels.
    matrix : numpy.ndarray or None
        K labels: the slot's coefficients ``A`` (K x K). ``None`` for two labels.
    fusion : {"linear", "max", "min"}
        K labels: how the system fuses the vectors (:mod:`causalcost.pricing.score_fusions`;
        ``"linear"``: ``argmax(A p + r)``). ``"linear"`` for two labels.

    Raises
    ------
    ValidationError
        Fields of the wrong type or shape (read from a file: a
        :class:`~causalcost.errors.SheetError` naming the field).
    OverflowInputError
        Costs whose system cost on the sheet's instances (a class's size times its largest
        cost) overflows float64.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> frame = pd.DataFrame({"y": [1, 1, 0, 0], "a": [0.9, 0.3, 0.2, 0.6],
    ...                       "b": [0.6, 0.5, 0.1, 0.7]})
    >>> sheet = score_sheet_from_runs(score_runs(frame, truth="y", models=["a", "b"],
    ...                               slot="b"), cc.CostMatrix(fn=5, fp=1))
    >>> sheet.class_sizes, sheet.exact
    ((2, 2), True)
    >>> sheet.price({"P": [0.8, 0.8], "N": [0.0, 0.0]}).worst_cost
    0.0

    K labels, from a soft vote's runs (:func:`causalcost.forced_runs` with ``labels=``):

    >>> log = pd.DataFrame({"y": ["a", "c", "b"],
    ...     "m1_a": [0.6, 0.1, 0.2], "m1_b": [0.3, 0.1, 0.5], "m1_c": [0.1, 0.8, 0.3],
    ...     "m2_a": [0.2, 0.5, 0.3], "m2_b": [0.7, 0.4, 0.4], "m2_c": [0.1, 0.1, 0.3]})
    >>> runs = cc.forced_runs(log, truth="y", models=["m1", "m2"], slot="m2",
    ...     fusioner="mean", labels=["a", "b", "c"],
    ...     scores={"a": "{model}_a", "b": "{model}_b", "c": "{model}_c"})
    >>> sheet3 = score_sheet_from_runs(runs, 1 - np.eye(3))
    >>> sheet3.k, sheet3.class_sizes, sheet3.exact
    (3, (1, 1, 1), True)
    >>> sheet3.price([[[1, 0, 0]], [[0, 1, 0]], [[0, 0, 1]]], same_instances=True).worst_cost
    0.0
    """

    slot: str
    system_name: str
    costs: CostMatrix
    critical: tuple[CriticalScores, ...] | None
    rule: str
    models: tuple[str, ...] = ()
    provenance: dict[str, Any] = field(default_factory=lambda: {"source": "unspecified"})
    created: str | None = None
    causalcost_version: str | None = None
    signature: dict[str, str] | None = field(default=None, repr=False)
    labels: tuple[str, ...] = field(default=CLASSES)
    score_range: tuple[float, float] = PROBABILITIES
    offsets: tuple[OffsetCells, ...] | None = field(default=None, repr=False)
    matrix: np.ndarray | None = field(default=None, repr=False)
    fusion: str = "linear"

    def __post_init__(self) -> None:
        if self.created is None:
            object.__setattr__(self, "created", created_now())
        if self.causalcost_version is None:
            from causalcost import __version__

            object.__setattr__(self, "causalcost_version", __version__)
        if self.offsets is not None or self.matrix is not None:
            self._take_vectors()
        else:
            object.__setattr__(self, "costs", as_costs(self.costs, CLASSES))
            if self.critical is None or len(self.critical) != 2 or not all(
                    isinstance(c, CriticalScores) for c in self.critical):
                raise ValidationError("critical: one CriticalScores per class (P, N)")
            object.__setattr__(self, "critical", tuple(self.critical))
            if tuple(self.labels) != CLASSES:
                raise ValidationError("a score sheet's labels are ('P', 'N'): the slot's "
                                      "score is its score for P (K labels: give offsets= "
                                      "and matrix=)")
            if self.fusion != "linear":
                raise ValidationError(f"fusion: {self.fusion!r} is a K-label fusion; a "
                                      "two-label score sheet holds critical scores (leave "
                                      "fusion out)")
        object.__setattr__(self, "models", tuple(str(m) for m in self.models))
        object.__setattr__(self, "score_range", as_score_range(self.score_range))
        if not isinstance(self.slot, str) or not self.slot:
            raise ValidationError("slot: the slot's name, a non-empty string")
        for name in ("system_name", "rule"):
            if not isinstance(getattr(self, name), str):
                raise ValidationError(f"{name}: a string, got "
                                      f"{type(getattr(self, name)).__name__}")
        if not isinstance(self.provenance, Mapping):
            raise ValidationError(f"provenance: a mapping of plain values, got "
                                  f"{type(self.provenance).__name__}")
        object.__setattr__(self, "provenance", dict(self.provenance))
        if sum(self.class_sizes) == 0:
            raise ValidationError(f"{'critical' if self.critical is not None else 'offsets'}"
                                  ": a score sheet needs at least one instance")
        self._refuse_cost_overflow()
        self._take_signature()

    def _take_vectors(self) -> None:
        """K labels: the fields checked and normalised (:func:`vector_parts`)."""
        if self.critical is not None:
            raise ValidationError("critical: a K-label score sheet holds offset vectors "
                                  "(offsets=, matrix=), not critical scores; give "
                                  "critical=None")
        parts = vector_parts(self.labels, self.costs, self.matrix, self.offsets, self.fusion)
        for name, value in zip(("labels", "costs", "matrix", "offsets", "fusion"), parts):
            object.__setattr__(self, name, value)

    def _refuse_cost_overflow(self) -> None:
        """The system cost of the sheet's instances, at most each class's size times its
        largest cost, must fit in float64: every price is a sum of such terms."""
        import math

        from causalcost.errors import OverflowInputError

        rows = np.abs(self.costs.to_numpy()).max(axis=1)
        with np.errstate(over="ignore"):
            bound = float(sum(float(n) * float(r) for n, r in zip(self.class_sizes, rows)))
        if not math.isfinite(bound):
            raise OverflowInputError(
                f"costs: {format_cells(self.costs)} on {sum(self.class_sizes)} instances "
                "give system costs beyond float64; rescale the costs (divide them all by a "
                "common factor)")

    # -- what it holds ----------------------------------------------------------------------
    @property
    def class_sizes(self) -> tuple[int, ...]:
        """Instances per class (P, N; K labels: in label order) the sheet was counted on."""
        if self.offsets is not None:
            return tuple(o.size for o in self.offsets)
        assert self.critical is not None
        return self.critical[0].size, self.critical[1].size

    @property
    def instances_counted(self) -> str:
        """What the sheet counted on instances of its own: ``"critical scores"`` (K labels:
        ``"offset vectors"``; the words :func:`~causalcost.sheet.instances.decide_instances`
        reports)."""
        return "critical scores" if self.offsets is None else "offset vectors"

    @property
    def class_counts(self) -> tuple[int, ...]:
        """The binary name of :attr:`class_sizes` (positives, negatives), as on a
        :class:`~causalcost.CostSheet` counted on data."""
        return self.class_sizes

    @property
    def label_names(self) -> tuple[str, ...]:
        """``("P", "N")`` or the K labels: the sheet contract's name of :attr:`labels`."""
        return self.labels

    @property
    def k(self) -> int:
        """The number of labels (2: P and N)."""
        return len(self.labels)

    @property
    def binary(self) -> bool:
        """Whether the sheet is of the two labels P and N (critical scores)."""
        return self.offsets is None

    @property
    def verified(self) -> bool:
        """True: a score sheet always carries its digest (checked when it is read)."""
        return True

    @property
    def exact(self) -> bool:
        """Whether the sheet holds every critical score or offset vector (nothing rounded to
        breakpoints or cells)."""
        return all(c.exact for c in (self.offsets or self.critical or ()))

    @property
    def slot_matrix(self) -> np.ndarray:
        """K labels: the slot's coefficients ``A`` (as :attr:`ScoreRuns.slot_matrix
        <causalcost.ScoreRuns.slot_matrix>`); the identity for two labels."""
        return np.eye(2) if self.matrix is None else self.matrix

    @property
    def offsets_by_class(self) -> tuple[np.ndarray, ...]:
        """K labels, exact sheet: per class its instances' offset vectors (as
        :attr:`ScoreRuns.offsets_by_class <causalcost.ScoreRuns.offsets_by_class>`, so
        :func:`~causalcost.pricing.scores.price_scores` takes the sheet). A sheet on cells
        holds boxes, not vectors: it is priced by :meth:`price` only."""
        if self.offsets is None:
            raise ValidationError("offsets_by_class belongs to a K-label score sheet; this "
                                  "one holds critical scores (critical_by_class)")
        if not self.exact:
            raise ValidationError("offsets_by_class: this sheet keeps its offset vectors in "
                                  "cells (breakpoints=), each priced at its valid corner; "
                                  "price it with sheet.price(...)")
        return tuple(o.corner(c, True) for c, o in enumerate(self.offsets))

    def _binary_only(self, what: str) -> tuple[CriticalScores, ...]:
        if self.critical is None:
            raise ValidationError(
                f"{what} belongs to a two-label score sheet (critical scores); this one has "
                f"K = {self.k} labels {list(self.labels)}, whose classes hold offset vectors "
                "(offsets)")
        return self.critical

    def critical_by_class(self, case: str = "worse") -> tuple[np.ndarray, np.ndarray]:
        """Per class (P, N) the sorted critical scores, rounded to make the system ``"worse"``
        or ``"better"`` (the same either way on an exact sheet). Two labels only."""
        critical = self._binary_only("critical_by_class")
        if case not in _ROUNDING:
            raise ValidationError(f"case must be one of {SIDES}, got {case!r}")
        return tuple(c.values(r) for c, r in zip(critical,  # type: ignore[return-value]
                                                 _ROUNDING[case]))

    # -- pricing ----------------------------------------------------------------------------
    def price(self, scores: Any, *, same_instances: bool = False,
              confidence: float | None = None) -> ScoreBound:
        """Price one candidate from its scores per class (``{"P": ..., "N": ...}`` or a pair):
        expected, worst and best system confusion and cost
        (:func:`~causalcost.pricing.scores.price_scores`), on the rounding that keeps each
        bound valid.

        K labels: the candidate's probability vectors per class, one array (n_c, K) per label
        in label order or ``{label: array}`` (a DataFrame's columns matched to the labels by
        name), read by :func:`~causalcost.score_values.read_score_vectors`, priced by
        :func:`~causalcost.pricing.score_vector_price.price_vectors` (cells at their valid
        corners: :func:`~causalcost.sheet.offset_pricing.price_offset_cells`).
        ``same_instances=False`` gives the probability form's costs (``worst`` and ``best``
        are then ``None``), and with ``confidence`` its high-confidence worst and best case
        (:mod:`causalcost.pricing.score_vector_band`; an exact sheet of a linear fusion).
        """
        if self.offsets is not None:
            return price_offset_cells(self.matrix, self.offsets,
                                      class_vectors(scores, self.labels, self.score_range),
                                      self.costs, labels=self.labels,
                                      same_instances=bool(same_instances),
                                      score_range=self.score_range, fusion=self.fusion,
                                      confidence=confidence)
        worse = price_scores(self.critical_by_class("worse"), scores, self.costs,
                             same_instances=same_instances, confidence=confidence,
                             score_range=self.score_range)
        if self.exact:
            return worse
        better = price_scores(self.critical_by_class("better"), scores, self.costs,
                              same_instances=same_instances, confidence=confidence,
                              score_range=self.score_range)
        extra: dict[str, Any] = {}
        if confidence is not None:
            extra = dict(high_confidence_best=better.high_confidence_best,
                         high_confidence_best_cost=better.high_confidence_best_cost)
        return _replace(worse, best=better.best, best_cost=better.best_cost, **extra)

    def price_many(self, scores: Any, *, same_instances: bool = False,
                   confidence: float | None = None,
                   names: Sequence[Any] | None = None) -> pd.DataFrame:
        """:meth:`price` for many candidates (per class a (candidates, n_c) array), one row
        per candidate (:func:`~causalcost.pricing.scores.price_scores_many`); ``names`` name
        the rows, each once (as text: ``1`` and ``"1"`` are one name).

        K labels: per class a (candidates, n_c, K) array; priced one candidate after another
        with :meth:`price`; the columns are ``eval1``, ``worst_cost``, ``best_cost`` and per
        class the right answers ``expected_right[label]``, ``worst_right[label]`` and
        ``best_right[label]`` (NaN where the bound has no confusion)."""
        if names is not None:
            shown = [str(n) for n in names]
            twice = next((n for k, n in enumerate(shown) if n in shown[:k]), None)
            if twice is not None:
                raise ValidationError(f"names: two candidates are named {twice!r} (names are "
                                      "compared as text, so 1 and '1' are one name); rename "
                                      "one")
        if self.offsets is not None:
            self._no_confidence(confidence)
            return price_vector_candidates(self.matrix, self.offsets, scores, self.costs,
                                           labels=self.labels, score_range=self.score_range,
                                           same_instances=bool(same_instances), names=names,
                                           fusion=self.fusion)
        worse = price_scores_many(self.critical_by_class("worse"), scores, self.costs,
                                  same_instances=same_instances, confidence=confidence,
                                  names=names, score_range=self.score_range)
        if self.exact:
            return worse
        better = price_scores_many(self.critical_by_class("better"), scores, self.costs,
                                   same_instances=same_instances, confidence=confidence,
                                   names=names, score_range=self.score_range)
        columns = [c for c in better.columns if c.startswith("best")] + \
            (["high_confidence_best_cost"] if confidence is not None else [])
        worse = worse.copy()
        worse[columns] = better[columns]
        return worse

    def _no_confidence(self, confidence: float | None) -> None:
        if confidence is not None:
            raise ValidationError(
                "confidence: the high-confidence worst and best case (DKW bands on critical "
                "scores) belong to two-label score sheets; a K-label sheet prices the "
                "expected, worst and best case (leave confidence out)")

    def with_costs(self, costs: Any) -> ScoreSheet:
        """The same critical scores (offset vectors) priced with other system costs: a new,
        unsigned sheet whose provenance records the digest it was re-priced from."""
        provenance = {**self.provenance, "repriced_from": self.digest}
        return ScoreSheet(slot=self.slot, system_name=self.system_name, costs=costs,
                          critical=self.critical, rule=self.rule, models=self.models,
                          provenance=provenance, score_range=self.score_range,
                          labels=self.labels, offsets=self.offsets, matrix=self.matrix,
                          fusion=self.fusion)

    # -- serialisation ----------------------------------------------------------------------
    def _content(self) -> dict[str, Any]:
        common = {"format": SCORE_SHEET_FORMAT, "version": SCORE_SHEET_VERSION,
                  "created": self.created, "causalcost_version": self.causalcost_version,
                  "slot": self.slot, "system_name": self.system_name,
                  "labels": list(self.labels)}
        tail = {} if self.score_range == PROBABILITIES else \
            {"score_range": score_range_json(self.score_range)}
        if self.offsets is not None:
            return {**common, **vector_content(self.costs, self.rule, self.models, self.matrix,
                                               self.labels, self.offsets, self.fusion),
                    "provenance": dict(self.provenance), **tail}
        critical = self._binary_only("critical")
        return {**common, "costs": self.costs.to_dict(), "rule": self.rule,
                "models": list(self.models),
                "critical": {c: d.to_dict() for c, d in zip(self.labels, critical)},
                "provenance": dict(self.provenance), **tail}

    @cached_property
    def digest(self) -> str:
        """``"sha256:<hex>"`` of the sheet's canonical content."""
        return content_digest(self._content())

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready sheet: every field, ``digest`` and ``signature``."""
        body = self._content()
        return {**body, "digest": {"sha256": content_digest(body)},
                "signature": None if self.signature is None else dict(self.signature)}

    def to_json(self, indent: int | None = 2) -> str:
        """The sheet as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | Path) -> Path:
        """Write the sheet as JSON to ``path`` (UTF-8) and return the path."""
        return write_atomic(path, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScoreSheet:
        """Validate and rebuild a sheet from its JSON object, checking its digest."""
        fields, digest = score_sheet_fields(data)
        try:
            sheet = cls(**fields)
        except SheetError:
            raise
        except (ValidationError, TypeError, ValueError) as exc:
            raise SheetError(f"invalid score sheet: {exc}") from None
        if digest is not None and digest != sheet.digest:
            raise SheetError("the score sheet's digest does not match its content: it was "
                             "changed after it was issued; ask its owner for the original")
        return sheet

    # -- display ----------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One row per (class, breakpoint): the breakpoint, how many critical scores are at it
        and in the gap above it, and the share of the class the system says P on when the
        slot is forced to that score (``forced_p_low`` / ``forced_p_high``: equal on an exact
        sheet).

        K labels: one row per (class, row of its offsets): ``count`` and ``offset[label]``
        per label (exact), or each cell's ``lower[label]`` and ``upper[label]``."""
        return sheet_frame(self)

    def critical_quantiles(self, levels: Sequence[float] = QUANTILES) -> pd.DataFrame:
        """A few quantiles of the critical scores per class (``-inf``: the system says P
        whatever the slot's score; ``inf``: never), with each class's size and its
        ``always`` / ``never`` counts.

        On an exact sheet one row per class (``rounded`` is ``"exact"``); on breakpoints two,
        the values rounded ``"down"`` and ``"up"``: the true quantile lies between them.

        K labels (no critical scores): per class ``c`` and other label ``k`` (``versus``) the
        quantiles of the **lead** ``r_c - r_k`` of the instances' offset vectors (by how much
        the other members favour the true class over ``k``); on cells read at the ends that
        make it smallest (``"down"``) and largest (``"up"``).

        Examples
        --------
        >>> from causalcost.sheet.critical import CriticalScores
        >>> t = CriticalScores.of([0.1, 0.4, 0.6, float("inf")])
        >>> sheet = ScoreSheet(slot="b", system_name="s", costs=CostMatrix(fn=5, fp=1),
        ...                    critical=(t, CriticalScores.of([0.5])), rule="mean >= 0.5")
        >>> sheet.critical_quantiles((0.0, 0.5, 1.0)).loc["P"].to_dict("records")
        [{'n': 4, 'always': 0, 'never': 1, 'min': 0.1, '50%': 0.4, 'max': inf}]
        """
        return sheet_quantiles(self, levels)

    def __str__(self) -> str:
        return sheet_text(self)

    def _repr_html_(self) -> str:
        return sheet_html(self)

    def __repr__(self) -> str:
        return sheet_repr(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreSheet):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.digest)


def _replace(bound: ScoreBound, **changes: Any) -> ScoreBound:
    import dataclasses

    return dataclasses.replace(bound, **changes)


def score_sheet_from_runs(runs: ScoreRuns, costs: Any, *, breakpoints: int | None = None,
                          description: str | None = None, system_name: str = "system",
                          row_ids: Any = None) -> ScoreSheet:
    """A :class:`ScoreSheet` from a log's critical scores (:class:`ScoreRuns`).

    Parameters
    ----------
    runs : ScoreRuns
        Of two labels (critical scores) or K labels (offset vectors and the slot's matrix).
    costs : CostMatrix or (2, 2) matrix
        K labels: a K x K matrix (rows the true class) or a CostMatrix over the labels.
    breakpoints : int, optional
        Keep at most this many finite values per class, rounding outward (see the module);
        every critical score by default (exact). K labels: at most this many cells of offset
        vectors per class, each priced at the corner that keeps a bound valid. A whole number
        >= 2, else :class:`~causalcost.errors.ValidationError`
        (:class:`~causalcost.errors.InputTypeError` for a string or a boolean).
    description : str, optional
        What the log is (recorded in the provenance).
    system_name : str
    row_ids : array-like, optional
        One identifier per row of the log: the sheet records their fingerprint, so a
        candidate scored on these very rows can prove it.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> rng = np.random.default_rng(1)
    >>> s = rng.random((500, 3))
    >>> runs = score_runs(s, truth=rng.random(500) < 0.4, slot=1)
    >>> exact = score_sheet_from_runs(runs, cc.CostMatrix(fn=5, fp=1))
    >>> small = score_sheet_from_runs(runs, cc.CostMatrix(fn=5, fp=1), breakpoints=20)
    >>> c = ([0.7] * exact.class_sizes[0], [0.2] * exact.class_sizes[1])
    >>> a, b = exact.price(c, same_instances=True), small.price(c, same_instances=True)
    >>> b.worst_cost >= a.worst_cost and b.best_cost <= a.best_cost
    True
    """
    from causalcost.sheet.instances import FINGERPRINT_KEY, row_fingerprint

    provenance: dict[str, Any] = {
        "source": "data", "rows": int(runs.truth.size),
        "description": description or f"{int(runs.truth.size)} logged instances",
        "adjusted": int(runs.adjusted)}
    if row_ids is not None:
        if len(row_ids) != runs.truth.size:
            raise ValidationError(f"row_ids has {len(row_ids)} identifiers but the log has "
                                  f"{runs.truth.size} rows: give one per row")
        provenance[FINGERPRINT_KEY] = row_fingerprint(row_ids)
    if runs.k != 2:
        return ScoreSheet(slot=runs.slot, system_name=system_name, costs=costs, critical=None,
                          rule=runs.rule, models=runs.models, provenance=provenance,
                          score_range=runs.score_range, labels=runs.labels,
                          matrix=runs.slot_matrix, fusion=runs.fusion,
                          offsets=tuple(OffsetCells.of(o, breakpoints, k=runs.k)
                                        for o in runs.offsets_by_class))
    t_p, t_n = runs.critical_by_class
    return ScoreSheet(slot=runs.slot, system_name=system_name, costs=costs,
                      critical=(CriticalScores.of(t_p, breakpoints),
                                CriticalScores.of(t_n, breakpoints)),
                      rule=runs.rule, models=runs.models, provenance=provenance,
                      score_range=runs.score_range)
