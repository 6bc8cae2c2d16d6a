"""per-op time: ours (mrvl-run --profile) vs ORT profiling, grouped by op type."""
import sys, json, subprocess, collections, glob, os
from pathlib import Path
sys.path[:0] = ["/work/main", "/work/main/examples", "/work/main/test", "/work/main/benchmarks"]
import numpy as np, onnx, onnxruntime as ort
import host_c_vs_onnxruntime as H
name = sys.argv[1]
d = Path(f"/tmp/prof/{name}"); d.mkdir(exist_ok=True)
path = d / f"{name}.onnx"
onnx.save(H.BUILDERS[name](), path)
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL; so.enable_profiling = True
so.profile_file_prefix = str(d / "ort")
so.optimized_model_filepath = str(d / "opt.onnx")
s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
inputs = {i.name: np.random.default_rng(0).standard_normal(i.shape).astype(np.float32) for i in s.get_inputs()}
for _ in range(5): s.run(None, inputs)
for f in glob.glob(str(d / "ort*.json")): os.remove(f)
s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
for _ in range(30): s.run(None, inputs)
prof = s.end_profiling()
ev = json.load(open(prof))
agg = collections.Counter(); cnt = collections.Counter()
for e in ev:
    if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
        agg[e["args"]["op_name"]] += e["dur"]; cnt[e["args"]["op_name"]] += 1
runs = 30
print("ORT per-op (us/run):")
for k, v in agg.most_common(): print(f"  {k:28s} {v/runs:9.1f}  n={cnt[k]//runs}")
print(f"  total {sum(agg.values())/runs:.1f}")
out = d / "bundle"
subprocess.run(["rm", "-rf", str(out)])
H.build(path, name, {}, out, None)
np.savez(d / "in.npz", **inputs)
r = subprocess.run(["/work/main/.venv/bin/mrvl-run", str(out), "--inputs", str(d / "in.npz"), "--profile", "--repeat", "30",
                    "--profile-out", str(d / "p.json")], capture_output=True, text=True)
print(r.stdout[-6000:], r.stderr[-3000:])
pern = collections.Counter()
for e in ev:
    if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
        pern[e["name"][:-len("_kernel_time")]] += e["dur"] / runs
ours = json.load(open(d / "p.json"))
m = onnx.load(path)
info = {}
g = onnx.shape_inference.infer_shapes(m).graph
shapes = {v.name: [x.dim_value for x in v.type.tensor_type.shape.dim] for v in list(g.value_info) + list(g.input) + list(g.output)}
inits = {t.name: list(t.dims) for t in g.initializer}
for n in g.node:
    a = {x.name: onnx.helper.get_attribute_value(x) for x in n.attribute}
    info[n.name] = f"{n.op_type} in={shapes.get(n.input[0]) or inits.get(n.input[0])} w={inits.get(n.input[1]) if len(n.input)>1 else ''} g={a.get('group',1)} s={a.get('strides','')}"
rows = []
tot_o = tot_r = 0
print(f"{'node':22s} {'ours':>8s} {'ort':>8s} ratio  info")
for k in ours["ops"]:
    first = k["label"].split(" ")[0]
    us = k["seconds"] * 1e6
    names = [t for t in k["label"].split(" ") if not t.startswith("(")]
    names = [t.rstrip(",") for t in names]
    o = sum(pern.get(nm, 0) + pern.get(nm + "_nchwc", 0) for nm in names)
    tot_o += o; tot_r += us
    print(f"{first:22s} {us:8.1f} {o:8.1f} {us/max(o,1e-9):5.2f}  {info.get(first,'')}")
print("tot", tot_r, tot_o)
for k, v in pern.items():
    if not any(k.replace("_nchwc", "") + " " in x["label"] for x in ours["ops"]): print("ort-only", k, round(v,1))
