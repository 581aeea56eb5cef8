"""Sheet: the artifact a system owner issues and a model owner evaluates candidates against.

Deriving a cost sheet (from a network or from forced runs), its versioned JSON schema and
checks, evaluation reports, ranked comparisons and candidate files. Public names are
re-exported by :mod:`causalcost`.
"""
