"""Import shim for layers not yet moved: ``MulticlassSystem`` is :class:`System`.

Use :class:`causalcost.System`; ``cc.MulticlassSystem`` warns.
"""

from causalcost.network.system import System as MulticlassSystem

__all__ = ["MulticlassSystem"]
