"""Several scripts in one run (issue 16 item 2): one JSON line per script with "file",
the worst exit status, directories read as their *.txt scripts, --exit-zero."""

from __future__ import annotations

import json

from .samples import cli

A = "x = 2.0\ny = x * x\n"
B = "w = [1.0, 3.0]\ny = (w ** 3).sum()\n"
BAD = "x = 1.0\ny = x * q\n"
SYNTAX = "x = (\n"


def scripts(tmp_path, **texts):
    out = []
    for name, text in texts.items():
        (tmp_path / f"{name}.txt").write_text(text)
        out.append(str(tmp_path / f"{name}.txt"))
    return out


def lines(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


def test_grad_jsonl_gives_one_line_per_script_in_order(tmp_path):
    a, b = scripts(tmp_path, a=A, b=B)
    r = cli("grad", a, b, "--format", "jsonl")
    assert (r.exit_code, r.stderr) == (0, "")
    docs = lines(r.stdout)
    assert [d["file"] for d in docs] == [a, b]
    assert docs[0]["leaves"]["x"]["grad"] == 4.0 and docs[1]["leaves"]["w"]["grad"] == [3.0, 27.0]
    # the same documents as one --format json run each, "file" first
    single = json.loads(cli("grad", b, "--format", "json").stdout)
    assert docs[1] == {"file": b, **single}


def test_the_exit_status_is_the_worst_and_errors_are_lines_too(tmp_path):
    a, bad, syntax = scripts(tmp_path, a=A, bad=BAD, syntax=SYNTAX)
    r = cli("grad", a, bad, "--format", "jsonl")
    assert r.exit_code == 1
    ok, failed = lines(r.stdout)
    assert ok["file"] == a and "leaves" in ok
    assert failed == {
        "file": bad,
        "error": {
            "type": "NameError",
            "message": "name 'q' is not defined (a free variable: give it a value with --set q=VALUE, "
            "or see its formulas with --symbolic)",
            "file": bad,
            "line": 2,
            "column": 9,
        },
    }
    r = cli("check", bad, syntax, a, "--format", "jsonl")
    assert r.exit_code == 2
    assert [(d["file"], "error" in d, d.get("ok")) for d in lines(r.stdout)] == [
        (bad, True, None),
        (syntax, True, None),
        (a, False, True),
    ]


def test_check_and_graph_take_many_scripts_too(tmp_path):
    a, b = scripts(tmp_path, a=A, b=B)
    docs = lines(cli("check", a, b, "-f", "jsonl").stdout)
    assert [(d["file"], d["target"], d["ok"]) for d in docs] == [(a, "y", True), (b, "y", True)]
    docs = lines(cli("graph", a, b, "-f", "jsonl").stdout)
    assert [(d["file"], [n["op"] for n in d["nodes"]]) for d in docs] == [
        (a, ["leaf", "mul"]),
        (b, ["leaf", "pow", "sum"]),
    ]


def test_a_directory_is_its_txt_scripts_sorted(tmp_path):
    scripts(tmp_path, b=B, a=A)
    (tmp_path / "notes.md").write_text("not a script")
    r = cli("grad", str(tmp_path), "-f", "jsonl")
    assert [d["file"] for d in lines(r.stdout)] == [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]


def test_formats_for_people_head_each_script(tmp_path):
    a, b = scripts(tmp_path, a="print(1)\n", b="print(2)\n")
    r = cli("run", a, b)
    assert (r.exit_code, r.stdout) == (0, f"==> {a} <==\n1\n\n==> {b} <==\n2\n")


def test_exit_zero_reports_failures_but_exits_0(tmp_path):
    a, bad = scripts(tmp_path, a=A, bad=BAD)
    r = cli("grad", a, bad, "-f", "jsonl", "--exit-zero")
    assert r.exit_code == 0 and "error" in lines(r.stdout)[1]
    r = cli("check", "-e", "x = 0.3\ny = x * x * x", "--atol", "1e-14", "--rtol", "0", "--exit-zero")
    assert r.exit_code == 0 and "MISMATCH" in r.stdout and "GradcheckError" in r.stderr
    # a usage error is still one
    assert cli("grad", a, "--max-depth", "0", "--exit-zero").exit_code == 2


def test_one_batch_run_gives_what_separate_runs_give_on_every_sample():
    from .samples import SAMPLES

    files = [str(p.relative_to(p.parents[1])) for p in SAMPLES]
    batch = cli("grad", *files, "-f", "jsonl")
    docs = lines(batch.stdout)
    assert [d["file"] for d in docs] == files
    worst = 0
    for f, doc in zip(files, docs):
        single = cli("grad", f, "-f", "json")
        worst = max(worst, single.exit_code)
        if single.exit_code == 0:
            assert doc == {"file": f, **json.loads(single.stdout)}, f
        else:
            error = [json.loads(line) for line in single.stderr.splitlines() if '"error"' in line][-1]
            assert doc == {"file": f, **error}, f
    assert batch.exit_code == worst == 1
