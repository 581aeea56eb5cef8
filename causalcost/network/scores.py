"""Score slots: models that output a score over bins, fused by a rule on the scores.

A binary system (class states positive first) whose models output **scores** (soft voting,
stacking, max / min of scores) is declared as a causal Bayesian network like a vote system,
with two differences:

* each model's node is a **score node** over score bins: its states are the bins' labels,
  each bin has a representative score (its midpoint, or given values), and ``P(bin |
  Class)`` is given per class, either as one probability per bin or from Beta shapes
  (``alpha, beta`` per class, discretised on the bin edges: ``cdf(hi) - cdf(lo)``);
* the fusioner node is a deterministic function of the bins: the rule
  (:func:`causalcost.network.score_rules.score_rule`: ``"mean"``, ``"max"``, ``"min"``,
  ``"logistic"`` or a function of the scores) applied to the bins' representative scores. Its
  table is computed by enumerating every combination of bins at once (numpy), refused beyond
  :data:`MAX_COMBINATIONS`.

The do-operator on the slot's score then has one state per bin: the interventional table
``T[c, bin, s] = P(System = s | Class = c, do(slot = bin))`` has shape ``(2, J, 2)``.
Whether the rule is monotone in a slot is checked on the bin grid
(:meth:`ScoreFusioner.violation`): a rule that is not names the bins of the other models
and the two slot bins where the decision goes from P to N.

Examples
--------
>>> import causalcost as cc
>>> b = cc.SystemBuilder(class_prior=0.4)
>>> for name in ("a", "b"):
...     _ = b.add_model(name, scores={"edges": [0, 0.5, 1],
...                                   "probabilities": {"P": [0.2, 0.8], "N": [0.7, 0.3]}})
>>> system = b.set_fusioner("mean", threshold=0.5).build(slot="b")
>>> system.states("b"), system.fusioner
(['0-0.5', '0.5-1'], ScoreFusioner(mean of 2 scores >= 0.5 over a, b))
>>> cc.interventional_table(system).to_numpy()[0].round(6).tolist()   # class P
[[0.8, 0.2], [1.0, 0.0]]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.display import format_number
from causalcost.errors import ValidationError
from causalcost.network.score_rules import SCORE_FUSIONERS, ScoreRule, score_rule
from causalcost.score_values import read_scores

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MAX_COMBINATIONS", "SCORE_FUSIONERS", "ScoreBins", "ScoreFusioner",
           "refuse_score_system", "score_bins", "score_fusioner", "scores_from_data"]

#: Most bin combinations a score fusioner's table may enumerate (its CPD has this many
#: columns); beyond, declaring it is refused (use fewer bins or fewer models).
MAX_COMBINATIONS = 1 << 20
#: The keys of a model's ``scores=`` declaration.
SCORE_KEYS = ("edges", "values", "labels", "probabilities", "beta")


@dataclass(frozen=True, eq=False)
class ScoreBins:
    """A model's score declared over bins: labels, representative scores, ``P(bin | class)``.

    Build it with :func:`score_bins` (which validates).

    Attributes
    ----------
    labels : tuple of str
        The bins' names: the score node's states, lowest score first.
    values : tuple of float
        Each bin's representative score (what the fusion rule reads), increasing.
    probabilities : numpy.ndarray
        Shape ``(2, J)``: ``P(bin | Class = positive)`` and ``P(bin | Class = negative)``.
    edges : tuple of float or None
        The bins' edges (``J + 1`` of them) when declared by edges.
    source : str
        ``"probabilities"`` or ``"beta"`` (with :attr:`beta` the shapes per class).
    beta : tuple of (float, float) or None
        ``(alpha, beta)`` for the positive and the negative class.

    Examples
    --------
    >>> bins = score_bins({"edges": [0, 0.5, 1], "beta": {"P": [2, 1], "N": [1, 2]}})
    >>> bins
    ScoreBins(2 bins ['0-0.5', '0.5-1'], values [0.25, 0.75], beta P(2, 1) N(1, 2))
    >>> bins.probabilities.round(6).tolist()
    [[0.25, 0.75], [0.75, 0.25]]
    """

    labels: tuple[str, ...]
    values: tuple[float, ...]
    probabilities: np.ndarray
    edges: tuple[float, ...] | None = None
    source: str = "probabilities"
    beta: tuple[tuple[float, float], tuple[float, float]] | None = None

    @property
    def j(self) -> int:
        """The number of bins."""
        return len(self.labels)

    def __repr__(self) -> str:
        how = ("beta " + " ".join(f"{c}({format_number(a)}, {format_number(b)})"
                                  for c, (a, b) in zip("PN", self.beta))
               if self.beta is not None else "probabilities")
        values = ", ".join(format_number(v) for v in self.values)
        return f"ScoreBins({self.j} bins {list(self.labels)}, values [{values}], {how})"

    def to_frame(self) -> pd.DataFrame:
        """One row per bin: its representative score and ``P(bin | class)`` per class.

        >>> score_bins({"values": [0.2, 0.8], "probabilities": [[0.4, 0.6], [0.9, 0.1]]}
        ...            ).to_frame().to_dict("list")
        {'score': [0.2, 0.8], 'P': [0.4, 0.6], 'N': [0.9, 0.1]}
        """
        import pandas as pd

        frame = pd.DataFrame({"score": list(self.values),
                              "P": self.probabilities[0].tolist(),
                              "N": self.probabilities[1].tolist()},
                             index=pd.Index(list(self.labels), name="bin"))
        return frame


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValidationError(f"{where} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValidationError(f"{where} must be a finite number, got {value!r}")
    return v


def _increasing(values: Any, where: str, least: int) -> tuple[float, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise ValidationError(f"{where} must be a list of numbers, got {values!r}")
    out = tuple(_finite(v, f"{where}[{i}]") for i, v in enumerate(values))
    if len(out) < least:
        raise ValidationError(f"{where} needs at least {least} numbers, got {len(out)}")
    if any(b <= a for a, b in zip(out, out[1:])):
        raise ValidationError(f"{where} must be strictly increasing (lowest score first), got "
                              f"{list(out)}")
    return out


def _per_class(value: Any, where: str, classes: tuple[str, str]) -> list[Any]:
    """Two entries, positive then negative: a mapping keyed by the class states, or a list."""
    if isinstance(value, Mapping):
        keys = [str(k) for k in value]
        if sorted(keys) != sorted(classes):
            raise ValidationError(f"{where} must have one entry per class, keys "
                                  f"{list(classes)}, got {keys}")
        by_key = {str(k): v for k, v in value.items()}
        return [by_key[c] for c in classes]
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, str) \
            and len(value) == 2:
        return list(value)
    raise ValidationError(f"{where} must be a table {{{classes[0]} = ..., {classes[1]} = ...}} "
                          f"or a list of two entries (positive class first), got {value!r}")


def score_bins(spec: Mapping[str, Any], *, classes: tuple[str, str] = ("P", "N"),
               name: str = "scores") -> ScoreBins:
    """A model's score bins from a declaration (what ``add_model(name, scores=...)`` takes).

    Parameters
    ----------
    spec : mapping
        ``edges`` (``J + 1`` increasing numbers) and/or ``values`` (``J`` increasing
        representative scores; default the bins' midpoints), optional ``labels`` (``J``
        names; default ``"lo-hi"`` from the edges, else the values), and exactly one of
        ``probabilities`` (``P(bin | class)`` per class: ``{P = [...], N = [...]}`` or two
        rows, positive first) or ``beta`` (``(alpha, beta)`` per class: the Beta
        distribution's mass on each bin, ``cdf(hi) - cdf(lo)``; needs edges from 0 to 1).
    classes : (str, str)
        The class states (positive, negative): the keys of ``probabilities`` and ``beta``.
    name : str
        Named in error messages.

    Raises
    ------
    ValidationError
        An unknown key, edges or values that are not strictly increasing, a value outside its
        bin, lists of the wrong length, a row that is not a distribution, Beta shapes that
        are not positive or edges that do not span [0, 1] for them (the message names the
        field).

    Examples
    --------
    >>> score_bins({"values": [0.1, 0.5, 0.9],
    ...             "probabilities": {"P": [0.1, 0.3, 0.6], "N": [0.6, 0.3, 0.1]}}).labels
    ('0.1', '0.5', '0.9')
    >>> score_bins({"edges": [0, 1], "beta": {"P": [1, 1], "N": [1, 1]}, "colour": 1})
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: scores: unknown key(s) ['colour']; allowed keys: edges, values, labels, probabilities, beta
    """  # noqa: E501
    if not isinstance(spec, Mapping):
        raise ValidationError(f"{name} must be a table (edges/values, and probabilities or "
                              f"beta), got {spec!r}")
    unknown = sorted(str(k) for k in spec if k not in SCORE_KEYS)
    if unknown:
        raise ValidationError(f"{name}: unknown key(s) {unknown}; allowed keys: "
                              f"{', '.join(SCORE_KEYS)}")
    edges = _increasing(spec["edges"], f"{name}.edges", 2) if "edges" in spec else None
    if "values" in spec:
        values = _increasing(spec["values"], f"{name}.values", 1)
        if edges is not None:
            if len(values) != len(edges) - 1:
                raise ValidationError(f"{name}.values needs one score per bin ({len(edges) - 1}"
                                      f" bins from {len(edges)} edges), got {len(values)}")
            outside = [i for i, v in enumerate(values) if not edges[i] <= v <= edges[i + 1]]
            if outside:
                i = outside[0]
                raise ValidationError(f"{name}.values[{i}] = {values[i]!r} is outside its bin "
                                      f"[{edges[i]!r}, {edges[i + 1]!r}]")
    elif edges is not None:
        values = tuple((a + b) / 2 for a, b in zip(edges, edges[1:]))
    else:
        raise ValidationError(f"{name} needs edges (the bins' boundaries) or values (one "
                              "representative score per bin)")
    j = len(values)
    if "labels" in spec:
        labels = spec["labels"]
        if isinstance(labels, str) or not isinstance(labels, Sequence) or len(labels) != j \
                or not all(isinstance(v, str) and v for v in labels) \
                or len(set(labels)) != j:
            raise ValidationError(f"{name}.labels must be {j} distinct non-empty names (one "
                                  f"per bin), got {labels!r}")
        labels = tuple(str(v) for v in labels)
    elif edges is not None:
        labels = tuple(f"{format_number(a)}-{format_number(b)}" for a, b in zip(edges, edges[1:]))
    else:
        labels = tuple(format_number(v) for v in values)
    if len(set(labels)) != j:
        raise ValidationError(f"{name}: the bins' default labels {list(labels)} repeat; give "
                              "labels = [...]")
    given = [k for k in ("probabilities", "beta") if k in spec]
    if len(given) != 1:
        raise ValidationError(f"{name} needs exactly one of probabilities (P(bin | class) per "
                              f"class) or beta ((alpha, beta) per class), got "
                              f"{given or 'neither'}")
    shapes = None
    if given[0] == "probabilities":
        rows = []
        for c, row in zip(classes, _per_class(spec["probabilities"],
                                              f"{name}.probabilities", classes)):
            where = f"{name}.probabilities.{c}"
            if isinstance(row, str) or not isinstance(row, (Sequence, np.ndarray)) \
                    or len(row) != j:
                raise ValidationError(f"{where} needs {j} probabilities (one per bin), got "
                                      f"{row!r}")
            r = [_finite(v, f"{where}[{i}]") for i, v in enumerate(row)]
            if min(r) < 0 or abs(sum(r) - 1) > 1e-9:
                raise ValidationError(f"{where} must be non-negative and sum to 1, got {r}")
            rows.append(r)
        probabilities = np.array(rows, dtype=float)
    else:
        if edges is None or edges[0] != 0 or edges[-1] != 1:
            raise ValidationError(f"{name}.beta discretises a Beta distribution on the bins: "
                                  f"give edges from 0 to 1 (e.g. edges = [0, 0.25, 0.5, 0.75, "
                                  f"1]), got {None if edges is None else list(edges)}")
        from scipy.stats import beta as beta_law

        pairs = []
        for c, pair in zip(classes, _per_class(spec["beta"], f"{name}.beta", classes)):
            where = f"{name}.beta.{c}"
            if isinstance(pair, str) or not isinstance(pair, (Sequence, np.ndarray)) \
                    or len(pair) != 2:
                raise ValidationError(f"{where} must be (alpha, beta), got {pair!r}")
            a, b = (_finite(v, f"{where}[{i}]") for i, v in enumerate(pair))
            if a <= 0 or b <= 0:
                raise ValidationError(f"{where}: alpha and beta must be > 0, got ({a}, {b})")
            pairs.append((a, b))
        cdf = np.array([beta_law.cdf(np.asarray(edges), a, b) for a, b in pairs])
        cdf[:, 0], cdf[:, -1] = 0.0, 1.0
        probabilities = np.diff(cdf, axis=1)
        shapes = (pairs[0], pairs[1])
    probabilities.setflags(write=False)
    return ScoreBins(labels, values, probabilities, edges, given[0], shapes)


def scores_from_data(scores: Any, y_true: Any, edges: Sequence[float], *,
                     positive: Any = None) -> dict[str, Any]:
    """A model's score declaration from its scores on labelled data: per class, the share of
    its scores in each bin (what ``add_model(name, scores=...)`` takes).

    Parameters
    ----------
    scores : array-like of float
        The model's score for P on each instance (e.g. ``predict_proba(X)[:, 1]`` of a
        fitted model), inside ``[edges[0], edges[-1]]``.
    y_true : array-like
        The true class of each instance: booleans, 0/1 (1 is P), or two labels with
        ``positive=``.
    edges : sequence of float
        ``J + 1`` increasing bin edges; a score on an inner edge falls in the bin above it,
        the last edge in the last bin.
    positive : optional
        The positive label of ``y_true`` when it is not boolean or 0/1.

    Returns
    -------
    dict
        ``{"edges": [...], "probabilities": {"P": [...], "N": [...]}}``.

    Raises
    ------
    ScoreValueError
        Scores that are text, missing, infinite or outside the edges, or of another length
        than ``y_true`` (:mod:`causalcost.score_values`).
    ValidationError
        A truth that is not two classes (or lacks one of them), edges that do not increase.

    Examples
    --------
    >>> spec = scores_from_data([0.9, 0.7, 0.2, 0.4, 0.1], [1, 1, 0, 0, 0], [0, 0.5, 1])
    >>> spec["probabilities"]
    {'P': [0.0, 1.0], 'N': [1.0, 0.0]}
    >>> score_bins(spec).labels
    ('0-0.5', '0.5-1')
    """
    e = _increasing(edges, "edges", 2)
    y = np.asarray(y_true).reshape(-1)
    # the one reader of scores: numbers, present, finite, inside the edges, one per instance
    s = read_scores(scores, "scores", rows=y.size,
                    index=y_true.index if hasattr(y_true, "iloc") else None,
                    score_range=(float(e[0]), float(e[-1])))
    if positive is not None:
        if not (y == positive).any():
            raise ValidationError(f"positive={positive!r} is not among y_true's values")
        is_p = y == positive
        if len(set(y[~is_p].tolist())) > 1:
            raise ValidationError("y_true holds more than two labels; a score model is binary")
    elif y.dtype == bool or set(np.unique(y).tolist()) <= {0, 1}:
        is_p = y.astype(bool)
    else:
        raise ValidationError("y_true holds labels other than True/False or 0/1: name the "
                              "positive one with positive=")
    if is_p.all() or not is_p.any():
        raise ValidationError("y_true must hold instances of both classes, P and N")
    j = len(e) - 1
    bins = np.clip(np.searchsorted(np.asarray(e), s, side="right") - 1, 0, j - 1)
    rows = [np.bincount(bins[mask], minlength=j) / mask.sum() for mask in (is_p, ~is_p)]
    return {"edges": list(e), "probabilities": {"P": rows[0].tolist(), "N": rows[1].tolist()}}


@dataclass(frozen=True, eq=False)
class ScoreFusioner:
    """A score fusion rule over score nodes: the system's decision per combination of bins.

    Build it with :func:`score_fusioner`. ``rule`` decides on the bins' representative
    scores (:meth:`ScoreRule.decide <causalcost.network.score_rules.ScoreRule.decide>`);
    :attr:`decisions` holds the decision for every combination of the inputs' bins.

    Attributes
    ----------
    rule : ScoreRule
    inputs : tuple of str
        The score models, in the order of the rule's columns (and of the fusioner node's
        parents).
    bins : tuple of tuple of str
        Each input's bin labels.
    values : tuple of tuple of float
        Each input's representative scores.

    Examples
    --------
    >>> f = score_fusioner("max", ["a", "b"], [("lo", "hi"), ("lo", "hi")],
    ...                    [(0.25, 0.75), (0.25, 0.75)], threshold=0.5)
    >>> f.decisions.tolist()
    [[False, True], [True, True]]
    >>> f.monotone_in("a"), f.lines()
    (True, ['max \u2265 0.5'])
    """

    rule: ScoreRule
    inputs: tuple[str, ...]
    bins: tuple[tuple[str, ...], ...]
    values: tuple[tuple[float, ...], ...]

    #: A score fusioner is not a vote (the vote machinery leaves it alone).
    is_vote = False
    #: It fuses scores: its inputs' states are score bins.
    is_score = True
    #: Its output is the class's two states, like a binary vote's.
    boolean = True

    @property
    def kind(self) -> str:
        """``"mean"``, ``"max"``, ``"min"``, ``"logistic"`` or ``"function"``."""
        return self.rule.kind

    @property
    def description(self) -> str:
        """The rule in words."""
        return self.rule.describe()

    @property
    def weights(self) -> tuple[float, ...] | None:
        """The rule's weights as given (``"mean"``, ``"logistic"``)."""
        return self.rule.given_weights

    @cached_property
    def decisions(self) -> np.ndarray:
        """Whether the system says P, per combination of bins: shape ``(J_1, ..., J_m)``."""
        shape = tuple(len(b) for b in self.bins)
        grid = np.indices(shape).reshape(len(shape), -1)
        scores = np.stack([np.asarray(v, dtype=float)[g] for v, g in zip(self.values, grid)],
                          axis=1)
        out = np.asarray(self.rule.decide(scores), dtype=bool).reshape(shape)
        out.setflags(write=False)
        return out

    def rows(self) -> np.ndarray:
        """The fusioner node's CPD rows, shape ``(combinations, 2)``: one per combination of
        bins (first input slowest), ``[1, 0]`` where the system says P, ``[0, 1]`` where it
        says N."""
        flat = self.decisions.ravel()
        return np.where(flat[:, None], [1.0, 0.0], [0.0, 1.0])

    def violation(self, slot: str) -> dict[str, str] | None:
        """Where the decision is not non-decreasing in ``slot``'s bins, or None (monotone on
        the bin grid): the other models' bins and the slot's two adjacent bins where the
        decision goes from P to N (``{"a": "0-0.5", "b": "0.5-1 (P) -> 1-1.5 (N)"}``)."""
        i = self.inputs.index(slot)
        d = np.moveaxis(self.decisions, i, -1)
        drops = d[..., :-1] & ~d[..., 1:]
        if not drops.any():
            return None
        where = [int(v) for v in np.argwhere(drops)[0]]
        others = [m for m in self.inputs if m != slot]
        out = {m: self.bins[self.inputs.index(m)][k] for m, k in zip(others, where[:-1])}
        j = where[-1]
        out[slot] = f"{self.bins[i][j]} (P) -> {self.bins[i][j + 1]} (N)"
        return out

    def monotone_in(self, slot: str) -> bool:
        """Whether the decision is non-decreasing in ``slot``'s bins for every combination of
        the other inputs' bins (:meth:`violation` is None)."""
        return self.violation(slot) is None

    def configurations(self, slot: str) -> int:
        """How many combinations of the other inputs' bins the monotonicity check covers."""
        return int(self.decisions.size // len(self.bins[self.inputs.index(slot)]))

    @property
    def monotone(self) -> bool:
        """Whether the decision is non-decreasing in every input on the bin grid."""
        return all(self.monotone_in(m) for m in self.inputs)

    def lines(self) -> list[str]:
        """The rule in short lines, for the label of the fusioner node in a picture."""
        r = self.rule
        tau = "\u2265 " + format_number(r.threshold)
        if r.kind == "mean":
            w = r.given_weights or ()
            if len(set(w)) > 1:
                return [f"mean {tau}", "w " + ",".join(format_number(v) for v in w)]
            return [f"mean {tau}"]
        if r.kind in ("max", "min"):
            return [f"{r.kind} {tau}"]
        if r.kind == "logistic":
            return [f"logistic {tau}",
                    "w " + ",".join(format_number(v) for v in r.given_weights or ()),
                    f"bias {format_number(r.bias)}"]
        name = getattr(r.function, "__name__", "function")
        return [f"{name}(scores)", tau]

    def to_frame(self) -> pd.DataFrame:
        """One row per input: its bins, their representative scores, its weight (when the
        rule has weights) and whether the decision is monotone in it on the bin grid.

        >>> f = score_fusioner("mean", ["a", "b"], [("lo", "hi")] * 2, [(0.25, 0.75)] * 2,
        ...                    weights=[2, 1])
        >>> f.to_frame().loc["a"].to_dict()
        {'bins': 'lo, hi', 'scores': '0.25, 0.75', 'weight': 2.0, 'monotone': True}
        """
        import pandas as pd

        weights = self.rule.given_weights
        rows = {m: {"bins": ", ".join(b), "scores": ", ".join(format_number(v) for v in vs),
                    "weight": None if weights is None else float(weights[i]),
                    "monotone": self.monotone_in(m)}
                for i, (m, b, vs) in enumerate(zip(self.inputs, self.bins, self.values))}
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "model"
        return frame

    def __repr__(self) -> str:
        return f"ScoreFusioner({self.description} over {', '.join(self.inputs)})"


def score_fusioner(rule: str | Callable[[np.ndarray], Any], inputs: Sequence[str],
                   bins: Sequence[Sequence[str]], values: Sequence[Sequence[float]], *,
                   threshold: float | None = None,
                   weights: Mapping[str, float] | Sequence[float] | None = None,
                   bias: float | None = None) -> ScoreFusioner:
    """A validated :class:`ScoreFusioner` over score inputs.

    Parameters
    ----------
    rule : {"mean", "max", "min", "logistic"} or callable
        The fusion rule (:func:`causalcost.network.score_rules.score_rule`); a callable takes
        a ``(rows, models)`` array of scores and returns per row the fused score (compared
        ``>= threshold``) or the decision (booleans).
    inputs : sequence of str
        The score models.
    bins, values : sequences
        Each input's bin labels and representative scores.
    threshold : float, optional
        Default 0.5.
    weights : mapping or sequence, optional
        ``"mean"`` (default equal) and ``"logistic"`` (required): a mapping model -> weight or
        one weight per input.
    bias : float, optional
        The logistic meta-model's intercept (``"logistic"`` only).

    Raises
    ------
    ValidationError
        A bad rule or option (as :func:`~causalcost.network.score_rules.score_rule`), or more
        than :data:`MAX_COMBINATIONS` combinations of bins to enumerate.

    Examples
    --------
    >>> f = score_fusioner("logistic", ["a", "b"], [("lo", "hi")] * 2, [(0.2, 0.8)] * 2,
    ...                    weights={"a": 2, "b": 1}, bias=-1.5)
    >>> f.decisions.tolist()
    [[False, False], [True, True]]
    """
    inputs = tuple(str(m) for m in inputs)
    sizes = [len(b) for b in bins]
    total = math.prod(sizes)
    if total > MAX_COMBINATIONS:
        raise ValidationError(
            f"the score fusioner over {len(inputs)} models with {sizes} bins enumerates "
            f"{total} combinations of bins, more than the limit {MAX_COMBINATIONS} (2**20): "
            "declare fewer bins per model or fewer models")
    if callable(rule) and not isinstance(rule, str):
        kind: str | Callable[[np.ndarray], Any] = rule
    elif rule in SCORE_FUSIONERS:
        kind = rule
    else:
        raise ValidationError(f"a score fusioner's rule must be one of "
                              f"{', '.join(SCORE_FUSIONERS)} or a function of the scores, got "
                              f"{rule!r}")
    if isinstance(weights, Mapping):
        missing = [m for m in inputs if m not in weights]
        extra = sorted(str(k) for k in weights if k not in inputs)
        if missing or extra:
            raise ValidationError(f"weights must give one weight per score model {list(inputs)}"
                                  + (f"; missing {missing}" if missing else "")
                                  + (f"; not models: {extra}" if extra else ""))
        weights = [weights[m] for m in inputs]
    if bias is not None and kind != "logistic":
        raise ValidationError(f"bias is the logistic meta-model's intercept; the rule is "
                              f"{kind!r}: drop bias (or use rule 'logistic')")
    flat = [float(v) for vs in values for v in vs]
    low, high = min(flat), max(flat)
    score_rule_args: dict[str, Any] = {
        "threshold": 0.5 if threshold is None else threshold, "weights": weights,
        "bias": 0.0 if bias is None else bias, "n_models": len(inputs)}
    if callable(kind):
        score_rule_args["score_range"] = (low, high if high > low else low + 1.0)
    made = score_rule(kind, **score_rule_args)
    fusioner = ScoreFusioner(made, inputs, tuple(tuple(map(str, b)) for b in bins),
                             tuple(tuple(float(v) for v in vs) for vs in values))
    _ = fusioner.decisions  # evaluate the rule once, here: a bad function fails at declaration
    return fusioner


def refuse_score_system(system: Any, what: str, instead: str) -> None:
    """Refuse, in one line, a score system where ``what`` needs each model's vote.

    >>> import causalcost as cc
    >>> refuse_score_system(cc.load_network("thesis_and"), "x", "y")  # votes: nothing to refuse
    >>> refuse_score_system(cc.load_network("soft_vote3"), "the explorer", "query its table")
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: the explorer reads each model's vote; 'soft_vote3' fuses scores (its models output score bins): query its table
    """  # noqa: E501
    if isinstance(getattr(system, "fusioner", None), ScoreFusioner):
        raise ValidationError(f"{what} reads each model's vote; {system.name!r} fuses scores "
                              f"(its models output score bins): {instead}")


def is_score_slot(system: Any, slot: str) -> bool:
    """Whether ``slot`` is a score input of ``system``'s score fusioner."""
    f = getattr(system, "fusioner", None)
    return isinstance(f, ScoreFusioner) and slot in f.inputs
