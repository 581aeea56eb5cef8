"""Forced runs from logged predictions: the system with the slot forced to each label.

Given one row per instance (the true class and every model's vote), :func:`forced_runs`
re-evaluates the fusioner with the slot's vote replaced by each label, exactly as if the real
system had been run K times on the evaluation set (slides, stage 1). With ``labels=[...]``
(any K, strings or integers) the engine counts the rows by vote pattern and the rule runs on
that small table (:mod:`causalcost.data.patterns`); a binary log read with a positive label
(bool, 0/1 or ``positive=``) is the case K = 2 with labels (P, N), counted by boolean keys,
and gives

* ``forced_p`` / ``forced_n``: the system's confusion under each intervention;
* ``observed``: the system as deployed (the slot's own column among the data);
* ``kinds``: per class, how many instances never fail, fail only when the slot is wrong,
  always fail, or fail only when the slot is right (see :mod:`causalcost.pricing.witness`).

All of it comes from one group-by run by the engine holding the data (pandas, polars, pyarrow,
DuckDB, Dask, PySpark): rows are grouped by (class, forced-P system vote, forced-N system vote
[, slot vote]) and only those at most 16 counts come back.

A log of **scores** with a score fusioner (``"mean"``, ``"max"``, ``"min"``, ``"logistic"``,
or a function with ``scores=True``) is routed to :mod:`causalcost.data.score_log`: the engine
computes each row's critical score and :func:`forced_runs` returns a
:class:`~causalcost.data.score_runs.ScoreRuns`; the vote options are refused there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.data.counting import count_arrays, count_votes
from causalcost.data.frames import (
    Frame,
    align_series,
    as_frame,
    collect,
    fills_nulls,
    is_lazy,
    log_columns,
    require_columns,
)
from causalcost.data.labels import (
    LabelRule,
    label_rule,
    refuse_unknown_positive,
    votes_from_values,
)
from causalcost.data.patterns import PatternCounter
from causalcost.data.runs import (
    ForcedRuns,
    VotePatterns,
    counts_digest,
    forced_digest,
    system_confusion,
)
from causalcost.data.score_runs import ScoreRuns
from causalcost.data.votes import fuse, fuse_expr, resolve_fusioner
from causalcost.errors import DataError, ValidationError
from causalcost.network.fusioners import Fusioner, make_fusioner, plain_labels
from causalcost.network.score_rules import SCORE_FUSIONERS

__all__ = ["forced_runs", "ForcedRuns"]


@dataclass(frozen=True)
class DataCounter:
    """What counting needs to see the data again (kept by :class:`ForcedRuns` for candidates)."""

    frame: Frame
    truth: LabelRule
    rules: dict[str, LabelRule]  # fusioner inputs present in the data (slot only if used)
    fusioner: Fusioner
    slot: str
    positive: Any
    engine: str
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def count(self, extra: Sequence[LabelRule] = ()) -> np.ndarray:
        """Counts by (class, forced-P vote, forced-N vote, *votes of ``extra`` columns)."""
        rules = [self.truth, *(r for m, r in self.rules.items() if m != self.slot), *extra]
        if self.fusioner.is_vote:
            fill = fills_nulls(self.frame)
            votes = {m: r.value(fill=fill) for m, r in self.rules.items()}
            keys = [self.truth.vote(fill=fill),
                    *(fuse_expr(self.fusioner, votes, slot=self.slot, forced=x)
                      for x in (True, False)),
                    *(r.vote(fill=fill) for r in extra)]
            return count_votes(self.frame, rules, keys)
        if is_lazy(self.frame):  # fuse_expr refuses a function fusioner with the reason
            fuse_expr(self.fusioner, {}, engine=f"a lazy {self.engine} frame")
        return count_arrays(self.frame, rules, self._array_keys(extra))

    def _array_keys(self, extra: Sequence[LabelRule]) -> Callable[[Mapping[str, np.ndarray]],
                                                                    list[np.ndarray]]:
        def keys(v: Mapping[str, np.ndarray]) -> list[np.ndarray]:
            votes = {m: v[m] for m in self.rules if m != self.slot}
            rows = len(v[self.truth.column])
            forced = [fuse(self.fusioner, votes, slot=self.slot, forced=x, rows=rows)
                      for x in (True, False)]
            return [v[self.truth.column], *forced, *(v[r.column] for r in extra)]
        return keys

    def row_votes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per row: truth, forced-P system vote, forced-N system vote (eager frames only)."""
        if "rows" not in self.memo:
            columns = [self.truth.column, *(m for m in self.rules if m != self.slot)]
            got = collect(self.frame.select(
                *(r.vote().alias(f"__v{i}") for i, r in enumerate(
                    [self.truth, *(self.rules[m] for m in columns[1:])]))))
            v = {c: got.get_column(f"__v{i}").to_numpy().astype(bool)
                 for i, c in enumerate(columns)}
            rows = len(v[self.truth.column])
            forced = [fuse(self.fusioner, {m: v[m] for m in columns[1:]}, slot=self.slot,
                           forced=x, rows=rows) for x in (True, False)]
            self.memo["rows"] = (v[self.truth.column], *forced)
        return self.memo["rows"]

    def own(self, predictions: Any, positive: Any = None) -> Confusion:
        """The candidate's own confusion on the data's rows (column name or array)."""
        positive = self.positive if positive is None else positive
        if isinstance(predictions, str):
            dtype = require_columns(self.frame, [predictions])[predictions]
            rule = label_rule(predictions, dtype, positive)
            fill = fills_nulls(self.frame)
            counts = count_votes(self.frame, [self.truth, rule],
                                 [self.truth.vote(fill=fill), rule.vote(fill=fill)])
            return Confusion.from_array(counts)
        y, _, _ = self.row_votes()
        vote = self._candidate_votes(predictions, positive, len(y))
        code = (~y).astype(np.int64) * 2 + (~vote).astype(np.int64)
        tp, fn, fp, tn = np.bincount(code, minlength=4).tolist()
        return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)

    def _candidate_votes(self, predictions: Any, positive: Any, rows: int) -> np.ndarray:
        if is_lazy(self.frame):
            raise DataError(
                f"a candidate array needs rows in a known order, which a lazy {self.engine} "
                "frame does not promise: pass the name of a column holding the candidate's "
                "predictions, or count the runs on an eager frame (pandas, polars DataFrame, "
                "pyarrow)"
            )
        vote = votes_from_values(align_series(self.frame, predictions, self.engine),
                                 "predictions", positive)
        if len(vote) != rows:
            raise DataError(f"predictions has {len(vote)} values but the runs were counted on "
                            f"{rows} rows; align it with the data's rows")
        return vote

    def candidate(self, predictions: Any, positive: Any = None) -> Confusion:
        """The system's confusion with ``predictions`` (column name or array) in the slot."""
        positive = self.positive if positive is None else positive
        if isinstance(predictions, str):
            dtype = require_columns(self.frame, [predictions])[predictions]
            return system_confusion(self.count([label_rule(predictions, dtype, positive)]))
        if is_lazy(self.frame):
            self._candidate_votes(predictions, positive, 0)  # refused with the reason
        y, forced_p, forced_n = self.row_votes()
        vote = self._candidate_votes(predictions, positive, len(y))
        system = np.where(vote, forced_p, forced_n)
        code = (~y).astype(np.int64) * 2 + (~system).astype(np.int64)
        tp, fn, fp, tn = np.bincount(code, minlength=4).tolist()
        return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)


