"""render/grid.py: the plain-text table layout diffcli printed through rich, done with
string operations (rich's Table took ~2 ms a row: a 20,000-node graph took 37 s)."""

import io

import pytest

from diffcli.render import grid


def test_columns_are_as_wide_as_their_widest_cell_and_text_is_not_markup():
    got = grid.table(
        ["id", "name", "value"],
        [["0", "x", "tensor([nan, 1.])"], ["1", "", "tensor([[1., 2.],\n        [3., 4.]])"]],
    )
    assert got == (
        "id   name   value\n"
        "──────────────────────────────\n"
        "0    x      tensor([nan, 1.])\n"  # rich markup made this `tensor()`
        "1           tensor([[1., 2.],\n"
        "                    [3., 4.]])\n"
    )


def test_too_wide_shrinks_the_widest_columns_wraps_at_spaces_and_folds_long_words():
    got = grid.table(
        ["id", "next_functions", "inputs"],
        [["7", "AccumulateGrad, AccumulateGrad, MulBackward0", "0,1,2,3,4,5,6,7,8,9,10,11"]],
        max_width=30,
    )
    assert got == (
        "     next_funct\n"  # the header aligns at the bottom
        "id   ions         inputs\n"
        "──────────────────────────────\n"
        "7    Accumulate   0,1,2,3,4,5,\n"
        "     Grad,        6,7,8,9,10,1\n"
        "     Accumulate   1\n"
        "     Grad,\n"
        "     MulBackwar\n"
        "     d0\n"
    )


def test_title_wraps_to_the_table_and_wide_characters_take_two_cells():
    got = grid.table(["leaf", "result"], [["α日本", "ok"]], title="finite-difference check of p")
    assert got == "finite-differe\nnce check of p\nleaf    result\n──────────────\nα日本   ok\n"


def test_styled_header_is_bold_and_title_italic_without_trailing_spaces():
    assert grid.table(["leaf", "result"], [["a", "ok"]], title="t", styled=True) == (
        "\x1b[3mt\x1b[0m\n\x1b[1mleaf\x1b[0m   \x1b[1mresult\x1b[0m\n─────────────\na      ok\n"
    )


def test_no_rows_and_no_room():
    assert grid.table(["id", "name"], []) == "id   name\n─────────\n"
    assert grid.table(["a", "b", "c"], [["x", "y", "z"]], max_width=3) == "\n───\n\n"


def test_a_huge_cell_costs_time_linear_in_its_size():
    ids = ",".join(map(str, range(20000)))  # one word: folded
    names = ", ".join(["AccumulateGrad"] * 20000)  # many words: wrapped
    out = grid.table(["inputs", "next_functions"], [[ids, names]], max_width=81)
    lines = out.splitlines()
    assert max(map(len, lines)) == 81
    assert "".join(line[:40].strip() for line in lines[2:]) == ids
    assert sum(line[41:].count("AccumulateGrad") for line in lines[2:]) == 20000


# --- the same text as rich (what diffcli printed before) ---------------------------

rich = pytest.importorskip("rich")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _rich_table(columns, rows, width, title=None):
    """The table as diffcli drew it with rich (Text cells: no markup)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    con = Console(
        file=io.StringIO(), no_color=True, highlight=False, width=width, force_terminal=False, soft_wrap=False
    )
    t = Table(
        title=Text(title) if title else None,
        box=box.SIMPLE_HEAD,
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    for c in columns:
        t.add_column(Text(c), overflow="fold")
    for r in rows:
        t.add_row(*[Text(c) for c in r])
    with con.capture() as cap:
        con.print(t)
    return "\n".join(line.rstrip() for line in cap.get().splitlines()) + "\n"


_text = st.text(alphabet="ab c,.[]()-\n0123456789    α日", max_size=60)


@st.composite
def _tables(draw, fits):
    n = draw(st.integers(1, 6))
    columns = draw(
        st.lists(st.sampled_from(["id", "name", "next_functions", "a b c", "value"]), min_size=n, max_size=n)
    )
    rows = draw(st.lists(st.lists(_text, min_size=n, max_size=n), max_size=4))
    title = draw(st.none() | _text)
    width = 400 if fits else draw(st.sampled_from([8, 15, 30, 50, 80]))
    return columns, rows, width, title


@settings(derandomize=True, deadline=None, database=None, max_examples=300)
@given(_tables(fits=True))
def test_same_text_as_rich_when_the_table_fits(case):
    columns, rows, width, title = case
    assert grid.table(columns, rows, width, title) == _rich_table(columns, rows, width, title)


def _rich_version():
    from importlib.metadata import version

    return version("rich")


@pytest.mark.skipif(
    not _rich_version().startswith("15."),
    reason="wrapping follows rich 15's rules; other versions wrap differently",
)
@settings(derandomize=True, deadline=None, database=None, max_examples=300)
@given(_tables(fits=False))
def test_same_text_as_rich_15_when_it_must_wrap(case):
    columns, rows, width, title = case
    assert grid.table(columns, rows, width, title) == _rich_table(columns, rows, width, title)
