"""Declare: the system as a causal Bayesian network.

The builder, the system wrapper and its roles, fusioners, correlated models, network files
(TOML and BIF) and the shipped networks. pgmpy is imported only by ``_pgmpy``, the adapter.
Public names are re-exported by :mod:`causalcost`.
"""
