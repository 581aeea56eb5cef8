"""Moved: K-label fusioners are :mod:`causalcost.network.fusioners` (one module for every K)."""
from causalcost.network.fusioners import MULTICLASS_RULES, Fusioner, plain_labels  # noqa: F401
from causalcost.network.fusioners import make_fusioner as make_multiclass_fusioner  # noqa: F401

MulticlassFusioner = NetworkRule = Fusioner
