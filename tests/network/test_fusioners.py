"""Fusioner rules (causalcost.network.fusioners) and their CPDs in built systems.

Each rule is compared with its definition written out independently here (module docstring
of causalcost/fusioners.py and METHOD.md: AND = positive only if all models are, OR = if any
is, majority with ties to ``tie``, k-of-n = at least k, weighted = positive voters' weights
sum to at least the threshold).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.network.fusioners import RULES, make_fusioner


def reference(rule: str, votes: tuple[bool, ...], **kw) -> bool:
    """The rules' definitions, one line each."""
    yes, n = sum(votes), len(votes)
    if rule == "and":
        return yes == n
    if rule == "or":
        return yes >= 1
    if rule == "majority":
        return yes > n - yes or (yes == n - yes and kw.get("tie", "negative") == "positive")
    if rule == "k_of_n":
        return yes >= kw["k"]
    if rule == "weighted":
        return sum(w for w, v in zip(kw["weights"], votes) if v) >= kw["threshold"]
    raise AssertionError(rule)


votes_st = st.integers(1, 6).flatmap(lambda n: st.tuples(*[st.booleans()] * n))


@settings(max_examples=200, deadline=None)
@given(votes=votes_st, tie=st.sampled_from(["negative", "positive"]), data=st.data())
def test_rules_match_their_definitions(votes, tie, data) -> None:
    n = len(votes)
    names = [f"m{i}" for i in range(n)]
    k = data.draw(st.integers(1, n))
    weights = data.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.5]), min_size=n,
                                 max_size=n))
    threshold = data.draw(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.5]))
    assert cc.make_fusioner("and", names)(votes) == reference("and", votes)
    assert cc.make_fusioner("or", names)(votes) == reference("or", votes)
    assert cc.make_fusioner("majority", names, tie=tie)(votes) == \
        reference("majority", votes, tie=tie)
    assert cc.make_fusioner("k_of_n", names, k=k)(votes) == reference("k_of_n", votes, k=k)
    for w in (weights, dict(zip(names, weights))):
        f = cc.make_fusioner("weighted", names, weights=w, threshold=threshold)
        assert f(votes) == reference("weighted", votes, weights=weights, threshold=threshold)


def test_majority_ties() -> None:
    # 4 models, 2 positive: tie; goes to the negative by default (module docstring)
    names = ["a", "b", "c", "d"]
    tie = (True, True, False, False)
    assert cc.make_fusioner("majority", names)(tie) is False
    assert cc.make_fusioner("majority", names, tie="positive")(tie) is True
    assert cc.make_fusioner("majority", names, tie="positive")((True, False, False, False)) \
        is False
    # odd n has no ties: tie setting is irrelevant
    for votes in itertools.product((True, False), repeat=3):
        assert cc.make_fusioner("majority", names[:3], tie="positive")(votes) == \
            cc.make_fusioner("majority", names[:3], tie="negative")(votes) == (sum(votes) >= 2)
    assert "ties go negative" in repr(cc.make_fusioner("majority", names))


def test_weighted_threshold_is_inclusive_despite_rounding() -> None:
    # 0.1 + 0.2 = 0.30000000000000004 in floating point; 0.1 + 0.2 >= 0.3 must hold, and
    # 0.1 + 0.1 + 0.1 = 0.30000000000000004 too; the rule has a 1e-12 tolerance for it
    f = cc.make_fusioner("weighted", ["a", "b", "c"], weights=[0.1, 0.2, 0.7], threshold=0.3)
    assert f((True, True, False)) is True
    g = cc.make_fusioner("weighted", ["a", "b", "c"], weights=[0.1, 0.1, 0.1], threshold=0.3)
    assert g((True, True, True)) is True and g((True, True, False)) is False


