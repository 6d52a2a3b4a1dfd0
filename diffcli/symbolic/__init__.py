"""`grad --symbolic`: each leaf's gradient as a formula in the script's variables.

    from_ast     the script's values as SymPy expressions (through the op rows' `sym`)
    forms        the SymPy primitives the rows' forms use; where/clamp as Piecewise
    derive       derivatives on shared subexpressions, linear in the DAG
    simplify     rewrites bounded by the formula's size, never by a clock
    printer      diffcli's own syntax (pasteable into a script) and LaTeX
    report       the run, the formulas and the checks between them (grad/check --symbolic)

SymPy is imported only here: no other command imports this package.
"""
