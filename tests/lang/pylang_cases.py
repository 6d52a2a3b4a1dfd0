"""Scripts that exercise the Python of autograd tutorials, one feature each (tests/lang/test_pylang.py).

Each runs unchanged under real Python 3 (+ torch 2.13 where it imports torch); the
outputs real Python gave are recorded in `pylang_recorded.py` (see test_pylang.py for how).
Module-level statements avoid binding bare number literals (`x = 3` at the top of a
script is a variable, i.e. a tensor, in diffcli's math flavour): the code sits in
functions, as tutorial code often does.
"""

from __future__ import annotations

CASES = {}


def case(name, text):
    assert name not in CASES, name
    CASES[name] = text.lstrip("\n")


# ---------------------------------------------------------------------------- lambda
case(
    "lambda_basic",
    """
sq = lambda x: x * x
add = lambda a, b=10: a + b
print(sq(3), add(1), add(1, 2), (lambda: 'none')())
print(sq)
print((lambda *a, **k: (a, k))(1, 2, z=3))
""",
)
case(
    "lambda_closure_late_binding",
    """
def make():
    fs = [lambda: i for i in range(3)]
    gs = [lambda i=i: i for i in range(3)]
    return [f() for f in fs], [g() for g in gs]
print(make())
def adder(n):
    return lambda x: x + n
print(adder(5)(1), adder(-1)(1))
""",
)
case(
    "lambda_errors",
    """
f = lambda x, y: x
f(1)
""",
)
case(
    "lambda_too_many",
    """
(lambda: 0)(1)
""",
)

# ----------------------------------------------------------- *args, **kwargs, defaults
case(
    "args_kwargs_definitions",
    """
def f(a, b=2, *args, c, d=4, **kwargs):
    return (a, b, args, c, d, kwargs)
print(f(1, c=3))
print(f(1, 5, 6, 7, c=3, e=8))
print(f(c=0, a=9))
def g(*, key):
    return key
print(g(key='k'))
def h(*args):
    return len(args), args
print(h(), h(1), h(*range(3)))
""",
)
case(
    "args_kwargs_calls",
    """
def show(*args, **kwargs):
    print(args, kwargs)
def wrapper(*args, **kwargs):
    return show(*args, **kwargs)
def kw(a, b):
    return a - b
def main():
    xs = [1, 2]
    opts = {'sep': '-', 'end': '!'}
    show(*xs, *(3,), *[], **opts, extra=True)
    print(*xs, **opts)
    print()
    wrapper(1, k=2)
    print(kw(**{'b': 1, 'a': 5}), kw(*[5], **{'b': 2}))
main()
""",
)
case(
    "defaults_evaluated_once",
    """
def append_to(x, acc=[]):
    acc.append(x)
    return acc
print(append_to(1), append_to(2), append_to(3, []))
def scale(v, factor=2 * 3):
    return v * factor
print(scale(1), scale(1, factor=1))
""",
)
case(
    "error_too_many_positional",
    """
def f(a, b=1):
    pass
f(1, 2, 3)
""",
)
case(
    "error_too_many_with_kwonly",
    """
def f(a, *, k):
    pass
f(1, 2, k=3)
""",
)
case(
    "error_missing_positional",
    """
def f(a, b, c):
    pass
f()
""",
)
case(
    "error_missing_kwonly",
    """
def f(a, *, k, m):
    pass
f(1)
""",
)
case(
    "error_unexpected_keyword",
    """
def f(a):
    pass
f(1, b=2)
""",
)
case(
    "error_multiple_values",
    """
def f(a, b):
    pass
f(1, a=2)
""",
)
case(
    "error_star_not_iterable",
    """
def f(*a):
    pass
f(*5)
""",
)
case(
    "error_double_star_not_mapping",
    """
def f(**k):
    pass
f(**[1])
""",
)
case(
    "error_duplicate_keyword_unpacked",
    """
def f(**k):
    pass
f(a=1, **{'a': 2})
""",
)
case(
    "syntax_bare_star",
    """
def f(*):
    pass
""",
)
case(
    "syntax_after_kwargs",
    """
def f(**k, a):
    pass
""",
)
case(
    "syntax_two_stars",
    """
def f(*a, *b):
    pass
""",
)
case(
    "syntax_duplicate_parameter",
    """
def f(a, a):
    pass
""",
)
case(
    "syntax_keyword_repeated",
    """
print(sep='', sep='')
""",
)
case(
    "syntax_positional_after_unpacking",
    """
print(**{}, 1)
""",
)
case(
    "syntax_star_after_double_star",
    """
print(**{}, *[])
""",
)

