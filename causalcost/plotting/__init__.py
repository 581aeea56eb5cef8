"""Pictures: the layered DAG layout and matplotlib drawings of systems and interventions.

The only subpackage that imports matplotlib. Public names are re-exported by
:mod:`causalcost`.
"""