def test_user_function_gets_named_votes() -> None:
    seen = []

    def rule(images: bool, history: bool) -> bool:
        seen.append((images, history))
        return images and not history

    f = cc.make_fusioner("function", ["images", "history"], function=rule)
    assert f((True, False)) is True and f((True, True)) is False
    assert seen == [(True, False), (True, True)]
    assert "user function rule" in repr(f)


def test_user_function_must_return_a_bool() -> None:
    f = cc.make_fusioner("function", ["a", "b"], function=lambda a, b: "yes")
    with pytest.raises(cc.ValidationError, match="must return True or False, got 'yes'"):
        f((True, False))
    g = cc.make_fusioner("function", ["a", "b"], function=lambda a, b: 2)
    with pytest.raises(cc.ValidationError, match="got 2"):
        g((True, True))


@pytest.mark.parametrize(("rule", "kwargs", "message"), [
    ("xor", {}, r"fusioner rule \('xor'\) must be one of and, or, majority, k_of_n, "
                r"weighted, function"),
    ("k_of_n", {}, r"integer k with 1 <= k <= 3, got k=None"),
    ("k_of_n", {"k": 0}, r"1 <= k <= 3, got k=0"),
    ("k_of_n", {"k": 4}, r"got k=4"),
    ("k_of_n", {"k": True}, r"got k=True"),
    ("k_of_n", {"k": 2.0}, r"got k=2.0"),
    ("majority", {"tie": "coin"}, r"tie \('coin'\) must be 'negative' or 'positive'"),
    ("weighted", {"threshold": 1}, r"weighted vote needs weights"),
    ("weighted", {"weights": [1, 1, 1]}, r"needs a finite threshold"),
    ("weighted", {"weights": [1, 1, 1], "threshold": float("inf")}, r"finite threshold"),
    ("weighted", {"weights": [1, 1], "threshold": 1}, r"weights needs 3 values, got 2"),
    ("weighted", {"weights": {"a": 1, "b": 1, "z": 1}, "threshold": 1},
     r"exactly the models \['a', 'b', 'c'\]; unknown \['z'\]; missing \['c'\]"),
    ("weighted", {"weights": [1, float("nan"), 1], "threshold": 1},
     r"weight of 'b' must be a finite number"),
    ("weighted", {"weights": [1, True, 1], "threshold": 1}, r"weight of 'b'"),
    ("function", {}, r"needs a callable function"),
    ("function", {"function": 3}, r"needs a callable function"),
    # issue 7: options of another rule are refused, not ignored
    ("and", {"k": 2}, r"rule 'and' does not take k \(k is for rule 'k_of_n'\)"),
    ("or", {"tie": "positive"}, r"does not take tie \(tie is for rule 'majority'\)"),
    ("majority", {"weights": [1, 1, 1], "threshold": 2},
     r"does not take weights, threshold .*remove them"),
    ("k_of_n", {"k": 2, "function": all}, r"does not take function"),
    ("weighted", {"weights": 5, "threshold": 1}, r"weights must be one number per model .*got 5"),
    ("weighted", {"weights": "abc", "threshold": 1}, r"weights must be one number per model"),
    ("weighted", {"weights": [1, 10**400, 1], "threshold": 1},
     r"weight of 'b' must be a finite number"),
    ("weighted", {"weights": [1, 1, 1], "threshold": True}, r"finite threshold, got True"),
    ("function", {"function": lambda votes: True}, r"one keyword argument per model"),
])
def test_bad_fusioner_arguments(rule: str, kwargs: dict, message: str) -> None:
    with pytest.raises(cc.ValidationError, match=message):
        cc.make_fusioner(rule, ["a", "b", "c"], **kwargs)


def test_no_inputs() -> None:
    with pytest.raises(cc.ValidationError, match="at least one input model"):
        cc.make_fusioner("and", [])


def test_duplicate_inputs_are_refused() -> None:
    with pytest.raises(cc.ValidationError, match=r"inputs name \['a'\] more than once"):
        cc.make_fusioner("or", ["a", "b", "a"])
    b = (cc.SystemBuilder(class_prior=0.5).add_model("a", sensitivity=0.8, specificity=0.8)
         .add_model("b", sensitivity=0.8, specificity=0.8))
    with pytest.raises(cc.ValidationError, match="more than once"):
        b.set_fusioner("and", inputs=["a", "a", "b"])


