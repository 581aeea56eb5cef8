"""Interventional tables by vectorised forward sampling of the mutilated network.

Instances are drawn in topological order, one numpy operation per node. Nodes that do not
descend from the slot are drawn once; the slot's descendants are drawn twice, with the slot
forced to P and to N, **from the same uniform numbers** (common random numbers). Each
simulated instance is therefore seen under both interventions, exactly as when a real system
is run once with the slot forced to P and once forced to N on the same evaluation set:
:func:`simulate_forced_runs` returns those two confusion matrices, and :func:`sampled_table`
turns the counts into a table with a binomial confidence interval per cell.

Memory does not grow with the number of samples: instances are drawn in chunks (at most
``MAX_CHUNK``, fewer for large networks so a chunk stays near ``CHUNK_MEMORY`` bytes) and only
the counts are kept. Each random node draws from its own stream, derived from the seed with
``numpy.random.SeedSequence(seed).spawn`` (:mod:`causalcost.inference.forward`), so a seed gives
the same counts whatever the chunk size. Long runs show a ``tqdm`` progress bar on a terminal.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.errors import InputTypeError, ValidationError
from causalcost.inference.forward import plan_sampling
from causalcost.inference.intervene import known_monotonicity
from causalcost.inference.table import InterventionalTable, check_interval_settings
from causalcost.network.scores import is_score_slot
from causalcost.network.system import System
from causalcost.stats.intervals import proportion_interval

__all__ = [
    "CHUNK_MEMORY", "MAX_CHUNK", "MAX_SAMPLES", "outcome_counts", "sample_ceiling_message",
    "sampled_table", "simulate_forced_runs",
]

#: Most instances drawn at once.
MAX_CHUNK = 1 << 20
#: Target memory of one chunk in bytes; large networks get smaller chunks.
CHUNK_MEMORY = 64 << 20
#: Most samples accepted (``10**9``): about two minutes per slot on a small shipped network
#: (about 1.2 s per ``10**7`` on one core), where a rate's 95 % interval is already about
#: +-3e-5 wide; beyond it a run takes tens of minutes to hours for digits that
#: ``method="exact"`` gives exactly. Every function taking ``samples`` (and the command line's
#: ``--samples``) refuses more.
MAX_SAMPLES = 10**9
#: ``progress=None`` shows a bar when stderr is a terminal and samples x sampled nodes
#: reaches this (a run of a second or more).
PROGRESS_WORK = 10**8


def _check_samples(samples: object) -> int:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValidationError(
            f"samples must be a positive integer, got {samples!r}; write e.g. 100_000 or "
            "int(1e5)"
        )
    if samples > MAX_SAMPLES:
        raise ValidationError(sample_ceiling_message("samples", samples))
    return int(samples)


def sample_ceiling_message(name: str | None, samples: object) -> str:
    """Why ``samples`` beyond :data:`MAX_SAMPLES` is refused, naming the argument ``name``
    (None: the command line, whose parser names the flag itself).

    >>> sample_ceiling_message("samples", 10**10)[:62]
    'samples (10000000000) exceeds the ceiling of 1000000000 (10**9'
    """
    what = str(samples) if name is None else f"{name} ({samples})"
    return (f"{what} exceeds the ceiling of {MAX_SAMPLES} (10**9 simulated "
            "instances, about two minutes per slot on a small network; more would run for "
            "tens of minutes to hours): use fewer samples, or "
            f"{'--method exact' if name is None else 'method=' + repr('exact')} for exact rates")


def _check_seed(seed: object) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputTypeError(f"seed must be a non-negative integer or None, got {seed!r}")
    if seed < 0:
        raise ValidationError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def _check_chunk(chunk_size: object, plan_bytes: int) -> int:
    if chunk_size is None:
        return int(min(MAX_CHUNK, max(1 << 12, CHUNK_MEMORY // plan_bytes)))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) \
            or chunk_size < 1:
        raise ValidationError(f"chunk_size must be a positive integer or None, got "
                              f"{chunk_size!r}")
    return int(chunk_size)


def _progress_bar(progress: object, samples: int, work: int) -> Any:
    """A tqdm bar, or None (``progress``: None = automatic, True, False)."""
    if progress is not None and not isinstance(progress, bool):
        raise InputTypeError(f"progress must be True, False or None (automatic), got "
                             f"{progress!r}")
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        progress = bool(isatty and isatty()) and work >= PROGRESS_WORK
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=samples, unit="inst", unit_scale=True, desc="sampling", leave=False,
                file=sys.stderr)


def outcome_counts(
    system: System,
    slot: str | None = None,
    *,
    samples: int = 100_000,
    seed: int | None = None,
    progress: bool | None = None,
    chunk_size: int | None = None,
) -> np.ndarray:
    """Counts ``[class, forced value, outcome]`` from ``samples`` paired simulated instances.

    Parameters
    ----------
    system : System
    slot : str, optional
        The model to intervene on; defaults to the system's slot.
    samples : int
        Simulated instances, each seen with the slot forced to P and to N; at most
        :data:`MAX_SAMPLES` (``10**9``, about two minutes per slot on a small network), more
        is refused (:class:`~causalcost.errors.ValidationError`).
    seed : int, optional
        A non-negative seed; None draws fresh entropy.
    progress : bool, optional
        Show a tqdm progress bar on stderr; None (default) shows one on a terminal for runs
        of about a second or more.
    chunk_size : int, optional
        Instances drawn at once (memory is proportional to it); None picks one from the
        network's size. It does not change the counts.

    Examples
    --------
    >>> import causalcost as cc
    >>> counts = outcome_counts(cc.load_network("thesis_and"), samples=1000, seed=0)
    >>> counts.shape, int(counts[:, 0].sum()), int(counts[:, 1].sum())
    ((2, 2, 4), 1000, 1000)
    >>> bool((counts == outcome_counts(cc.load_network("thesis_and"), samples=1000, seed=0,
    ...                                chunk_size=7)).all())
    True
    """
    slot = system.require_slot(slot)
    if is_score_slot(system, slot):
        raise ValidationError(
            f"outcome counts are the binary forced runs (slot forced to P and to N); slot "
            f"{slot!r} is a score node over bins {system.states(slot)}: use "
            "cc.interventional_table(system, method='sampling'), T[c, bin, s] with counts")
    return _outcome_counts(system, slot, _check_samples(samples), _check_seed(seed), progress,
                           chunk_size)


def _outcome_counts(system: System, slot: str, samples: int, seed: int | None,
                    progress: object, chunk_size: object, *,
                    by_output: bool = False) -> np.ndarray:
    """:func:`outcome_counts`; assumes validated slot, samples and seed. ``by_output``: the
    counts ``[class, forced state, output]`` over every forced state of the slot instead
    (a score slot's bins)."""
    plan = plan_sampling(system, slot)
    chunk = _check_chunk(chunk_size, plan.bytes_per_instance)
    bar = _progress_bar(progress, samples, samples * len(plan.steps))
    tables = plan.read(system)
    generators = [np.random.Generator(np.random.PCG64(s))
                  for s in np.random.SeedSequence(seed).spawn(plan.streams)]
    counts = np.zeros((2, len(plan.slot_values), 2 if by_output else 4), dtype=np.int64)
    step = plan.chunk_outputs if by_output else plan.chunk
    try:
        done = 0
        while done < samples:
            m = min(chunk, samples - done)
            counts += step(tables, generators, m)
            done += m
            if bar is not None:
                bar.update(m)
    finally:
        if bar is not None:
            bar.close()
    return counts.astype(float)


def simulate_forced_runs(
    system: System, slot: str | None = None, *, samples: int = 100_000,
    seed: int | None = None, progress: bool | None = None,
) -> tuple[Confusion, Confusion]:
    """The system's confusion with the slot forced to P and forced to N on the same instances.

    ``samples`` (at most :data:`MAX_SAMPLES`, ``10**9``), ``seed`` and ``progress`` are as
    for :func:`outcome_counts`.

    Arguments as for :func:`outcome_counts`.

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("thesis_and")
    >>> forced_p, forced_n = simulate_forced_runs(system, samples=3000, seed=1)
    >>> forced_p.positives == forced_n.positives, forced_n.fn == forced_n.positives
    (True, True)
    """
    counts = outcome_counts(system, slot, samples=samples, seed=seed, progress=progress)
    forced = []
    for x in range(2):
        tp, fn = counts[0, x, :2]
        fp, tn = counts[1, x, 2:]
        forced.append(Confusion(tp=tp, fn=fn, fp=fp, tn=tn))
    return forced[0], forced[1]


def sampled_table(
    system: System,
    slot: str | None = None,
    *,
    samples: int = 100_000,
    seed: int | None = None,
    confidence: float = 0.95,
    interval: str = "wilson",
    progress: bool | None = None,
) -> InterventionalTable:
    """``P(Conf^S | Class, do(slot = x))`` estimated from ``samples`` simulated instances.

    Each cell carries a binomial confidence interval (``interval``: ``"wilson"`` or
    ``"clopper-pearson"``, from statsmodels) on the number of simulated instances of its class.
    ``samples`` (at most :data:`MAX_SAMPLES`, ``10**9``), ``seed`` and ``progress`` are as
    for :func:`outcome_counts`.

    Examples
    --------
    >>> import causalcost as cc
    >>> t = sampled_table(cc.load_network("thesis_and"), samples=20_000, seed=0,
    ...                   confidence=0.999)
    >>> lo, hi = t.lower[0, 0, 1], t.upper[0, 0, 1]   # e_P(P), exactly 0.2
    >>> bool(lo < 0.2 < hi), int(t.counts[0, 0, 0] + t.counts[1, 0, 0])
    (True, 20000)
    """
    slot = system.require_slot(slot)
    return sampled_table_of(system, slot, samples=samples, seed=seed, confidence=confidence,
                            interval=interval, progress=progress)


def sampled_table_of(
    system: System, slot: str, *, samples: int, seed: int | None, confidence: float,
    interval: str, progress: bool | None,
) -> InterventionalTable:
    """:func:`sampled_table` for a slot already validated by the caller (assumes validated
    ``slot``; validates the other arguments)."""
    samples, seed = _check_samples(samples), _check_seed(seed)
    check_interval_settings(confidence, interval)
    if is_score_slot(system, slot):  # T[c, bin, s] over the slot's score bins
        counts = _outcome_counts(system, slot, samples, seed, progress, None, by_output=True)
        n = counts.sum(axis=2, keepdims=True)
        empty = np.argwhere(n[:, 0, 0] == 0).ravel().tolist()
        if empty:
            raise ValidationError(f"no simulated instance of class {system.labels[empty[0]]!r} "
                                  "in the sample: use more samples")
        trials = np.broadcast_to(n, counts.shape)
        low, high = proportion_interval(counts, trials, confidence, interval)
        return InterventionalTable.from_array(
            counts / n, labels=system.labels, slot=slot, slot_states=system.states(slot),
            method="sampling", lower=np.asarray(low), upper=np.asarray(high),
            counts=trials.astype(float), samples=samples, confidence=confidence,
            interval_method=interval, seed=seed,
            monotonicity=known_monotonicity(system, slot))
    counts = _outcome_counts(system, slot, samples, seed, progress, None)
    return InterventionalTable.from_counts(
        slot, counts, method="sampling", confidence=confidence, interval_method=interval,
        seed=seed, monotonicity=known_monotonicity(system, slot),
    )
