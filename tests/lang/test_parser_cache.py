"""The parser keeps no cache on disk (issue 9, findings 1-3).

Earlier versions kept Lark's parser (a pickle) and the lean driver's tables (marshal)
in ``$XDG_CACHE_HOME/diffcli`` or ``~/.cache/diffcli``: a planted pickle ran as the
victim, a symlink there made a run overwrite a file of theirs, tampered tables changed
what a script means, and a FIFO or ``/dev/zero`` there blocked a run or ate its memory.
Now the tables ship inside the package and Lark is built in memory, so whatever sits
at those paths is never opened. Each test runs the CLI in a child process with HOME
and XDG_CACHE_HOME in a temporary folder, with and without such files planted there.
"""

from __future__ import annotations

import marshal
import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from diffcli.lang import fastparse, larkparse
from diffcli.lang import parse as parse_module

ROOT = Path(__file__).resolve().parents[2]
OLD_NAMES = ("diffscript-lalr.cache", "diffscript-fast.marshal")
SCRIPTS = {
    "ok.txt": "x = 2.0\ny = x * 3\nprint(y)\n",
    "syntax.txt": "x = (1 +\ny = 2\n",  # Lark words this error: it is built on this run
    "assert.txt": "assert False, 'stop'\nprint('after')\n",
}
EXPECTED = {  # (exit code, stdout, the start of stderr)
    "ok.txt": (0, "tensor(6., grad_fn=<MulBackward0>)\n", ""),
    "syntax.txt": (2, "", "error: syntax.txt:2:3: SyntaxError: unexpected '='"),
    "assert.txt": (1, "", "error: assert.txt:1:8: AssertionError: stop"),
}


def _home(tmp_path: Path) -> dict:
    """HOME and XDG_CACHE_HOME in `tmp_path`, made if need be."""
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    for folder in (home / ".cache" / "diffcli", xdg / "diffcli"):
        folder.mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), "XDG_CACHE_HOME": str(xdg)}


def _cache_folders(env: dict) -> list[Path]:
    return [Path(env["HOME"]) / ".cache" / "diffcli", Path(env["XDG_CACHE_HOME"]) / "diffcli"]


def _run(tmp_path: Path, name: str, env: dict, drop_xdg: bool = False):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / name).write_text(SCRIPTS[name])
    full = {**os.environ, **env}
    full.pop("DIFFCLI_NO_CACHE", None)
    if drop_xdg:  # then the old code used ~/.cache
        full.pop("XDG_CACHE_HOME")
    result = subprocess.run(
        [sys.executable, "-m", "diffcli", "run", name],
        cwd=work,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )  # a hang guard only
    return result.returncode, result.stdout, result.stderr


def _check(result, name):
    code, out, err = EXPECTED[name]
    assert (result[0], result[1]) == (code, out), result
    assert result[2].startswith(err), result


