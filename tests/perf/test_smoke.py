"""The benchmark runner runs end to end on tiny sizes, so it cannot rot. (The whole run takes
about a minute on a 2-core machine: it is a slow test, which .ci/run runs on its own.)"""

import pytest

from benchmarks.__main__ import main


@pytest.mark.slow
def test_runner_prints_a_table_with_every_workload(capsys):
    main(["--quick", "--repeats", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["workload", "contender", "median"]
    text = "\n".join(out)
    for name in (
        "scalar chain",
        "elementwise",
        "matmuls",
        "cold start",
        "script end to end",
        "parse",
        "depth",
        "render: chain tree",
        "render: graph vs grad",
        "hessian of",
        "diffcli hessian command",
    ):
        assert name in text


def test_ab_reads_diffcli_rows_of_a_table():
    from benchmarks.ab import diffcli_times

    table = "\n".join(
        [
            "workload                          contender  median         diffcli/this  target",
            "scalar chain 10000 ops (fwd+bwd)  diffcli    3.720 us/op",
            "scalar chain 10000 ops (fwd+bwd)  torch      9.100 us/op    0.41x         <= 0.5x torch",
            "cold start: grad samples/card.txt --format json  diffcli  0.180 s",
            "render: chain tree svg  diffcli  12.0 ms at n=10000, 25.5 ms at n=20000: 2.12x    growth ~2x (linear)",
        ]
    )
    assert diffcli_times(table) == {
        "scalar chain 10000 ops (fwd+bwd)": (3.72, "us/op"),
        "cold start: grad samples/card.txt --format json": (0.18, "s"),
        "render: chain tree svg": (25.5, "ms"),
    }
