"""The process's resident memory, read cheaply: what `--max-memory` is measured by, while
parsing (`parselimits`) and while running (`limits`)."""

from __future__ import annotations

import os
import sys

_RSS = []  # [reader]: () -> bytes or None, chosen on first use


def resident_memory():
    """The process's resident memory in bytes: /proc/self/statm where there is one, else
    the peak from getrusage (an upper bound of the current); None where neither exists."""
    if not _RSS:
        _RSS.append(_rss_reader())
    return _RSS[0]()


def _rss_reader():
    try:
        page = os.sysconf("SC_PAGE_SIZE")

        def statm():
            with open("/proc/self/statm", "rb") as f:
                return int(f.read().split()[1]) * page

        statm()
        return statm
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource  # (not on every platform)
    except ImportError:
        return lambda: None
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB elsewhere

    def peak():
        try:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
        except (OSError, ValueError):
            return None

    return peak
