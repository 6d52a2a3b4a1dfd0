"""torch.autograd's anomaly mode, which diffcli accepts and does nothing with."""

from __future__ import annotations

from ..engine import errors


class AnomalyMode:
    """`torch.autograd.set_detect_anomaly(b)` / `detect_anomaly()`: accepted and a no-op (a
    script that runs gives the same output as with PyTorch)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<torch.autograd.anomaly_mode.{self.name} object>"


def set_detect_anomaly(mode, check_nan=True):
    return AnomalyMode("set_detect_anomaly")


def detect_anomaly(check_nan=True):
    errors.warn(
        "Anomaly Detection has been enabled. This mode will increase the runtime and should "
        "only be enabled for debugging."
    )
    return AnomalyMode("detect_anomaly")
