"""Intervene: the do-operator on the slot, and the interventional table it yields.

Mutilation and the exact monotonicity check, the exact contraction (with the vote split for
fusioners over many models), forward sampling, the table and error-rate values, and the
``interventional_table`` entry point. Public names are re-exported by :mod:`causalcost`.
"""