def forced_runs(
    data: Any,
    *,
    truth: str,
    slot: str,
    fusioner: str | Fusioner | Callable[[np.ndarray], Any],
    models: Sequence[str] | None = None,
    positive: Any = None,
    observed: bool | None = None,
    k: int | None = None,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    threshold: float | None = None,
    tie: str | None = None,
    function: Callable[..., bool] | None = None,
    labels: Sequence[Any] | None = None,
    order: Sequence[Any] | None = None,
    label: Any = None,
    bias: float | None = None,
    score_range: tuple[float, float] | None = None,
    scores: bool | None = None,
) -> ForcedRuns | ScoreRuns:
    """Count the system's runs with the slot forced to each label on logged predictions, or
    each row's critical score on logged scores.

    Parameters
    ----------
    data : data frame, mapping or path
        One row per instance: pandas, polars (eager or lazy), pyarrow, DuckDB relation, Dask,
        PySpark, a mapping column -> array, or a ``.csv`` / ``.parquet`` path (scanned lazily).
    truth : str
        The true-class column.
    slot : str
        The model under evaluation; one of ``models``.
    fusioner : str, Fusioner or callable
        A rule name built with the options below, or a built fusioner (then ``models``
        defaults to its inputs). Scores (Notes): ``"mean"``, ``"max"``, ``"min"``,
        ``"logistic"``, or a function with ``scores=True``. Votes, binary: ``"and"``, ``"or"``, ``"majority"``, ``"k_of_n"``,
        ``"weighted"``, ``"function"``. With ``labels=``: ``"plurality"``, ``"weighted"``,
        ``"priority"``, ``"k_of_n"``, ``"function"`` (and the binary names when K = 2), or a
        fusioner built by :func:`causalcost.make_fusioner` with ``labels=`` (any deterministic
        kind; a user function runs on the counted vote patterns, so on every engine).
    models : sequence of str
        The prediction columns, in the fusioner's input order, the slot among them.
    positive : optional
        The positive label of string columns (bool and 0/1 columns: ``True``/``1``). A binary
        log's option: with ``labels=`` the first label is the positive one, and ``positive=``
        is refused. A named label that no column of the log holds (a 0/1 truth beside 0/1
        predictions, or the truth of a score log, with ``positive="7"``) is refused with a
        :class:`~causalcost.errors.DataError`, never dropped for ``1``.
    observed : bool, optional
        Whether to count the system as deployed from the slot's own column. ``None``
        (default): when the data has a column named after the slot; ``True``: that column is
        required; ``False``: ignore it (forced runs need only the *other* models' columns).
    k, weights, threshold, tie, function
        Options of the rule, as in :func:`causalcost.make_fusioner`, for every K. With
        ``labels=``: ``threshold`` (with ``label``) makes ``"weighted"`` a thresholded vote for
        one label, ``function`` takes one label per model and returns a label, and ``tie`` is a
        label order or ``"slot"``.
    labels : sequence, optional
        The K labels (strings or integers) in the order of every axis, also the default tie
        order: the runs count the K forced runs by vote pattern, and any value that is not
        one of them is refused (column and value named). Without it the log is binary, read
        with ``positive``, unless ``fusioner`` was built with labels (then its labels).
    order, label : optional
        Options of the K-label rules ``priority`` and ``k_of_n``.
    bias, score_range : optional
        Options of the score fusioners: the ``"logistic"`` meta-model's intercept (default
        0); the scores the rule takes (default ``(0, 1)``, a fusion of probabilities; either
        end may be infinite except for a function, whose monotonicity is checked there).
        Every score of the log must lie in it, and a candidate's are checked against it
        (:mod:`causalcost.score_values`: text, NaN, nulls and infinities are refused too).
    scores : bool or mapping, optional
        Whether ``models`` are score columns. ``None`` (default): when ``fusioner`` is a
        score fusioner's name. ``True`` is required for a function of the scores
        (``fusioner=f`` with ``f`` taking a ``(rows, models)`` array and returning the fused
        score, compared ``>= threshold``, or the decision per row). A **mapping** reads a log
        of probability vectors on K labels (with ``labels=``; ``fusioner="mean"``, soft
        voting: the label of the largest weighted mean, or ``"max"`` / ``"min"``: the label
        of the largest per-label maximum / minimum): each model's column for each label,
        as a template per label (``{"cat": "{model}_cat", "dog": "{model}_dog"}``) or in full
        (``{"m1": {"cat": "m1_cat", ...}, ...}``). Each row's offset vector is computed
        (:mod:`causalcost.data.score_vector_log`); at K = 2 the runs are the binary ones of
        the first label's probabilities (the first label is P).

    Returns
    -------
    ForcedRuns or ScoreRuns
        Votes, for any K: ``forced`` ``F[j, c, s]``, ``observed``, the kinds,
        ``with_candidate``; binary runs also have the views ``forced_p``, ``forced_n``.
        Scores: a :class:`~causalcost.data.score_runs.ScoreRuns` (per row the critical
        score, or for K labels the offset vector, the truth and the slot's observed output;
        ``forced_at(s)``, ``observed``, ``with_candidate(scores)``, ``price``).

    Raises
    ------
    DataError
        A missing column, or a column that is not binary labels (nulls, a third label,
        fractional numbers), named with a few offending values. Scores: a truth of more than
        two labels with one score per model (give each model's vector: ``scores={...}``).
    ScoreValueError
        A score that is text, null, NaN, infinite or outside ``score_range``: the first such
        row in row order is named, with its column and value.
    ValidationError
        A ``function`` fusioner on a lazy frame, or bad fusioner options; with a score
        fusioner, a vote option (named).
    MonotonicityError
        A function of the scores that is not non-decreasing in the slot's score.

    Notes
    -----
    Score fusioners, one score per model (a binary system fusing the models' scores for the
    positive class): ``"mean"`` (the weighted mean ``>= threshold``, soft voting), ``"max"``,
    ``"min"``, ``"logistic"`` (``sigmoid(bias + weights . scores) >= threshold``, stacking)
    and a function with ``scores=True`` (checked non-decreasing in the slot on
    ``score_range``). ``weights`` is a mapping by model or a list in the order of ``models``,
    ``threshold`` defaults to 0.5 and ``positive`` reads the truth as for votes; the vote
    options (``labels``, ``k``, ``tie``, ``observed``, ``function``, ``order``, ``label``) are
    refused. The engine computes each row's critical score (a column expression for the closed
    forms, :mod:`causalcost.data.score_log`); a function runs on the collected scores.

    A probability vector per model (K labels, ``labels=`` with ``scores={...}`` naming the
    columns): ``"mean"`` (weighted), ``"max"`` and ``"min"``, then the label of the largest
    value (the first on ties); the engine reads the columns and each row's offset vector is
    computed in numpy (:mod:`causalcost.data.score_vector_log`). ``"logistic"`` and functions
    of the vectors are refused; a fitted stacking ensemble is read by
    :func:`causalcost.ensemble_runs`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [1, 1, 1, 0, 0], "a": [1, 0, 1, 0, 1],
    ...                    "b": [1, 1, 0, 0, 0], "c": [0, 0, 1, 1, 0]})
    >>> runs = forced_runs(df, truth="y", models=["a", "b", "c"], slot="b", fusioner="majority")
    >>> runs
    ForcedRuns(slot='b', fusioner=majority of 3, n=5 (3 P, 2 N), engine=pandas)
      forced_p: Confusion(tp=2, fn=1, fp=2, tn=0)
      forced_n: Confusion(tp=1, fn=2, fp=0, tn=2)
      observed: Confusion(tp=2, fn=1, fp=0, tn=2)
      kinds P:  never=1, wrong_only=1, always=1, right_only=0
      kinds N:  never=0, wrong_only=2, always=0, right_only=0
      monotone_on_data: True
    >>> int(runs.kinds.loc["P", "always"]), runs.provenance["counts_sha256"][:12]
    (1, 'f06d0542aa7b')

    Three labels: the forced runs ``F[j, c, s]`` and the system as logged.

    >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "m1": [0, 1, 2, 0], "m2": [0, 2, 2, 1],
    ...                    "m3": [1, 1, 0, 2]})
    >>> runs = forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
    ...                    fusioner="plurality", labels=[0, 1, 2])
    >>> runs.forced[2].tolist()  # slot forced to 2: a tie of three goes to the first label
    [[1, 0, 0], [0, 0, 1], [1, 0, 1]]
    >>> runs.observed.to_numpy().tolist(), runs.kinds.counts[(2, (0, 1, 0))]
    ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]], 1)

    Scores: soft voting (the weighted mean against 0.5), critical scores per row.

    >>> df = pd.DataFrame({"y": [1, 1, 0, 0], "a": [0.9, 0.3, 0.2, 0.6],
    ...                    "b": [0.6, 0.5, 0.1, 0.7]})
    >>> runs = forced_runs(df, truth="y", models=["a", "b"], slot="b", fusioner="mean",
    ...                    weights={"a": 1, "b": 1})
    >>> runs.critical.round(12).tolist(), runs.forced_at(1.0)
    ([0.1, 0.7, 0.8, 0.4], Confusion(tp=2, fn=0, fp=2, tn=0))
    >>> forced_runs(df, truth="y", models=["a", "b"], slot="b", fusioner="mean", k=2)
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: k= is an option of the vote fusioners; the 'mean' fusioner reads score columns: drop k=

    Probability vectors on three labels (soft voting): each row's offset vector.

    >>> df = pd.DataFrame({"y": ["cat", "dog"],
    ...                    "a_cat": [0.7, 0.2], "a_dog": [0.2, 0.3], "a_fox": [0.1, 0.5],
    ...                    "b_cat": [0.1, 0.4], "b_dog": [0.8, 0.4], "b_fox": [0.1, 0.2]})
    >>> runs = forced_runs(df, truth="y", models=["a", "b"], slot="b", fusioner="mean",
    ...                    labels=["cat", "dog", "fox"],
    ...                    scores={"cat": "{model}_cat", "dog": "{model}_dog",
    ...                            "fox": "{model}_fox"})
    >>> runs.offsets.tolist(), runs.to_frame()["system"].tolist()  # row 1: dog and fox tie
    ([[0.7, 0.2, 0.1], [0.2, 0.3, 0.5]], ['dog', 'dog'])
    >>> runs.with_candidate([[0.9, 0.1, 0.0], [0.0, 1.0, 0.0]]).errors
    0.0
    """  # noqa: E501
    if _reads_scores(fusioner, scores):
        if labels is not None or isinstance(scores, Mapping):
            return _vector_runs(data, truth=truth, slot=slot, models=models, labels=labels,
                                scores=scores, fusioner=fusioner, weights=weights,
                                score_range=score_range, positive=positive,
                                options={"k": k, "tie": tie, "observed": observed,
                                         "function": function, "order": order,
                                         "label": label, "threshold": threshold,
                                         "bias": bias})
        vote_options = {"labels": labels, "k": k, "tie": tie, "observed": observed,
                        "function": function, "order": order, "label": label}
        given = [name for name, value in vote_options.items() if value is not None]
        if given:
            shown = repr(fusioner) if isinstance(fusioner, str) else "function"
            raise ValidationError(f"{given[0]}= is an option of the vote fusioners; the "
                                  f"{shown} fusioner reads score columns: drop {given[0]}=")
        from causalcost.data.score_log import score_log_runs

        if isinstance(positive, str) and isinstance(truth, str):  # names a label of the truth
            frame, _ = as_frame(data)
            refuse_unknown_positive(truth, require_columns(frame, [truth]), positive, frame)
        return score_log_runs(
            data, truth=truth, models=models if models is not None else [], slot=slot,
            fusioner=fusioner, threshold=0.5 if threshold is None else threshold,
            weights=weights, bias=0.0 if bias is None else bias, positive=positive,
            **({} if score_range is None else {"score_range": score_range}))
    for name, value in (("bias", bias), ("score_range", score_range)):
        if value is not None:
            raise ValidationError(f"{name}= is an option of the score fusioners "
                                  f"({', '.join(SCORE_FUSIONERS)}, or a function with "
                                  f"scores=True); the {fusioner!r} fusioner reads votes")
    if labels is None and isinstance(fusioner, Fusioner) and not fusioner.boolean:
        labels = fusioner.labels  # a rule built with labels reads the log by them, by name
    if labels is not None:  # K labels: counted by vote pattern
        if positive is not None:
            raise ValidationError(
                f"positive={positive!r} is a binary log's option; with labels= every value "
                "is read by name (at K = 2 the first label is the positive one: list it first)")
        return _label_runs(data, truth=truth, slot=slot, labels=labels, models=models,
                           fusioner=fusioner, observed=observed, tie=tie, weights=weights,
                           order=order, label=label, k=k, threshold=threshold,
                           function=function)
    if order is not None or label is not None:
        raise ValidationError("order= and label= are K-label options: give labels=[...]")
    fus, names = resolve_fusioner(fusioner, models, k=k, weights=weights, threshold=threshold,
                                  tie=tie, function=function)
    frame, source, use_slot, dtypes = log_columns(data, truth=truth, models=names, slot=slot,
                                                  observed=observed)
    refuse_unknown_positive(truth, dtypes, positive, frame)
    rules = {c: label_rule(c, dtype, positive) for c, dtype in dtypes.items()}
    counter = DataCounter(frame, rules.pop(truth), rules, fus, slot, positive, source["engine"])
    counts = counter.count([rules[slot]] if use_slot else [])
    if not use_slot:
        counts = counts[..., np.newaxis]
    provenance = {
        **source,
        "rows": int(counts.sum()),
        "truth": truth,
        "models": list(names),
        "slot": slot,
        "slot_column": use_slot,
        "columns": list(dtypes),
        "positive": positive if positive is None or isinstance(positive, (str, bool, int))
        else repr(positive),
        "fusioner": fus.description,
        "counts_sha256": counts_digest(counts),
    }
    return ForcedRuns(counts, slot=slot, models=names, fusioner=fus, provenance=provenance,
                      _counter=counter)


