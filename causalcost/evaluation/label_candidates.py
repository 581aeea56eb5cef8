"""Old import path: the reader of candidates for any K is
:mod:`causalcost.evaluation.candidate_reading` (this module only re-exports it)."""

from causalcost.evaluation.candidate_reading import (
    as_matrix,
    candidate_matrices,
    count_confusions,
    label_confusion,
    unique_names,
)

__all__ = ["as_matrix", "candidate_matrices", "count_confusions", "label_confusion",
           "unique_names"]
