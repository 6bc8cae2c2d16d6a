"""Estimated latency of a lowered module, as the reports print it (`target/cost_model.py`).

    estimated 6.23 ms: MLIP 6.22 ms in 1 call, host 5.2 us (host assumed)
    estimate                               time  what
    tvmgen_mrvl_main_0 (1 call)         6.22 ms  4.09 G MACs; compute 6.16 ms, weights DMA 5.63 ms (overlapped), ...
    host: output (Gemm) (cpu.gemm)       5.2 us  matmul, 2.05 M MACs

One row per MLIP subgraph (its estimate times the calls one run makes) and per host kernel,
named as `mrvl-run --profile` names it, so a profile and the estimate can be read side by
side. Only a lowered module (with `cpu` kernels) has an estimate.
"""

from xdsl.dialects.builtin import ModuleOp

from mrvl.backend.c_emitter import _profile_label as host_op_label
from mrvl_dialect import cpu
from mrvl.target.cost_model import CostModel, ProgramEstimate, duration, estimate_program
from mrvl_dialect.mrvl import SubgraphOp


def program_estimate(module: ModuleOp, model: CostModel) -> ProgramEstimate | None:
    """The estimate of one run of `module`, or None before `lower-to-cpu`."""
    ops = [op for op in module.walk() if isinstance(op, cpu.CpuOp)]
    if not ops:
        return None
    return estimate_program(ops, [op for op in module.walk() if isinstance(op, SubgraphOp)], model)


def count(n: int) -> str:
    """`1.39 M`: MACs or bytes in SI units (G, M, k), exact below a thousand."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return str(n)


def estimate_rows(estimate: ProgramEstimate) -> list[tuple[str, float, str]]:
    """(what, seconds per run, how) per subgraph and per host kernel, in program order."""
    rows = []
    for s in estimate.subgraphs:
        calls = f"{s.calls} call{'s' if s.calls != 1 else ''}"
        rows.append((f"{s.symbol} ({calls})", s.estimate.seconds * s.calls,
                     f"{count(s.work.macs + s.work.depthwise_macs)} MACs; {s.estimate.describe()}"))
    for h in estimate.host_ops:
        work = f"{count(h.work.macs)} MACs" if h.work.kind != "memory" and h.work.macs else f"{count(h.work.bytes)} bytes"
        rows.append((f"host: {host_op_label(h.op)}", h.seconds, f"{h.work.kind}, {work}"))
    return rows


def estimate_text(estimate: ProgramEstimate) -> str:
    """The total line, then the table of `estimate_rows`."""
    rows = [("estimate", "time", "what")] + [(w, duration(s), how) for w, s, how in estimate_rows(estimate)]
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    lines = [estimate.line()] + [f"{w.ljust(width[0])}  {t.rjust(width[1])}  {how}" for w, t, how in rows]
    return "\n".join(lines) + "\n"


def estimate_json(estimate: ProgramEstimate) -> dict:
    """The estimate for `report.json` and `-t placement-report{format=json}`; `host_ops`
    carry the work `mrvl-run --profile-out` pairs with measured times."""
    return {
        "seconds": estimate.mlip_s + estimate.host_s,
        "mlip_seconds": estimate.mlip_s,
        "calls": estimate.calls,
        "host_seconds": estimate.host_s,
        "host_source": estimate.host_source,
        "subgraphs": [{"symbol": s.symbol, "calls": s.calls, "seconds": s.estimate.seconds,
                       "compute_seconds": s.estimate.compute_s, "weights_seconds": s.estimate.weights_s,
                       "io_seconds": s.estimate.io_s, "call_seconds": s.estimate.call_s,
                       "macs": s.work.macs, "depthwise_macs": s.work.depthwise_macs} for s in estimate.subgraphs],
        "host_ops": [{"label": host_op_label(h.op), "kind": h.work.kind, "macs": h.work.macs, "bytes": h.work.bytes,
                      "seconds": h.seconds} for h in estimate.host_ops],
    }
