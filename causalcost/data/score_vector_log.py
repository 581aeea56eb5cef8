"""A K-label score slot's runs: each member gives a probability vector, the system an argmax.

A log of a system that fuses its members' probability vectors (soft voting on K labels) holds
one row per instance: the true class and, per member, one score column per label. With the
weighted mean of the members' vectors and then the first largest entry (scikit-learn's soft
vote), the slot's vector ``p`` enters linearly: on row ``i`` the system says

    argmax_k ( w_slot p_k + r_ik ),     r_i = sum over the other members m of w_m p_m,

(the other members added in the models' order), which is the form
:mod:`causalcost.pricing.score_vectors` prices: ``matrix = w_slot I`` and the **offset
vectors** ``r_i``. The mean's division by the total weight is left out: it never changes
which entry is largest (it can only make near-ties exact, which the stated order decides).

:func:`vector_runs` builds the :class:`~causalcost.data.score_runs.ScoreRuns` from the
members' vectors (:func:`causalcost.ensemble_runs` uses it too); :func:`score_vector_log_runs`
reads them from a log on any engine (:func:`causalcost.forced_runs` with ``labels=`` and
``scores=`` naming the columns).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import pandas as pd

from causalcost.data.frames import as_frame, collect, require_columns
from causalcost.data.score_log import _index_of, _model_names, _score_column, _weights
from causalcost.data.score_runs import ScoreRuns, _readonly
from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.network.fusioners import plain_labels
from causalcost.score_values import (
    PROBABILITIES,
    as_score_range,
    check_scores,
    read_score_vectors,
)

__all__ = ["class_positions", "extreme_runs", "score_vector_log_runs", "vector_columns",
           "vector_runs"]

#: The placeholder of a column template: ``scores={"cat": "{model}_cat", ...}``.
MODEL = "{model}"


def class_positions(values: Any, labels: tuple[Any, ...], name: str,
                    fix: str = "list every label in labels=[...] or drop those rows"
                    ) -> np.ndarray:
    """Each row's true class as its position in ``labels`` (by value, or by text when the
    labels are not text: a CSV's ``"2"`` for the label 2); other values are refused."""
    values = pd.Series(np.asarray(values, dtype=object))
    positions = pd.Index(labels, dtype=object).get_indexer(values)
    missing = positions < 0
    if missing.any() and not all(isinstance(v, str) for v in labels):
        texts = pd.Index([str(v) for v in labels], dtype=object)
        if texts.is_unique:
            again = texts.get_indexer(values[missing].astype(str))
            positions[missing] = again
            missing = positions < 0
    if missing.any():
        bad = sorted({repr(v) for v in values[missing]})[:5]
        raise DataError(f"truth: column {name!r} holds {', '.join(bad)} ({int(missing.sum())} "
                        f"row(s)), not among the labels {list(labels)}; {fix}")
    return positions.astype(np.int64)


def vector_columns(scores: Any, models: Sequence[str], labels: tuple[Any, ...]
                   ) -> dict[str, list[str]]:
    """Per model, its K score columns in label order, from ``scores``: ``{label: template}``
    with ``{model}`` in each template (``{"cat": "{model}_cat"}``), or ``{model: {label:
    column}}``. Anything else is refused showing both forms."""
    forms = ("scores= names each model's column for each label: {label: '{model}_' + label} "
             "(a template per label) or {model: {label: column}}")
    if not isinstance(scores, Mapping):
        raise InputTypeError(f"{forms}; got {type(scores).__name__}")
    keys = plain_labels(list(scores))
    if all(isinstance(v, Mapping) for v in scores.values()):
        if sorted(map(str, scores)) != sorted(models):
            raise ValidationError(f"scores: the mapping {{model: {{label: column}}}} must name "
                                  f"every model {list(models)} once, got {list(scores)}")
        out = {}
        for model, columns in scores.items():
            got = plain_labels(list(columns))
            if sorted(map(str, got)) != sorted(map(str, labels)) or len(got) != len(labels):
                raise ValidationError(f"scores[{model!r}]: one column per label {list(labels)}, "
                                      f"got labels {list(got)}")
            by_text = {str(k): str(v) for k, v in columns.items()}
            out[str(model)] = [by_text[str(label)] for label in labels]
        return out
    if all(isinstance(v, str) and MODEL in v for v in scores.values()):
        if sorted(map(str, keys)) != sorted(map(str, labels)) or len(keys) != len(labels):
            raise ValidationError(f"scores: one column template per label {list(labels)}, got "
                                  f"labels {list(keys)}")
        templates = {str(k): v for k, v in scores.items()}
        return {m: [templates[str(label)].replace(MODEL, m) for label in labels]
                for m in models}
    raise ValidationError(f"{forms}; got {dict(scores)!r}")


