"""The lean driver's parse tables, shipped inside the package as plain data.

``diffscript-tables.json`` beside this module holds what `fastparse.plan` builds from
``grammar/diffscript.lark`` with Lark, under a key: the SHA-256 of the grammar text it
was built from, the driver's `fastparse.PLAN_FORMAT` and the bracket-nesting cap. It is
JSON, read by a data parser: nothing in it can run. `load` returns the tables when
their key matches the grammar shipped; otherwise (a developer edited the grammar and did
not regenerate) None, and `parse` builds the tables from Lark in memory for that
process. Nothing is ever written at run time: there is no cache folder.

Regenerate after editing the grammar (the tests fail until then):

    python -m diffcli.lang.parsetables          # writes diffscript-tables.json
    python -m diffcli.lang.parsetables --check  # exit 1 if the file is stale
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

from diffcli.lang import fastparse
from diffcli.lang.grammartext import MAX_BRACKET_DEPTH, grammar_text

__all__ = ["TABLES_FILE", "document", "key", "load", "main"]

TABLES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "diffscript-tables.json")
_MAX_FILE_BYTES = 4 << 20  # the file is about 100 KB; anything far larger is not ours


def key(grammar: str, max_depth: int) -> dict:
    """What the tables must have been built for."""
    return {
        "format": fastparse.PLAN_FORMAT,
        "max_depth": max_depth,
        "grammar_sha256": hashlib.sha256(grammar.encode("utf-8")).hexdigest(),
    }


def load(grammar: str, max_depth: int, path: str | None = None) -> dict | None:
    """The tables shipped (in `path`, by default `TABLES_FILE`) for `grammar`, or None
    when the file is missing, unreadable, not what `document` writes, or built for
    another grammar, driver or cap."""
    try:
        with open(path or TABLES_FILE, "rb") as f:
            data = f.read(_MAX_FILE_BYTES + 1)
        if len(data) > _MAX_FILE_BYTES:
            return None
        doc = json.loads(data)
    except (OSError, ValueError):  # ValueError: bad JSON or bad UTF-8
        return None
    if not isinstance(doc, dict) or doc.get("key") != key(grammar, max_depth):
        return None
    tables = doc.get("tables")
    return tables if isinstance(tables, dict) else None


def document(lark, grammar: str, max_depth: int) -> dict:
    """The file's contents for the Lark parser `lark` built from `grammar`: the tables as
    JSON gives them back (lists for tuples), their key and the Lark that built them."""
    import lark as lark_package

    tables = json.loads(json.dumps(fastparse.plan(lark, max_depth)))
    return {"key": key(grammar, max_depth), "lark_version": lark_package.__version__, "tables": tables}


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=0, sort_keys=True, ensure_ascii=True) + "\n"


def _current() -> str:
    from diffcli.lang import larkparse  # (Lark: imported only to regenerate the file)

    return dumps(document(larkparse._parser().lark, grammar_text(), MAX_BRACKET_DEPTH))


def _comparable(text: str):
    """What `--check` compares. The file is built with Python 3.11 or later, whose `re`
    knows the terminals' possessive quantifiers; before 3.11 Lark is given greedy ones and
    orders the terminals differently, so there the check compares the key (the grammar's
    SHA-256, the driver's format, the nesting cap) that `load` trusts."""
    return json.loads(text)["key"] if fastparse._NEEDS_GREEDY else text


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--check"]):
        print("usage: python -m diffcli.lang.parsetables [--check]", file=sys.stderr)
        return 2
    text = _current()
    if argv == ["--check"]:
        try:
            with open(TABLES_FILE, encoding="utf-8") as f:
                same = _comparable(f.read()) == _comparable(text)
        except (OSError, ValueError):
            same = False
        print(f"{TABLES_FILE}: {'up to date' if same else 'stale: run python -m diffcli.lang.parsetables'}")
        return 0 if same else 1
    temporary = TABLES_FILE + ".new"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temporary, TABLES_FILE)
    print(f"wrote {TABLES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
