"""Moved: K-label fusioners are :mod:`causalcost.network.fusioners` (one module for every K)."""
from causalcost.network.fusioners import MULTICLASS_RULES, plain_labels  # noqa: F401
from causalcost.network.fusioners import Fusioner as MulticlassFusioner, Fusioner as NetworkRule, make_fusioner as make_multiclass_fusioner  # noqa: E501, F401
