"""How score-slot candidates are ranked and which were declared on the system's own rows:
shared by the two-label route (:mod:`causalcost.evaluation.score_judge`) and the K-label one
(:mod:`causalcost.evaluation.score_vector_judge`).

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"eval1": [2.0, 1.0, 1.0], "worst_cost": [3.0, 4.0, 2.0],
...                       "best_cost": [0.0, 0.0, 0.0]}, index=["a", "b", "c"])
>>> ranked(frame)["rank"].to_dict()
{'c': 1, 'b': 2, 'a': 3}
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import ValidationError

__all__ = ["SCORE_COLUMNS", "declared_candidates", "ranked"]

#: The columns of a score comparison, in order (then the right answers per case).
SCORE_COLUMNS = ("eval1", "expected_cost", "worst_cost", "best_cost")


def declared_candidates(names: list[Any], same_instances: bool | Collection[Any]) -> np.ndarray:
    """Per candidate: declared on the sheet's rows (all, none, or the named ones)."""
    if isinstance(same_instances, (bool, np.bool_)):
        return np.full(len(names), bool(same_instances))
    if isinstance(same_instances, Collection) and not isinstance(same_instances, str):
        known = set(names)
        unknown = [n for n in same_instances if n not in known]
        if unknown:
            raise ValidationError(f"same_instances names {unknown!r}, which are not among the "
                                  f"candidates {names[:5]!r}: name candidates given in scores=")
        chosen = set(same_instances)
        return np.array([n in chosen for n in names], dtype=bool)
    raise ValidationError(f"same_instances must be True, False or a collection of candidate "
                          f"names, got {same_instances!r}")


def ranked(frame: pd.DataFrame) -> pd.DataFrame:
    """Best first by (eval1, worst_cost), stable; ``rank`` shared by equal pairs."""
    eval1 = frame["eval1"].to_numpy(dtype=float)
    worst = frame["worst_cost"].to_numpy(dtype=float)
    order = np.lexsort((worst, eval1))
    frame = frame.iloc[order].copy()
    key = np.column_stack([eval1[order], worst[order]])
    new = np.ones(len(frame), dtype=bool)
    new[1:] = (key[1:] != key[:-1]).any(axis=1)
    frame.insert(1, "expected_cost", frame["eval1"].to_numpy())
    hc = [c for c in ("high_confidence_worst_cost", "high_confidence_best_cost")
          if c in frame.columns]
    first = [*SCORE_COLUMNS, *hc]
    frame["rank"] = np.maximum.accumulate(np.where(new, np.arange(1, len(frame) + 1), 0))
    return frame[[*first, "rank", *[c for c in frame.columns if c not in (*first, "rank")]]]
