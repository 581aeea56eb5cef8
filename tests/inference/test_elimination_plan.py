"""The elimination plan run by causalcost itself: same tensor as numpy's einsum, same flop count
and path as opt_einsum prices it, on random tensor networks and on more than 52 indices."""

from __future__ import annotations

import numpy as np
import opt_einsum as oe
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcost.inference.elimination import elimination_path, elimination_plan


@st.composite
def tensor_networks(draw: st.DrawFn) -> tuple[list[str], str, dict[str, int]]:
    letters = "abcdefgh"
    n_terms = draw(st.integers(1, 6))
    terms = ["".join(draw(st.permutations(letters))[: draw(st.integers(1, 4))])
             for _ in range(n_terms)]
    present = sorted(set("".join(terms)))
    output = "".join(v for v in present if draw(st.booleans()) and draw(st.booleans()))
    sizes = {v: draw(st.integers(1, 4)) for v in letters}
    return terms, output, sizes


@settings(max_examples=80, deadline=None)
@given(tensor_networks(), st.integers(0, 2**32 - 1))
def test_plan_equals_einsum_and_opt_einsum_pricing(network: tuple[list[str], str, dict[str, int]],
                                                   seed: int) -> None:
    terms, output, sizes = network
    rng = np.random.default_rng(seed)
    operands = [rng.random([sizes[v] for v in t]) for t in terms]
    equation = ",".join(terms) + "->" + output
    plan = elimination_plan(terms, output, sizes)
    assert plan.path == elimination_path(terms, output, sizes)
    np.testing.assert_allclose(plan(*operands), np.einsum(equation, *operands), rtol=1e-12,
                               atol=1e-300)
    shapes = [o.shape for o in operands]
    _, info = oe.contract_path(equation, *shapes, shapes=True, optimize=plan.path)
    assert plan.cost == float(info.opt_cost)


def test_a_chain_of_more_than_52_indices() -> None:
    # opt_einsum writes indices beyond 52 with Unicode symbols, which numpy.einsum refuses
    n = 80
    symbols = [oe.get_symbol(i) for i in range(n)]
    rng = np.random.default_rng(7)
    terms = [symbols[0]] + [symbols[i - 1] + symbols[i] for i in range(1, n)]
    sizes = dict.fromkeys(symbols, 2)
    operands = [rng.random(2)] + [rng.random((2, 2)) for _ in range(1, n)]
    plan = elimination_plan(terms, symbols[-1], sizes)
    expected = operands[0]
    for matrix in operands[1:]:  # the chain by hand: a vector times each matrix in turn
        expected = expected @ matrix
    np.testing.assert_allclose(plan(*operands), expected, rtol=1e-12)
