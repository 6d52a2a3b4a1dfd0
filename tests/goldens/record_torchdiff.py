"""Record what PyTorch prints for the torchdiff cases into torchdiff.json, for
tests/engine/test_torchdiff.py.

Run by hand, with PyTorch installed, from the repository root:

    python3 tests/goldens/record_torchdiff.py        # rewrites tests/goldens/torchdiff.json

Two kinds of case, each a PyTorch-flavour script (`import torch` first):

- CASES: the differences the differential run (tests/engine/torch_script_gen.py against
  live torch) found, written by hand, one behaviour each: the bool operands of `-`, pow's
  missing Bool kernel, the Tensor-only binary ops, the boolean masks' shape check, ...;
- SEEDS: programs of the generator (`torch_script_gen.program(seed)`), stored as text so
  that a change of the generator does not change the goldens; the seeds are ones whose
  output diffcli matches to the last digit (no float32 transcendental kernels whose last
  bit differs: see test_torchdiff.py).

Each script is run in this process by `exec` (PyTorch's float32 default dtype, print
options reset before each); recorded: stdout with object addresses removed (diffcli prints
`<MulBackward0 object>`, by the spec) and the error as [type, message], or null.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "torchdiff.json"
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")

T = "import torch\n"
CASES = [
    # sub_check: a bool operand of `-` (a Python bool too), in every spelling
    ("sub_float_minus_python_bool", T + "x = torch.tensor([1.5, 2.0])\nprint(x - False)\n"),
    ("sub_bool_tensor_minus_int", T + "x = torch.tensor([True, False])\nprint(x - 1)\n"),
    ("sub_two_bool_tensors", T + "x = torch.tensor([True, False])\nprint(x - x)\n"),
    ("sub_int_minus_bool_tensor", T + "x = torch.tensor([1, 2])\nprint(x - torch.tensor([True, False]))\n"),
    ("sub_function_python_bool", T + "x = torch.tensor([1, 2])\nprint(torch.sub(x, True))\n"),
    ("sub_inplace_python_bool", T + "x = torch.tensor([1, 2])\nx.sub_(True)\n"),
    ("sub_augmented_bool_tensor", T + "x = torch.tensor([True, False])\nx -= 1\n"),
    ("rsub_int_minus_bool_tensor", T + "print(1 - torch.tensor([True]))\n"),
    ("rsub_python_bool_minus_tensor", T + "x = torch.tensor([1, 2])\nprint(True - x)\n"),
    (
        "rsub_python_bool_minus_0d_float64",
        T + "x = torch.tensor(1.5, dtype=torch.float64)\nprint(True - x)\n",
    ),
    ("rsub_function_bool_tensor", T + "print(torch.rsub(torch.tensor([True]), 1))\n"),
    ("sub_0d_float64_minus_python_bool", T + "x = torch.tensor(1.5, dtype=torch.float64)\nprint(x - True)\n"),
    ("sub_requires_grad_minus_false", T + "x = torch.tensor([1.5], requires_grad=True)\nprint(x - False)\n"),
    ("sub_ok_int_and_float", T + "x = torch.tensor([1, 2])\nprint(x - 1, 1 - x, x - 2.5, x.sub(1))\n"),
    # pow: no Bool kernel; a bool exponent keeps a bool tensor bool
    ("pow_bool_tensors", T + "x = torch.tensor([True, False])\nprint(x ** x)\n"),
    ("pow_python_bool_base", T + "x = torch.tensor([True, False])\nprint(True ** x)\n"),
    ("pow_false_base_function", T + "x = torch.tensor([True, False])\nprint(torch.pow(False, x))\n"),
    (
        "pow_bool_exponent",
        T
        + "x = torch.tensor([True, False])\n"
        + "print(x ** True, x ** False, torch.pow(x, True), torch.tensor([1, 2]) ** True, torch.tensor([1.5]) ** False)\n",
    ),
    (
        "pow_bool_base_ok",
        T
        + "x = torch.tensor([True, False])\n"
        + "print(x ** 0, x ** 1.0, x ** 2, 2 ** x, 2.5 ** x, x ** 1.5, x ** torch.tensor(2), torch.tensor(2) ** x)\n",
    ),
    (
        "pow_bool_tensor_0d_bool_exponent",
        T + "x = torch.tensor([True, False])\nprint(x ** torch.tensor(True))\n",
    ),
    # binary ops with no Scalar overload: a Python number is a TypeError
    ("atan2_python_float_other", T + "x = torch.tensor([1., 2.])\nprint(torch.atan2(x, 2.5))\n"),
    ("atan2_python_float_input", T + "x = torch.tensor([1., 2.])\nprint(torch.atan2(2.5, x))\n"),
    ("atan2_method_python_float", T + "x = torch.tensor([1., 2.])\nprint(x.atan2(2.5))\n"),
    ("atan2_tensors", T + "print(torch.atan2(torch.tensor([1., -2.]), torch.tensor([3., 4.])))\n"),
    ("logical_and_python_float", T + "x = torch.tensor([1., 2.])\nprint(torch.logical_and(x, 2.5))\n"),
    ("logical_or_python_float_input", T + "x = torch.tensor([1., 0.])\nprint(torch.logical_or(2.5, x))\n"),
    ("logical_xor_python_int", T + "x = torch.tensor([1., 0.])\nprint(torch.logical_xor(x, 1))\n"),
    (
        "logical_tensors",
        T + "x = torch.tensor([1., 0.])\ny = torch.tensor([True, True])\n"
        "print(torch.logical_and(x, y), torch.logical_or(x, y), torch.logical_xor(x, y))\n",
    ),
    # boolean masks: PyTorch's shape check, for x[mask] and x[mask] = v
    ("mask_too_short", T + "x = torch.tensor([1., 2., 3.])\nprint(x[torch.tensor([True, False])])\n"),
    ("mask_2d_wrong", T + "x = torch.zeros(2, 3)\nprint(x[torch.ones(2, 2, dtype=torch.bool)])\n"),
    ("mask_first_dim_wrong", T + "x = torch.zeros(2, 3)\nprint(x[torch.ones(3, dtype=torch.bool)])\n"),
    ("mask_after_slice", T + "x = torch.zeros(2, 3)\nprint(x[:, torch.ones(2, dtype=torch.bool)])\n"),
    ("mask_after_none", T + "x = torch.zeros(2, 3)\nprint(x[None, torch.ones(3, dtype=torch.bool)])\n"),
    ("mask_after_int", T + "x = torch.zeros(2, 3)\nprint(x[0, torch.ones(4, dtype=torch.bool)])\n"),
    ("mask_too_many_dims", T + "x = torch.zeros(2, 3)\nprint(x[torch.ones(2, 3, 1, dtype=torch.bool)])\n"),
    ("setitem_mask_wrong", T + "x = torch.zeros(2, 3)\nx[torch.tensor([True, False, True])] = 1\n"),
    ("setitem_mask_after_slice", T + "x = torch.zeros(2, 3)\nx[:, torch.tensor([True, False])] = 1\n"),
    ("setitem_mask_after_int", T + "x = torch.zeros(2, 3)\nx[0, torch.tensor([True, False])] = 1\n"),
    ("setitem_mask_after_ellipsis", T + "x = torch.zeros(2, 3)\nx[..., torch.tensor([True, False])] = 1\n"),
    (
        "masks_that_fit",
        T + "x = torch.zeros(2, 3)\nx[torch.ones(2, 3, dtype=torch.bool)] = 2\nx[x > 1] = 3.5\n"
        "x[torch.tensor([True, False])] = -1\nx[1:, torch.tensor([True, False, True])] = 7\n"
        "print(x, x[torch.tensor([False, True])], x[:, torch.tensor([True, False, True])])\n",
    ),
]

# more of the differential run's finds
CASES += [
    ("sign_of_nan_is_zero", T + "print(torch.sign(torch.tensor([float('nan'), -0.0, 0.0, -2.0, 3.0])))\n"),
    (
        "sign_of_nan_float64_sgn_int",
        T
        + "print(torch.sgn(torch.tensor([float('nan')], dtype=torch.float64)), torch.sign(torch.tensor([1, -2, 0])))\n",
    ),
    (
        "sign_of_nan_backward",
        T + "x = torch.tensor([float('nan'), -1.0], requires_grad=True)\ny = x.sign()\nprint(y)\n"
        "y.sum().backward()\nprint(x.grad)\n",
    ),
    (
        "inplace_on_a_view_of_a_leaf_that_does_not_require_grad",
        T + "v1 = torch.linspace(0.5, 10, 3)\nv3 = v1[..., -1]\nv3.requires_grad_()\nv3.add_(1)\n",
    ),
    (
        "inplace_on_a_sliced_view_made_to_require_grad",
        T + "v1 = torch.linspace(0.5, 10, 3)\nv3 = v1[1:]\nv3.requires_grad_()\nv3.mul_(2)\n",
    ),
    (
        "clamp_tensor_bounds_promote_as_tensors",
        T + "x = torch.tensor([1, 2])\nprint(x.clamp(min=torch.tensor(0.5)), "
        "x.clamp(min=torch.tensor(0.5, dtype=torch.float64)), x.clamp(max=torch.tensor(True)), "
        "torch.tensor([1., 2.]).clamp(min=torch.tensor([0.5], dtype=torch.float64)))\n",
    ),
    (
        "clamp_tensor_bounds_backward",
        T + "x = torch.tensor([1., 2.], requires_grad=True)\n"
        "y = x.clamp(min=torch.tensor(1.5), max=torch.tensor([3., 1.8]))\nprint(y)\ny.sum().backward()\nprint(x.grad)\n",
    ),
    (
        "fmod_broadcast_error_before_bool_kernel",
        T + "print(torch.fmod(torch.tensor([True, False, True]), torch.tensor([True, False])))\n",
    ),
    (
        "remainder_broadcast_error_before_bool_kernel",
        T + "print(torch.tensor([True, False, True]) % torch.tensor([True, False]))\n",
    ),
    (
        "floor_divide_broadcast_error_before_bool_kernel",
        T + "print(torch.tensor([True, False, True]) // torch.tensor([True, False]))\n",
    ),
    (
        "pow_broadcast_error_before_bool_kernel",
        T + "print(torch.tensor([True, False, True]) ** torch.tensor([True, False]))\n",
    ),
    (
        "cat_promotes_like_dimensioned_tensors",
        T
        + "x = torch.tensor([[1., 2.], [3., 4.]])\nprint(torch.cat([x, x.long()]), torch.cat([x.int(), x.long()]).dtype, "
        "torch.stack([x, x.double()]).dtype, torch.cat([x, torch.tensor([[True, False]])]))\n",
    ),
    (
        "stack_promotes_0d_tensors",
        T
        + "print(torch.stack([torch.tensor(1), torch.tensor(1.5)]), torch.stack([torch.tensor(True), torch.tensor(2)]), "
        "torch.cat([torch.tensor([1, 2]), torch.tensor([True])]).dtype)\n",
    ),
    (
        "cat_of_mixed_float_dtypes_backward",
        T
        + "x = torch.tensor([1., 2.], requires_grad=True)\nz = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n"
        "y = torch.stack([x, z, torch.tensor([1, 2])])\nprint(y, y.grad_fn)\n(y * y).sum().backward()\nprint(x.grad, z.grad)\n",
    ),
]

# third round
CASES += [
    ("index_0d_with_a_nonzero_int", T + "print(torch.tensor(1.)[-2])\n"),
    ("index_0d_with_minus_one", T + "print(torch.tensor(1., requires_grad=True)[-1])\n"),
    ("index_0d_with_zero", T + "print(torch.tensor(1.)[0])\n"),
    ("index_0d_with_a_0d_long_tensor", T + "print(torch.tensor(1.)[torch.tensor(0)])\n"),
    ("setitem_0d_with_a_nonzero_int", T + "x = torch.tensor(1.)\nx[1] = 2\n"),
    (
        "index_with_0d_bool_tensors",
        T + "print(torch.tensor(2.)[torch.tensor(True)], torch.tensor(2.)[torch.tensor(False)], "
        "torch.tensor([2., 3.])[torch.tensor(True)], torch.tensor([2., 3.])[torch.tensor(1)])\n",
    ),
    (
        "index_with_a_0d_bool_tensor_backward_and_setitem",
        T + "x = torch.tensor([2., 3.], requires_grad=True)\ny = x[torch.tensor(True)]\nprint(y)\n"
        "y.sum().backward()\nprint(x.grad)\nz = torch.tensor([2., 3.])\nz[torch.tensor(True)] = 5\n"
        "z[torch.tensor(0)] = 1\nprint(z)\n",
    ),
    ("dot_of_bools", T + "v = torch.ones(1, dtype=torch.bool)\nprint(v @ v)\n"),
    ("mm_of_bools", T + "m = torch.ones(1, 1, dtype=torch.bool)\nprint(torch.mm(m, m))\n"),
    (
        "mv_of_bools",
        T + "m = torch.ones(1, 1, dtype=torch.bool)\nprint(m @ torch.ones(1, dtype=torch.bool))\n",
    ),
    ("bmm_of_bools", T + "b = torch.ones(1, 1, 1, dtype=torch.bool)\nprint(b @ b)\n"),
    (
        "vector_matrix_of_bools",
        T + "m = torch.ones(1, 1, dtype=torch.bool)\nprint(torch.ones(1, dtype=torch.bool) @ m)\n",
    ),
    (
        "outer_of_bools",
        T
        + "v = torch.ones(2, dtype=torch.bool)\nprint(torch.outer(v, v), torch.tensor([1, 2]) @ torch.tensor([3, 4]))\n",
    ),
    (
        "norm2_float64_with_inf_and_overflow",
        T + "print(torch.tensor([[float('inf'), 1.]], dtype=torch.float64).norm(dim=1), "
        "torch.tensor([float('inf'), 1.], dtype=torch.float64).norm(), "
        "torch.tensor([[1e200, 1e200]], dtype=torch.float64).norm(dim=1), "
        "torch.tensor([[1e-200, 1e-200]], dtype=torch.float64).norm(dim=1), "
        "torch.tensor([[float('nan'), float('inf')]], dtype=torch.float64).norm(dim=1))\n",
    ),
]

# clamp_'s Scalar overloads name the output type as C does (`bool`, `long int`)
CASES += [
    ("clamp_inplace_bool_int_bound", T + "x = torch.tensor([True, False])\nx.clamp_(min=0)\n"),
    ("clamp_inplace_bool_both_bounds", T + "x = torch.tensor([True, False])\nx.clamp_(0, 1)\n"),
    ("clamp_min_inplace_bool", T + "x = torch.tensor([True, False])\nx.clamp_min_(0)\n"),
    ("clamp_max_inplace_long_float_bound", T + "x = torch.tensor([1, 2])\nx.clamp_max_(0.5)\n"),
    ("clamp_inplace_long_float_bound", T + "x = torch.tensor([1, 2])\nx.clamp_(min=0.5)\n"),
    (
        "clamp_inplace_int32_float_bound",
        T + "x = torch.tensor([1, 2], dtype=torch.int32)\nx.clamp_(min=0.5)\n",
    ),
    ("clamp_inplace_long_tensor_bound", T + "x = torch.tensor([1, 2])\nx.clamp_(min=torch.tensor(0.5))\n"),
    ("add_inplace_bool_keeps_scalar_type_name", T + "x = torch.tensor([True, False])\nx.add_(1)\n"),
    (
        "clamp_inplace_that_fits",
        T + "x = torch.tensor([1, 5])\nx.clamp_(min=2, max=4)\nprint(x, x.clamp_(max=3))\n",
    ),
]

# clamp_min / clamp_max: Python-number bounds promote as PyTorch's (int64 with 0.5 is
# float32), a Tensor bound is an input (ClampMinBackward1 / ClampMaxBackward1)
CASES += [
    (
        "clamp_min_max_promotion",
        T + "print(torch.tensor([1, 2]).clamp_min(0.5), torch.tensor([1, 2]).clamp_max(1.5), "
        "torch.tensor([1., 2.]).clamp_min(torch.tensor(1.5, dtype=torch.float64)), torch.clamp_max(torch.tensor([True]), 0), "
        "torch.tensor([1, 5]).clamp_max(torch.tensor([2, 2])), torch.tensor([1, 5]).clamp_min(torch.tensor(2.5)))\n",
    ),
    (
        "clamp_min_max_tensor_bounds_backward",
        T + "x = torch.tensor([1., 3.], requires_grad=True)\nm = torch.tensor([2., 2.], requires_grad=True)\n"
        "y = x.clamp_min(m) * 2 + torch.clamp_max(x, m)\nprint(y, y.grad_fn.next_functions)\n"
        "y.sum().backward()\nprint(x.grad, m.grad)\n",
    ),
    (
        "clamp_max_broadcast_0d_bound_backward",
        T
        + "x = torch.tensor([[1., 3.], [0., 5.]], requires_grad=True)\nm = torch.tensor(2., requires_grad=True)\n"
        "y = x.clamp_max(m)\nprint(y)\ny.sum().backward()\nprint(x.grad, m.grad)\n",
    ),
    (
        "clamp_min_tensor_bound_create_graph",
        T
        + "x = torch.tensor([1., 3.], requires_grad=True)\nm = torch.tensor([2.], dtype=torch.float64, requires_grad=True)\n"
        "y = x.clamp_min(m)\nprint(y)\ng = torch.autograd.grad(y.sum(), [x, m], create_graph=True)\nprint(g)\n",
    ),
]

# a full sum of a permuted view adds in memory order (TensorIterator sorts dims by stride)
CASES += [
    (
        "sum_of_a_transposed_view",
        T + "v3 = torch.linspace(-3, 3, 1000).view(2, 500).t()\n"
        "print(v3.sum(), v3.mean(), v3.sum(dim=(0, 1)), v3.sum(0)[:3], v3.sum(1)[:3])\n",
    ),
    (
        "sum_of_a_permuted_3d_view",
        T + "x = torch.linspace(-3, 3, 1000).view(10, 10, 10).permute(2, 0, 1)\n"
        "print(x.sum(), x.mean(), x.sum(dim=(0, 1, 2), keepdim=True))\n",
    ),
    (
        "sum_of_transposed_randn",
        T + "torch.manual_seed(0)\nx = torch.randn(40, 50).t()\nprint(x.sum().item(), x.mean().item())\n"
        "torch.manual_seed(1)\ny = torch.randn(4, 50, dtype=torch.float64).t()\nprint(y.sum().item())\n"
        "torch.manual_seed(3)\nz = torch.randn(7, 3, 5).permute(1, 2, 0)\nprint(z.sum().item())\n",
    ),
]

# generator programs (tests/engine/torch_script_gen.py) whose output diffcli matches
# (seeds 0-59 but those whose float32 exp/sin/cos/tanh/sqrt differ from numpy's in a last bit;
# the differential run of 2026-12-02 matched the rest exactly)
SEEDS = [seed for seed in range(60) if seed not in (16, 53)]


def run(text: str, torch) -> tuple[str, list | None]:
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default", sci_mode=None)
    buf, error = io.StringIO(), None
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(text, "<script>", "exec"), {})
        except Exception as e:  # noqa: BLE001 - torch's error is the record
            error = [type(e).__name__, str(e)]
    torch.set_printoptions(profile="default", sci_mode=None)
    return ADDRESS.sub(">", buf.getvalue()), error


def main() -> int:
    import torch

    sys.path.insert(0, str(HERE.parent / "engine"))
    from torch_script_gen import program

    cases = CASES + [(f"generated_{seed}", program(seed)) for seed in SEEDS]
    records = []
    for name, script in cases:
        stdout, error = run(script, torch)
        records.append({"name": name, "script": script, "stdout": stdout, "error": error})
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": records}, indent=1) + "\n")
    print(f"wrote {len(records)} cases to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