# -------------------------------------------------------------------------------- dicts
case(
    "dict_literal_and_methods",
    """
def main():
    d = {'b': 1, 'a': [1, 2], 3: (4, 5)}
    print(d, len(d), d['a'], d[3], 'b' in d, 'z' not in d)
    d['c'] = 'new'
    d['b'] += 10
    print(d.keys(), d.values(), d.items())
    print(d.get('z'), d.get('z', 0), d.get('b'))
    print(d.pop('c'), d.pop('zz', 'gone'), d)
    print(d.setdefault('n', []), d.setdefault('b', 99))
    d.update({'u': 1}, v=2)
    d.update([('w', 3)])
    print(d)
    e = d.copy()
    e.clear()
    print(e, d.popitem(), len(d))
    print({}, {'k': {'nested': {}}}, dict(), dict(a=1, b=2), dict([(1, 2), (3, 4)]))
main()
""",
)
case(
    "dict_iteration_and_comprehension",
    """
def main():
    d = {'x': 1, 'y': 2, 'z': 3}
    for k in d:
        print(k, d[k])
    for k, v in d.items():
        print(k, '->', v)
    sq = {k: v * v for k, v in d.items() if v != 2}
    print(sq, list(d), sorted(d, reverse=True), max(d, key=lambda k: d[k]))
    print(dict(zip(['a', 'b'], [1, 2])), {**d, 'x': 0, **{'w': 9}})
    inv = {v: k for k, v in d.items()}
    print(inv, list(reversed(d)), sum(d.values()))
main()
""",
)
case(
    "dict_key_error",
    """
def main():
    d = {'a': 1}
    try:
        d['b']
    except KeyError as e:
        print('missing', e, repr(e), e.args)
    print(d['c'])
main()
""",
)
case(
    "dict_unhashable",
    """
d = {[1]: 2}
""",
)
case(
    "dict_of_tensors",
    """
import torch
def main():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    params = {'w': w, 'b': torch.zeros(2)}
    loss = (params['w'] * 3 + params['b']).sum()
    loss.backward()
    for name, p in params.items():
        print(name, p.grad, p.requires_grad)
    print(params)
main()
""",
)

# ---------------------------------------------------------------- tuples and unpacking
case(
    "unpacking_everywhere",
    """
def main():
    a, b = 1, 2
    a, b = b, a
    (c, d), e = (3, 4), 5
    [f, g] = 'xy'
    print(a, b, c, d, e, f, g)
    first, *rest = [1, 2, 3, 4]
    *init, last = (1, 2, 3)
    x, *mid, y = range(5)
    h, *empty = [0]
    print(first, rest, init, last, x, mid, y, h, empty)
    for i, (p, q) in enumerate([(1, 2), (3, 4)]):
        print(i, p, q)
    for head, *tail in [[1, 2, 3], [4]]:
        print(head, tail)
    print([*rest, *init], (*rest, 0), (1,), (), [*'ab'])
    t = 1,
    print(t, type(t).__name__, len((1, 2, 3)))
main()
""",
)
case(
    "unpacking_not_enough",
    """
def main():
    a, *b, c = [1]
main()
""",
)
case(
    "unpacking_too_many",
    """
def main():
    a, b = [1, 2, 3]
main()
""",
)
case(
    "unpacking_not_iterable",
    """
def main():
    a, *b = 5
main()
""",
)
case(
    "syntax_two_starred_targets",
    """
a, *b, *c = [1, 2, 3]
""",
)
case(
    "syntax_starred_alone",
    """
*a = [1, 2]
""",
)
case(
    "syntax_starred_value",
    """
x = *[1, 2]
""",
)
case(
    "star_display_not_iterable",
    """
def main():
    x = [*5]
main()
""",
)

