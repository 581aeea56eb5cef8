"""Declare: the system as a causal Bayesian network.

The builder (``builder``, with ``tables`` checking each declaration and ``assemble`` making the
pgmpy network), the system wrapper and its roles (``system``, ``roles``, ``cpds``), fusioners
(``fusioners``; ``divorce`` declares a vote over many models as a chain of count nodes, ``votes``
recognises a vote in a network's tables), correlated models, network files (``netfile`` and its
schema ``netschema``; ``bif`` for BIF names, checks and export) and the shipped networks.
pgmpy is imported only by ``_pgmpy``, the adapter, and only when a network is built or read
from BIF. Public names are re-exported by :mod:`causalcost`.
"""
