"""One fusion rule for every K (causalcost.network.fusioners): every path against a reference.

The reference below is each rule's definition written out in plain Python over
:class:`fractions.Fraction` scores from the decimal text of the weights (module docstring of
``network/fusioners.py``). The paths checked against it, on every vote configuration of up to 6
models for K in {2, 3, 4}:

* the network layer's one configuration (``Fusioner.output``, ``Fusioner.__call__``), the
  exact interventional table (vote splitting and score vectors) and the monotonicity check;
* the data layer's vectorised evaluation (``Fusioner.apply`` on arrays of label indices, what
  the K-label forced runs count with), the forced runs themselves, and for K = 2 the binary
  data path (``data.votes.fuse``) and the fusioner's CPD (``decision_table``);
* the binary rules (AND, OR, majority, k-of-n, weighted >= threshold, user function) against
  the K-label rules they are views of at K = 2 with labels (P, N).
"""

from __future__ import annotations

import itertools
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.votes import fuse
from causalcost.network.fusioners import decision_table, make_fusioner

LABELS = {2: ["P", "N"], 3: ["covid", "flu", "ok"], 4: ["a", "b", "c", "d"]}


# -- the reference -------------------------------------------------------------------------
def reference(rule: str, votes: tuple[int, ...], k_labels: int, *, weights=None,
              threshold=None, tie=None, label=None, k=None, slot_vote=None) -> int:
    """The output label index of ``rule`` for ``votes``, from the definitions."""
    n = len(votes)
    w = [Fraction(Decimal(str(x))) for x in weights] if weights is not None else [1] * n
    score = [sum((wi for wi, v in zip(w, votes) if v == s), Fraction(0))
             for s in range(k_labels)]
    ties = list(range(k_labels)) if tie in (None, "slot") else tie

    def plurality(candidates: list[int]) -> int:
        top = max(score[s] for s in candidates)
        tied = [s for s in candidates if score[s] == top]
        if tie == "slot" and slot_vote in tied:
            return slot_vote
        return next(s for s in ties if s in tied)

    rest = [s for s in range(k_labels) if s != label]
    if rule in ("plurality", "weighted") and threshold is None:
        return plurality(list(range(k_labels)))
    if rule == "k_of_n":
        return label if votes.count(label) >= k else plurality(rest)
    if rule == "weighted":
        return label if score[label] >= Fraction(Decimal(str(threshold))) else plurality(rest)
    raise AssertionError(rule)


def priority_reference(votes: tuple[int, ...], order: list[int], k_labels: int,
                       tie: list[int] | None = None) -> int:
    for s in order:
        if s in votes:
            return s
    return reference("plurality", votes, k_labels, tie=tie)


def configurations(k_labels: int, n: int) -> np.ndarray:
    return np.array(list(itertools.product(range(k_labels), repeat=n)), dtype=np.int64)


