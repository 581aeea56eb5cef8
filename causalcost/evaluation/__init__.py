"""Judging candidates and slots against the real system: backtests, slot importance, and
scikit-learn model selection by system cost.

This step sits above :mod:`causalcost.sheet` (it judges with sheets) and below the pictures
and the command line. Public names are re-exported by :mod:`causalcost`.
"""
