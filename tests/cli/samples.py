"""Running the samples through the CLI in process, for the pinned-output tests.

A sample may carry a line `# args: ...` with extra command-line arguments (e.g. --set).
Regenerate the pinned outputs after a deliberate change with
`python -m tests.cli.samples` and review the diff.
"""

from __future__ import annotations

import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.txt"))
EXPECTED = Path(__file__).resolve().parent / "expected"
COMMANDS = ("run", "grad", "graph", "jacobian", "hessian")


def sample_args(path: Path) -> list[str]:
    for line in path.read_text().splitlines():
        if line.startswith("# args:"):
            return shlex.split(line[len("# args:") :])
    return []


def invoke(args: list[str], stdin: str | None = None):
    from typer.testing import CliRunner

    from diffcli.cli import app

    result = CliRunner().invoke(app, args, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def cli(*args, input=None):
    """Run `diffcli ARGS` in process: no Python exception may escape, no traceback printed."""
    from typer.testing import CliRunner

    from diffcli.cli import app

    result = CliRunner().invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.stderr
    return result


def render(path: Path, command: str) -> str:
    rel = path.relative_to(ROOT).as_posix()
    code, out, err = invoke([command, rel, *sample_args(path)])
    return f"exit: {code}\n--- stdout\n{out}--- stderr\n{err}"


def expected_path(path: Path, command: str) -> Path:
    return EXPECTED / f"{path.stem}.{command}.txt"


if __name__ == "__main__":
    import os

    os.chdir(ROOT)
    EXPECTED.mkdir(exist_ok=True)
    for p in SAMPLES:
        for c in COMMANDS:
            expected_path(p, c).write_text(render(p, c))
    print(f"wrote {len(SAMPLES) * len(COMMANDS)} files to {EXPECTED}")