# ------------------------------------------------- isinstance, id, builtins with keys
case(
    "isinstance_and_issubclass",
    """
import torch
class A:
    pass
class B(A):
    pass
def main():
    t = torch.ones(2)
    print(isinstance(1, int), isinstance(1.5, float), isinstance(True, int), isinstance('s', str))
    print(isinstance([1], list), isinstance((1,), tuple), isinstance({}, dict), isinstance(None, int))
    print(isinstance(1, (str, int)), isinstance(t, torch.Tensor), isinstance(1.0, torch.Tensor))
    print(isinstance(B(), A), isinstance(A(), B), isinstance(B(), (int, B)), isinstance(A, A))
    print(issubclass(B, A), issubclass(A, B), issubclass(A, A), issubclass(B, (int, A)))
    print(isinstance(ValueError('x'), Exception), isinstance(KeyError(), LookupError))
    print(issubclass(ZeroDivisionError, ArithmeticError), issubclass(ValueError, TypeError))
main()
""",
)
case(
    "isinstance_bad_type",
    """
isinstance(1, 2)
""",
)
case(
    "id_and_identity",
    """
def main():
    a = [1]
    b = a
    c = [1]
    print(id(a) == id(b), id(a) == id(c), a is b, a is c, a == c, type(id(a)).__name__)
main()
""",
)
case(
    "zip_enumerate_sorted_reversed",
    """
def main():
    names = ['b', 'a', 'c']
    vals = [2, 3, 1]
    for n, v in zip(names, vals):
        print(n, v)
    for i, n in enumerate(names, start=1):
        print(i, n)
    print(list(zip(names, vals, 'xyz')), list(enumerate('ab')))
    print(sorted(vals), sorted(names, reverse=True), sorted(zip(vals, names)))
    print(sorted(names, key=lambda s: vals[names.index(s)]), sorted([-3, 1, -2], key=abs))
    print(list(reversed(vals)), list(reversed(range(3))), list(reversed('abc')))
    pairs = [(1, 'one'), (3, 'three'), (2, 'two')]
    print(min(pairs), max(pairs, key=lambda p: p[1]), min(vals, default=0), min([], default=None))
    print(max(1, 5, 3), min(4, 2, key=lambda v: -v), max('abc'))
    print(list(map(lambda v: v * 10, vals)), list(filter(lambda v: v > 1, vals)), list(map(str, vals)))
    print(sum(v * v for v in vals), any(v > 2 for v in vals), all(v > 2 for v in vals))
    print(list(zip(*[(1, 2), (3, 4)])), dict(enumerate('xy')))
    it = iter(vals)
    print(next(it), next(it), next(it), next(it, 'end'))
main()
""",
)
case(
    "sorted_mixed_types",
    """
sorted([1, 'a'])
""",
)
case(
    "max_empty",
    """
max([])
""",
)
case(
    "math_module",
    """
import math
def main():
    print(math.sqrt(16.0), math.floor(2.7), math.ceil(2.1), math.exp(0.0), math.log(1.0))
    print(math.pi, math.e, math.isclose(0.1 + 0.2, 0.3), math.hypot(3.0, 4.0), math.isnan(math.nan))
    print(math.pow(2.0, 10.0), math.fabs(-3.5), math.tanh(0.0), math.inf > 1e308)
main()
""",
)

