"""The live explorer: move a system's rates, fusioner, costs and candidate, and see the
interventional table, the model cost matrices and the bound follow (``cc.explore``)."""
