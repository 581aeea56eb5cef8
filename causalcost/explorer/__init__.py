"""The live explorer: move a system's rates, fusioner, costs and candidate, and see the
interventional table, the model cost matrices and the bound follow (``cc.explore``).

Binary networks are explored through their models' sensitivity and specificity; a system
declared by its K labels (``SystemBuilder(prior, labels=[...])``) through its class prior,
its models' K x K confusion rates and its fusion rule (:mod:`causalcost.explorer.labels`)."""
