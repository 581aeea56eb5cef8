"""Price: from interventional rates and the system's costs to model-level costs and bounds.

Cost function 1 (expected cost) and cost function 2 (error transition), the worst- and
best-case bounds on the system's confusion matrix (count and probability forms, one candidate
or vectorised over many) and their witnesses. Public names are re-exported by
:mod:`causalcost`.
"""