def _vector_runs(data: Any, *, truth: str, slot: str, models: Sequence[str] | None,
                 labels: Sequence[Any] | None, scores: Any, fusioner: Any, weights: Any,
                 score_range: Any, positive: Any, options: dict[str, Any]) -> ScoreRuns:
    """:func:`forced_runs` on a log of probability vectors (``labels=``, ``scores={...}``):
    K labels by their offset vectors; two labels by the critical score of the first label's
    probability (the mean of the vectors' first entries against 1/2: the same argmax)."""
    from causalcost.data.score_log import score_log_runs
    from causalcost.data.score_vector_log import score_vector_log_runs, vector_columns

    given = [name for name, value in options.items() if value is not None]
    if given:
        raise ValidationError(f"{given[0]}= is not an option of a soft vote of probability "
                              f"vectors (labels= with scores={{...}}): drop {given[0]}=")
    if positive is not None:
        raise ValidationError(f"positive={positive!r} is a binary log's option; with labels= "
                              "every value is read by name (the first label is the positive "
                              "one at K = 2)")
    if labels is None or isinstance(labels, str):
        raise ValidationError("scores={...} names each model's column per label: give the "
                              "labels too, labels=['a', 'b', 'c'] (the columns' order)")
    if not isinstance(scores, Mapping):
        raise ValidationError(
            "a log of probability vectors names each model's column for each label: "
            "scores={label: '{model}_' + label} (a template per label) or "
            "scores={model: {label: column}}")
    if len(labels) != 2 or fusioner in ("max", "min"):
        return score_vector_log_runs(data, truth=truth, models=models or [], slot=slot,
                                     labels=labels, scores=scores, fusioner=fusioner,
                                     weights=weights, score_range=score_range)
    names = plain_labels(labels)
    if fusioner != "mean":
        raise ValidationError(f"fusioner {fusioner!r}: a vote of probability vectors is "
                              "fusioner='mean' (soft voting)")
    if models is None or isinstance(models, str) or slot not in models:
        raise ValidationError("models must list the models, the slot among them, e.g. "
                              "models=['a', 'b', 'c']")
    first = {m: cols[0] for m, cols in vector_columns(scores, list(models), names).items()}
    if isinstance(weights, Mapping):  # by model name, as for K labels
        weights = {first[m]: w for m, w in weights.items() if m in first} \
            if set(weights) == set(models) else weights
    runs = score_log_runs(data, truth=truth, models=[first[m] for m in models],
                          slot=first[slot], fusioner="mean", threshold=0.5, weights=weights,
                          positive=names[0],
                          **({} if score_range is None else {"score_range": score_range}))
    return dataclasses.replace(runs, slot=slot, models=tuple(models))