def vector_runs(vectors: Sequence[np.ndarray], names: Sequence[str], classes: np.ndarray,
                labels: tuple[Any, ...], *, slot: int, weights: Sequence[float] | None,
                index: Any, rule: str, provenance: dict[str, Any] | None = None,
                score_range: tuple[float, float] = PROBABILITIES) -> ScoreRuns:
    """The runs of a weighted mean of checked ``(rows, K)`` member vectors, then argmax."""
    w = [1.0] * len(vectors) if weights is None else [float(v) for v in weights]
    if len(w) != len(vectors):
        raise ValidationError(f"weights: {len(w)} weights for {len(vectors)} models")
    bad = [x for x in w if not math.isfinite(x)]
    if bad:
        raise ValidationError(f"weights must be finite numbers, got {bad[0]!r}")
    offsets = np.zeros_like(vectors[slot])
    for m, (v, wm) in enumerate(zip(vectors, w)):
        if m != slot:
            offsets = offsets + wm * v
    return ScoreRuns(slot=names[slot], models=tuple(names), rule=rule,
                     truth=_readonly(classes), critical=None,
                     observed_scores=_readonly(vectors[slot]), index=index, positive=None,
                     score_range=as_score_range(score_range), labels=labels,
                     provenance=provenance or {}, offsets=_readonly(offsets, copy=False),
                     matrix=_readonly(w[slot] * np.eye(len(labels)), copy=False))


def extreme_runs(fusion: str, vectors: Sequence[np.ndarray], names: Sequence[str],
                 classes: np.ndarray, labels: tuple[Any, ...], *, slot: int, index: Any,
                 rule: str, provenance: dict[str, Any] | None = None,
                 score_range: tuple[float, float] = PROBABILITIES) -> ScoreRuns:
    """The runs of ``max`` / ``min`` fusion: each row's offsets are the other members'
    largest / smallest probability of each label (with no other member, a value past the
    score range that never wins: the slot alone decides)."""
    others = [v for m, v in enumerate(vectors) if m != slot]
    low, high = as_score_range(score_range)
    if others:
        offsets = (np.maximum if fusion == "max" else np.minimum).reduce(others)
    else:
        past = (low - 1.0) if fusion == "max" else (high + 1.0)
        if not math.isfinite(past):
            raise ValidationError(f"fusion {fusion!r} with the slot alone needs a finite end "
                                  "of the score range")
        offsets = np.full_like(vectors[slot], past)
    return ScoreRuns(slot=names[slot], models=tuple(names), rule=rule,
                     truth=_readonly(classes), critical=None,
                     observed_scores=_readonly(vectors[slot]), index=index, positive=None,
                     score_range=as_score_range(score_range), labels=labels,
                     provenance=provenance or {}, offsets=_readonly(offsets, copy=False),
                     matrix=_readonly(np.eye(len(labels)), copy=False), fusion=fusion)


def extreme_rule_text(fusion: str, names: Sequence[str], k: int) -> str:
    """The ``max`` / ``min`` rule in words."""
    which = "largest" if fusion == "max" else "smallest"
    return (f"{fusion} of {len(names)} models' probability vectors over {k} labels: per label "
            f"the {which} probability, then the label of the largest (ties: the first label)")


def mean_rule_text(names: Sequence[str], weights: Sequence[float] | None, k: int) -> str:
    """The rule in words: a soft vote of the members' vectors over K labels."""
    shown = "" if weights is None or len(set(weights)) == 1 else \
        f" (weights {', '.join(f'{float(x):g}' for x in weights)})"
    return (f"soft vote of {len(names)} models' probability vectors over {k} labels{shown}: "
            "the label of the largest weighted mean (ties: the first label)")


