"""The benchmark runner runs end to end on tiny sizes, so it cannot rot."""

from benchmarks.__main__ import main


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
