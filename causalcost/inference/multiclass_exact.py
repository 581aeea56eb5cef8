"""The K-label interventional table, exactly (vote splitting) or by sampling.

``T[c, j, s] = sum_z P(z | c) sum_v prod_{i != slot} P(v_i | c, z) [F(v with slot = j) = s]``
(the slot's own table drops out under ``do``). Given the class and the latents the models
vote independently, so for fusioners that read only the vote counts per label the sum runs
over count vectors, built one model at a time (``C(n + K - 2, K - 1)`` states for the ``n - 1``
other models): 30 models with 3 labels are 496 states instead of ``3^29``. Weighted plurality
runs over score vectors; user functions and pgmpy tables over every vote configuration.

Sampling draws ``samples`` instances per (class, forced label) from the same generative
process and gives per-cell intervals (:func:`causalcost.stats.intervals.proportion_interval`).
"""

from __future__ import annotations

import itertools
import weakref
from collections import defaultdict

import numpy as np

from causalcost.errors import ValidationError
from causalcost.inference.multiclass_table import MulticlassTable
from causalcost.network.multiclass_system import MulticlassSystem
from causalcost.stats.intervals import proportion_interval

__all__ = ["MAX_CONFIGURATIONS", "multiclass_exact_table", "multiclass_sampled_table",
           "score_distribution"]

#: Most vote configurations a user fusion function is enumerated over (per class and latent
#: state) by the exact table.
MAX_CONFIGURATIONS = 2_000_000


def score_distribution(rates: np.ndarray, weights: np.ndarray | None = None
                       ) -> dict[tuple[float, ...], float]:
    """Distribution of the per-label vote counts (or weighted scores) of independent voters.

    ``rates[i, s] = P(voter i votes s)``. Keys are the count (score) vectors.

    Examples
    --------
    >>> d = score_distribution(np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]]))
    >>> sorted(d.items())
    [((0.0, 2.0, 0.0), 0.5), ((1.0, 1.0, 0.0), 0.5)]
    """
    k = rates.shape[1]
    zero = 0.0 if weights is None else 0  # weights: exact integers (Fusioner.score_weights)
    dist: dict[tuple[float, ...], float] = {(zero,) * k: 1.0}
    for i, row in enumerate(rates):
        w = 1.0 if weights is None else weights[i]
        nxt: dict[tuple[float, ...], float] = defaultdict(float)
        for key, p in dist.items():
            for s in np.flatnonzero(row):
                bumped = list(key)
                bumped[s] += w
                nxt[tuple(bumped)] += p * float(row[s])
        dist = dict(nxt)
    return dist


def _class_rows(system: MulticlassSystem, slot: int, rates: np.ndarray) -> np.ndarray:
    """``out[j, s]``: P(output s | slot forced to j) for the other voters' ``rates``."""
    f, k = system.fusioner, system.k
    out = np.zeros((k, k))
    if f.kind in ("plurality", "priority", "k_of_n", "weighted"):
        weights = list(f.score_weights) if f.kind == "weighted" else None
        others = np.delete(rates, slot, axis=0)
        ow = None if weights is None else weights[:slot] + weights[slot + 1:]
        own = 1.0 if weights is None else weights[slot]
        for key, p in score_distribution(others, ow).items():
            for j in range(k):
                scores = list(key)
                scores[j] += own
                out[j, f.from_counts(scores, j)] += p
        return out
    n = rates.shape[0]
    if f.kind == "table":
        assert f.table is not None
        table = np.asarray(f.table, dtype=float)
        letters = "abcdefghijklmnopqrstuvwxyz"[:n]
        if n > 24:
            raise ValidationError("a pgmpy fusioner table with more than 24 models is too large")
        ops: list[object] = []
        spec = []
        for i in range(n):
            if i != slot:
                ops.append(rates[i])
                spec.append(letters[i])
        expr = f"{letters}Z," + ",".join(spec) + f"->{letters[slot]}Z"
        return np.einsum(expr, table, *ops, optimize=True)
    others = [i for i in range(n) if i != slot]
    configurations = int(np.prod([np.count_nonzero(rates[i]) for i in others]))
    if configurations > MAX_CONFIGURATIONS:
        raise ValidationError(
            f"the user fusion function would be called for {configurations:,} vote "
            f"configurations (more than {MAX_CONFIGURATIONS:,}); use method='sampling', or a "
            "rule that reads only the vote counts (plurality, priority, k_of_n)")
    for combo in itertools.product(*(np.flatnonzero(rates[i]) for i in others)):
        p = float(np.prod([rates[i, v] for i, v in zip(others, combo)]))
        votes = [0] * n
        for i, v in zip(others, combo):
            votes[i] = int(v)
        for j in range(k):
            votes[slot] = j
            out[j, f.output(votes, j)] += p
    return out


_DECISIONS: weakref.WeakKeyDictionary[MulticlassSystem, dict[str, np.ndarray]] = (
    weakref.WeakKeyDictionary())


def _decisions(system: MulticlassSystem, slot: int, m: int) -> np.ndarray:
    """One-hot outputs ``O[cell, j, s]`` over the count grid of the ``m`` other models.

    A cell is the counts of labels ``0..K-2`` (label ``K-1`` has the rest); cells whose counts
    exceed ``m`` never get probability and keep output 0. Cached per system and slot.
    """
    cache = _DECISIONS.setdefault(system, {})
    key = system.models[slot]
    if key in cache:
        return cache[key]
    k, f = system.k, system.fusioner
    grid = (m + 1,) * (k - 1)
    out = np.zeros((int(np.prod(grid)), k, k))
    for flat, idx in enumerate(np.ndindex(*grid)):
        rest = m - sum(idx)
        if rest < 0:
            continue
        for j in range(k):
            counts = [*idx, rest]
            counts[j] += 1
            out[flat, j, f.from_counts(counts, j)] = 1.0
    cache[key] = out
    return out