# ------------------------------------------------------------------------ exceptions
case(
    "raise_and_catch",
    """
def check(v):
    if v < 0:
        raise ValueError("negative: " + str(v))
    return v
def main():
    try:
        check(-2)
    except ValueError as e:
        print('caught', e, repr(e), e.args, type(e).__name__, type(e) is ValueError)
    try:
        raise KeyError
    except (TypeError, KeyError) as e:
        print('tuple', repr(e), str(e) == '')
    try:
        raise RuntimeError('a', 2)
    except Exception as e:
        print(e, e.args, repr(e))
    try:
        1 / 0
    except ArithmeticError as e:
        print(type(e).__name__, e)
    try:
        [][1]
    except LookupError as e:
        print(type(e).__name__, e)
    E = TypeError
    try:
        raise E('from a value')
    except E as e:
        print(e, isinstance(e, TypeError), isinstance(e, Exception))
    print(ValueError, type(ValueError('x')), ValueError.__name__, ValueError('m'))
main()
""",
)
case(
    "raise_uncaught",
    """
def main():
    raise ValueError("bad input")
main()
""",
)
case(
    "raise_class_uncaught",
    """
raise NotImplementedError
""",
)
case(
    "reraise",
    """
def main():
    try:
        try:
            raise ValueError('inner')
        except ValueError:
            print('handling')
            raise
    except ValueError as e:
        print('outer got', e)
    try:
        raise TypeError('x') from ValueError('y')
    except TypeError as e:
        print('from', e)
    raise
main()
""",
)
case(
    "finally_and_else_order",
    """
def f(k):
    try:
        print('try', k)
        if k == 1:
            raise ValueError('one')
        if k == 2:
            return 'returned'
    except ValueError as e:
        print('except', e)
    else:
        print('else')
    finally:
        print('finally', k)
    return 'end'
def main():
    for k in range(3):
        print(f(k))
main()
""",
)
case(
    "custom_exception_classes",
    """
class AppError(Exception):
    pass
class ShapeError(AppError, ValueError):
    def __init__(self, msg, shape):
        super().__init__(msg)
        self.shape = shape
def main():
    try:
        raise ShapeError('bad shape', (2, 3))
    except ValueError as e:
        print(type(e).__name__, e, e.shape, e.args, repr(e), isinstance(e, AppError))
    try:
        raise AppError
    except AppError as e:
        print(repr(e), type(e))
    print(issubclass(ShapeError, Exception), ShapeError.__name__)
    raise ShapeError('uncaught', ())
main()
""",
)
case(
    "exception_name_deleted_after_handler",
    """
def main():
    try:
        raise ValueError('x')
    except ValueError as err:
        pass
    print(err)
main()
""",
)
case(
    "raise_non_exception",
    """
raise 5
""",
)
case(
    "catch_non_exception_class",
    """
def main():
    try:
        raise ValueError('x')
    except 5:
        pass
main()
""",
)
case(
    "bare_raise_without_exception",
    """
raise
""",
)
case(
    "engine_errors_are_catchable",
    """
import torch
def main():
    a = torch.ones(2, 3)
    try:
        a @ a
    except RuntimeError as e:
        print('RuntimeError:', e)
    x = torch.tensor(1.0, requires_grad=True)
    try:
        x.add_(1)
    except RuntimeError as e:
        print(type(e).__name__, e)
main()
""",
)

# ---------------------------------------------- __future__, __name__, decorators
case(
    "future_and_main",
    """
from __future__ import print_function, division
from __future__ import annotations
def main():
    print('main ran', __name__, 7 / 2, 7 // 2)
if __name__ == "__main__":
    main()
""",
)
case(
    "future_not_first",
    """
import math
from __future__ import division
""",
)
case(
    "future_unknown",
    """
from __future__ import braces_please
""",
)
case(
    "decorators_user",
    """
def logged(fn):
    def wrapper(*args, **kwargs):
        print('calling', fn.__name__, args, kwargs)
        result = fn(*args, **kwargs)
        print('returned', result)
        return result
    return wrapper
def repeat(n):
    def deco(fn):
        def run(*args):
            return [fn(*args) for _ in range(n)]
        return run
    return deco
@logged
def add(a, b=1):
    return a + b
@repeat(3)
@logged
def hello(name):
    return 'hi ' + name
def main():
    add(2, b=5)
    print(hello('you'))
    print(add.__name__, hello.__name__, add.__qualname__)
main()
""",
)
case(
    "decorators_class_and_order",
    """
def tag(label):
    def deco(obj):
        print('decorating', obj.__name__, 'with', label)
        return obj
    return deco
@tag('outer')
@tag('inner')
class Model:
    @tag('method')
    def forward(self):
        return 1
print(Model().forward())
""",
)
case(
    "decorators_torch_grad_modes",
    """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
@torch.no_grad()
def evaluate(t):
    y = t * 2
    return y.requires_grad, torch.is_grad_enabled()
@torch.no_grad
def bare(t):
    return (t * 2).requires_grad
@torch.enable_grad()
def train_step(t):
    return (t * 2).requires_grad
@torch.set_grad_enabled(False)
def frozen(t):
    return (t + 1).requires_grad
print(evaluate(x), bare(x), torch.is_grad_enabled())
with torch.no_grad():
    print(train_step(x), (x * 2).requires_grad)
print(frozen(x), torch.is_grad_enabled(), evaluate.__name__)
""",
)

