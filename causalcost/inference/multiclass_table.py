"""Import shim for layers not yet moved: ``MulticlassTable`` is :class:`InterventionalTable`.

Use :class:`causalcost.inference.table.InterventionalTable`; ``cc.MulticlassTable`` warns.
"""

from causalcost.inference.table import InterventionalTable as MulticlassTable

__all__ = ["MulticlassTable"]
