"""Resident memory of this process, for the benchmarks' measurements (Linux: /proc/self)."""


def status(key: str) -> int:
    """A byte count of /proc/self/status: `VmRSS` (now) or `VmHWM` (peak since the last reset)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def reset_peak() -> int:
    """Reset the peak RSS (VmHWM) to the current RSS, which is returned: the baseline."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return status("VmRSS")
