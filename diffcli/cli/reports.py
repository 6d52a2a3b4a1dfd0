"""The check reports that CI systems read, written once all scripts are checked: JUnit
XML, and GitHub workflow annotations with a markdown step summary (appended to the file
$GITHUB_STEP_SUMMARY names, else written after the annotations)."""

from __future__ import annotations

import copy
import os

from ..outstream import write_document


def write_ci_report(fmt, results):
    from ..render import checkreport as R

    if fmt == "junit":
        write_document(R.junit_xml(results))
        return
    summary = R.github_summary(results, failing_subgraph)
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        write_document(R.github_annotations(results))
        with open(path, "a", encoding="utf-8") as f:
            f.write(summary)
    else:
        write_document(R.github_annotations(results) + "\n" + summary)


def failing_subgraph(report, leaves):
    """Mermaid text of the nodes between the target and the failing `leaves`."""
    from ..render.text import graph_mermaid
    from ..session import build_graph

    nodes = build_graph(report.run, report.target)
    keep = set()
    for n in nodes:  # inputs first: a node is kept if it is a failing leaf or uses a kept node
        if (n.tensor.grad_fn is None and n.name in leaves) or any(i in keep for i in n.inputs):
            keep.add(n.id)
    out = []
    for n in nodes:
        if n.id in keep:
            m = copy.copy(n)
            m.inputs = [i for i in n.inputs if i in keep]
            out.append(m)
    return graph_mermaid(out)
