"""Old import path: pricing many candidates for any K is
:mod:`causalcost.evaluation.pricing_many` (this module only re-exports it)."""

from causalcost.evaluation.pricing_many import (
    eval1_interval,
    free_bounds,
    high_confidence_cases,
    price_many,
    who,
)

__all__ = ["eval1_interval", "free_bounds", "high_confidence_cases", "price_many", "who"]
