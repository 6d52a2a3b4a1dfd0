"""The tensor methods added for tutorials (gather/scatter, masked_*, index_*, sort/topk,
splits, diagonals, copy_, new_*...) given a script's own objects where a tensor, an index
or a number belongs: every call ends in a clean script error (a type, a message with no
host internals), never a crash, and nothing they return is anything but plain values."""

from __future__ import annotations

import re

import pytest

from diffcli.engine import Tensor
from diffcli.engine.ops.reductions import ReturnTypes
from diffcli.lang.errors import ScriptError
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse

SETUP = """\
import torch
x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
i = torch.tensor([[0], [1]])
i1 = torch.tensor([0])
class K:
    pass
"""
CALLS = [
    "x.gather(1, {h})",
    "x.scatter(1, {h}, 1.0)",
    "x.scatter({h}, i, 1.0)",
    "x.scatter_add(1, i, {h})",
    "x.masked_fill({h}, 0.0)",
    "x.masked_fill(x > 0, {h})",
    "x.masked_select({h})",
    "x.index_select(0, {h})",
    "x.index_add(0, i1, {h})",
    "x.index_copy(0, {h}, x[:1])",
    "x.index_fill(0, i1, {h})",
    "x.index_put(({h},), x[0])",
    "x.sort(dim={h})",
    "x.topk({h})",
    "x.argsort(dim={h})",
    "x.split({h})",
    "x.chunk({h})",
    "x.narrow(0, {h}, 1)",
    "x.detach().copy_({h})",
    "x.new_zeros({h})",
    "x.new_tensor({h})",
    "x.new_full((2,), {h})",
    "x.tril({h})",
    "x.diagonal({h})",
    "x.roll({h})",
    "x.repeat_interleave({h})",
    "x.tile({h})",
    "x.movedim({h}, 0)",
    "x.unflatten(0, {h})",
    "x.unfold(0, {h}, 1)",
    "x.take({h})",
    "x.put(i1, {h})",
    "x.rot90({h})",
    "x.nan_to_num(nan={h})",
    "x.fmod({h})",
    "x.kthvalue({h})",
    "x.median({h})",
    "x.cummax({h})",
    "x.nansum({h})",
    "x.stride({h})",
    "x.diff(n={h})",
    "x.sum_to_size({h})",
    "torch.meshgrid({h})",
    "torch.isclose(x, {h})",
    "torch.addcmul(x, x, {h})",
    "torch.lerp(x, x, {h})",
    "torch.tensor_split(x, {h})",
    "torch.logspace(0, 1, {h})",
    "torch.heaviside(x, {h})",
    "torch.diag({h})",
]
HOSTILE = ["lambda q: q", "K", "K()", "{'a': 1}", "print", "'text'"]
INTERNALS = re.compile(r"ndarray|numpy|\bnp\.|0x[0-9a-f]{4,}|Traceback|<locals>|Interpreter|__")


def _run(script):
    interp = Interpreter(write=lambda s: None, warn=lambda *a: None)
    interp.run(parse(script))
    return interp


@pytest.mark.parametrize("call", CALLS)
def test_a_script_object_as_an_argument_is_a_clean_error(call):
    for h in HOSTILE:
        with pytest.raises(ScriptError) as e:
            _run(SETUP + "y = " + call.format(h=h) + "\n")
        assert e.value.type_name in ("TypeError", "RuntimeError", "IndexError", "ValueError"), (call, h)
        assert not INTERNALS.search(e.value.message), (call, h, e.value.message)


def test_the_new_methods_return_plain_values():
    interp = _run(
        SETUP
        + """\
r = [x.sort(1), x.topk(1), x.median(1), x.kthvalue(1), x.mode(1), x.cummax(1), x.split(1),
     x.chunk(2), x.unbind(), torch.tensor_split(x, 2), torch.meshgrid(x[0], x[1], indexing="ij"),
     x.stride(), x.is_contiguous(), x.element_size(), x.storage_offset(), (x > 0).nonzero(as_tuple=True)]
"""
    )
    for v in interp.env["r"]:
        items = v if isinstance(v, tuple) else (v,)
        assert isinstance(v, (tuple, ReturnTypes, int, bool)), type(v)
        assert all(isinstance(t, (Tensor, int, bool)) for t in items), items
