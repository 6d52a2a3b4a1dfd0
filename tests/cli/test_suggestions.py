"""Issue 9, finding 11: "did you mean" for a name a script got wrong, in Python's words
(3.12's for names and attributes, 3.13's for keywords), and nothing where no name is close."""

from __future__ import annotations

import pytest

from diffcli.lang.suggest import closest

from .samples import cli


@pytest.mark.parametrize(
    "script, expected",
    [
        (
            "x = ones(2)\ny = sni(x)",
            "error: <expr>:2:5: NameError: name 'sni' is not defined. Did you mean: 'sin'?\n"
            "    y = sni(x)\n        ^\n",
        ),
        (
            "x = ones(2)\ny = sigmod(x)",
            "error: <expr>:2:5: NameError: name 'sigmod' is not defined. Did you mean: 'sigmoid'?\n"
            "    y = sigmod(x)\n        ^\n",
        ),
        (
            "x = ones(2)\ny = torch.sine(x)",
            "error: <expr>:2:11: AttributeError: module 'torch' has no attribute 'sine'. Did you mean: 'sin'?\n"
            "    y = torch.sine(x)\n              ^\n",
        ),
        (
            "x = ones(2, requires_grad=True)\nx.sum().backwards()",
            "error: <expr>:2:9: AttributeError: 'Tensor' object has no attribute 'backwards'. Did you mean: "
            "'backward'?\n    x.sum().backwards()\n            ^\n",
        ),
        (
            "x = ones(2)\nprint(x.requires_gard)",
            "error: <expr>:2:9: AttributeError: 'Tensor' object has no attribute 'requires_gard'. Did you "
            "mean: 'requires_grad'?\n    print(x.requires_gard)\n            ^\n",
        ),
        (
            "x = tensor(2.0, require_grad=True)",
            "error: <expr>:1:5: TypeError: tensor() got an unexpected keyword argument 'require_grad'. Did "
            "you mean 'requires_grad'?\n    x = tensor(2.0, require_grad=True)\n        ^\n",
        ),
        (
            "def f(alpha=1.0):\n    return alpha\ny = f(alhpa=2.0)",
            "error: <expr>:3:5: TypeError: f() got an unexpected keyword argument 'alhpa'. Did you mean "
            "'alpha'?\n    y = f(alhpa=2.0)\n        ^\n",
        ),
        (
            "weight = ones(2)\ny = wieght * 2",  # a script variable; still a possible free variable
            "error: <expr>:2:5: NameError: name 'wieght' is not defined (a free variable: give it a value "
            "with --set wieght=VALUE, or see its formulas with --symbolic). Did you mean: 'weight'?\n    y = wieght * 2\n        ^\n",
        ),
        (
            "xs = []\nxs.apend(1)",
            "error: <expr>:2:4: AttributeError: 'list' object has no attribute 'apend'. Did you mean: "
            "'append'?\n    xs.apend(1)\n       ^\n",
        ),
    ],
)
def test_a_misspelt_name_gets_the_closest_name_in_reach(script, expected):
    r = cli("run", "-e", script)
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", expected)


@pytest.mark.parametrize(
    "script, expected",
    [
        ("y = open('x')", "name 'open' is not defined (diffcli scripts have no such function)"),
        (
            "y = x * q",
            "name 'x' is not defined (free variables x, q have no value: give them values with --set x=VALUE "
            "--set q=VALUE, or see the formulas in them with --symbolic)",
        ),
        ("x = ones(2)\ny = x.foo", "'Tensor' object has no attribute 'foo'"),  # not 'floor'
        (
            "x = ones(2)\ny = x.storage()",
            "'Tensor' object has no attribute 'storage' (or diffcli does not support it)",
        ),  # torch has it
    ],
)
def test_no_suggestion_where_no_name_is_close(script, expected):
    r = cli("run", "-e", script)
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0].split(": ", 3)[3] == expected


def test_closest_counts_a_swap_as_one_edit_and_skips_private_and_short_names():
    names = ["sin", "sinh", "sign", "floor", "eq", "_private", "requires_grad", "requires_grad_"]
    assert [closest(n, names) for n in ("sni", "foo", "q", "privat", "requires_gard")] == [
        "sin",
        None,
        None,
        None,
        "requires_grad",
    ]
