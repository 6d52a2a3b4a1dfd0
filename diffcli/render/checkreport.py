"""The reports of `diffcli check`: a table for people, JSON, JUnit XML and GitHub
workflow annotations (with a markdown step summary). Each takes CheckReports
(diffcli/checks/scripts.py); a failing check explains its worst element."""

from __future__ import annotations

import re
import sys
from xml.sax.saxutils import quoteattr

from .jsonout import dumps

_NOT_DIFFERENTIATED = "analytic and finite-difference gradients"


def where(report, row, entry=None):
    """The worst element's name: `x`, `x[1]`, `y[0]/x[1]` (a Jacobian entry), `x[0],x[1]`
    (a Hessian entry)."""
    e = entry or row.worst

    def at(name, index):
        return name + (f"[{', '.join(map(str, index))}]" if index else "")

    if e is None:
        return row.name
    if row.order == 2:
        return f"{at(row.name, e.out)},{at(row.name, e.index)}"
    if e.out or report.jacobian:
        return f"{at(report.target, e.out)}/{at(row.name, e.index)}"
    return at(row.name, e.index)


def _num(v, digits=6):
    """A value: 6 significant digits for the table, every digit (repr) for explanations."""
    return repr(float(v)) if digits is None else f"{v:.{digits}g}"


def explain(report, row):
    """One line: why the row is not plainly ok (empty if it is)."""
    e = row.worst
    if row.result == "ok" or e is None:
        return ""
    head = (
        f"{row.name} (order {row.order}): {where(report, row)}: analytic {_num(e.analytic, None)}, "
        f"numeric {_num(e.numeric, None)}"
    )
    if row.result == "kink":
        left, right = e.one_sided
        return (
            f"{head}: kink: one-sided differences {_num(left)} (left) and {_num(right)} (right); "
            "the analytic value lies between them"
        )
    return (
        f"{head}, abs error {e.abs_error:.3e} > tolerance {e.tolerance:.3e} "
        f"(finite-difference error estimate {e.estimate:.3e}): {e.label}"
    )


def settings_text(row):
    s = row.settings
    return f"{s.dtype}: eps {s.eps:g}, atol {s.atol:g}, rtol {s.rtol:g}"


def check_table(report, file=None):
    from .table import _print

    rows = []
    for r in report.rows:
        e = r.worst
        if e is None:  # a leaf without elements (torch.ones(0)): nothing was compared
            numbers = ["-"] * 6
        else:
            numbers = [
                _num(e.analytic),
                _num(e.numeric),
                f"{e.abs_error:.3e}",
                f"{e.rel_error:.3e}",
                f"{e.tolerance:.3e}",
                f"{e.estimate:.3e}",
            ]
        rows.append([r.name, str(r.order), where(report, r), *numbers, r.verdict])
    used = dict.fromkeys(f"order {r.order}: {settings_text(r)}" for r in report.rows)
    _print(
        [
            "leaf",
            "order",
            "worst",
            "analytic",
            "numeric",
            "abs error",
            "rel error",
            "tolerance",
            "fd error",
            "result",
        ],
        rows,
        file,
        f"finite-difference check of {report.target}",
    )
    notes = [explain(report, r) for r in report.rows]
    text = "".join(f"{u}\n" for u in used) + "".join(f"note: {n}\n" for n in notes if n)
    (file or sys.stdout).write(text)


def check_doc(report):
    """The JSON record of one check."""
    return {
        "target": report.target,
        "ok": report.ok,
        "leaves": [
            {
                "name": r.name,
                "order": r.order,
                "max_abs_error": r.max_abs,
                "max_rel_error": r.max_rel,
                "ok": r.ok,
                "result": r.result,
                "label": r.label,
                "worst": r.worst.as_dict() if r.worst is not None else None,
                "settings": r.settings.as_dict(),
                "analytic": r.analytic,
                "numeric": r.numeric,
            }
            for r in report.rows
        ],
    }


def check_json(report) -> str:
    return dumps(check_doc(report))


def failures(report):
    """The failing rows' names, as the error line says them."""
    return [f"{r.name} (order {r.order})" for r in report.rows if not r.ok]


# --- JUnit XML ---------------------------------------------------------------------------
def junit_timestamp():
    """Now (UTC, no time zone, as the format asks), or SOURCE_DATE_EPOCH's time where it is
    set (reproducible reports)."""
    import datetime
    import os

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = (
        datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
        if epoch.isdigit()
        else datetime.datetime.now(datetime.timezone.utc)
    )
    return when.strftime("%Y-%m-%dT%H:%M:%S")


