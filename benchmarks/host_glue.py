"""Host glue of partitioned models: the host time between MLIP calls, by kind, measured.

    python benchmarks/host_glue.py [--models NAME ...] [--samples N] [--repeat N] [--against REF]

The models are the zoo's detectors and classifier that MLIP runs most of (`GLUE_MODELS` of
examples/zoo.py: yolov8_det, ppocr_det, picodet_head, mobilenet_v3). Each is compiled with `compile_model`'s
defaults (partitioned, as `mrvl-compile model.onnx -o DIR`) and profiled with
`profile_bundle` (`mrvl-run --profile`: one warm-up run, then the mean of `--repeat` runs),
`--samples` times; each op's time is its median over the samples (a busy machine's
preemptions land on a few ops of a few samples), a kind's the sum of its ops'. The
accelerator calls run on the reference simulator and are left out: their time is not MLIP's.

The host ops are summed by kind as `mrvl-run --profile` sums them (`mrvl.run.host_kind`):
layout transposes (inserted by the compiler), element-wise ops, concat/split/slice and other
copies, the three together the glue; other host kernels apart. Beside the measurement, the
cost model's estimate of the same ops with the rates of this machine's host section of the
target description (`[host.x86-64]` on x86-64, `[host.neoverse-n2]` on AArch64), from the
work each op's entry in the bundle's report.json records.

`--against REF` compiles and profiles each model with the compiler at git ref REF too, in the
same run, the two taking turns (`checkouts.py`), and reports this tree's glue time as a
ratio to REF's. Target (issue 29): on yolov8_det and ppocr_det the glue at most 0.35x of
main before that issue (`--against 3ee5481`).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

from checkouts import ROOT, Versions, machine

sys.path[:0] = [str(ROOT / "examples"), str(ROOT / "test")]

import zoo  # noqa: E402
from ir_helpers import ZOO_INPUT_SHAPES  # noqa: E402

from mrvl.run import (  # noqa: E402
    DATA_MOVEMENT, HOST_KINDS_SHOWN, LAYOUT_TRANSPOSES, OTHER_KERNELS, estimated_host_ops, host_kind)
from mrvl.target.cost_model import CostModel, HostWork, duration  # noqa: E402

MODELS = zoo.GLUE_MODELS
GLUE = [kind for kind in HOST_KINDS_SHOWN if kind != OTHER_KERNELS]
TARGET = 0.35

MEASURE = r"""
import json, sys
from pathlib import Path

import numpy as np

if sys.argv[1] == "compile":
    from mrvl.compile import compile_model
    compile_model(sys.argv[2], sys.argv[3], input_shapes=json.loads(sys.argv[4]))
else:
    from mrvl.run import profile_bundle
    bundle = Path(sys.argv[2])
    rng = np.random.default_rng(0)
    inputs = {t["name"]: rng.standard_normal(t["shape"]).astype(np.float32)
              for t in json.loads((bundle / "metadata.json").read_text())["inputs"]}
    _, times = profile_bundle(bundle, inputs, repeat=int(sys.argv[3]))
    print(json.dumps([[t.label, t.seconds] for t in times]))
"""


def host_section() -> str:
    """The host section of the target description for this machine's architecture."""
    return "neoverse-n2" if platform.machine() in ("aarch64", "arm64") else "x86-64"


def cost_model(host: str, folder: Path) -> CostModel:
    target = folder / "host.ini"
    target.write_text(f"[host]\nname = {host}\n")
    return CostModel.load(str(target))


def estimated_seconds(labels: list[str], report: dict, model: CostModel) -> list[float]:
    """Each profiled op's estimate under `model`, from the work its report.json entry
    records (`estimated_host_ops`); 0 for an op the report does not list (an accelerator call)."""
    return [0.0 if found is None else model.host_seconds(HostWork(found["kind"], found["macs"], found["bytes"]))
            for found in estimated_host_ops(labels, report.get("estimate"))]


def by_kind(labels: list[str], values: list[float]) -> dict[str, tuple[int, float]]:
    """(ops, total of `values`) of each kind of host op."""
    totals = {kind: (0, 0.0) for kind in HOST_KINDS_SHOWN}
    for label, value in zip(labels, values, strict=True):
        kind = host_kind(label)
        if kind is not None:
            ops, total = totals[kind]
            totals[kind] = (ops + 1, total + value)
    return totals


