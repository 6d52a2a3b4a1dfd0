"""The engine's run settings (engine/context.py): what a RunContext puts in force, what it
restores, and that the engine reads them (grad mode, --max-elements, trace, poll)."""

import pytest

from diffcli import engine
from diffcli.engine import context, errors
from diffcli.engine.context import RunContext
from diffcli.engine.ops import creation


def test_entered_settings_are_restored_on_exit_also_after_an_error():
    before = context.current()
    with pytest.raises(ZeroDivisionError):
        with RunContext(grad_enabled=False, max_elements=7, trace=[], poll=len):
            assert context.current() == {"grad_enabled": False, "max_elements": 7, "trace": [], "poll": len}
            raise ZeroDivisionError
    assert context.current() == before


def test_a_setting_not_given_is_left_as_it_is():
    with RunContext(max_elements=5):
        with RunContext(trace=[]):
            assert context.current()["max_elements"] == 5
        assert context.current()["trace"] is None
    assert context.current()["max_elements"] == context.DEFAULT_MAX_ELEMENTS


def test_apply_holds_until_set_again():
    try:
        RunContext(max_elements=3).apply()
        assert context.current()["max_elements"] == 3
    finally:
        RunContext(max_elements=context.DEFAULT_MAX_ELEMENTS).apply()


def test_nested_entries_of_one_context_restore_in_order():
    ctx = RunContext(grad_enabled=False)
    with ctx:
        with RunContext(grad_enabled=True):
            with ctx:
                assert not engine.is_grad_enabled()
            assert engine.is_grad_enabled()
        assert not engine.is_grad_enabled()
    assert engine.is_grad_enabled()


def test_the_engine_reads_grad_mode_from_the_context():
    x = creation.tensor([1.0, 2.0], requires_grad=True)
    with RunContext(grad_enabled=False):
        assert (x * 2).grad_fn is None
        assert not engine.is_grad_enabled()
        with engine.enable_grad():  # PyTorch's own switches write the same setting
            assert context.current()["grad_enabled"] is True
    assert (x * 2).grad_fn.name() == "MulBackward0"


def test_the_engine_reads_max_elements_from_the_context():
    with RunContext(max_elements=4):
        creation.zeros(4)
        with pytest.raises(errors.LimitError, match="tensor of 5 elements exceeds the limit of 4"):
            creation.zeros(5)


def test_the_engine_appends_every_op_to_the_trace():
    trace = []
    x = creation.tensor([1.0, 2.0], requires_grad=True)
    with RunContext(trace=trace):
        y = (x * 2).sum()
    assert [node.name() for _, _, node, _ in trace] == ["MulBackward0", "SumBackward0"]
    assert trace[-1][0] is y and trace[-1][3].tolist() == 6.0


def test_a_backward_pass_calls_the_poll_hook():
    calls = []
    x = creation.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(3000):  # more nodes than a pass has between two polls
        y = y * 1.0
    with RunContext(poll=lambda: calls.append(1)):
        y.sum().backward()
    assert calls
    assert x.grad.array.tolist() == [1.0, 1.0]


def test_the_repr_names_the_settings():
    assert repr(RunContext(max_elements=9)) == "RunContext(max_elements=9)"
