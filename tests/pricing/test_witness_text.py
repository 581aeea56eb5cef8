"""The witness in words agrees with the numbers it describes."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc


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


@settings(max_examples=200, deadline=None)
@given(monotone_count_inputs())
def test_described_counts_add_up(inputs: tuple[cc.Confusion, cc.Confusion, cc.Confusion]) -> None:
    result = cc.bound(*inputs)
    for witness, confusion in ((result.worst_witness, result.worst),
                               (result.best_witness, result.best)):
        text = witness.describe()
        for line in text.splitlines():
            name, _, rest = line.partition(": ")
            mentioned = sum(int(m) for m in re.findall(r"(\d+) model (?:hits|mistakes)", rest))
            errors = int(rest.rsplit("-> ", 1)[1].split()[0])
            model = inputs[2]
            size = model.positives if name == "positives" else model.negatives
            assert mentioned == size  # every instance of the class is placed once
            assert errors == (confusion.fn if name == "positives" else confusion.fp)
    assert "How the worst case can happen:" in str(result)