def summarize(samples: list[list[list]], report: dict, model: CostModel) -> dict:
    """Each kind's op count, measured time (each op's median over the samples) and estimate;
    the glue's."""
    labels = [label for label, _ in samples[0]]
    measured = by_kind(labels, [statistics.median(sample[i][1] for sample in samples) for i in range(len(labels))])
    estimate = by_kind(labels, estimated_seconds(labels, report, model))
    rows = {kind: {"ops": measured[kind][0], "seconds": measured[kind][1], "estimated": estimate[kind][1]}
            for kind in HOST_KINDS_SHOWN}
    rows["glue"] = {key: sum(rows[k][key] for k in GLUE) for key in ("ops", "seconds", "estimated")}
    calls = sum(1 for label in labels if host_kind(label) is None)
    return {"rows": rows, "calls": calls, "mlip_estimated": report.get("estimate", {}).get("mlip_seconds", 0.0)}


def table(name: str, results: dict[str, dict], host: str, against: str | None) -> list[str]:
    this = results["this"]
    lines = [f"{name}: {this['calls']} MLIP calls, estimated {duration(this['mlip_estimated'])} on MLIP",
             f"  {'kind':<26} {'ops':>5} {'measured':>10} {'estimated':>10}"
             + (f" | {against[:10]:>10} {'ops':>5} {'measured':>10} {'ratio':>7}" if against else "")]
    for kind in [*HOST_KINDS_SHOWN, "glue"]:
        row = this["rows"][kind]
        line = f"  {kind:<26} {row['ops']:>5} {duration(row['seconds']):>10} {duration(row['estimated']):>10}"
        if against:
            ref = results[against]["rows"][kind]
            ratio = f"{row['seconds'] / ref['seconds']:.2f}x" if ref["seconds"] > 0 else "-"
            line += f" | {'':>10} {ref['ops']:>5} {duration(ref['seconds']):>10} {ratio:>7}"
        lines.append(line)
    transposes, copies = this["rows"][LAYOUT_TRANSPOSES]["ops"], this["rows"][DATA_MOVEMENT]["ops"]
    lines.append(f"  {transposes} layout transposes, {copies} copies; estimated with [host.{host}]'s rates")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=MODELS, help="zoo models to profile")
    parser.add_argument("--samples", type=int, default=5, help="profiles of each model and version (each op's median)")
    parser.add_argument("--repeat", type=int, default=5, help="runs a profile averages over (mrvl-run --repeat)")
    parser.add_argument("--against", metavar="REF", help="also profile the compiler at this git ref, for a ratio")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    host = host_section()
    versions = Versions(args.against)
    results: dict[str, dict[str, dict]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="host-glue-") as tmp:
            folder = Path(tmp)
            os.environ["MRVL_CACHE_DIR"] = str(folder / "cache")  # the profiling builds, of this run only
            model = cost_model(host, folder)
            for name in args.models:
                onnx_path = folder / f"{name}.onnx"
                onnx_path.write_bytes(zoo.ZOO[name]().SerializeToString())
                bundles = {v: folder / f"{name}-{i}" for i, v in enumerate(versions.sites)}
                for version, bundle in bundles.items():
                    versions.run(version, MEASURE, "compile", str(onnx_path), str(bundle),
                                 json.dumps(ZOO_INPUT_SHAPES[name]))
                samples = versions.alternate(args.samples, lambda version, _: json.loads(versions.run(
                    version, MEASURE, "profile", str(bundles[version]), str(args.repeat))))
                results[name] = {v: summarize(samples[v], json.loads((bundles[v] / "report.json").read_text()), model)
                                 for v in versions.sites}
    finally:
        versions.close()
    print(f"host time of partitioned models, each op's median of {args.samples} profiles of {args.repeat} runs; "
          f"{machine()}; load average at the end {os.getloadavg()[0]:.1f}")
    for name, result in results.items():
        print()
        print("\n".join(table(name, result, host, args.against)))
    if args.against:
        ratios = {name: r["this"]["rows"]["glue"]["seconds"] / r[args.against]["rows"]["glue"]["seconds"]
                  for name, r in results.items()}
        print(f"\nglue, this / {args.against}: " + ", ".join(f"{n} {r:.2f}x" for n, r in ratios.items())
              + f"   (target on yolov8_det and ppocr_det: at most {TARGET}x)")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "host_section": host, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
