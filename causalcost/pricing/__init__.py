"""Price: from interventional rates and the system's costs to model-level costs and bounds.

Cost function 1 (expected cost) and cost function 2 (error transition), the worst- and
best-case bounds on the system's confusion matrix (count, probability and kinds forms, one
candidate or vectorised over many), their witnesses and result value, and the high-confidence
worst case. Public names are re-exported by :mod:`causalcost`.
"""