# ------------------------------------------------------------------------------ classes
case(
    "class_basics",
    """
class Counter:
    instances = 0
    step = 1
    def __init__(self, start=0):
        self.value = start
        Counter.instances += 1
    def tick(self, times=1):
        self.value += self.step * times
        return self
    def __repr__(self):
        return f"Counter({self.value})"
def main():
    a = Counter()
    b = Counter(10)
    a.tick().tick(3)
    b.step = 5
    b.tick()
    print(a, b, a.value, b.value, Counter.instances, a.instances, Counter.step, b.step)
    print(type(a).__name__, a.__class__.__name__, type(a) is Counter, isinstance(b, Counter))
    print([a, b], {'c': a}, str(a), repr(b), f'{a}!')
    Counter.step = 2
    print(Counter(1).tick().value)
main()
""",
)
case(
    "class_default_reprs",
    """
class Plain:
    def method(self):
        pass
def main():
    p = Plain()
    print(p)
    print(Plain)
    print(Plain.method)
    print(p.method)
    print(type(p))
    print([p])
main()
""",
)
case(
    "class_inheritance_and_super",
    """
class Layer:
    def __init__(self, name):
        self.name = name
        self.calls = 0
    def forward(self, x):
        return x
    def __call__(self, x):
        self.calls += 1
        return self.forward(x)
    def describe(self):
        return f"{type(self).__name__}({self.name})"
class Scale(Layer):
    def __init__(self, name, k):
        super().__init__(name)
        self.k = k
    def forward(self, x):
        return super().forward(x) * self.k
class Shift(Scale):
    def __init__(self, k, b):
        super(Shift, self).__init__('shift', k)
        self.b = b
    def forward(self, x):
        return Scale.forward(self, x) + self.b
def main():
    s = Shift(2, 1)
    print(s(3), s(4), s.calls, s.describe(), s.name, s.k, s.b)
    print(isinstance(s, Layer), issubclass(Shift, Layer), Scale('s', 3)(2))
main()
""",
)
case(
    "class_mro_diamond",
    """
class A:
    def who(self):
        return 'A'
class B(A):
    def who(self):
        return 'B' + super().who()
class C(A):
    def who(self):
        return 'C' + super().who()
class D(B, C):
    def who(self):
        return 'D' + super().who()
print(D().who())
""",
)
case(
    "class_mro_conflict",
    """
class X:
    pass
class Y(X):
    pass
class Z(X, Y):
    pass
""",
)
case(
    "class_static_class_methods_property",
    """
class Temperature:
    unit = 'C'
    def __init__(self, degrees):
        self._degrees = degrees
    @classmethod
    def from_f(cls, f):
        return cls((f - 32) * 5 / 9)
    @staticmethod
    def valid(d):
        return d > -273.15
    @property
    def degrees(self):
        return self._degrees
    @degrees.setter
    def degrees(self, value):
        if not Temperature.valid(value):
            raise ValueError('too cold')
        self._degrees = value
def main():
    t = Temperature.from_f(212)
    print(t.degrees, Temperature.valid(-300), t.valid(0), type(t).__name__)
    t.degrees = 5
    print(t.degrees)
    try:
        t.degrees = -500
    except ValueError as e:
        print(e)
    print(Temperature.from_f(32).degrees, Temperature.unit)
main()
""",
)
case(
    "class_special_methods",
    """
class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)
    def __len__(self):
        return len(self.xs)
    def __getitem__(self, i):
        return self.xs[i]
    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])
    def __mul__(self, k):
        return Vec(*[a * k for a in self.xs])
    __rmul__ = __mul__
    def __neg__(self):
        return self * -1
    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs
    def __lt__(self, other):
        return len(self) < len(other)
    def __bool__(self):
        return any(self.xs)
    def __contains__(self, v):
        return v in self.xs
    def __repr__(self):
        return 'Vec(' + str(self.xs) + ')'
    def __str__(self):
        return '<' + str(len(self)) + ' items>'
def main():
    a = Vec(1, 2)
    b = Vec(3, 4)
    print(a + b, a * 2, 3 * a, -a, len(a), a[1], a[-1], 2 in a, 5 in a)
    print(a == Vec(1, 2), a != b, a == 1, bool(Vec(0, 0)), bool(a), sorted([Vec(1, 2, 3), a]))
    print([x for x in b], list(a), str(a), a)
    if not Vec(0):
        print('falsy')
    try:
        hash(a)
    except TypeError as e:
        print(e)
main()
""",
)
case(
    "class_iterator_protocol",
    """
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n + 1
class Bag:
    def __init__(self):
        self.items = ['a', 'b']
    def __iter__(self):
        return iter(self.items)
def main():
    print(list(Countdown(3)), [x * 2 for x in Countdown(2)], list(Bag()), sorted(Bag(), reverse=True))
    for i, c in enumerate(Countdown(2)):
        print(i, c)
    a, b = Bag()
    print(a, b, next(iter(Bag())))
main()
""",
)
case(
    "class_context_manager",
    """
class Tracker:
    def __init__(self, name, swallow=False):
        self.name = name
        self.swallow = swallow
    def __enter__(self):
        print('enter', self.name)
        return self
    def __exit__(self, kind, value, tb):
        print('exit', self.name, kind, value, tb)
        return self.swallow
def main():
    with Tracker('a') as t, Tracker('b'):
        print('body', t.name)
    with Tracker('quiet', swallow=True):
        raise ValueError('swallowed')
    print('after')
    for i in range(2):
        with Tracker('loop'):
            if i == 0:
                continue
            print('second pass')
    with Tracker('loud'):
        raise KeyError('k')
main()
""",
)
case(
    "class_callable_and_attributes",
    """
class Linear:
    def __init__(self, w, b):
        self.w = w
        self.b = b
    def __call__(self, x):
        return self.w * x + self.b
def main():
    f = Linear(2, 1)
    print(f(3), callable(f), callable(Linear), callable(3), callable(print), callable(lambda: 0))
    f.w = 10
    f.extra = 'set later'
    print(f(1), f.extra)
    g = f
    g.b = 0
    print(f(1), f is g)
main()
""",
)
case(
    "class_errors_attribute",
    """
class A:
    pass
def main():
    a = A()
    print(a.missing)
main()
""",
)
case(
    "class_errors_type_attribute",
    """
class A:
    pass
print(A.missing)
""",
)
case(
    "class_errors_no_init_args",
    """
class A:
    pass
A(1)
""",
)
case(
    "class_errors_init_arity",
    """
class A:
    def __init__(self, x):
        self.x = x
A(1, 2)
""",
)
case(
    "class_errors_method_arity",
    """
class A:
    def m(self):
        return 1
A().m(5)
""",
)
case(
    "class_errors_unsupported_operand",
    """
class A:
    pass
A() + 1
""",
)
case(
    "class_errors_not_callable",
    """
class A:
    pass
A()()
""",
)
case(
    "class_errors_init_returns",
    """
class A:
    def __init__(self):
        return 3
A()
""",
)
case(
    "class_errors_super_outside",
    """
def f():
    return super()
f()
""",
)
case(
    "class_errors_no_setter",
    """
class A:
    @property
    def p(self):
        return 1
a = A()
a.p = 2
""",
)
case(
    "class_errors_not_iterable",
    """
class A:
    pass
for x in A():
    pass
""",
)
case(
    "class_errors_no_len",
    """
class A:
    pass
len(A())
""",
)
case(
    "class_errors_not_context_manager",
    """
class A:
    pass
with A():
    pass
""",
)

