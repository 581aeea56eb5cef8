"""The live explorer: move a system's rates, fusioner, costs and candidate, and see the
interventional table, the model cost matrices and the bound follow (``cc.explore``).

Binary networks are explored through their models' sensitivity and specificity; a system
declared by its K labels (``SystemBuilder(prior, labels=[...])``) through its class prior,
its models' K x K confusion rates and its fusion rule: one settings type
(:mod:`~causalcost.explorer.settings`, read by :mod:`~causalcost.explorer.reading`, declared
again by :mod:`~causalcost.explorer.declare`) and one view (:mod:`~causalcost.explorer.view`)
for every K."""
