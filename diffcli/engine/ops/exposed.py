"""The op table: which function, Tensor method and in-place name each op is exposed as.
The op modules register here (`rows.expose`); table.py builds FUNCTIONS, METHODS and
INPLACE from it."""

from __future__ import annotations


class Exposed:
    """An entry of the op table (table.py builds FUNCTIONS, METHODS, INPLACE from these):
    `function`, torch.NAME(...) or None (a Tensor method only); `method`, Tensor.NAME(...)
    or None; `names`; `inplace`, whether Tensor.NAME_(...) exists too; `rows`, the rows
    the function records (several for a dispatcher or a composite op)."""

    __slots__ = ("function", "method", "names", "inplace", "rows")

    def __init__(self, function, method, names, inplace, rows):
        self.function, self.method, self.names, self.inplace, self.rows = (
            function,
            method,
            names,
            inplace,
            rows,
        )


TABLE: list = []  # in registration order


def expose(fn, *rows_, names=(), method=True, inplace=False, function_too=True, sym=None):
    """Put `fn` (an op, or a dispatcher or composite over several rows) in the op table
    under `names`: a script function (unless `function_too` is False: a Tensor method
    only, as `view`), and `method`: a Tensor method (True: `fn` itself; or the method's
    own function; False: not one).

    `sym` is for a composite, whose rows are its parts and not alternatives taking its
    arguments: the symbolic form of its forward over `fn`'s parameter names (a text, as a
    row's), or False when it has none. Left None, `--symbolic` binds the arguments to each
    row's parameters in turn."""
    fn.rows = tuple(rows_)
    fn.sym = sym
    meth = fn if method is True else (method or None)
    TABLE.append(Exposed(fn if function_too else None, meth, tuple(names), inplace, tuple(rows_)))
    return fn
