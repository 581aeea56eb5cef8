"""Experiment 1 of the slides: how often does the worst case hold on new instances?

Over a grid of stage sizes ``(n1, n2)``, repeat the two-stage evaluation and count how often
the real system cost on the stage-2 instances stays at or under the plain worst case and under
the high-confidence one. The slides ran it on two 50 % models whose correctness correlates
+0.95 on positives and -0.95 on negatives, with an OR fusioner (the shipped ``experiment_or``),
1000 repetitions per cell, and found the plain bound's hold probability rising toward 1 as
both sizes grow. With ``labels=K`` the same experiment runs on a simulated K-label plurality
system (:mod:`causalcost.experiments.plurality`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcost.confusion import CostMatrix
from causalcost.display import html_block, html_table
from causalcost.errors import ValidationError
from causalcost.experiments.engines import draw, resolve_system
from causalcost.experiments.evaluation import measure
from causalcost.experiments.options import (
    check_options,
    coverage_row,
    coverage_summary,
    progress_bar,
    sizes,
)

__all__ = ["COLUMNS", "COVERAGE_COLUMNS", "CoverageResult", "coverage_experiment"]

#: Columns of :attr:`CoverageResult.frame` (and of ``coverage.csv``).
COVERAGE_COLUMNS = ("n1", "n2", "repetitions", "p_plain", "p_high_confidence",
                    "tightness_high_confidence")
#: All the columns, as ``coverage.csv`` has them.
COLUMNS = (*COVERAGE_COLUMNS, "tightness_plain")


@dataclass(frozen=True)
class CoverageResult:
    """Hold probabilities of the plain and high-confidence worst case over a grid of sizes.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per ``(n1, n2)``: :data:`COVERAGE_COLUMNS`, then ``tightness_plain`` (mean
        plain worst / real cost). Tightness is the mean of bound / real over repetitions
        with a positive real cost.
    confidence, method, engine, seed : the settings
    system : str
        What was simulated.
    k : int
        The number of labels of the simulated system (2 for a binary one).
    """

    frame: pd.DataFrame = field(repr=False)
    confidence: float
    method: str
    engine: str
    seed: int
    system: str
    k: int = 2

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def __repr__(self) -> str:
        return coverage_summary("CoverageResult", self.system, self.frame, self.confidence)

    def _repr_html_(self) -> str:
        return html_block(repr(self), html_table(self.frame))


def _cell(args: tuple) -> dict[str, float]:
    """One grid cell; a top-level function so worker processes can run it."""
    system, n1, n2, repetitions, seed_seq, costs, confidence, method, engine = args
    draws = draw(system, n1, n2, repetitions, np.random.default_rng(seed_seq), engine)
    m = measure(draws, costs, confidence=confidence, method=method,
                assumption=system.assumption)
    return coverage_row(n1, n2, repetitions, m.real, m.plain_worst, m.high_confidence_worst)


def coverage_experiment(
    system: object = None,
    *,
    n1: Sequence[int] = (10, 31, 100, 316, 1000, 3162, 10_000),
    n2: Sequence[int] = (10, 31, 100, 316, 1000, 3162, 10_000),
    repetitions: int = 1000,
    seed: int = 0,
    costs: CostMatrix | object | None = None,
    confidence: float = 0.95,
    method: str = "clopper-pearson",
    engine: str = "counts",
    workers: int = 1,
    progress: bool | None = None,
    labels: int | Sequence[object] | None = None,
    others: Sequence[float] | None = None,
    candidate: float | None = None,
    hard: float | None = None,
) -> CoverageResult:
    """Run experiment 1: P(worst case >= real system cost) over a grid of stage sizes.

    Parameters
    ----------
    system : System, network name or path, InstanceLaw, or None
        The simulated system, its slot's model being the candidate. ``None``: the slides'
        system (``experiment_or``).
    n1, n2 : sequences of int
        Stage sizes (forced runs; candidate). Default: a 7 x 7 log grid from 10 to 10^4.
    repetitions : int
        Repetitions per cell.
    seed : int
        Results depend only on the seed (not on ``workers``): each cell draws from its own
        child of ``numpy.random.SeedSequence(seed)``.
    costs : CostMatrix, default ``CostMatrix(fn=1, fp=1)``
        With ``labels``, a (K, K) cost matrix ``C[c, s]`` (default ``1 - eye(K)``).
    confidence, method
        Of the high-confidence bound (:func:`~causalcost.high_confidence_bound`); the
        experiments default to ``"clopper-pearson"`` limits, which vectorise fast.
    engine : {"counts", "instances"}
        ``"counts"``: multinomial draws of the cell counts (fast); ``"instances"``: ancestral
        sampling of every instance from the network (the validation path).
    workers : int
        Processes (cells are shared out; results are identical for any number).
    progress : bool, optional
        A progress bar on stderr; default: when stderr is a terminal.
    labels : int or list of names, optional
        Simulate a K-label plurality system with this many labels (or these K names) instead
        (no ``system``, ``engine`` or ``workers``; at most
        :data:`~causalcost.experiments.plurality.LABEL_LIMIT` labels; see
        :mod:`~causalcost.experiments.plurality`); the result's ``k`` is K.
    others, candidate, hard : with ``labels`` only
        The other models' accuracies (default ``(0.7, 0.6)``), the candidate's (0.65), and
        the share of instances on which erring models agree on one wrong label (0.3).

    Returns
    -------
    CoverageResult

    Examples
    --------
    >>> r = coverage_experiment(n1=[10, 1000], n2=[10, 1000], repetitions=200, seed=1)
    >>> r.frame[["n1", "n2", "p_plain", "p_high_confidence"]].round(2).to_dict("records")[-1]
    {'n1': 1000, 'n2': 1000, 'p_plain': 0.52, 'p_high_confidence': 1.0}
    >>> three = coverage_experiment(labels=3, n1=[200], n2=[200], repetitions=40, seed=3)
    >>> three.k, int(three.frame["repetitions"].iloc[0])
    (3, 40)
    """
    law = {key: value for key, value in
           (("others", others), ("candidate", candidate), ("hard", hard)) if value is not None}
    if labels is not None:  # the K-label plurality system
        from causalcost.experiments.plurality import label_count, plurality_rows

        k = label_count(labels)
        if system is not None or engine != "counts" or workers != 1:
            raise ValidationError("labels= simulates its own K-label system: leave out system, "
                                  "engine and workers")
        rows, text = plurality_rows(k, n1=n1, n2=n2, repetitions=repetitions, seed=seed,
                                    costs=costs, confidence=confidence, method=method,
                                    **law)  # type: ignore[arg-type]
        return CoverageResult(frame=pd.DataFrame(rows, columns=list(COLUMNS)),
                              confidence=float(confidence), method=method, engine=engine,
                              seed=seed, system=text, k=k)
    if law:
        raise ValidationError("others, candidate and hard describe the simulated K-label "
                              "system: give them with labels=K")
    resolved = resolve_system(system, default="experiment_or")
    costs = check_options(costs=costs, repetitions=repetitions, seed=seed,
                          confidence=confidence, method=method, engine=engine,
                          workers=workers, system=resolved)
    grid = [(a, b) for a in sizes(n1, "n1") for b in sizes(n2, "n2")]
    children = np.random.SeedSequence(seed).spawn(len(grid))
    jobs = [(resolved, a, b, repetitions, child, costs, confidence, method, engine)
            for (a, b), child in zip(grid, children)]
    rows = _run(jobs, workers, progress, "coverage")
    return CoverageResult(frame=pd.DataFrame(rows), confidence=confidence, method=method,
                          engine=engine, seed=seed, system=resolved.name)


def _run(jobs: list[tuple], workers: int, progress: bool | None, label: str) -> list[dict]:
    with progress_bar(len(jobs), label, progress) as bar:
        if workers == 1:
            out = []
            for job in jobs:
                out.append(_cell(job))
                bar.update(1)
            return out
        with ProcessPoolExecutor(max_workers=min(workers, os.cpu_count() or 1)) as pool:
            out = []
            for row in pool.map(_cell, jobs):
                out.append(row)
                bar.update(1)
            return out



def _coverage_of(k: int = 3, **options: object) -> CoverageResult:
    """The K-label call of the old ``label_coverage(k, ...)`` (behind its deprecated names):
    :func:`coverage_experiment` with ``labels=k``."""
    for size in ("n1", "n2"):
        options.setdefault(size, (30, 100, 1000))
    options.setdefault("repetitions", 200)
    return coverage_experiment(labels=k, **options)  # type: ignore[arg-type]