def test_rule_names_are_the_documented_ones() -> None:
    assert RULES == ("and", "or", "majority", "k_of_n", "weighted", "function")


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 4), data=st.data())
def test_builder_fusioner_cpd_matches_the_rule_at_every_configuration(n: int, data) -> None:
    names = [f"m{i}" for i in range(n)]
    rule = data.draw(st.sampled_from(["and", "or", "majority", "k_of_n", "weighted"]))
    kw: dict = {}
    if rule == "majority":
        kw = {"tie": data.draw(st.sampled_from(["negative", "positive"]))}
    elif rule == "k_of_n":
        kw = {"k": data.draw(st.integers(1, n))}
    elif rule == "weighted":
        kw = {"weights": data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n,
                                            max_size=n)),
              "threshold": data.draw(st.sampled_from([0.0, 1.0, 2.0, 3.0]))}
    pos, neg = data.draw(st.sampled_from([("P", "N"), ("yes", "no")]))
    builder = cc.SystemBuilder(class_prior=0.5, positive=pos, negative=neg)
    for m in names:
        builder.add_model(m, sensitivity=0.7, specificity=0.6)
    system = builder.set_fusioner(rule, name="Fus", **kw).build(slot=names[-1])
    cpd = system.network.get_cpds("Fus")
    for states in itertools.product((pos, neg), repeat=n):
        votes = tuple(s == pos for s in states)
        expected = pos if reference(rule, votes, **kw) else neg
        assert cpd.get_value(Fus=expected, **dict(zip(names, states))) == 1.0


def test_fusioner_over_a_subset_of_models() -> None:
    # inputs= picks the models the rule reads; the others must still reach the system
    # (here "c" feeds "b"), otherwise the build is refused
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("c", sensitivity=0.8, specificity=0.8)
              .add_model("b", parents=["c"], positive_probability=[1.0, 0.0])
              .set_fusioner("and", inputs=["a", "b"]).build(slot="c"))
    assert sorted(system.network.get_parents("Fusioner")) == ["a", "b"]
    with pytest.raises(cc.NetworkStructureError, match="model 'c' does not reach"):
        (cc.SystemBuilder(class_prior=0.5)
         .add_model("a", sensitivity=0.8, specificity=0.8)
         .add_model("b", sensitivity=0.8, specificity=0.8)
         .add_model("c", sensitivity=0.8, specificity=0.8)
         .set_fusioner("and", inputs=["a", "b"]).build())


@pytest.mark.parametrize(
    ("rule", "n", "options"),
    [("and", 3, {}), ("or", 4, {}), ("majority", 3, {}), ("majority", 4, {}),
     ("majority", 4, {"tie": "positive"}), ("k_of_n", 5, {"k": 2}),
     ("weighted", 3, {"weights": [0.1, 0.2, 0.5], "threshold": 0.3}),
     ("weighted", 3, {"weights": [2, -1, 1], "threshold": 1})],
)
def test_the_vote_form_decides_as_the_rule_on_every_input(rule: str, n: int, options: dict) -> None:
    names = [f"m{i}" for i in range(n)]
    f = make_fusioner(rule, names, **options)
    assert f.is_vote and f.inputs == tuple(names)
    for votes in itertools.product([False, True], repeat=n):
        total = sum(w for w, v in zip(f.weights, votes) if v)
        assert f(votes) == (total >= f.threshold - 1e-12), (rule, votes)
    assert f.monotone == all(w >= 0 for w in f.weights)


def test_a_user_function_has_no_vote_form() -> None:
    f = make_fusioner("function", ["a", "b"], function=lambda a, b: a != b)
    assert not f.is_vote and f.monotone is None and f.weights is None
