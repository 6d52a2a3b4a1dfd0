"""`torch.utils.data` as one process runs it: Dataset (a base for script classes),
TensorDataset, Subset, random_split, default_collate and DataLoader.

The DataLoader follows torch/utils/data (2.13) step for step where the random generator
is concerned, so that a seeded script draws the same numbers as under PyTorch:
- `iter(loader)` draws the iterator's base seed (`torch.empty((), dtype=torch.int64)
  .random_(generator=loader.generator)`, one 64-bit draw), with or without workers;
- with `shuffle=True` the RandomSampler, at the first batch, seeds a fresh Generator from
  one more draw of the default generator (or uses `generator=` itself), and gives
  `randperm(n)`; when its indices run out it makes one more `randperm(n)` (of which it
  keeps none: `[: num_samples % n]`), which a `generator=` pays for;
- the BatchSampler groups indices as PyTorch's (`drop_last` or not), the fetcher reads
  `dataset[i]` for each, and `collate_fn` (default_collate) makes the batch.
`num_workers` is accepted and runs in this process (the batches are the same).
"""

from __future__ import annotations

import math

import numpy as np

from .. import engine
from ..engine import errors
from ..engine.ops import creation
from ..engine.ops import random as _random
from ..engine.tensor import Tensor
from .objects import MISSING, Instance, NativeMethod, ProvidedBase, new_instance


class DataClass(ProvidedBase):
    """One of torch.utils.data's classes: `methods` for scripts, `host` for Python's protocols."""

    def __init__(self, name, module_path, methods, parent=None, host=None, slots=()):
        self.name = name
        self.full_name = f"{module_path}.{name}"
        self.methods = {k: NativeMethod(k, v) for k, v in methods.items()}
        bases = (parent.host,) if parent is not None else (Instance,)
        ns = {"__slots__": slots, "_script_class": self, "__module__": module_path, "__qualname__": name}
        self.host = type(name, bases, {**ns, **(host or {})})
        self.parent = parent

    def lookup(self, name):
        found = self.methods.get(name, MISSING)
        if found is MISSING and self.parent is not None:
            return self.parent.lookup(name)
        return found


def _no_items(self, index):
    raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


DATASET = DataClass("Dataset", "torch.utils.data.dataset", {}, host={"__getitem__": _no_items})


# --- TensorDataset, Subset, random_split --------------------------------------------------------


