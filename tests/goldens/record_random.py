"""Record PyTorch's CPU random streams into random.json (tests/engine/test_random.py).

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_random.py            # rewrites tests/goldens/random.json

Each stream seeds torch's default CPU generator, then makes a sequence of calls
(rand/randn/rand_like/randn_like on sizes around the 16-element normal_fill threshold,
float32 and float64, interleaved so the cached normal sample is exercised) and records
every result's bits: hex words for small results, a sha256 of the bytes for all. The
"default" dtype is PyTorch's float32 default (the engine holds those values in its
float64 default dtype). Recorded with the AVX2/AVX512 kernels (the float32 normal_fill
of any x86-64 CPU with AVX2); `cpu_capability` says which one ran.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import torch

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "random.json"

SIZES = [1, 2, 3, 5, 15, 16, 17, 31, 32, 33, 100, [5, 3], [2, 3, 4], [4, 4], [0], [], 4097]

# (seed, [(fn, shape, dtype, transpose_source)])
STREAMS = [
    (0, [("randn", [5, 3], "default", False), ("randn", [3], "default", False)]),
    (
        0,
        [
            ("randn", [3], "default", False),
            ("randn", [20], "default", False),
            ("rand", [2], "default", False),
            ("randn", [1], "default", False),
            ("randn", [1], "default", False),
            ("randn", [16], "float64", False),
            ("randn", [7], "float64", False),
            ("randn", [2], "float32", False),
        ],
    ),
    (42, [("rand", [s] if isinstance(s, int) else s, "float32", False) for s in SIZES]),
    (42, [("rand", [s] if isinstance(s, int) else s, "float64", False) for s in SIZES]),
    (7, [("randn", [s] if isinstance(s, int) else s, "float32", False) for s in SIZES]),
    (7, [("randn", [s] if isinstance(s, int) else s, "float64", False) for s in SIZES]),
    (
        123456789,
        [
            ("randn", [s] if isinstance(s, int) else s, d, False)
            for s in SIZES
            for d in ("default", "float64")
        ],
    ),
    (
        1,
        [
            ("randn_like", [5, 3], "default", False),
            ("randn_like", [4, 6], "default", True),
            ("rand_like", [4, 6], "default", True),
            ("randn_like", [2, 3], "default", True),
            ("randn_like", [2, 3, 4], "float64", False),
            ("rand_like", [3], "float64", False),
            ("randn", [3], "default", False),
        ],
    ),
    (-1, [("rand", [3], "default", False), ("randn", [3], "default", False)]),
    (2**63, [("rand", [3], "default", False), ("randn", [17], "default", False)]),
    (2**64 - 1, [("rand", [3], "float64", False)]),
    (2**32 + 5, [("randn", [40], "default", False)]),
    (67280421310721, [("randn", [5, 3], "default", False), ("randn", [3], "default", False)]),
]

DTYPES = {"default": None, "float32": torch.float32, "float64": torch.float64}


def call(fn, shape, dtype, transpose):
    dt = DTYPES[dtype]
    kw = {} if dt is None else {"dtype": dt}
    if fn in ("rand", "randn"):
        return getattr(torch, fn)(tuple(shape), **kw)
    src = torch.zeros(tuple(shape[::-1]) if transpose else tuple(shape))
    if transpose:
        src = src.transpose(0, 1)
    return getattr(torch, fn)(src, **kw)


def record_value(t):
    a = t.contiguous().numpy().reshape(-1)
    words = a.view("<u4" if a.dtype.itemsize == 4 else "<u8")
    rec = {
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "stride": list(t.stride()),
        "sha256": hashlib.sha256(a.astype(a.dtype.newbyteorder("<")).tobytes()).hexdigest(),
    }
    if a.size <= 100:
        rec["bits"] = [format(int(w), "x") for w in words]
    return rec


def main():
    streams = []
    for seed, calls in STREAMS:
        torch.manual_seed(seed)
        results = [record_value(call(*c)) for c in calls]
        streams.append(
            {
                "seed": str(seed),
                "initial_seed": str(torch.initial_seed()),
                "calls": [list(c) for c in calls],
                "results": results,
            }
        )
    doc = {
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "streams": streams,
    }
    # one line per call and per result: a diff of a re-recording stays readable
    lines = [
        "{",
        f' "torch": {json.dumps(doc["torch"])},',
        f' "cpu_capability": {json.dumps(doc["cpu_capability"])},',
        ' "streams": [',
    ]
    for i, st in enumerate(streams):
        lines.append(
            f'  {{"seed": {json.dumps(st["seed"])}, "initial_seed": {json.dumps(st["initial_seed"])},'
        )
        lines.append('   "calls": [' + ",\n    ".join(json.dumps(c) for c in st["calls"]) + "],")
        lines.append(
            '   "results": ['
            + ",\n    ".join(json.dumps(r) for r in st["results"])
            + "]}"
            + ("," if i < len(streams) - 1 else "")
        )
    lines += [" ]", "}"]
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == doc
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(streams)} streams)")


if __name__ == "__main__":
    main()
