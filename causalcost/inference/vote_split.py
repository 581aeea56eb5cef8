"""Meet-in-the-middle contraction around a fusioner with many inputs.

A fusioner's CPD over ``k`` binary inputs has ``2^(k+1)`` entries, and a general contraction
order reaches it through a chain of high-dimensional einsum steps that numpy runs slowly. Most
systems have a simpler shape: the models are conditionally independent given a small *context*
``Z`` (their parents: the class, a latent difficulty, features) and feed only the fusioner.
Then, with ``t`` ranging over joint states of (class, Z) and ``v = (v_L, v_R)`` the votes split
into the inputs left and right of a cut through the fusioner's axes,

    R[t, x, s] = P(t) sum_{v_L, v_R} W_L[t, v_L] F[s, v_L, v_R | slot = x] W_R[t, v_R],

where ``W_L[t, v_L] = prod_{i in L} P(v_i | t)`` (and ``W_R`` likewise) are small outer products
and the middle sum is one matrix product with the fusioner table, read in its own memory
layout. Summing ``R`` over Z gives ``P(C = c, S = s | do(slot = x))``.

:func:`plan_vote_split` returns ``None`` when the network does not have that shape (a model
with a parent that is not shared context, a model feeding another model, the slot upstream of
the context, ...); :mod:`causalcost.inference.exact` then uses the general contraction. Both are
checked against brute-force enumeration in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from causalcost.network.system import System

__all__ = ["MIN_VOTES", "VoteSplit", "plan_vote_split"]

#: Fewest fusioner inputs for which the split pays off over the general contraction.
MIN_VOTES = 6


@dataclass(frozen=True)
class _Input:
    node: str
    card: int
    perm: tuple[int, ...] | None  # None: the slot (an open index); else CPD axes -> (ctx..., v)
    shape: tuple[int, ...]  # broadcastable context shape + (card,)


@dataclass(frozen=True)
class VoteSplit:
    """A planned meet-in-the-middle evaluation (see the module docstring)."""

    system_node: str
    joint_factors: tuple[str, ...]  # CPDs of the (class, context) joint, in operand order
    joint: Any  # opt_einsum expression for P(class, context...)
    context_shape: tuple[int, ...]  # (|C|, cards of the other context nodes...)
    left: tuple[_Input, ...]
    right: tuple[_Input, ...]
    slot_card: int

    @property
    def cost(self) -> float:
        """Approximate flops: the middle matrix product dominates."""
        context = float(np.prod(self.context_shape))
        return 2.0 * context * self.slot_card * self.table_size

    @property
    def table_size(self) -> int:
        sizes = [item.card for item in self.left + self.right]
        return int(np.prod(sizes, dtype=np.int64))

    def __call__(self, cpds: Mapping[str, np.ndarray]) -> np.ndarray:
        """``R[c, x, s]`` in network state order (the slot's too)."""
        weight = self.joint(*(cpds[n] for n in self.joint_factors)).reshape(-1)
        t = weight.size
        w_left = self._outer(self.left, cpds, t) * weight[:, None, None]
        w_right = self._outer(self.right, cpds, t)
        table = cpds[self.system_node]
        s = table.shape[0]
        mid = np.matmul(w_left.reshape(-1, w_left.shape[2]),
                        table.reshape(s, w_left.shape[2], w_right.shape[2]))
        mid = mid.reshape(s, t, w_left.shape[1], w_right.shape[2])
        r = np.einsum("stlr,tmr->tlms", mid, w_right).reshape(t, -1, s)
        return r.reshape(self.context_shape[0], -1, r.shape[1], s).sum(axis=1)

    def _outer(self, inputs: tuple[_Input, ...], cpds: Mapping[str, np.ndarray],
               t: int) -> np.ndarray:
        """``W[t, x or 1, v]``: product of the inputs' CPDs given the context (slot: identity)."""
        w = np.ones((t, 1, 1))
        for item in inputs:
            if item.perm is None:  # the slot: keep x open, v_slot = x
                eye = np.eye(item.card)
                w = (w[:, :, :, None] * eye[None, :, None, :]).reshape(t, item.card, -1)
                continue
            p = np.broadcast_to(cpds[item.node].transpose(item.perm).reshape(item.shape),
                                self.context_shape + (item.card,)).reshape(t, item.card)
            w = (w[:, :, :, None] * p[:, None, None, :]).reshape(t, w.shape[1], -1)
        return w


def plan_vote_split(system: System, slot: str, contraction: Any) -> VoteSplit | None:
    """Plan the split for ``system`` with ``slot`` intervened, or None if it does not apply.

    ``contraction(relevant, output)`` plans an einsum over the CPDs of ``relevant`` and returns
    ``(factors, expression)``; it is used for the small (class, context) joint.
    """
    net, target, cls = system.graph, system.system_node, system.class_node
    cpd = net.get_cpds(target)
    inputs = list(cpd.variables[1:])
    votes = [v for v in inputs if v != slot]
    if slot not in inputs or len(votes) < MIN_VOTES:
        return None
    context = set().union(*(net.get_parents(v) for v in votes))
    downstream = nx.descendants(net, slot) | set(votes) | {slot, target}
    if context & downstream or cls in set().union(*(nx.descendants(net, v) for v in inputs)):
        return None
    ancestors = set().union(*(nx.ancestors(net, z) for z in context | {cls}))
    if ancestors & downstream:
        return None
    others = sorted(context - {cls}, key=str)
    order = [cls, *others]
    cards = {n: len(system.states(n)) for n in order}
    factors, joint = contraction(ancestors | set(order), tuple(order))
    context_shape = tuple(cards[n] for n in order)

    def describe(node: str) -> _Input:
        if node == slot:
            return _Input(node, len(system.states(slot)), None, ())
        variables = list(net.get_cpds(node).variables)  # [node, parents...]
        parents = variables[1:]
        perm = tuple(variables.index(z) for z in order if z in parents) + (0,)
        shape = tuple(cards[z] if z in parents else 1 for z in order)
        return _Input(node, len(system.states(node)), perm, shape + (len(system.states(node)),))

    sizes = [len(system.states(v)) for v in inputs]
    cut = min(range(1, len(inputs)), key=lambda h: abs(np.log(np.prod(sizes[:h]))
                                                      - np.log(np.prod(sizes[h:]))))
    return VoteSplit(
        system_node=target, joint_factors=factors, joint=joint, context_shape=context_shape,
        left=tuple(describe(v) for v in inputs[:cut]),
        right=tuple(describe(v) for v in inputs[cut:]),
        slot_card=len(system.states(slot)),
    )