def _reads_scores(fusioner: Any, scores: Any) -> bool:
    """Whether ``fusioner`` (with ``scores=``) fuses score columns rather than votes."""
    if isinstance(scores, Mapping):  # columns named per label: probability vectors
        if callable(fusioner) and not isinstance(fusioner, (str, Fusioner)):
            raise ValidationError("a function of probability vectors is not priced: a "
                                  "K-label score slot is fused by fusioner='mean'")
        return True
    if scores not in (None, True, False):
        raise ValidationError(f"scores must be None, True or False, got {scores!r}")
    named = isinstance(fusioner, str) and fusioner in SCORE_FUSIONERS
    function = callable(fusioner) and not isinstance(fusioner, (str, Fusioner))
    if scores is None:
        if function:
            raise ValidationError(
                "a function as fusioner fuses score columns: pass scores=True (it takes a "
                "(rows, models) array of scores); for votes, use fusioner='function', "
                "function=...")
        return named
    if scores and not (named or function):
        raise ValidationError(f"scores=True needs a score fusioner ({', '.join(SCORE_FUSIONERS)}"
                              f" or a function of the scores), got {fusioner!r}")
    if not scores and named:
        raise ValidationError(f"the {fusioner!r} fusioner reads score columns; scores=False "
                              "asks for votes: drop scores=False, or name a vote fusioner")
    return bool(scores)


