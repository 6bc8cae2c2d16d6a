"""How `mrvl-compile` time grows with the graph: a chain of conv blocks, timed per stage.

    python benchmarks/conv_chain.py [--blocks 250 500 1000 2000] [--channels 16] [--repeat N]
                                    [--clock wall|cpu] [--against REF] [--profile FILE]

The model (`conv_chain(blocks)`) is a chain of 3x3 convs on a small 1x16x8x8 tensor, each
followed by a Relu; every fourth block has a SiLU (Sigmoid, Mul) instead, which MLIP cannot
run, so the chain is cut into one accelerator subgraph per four blocks: 2,000 blocks are
4,500 ONNX nodes and 500 subgraphs. The tensors are small on purpose: the time measured is
the compiler's per-node and per-subgraph work, not weight handling.

Each size is compiled in a fresh interpreter with `compile_model` and its stage timing (the
stages `mrvl-compile --timing` prints); each stage's best of `--repeat` runs is reported,
with how much it grew from the previous size (2.0x for twice the blocks is linear).
`--against REF` compiles each size with the compiler at git ref REF too, in the same run,
the two taking turns (`checkouts.py`), and reports this tree's time as a ratio to REF's.
`--clock cpu` times the compiling process's CPU time instead of wall time, which other
processes on a busy machine disturb less (file writes then count only their CPU part).
`--profile FILE` also writes a cProfile of the largest size's compile.

Target (issue 28): 2,000 blocks at 16 channels in at most 0.5x the time of main before that
issue (`--against 840c1df`), growing linearly.
"""

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from checkouts import Versions, machine

CHANNELS, SIZE = 16, 8
SILU_EVERY = 4

MEASURE = r"""
import cProfile, json, sys, time
from mrvl.compile import Stages, compile_model
from mrvl.timing import Timing

timing = Timing(clock=time.process_time if sys.argv[4] == "cpu" else time.perf_counter)
profile = cProfile.Profile() if sys.argv[3] else None
if profile:
    profile.enable()
compile_model(sys.argv[1], sys.argv[2], stages=Stages(timing))
if profile:
    profile.disable()
    profile.dump_stats(sys.argv[3])
print(json.dumps({"seconds": timing.total, "stages": [[n, d, s] for n, d, s in timing.stages]}))
"""


def conv_chain(blocks: int, channels: int = CHANNELS, seed: int = 0) -> onnx.ModelProto:
    """`blocks` conv blocks in a chain: Conv -> Relu, every fourth Conv -> Sigmoid, Mul (SiLU)."""
    rng = np.random.default_rng(seed)
    shape = [1, channels, SIZE, SIZE]
    nodes, initializers = [], []
    value = "x"
    for i in range(blocks):
        w, b = f"w{i}", f"b{i}"
        initializers += [
            numpy_helper.from_array((rng.standard_normal((channels, channels, 3, 3)) * 0.1).astype(np.float32), w),
            numpy_helper.from_array(np.zeros(channels, np.float32), b),
        ]
        conv = f"conv{i}"
        nodes.append(helper.make_node("Conv", [value, w, b], [conv], name=conv, pads=[1, 1, 1, 1]))
        if (i + 1) % SILU_EVERY == 0:
            nodes += [helper.make_node("Sigmoid", [conv], [f"sigmoid{i}"], name=f"sigmoid{i}"),
                      helper.make_node("Mul", [conv, f"sigmoid{i}"], [f"silu{i}"], name=f"silu{i}")]
            value = f"silu{i}"
        else:
            nodes.append(helper.make_node("Relu", [conv], [f"relu{i}"], name=f"relu{i}"))
            value = f"relu{i}"
    nodes.append(helper.make_node("Identity", [value], ["y"], name="output"))
    graph = helper.make_graph(
        nodes, f"conv_chain_{blocks}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def best_of(runs: list[dict]) -> dict:
    """Each stage's and the total's least seconds over `runs` (a busy machine only adds time)."""
    stages = [[name, depth, min(run["stages"][i][2] for run in runs)]
              for i, (name, depth, _) in enumerate(runs[0]["stages"])]
    return {"seconds": min(run["seconds"] for run in runs), "stages": stages}


def stage_table(best: dict[int, dict], nodes: dict[int, int]) -> list[str]:
    """Rows of each stage's seconds per size and its growth from the size before."""
    sizes = sorted(best)
    lines = [f"{'blocks':<24}" + "".join(f"{b:>10}" for b in sizes) + "   growth",
             f"{'ONNX nodes':<24}" + "".join(f"{nodes[b]:>10}" for b in sizes)]
    for name, depth, _ in best[sizes[-1]]["stages"]:
        row = [sum(s for n, _, s in best[b]["stages"] if n == name) for b in sizes]
        growth = " ".join(f"{row[i] / row[i - 1]:.1f}x" if row[i - 1] > 0.005 else "  -" for i in range(1, len(row)))
        lines.append(f"{'  ' * depth + name:<24}" + "".join(f"{s:>9.2f}s" for s in row) + f"   {growth}")
    totals = [best[b]["seconds"] for b in sizes]
    lines.append(f"{'total':<24}" + "".join(f"{s:>9.2f}s" for s in totals)
                 + "   " + " ".join(f"{totals[i] / totals[i - 1]:.1f}x" for i in range(1, len(totals))))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[250, 500, 1000, 2000], help="chain lengths to time")
    parser.add_argument("--channels", type=int, default=CHANNELS, help="channels of every conv")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each size; the best is reported")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall time or the process's CPU time")
    parser.add_argument("--against", metavar="REF", help="also time the compiler at this git ref, for a ratio")
    parser.add_argument("--profile", default="", help="write a cProfile of the largest size's compile here")
    args = parser.parse_args(argv)
    versions = Versions(args.against)
    best: dict[str, dict[int, dict]] = {v: {} for v in versions.sites}
    nodes: dict[int, int] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for blocks in args.blocks:
                model = Path(tmp, f"chain{blocks}.onnx")
                proto = conv_chain(blocks, args.channels)
                nodes[blocks] = len(proto.graph.node)
                onnx.save_model(proto, model)
                runs = versions.alternate(args.repeat, lambda version, i: json.loads(versions.run(
                    version, MEASURE, str(model), str(Path(tmp, f"out-{i}.tar")), "", args.clock)))
                for version, results in runs.items():
                    best[version][blocks] = best_of(results)
            if args.profile:
                largest = max(args.blocks)
                versions.run("this", MEASURE, str(Path(tmp, f"chain{largest}.onnx")), str(Path(tmp, "profiled.tar")),
                             str(Path(args.profile).resolve()), args.clock)
    finally:
        versions.close()
    print(f"{args.clock} time, best of {args.repeat} runs per size, {args.channels} channels; {machine()}")
    for version, table in best.items():
        print(f"\n{version}:")
        print("\n".join(stage_table(table, nodes)))
    if args.against:
        ratios = [best["this"][b]["seconds"] / best[args.against][b]["seconds"] for b in sorted(nodes)]
        print(f"\nthis / {args.against}:" + "".join(f"{r:>9.2f}x" for r in ratios)
              + "   (target at 2,000 blocks: at most 0.5x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
