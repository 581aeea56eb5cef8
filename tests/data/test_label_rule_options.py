"""``forced_runs`` takes the same rule options for every K (K = 2, 3, 4).

``threshold=`` (a thresholded weighted vote for one label) and ``function=`` (a user rule) work
with ``labels=`` as they do on a binary log; ``positive=`` is a binary log's option and is
refused with ``labels=`` in one line, for every K. Each count is checked against a per-row
re-run of the rule in plain Python (exact fractions); at K = 2 the labelled runs equal the
binary runs of the same log.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import causalcost as cc
from causalcost.errors import ValidationError

LABELS = {2: ["yes", "no"], 3: ["ok", "flu", "covid"], 4: [0, 1, 2, 3]}
MODELS = ["m1", "m2", "m3", "m4"]


def log(k: int, seed: int, rows: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = LABELS[k]
    truth = rng.integers(0, k, rows)
    data = {"y": [labels[i] for i in truth]}
    for m in MODELS:
        right = rng.random(rows) < 0.6
        vote = np.where(right, truth, rng.integers(0, k, rows))
        data[m] = [labels[i] for i in vote]
    return pd.DataFrame(data)


def thresholded(votes: list[Any], labels: list[Any], weights: list[Fraction],
                threshold: Fraction, label: Any) -> Any:
    """The weighted vote for ``label`` reaching ``threshold``, else the weighted plurality
    of the other labels, ties to the first in label order."""
    tally = {lab: Fraction(0) for lab in labels}
    for v, w in zip(votes, weights):
        tally[v] += w
    if tally[label] >= threshold:
        return label
    tally.pop(label)
    top = max(tally.values())
    return next(lab for lab in labels if lab in tally and tally[lab] == top)


def per_row(df: pd.DataFrame, labels: list[Any], slot: str, rule: Any) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """``F[j, c, s]`` and the system as logged, one row at a time."""
    k = len(labels)
    forced = np.zeros((k, k, k), dtype=np.int64)
    observed = np.zeros((k, k), dtype=np.int64)
    for row in df.to_dict("records"):
        c = labels.index(row["y"])
        for j, lab in enumerate(labels):
            votes = [lab if m == slot else row[m] for m in MODELS]
            forced[j, c, labels.index(rule(votes))] += 1
        observed[c, labels.index(rule([row[m] for m in MODELS]))] += 1
    return forced, observed


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_threshold_with_labels_matches_a_per_row_count(k: int, engine: str) -> None:
    df = log(k, seed=k)
    labels = LABELS[k]
    weights = ["0.5", "1.25", "0.75", "1"]
    label = labels[-1]
    frame = df if engine == "pandas" else pl.from_pandas(df)
    runs = cc.forced_runs(frame, truth="y", models=MODELS, slot="m2", fusioner="weighted",
                          weights=weights, threshold="1.75", label=label, labels=labels)
    exact = [Fraction(w) for w in weights]
    forced, observed = per_row(df, labels, "m2", lambda v: thresholded(
        v, labels, exact, Fraction("1.75"), label))
    np.testing.assert_array_equal(runs.forced, forced)
    np.testing.assert_array_equal(runs.observed.to_numpy(), observed)
    assert ">= 1.75" in runs.fusioner.description


@pytest.mark.parametrize("k", [2, 3, 4])
def test_function_with_labels_matches_a_per_row_count(k: int) -> None:
    df = log(k, seed=10 + k)
    labels = LABELS[k]

    def rule(m1: Any, m2: Any, m3: Any, m4: Any) -> Any:
        return m1 if m1 == m2 else (m3 if m3 != labels[0] else m4)

    by_name = cc.forced_runs(df, truth="y", models=MODELS, slot="m3", fusioner="function",
                             function=rule, labels=labels)
    built = cc.forced_runs(df, truth="y", slot="m3", labels=labels,
                           fusioner=cc.make_fusioner("function", MODELS, function=rule,
                                                     labels=labels))
    forced, observed = per_row(df, labels, "m3", lambda v: rule(*v))
    np.testing.assert_array_equal(by_name.forced, forced)
    np.testing.assert_array_equal(by_name.observed.to_numpy(), observed)
    assert by_name == built


@pytest.mark.parametrize("k", [2, 3, 4])
def test_positive_with_labels_is_refused_in_one_line(k: int) -> None:
    df = log(k, seed=20 + k)
    with pytest.raises(ValidationError, match=r"^positive=.* is a binary log's option; with "
                                              r"labels= every value is read by name[^\n]*$"):
        cc.forced_runs(df, truth="y", models=MODELS, slot="m1", fusioner="plurality",
                       labels=LABELS[k], positive=LABELS[k][0])


def test_binary_rule_names_with_three_labels_are_refused_by_name() -> None:
    with pytest.raises(ValidationError,
                       match="'majority' is not a K-label rule; with 3 labels use one of "):
        cc.forced_runs(log(3, 1), truth="y", models=MODELS, slot="m1", fusioner="majority",
                       labels=LABELS[3])


def test_at_k2_the_labelled_runs_are_the_binary_runs() -> None:
    df = log(2, seed=7).replace({"yes": 1, "no": 0}).astype(int)
    weights = [0.5, 1.25, 0.75, 1]
    binary = cc.forced_runs(df, truth="y", models=MODELS, slot="m2", fusioner="weighted",
                            weights=weights, threshold=1.75)
    labelled = cc.forced_runs(df, truth="y", models=MODELS, slot="m2", fusioner="weighted",
                              weights=weights, threshold=1.75, labels=[1, 0])
    np.testing.assert_array_equal(binary.forced, labelled.forced)
    np.testing.assert_array_equal(binary.observed.to_numpy(), labelled.observed.to_numpy())
    voted = cc.forced_runs(df, truth="y", models=MODELS, slot="m2", fusioner="majority",
                           labels=[1, 0])
    plain = cc.forced_runs(df, truth="y", models=MODELS, slot="m2", fusioner="majority")
    np.testing.assert_array_equal(voted.forced, plain.forced)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_rule_built_with_labels_reads_the_log_by_them(k: int) -> None:
    df = log(k, seed=30 + k)
    labels = LABELS[k][::-1]  # not the binary reading's order: matched by name
    built = cc.make_fusioner("plurality", MODELS, labels=labels)
    given = cc.forced_runs(df, truth="y", slot="m4", fusioner=built, labels=labels)
    implied = cc.forced_runs(df, truth="y", slot="m4", fusioner=built)
    assert implied == given and implied.label_names == tuple(map(str, labels))
    forced, _ = per_row(df, labels, "m4", lambda v: built(v))
    np.testing.assert_array_equal(implied.forced, forced)