def score_vector_log_runs(data: Any, *, truth: str, models: Sequence[str], slot: str,
                          labels: Sequence[Any], scores: Any, fusioner: Any = "mean",
                          weights: Mapping[str, float] | Sequence[float] | None = None,
                          score_range: tuple[float, float] | None = None) -> ScoreRuns:
    """A K-label score slot's runs on a log held by any engine (see the module).

    Parameters are those of :func:`causalcost.forced_runs` with ``labels=`` and ``scores=``
    a mapping naming the columns.

    Examples
    --------
    >>> log = pd.DataFrame({"y": ["a", "c"],
    ...     "m1_a": [0.6, 0.1], "m1_b": [0.3, 0.1], "m1_c": [0.1, 0.8],
    ...     "m2_a": [0.2, 0.5], "m2_b": [0.7, 0.4], "m2_c": [0.1, 0.1]})
    >>> runs = score_vector_log_runs(log, truth="y", models=["m1", "m2"], slot="m2",
    ...                              labels=["a", "b", "c"], scores={
    ...                                  "a": "{model}_a", "b": "{model}_b", "c": "{model}_c"})
    >>> runs.offsets.tolist(), runs.observed.to_numpy().tolist()
    ([[0.6, 0.3, 0.1], [0.1, 0.1, 0.8]], [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    """
    if fusioner not in ("mean", "max", "min"):
        raise ValidationError(
            f"fusioner {fusioner!r}: a K-label score slot is priced for the weighted mean of "
            "the members' probability vectors (fusioner='mean', soft voting) and for their "
            "largest or smallest entry per label ('max', 'min'); a function of the vectors is "
            "not priced (its response to the slot's vector is not known between the logged "
            "rows); a fitted StackingClassifier is read by cc.ensemble_runs")
    if fusioner != "mean" and weights is not None:
        raise ValidationError(f"weights= is an option of fusioner='mean'; the {fusioner!r} "
                              "fusion takes each label's largest or smallest probability")
    labels = plain_labels(labels)
    if len(labels) < 2 or len(set(map(str, labels))) != len(labels):
        raise ValidationError(f"labels must list K >= 2 distinct labels, got {list(labels)}")
    names = _model_names(models, truth, slot)
    columns = vector_columns(scores, names, labels)
    frame, source = as_frame(data)
    flat = [c for m in names for c in columns[m]]
    if len(set(flat)) != len(flat):
        raise ValidationError(f"scores: the columns {flat} name a column twice")
    dtypes = require_columns(frame, [truth, *flat])
    index = _index_of(frame)
    exprs = [_score_column(frame, c, dtypes[c], "file" in source, index) for c in flat]
    got = collect(frame.select(nw.col(truth).alias("__truth"),
                               *(e.alias(f"__s{i}") for i, e in enumerate(exprs))),
                  f"reading the score columns {flat}")
    rng = as_score_range(score_range)
    table = np.column_stack([np.asarray(got.get_column(f"__s{i}").to_numpy(), dtype=float)
                             for i in range(len(flat))]) if flat else np.zeros((0, 0))
    check_scores(table, "scores", score_range=rng, labels=index, columns=flat)
    k = len(labels)
    vectors = [read_score_vectors(table[:, m * k:(m + 1) * k], f"model {name!r}'s vectors",
                                  labels=labels, index=index, against="the log",
                                  score_range=rng)
               for m, name in enumerate(names)]
    classes = class_positions(got.get_column("__truth").to_numpy(), labels, truth)
    w = _weights(weights, names)
    rule = mean_rule_text(names, w, k) if fusioner == "mean" else \
        extreme_rule_text(fusioner, names, k)
    provenance = {**source, "truth": truth, "models": list(names), "slot": slot,
                  "labels": list(labels), "columns": columns, "rule": rule,
                  "rows": int(classes.size)}
    if fusioner != "mean":
        return extreme_runs(fusioner, vectors, names, classes, labels,
                            slot=names.index(slot), index=index, rule=rule,
                            provenance=provenance, score_range=rng)
    return vector_runs(vectors, names, classes, labels, slot=names.index(slot), weights=w,
                       index=index, rule=rule, provenance=provenance, score_range=rng)
