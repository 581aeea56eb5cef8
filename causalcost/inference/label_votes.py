"""Interventional tables of a system declared by its labels: exactly (vote splitting) or by
sampling. :func:`causalcost.interventional_table` chooses this engine for such systems (any
K >= 2); a network of any shape goes through :mod:`causalcost.inference.exact`.

``T[c, j, s] = sum_z P(z | c) sum_v prod_{i != slot} P(v_i | c, z) [F(v with slot = j) = s]``
(the slot's own table drops out under ``do``). Given the class and the latents the models
vote independently, so for fusioners that read only the vote counts per label the sum runs
over count vectors, built one model at a time (``C(n + K - 2, K - 1)`` states for the ``n - 1``
other models): 30 models with 3 labels are 496 states instead of ``3^29``. Weighted plurality
runs over score vectors; user functions and pgmpy tables over every vote configuration.

Sampling draws ``samples`` instances per class from the same generative process, each seen
under every forced label (common random numbers), and gives per-cell intervals
(:func:`causalcost.stats.intervals.proportion_interval`). It is vectorised: each instance's
votes become one integer key (the vote counts per label and weight, or the votes themselves
for a table or a function), and the rule is applied once per distinct key; instances are
drawn in chunks, so memory does not grow with ``samples`` (at most
:data:`~causalcost.inference.sampling.MAX_SAMPLES`).
"""

from __future__ import annotations

import itertools
import weakref
from collections import defaultdict

import numpy as np

from causalcost.errors import ValidationError
from causalcost.inference.table import InterventionalTable, check_interval_settings
from causalcost.network.system import System
from causalcost.stats.intervals import proportion_interval

__all__ = ["MAX_CONFIGURATIONS", "label_exact_table", "label_sampled_table",
           "score_distribution", "SAMPLE_CHUNK"]

#: Instances drawn at once by the sampler (per class).
SAMPLE_CHUNK = 1 << 18

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


def _class_rows(system: System, slot: int, rates: np.ndarray) -> np.ndarray:
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


_DECISIONS: weakref.WeakKeyDictionary[System, dict[str, np.ndarray]] = (
    weakref.WeakKeyDictionary())


def _decisions(system: System, slot: int, m: int) -> np.ndarray:
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


def _count_table(system: System, slot: int) -> np.ndarray:
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


def label_exact_table(system: System, slot: str | None = None) -> InterventionalTable:
    """``T[c, j, s]`` of a system declared by its labels, exactly.

    Examples
    --------
    >>> import causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.4, 0.4, 0.2], labels=["a", "b", "c"])
    ...      .add_model("m1", confusion=eye).add_model("m2", confusion=eye)
    ...      .set_fusioner("plurality").build(slot="m2"))
    >>> t = label_exact_table(s)
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
    mass = t.sum(axis=2, keepdims=True)
    if not mass.all():
        c = int(np.flatnonzero(mass[:, 0, 0] == 0)[0])
        raise ValidationError(f"class {system.labels[c]!r} cannot be reached (its rows sum to "
                              "0): check the class prior and the latents")
    t /= mass  # rounding only: each row sums to 1 up to ~1e-15
    return InterventionalTable.from_array(t, labels=system.labels, slot=slot, method="exact")


def _draw_keys(rng: np.random.Generator, system: System, c: int, slot: int, size: int,
               contribution: np.ndarray) -> np.ndarray:
    """Keys ``sum_i contribution[i, vote_i]`` of ``size`` instances of class c, every model
    but the slot voting (one uniform number per model and instance, inverse CDF)."""
    k = system.k
    keys = np.zeros(size, dtype=np.int64)
    zs = {lat.name: rng.choice(len(lat.states), size=size, p=lat.probabilities[c])
          for lat in system.latents}
    for m_i, m in enumerate(system.members):
        if m_i == slot:
            continue
        cum = np.cumsum(m.rates[c], axis=1)  # (latent states, K)
        u = rng.random(size)
        vote = np.zeros(size, dtype=np.int64)
        for s in range(k - 1):
            vote += u >= (cum[0, s] if m.latent is None else cum[zs[m.latent], s])
        keys += contribution[m_i][vote]
    return keys


def label_sampled_table(system: System, slot: str | None = None, *,
                        samples: int = 100_000, seed: int | None = None,
                        confidence: float = 0.95,
                        interval: str = "wilson") -> InterventionalTable:
    """``T[c, j, s]`` estimated by forward sampling, with per-cell intervals.

    ``samples`` instances are drawn per class, each seen under every forced label.

    Raises
    ------
    ValidationError
        ``samples`` not a whole number in ``[1, MAX_SAMPLES]``, a bad seed or interval.

    Examples
    --------
    >>> import causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.4, 0.4, 0.2], labels=["a", "b", "c"])
    ...      .add_model("m1", confusion=0.9 * eye + 0.05 * (1 - eye))
    ...      .add_model("m2", confusion=eye).set_fusioner("plurality").build(slot="m2"))
    >>> t = label_sampled_table(s, samples=2000, seed=1)
    >>> bool(np.all(t.low <= t.to_numpy()) and np.all(t.to_numpy() <= t.high))
    True
    """
    from causalcost.inference.sampling import _check_samples, _check_seed
    from causalcost.network.labelled import _count_keys, decide_code, distinct_codes

    samples, seed = _check_samples(samples), _check_seed(seed)
    check_interval_settings(confidence, interval)
    slot = system.require_slot(slot)
    i = system.models.index(slot)
    k, n = system.k, len(system.models)
    rng = np.random.default_rng(seed)
    counts = np.zeros((k, k, k), dtype=np.int64)
    f = system.fusioner
    by_keys = f.kind in ("plurality", "priority", "k_of_n", "weighted")
    if by_keys:
        group, strides, weights = _count_keys(f, k, n)
        sizes = np.bincount(group, minlength=len(weights))
        contribution = strides[group]  # (n, K): a vote's share of the key
    else:
        contribution = k ** np.arange(n - 1, -1, -1, dtype=np.int64)[:, None] * np.arange(k)
    table = None if f.table is None else np.asarray(f.table, dtype=float).reshape(-1, k)
    for c in range(k):
        done = 0
        while done < samples:
            size = min(SAMPLE_CHUNK, samples - done)
            done += size
            base, seen, _ = distinct_codes(_draw_keys(rng, system, c, i, size, contribution))
            for j in range(k):
                full = base + contribution[i, j]
                if by_keys:
                    outs = [decide_code(f, code * k + j, strides, sizes, weights,
                                        f.tie == "slot") for code in full.tolist()]
                    np.add.at(counts[c, j], np.asarray(outs, dtype=np.int64), seen)
                elif table is not None:  # a pgmpy table: draw each instance's output
                    for code, m in zip(full.tolist(), seen.tolist()):
                        counts[c, j] += rng.multinomial(m, table[code] / table[code].sum())
                else:
                    for code, m in zip(full.tolist(), seen.tolist()):
                        v = [(code // k ** (n - 1 - q)) % k for q in range(n)]
                        counts[c, j, f.output(v, j)] += m
    low, high = proportion_interval(counts, samples, confidence, interval)
    return InterventionalTable.from_array(
        counts / samples, labels=system.labels, slot=slot, method="sampling",
        lower=np.asarray(low), upper=np.asarray(high),
        counts=np.full((k, k, k), float(samples)), samples=int(samples),
        confidence=confidence, interval_method=interval, seed=seed)
