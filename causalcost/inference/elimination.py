"""Contraction orders by variable elimination, for networks opt_einsum's greedy path handles badly.

A Bayesian network's CPDs form a sparse tensor network: each variable's index appears in its
own CPD and its children's. opt_einsum's ``greedy`` optimizer (what ``"auto"`` uses beyond 14
operands) merges tensors by the memory they free, which on long chains of many-state nodes,
such as the count nodes a vote fusioner is divorced into (``count_i`` has ``i + 1`` states),
builds intermediates holding several count indices at once: for 200 models it plans ~2.6e9
flops where eliminating the chain in order needs ~4e7.

:func:`elimination_path` is the classic greedy *min-weight* variable elimination (Koller &
Friedman, *Probabilistic Graphical Models*, §9.4.3): repeatedly sum out the variable whose
elimination creates the smallest factor, multiplying the factors that hold it pairwise,
smallest first. :func:`elimination_path` returns it as an opt_einsum path;
:func:`elimination_plan` also writes the einsum of every step and counts its flops, and runs
the steps itself (:class:`EliminationPlan`), which :mod:`causalcost.inference.exact` uses beyond
14 CPDs: searching and pricing a plan with opt_einsum took longer there than the contraction.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["EliminationPlan", "elimination_path", "elimination_plan"]


class EliminationPlan:
    """The steps of a min-weight elimination, ready to run on operands (no opt_einsum).

    Each step contracts one or two operands with ``numpy.einsum`` and appends the result, as
    the path of :func:`elimination_path` says; ``cost`` counts flops as
    ``opt_einsum.contract_path`` does (so the two kinds of plan can be compared). Planning
    this way takes a fraction of opt_einsum's own pricing of the same path, which on a
    200-model divorced vote costs more than the contraction itself.

    Examples
    --------
    >>> import numpy as np
    >>> plan = elimination_plan(["ab", "bc", "c"], "a", {"a": 2, "b": 3, "c": 4})
    >>> plan.steps
    (((1, 2), 'bc,c->b'), ((0, 1), 'ab,b->a'))
    >>> x, y, z = np.ones((2, 3)), np.ones((3, 4)), np.ones(4)
    >>> plan(x, y, z).tolist(), plan.cost
    ([12.0, 12.0], 36.0)
    """

    __slots__ = ("_dots", "cost", "final", "path", "steps")

    def __init__(self, path: list[tuple[int, ...]], steps: tuple[tuple[tuple[int, ...], str],
                 ...], final: str | None, cost: float) -> None:
        self.path, self.steps, self.final, self.cost = path, steps, final, cost
        self._dots = [_tensordot(equation) for _, equation in steps]

    def __call__(self, *operands: np.ndarray) -> np.ndarray:
        ops = list(operands)
        for (positions, equation), dot in zip(self.steps, self._dots):
            args = [ops[p] for p in positions]
            for p in reversed(positions):
                ops.pop(p)
            if dot is None:
                ops.append(np.einsum(equation, *args))
            else:  # a product summing the shared indices: BLAS, as opt_einsum does
                axes, perm = dot
                ops.append(np.tensordot(args[0], args[1], axes=axes).transpose(perm))
        (out,) = ops
        return np.einsum(self.final, out) if self.final else out

    def __repr__(self) -> str:
        return f"EliminationPlan(steps={len(self.steps)}, cost={self.cost:.3g})"


def elimination_path(
    terms: Sequence[str], output: str, sizes: Mapping[str, int]
) -> list[tuple[int, ...]]:
    """An opt_einsum contraction path for ``",".join(terms) + "->" + output``.

    Parameters
    ----------
    terms : sequence of str
        The index letters of each operand.
    output : str
        The indices kept (never eliminated).
    sizes : mapping
        The dimension of every index.

    Returns
    -------
    list of tuple of int
        Steps in opt_einsum's format: the positions, in the current operand list, of the
        operands contracted together; the result goes to the end of the list.

    Examples
    --------
    A chain ``a - b - c`` summed to ``a``: ``c`` goes first (its factor is the smallest).

    >>> elimination_path(["ab", "bc", "c"], "a", {"a": 2, "b": 3, "c": 4})
    [(1, 2), (0, 1)]
    """
    return elimination_plan(terms, output, sizes).path


def elimination_plan(terms: Sequence[str], output: str, sizes: Mapping[str, int]
                     ) -> EliminationPlan:
    """:func:`elimination_path` with the einsum of every step and its flop count.

    The path is the same; see :class:`EliminationPlan` for running it.
    """
    keep = set(output)
    factors: dict[int, frozenset[str]] = {i: frozenset(t) for i, t in enumerate(terms)}
    order = list(range(len(terms)))  # operand positions as opt_einsum sees them -> factor ids
    holders: dict[str, set[int]] = defaultdict(set)
    for i, term in enumerate(terms):
        for v in term:
            holders[v].add(i)
    path: list[tuple[int, ...]] = []
    steps: list[tuple[tuple[int, ...], str]] = []
    indices: dict[int, str] = dict(enumerate(terms))  # factor id -> its einsum letters
    cost = [0.0]
    counter = [len(terms)]

    def size(indices: frozenset[str]) -> int:
        return math.prod(sizes[v] for v in indices)

    def merge(ids: list[int]) -> None:
        """Contract the factors ``ids`` (smallest first, pairwise, or one alone)."""
        ids = sorted(ids, key=lambda i: (size(factors[i]), i))
        acc = ids[0]
        for other in ids[1:] or [None]:
            group = (acc,) if other is None else (acc, other)
            positions = tuple(sorted(order.index(g) for g in group))
            path.append(positions)
            operands = [order[p] for p in positions]  # the einsum's operand order
            for p in reversed(positions):
                order.pop(p)
            union = frozenset().union(*(factors[g] for g in group))
            new = counter[0]
            counter[0] += 1
            kept = frozenset(v for v in union if v in keep or holders[v] - set(group))
            letters = "".join(sorted(kept))
            steps.append((positions, _ascii(",".join(indices[g] for g in operands) + "->"
                                            + letters)))
            indices[new] = letters
            # flops as opt_einsum counts them (helpers.flop_count)
            cost[0] += size(union) * max(1, len(group) - 1) * (2 if union - kept else 1)
            for v in union:
                holders[v] -= set(group)
                if v in kept:
                    holders[v].add(new)
            for g in group:
                del factors[g]
            factors[new] = kept
            order.append(new)
            acc = new

    def weight(v: str) -> tuple[int, int, str]:
        union = frozenset().union(*(factors[h] for h in holders[v]))
        return (size(union - {v}), len(holders[v]), v)

    weights = {v: weight(v) for v in holders if v not in keep}
    heap = list(weights.values())  # every current weight, and stale ones skipped when popped
    heapq.heapify(heap)
    while weights:
        best = heapq.heappop(heap)
        v = best[2]
        if weights.get(v) != best:
            continue
        touched = frozenset().union(*(factors[h] for h in holders[v]))
        merge(list(holders[v]))
        del weights[v]
        for u in touched:
            if u in weights:
                if holders[u]:
                    weights[u] = weight(u)
                    heapq.heappush(heap, weights[u])
                else:
                    del weights[u]
    while len(order) > 1:
        merge(order[:2])
    if not path and order:  # one operand and nothing to sum: still one step, for the output order
        path.append((0,))
        steps.append(((0,), _ascii(f"{indices[order[0]]}->{indices[order[0]]}")))
        cost[0] += size(factors[order[0]])
    last = indices[order[0]] if order else ""
    final = None if last == output else _ascii(f"{last}->{output}")
    return EliminationPlan(path, tuple(steps), final, cost[0])


def _ascii(equation: str) -> str:
    """``equation`` with its indices renamed to ASCII letters (``numpy.einsum`` takes no others;
    a network of more than 52 nodes is written with opt_einsum's Unicode symbols)."""
    if equation.isascii():
        return equation
    names = dict.fromkeys(c for c in equation if c not in ",->")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    table = dict(zip(names, letters))
    return "".join(table.get(c, c) for c in equation)


def _tensordot(equation: str) -> tuple[tuple[list[int], list[int]], list[int]] | None:
    """``(axes, permutation)`` running a two-operand ``equation`` as ``numpy.tensordot`` and a
    transpose, or None when it is not such a product (an index kept by both operands, an index
    summed within one, a repeated index, or fewer shared indices than one)."""
    inputs, result = equation.split("->")
    parts = inputs.split(",")
    if len(parts) != 2:
        return None
    a, b = parts
    shared = set(a) & set(b)
    if (not shared or shared & set(result) or len(set(a)) < len(a) or len(set(b)) < len(b)
            or set(result) != (set(a) | set(b)) - shared or len(set(result)) < len(result)):
        return None
    axes = ([a.index(v) for v in sorted(shared)], [b.index(v) for v in sorted(shared)])
    free = [v for v in a if v not in shared] + [v for v in b if v not in shared]
    return axes, [free.index(v) for v in result]
