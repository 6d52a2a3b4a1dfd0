"""Each option is declared once (issue 10 item 3): one row in diffcli/cli/options.py, from
which the Typer signature and the fast reader's table come; a cap is one row of
diffcli/lang/caps.py, from which both the `--max-*` option and the run's Limits come."""

from __future__ import annotations

import pytest
from typer.main import get_command

from diffcli import cli
from diffcli.cli import options as O
from diffcli.cli.running import _options, _Usage
from diffcli.lang.caps import CAPS
from diffcli.lang.limits import Limits


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


def test_each_cap_row_is_one_cli_option_and_one_limits_attribute():
    assert [(o.names, o.default, o.help, o.metavar, o.least) for o in O.LIMITS] == [
        (("--" + name.replace("_", "-"),), default, help, metavar, least)
        for name, default, help, metavar, least in CAPS
    ]
    assert {name: getattr(Limits(), name) for name, *_ in CAPS} == {
        name: default for name, default, *_ in CAPS
    }
    with pytest.raises(TypeError, match="unknown caps"):
        Limits(max_nothing=1)