def _tensor_dataset_init(interp, self, args, kwargs, node):
    if kwargs:
        raise TypeError(f"TensorDataset.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not args:
        raise IndexError("tuple index out of range")
    for t in args:
        if not isinstance(t, Tensor):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute 'size'")
    if not all(_rows(args[0]) == _rows(t) for t in args):
        raise AssertionError("Size mismatch between tensors")
    self._attrs["tensors"] = tuple(args)


def _rows(t: Tensor) -> int:
    if not t.array.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return t.array.shape[0]


TENSOR_DATASET = DataClass(
    "TensorDataset",
    "torch.utils.data.dataset",
    {"__init__": _tensor_dataset_init},
    DATASET,
    host={
        "__getitem__": lambda self, index: tuple(t[index] for t in self._attrs["tensors"]),
        "__len__": lambda self: _rows(self._attrs["tensors"][0]),
    },
)


def _subset_init(interp, self, args, kwargs, node):
    dataset, indices = _bind("Subset.__init__", args, kwargs, ("dataset", "indices"), {})
    self._attrs["dataset"], self._attrs["indices"] = dataset, indices


def _subset_getitem(self, idx):
    dataset, indices = self._attrs["dataset"], self._attrs["indices"]
    if isinstance(idx, list):
        return [dataset[indices[i]] for i in idx]
    return dataset[indices[idx]]


SUBSET = DataClass(
    "Subset",
    "torch.utils.data.dataset",
    {"__init__": _subset_init},
    DATASET,
    host={"__getitem__": _subset_getitem, "__len__": lambda self: len(self._attrs["indices"])},
)


def _subset(dataset, indices):
    s = new_instance(SUBSET)
    s._attrs["dataset"], s._attrs["indices"] = dataset, indices
    return s


def random_split(interp, args, kwargs, node):
    """torch.utils.data.random_split(dataset, lengths, generator=default_generator)."""
    dataset, lengths, generator = _bind(
        "random_split", args, kwargs, ("dataset", "lengths", "generator"), {"generator": None}
    )
    lengths = list(lengths)
    n = len(dataset)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                errors.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = creation.randperm(sum(lengths), generator=generator).array.tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(_subset(dataset, order[offset : offset + length]))
        offset += length
    return out


# --- default_collate -----------------------------------------------------------------------------

_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_collate(batch):
    """torch.utils.data.default_collate for the values a script's dataset gives."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return engine.FUNCTIONS["stack"](list(batch), 0)
    if isinstance(elem, np.ndarray):
        return engine.FUNCTIONS["stack"]([creation.tensor(b) for b in batch], 0)
    if isinstance(elem, float):
        return creation.tensor(list(batch), dtype=engine.dtypes.float64)
    if isinstance(elem, (bool, int)):
        return creation.tensor(list(batch))
    if isinstance(elem, str):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, (tuple, list)):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(f"<class '{type(elem).__name__}'>"))


# --- DataLoader ----------------------------------------------------------------------------------

_LOADER_ARGS = (
    "dataset",
    "batch_size",
    "shuffle",
    "sampler",
    "batch_sampler",
    "num_workers",
    "collate_fn",
    "pin_memory",
    "drop_last",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
)
_LOADER_DEFAULTS = {
    "batch_size": 1,
    "shuffle": None,
    "sampler": None,
    "batch_sampler": None,
    "num_workers": 0,
    "collate_fn": None,
    "pin_memory": False,
    "drop_last": False,
    "timeout": 0,
    "worker_init_fn": None,
    "multiprocessing_context": None,
    "generator": None,
}
_KEYWORD_ONLY = {
    "prefetch_factor": None,
    "persistent_workers": False,
    "pin_memory_device": "",
    "in_order": True,
}


def _loader_init(interp, self, args, kwargs, node):
    extra = {k: kwargs.pop(k) for k in list(kwargs) if k in _KEYWORD_ONLY}
    values = _bind("DataLoader.__init__", args, kwargs, _LOADER_ARGS, _LOADER_DEFAULTS)
    a = dict(zip(_LOADER_ARGS, values))
    if a["sampler"] is not None or a["batch_sampler"] is not None:
        raise NotImplementedError("diffcli's DataLoader takes no sampler or batch_sampler")
    if not isinstance(a["num_workers"], int) or a["num_workers"] < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
        )
    bs = a["batch_size"]
    if bs is not None and (not isinstance(bs, int) or isinstance(bs, bool) or bs <= 0):
        raise ValueError(f"batch_size should be a positive integer value, but got batch_size={bs}")
    if bs is None and a["drop_last"]:
        raise ValueError(
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
        )
    if a["generator"] is not None and not isinstance(a["generator"], _random.Generator):
        raise TypeError(f"generator must be a torch.Generator, not {type(a['generator']).__name__}")
    self._attrs.update(
        {
            "dataset": a["dataset"],
            "batch_size": bs,
            "drop_last": bool(a["drop_last"]),
            "num_workers": a["num_workers"],
            "generator": a["generator"],
            "collate_fn": a["collate_fn"],
            "timeout": a["timeout"],
            **extra,
        }
    )
    if a["shuffle"] and len(a["dataset"]) == 0:
        raise ValueError("num_samples should be a positive integer value, but got num_samples=0")
    self._loader = (bool(a["shuffle"]), interp, node)


def _loader_len(self):
    n, bs = len(self._attrs["dataset"]), self._attrs["batch_size"]
    if bs is None:
        return n
    return n // bs if self._attrs["drop_last"] else -(-n // bs)


def _sampler(dataset, shuffle, generator):
    """SequentialSampler, or RandomSampler without replacement (num_samples = n)."""
    n = len(dataset)
    if not shuffle:
        yield from range(n)
        return
    if generator is None:
        seed = int(_random.default_generator.random64(1)[0] % np.uint64(1 << 63))
        generator = _random.Generator(seed)
    yield from creation.randperm(n, generator=generator).array.tolist()  # num_samples // n = 1 time
    creation.randperm(n, generator=generator)  # and once more for the [: num_samples % n] (none)


def _batches(indices, batch_size, drop_last):
    """BatchSampler."""
    if batch_size is None:
        yield from indices
        return
    if drop_last:
        while True:
            try:
                batch = [next(indices) for _ in range(batch_size)]
            except StopIteration:
                return
            yield batch
    batch = []
    for idx in indices:
        batch.append(idx)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


def _loader_iter(self):
    a = self._attrs
    shuffle, interp, node = self._loader
    gen = _random.generator_or_default(a["generator"], "random_")
    gen.random64(1)  # the iterator's _base_seed
    it = new_instance(LOADER_ITER)
    batches = _batches(_sampler(a["dataset"], shuffle, a["generator"]), a["batch_size"], a["drop_last"])
    it._state = (batches, a["dataset"], a["batch_size"] is not None, a["collate_fn"], interp, node)
    return it


def _next_batch(it):
    batches, dataset, batched, collate_fn, interp, node = it._state
    index = next(batches)  # (StopIteration ends the loop)
    data = [dataset[i] for i in index] if batched else dataset[index]
    if collate_fn is None:
        return default_collate(data) if batched else data
    return interp.call_value(collate_fn, [data], {}, node)


DATA_LOADER = DataClass(
    "DataLoader",
    "torch.utils.data.dataloader",
    {"__init__": _loader_init},
    host={"__iter__": _loader_iter, "__len__": _loader_len},
    slots=("_loader",),
)
LOADER_ITER = DataClass(
    "_SingleProcessDataLoaderIter",
    "torch.utils.data.dataloader",
    {"__next__": lambda interp, self, args, kwargs, node: _next_batch(self)},
    host={"__iter__": lambda self: self, "__next__": _next_batch},
    slots=("_state",),
)


def _bind(fname, args, kwargs, names, defaults):
    """Positional and keyword arguments to `names`, as Python binds them (with its errors)."""
    if len(args) > len(names):
        raise TypeError(
            f"{fname}() takes {len(names) + 1} positional arguments but {len(args) + 1} were given"
        )
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        if k in values:
            raise TypeError(f"{fname}() got multiple values for argument '{k}'")
        values[k] = v
    for k in names:
        if k not in values:
            if k not in defaults:
                raise TypeError(f"{fname}() missing 1 required positional argument: '{k}'")
            values[k] = defaults[k]
    return [values[k] for k in names]


CLASSES = {
    "Dataset": DATASET,
    "TensorDataset": TENSOR_DATASET,
    "Subset": SUBSET,
    "DataLoader": DATA_LOADER,
}
