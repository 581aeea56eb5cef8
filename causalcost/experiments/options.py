"""Checks and plumbing shared by the experiments: options validated once, progress bars."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CostMatrix
from causalcost.errors import ValidationError
from causalcost.experiments.engines import ENGINES, ExperimentSystem
from causalcost.stats.prediction import PREDICTION_METHODS

__all__ = ["check_options", "coverage_row", "progress_bar", "sizes"]


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"{name} ({value!r}) must be a positive integer")
    return value


def sizes(values: Sequence[int] | int, name: str) -> list[int]:
    """Stage sizes: positive integers, at least one."""
    items = [values] if isinstance(values, int) else list(values)
    if not items:
        raise ValidationError(f"{name} needs at least one size")
    return [_positive_int(v, name) for v in items]


def check_options(*, costs: CostMatrix | None, repetitions: int, seed: int, confidence: float,
                  method: str, engine: str, workers: int, system: ExperimentSystem,
                  ) -> CostMatrix:
    """Validate the options every experiment shares; returns the cost matrix to use."""
    _positive_int(repetitions, "repetitions")
    _positive_int(workers, "workers")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValidationError(f"seed ({seed!r}) must be a non-negative integer")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            0 < confidence < 1):
        raise ValidationError(f"confidence ({confidence!r}) must lie strictly between 0 and 1")
    if method not in PREDICTION_METHODS:
        raise ValidationError(f"method ({method!r}) must be one of "
                              f"{', '.join(map(repr, PREDICTION_METHODS))}")
    if engine not in ENGINES:
        raise ValidationError(f"engine ({engine!r}) must be one of {', '.join(map(repr, ENGINES))}")
    if engine == "instances" and system.system is None:
        raise ValidationError("engine 'instances' needs a network, not only an instance law")
    if costs is None:
        return CostMatrix(fn=1, fp=1)
    if not isinstance(costs, CostMatrix):
        raise ValidationError(f"costs must be a CostMatrix, got {type(costs).__name__}")
    return costs


class _Silent:
    def update(self, n: int = 1) -> None:
        """Nothing to show."""


@contextmanager
def progress_bar(total: int, label: str, progress: bool | None) -> Iterator[Any]:
    """A tqdm bar on stderr when asked, or by default when stderr is a terminal."""
    show = sys.stderr.isatty() if progress is None else bool(progress)
    if not show:
        yield _Silent()
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=label, file=sys.stderr, leave=False) as bar:
        yield bar


def coverage_summary(kind: str, system: str, frame: pd.DataFrame, confidence: float) -> str:
    """One line of a coverage result: cells, repetitions, and the ranges of the hold rates."""
    f = frame
    return (f"{kind}({system}; {len(f)} cells, "
            f"{int(f['repetitions'].iloc[0])} repetitions each; plain holds "
            f"{f['p_plain'].min():.3f}..{f['p_plain'].max():.3f}, high-confidence "
            f"({confidence:.0%}) holds {f['p_high_confidence'].min():.3f}.."
            f"{f['p_high_confidence'].max():.3f})")


def coverage_row(n1: int, n2: int, repetitions: int, real: np.ndarray, plain: np.ndarray,
                 high: np.ndarray) -> dict[str, float]:
    """One cell of a coverage result from the real costs and the plain and high-confidence
    worst cases of its repetitions: hold rates, and tightness (mean bound / real cost over
    repetitions with a positive real cost; 1 when there is none).

    Examples
    --------
    >>> coverage_row(10, 20, 2, np.array([1.0, 2.0]), np.array([2.0, 1.0]), np.array([2.0, 4.0]))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'n1': 10, 'n2': 20, 'repetitions': 2, 'p_plain': 0.5, 'p_high_confidence': 1.0,
     'tightness_high_confidence': 2.0, 'tightness_plain': 1.25}
    """
    scored = real > 0

    def tightness(bound: np.ndarray) -> float:
        return float(np.mean(bound[scored] / real[scored])) if scored.any() else 1.0

    return {
        "n1": n1, "n2": n2, "repetitions": repetitions,
        "p_plain": float(np.mean(real <= plain + 1e-9)),
        "p_high_confidence": float(np.mean(real <= high + 1e-9)),
        "tightness_high_confidence": tightness(high),
        "tightness_plain": tightness(plain),
    }
