"""Network files shipped with causalcost (loaded by stem with ``causalcost.load_network``)."""
