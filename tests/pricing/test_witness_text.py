"""The witness in words: sentences that agree with the numbers they describe.

Expected sentences are written out by hand from the witnesses (ClassWitness values printed by
repr) of each example; the kind order is the table of causalcost.pricing.bounds' docstring.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.pricing.kinds import kinds_frame
from causalcost.pricing.witness import KIND_LABELS, KINDS, display_count

# one placed group: "<count> model hit(s)[ and <count> model mistake(s)] on <instances> <label>"
NUMBER = r"\d+(?:\.\d+)?(?:e-\d+)?"
GROUP = re.compile(
    rf"(?:(?P<hits>{NUMBER}) model (?P<hnoun>hits?))?(?: and )?"
    rf"(?:(?P<mistakes>{NUMBER}) model (?P<mnoun>mistakes?))? on "
    r"(?P<article>an instance that|instances that) (?P<label>[a-z ]+?)(?=, \d|$)")
PLURAL_LABELS = {k: v.replace("fails", "fail") for k, v in KIND_LABELS.items()}


@st.composite
def monotone_count_inputs(draw: st.DrawFn) -> tuple[cc.Confusion, cc.Confusion, cc.Confusion]:
    def cls() -> tuple[int, int, int, int]:
        n = draw(st.integers(0, 60))
        fc = draw(st.integers(0, n))
        fw = draw(st.integers(fc, n))
        right = draw(st.integers(0, n))
        return n, fc, fw, right

    n_p, fc_p, fw_p, tp = cls()
    n_n, fc_n, fw_n, tn = cls()
    forced_p = cc.Confusion(tp=n_p - fc_p, fn=fc_p, fp=fw_n, tn=n_n - fw_n)
    forced_n = cc.Confusion(tp=n_p - fw_p, fn=fw_p, fp=fc_n, tn=n_n - fc_n)
    return forced_p, forced_n, cc.Confusion(tp=tp, fn=n_p - tp, fp=n_n - tn, tn=tn)


def parse_line(line: str) -> tuple[str, list[tuple[str, float, float, bool]], str]:
    """(class, [(kind, hits, mistakes, singular instance)], the "-> .. system errors" text)."""
    name, _, rest = line.partition(": ")
    body, _, errors = rest.rpartition(" -> ")
    groups = []
    for part in re.split(r", (?=\d)", body):
        m = GROUP.fullmatch(part)
        assert m, part
        labels = KIND_LABELS if m["article"] == "an instance that" else PLURAL_LABELS
        kind = next(k for k, v in labels.items() if v == m["label"])
        hits, mistakes = float(m["hits"] or 0), float(m["mistakes"] or 0)
        for count, noun in ((m["hits"], m["hnoun"]), (m["mistakes"], m["mnoun"])):
            if count is not None:  # number and noun agree
                assert (count == "1") == (noun in ("hit", "mistake")), part
        groups.append((kind, hits, mistakes, m["article"] == "an instance that"))
    return name, groups, errors


@settings(max_examples=200, deadline=None)
@given(monotone_count_inputs(), st.sampled_from(["monotone", "none"]))
def test_described_counts_add_up(inputs: tuple[cc.Confusion, cc.Confusion, cc.Confusion],
                                 assumption: str) -> None:
    result = cc.bound(*inputs, assumption=assumption)
    model = inputs[2]
    for witness, confusion in ((result.worst_witness, result.worst),
                               (result.best_witness, result.best)):
        for line in witness.describe().splitlines():
            name, groups, errors = parse_line(line)
            cw = getattr(witness, name)
            # kinds in the order of the table, each once, with the witness's numbers
            kinds = [g[0] for g in groups]
            assert kinds == sorted(kinds, key=KINDS.index) and len(set(kinds)) == len(kinds)
            for kind, hits, mistakes, singular in groups:
                assert (hits, mistakes) == getattr(cw, kind)
                assert singular == (hits + mistakes == 1)
            size = model.positives if name == "positives" else model.negatives
            assert sum(g[1] + g[2] for g in groups) == size  # every instance placed once
            count = confusion.fn if name == "positives" else confusion.fp
            assert errors == f"{display_count(count)} system error{'' if count == 1 else 's'}"
    assert "How the worst case can happen:" in str(result)


def test_thesis_worst_case_sentence() -> None:
    # thesis §3.3 (AND, model 1 right on 50 of 100 positives, slot model 50 %): the worst case
    # puts the 50 mistakes on the instances model 1 gets right and the 50 hits on the others
    b = cc.bound(cc.Confusion(50, 50, 0, 0), cc.Confusion(0, 100, 0, 0), cc.Confusion(50, 50, 0, 0))
    assert b.worst_witness.describe() == (
        "positives: 50 model mistakes on instances that fail only when the slot is wrong, "
        "50 model hits on instances that always fail -> 100 system errors")
    assert b.best_witness.describe() == (
        "positives: 50 model hits on instances that fail only when the slot is wrong, "
        "50 model mistakes on instances that always fail -> 50 system errors")


def test_singular_and_plural() -> None:
    # 3 positives: F_P(P) = 1, F_P(N) = 2, model 2 hits / 1 mistake; 3 negatives: F_N(N) = 1,
    # F_N(P) = 1, model 2 hits / 1 mistake. Worst (monotone): positives never (1, 0),
    # wrong_only (0, 1), always (1, 0); negatives never (1, 1), always (1, 0).
    b = cc.bound(cc.Confusion(2, 1, 1, 2), cc.Confusion(1, 2, 1, 2), cc.Confusion(2, 1, 1, 2))
    assert b.worst_witness.describe().splitlines() == [
        "positives: 1 model hit on an instance that never fails, 1 model mistake on an instance "
        "that fails only when the slot is wrong, 1 model hit on an instance that always fails "
        "-> 2 system errors",
        "negatives: 1 model hit and 1 model mistake on instances that never fail, 1 model hit on "
        "an instance that always fails -> 1 system error",
    ]


def test_expected_counts_are_rounded() -> None:
    # probability form: e_P(P) = 0.3, e_P(N) = 0.9 on 10 positives (tp 7, fn 3): fc = 3,
    # fw = 9; e_N(N) = 0.1, e_N(P) = 0.4 on 11 negatives (tn 9, fp 2): fc = 1.1, fw = 4.4.
    # Worst (monotone) negatives: hits on always 1.1, then never 11 - 4.4 = 6.6, then
    # wrong_only 9 - 1.1 - 6.6 = 1.3; mistakes on wrong_only 4.4 - 1.1 - 1.3 = 2
    b = cc.bound_from_rates(cc.ErrorRates(0.3, 0.9, 0.4, 0.1), cc.Confusion(7, 3, 2, 9))
    negatives = b.worst_witness.describe().splitlines()[1]
    assert negatives == (
        "negatives: about 6.6 model hits on instances that never fail, about 1.3 model hits and "
        "2 model mistakes on instances that fail only when the slot is wrong, about 1.1 model "
        "hits on instances that always fail -> about 3.1 system errors")
    assert "0000" not in b.worst_witness.describe()  # 6.6000000000000005 and the like


def test_large_expected_counts_are_whole_and_say_about() -> None:
    # probability form on 2000 negatives (tn 1023, fp 977) with e_N(P) = 0.2087, e_N(N) = 0:
    # 417.4 negatives fail only when the slot is wrong, none always. The worst case puts
    # mistakes there first (417.4 system errors), the other 559.6 mistakes and all 1023 hits
    # on instances that never fail.
    b = cc.bound_from_rates(cc.ErrorRates(0.2, 1.0, 0.2087, 0.0), cc.Confusion(565, 435, 977, 1023))
    text = b.worst_witness.describe()
    assert text.splitlines()[1] == (
        "negatives: 1023 model hits and about 560 model mistakes on instances that never fail, "
        "about 417 model mistakes on instances that fail only when the slot is wrong "
        "-> about 417 system errors")
    assert b.worst.fp == pytest.approx(417.4, rel=1e-12)
    assert not re.search(r"\d\.\d", text)  # no decimals on counts this large


def test_right_only_comes_last() -> None:
    # kinds form: one positive of each kind, model 2 hits / 2 mistakes; worst places hits on
    # right_only first, then never, and mistakes on wrong_only and always (3 errors)
    k = cc.bound(kinds=kinds_frame({"never": 1, "wrong_only": 1, "always": 1, "right_only": 1},
                                   {}), model=cc.Confusion(2, 2, 0, 0))
    assert k.worst_witness.describe() == (
        "positives: 1 model hit on an instance that never fails, 1 model mistake on an instance "
        "that fails only when the slot is wrong, 1 model mistake on an instance that always "
        "fails, 1 model hit on an instance that fails only when the slot is right "
        "-> 3 system errors")


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1"), (2, "2"), (0.915888, "0.92"), (2.5, "2.5"), (2.999, "3"), (0.0012, "0.0012"),
    (12.3456, "12.35"), (2**60 + 1, "1152921504606846977"),
])
def test_display_count(value: float, text: str) -> None:
    assert display_count(value) == text
