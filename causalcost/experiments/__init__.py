"""Experiments: the seeds' simulations of a two-stage evaluation, on any system.

Stage 1 counts the system with the slot forced to P and to N on ``n1`` instances; stage 2
measures a candidate on ``n2`` other instances and compares the worst case (plain and
high-confidence) with the real system cost. Public names are re-exported by
:mod:`causalcost`.
"""