def _tree(root: Path) -> dict:
    """Every path under `root` with what it is: a link's target, a file's bytes and mtime."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            out[str(path)] = ("link", os.readlink(path))
        elif path.is_file():
            out[str(path)] = ("file", path.read_bytes(), path.stat().st_mtime_ns)
        else:
            out[str(path)] = ("other", path.stat().st_mode)
    return out


# --------------------------------------------------------------- the payloads


def _pickle_payload(marker: Path) -> bytes:
    """A Lark cache file as Lark 1.x reads it: a hash line, then a pickle that Lark
    unpickles before it compares anything. Unpickling it makes the folder `marker`."""

    class Payload:
        def __reduce__(self):
            return os.mkdir, (str(marker),)

    return b"0" * 64 + b"\n" + pickle.dumps(Payload()) + pickle.dumps({})


def _tampered_marshal() -> bytes:
    """The old driver's cache file, as it wrote it, with a valid key and CRC, whose
    tables reduce an `assert` statement as a `pass`: `assert False` would do nothing."""
    from importlib.machinery import PathFinder

    tables = fastparse.plan(larkparse._parser().lark, parse_module.MAX_BRACKET_DEPTH)
    rules = [list(rule) for rule in tables["rules"]]
    assert any(rule[3] == "assert_stmt" for rule in rules)
    for rule in rules:
        if rule[3] == "assert_stmt":
            rule[3] = "pass_stmt"
    tables["rules"] = [tuple(rule) for rule in rules]
    origin = PathFinder.find_spec("lark").origin
    stat = os.stat(origin)
    key = (1, parse_module.grammar_text(), (origin, stat.st_size, stat.st_mtime_ns))
    blob = marshal.dumps(tables)
    return marshal.dumps((key, zlib.crc32(blob), blob))


def _plant_payloads(env: dict, marker: Path) -> None:
    for folder in _cache_folders(env):
        (folder / "diffscript-lalr.cache").write_bytes(_pickle_payload(marker))
        (folder / "diffscript-fast.marshal").write_bytes(_tampered_marshal())


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict:
    """What each script does with nothing planted."""
    tmp_path = tmp_path_factory.mktemp("clean")
    runs = {name: _run(tmp_path, name, _home(tmp_path)) for name in SCRIPTS}
    for name, result in runs.items():
        _check(result, name)
    return runs


@pytest.mark.parametrize("drop_xdg", [False, True], ids=["XDG_CACHE_HOME", "HOME"])
def test_a_planted_pickle_and_tampered_tables_are_never_read(tmp_path, clean, drop_xdg):
    env = _home(tmp_path / "planted")
    marker = tmp_path / "payload-ran"
    _plant_payloads(env, marker)
    before = _tree(tmp_path / "planted")
    for name in SCRIPTS:
        assert _run(tmp_path / "planted", name, env, drop_xdg) == clean[name]
        assert not marker.exists(), "the planted pickle was unpickled"
    after = _tree(tmp_path / "planted")
    work = str(tmp_path / "planted" / "work")
    assert {k: v for k, v in after.items() if not k.startswith(work)} == before  # untouched


# --------------------------------------------------------------- symlinks


def _plant_links(env: dict, victim: Path) -> list[Path]:
    """Symlinks to `victim` at the old cache paths, and at the old temporary file's
    path for the process ids the next runs are likely to get."""
    links = []
    first = os.getpid()
    for folder in _cache_folders(env):
        names = list(OLD_NAMES) + [f"diffscript-fast.marshal.{pid}.tmp" for pid in range(first, first + 400)]
        for name in names:
            (folder / name).symlink_to(victim)
            links.append(folder / name)
    return links


@pytest.mark.parametrize("drop_xdg", [False, True], ids=["XDG_CACHE_HOME", "HOME"])
def test_symlinks_at_the_old_cache_paths_do_not_clobber_their_targets(tmp_path, drop_xdg):
    env = _home(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own file\n")
    stamp = victim.stat().st_mtime_ns
    links = _plant_links(env, victim)
    for name in SCRIPTS:
        _check(_run(tmp_path, name, env, drop_xdg), name)
    assert victim.read_text() == "the victim's own file\n"
    assert victim.stat().st_mtime_ns == stamp
    assert all(link.is_symlink() and os.readlink(link) == str(victim) for link in links)


# --------------------------------------------------------------- FIFOs and /dev/zero


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_dev_zero_at_the_old_cache_paths_is_not_opened(tmp_path, kind):
    env = _home(tmp_path)
    for folder in _cache_folders(env):
        for name in OLD_NAMES:
            if kind == "fifo":
                os.mkfifo(folder / name)  # opening it for reading would block
            else:
                (folder / name).symlink_to("/dev/zero")  # reading it would never end
    # the old code read its tables on every run, and Lark's file on a syntax error
    for name in ("ok.txt", "syntax.txt"):
        for drop_xdg in (False, True):
            _check(_run(tmp_path, name, env, drop_xdg), name)


# --------------------------------------------------------------- nothing written


@pytest.mark.parametrize("drop_xdg", [False, True], ids=["XDG_CACHE_HOME", "HOME"])
def test_a_run_writes_nothing_under_home_or_the_cache_folder(tmp_path, drop_xdg):
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    xdg.mkdir()
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(xdg)}
    for name in SCRIPTS:
        _check(_run(tmp_path, name, env, drop_xdg), name)
    assert list(home.iterdir()) == [] and list(xdg.iterdir()) == []


def test_diffcli_no_cache_is_still_accepted(tmp_path):
    env = {**_home(tmp_path), "DIFFCLI_NO_CACHE": "1"}
    work = tmp_path / "work"
    work.mkdir()
    (work / "ok.txt").write_text(SCRIPTS["ok.txt"])
    result = subprocess.run(
        [sys.executable, "-m", "diffcli", "run", "ok.txt"],
        cwd=work,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, EXPECTED["ok.txt"][1], "")
