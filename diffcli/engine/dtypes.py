"""The dtypes a script can name (`torch.float32`...): the one table of them, each `DType`
knowing its names in torch (`torch.float64`), numpy (`float64`), c10 (`Double`, in
PyTorch's dtype messages) and C (`double`, in others)."""

from __future__ import annotations

import numpy as np


class DType:
    __slots__ = ("name", "np", "is_floating_point", "scalar_name", "c_name")

    def __init__(self, name: str, np_dtype, scalar_name: str, c_name: str):
        self.name = name  # torch.<name>
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.scalar_name = scalar_name  # c10's ScalarType: 'Double', 'Long'
        self.c_name = c_name  # the C type: 'double', 'long int'

    def __repr__(self):
        return f"torch.{self.name}"


float64 = DType("float64", np.float64, "Double", "double")
float32 = DType("float32", np.float32, "Float", "float")
int64 = DType("int64", np.int64, "Long", "long int")
int32 = DType("int32", np.int32, "Int", "int")
bool_ = DType("bool", np.bool_, "Bool", "bool")
float16 = DType("float16", np.float16, "Half", "c10::Half")  # `.half()`: as far as printing and arithmetic go


# --- the default dtype: a setting of the run ------------------------------------------
class Defaults:
    """The dtype settings a run gives the engine: `float` is the default float dtype (what
    `tensor(1.5)`, `zeros(2)` and a Python float next to an int tensor become), `drawn` the
    dtype whose numbers a random constructor draws for it: the math flavour's float64
    stands for PyTorch's default float32 (it draws PyTorch's float32 numbers, held in
    float64), the PyTorch flavour draws in its own default dtype."""

    __slots__ = ("float", "drawn")

    def __init__(self, float_, drawn=None):
        self.float = np.dtype(float_)
        self.drawn = np.dtype(drawn) if drawn is not None else self.float

    def __repr__(self):
        return f"Defaults(float={self.float.name}, drawn={self.drawn.name})"


MATH = Defaults(np.float64, np.float32)  # the math flavour's (and the engine's own)
PYTORCH = Defaults(np.float32)  # PyTorch's: float32
_defaults = [MATH]


def defaults() -> Defaults:
    """The settings in force."""
    return _defaults[0]


def use_defaults(settings: Defaults) -> Defaults:
    """Put `settings` in force (a run does at its start); returns the previous ones, for
    the caller to put back."""
    prev = _defaults[0]
    _defaults[0] = settings
    return prev


class using:
    """`with dtypes.using(settings):` the engine works with `settings`, then with what was
    in force before (for work on a finished run's tensors: its backward, its gradients)."""

    __slots__ = ("settings", "prev")

    def __init__(self, settings: Defaults):
        self.settings = settings

    def __enter__(self):
        self.prev = use_defaults(self.settings)
        return self.settings

    def __exit__(self, *exc):
        use_defaults(self.prev)
        return False


def default_float() -> np.dtype:
    """The default float dtype in force (numpy's)."""
    return _defaults[0].float


def get_default_dtype() -> DType:
    """`torch.get_default_dtype()`."""
    return of(_defaults[0].float)


def set_default_dtype(d) -> None:
    """`torch.set_default_dtype(d)`: float32 or float64 (PyTorch's wording otherwise); from
    then on the run's default, random draws included."""
    if not isinstance(d, DType):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _defaults[0] = Defaults(d.np)


BY_NAME = {
    "float64": float64,
    "double": float64,
    "float32": float32,
    "float": float32,
    "int64": int64,
    "long": int64,
    "int32": int32,
    "int": int32,
    "bool": bool_,
    "float16": float16,
    "half": float16,
}
_BY_NP = {d.np: d for d in (float64, float32, int64, int32, bool_, float16)}


def of(np_dtype) -> DType:
    d = _BY_NP.get(np.dtype(np_dtype))
    if d is None:
        raise TypeError(f"unsupported dtype {np_dtype}")
    return d


def scalar_name(np_dtype) -> str:
    """c10's ScalarType name of a numpy dtype (`'Double'`); numpy's name for one outside
    the table."""
    d = _BY_NP.get(np.dtype(np_dtype))
    return d.scalar_name if d is not None else np.dtype(np_dtype).name


def c_name(np_dtype) -> str:
    """The C type name of a numpy dtype (`'long int'`); numpy's name outside the table."""
    d = _BY_NP.get(np.dtype(np_dtype))
    return d.c_name if d is not None else np.dtype(np_dtype).name


def to_np(dtype) -> np.dtype:
    if dtype is None:
        return None
    if isinstance(dtype, DType):
        return dtype.np
    return np.dtype(dtype)


def category(d: np.dtype) -> int:
    return {"b": 0, "i": 1, "u": 1, "f": 2}[d.kind]


def canonical(arr: np.ndarray) -> np.ndarray:
    """Map numpy results onto the five dtypes the engine knows."""
    k = arr.dtype.kind
    if k == "f":
        return arr if arr.dtype in (np.float64, np.float32, np.float16) else arr.astype(np.float64)
    if k in "iu":
        return arr if arr.dtype in (np.int64, np.int32) else arr.astype(np.int64)
    if k == "b":
        return arr
    return arr.astype(np.float64)


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: a float beats any int (int64 * float32 is float32)."""
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)