# -------------------------------------------------------------- classes with torch
case(
    "class_holding_tensors",
    """
import torch
class Quadratic:
    def __init__(self, a, b):
        self.a = torch.tensor(a, requires_grad=True)
        self.b = torch.tensor(b, requires_grad=True)
    def __call__(self, x):
        return self.a * x ** 2 + self.b * x
    def parameters(self):
        return [self.a, self.b]
    @torch.no_grad()
    def step(self, lr):
        for p in self.parameters():
            p -= lr * p.grad
            p.grad.zero_()
def main():
    model = Quadratic(1.0, 0.5)
    x = torch.tensor([1.0, 2.0])
    loss = model(x).sum()
    loss.backward()
    print(loss, model.a.grad, model.b.grad)
    model.step(0.25)
    print(model.a, model.b, model.a.grad)
    print([p.requires_grad for p in model.parameters()], model.a.is_leaf)
main()
""",
)

# ---------------------------------------------------------------- torch niceties
case(
    "torch_context_manager_reprs",
    """
import torch
print(torch.set_grad_enabled(False))
print(torch.is_grad_enabled())
print(torch.set_grad_enabled(True), torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
""",
)

# ------------------------------------------- PyTorch's signatures (issue 11, item 3)
case(
    "torch_keyword_names",
    """
import torch
import torch.nn.functional as F
def main():
    x = torch.ones(2, 3)
    print(torch.matmul(input=x, other=x.T), torch.randn(size=(2, 3)).shape, torch.zeros(size=[2]).shape)
    print(x.sum(dim=1), torch.sum(input=x, dim=0), x.reshape(shape=(3, 2)).shape)
    print(torch.reshape(input=x, shape=(6,)).shape, torch.ones(size=(1, 2)).shape)
    print(torch.pow(input=x, exponent=2), x.pow(exponent=3), torch.where(condition=x > 0, input=x, other=x * 0))
    print(F.relu(input=x - 2), torch.clamp(input=x, min=0.5, max=0.75))
    print(torch.tensor(data=[1.0, 2.0], requires_grad=True), torch.mean(input=x, dim=1, keepdim=True))
    print(x.transpose(dim0=0, dim1=1).shape, torch.cat(tensors=[x, x], dim=0).shape, x.add(other=x, alpha=2))
    print(torch.mul(input=x, other=2.0).sum(), torch.mm(input=x, mat2=x.T), torch.dot(input=x[0], tensor=x[1]))
    print(torch.softmax(input=torch.zeros(2), dim=0), torch.exp(input=torch.zeros(1)), F.mse_loss(input=x, target=x))
main()
""",
)
case(
    "torch_keyword_names_conflict",
    """
import torch
x = torch.ones(2)
torch.matmul(x, input=x)
""",
)
case(
    "torch_out_argument",
    """
import torch
def main():
    x = torch.ones(2, 3)
    o = torch.zeros(2, 3)
    r = torch.add(x, x, out=o)
    print(r is o, o, o._version)
    o2 = torch.zeros(0)
    torch.mul(x[0], 2, out=o2)
    print(o2)
    a = torch.ones(2, requires_grad=True)
    try:
        torch.add(a, a, out=torch.zeros(2))
    except RuntimeError as e:
        print(e)
    try:
        torch.add(torch.ones(2, dtype=torch.float32), 1, out=torch.zeros(2, dtype=torch.long))
    except RuntimeError as e:
        print(e)
    with torch.no_grad():
        print(torch.add(a, 1, out=torch.zeros(2)), torch.sin(torch.zeros(2), out=torch.ones(2)))
    print(torch.matmul(x, x.T, out=torch.zeros(2, 2)))
main()
""",
)
case(
    "torch_set_printoptions",
    """
import torch
def main():
    t = torch.tensor([1.23456, 2.5])
    torch.set_printoptions(precision=2)
    print(t)
    torch.set_printoptions(sci_mode=True)
    print(t)
    torch.set_printoptions(profile="default")
    print(t, torch.tensor([1e-5, 1.0]))
    torch.set_printoptions(threshold=5, edgeitems=1)
    print(torch.arange(10.))
    torch.set_printoptions(linewidth=20)
    print(torch.arange(8.))
    torch.set_printoptions(profile="full")
    print(torch.arange(8.))
    torch.set_printoptions(profile="short")
    print(t, torch.arange(2000.))
    print(torch.set_printoptions(precision=6, sci_mode=False), torch.tensor([1e-9, 1.0]))
main()
""",
)
case(
    "torch_autograd_grad_only_inputs",
    """
import torch
def main():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    print(torch.autograd.grad(y, a, only_inputs=False, retain_graph=True))
    print(torch.autograd.grad(outputs=y, inputs=[a], only_inputs=True))
main()
""",
)

