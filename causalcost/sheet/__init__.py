"""Sheet: the artifact a system owner issues and a model owner evaluates candidates against.

Deriving a cost sheet (from a network, forced runs or data, for any number of labels: one
:class:`~causalcost.sheet.costsheet.CostSheet` type), its versioned JSON schema and checks, its
digest and signature. Judging candidates against a sheet is the next step,
:mod:`causalcost.evaluation`. Public names are re-exported by :mod:`causalcost`.
"""
