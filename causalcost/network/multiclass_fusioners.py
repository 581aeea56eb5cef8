"""Moved: K-label fusioners are :mod:`causalcost.network.fusioners` (one module for every K)."""
from causalcost.network.fusioners import FUSIONER_KINDS, multiclass_fusioner  # noqa: F401
from causalcost.network.fusioners import Fusioner as MulticlassFusioner  # noqa: F401
