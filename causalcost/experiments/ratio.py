"""Experiment 2 of the slides: how close does the real cost come to the worst case?

Each repetition draws a system (by default a random one: the two models' per-class accuracies
uniform in [0, 1] and their correctness correlation uniform over its reachable range, OR
fusioner), runs the two stages on ``n`` instances each and records real cost / worst case for
the plain and the high-confidence bound, and real cost / cost function 1's estimate. The
slides ran 100,000 repetitions at 20,000 instances and found real / worst at most 1 up to a
few outliers slightly above.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcost.confusion import CostMatrix
from causalcost.display import html_block, html_table
from causalcost.experiments.engines import draw, resolve_system
from causalcost.experiments.evaluation import measure
from causalcost.experiments.law import random_two_model_laws
from causalcost.experiments.options import check_options, progress_bar
from causalcost.experiments.simulate import draw_stages_many

__all__ = ["RATIO_COLUMNS", "RatioResult", "ratio_experiment"]

#: Columns of :attr:`RatioResult.frame` (and of ``ratio.csv``).
RATIO_COLUMNS = ("ratio_plain", "ratio_high_confidence", "ratio_expected")

#: Repetitions simulated per batch.
_BATCH = 20_000
#: Most repetitions kept (three floats each, about 240 MB at the limit).
MAX_REPETITIONS = 10_000_000


@dataclass(frozen=True)
class RatioResult:
    """Real cost over the plain and high-confidence worst case and over cost function 1.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per repetition, columns :data:`RATIO_COLUMNS` (a repetition whose bound is 0
        gives ``ratio = 1`` when the real cost is 0 too).
    n, confidence, method, seed : the settings
    system : str
        What was simulated.
    """

    frame: pd.DataFrame = field(repr=False)
    n: int
    confidence: float
    method: str
    seed: int
    system: str

    def summary(self) -> pd.DataFrame:
        """Per column: share above 1, largest ratio, mean, median."""
        f = self.frame
        return pd.DataFrame({"share_above_1": (f > 1 + 1e-12).mean(), "max": f.max(),
                             "mean": f.mean(), "median": f.median()})

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def __repr__(self) -> str:
        s = self.summary()
        return (f"RatioResult({self.system}; {len(self.frame)} repetitions of n={self.n}; "
                f"real/worst above 1 in {s.loc['ratio_plain', 'share_above_1']:.2%} (plain), "
                f"{s.loc['ratio_high_confidence', 'share_above_1']:.2%} (high-confidence); "
                f"largest {s.loc['ratio_plain', 'max']:.4g})")

    def _repr_html_(self) -> str:
        return html_block(repr(self), html_table(self.summary()))


def _ratio(real: np.ndarray, bound: np.ndarray) -> np.ndarray:
    return np.divide(real, bound, out=np.where(real > 0, np.inf, 1.0), where=bound > 0)


def ratio_experiment(
    system: object = None,
    *,
    n: int = 20_000,
    repetitions: int = 100_000,
    seed: int = 0,
    costs: CostMatrix | None = None,
    confidence: float = 0.95,
    method: str = "clopper-pearson",
    engine: str = "counts",
    fusioner: str = "or",
    progress: bool | None = None,
) -> RatioResult:
    """Run experiment 2: the distribution of real cost / worst case.

    Parameters
    ----------
    system : System, network name or path, InstanceLaw, or None
        ``None``: a new random two-model system per repetition (see the module notes).
    n : int
        Instances in each stage (``n1 = n2 = n``).
    repetitions, seed, costs, confidence, method, engine, progress
        As in :func:`~causalcost.coverage_experiment`.
    fusioner : str
        For random systems: the rule merging the two models (``"or"``, ``"and"``).

    Returns
    -------
    RatioResult

    Examples
    --------
    >>> r = ratio_experiment(n=2000, repetitions=500, seed=3)
    >>> s = r.summary()
    >>> bool(s.loc["ratio_high_confidence", "max"] <= 1), bool(s.loc["ratio_plain", "mean"] < 1)
    (True, True)
    """
    resolved = None if system is None else resolve_system(system, default="experiment_or")
    label = resolved.name if resolved else f"random two-model {fusioner.upper()} systems"
    costs = check_options(costs=costs, repetitions=repetitions, seed=seed,
                          confidence=confidence, method=method,
                          engine=engine if resolved else "counts", workers=1,
                          system=resolved or resolve_system("experiment_or", "experiment_or"))
    if resolved is None and engine != "counts":
        from causalcost.errors import ValidationError

        raise ValidationError("random systems are simulated by counts; pass a network for "
                              "engine='instances'")
    if repetitions > MAX_REPETITIONS:
        from causalcost.errors import ValidationError

        raise ValidationError(f"repetitions ({repetitions:,}) is more than the "
                              f"{MAX_REPETITIONS:,} this experiment keeps in memory (one row "
                              "each); run several seeds and pool the CSVs")
    batches = [min(_BATCH, repetitions - start) for start in range(0, repetitions, _BATCH)]
    children = np.random.SeedSequence(seed).spawn(len(batches))
    parts = []
    with progress_bar(len(batches), "ratio", progress) as bar:
        for size, child in zip(batches, children):
            rng = np.random.default_rng(child)
            if resolved is None:
                laws = random_two_model_laws(size, rng, fusioner=fusioner)
                draws = draw_stages_many(laws, n, n, rng)
                assumption = "monotone" if laws.monotone else "none"
            else:
                draws = draw(resolved, n, n, size, rng, engine)
                assumption = resolved.assumption
            m = measure(draws, costs, confidence=confidence, method=method,
                        assumption=assumption)
            parts.append(pd.DataFrame({
                "ratio_plain": _ratio(m.real, m.plain_worst),
                "ratio_high_confidence": _ratio(m.real, m.high_confidence_worst),
                "ratio_expected": _ratio(m.real, m.expected),
            }))
            bar.update(1)
    return RatioResult(frame=pd.concat(parts, ignore_index=True), n=n, confidence=confidence,
                       method=method, seed=seed, system=label)
