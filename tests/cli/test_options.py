"""Each option is declared once (issue 10 item 3): one row in diffcli/cli/options.py, from
which the Typer signature, the fast reader's table and the run's Limits all come."""

from __future__ import annotations

import pytest
from typer.main import get_command

from diffcli import cli
from diffcli.cli import options as O
from diffcli.cli.running import _options, _Usage


def test_every_command_has_every_limit_row_and_typer_shows_it():
    group = get_command(cli.typer_app())
    for name, fn in cli.COMMANDS.items():
        assert all(row in fn.options for row in O.LIMITS), name
        params = {p.name: p for p in group.commands[name].params}
        for row in O.LIMITS:
            assert params[row.name].default == row.default and params[row.name].help == row.help
            assert cli.FAST_OPTIONS[name][row.names[0]][0] == row.name


@pytest.mark.parametrize("row", O.LIMITS, ids=lambda row: row.names[0])
def test_every_limit_row_reaches_the_runs_limits_by_its_name(row):
    limits = _options([], **{row.name: row.default + 7}).limits
    assert getattr(limits, row.name) == row.default + 7
    with pytest.raises(_Usage, match=f"^{row.names[0]} must be at least {row.least}"):
        _options([], **{row.name: row.least - 1})


def test_option_names_are_unique_per_command():
    for name, fn in cli.COMMANDS.items():
        spellings = [s for row in fn.options for s in row.names]
        assert len(spellings) == len(set(spellings)), name
        assert len({row.name for row in fn.options}) == len(fn.options), name
