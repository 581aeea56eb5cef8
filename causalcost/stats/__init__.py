"""Statistics: intervals for rates, comparisons of candidates, prediction limits.

- :mod:`causalcost.stats.intervals`: confidence intervals for an error rate (Wilson,
  Clopper-Pearson, Jeffreys, Agresti-Coull, Wald, and the lecture notes' ``z_N`` table).
- :mod:`causalcost.stats.comparisons`: the difference of two error rates on independent test
  sets, and McNemar's test for two models on the same instances.
- :mod:`causalcost.stats.crossval`: the k-fold paired t-test and Dietterich's 5x2cv test.
- :mod:`causalcost.stats.prediction`: upper prediction limits for binomial counts.

Public names are re-exported by :mod:`causalcost`.
"""
