"""Import shim for layers not yet moved: see :mod:`causalcost.inference.label_votes`."""

from causalcost.inference.label_votes import MAX_CONFIGURATIONS, score_distribution

__all__ = ["MAX_CONFIGURATIONS", "score_distribution"]