def _label_fusioner(fusioner: Any, models: Sequence[str] | None, labels: tuple[Any, ...],
                    options: dict[str, Any]) -> Fusioner:
    """The K-label rule: a name built with ``options``, or a built fusioner checked."""
    given = any(v is not None for v in options.values())
    if isinstance(fusioner, Fusioner):
        if given:
            raise ValidationError("fusioner options apply to a rule name; this fusioner is "
                                  "already built")
        if fusioner.labels != labels:
            raise ValidationError(f"the fusioner's labels {list(fusioner.labels)} differ from "
                                  f"labels={list(labels)}")
        if models is not None and tuple(models) != fusioner.inputs:
            raise ValidationError(f"models {list(models)} must be the fusioner's inputs "
                                  f"{list(fusioner.inputs)}")
        return fusioner
    if isinstance(fusioner, str):  # make_fusioner names the rules of K labels
        if models is None or isinstance(models, str):
            raise ValidationError("models must list the prediction columns, e.g. "
                                  "models=['m1', 'm2', 'm3']")
        return make_fusioner(fusioner, models, labels=labels, **options)
    raise ValidationError(f"fusioner must be a rule name or a built fusioner, got {fusioner!r}")


def _label_runs(data: Any, *, truth: str, slot: str, labels: Sequence[Any],
                models: Sequence[str] | None, fusioner: Any, observed: bool | None,
                **options: Any) -> ForcedRuns:
    """:func:`forced_runs` with ``labels=``: rows counted by vote pattern on the engine."""
    if labels is None or isinstance(labels, str):
        raise ValidationError("labels must list the K labels (e.g. labels=['a', 'b', 'c']); "
                              "their order fixes the axes and the default tie order")
    names = plain_labels(labels)
    fus = _label_fusioner(fusioner, models, names, options)
    frame, source, use_slot, _ = log_columns(data, truth=truth, models=fus.inputs, slot=slot,
                                             observed=observed)
    counter = PatternCounter(frame, truth, fus.inputs, slot, names, fus, source["engine"])
    classes, responses, sizes, extra = counter.patterns([slot] if use_slot else [])
    runs = ForcedRuns(None, slot=slot, models=fus.inputs, fusioner=fus, _counter=counter,
                      labels=names,
                      patterns=VotePatterns(classes, responses, sizes,
                                            extra[0] if use_slot else None))
    runs.provenance.update(
        {**source, "rows": int(sizes.sum()), "truth": truth, "models": list(fus.inputs),
         "slot": slot, "slot_column": use_slot,
         "labels": [v if isinstance(v, (str, int)) else repr(v) for v in names],
         "fusioner": fus.description, "forced_sha256": forced_digest(runs.forced, names)})
    return runs