def _count_grid(rates: np.ndarray) -> np.ndarray:
    """``P(counts of labels 0..K-2)`` of independent voters, batched: ``rates[b, i, s]``.

    Returns shape ``(B, m + 1, ..., m + 1)`` (K - 1 count axes), built one voter at a time.
    """
    b, m, k = rates.shape
    grid = np.zeros((b,) + (m + 1,) * (k - 1))
    grid[(slice(None),) + (0,) * (k - 1)] = 1.0
    bshape = (b,) + (1,) * (k - 1)
    for v in range(m):
        new = grid * rates[:, v, k - 1].reshape(bshape)
        for s in range(k - 1):
            src = [slice(None)] * k
            dst = [slice(None)] * k
            src[s + 1], dst[s + 1] = slice(0, v + 1), slice(1, v + 2)
            new[tuple(dst)] += grid[tuple(src)] * rates[:, v, s].reshape(bshape)
        grid = new
    return grid


def _count_table(system: MulticlassSystem, slot: int) -> np.ndarray:
    """``T[c, j, s]`` for a fusioner that reads only the vote counts (vote splitting)."""
    k, n = system.k, len(system.models)
    rows, weights, classes = [], [], []
    for c in range(k):
        for p, z in system.latent_configurations(c):
            if p > 0:
                rows.append(np.delete(system.vote_rates(c, z), slot, axis=0))
                weights.append(p)
                classes.append(c)
    grid = _count_grid(np.stack(rows)).reshape(len(rows), -1)
    per = np.einsum("bq,qjs->bjs", grid, _decisions(system, slot, n - 1))
    t = np.zeros((k, k, k))
    for b, (c, p) in enumerate(zip(classes, weights)):
        t[c] += p * per[b]
    return t


def multiclass_exact_table(system: MulticlassSystem, slot: str | None = None) -> MulticlassTable:
    """``T[c, j, s]`` of a K-label system, exactly.

    Examples
    --------
    >>> import causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.4, 0.4, 0.2], labels=["a", "b", "c"])
    ...      .add_model("m1", confusion=eye).add_model("m2", confusion=eye)
    ...      .set_fusioner("plurality").build(slot="m2"))
    >>> t = multiclass_exact_table(s)
    >>> t.probability("c", "b", "b")  # tie between c (m1) and b (slot): the first label wins
    1.0
    """
    slot = system.require_slot(slot)
    i = system.models.index(slot)
    k = system.k
    if system.fusioner.by_counts and len(system.models) > 1:
        t = _count_table(system, i)
    else:
        t = np.zeros((k, k, k))
        for c in range(k):
            for p, z in system.latent_configurations(c):
                if p > 0:
                    t[c] += p * _class_rows(system, i, system.vote_rates(c, z))
    t /= t.sum(axis=2, keepdims=True)  # rounding only: each row sums to 1 up to ~1e-15
    return MulticlassTable(system.labels, slot, "exact", t)


def multiclass_sampled_table(system: MulticlassSystem, slot: str | None = None, *,
                             samples: int = 100_000, seed: int | None = None,
                             confidence: float = 0.95,
                             interval: str = "wilson") -> MulticlassTable:
    """``T[c, j, s]`` estimated by forward sampling, with per-cell intervals.

    Raises
    ------
    ValidationError
        ``samples`` not a positive whole number.

    Examples
    --------
    >>> import causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.4, 0.4, 0.2], labels=["a", "b", "c"])
    ...      .add_model("m1", confusion=0.9 * eye + 0.05 * (1 - eye))
    ...      .add_model("m2", confusion=eye).set_fusioner("plurality").build(slot="m2"))
    >>> t = multiclass_sampled_table(s, samples=2000, seed=1)
    >>> bool(np.all(t.low <= t.to_numpy()) and np.all(t.to_numpy() <= t.high))
    True
    """
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValidationError(f"samples ({samples!r}) must be a whole number >= 1")
    slot = system.require_slot(slot)
    i = system.models.index(slot)
    k, n = system.k, len(system.models)
    rng = np.random.default_rng(seed)
    counts = np.zeros((k, k, k), dtype=np.int64)
    f = system.fusioner
    for c in range(k):
        votes = np.zeros((samples, n), dtype=np.int64)
        zs = {lat.name: rng.choice(len(lat.states), size=samples, p=lat.probabilities[c])
              for lat in system.latents}
        for m_i, m in enumerate(system.members):
            if m_i == i:
                continue
            zi = zs[m.latent] if m.latent else np.zeros(samples, dtype=np.int64)
            cum = np.cumsum(m.rates[c], axis=1)[zi]  # (samples, K)
            u = rng.random(samples)[:, None]
            votes[:, m_i] = np.minimum((u > cum).sum(axis=1), k - 1)
        for j in range(k):
            votes[:, i] = j
            rows, inverse = np.unique(votes, axis=0, return_inverse=True)
            inverse = inverse.ravel()
            if f.table is None:  # deterministic: decide each distinct configuration once
                outs = np.array([f.output(tuple(int(v) for v in r), j) for r in rows])
                out = outs[inverse]
            else:  # a pgmpy table: draw each instance's output from its row
                cum_t = np.cumsum(np.asarray(f.table)[tuple(rows.T)], axis=1)[inverse]
                out = np.minimum((rng.random(samples)[:, None] > cum_t).sum(axis=1), k - 1)
            counts[c, j] = np.bincount(out, minlength=k)
    low, high = proportion_interval(counts, samples, confidence, interval)
    return MulticlassTable(system.labels, slot, "sampling", counts / samples,
                           np.asarray(low), np.asarray(high), int(samples), confidence)
