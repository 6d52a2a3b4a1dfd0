"""The safety caps (SPEC §4), one row each: (parameter, default, help, metavar, least).

The CLI makes its `--max-*` options from these rows (diffcli/cli/options.py) and
`diffcli.lang.limits.Limits` its attributes, so a new cap is declared by one row here; the
check that holds it goes where the thing it caps is built. (Data only: the CLI reads it
before anything heavy is imported.)"""

DEFAULT_TIMEOUT = 300  # seconds; 0: no time cap

CAPS = (
    ("max_elements", 10_000_000, "Cap on the elements of one tensor.", None, 1),
    ("max_iterations", 10_000_000, "Cap on loop iterations.", None, 1),
    ("max_statements", 1_000_000, "Cap on statements executed.", None, 1),
    ("max_depth", 100, "Cap on function-call nesting.", None, 1),
    ("max_memory", 4096, "Cap on the memory the script's tensors hold, in MB.", "MB", 1),
    ("timeout", DEFAULT_TIMEOUT, "Cap on the run's time, in seconds (0: none).", "SECONDS", 0),
    ("max_script_size", 16, "Cap on the script's size, in MB.", "MB", 1),
)
CAP_DEFAULTS = {row[0]: row[1] for row in CAPS}