# ----------------------------------------------------- functools and typing in decorator code
case(
    "functools_wraps_reduce_typing",
    """
from functools import wraps, reduce
from typing import Any, Optional, List
import functools
import typing
import torch

def no_grad_decorator(func):
    @wraps(func)
    def wrapper(*args, **kwargs) -> Any:
        with torch.no_grad():
            return func(*args, **kwargs)
    return wrapper

@no_grad_decorator
def double(x: torch.Tensor, scale: Optional[float] = None) -> List[Any]:
    return x * 2
def main():
    x = torch.ones(2, requires_grad=True)
    print(double(x), double(x).requires_grad, double.__name__, double)
    print(reduce(lambda a, b: a * b, [1, 2, 3, 4]), functools.reduce(lambda a, b: a + b, [], 10))
    print(typing.Any, Optional)
main()
""",
)

# ------------------------------------------------------------------ sets, micrograd style
case(
    "sets",
    """
def main():
    s = {3, 1, 2}
    e = set()
    e.add(4)
    e.update([5, 6], (7,))
    print(s, e, set(), len(s), 2 in s, 9 not in s, {x % 3 for x in range(9)}, {*[1, 2], 2})
    s |= {10}
    print(sorted(s), s - {1}, s & {2, 10}, s | {0}, s.union([11]), s.issubset({1}), frozenset([1, 2]))
    s.discard(99)
    s.remove(3)
    print(sorted(s), set([1, 1, 2]), set('aab') == {'a', 'b'}, isinstance(s, set), type(s).__name__)
    try:
        s.remove(42)
    except KeyError as err:
        print('no', err)
main()
""",
)
case(
    "micrograd_style_engine",
    """
import math

class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out
    def __pow__(self, k):
        assert isinstance(k, (int, float)), "only int/float powers"
        out = Value(self.data ** k, (self,), f'**{k}')
        def _backward():
            self.grad += (k * self.data ** (k - 1)) * out.grad
        out._backward = _backward
        return out
    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')
        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out
    def backward(self):
        topo = []
        visited = set()
        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
    def __neg__(self):
        return self * -1
    def __radd__(self, other):
        return self + other
    def __sub__(self, other):
        return self + (-other)
    def __rmul__(self, other):
        return self * other
    def __truediv__(self, other):
        return self * other ** -1
    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

def main():
    x1, x2 = Value(2.0), Value(0.0)
    w1, w2, b = Value(-3.0), Value(1.0), Value(6.8813735870195432)
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    o.backward()
    print(o)
    for v in (x1, x2, w1, w2):
        print(v)
    a = Value(4.0)
    c = 2 * a - 1 + a / 2 + a ** 2
    c.backward()
    print(c, a.grad, len(c._prev), c._op)
main()
""",
)
case(
    "torch_context_manager_classes",
    """
import torch
print(torch.no_grad)
print(torch.enable_grad, torch.set_grad_enabled)
print(torch.no_grad(), torch.enable_grad())
print(torch.set_grad_enabled(True), torch.autograd.set_detect_anomaly(False))
print(torch.autograd.detect_anomaly, torch.autograd.set_detect_anomaly)
print(type(torch.no_grad()), type(torch.set_grad_enabled(True)))
with torch.no_grad() as g:
    print(g, torch.is_grad_enabled())
with torch.enable_grad() as g:
    print(g)
with torch.set_grad_enabled(False) as g:
    print(g, torch.is_grad_enabled())
""",
)
