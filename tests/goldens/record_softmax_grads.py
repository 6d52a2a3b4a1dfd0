"""Record PyTorch's bits for the gradients of softmax and log_softmax (their backward ops
_softmax_backward_data / _log_softmax_backward_data) on the numerics cases that reduce over
a dim (numerics_cases.reduce_case: 2-D arrays, dim 0 or 1, sizes up to 10^5), float32 and
float64, with a seeded upstream gradient.

    python3 tests/goldens/record_softmax_grads.py     # the system python3, with torch

Writes tests/goldens/softmax_grads.json (per op/dtype the digests of x.grad, as
numerics.json); tests/engine/test_softmax_grad_bits.py replays them on diffcli's autograd."""

from __future__ import annotations

import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import numerics_cases as C  # noqa: E402

OUT = pathlib.Path(__file__).with_name("softmax_grads.json")


def main():
    grads = {}
    for dtype in C.DTYPES:
        for i in range(C.N_REDUCE):
            x, dim = C.reduce_case(i, dtype)
            if dim is None:
                continue
            g = torch.from_numpy(C.grad_upstream(i, x))
            for op in ("softmax", "log_softmax"):
                t = torch.from_numpy(x).requires_grad_()
                getattr(torch, op)(t, dim).backward(g)
                grads.setdefault(f"{op}/{dtype}", []).append(C.digest(t.grad.numpy()))
    data = {"torch": torch.__version__, "threads": torch.get_num_threads(), "grads": grads}
    OUT.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
