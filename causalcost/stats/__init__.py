"""Statistics: intervals for rates, comparisons of candidates, prediction limits.

Public names are re-exported by :mod:`causalcost`.
"""
