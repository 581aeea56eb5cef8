"""Two-stage experiments by sufficient statistics: multinomial cell counts, no instance arrays.

Per repetition, stage 1 draws ``n1`` instances and keeps only the forced-run counts; stage 2
draws ``n2`` other instances and keeps the candidate's confusion and the real system's
confusion with the candidate in the slot. Both are functions of the per-class counts of the
2 x 4 cells of an :class:`~causalcost.experiments.law.InstanceLaw`, so a repetition costs two
binomial and four multinomial draws whatever ``n1`` and ``n2`` are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from causalcost.errors import ValidationError
from causalcost.experiments.law import InstanceLaw, LawBatch

__all__ = ["StageDraws", "draw_stages", "draw_stages_many", "stages_from_cells"]


@dataclass(frozen=True)
class StageDraws:
    """Counts of ``r`` simulated two-stage evaluations (one row per repetition).

    Attributes
    ----------
    stage_one : ndarray of shape (r, 8), int
        ``forced_p`` (tp, fn, fp, tn) then ``forced_n`` on the stage-1 instances.
    model : ndarray of shape (r, 4), int
        The candidate's confusion (tp, fn, fp, tn) on the stage-2 instances.
    system : ndarray of shape (r, 4), int
        The real system's confusion on the stage-2 instances, candidate in the slot.
    """

    stage_one: np.ndarray
    model: np.ndarray
    system: np.ndarray

    @property
    def repetitions(self) -> int:
        """Rows."""
        return int(self.model.shape[0])


def _cells(law_table: np.ndarray, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Multinomial counts of the 8 cells for each size; shape (r, 2, 4)."""
    return rng.multinomial(sizes, law_table.ravel()).reshape(-1, 2, 4)


def _failures(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fails with the slot forced right, forced wrong, with the candidate) per row."""
    by_kind = cells.sum(axis=1)  # never, wrong_only, always, right_only
    forced_right = by_kind[:, 2] + by_kind[:, 3]
    forced_wrong = by_kind[:, 2] + by_kind[:, 1]
    real = by_kind[:, 2] + cells[:, 1, 1] + cells[:, 0, 3]
    return forced_right, forced_wrong, real


def draw_stages(law: InstanceLaw, n1: int, n2: int, repetitions: int,
                rng: np.random.Generator) -> StageDraws:
    """Simulate ``repetitions`` two-stage evaluations of the candidate ``law`` describes.

    Parameters
    ----------
    law : InstanceLaw
    n1, n2 : int
        Instances in stage 1 (forced runs) and stage 2 (candidate); class sizes are binomial.
    repetitions : int
    rng : numpy.random.Generator

    Returns
    -------
    StageDraws

    Examples
    --------
    >>> import numpy as np
    >>> from causalcost.experiments.law import two_model_law
    >>> law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    >>> d = draw_stages(law, 100, 200, 3, np.random.default_rng(0))
    >>> d.stage_one.sum(axis=1).tolist(), d.model.sum(axis=1).tolist()
    ([200, 200, 200], [200, 200, 200])
    """
    for value, name in ((n1, "n1"), (n2, "n2"), (repetitions, "repetitions")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValidationError(f"{name} ({value!r}) must be a positive integer")
    r = int(repetitions)
    cells = []
    for n in (n1, n2):
        pos = rng.binomial(n, law.prior, size=r)
        cells += [_cells(law.positive, pos, rng), _cells(law.negative, n - pos, rng)]
    return stages_from_cells(*cells)


def stages_from_cells(one_p: np.ndarray, one_n: np.ndarray, two_p: np.ndarray,
                      two_n: np.ndarray) -> StageDraws:
    """Forced runs, candidate and real system from per-class cell counts, each (r, 2, 4).

    Rows of a cell table: the slot right, the slot wrong; columns: the kinds.

    Examples
    --------
    >>> import numpy as np
    >>> one = np.array([[[3, 1, 0, 0], [0, 1, 0, 0]]])   # 5 positives
    >>> zero = np.zeros((1, 2, 4), dtype=int)
    >>> stages_from_cells(one, zero, one, zero).stage_one.tolist()
    [[5, 0, 0, 0, 3, 2, 0, 0]]
    """
    pos, neg = one_p.sum(axis=(1, 2)), one_n.sum(axis=(1, 2))
    rp, wp, _ = _failures(one_p)
    rn, wn, _ = _failures(one_n)
    stage_one = np.stack([pos - rp, rp, wn, neg - wn,            # slot forced to P
                          pos - wp, wp, rn, neg - rn], axis=1)   # slot forced to N
    pos, neg = two_p.sum(axis=(1, 2)), two_n.sum(axis=(1, 2))
    model = np.stack([two_p[:, 0].sum(axis=1), two_p[:, 1].sum(axis=1),
                      two_n[:, 1].sum(axis=1), two_n[:, 0].sum(axis=1)], axis=1)
    real_p, real_n = _failures(two_p)[2], _failures(two_n)[2]
    system = np.stack([pos - real_p, real_p, real_n, neg - real_n], axis=1)
    return StageDraws(stage_one=stage_one, model=model, system=system)


def draw_stages_many(laws: LawBatch, n1: int, n2: int,
                     rng: np.random.Generator) -> StageDraws:
    """One two-stage evaluation per row of ``laws`` (each row its own system).

    Examples
    --------
    >>> import numpy as np
    >>> from causalcost.experiments.law import random_two_model_laws
    >>> rng = np.random.default_rng(0)
    >>> d = draw_stages_many(random_two_model_laws(4, rng), 50, 60, rng)
    >>> d.model.sum(axis=1).tolist()
    [60, 60, 60, 60]
    """
    cells = []
    for n in (n1, n2):
        pos = rng.binomial(n, laws.prior)
        for table, size in ((laws.positive, pos), (laws.negative, n - pos)):
            cells.append(rng.multinomial(size, table.reshape(-1, 8)).reshape(-1, 2, 4))
    return stages_from_cells(*cells)
