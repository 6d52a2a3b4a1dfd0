"""Record what PyTorch prints for every PyTorch-flavour sample (samples/*.txt that import
torch) into samples.json, for tests/cli/test_samples.py.

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_samples.py           # rewrites tests/goldens/samples.json

Each sample runs as its own process (`python3 SAMPLE`, PyTorch's float32 default dtype,
as a pasted snippet would); recorded: stdout with object addresses removed
(`<MulBackward0 object at 0x...>` prints as `<MulBackward0 object>` in diffcli, by the
spec), the exit code and the last line of stderr (the error, if any).
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = HERE / "samples.json"
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def main() -> int:
    import torch

    records = []
    for path in sorted((ROOT / "samples").glob("*.txt")):
        text = path.read_text()
        if not re.search(r"^\s*(import torch|from torch)", text, re.M):
            continue  # math flavour: not a PyTorch program
        proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
        records.append(
            {
                "sample": path.name,
                "returncode": proc.returncode,
                "stdout": ADDRESS.sub(">", proc.stdout),
                "error": proc.stderr.strip().splitlines()[-1] if proc.returncode else None,
            }
        )
    OUT.write_text(json.dumps({"torch": torch.__version__, "samples": records}, indent=1) + "\n")
    print(f"wrote {len(records)} samples to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