def cases(k_labels: int, n: int) -> list[tuple[str, dict, dict]]:
    """(rule, make_fusioner options by label name, reference options by index)."""
    labels = LABELS[k_labels]
    rng = np.random.default_rng(10 * k_labels + n)
    weights = [str(x) for x in rng.choice(["0.1", "0.2", "0.3", "1", "1e-13", "1.5e-13",
                                           "1e20", "2.5"], size=n)]
    perm = [int(i) for i in rng.permutation(k_labels)]
    out = [
        ("plurality", {}, {}),
        ("plurality", {"tie": "slot"}, {"tie": "slot"}),
        ("plurality", {"tie": [labels[i] for i in perm]}, {"tie": perm}),
        ("weighted", {"weights": weights}, {"weights": weights}),
        ("weighted", {"weights": weights, "tie": "slot"}, {"weights": weights, "tie": "slot"}),
        ("priority", {"order": [labels[i] for i in perm]}, {"order": perm}),
        ("priority", {"order": [labels[perm[0]]]}, {"order": perm[:1]}),
        ("k_of_n", {"label": labels[perm[0]], "k": max(1, n // 2)},
         {"label": perm[0], "k": max(1, n // 2)}),
        ("k_of_n", {"label": labels[-1], "k": n, "tie": "slot"},
         {"label": k_labels - 1, "k": n, "tie": "slot"}),
        ("weighted", {"weights": weights, "threshold": "0.3", "label": labels[perm[0]]},
         {"weights": weights, "threshold": "0.3", "label": perm[0]}),
    ]
    return out


def expected(rule: str, options: dict, votes: tuple[int, ...], k_labels: int,
             slot_vote: int | None) -> int:
    if rule == "priority":
        return priority_reference(votes, options["order"], k_labels)
    return reference(rule, votes, k_labels, slot_vote=slot_vote, **options)


# -- every rule, every K, every configuration -----------------------------------------------
@pytest.mark.parametrize("k_labels", [2, 3, 4])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_every_rule_on_every_configuration(k_labels: int, n: int) -> None:
    if k_labels ** n > 5000:
        pytest.skip("covered by the smaller n for this K")
    labels = LABELS[k_labels]
    models = [f"m{i}" for i in range(n)]
    table = configurations(k_labels, n)
    slot = n - 1
    for rule, options, ref_options in cases(k_labels, n):
        f = make_fusioner(rule, models, labels=labels, **options)
        want = [expected(rule, ref_options, tuple(v), k_labels, int(v[slot]))
                for v in table.tolist()]
        # the data layer: vectorised on label indices
        assert f.apply(table, slot=models[slot]).tolist() == want, (rule, options)
        # the network layer: one configuration at a time
        got = [f.output(tuple(v), slot_vote=v[slot]) for v in table.tolist()]
        assert got == want, (rule, options)
        if f.tie != "slot":
            assert [f(tuple(labels[i] for i in v)) for v in table.tolist()] == \
                [labels[i] for i in want]


def test_a_user_function_is_the_same_rule_on_both_layers() -> None:
    labels = LABELS[3]

    def triage(a: str, b: str, c: str) -> str:
        return "covid" if "covid" in (a, b) else c

    f = make_fusioner(triage, ["a", "b", "c"], labels=labels)
    table = configurations(3, 3)
    want = [labels.index(triage(*(labels[i] for i in v))) for v in table.tolist()]
    assert f.apply(table).tolist() == want
    assert [f.output(tuple(v)) for v in table.tolist()] == want


# -- weights as exact rationals --------------------------------------------------------------
ISSUE = [  # (weights, votes as label names, the output) with labels covid, flu, ok
    (["1e-13", "1e-13", "1.5e-13"], ("ok", "ok", "flu"), "ok"),  # was "covid": no one voted it
    (["1e20", "1", "1e20"], ("ok", "ok", "flu"), "ok"),  # was "flu": 1e20 + 1 rounded to 1e20
    (["0.1", "0.2", "0.3"], ("ok", "ok", "flu"), "flu"),  # an exact tie: the first label wins
    ([0.1, 0.2, 0.3], ("ok", "ok", "flu"), "flu"),  # floats are their decimal text
]


@pytest.mark.parametrize(("weights", "votes", "out"), ISSUE)
def test_the_issue_cases_on_every_layer(weights: list, votes: tuple, out: str) -> None:
    labels = LABELS[3]
    models = ["a", "b", "c"]
    f = make_fusioner("weighted", models, labels=labels, weights=weights)
    index = tuple(labels.index(v) for v in votes)
    assert f(votes) == out
    assert f.output(index) == labels.index(out)
    assert f.apply(np.array([index])).tolist() == [labels.index(out)]
    # the network table: deterministic models that vote `votes` on every class
    system = deterministic_system(labels, models, index, weights=weights, slot="c")
    t = cc.interventional_table(system).to_numpy()
    assert t[:, index[2], labels.index(out)].tolist() == [1.0] * 3
    # the data layer's forced runs on a log of those votes
    frame = pd.DataFrame({"truth": labels, **{m: [v] * 3 for m, v in zip(models, votes)}})
    runs = cc.forced_runs(frame, truth="truth", models=models, slot="c", fusioner=f,
                          labels=labels)
    assert runs.forced[index[2], :, labels.index(out)].tolist() == [1, 1, 1]
    named = cc.forced_runs(frame, truth="truth", models=models, slot="c", fusioner="weighted",
                           weights=weights, labels=labels)
    np.testing.assert_array_equal(named.forced, runs.forced)


def deterministic_system(labels: list, models: list, votes: tuple, slot: str, **options):
    k = len(labels)
    builder = cc.SystemBuilder([1 / k] * k, labels=labels)
    for m, v in zip(models, votes):
        confusion = np.zeros((k, k))
        confusion[:, v] = 1.0
        builder.add_model(m, confusion=confusion)
    return builder.set_fusioner("weighted", **options).build(slot=slot)


def decimal_text() -> st.SearchStrategy[str]:
    """Decimals ``m * 10**e``, ``0 < m <= 999``, across 30 orders of magnitude."""
    return st.builds(lambda m, e: f"{m}e{e}", st.integers(1, 999), st.integers(-15, 15))


@settings(max_examples=150, deadline=None)
@given(k_labels=st.sampled_from([2, 3, 4]), weights=st.lists(decimal_text(), min_size=1,
                                                             max_size=4),
       tie=st.sampled_from([None, "slot"]), data=st.data())
def test_weighted_plurality_matches_fractions(k_labels: int, weights: list[str], tie,
                                              data: st.DataObject) -> None:
    n = len(weights)
    if data.draw(st.booleans()):  # an exact tie on purpose: one weight is the sum of others
        parts = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        if len(parts) < n:
            target = next(i for i in range(n) if i not in parts)
            with localcontext(prec=200):  # exact: 3-digit mantissas over 30 orders
                weights[target] = str(sum(Decimal(weights[i]) for i in parts))
            assert Fraction(Decimal(weights[target])) == sum(
                Fraction(Decimal(weights[i])) for i in parts)
    labels = LABELS[k_labels]
    models = [f"m{i}" for i in range(n)]
    f = make_fusioner("weighted", models, labels=labels, weights=weights, tie=tie)
    table = configurations(k_labels, n)
    want = [reference("weighted", tuple(v), k_labels, weights=weights, tie=tie,
                      slot_vote=v[0]) for v in table.tolist()]
    assert f.apply(table, slot="m0").tolist() == want
    assert [f.output(tuple(v), v[0]) for v in table.tolist()] == want


@settings(max_examples=60, deadline=None)
@given(k_labels=st.sampled_from([2, 3]), weights=st.lists(decimal_text(), min_size=2,
                                                          max_size=3), data=st.data())
def test_the_exact_table_matches_brute_force(k_labels: int, weights: list[str],
                                             data: st.DataObject) -> None:
    """T[c, j, s] of random K-label systems with weighted plurality: the exact engine against
    enumeration of every configuration with the Fraction reference."""
    labels, n = LABELS[k_labels], len(weights)
    models = [f"m{i}" for i in range(n)]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    rates = rng.dirichlet(np.ones(k_labels), size=(n, k_labels))  # rates[i, c, v]
    rates[rng.random((n, k_labels, k_labels)) < 0.3] = 0.0
    rates[:, :, 0] += 1e-3
    rates /= rates.sum(axis=2, keepdims=True)
    builder = cc.SystemBuilder([1 / k_labels] * k_labels, labels=labels)
    for i, m in enumerate(models):
        builder.add_model(m, confusion=rates[i])
    system = builder.set_fusioner("weighted", weights=weights).build(slot=models[0])
    t = cc.interventional_table(system).to_numpy()
    brute = np.zeros((k_labels, k_labels, k_labels))
    for c in range(k_labels):
        for others in itertools.product(range(k_labels), repeat=n - 1):
            p = float(np.prod([rates[i + 1, c, v] for i, v in enumerate(others)]))
            for j in range(k_labels):
                brute[c, j, reference("weighted", (j, *others), k_labels, weights=weights)] += p
    np.testing.assert_allclose(t, brute, atol=1e-12)


def test_the_monotonicity_check_sees_exact_ties() -> None:
    """0.1 + 0.2 ties 0.3: the check decides on exact scores and shows them as written."""
    labels = LABELS[3]
    system = deterministic_system(labels, ["a", "b", "c"], (2, 2, 1), slot="a",
                                  weights=[0.1, 0.2, 0.3])
    costs = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    result = cc.check_monotonicity(system, costs)
    assert result.checked > 0
    if result.violation:
        assert "0.2" in result.violation or "0.3" in result.violation


# -- the binary rules are the K = 2 view ------------------------------------------------------
BINARY = [
    ("and", {}, "priority", {"order": ["N", "P"]}),
    ("or", {}, "priority", {"order": ["P", "N"]}),
    ("majority", {}, "plurality", {"tie": ["N", "P"]}),
    ("majority", {"tie": "positive"}, "plurality", {"tie": ["P", "N"]}),
]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_binary_rules_are_the_k_label_rules_at_k2(n: int) -> None:
    models = [f"m{i}" for i in range(n)]
    table = configurations(2, n)  # label 0 is P
    bools = table == 0
    pairs = [(make_fusioner(b, models, **bo), make_fusioner(g, models, labels=["P", "N"], **go))
             for b, bo, g, go in BINARY]
    for k in range(1, n + 1):
        pairs.append((make_fusioner("k_of_n", models, k=k),
                      make_fusioner("k_of_n", models, labels=["P", "N"], label="P", k=k)))
    w = ["0.1", "0.2", "-0.3", "1e20", "1", "1e-13"][:n]
    for t in ("0.3", "0", "-0.3", "100000000000000000001", "1e-13"):
        pairs.append((make_fusioner("weighted", models, weights=w, threshold=t),
                      make_fusioner("weighted", models, labels=["P", "N"], weights=w,
                                    threshold=t)))
    for binary, general in pairs:
        want = general.apply(table).tolist()
        assert [binary(tuple(v)) for v in bools.tolist()] == [o == 0 for o in want], binary
        assert binary.apply(table).tolist() == want
        assert decision_table(binary).tolist() == [o == 0 for o in want]
        votes = {m: bools[:, i] for i, m in enumerate(models)}
        assert fuse(binary, votes).tolist() == [o == 0 for o in want]
        assert binary.kind == general.kind and binary.labels == ("P", "N")
        if binary.is_vote:  # the vote form decides as the rule
            scaled, need = binary.integer_vote()
            sums = (bools.astype(object) * np.array(scaled, dtype=object)).sum(axis=1)
            assert [bool(s >= need) for s in sums] == [o == 0 for o in want]


def test_a_binary_user_function_takes_and_returns_bools() -> None:
    f = make_fusioner("function", ["a", "b"], function=lambda a, b: a and not b)
    assert f.kind == "function" and f.boolean and not f.is_vote
    assert f.apply(configurations(2, 2)).tolist() == [1, 0, 1, 1]
    assert decision_table(f).tolist() == [False, True, False, False]


# -- names and refusals ----------------------------------------------------------------------
def test_the_deprecated_alias_warns_and_builds_the_same_rule() -> None:
    with pytest.warns(DeprecationWarning, match="make_fusioner"):
        old = cc.multiclass_fusioner("k_of_n", labels=LABELS[3], models=["a", "b"],
                                     label="ok", k=1)
    assert old == make_fusioner("k_of_n", ["a", "b"], labels=LABELS[3], label="ok", k=1)


@pytest.mark.parametrize(("rule", "options", "error", "words"), [
    ("majority", {}, cc.ValidationError, "'majority' is not a K-label rule"),
    ("plurality", {"weights": [1, 1]}, cc.ValidationError, "takes no weights"),
    ("plurality", {"tie": ["covid", "flu"]}, cc.ValidationError, "every label once"),
    ("plurality", {"tie": "coin"}, cc.ValidationError, "'slot' or a list"),
    ("priority", {}, cc.ValidationError, "needs order="),
    ("priority", {"order": ["ok", "ok"]}, cc.ValidationError, "twice"),
    ("k_of_n", {"k": 1}, cc.ValidationError, "needs label="),
    ("k_of_n", {"label": "wolf", "k": 1}, cc.UnknownNameError,
     "'wolf' is not one of the labels"),
    ("k_of_n", {"label": "ok", "k": 3}, cc.ValidationError, "1 <= k <= 2"),
    ("weighted", {"weights": [1, -1]}, cc.ValidationError, ">= 0"),
    ("weighted", {"weights": [0, 0]}, cc.ValidationError, "not all 0"),
    ("weighted", {"weights": [1, float("nan")]}, cc.ValidationError, "weight of 'b'"),
    ("weighted", {"weights": [1, 1], "label": "ok"}, cc.ValidationError, "threshold="),
    ("function", {"function": lambda votes: votes}, cc.ValidationError,
     "one keyword argument per model"),
])
def test_bad_k_label_options_are_refused(rule: str, options: dict, error: type,
                                         words: str) -> None:
    with pytest.raises(error, match=words):
        make_fusioner(rule, ["a", "b"], labels=LABELS[3], **options)


def test_labels_are_checked() -> None:
    with pytest.raises(cc.ValidationError, match="two distinct labels"):
        make_fusioner("plurality", ["a"], labels=["x", "x"])
    with pytest.raises(cc.ValidationError, match="list of at least two labels"):
        make_fusioner("plurality", ["a"], labels="xy")
    with pytest.raises(cc.ValidationError, match="K-label"):
        make_fusioner("and", ["a"], labels=["x", "y", "z"])
    f = make_fusioner("and", ["a", "b"], labels=["yes", "no"])  # K = 2: binary names too
    assert f.output((0, 1)) == 1 and f.output((0, 0)) == 0 and not f.boolean
    with pytest.raises(cc.ValidationError, match="fuse reads bool votes"):
        fuse(make_fusioner("plurality", ["a"], labels=LABELS[3]), {"a": [True]})
