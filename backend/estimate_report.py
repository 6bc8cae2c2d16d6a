"""Estimated latency of a lowered module, as the reports print it (`report_model.Estimate`).

    estimated 6.23 ms: MLIP 6.22 ms in 1 call, host 5.2 us (host assumed)
    estimate                               time  what
    tvmgen_mrvl_main_0 (1 call)         6.22 ms  4.09 G MACs; compute 6.16 ms, weights DMA 5.63 ms (overlapped), ...
    host: output (Gemm) (cpu.gemm)       5.2 us  matmul, 2.05 M MACs

One row per MLIP subgraph (its estimate times the calls one run makes) and per host kernel,
named as `mrvl-run --profile` names it, so a profile and the estimate can be read side by
side.
"""

from mrvl.backend.report_model import Estimate
from mrvl.target.cost_model import duration


def count(n: int) -> str:
    """`1.39 M`: MACs or bytes in SI units (G, M, k), exact below a thousand."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return str(n)


def estimate_rows(estimate: Estimate) -> list[tuple[str, float, str]]:
    """(what, seconds per run, how) per subgraph and per host kernel, in program order."""
    rows = []
    for s in estimate.subgraphs:
        calls = f"{s.calls} call{'s' if s.calls != 1 else ''}"
        rows.append((f"{s.symbol} ({calls})", s.estimate.seconds * s.calls,
                     f"{count(s.work.macs + s.work.depthwise_macs)} MACs; {s.estimate.describe()}"))
    for k in estimate.kernels:
        work = f"{count(k.work.macs)} MACs" if k.work.kind != "memory" and k.work.macs else f"{count(k.work.bytes)} bytes"
        rows.append((f"host: {k.label}", k.seconds, f"{k.work.kind}, {work}"))
    return rows


def estimate_text(estimate: Estimate) -> str:
    """The total line, then the table of `estimate_rows`."""
    rows = [("estimate", "time", "what")] + [(w, duration(s), how) for w, s, how in estimate_rows(estimate)]
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    lines = [estimate.line()] + [f"{w.ljust(width[0])}  {t.rjust(width[1])}  {how}" for w, t, how in rows]
    return "\n".join(lines) + "\n"


def estimate_json(estimate: Estimate) -> dict:
    """The estimate for `report.json` and `-t placement-report{format=json}`; `host_ops`
    carry the work `mrvl-run --profile-out` pairs with measured times."""
    return {
        "seconds": estimate.mlip_seconds + estimate.host_seconds,
        "mlip_seconds": estimate.mlip_seconds,
        "calls": estimate.calls,
        "host_seconds": estimate.host_seconds,
        "host_source": estimate.host_source,
        "subgraphs": [{"symbol": s.symbol, "calls": s.calls, "seconds": s.estimate.seconds,
                       "compute_seconds": s.estimate.compute_s, "weights_seconds": s.estimate.weights_s,
                       "io_seconds": s.estimate.io_s, "call_seconds": s.estimate.call_s,
                       "macs": s.work.macs, "depthwise_macs": s.work.depthwise_macs} for s in estimate.subgraphs],
        "host_ops": [{"label": k.label, "kind": k.work.kind, "macs": k.work.macs, "bytes": k.work.bytes,
                      "seconds": k.seconds} for k in estimate.kernels],
    }