def junit_xml(results, timestamp=None, hostname="localhost") -> str:
    """`results`: [(filename, CheckReport or None, error text or None)]. The JUnit XML of
    Ant's JUnit task: a testsuite per script, a testcase per leaf and order (a failure
    with the numbers); a script that could not be checked is one testcase with an
    <error>. Kinks and the settings used are the suite's system-out."""
    stamp = timestamp or junit_timestamp()
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for number, (filename, report, error) in enumerate(results):
        cases, notes = [], []
        cls = quoteattr(filename)
        if report is None:
            cases.append(
                f'    <testcase name="check" classname={cls} time="0">\n'
                f'      <error message={quoteattr(error)} type="ScriptError">{_text(error)}</error>\n'
                "    </testcase>"
            )
            n, f, e = 1, 0, 1
        else:
            n, f, e = len(report.rows), sum(not r.ok for r in report.rows), 0
            for r in report.rows:
                name = quoteattr(f"{r.name} (order {r.order})")
                notes.append(
                    f"{r.name} (order {r.order}): {r.verdict}, worst {where(report, r)} ({settings_text(r)})"
                )
                if r.result == "kink":
                    notes.append(explain(report, r))
                if r.ok:
                    cases.append(f'    <testcase name={name} classname={cls} time="0"/>')
                else:
                    msg = explain(report, r)
                    cases.append(
                        f'    <testcase name={name} classname={cls} time="0">\n'
                        f'      <failure message={quoteattr(msg)} type="GradcheckError">{_text(msg)}\n'
                        f"{_text(settings_text(r))}</failure>\n    </testcase>"
                    )
        system_out = "".join(line + "\n" for line in notes)
        out.append(
            f'  <testsuite package="diffcli" id="{number}" name={quoteattr(filename or "script")} '
            f'timestamp="{stamp}" hostname={quoteattr(hostname)} tests="{n}" failures="{f}" '
            f'errors="{e}" skipped="0" time="0">\n    <properties/>\n'
            + "\n".join(cases)
            + f"\n    <system-out>{_text(system_out)}</system-out>\n    <system-err/>\n  </testsuite>"
        )
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def _text(s):
    from xml.sax.saxutils import escape

    return escape(s)


# --- GitHub workflow annotations -----------------------------------------------------------
def _escape_data(s):
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s):
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def line_of(source_text, name, last=False):
    """The line of the script that assigns `name` (its first assignment; the last one for
    the target), 1 if none is found."""
    lines = [
        i
        for i, text in enumerate(source_text.splitlines(), 1)
        if re.match(rf"\s*{re.escape(name)}\s*(:[^=]*)?=(?!=)", text)
    ]
    return (lines[-1] if last else lines[0]) if lines else 1


def github_annotations(results) -> str:
    """::error/::notice workflow commands, one per failing (or kinked) row, with file and
    line (where the leaf is assigned); a script that could not run is one ::error."""
    out = []
    for filename, report, error in results:
        if report is None:
            out.append(
                f"::error file={_escape_property(filename)},title=diffcli check::{_escape_data(error)}"
            )
            continue
        for r in report.rows:
            if r.result == "ok":
                continue
            kind = "error" if not r.ok else "notice"
            line = line_of(report.source.text, r.name)
            title = f"gradcheck {report.target}: {r.name} (order {r.order}) {r.verdict}"
            out.append(
                f"::{kind} file={_escape_property(filename)},line={line},"
                f"title={_escape_property(title)}::{_escape_data(explain(report, r))}"
            )
    return "".join(line + "\n" for line in out)


def github_summary(results, subgraph) -> str:
    """The markdown step summary: a table of the scripts' rows, and for each failing
    check a Mermaid drawing of the subgraph between the target and its failing leaves
    (`subgraph(report, names)` gives the Mermaid text)."""
    out = [
        "## diffcli check",
        "",
        "| script | leaf | order | worst | abs error | tolerance | result |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for filename, report, error in results:
        if report is None:
            out.append(f"| `{filename}` | | | | | | error: {error} |")
            continue
        for r in report.rows:
            e = r.worst  # None: a leaf without elements, nothing compared
            numbers = "- | -" if e is None else f"{e.abs_error:.3e} | {e.tolerance:.3e}"
            out.append(
                f"| `{filename}` | `{r.name}` | {r.order} | `{where(report, r)}` | {numbers} | {r.verdict} |"
            )
    for filename, report, _ in results:
        if report is None or report.ok:
            continue
        bad = [r.name for r in report.rows if not r.ok]
        out += [
            "",
            f"### `{filename}`: `{report.target}` against {', '.join(f'`{b}`' for b in bad)}",
            "",
            "```mermaid",
            subgraph(report, bad).rstrip("\n"),
            "```",
        ]
    return "\n".join(out) + "\n"
