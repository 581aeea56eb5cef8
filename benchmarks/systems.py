"""Benchmark systems: k models sharing a latent "Difficulty" node, fused by majority.

Structure (for every k)::

    Class -> Difficulty (3 states: easy, medium, hard)
    Class, Difficulty -> model_1 ... model_k
    model_1 ... model_k -> Fusioner (majority, ties negative) -> Confusion

By default the fusioner is one node over every model (the seeds' shape, ``2^(k+1)`` entries),
as in the published numbers; ``divorce=True`` declares the same vote through a chain of
deterministic count nodes (parent divorcing, ``causalcost.network.divorce``), which the
builder does by itself beyond 12 models.

Every CPD is drawn from a seeded ``numpy`` generator, so a given ``(k, seed)`` always gives the
same network. Models are informative (more often positive on positives, less so as the
difficulty rises) but otherwise random. The slot is the last model.
"""

from __future__ import annotations

import numpy as np

import causalcost as cc

__all__ = ["build_system", "K_VALUES", "DIFFICULTY_STATES"]

#: The system sizes benchmarked by default.
K_VALUES = (2, 5, 10, 15)

DIFFICULTY_STATES = ("easy", "medium", "hard")


def build_system(k: int, seed: int = 20261122, class_prior: float = 0.3,
                 divorce: bool = False) -> cc.System:
    """A majority system of ``k`` models with a shared latent difficulty; slot = last model.

    ``divorce``: declare the majority through count nodes instead of one fusioner table.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    rng = np.random.default_rng([seed, k])
    builder = cc.SystemBuilder(class_prior=class_prior, name=f"majority-{k}")
    # P(Difficulty | Class): one row per class state (P, N), each a distribution over 3 states.
    difficulty = rng.dirichlet(np.ones(len(DIFFICULTY_STATES)), size=2)
    builder.add_latent("Difficulty", DIFFICULTY_STATES, difficulty, parents=["Class"])
    models = [f"model_{i + 1}" for i in range(k)]
    for name in models:
        # Rows in itertools.product order over (Class, Difficulty): P first, then N.
        on_positive = np.sort(rng.uniform(0.55, 0.98, size=3))[::-1]  # easy -> hard
        on_negative = np.sort(rng.uniform(0.02, 0.45, size=3))  # easy -> hard
        builder.add_model(
            name,
            parents=["Class", "Difficulty"],
            positive_probability=[*on_positive.tolist(), *on_negative.tolist()],
        )
    builder.set_fusioner("majority", divorce=divorce)
    return builder.build(slot=models[-1])
