"""Runs a module's IR on numpy: the numerical oracle that passes are checked against.

`graph` ops run through ONNX's own reference implementation (`onnx.reference`), one node at
a time, so every ONNX operator is covered by one rule; `mrvl` layers are implemented here
from their definitions (NHWC, OHWI, padding as top/left/bottom/right), reusing the ONNX
reference for the convolution and pooling arithmetic; `cpu.call_mlip` runs the called
subgraph (once per chunk with `chunks`), and the host ops around a call in chunks (a
constant `cpu.pad`, a `cpu.slice`) and convert-layout's channels-last pools, transposed convs
and batch norms run too. Slow but simple: for tests, not deployment.
"""

from collections.abc import Callable, Sequence

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from mrvl_dialect import cpu, mrvl
from mrvl_dialect.graph_ops_gen import OPSET
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_base import OnnxOp
from mrvl_dialect.graph_eval import NotEvaluable, evaluate, reference_pads
from mrvl_dialect.graph_queries import constant_value


class Unsupported(Exception):
    """The interpreter has no rule for an op."""


SubgraphRunner = Callable[[str, list[np.ndarray]], list[np.ndarray]]
"""Runs an accelerator subgraph by symbol, in place of its IR (e.g. the JSON simulator)."""


def run(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    function: str | None = None,
    run_subgraph: SubgraphRunner | None = None,
) -> list[np.ndarray]:
    """Evaluate `function` (default: the module's first `func.func`) on `inputs`;
    `cpu.call_mlip` runs the callee's IR, or `run_subgraph` when given."""
    functions = [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    target = next(f for f in functions if function is None or f.sym_name.data == function)
    return _Interpreter(module, run_subgraph).block(target.body.block, list(inputs))


def _onnx(op_name: str, inputs: list[np.ndarray | None], **attributes) -> list[np.ndarray]:
    names = [f"i{k}" if x is not None else "" for k, x in enumerate(inputs)]
    node = helper.make_node(op_name, names, ["y"], **attributes)
    feeds = {n: x for n, x in zip(names, inputs) if n}
    return ReferenceEvaluator(node, opsets={"": OPSET}).run(None, feeds)


def _host_batch_op(op: Operation, x: np.ndarray) -> np.ndarray:
    """The host ops chunk-mrvl-batch adds around a call in chunks: a constant pad, a slice."""
    if isinstance(op, cpu.SliceOp):
        bounds = zip(op.starts.get_values(), op.ends.get_values(), op.steps.get_values())
        return x[tuple(slice(start, end if end >= 0 else None, step) for start, end, step in bounds)]
    assert isinstance(op, cpu.PadOp)
    if op.mode.data != cpu.PadMode.CONSTANT:
        raise Unsupported(f"no reference rule for cpu.pad {op.mode.data}")
    pads = list(op.pads.get_values())
    if min(pads) < 0:
        raise Unsupported("no reference rule for a cpu.pad that crops")
    widths = list(zip(pads[:x.ndim], pads[x.ndim:]))
    return np.pad(x, widths, constant_values=np.asarray(op.value.value.data, x.dtype))


def _nchw(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def _activation(op: Operation, y: np.ndarray) -> np.ndarray:
    relu = op.properties["activation"].data == mrvl.Activation.RELU
    return np.maximum(y, 0) if relu else y


def _ints(op: Operation, name: str) -> list[int]:
    return list(op.properties[name].get_values())


def _conv2d(op: mrvl.Conv2DOp, x, w, *rest) -> np.ndarray:
    (y,) = _onnx("Conv", [_nchw(x), np.ascontiguousarray(w.transpose(0, 3, 1, 2))],
                 strides=_ints(op, "strides"), pads=_ints(op, "padding"),
                 dilations=_ints(op, "dilations"), group=op.groups.value.data)
    rest = list(rest)
    channel = (1, -1, 1, 1)
    if op.bias is not None:
        y = y + rest.pop(0).reshape(channel)
    if op.bn_gamma is not None:
        gamma, beta, mean, var = (r.reshape(channel) for r in rest)
        y = (y - mean) / np.sqrt(var + op.bn_epsilon.value.data) * gamma + beta
    return _activation(op, _nhwc(y.astype(np.float32)))


def _fc(op: mrvl.FCOp, x, w, b=None) -> np.ndarray:
    if x.ndim == 4:  # weights_need_transform: the model flattened NCHW data
        x = _nchw(x).reshape(x.shape[0], -1)
    y = x @ w.T
    if b is not None:
        y = y + b
    return _activation(op, y.astype(np.float32))


def _pool(op: Operation, x: np.ndarray) -> np.ndarray:
    kwargs = {"kernel_shape": _ints(op, "kernel_shape"), "strides": _ints(op, "strides"),
              "ceil_mode": int(op.ceil_mode is not None), "pads": _ints(op, "padding")}  # top, left, bottom, right
    data = _nchw(x)
    if isinstance(op, mrvl.MaxPool2DOp):
        (y,) = _onnx("MaxPool", [data], **kwargs | {"pads": reference_pads("MaxPool", kwargs)})
    elif op.count_include_pad is not None:
        (y,) = _onnx("AveragePool", [data], count_include_pad=1, **kwargs)
    else:
        (y,) = _onnx("AveragePool", [data], **kwargs)
    return _nhwc(y)


def _channels_last_pool(op: cpu.PoolOp | cpu.GlobalPoolOp, x: np.ndarray) -> np.ndarray:
    """convert-layout's pools between MLIP calls in NHWC, through ONNX's NCHW ones."""
    first = np.moveaxis(x, -1, 1)
    is_max = op.kind.data == cpu.PoolKind.MAX
    if isinstance(op, cpu.GlobalPoolOp):
        spatial = tuple(range(2, x.ndim))
        y = first.max(spatial, keepdims=True) if is_max else first.mean(spatial, keepdims=True)
        return np.ascontiguousarray(np.moveaxis(y, 1, -1))
    kernel, strides, dilations = (list(v.get_values()) for v in (op.kernel, op.strides, op.dilations))
    pads = list(op.pads.get_values())
    rank = len(kernel)
    floor = [(size + pads[i] + pads[rank + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
             for i, size in enumerate(first.shape[2:])]
    ceil_mode = int(floor != cpu.channels_first(op, cpu.shape_of(op.output))[2:])  # the result type holds the size
    kwargs = dict(kernel_shape=kernel, strides=strides, dilations=dilations, pads=pads, ceil_mode=ceil_mode)
    if not is_max:
        kwargs["count_include_pad"] = int(op.count_include_pad.value.data)
    (y,) = _onnx("MaxPool" if is_max else "AveragePool", [first], **kwargs)
    return np.ascontiguousarray(np.moveaxis(y, 1, -1))


def _channels_last_conv_transpose(op: cpu.ConvTransposeOp, x: np.ndarray, w: np.ndarray,
                                  b: np.ndarray | None = None) -> np.ndarray:
    """convert-layout's transposed convs between MLIP calls in NHWC, through ONNX's NCHW one
    (before fuse-cpu-epilogues: no clamp or activation yet)."""
    if op.clamp() is not None or op.activation is not None:
        raise Unsupported("no reference rule for a cpu.conv_transpose with an epilogue")
    params = {name: list(op.properties[name].get_values())  # type: ignore[attr-defined]
              for name in ("strides", "dilations", "pads", "output_padding")}
    (y,) = _onnx("ConvTranspose", [np.moveaxis(x, -1, 1), w, b], group=op.group.value.data, **params)
    return np.ascontiguousarray(np.moveaxis(y, 1, -1))


def _channels_last_batch_norm(op: cpu.BatchNormOp, x: np.ndarray, *statistics: np.ndarray) -> np.ndarray:
    """convert-layout's batch norms between MLIP calls in NHWC, through ONNX's NCHW one."""
    (y,) = _onnx("BatchNormalization", [np.moveaxis(x, -1, 1), *statistics], epsilon=op.epsilon.value.data)
    return np.ascontiguousarray(np.moveaxis(y, 1, -1))


_LAYERS: dict[type[Operation], Callable[..., np.ndarray]] = {
    mrvl.Conv2DOp: _conv2d,
    mrvl.FCOp: _fc,
    mrvl.MaxPool2DOp: _pool,
    mrvl.AvgPool2DOp: _pool,
    mrvl.GlobalAvgPool2DOp: lambda op, x: x.mean(axis=(1, 2), keepdims=True),
    mrvl.GlobalMaxPool2DOp: lambda op, x: x.max(axis=(1, 2), keepdims=True),
    mrvl.SumOp: lambda op, a, b: _activation(op, a + b),
    mrvl.ConcatOp: lambda op, *xs: np.concatenate(xs, axis=3),
    mrvl.ReshapeOp: lambda op, x: x.reshape(op.output.type.get_shape()),
    mrvl.BatchFlattenOp: lambda op, x: x.reshape(op.output.type.get_shape()),
    mrvl.SqueezeOp: lambda op, x: x.reshape(op.output.type.get_shape()),
    mrvl.LayoutTransformOp: lambda op, x: _nhwc(x),
}


class _Interpreter:
    def __init__(self, module: ModuleOp, run_subgraph: SubgraphRunner | None = None):
        self.module = module
        self.run_subgraph = run_subgraph
        self.subgraphs = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)}

    def block(self, block: Block, arguments: list[np.ndarray]) -> list[np.ndarray]:
        env: dict[SSAValue, np.ndarray] = dict(zip(block.args, arguments))
        for op in block.ops:
            if isinstance(op, func.ReturnOp | mrvl.YieldOp):
                return [env[v] for v in op.operands]
            values = [env[v] for v in op.operands]
            results = self.op(op, values)
            for result, value in zip(op.results, results, strict=True):
                env[result] = value
        raise Unsupported("block without terminator")

    def op(self, op: Operation, values: list[np.ndarray]) -> list[np.ndarray]:
        if isinstance(op, ConstantOp):
            value = constant_value(op.output, self.module)
            if value is None:
                raise Unsupported(f"constant {op.value} has no data")
            return [value]
        if type(op) in _LAYERS:
            return [np.asarray(_LAYERS[type(op)](op, *values), np.float32)]
        if op.name == "cpu.call_mlip":
            symbol = op.properties["callee"].root_reference.data
            chunks = op.chunk_count()  # type: ignore[attr-defined]
            results = []
            for chunk in zip(*(np.split(v, chunks) for v in values)) if values else [()] * chunks:
                if self.run_subgraph is not None:
                    results.append(self.run_subgraph(symbol, list(chunk)))
                else:
                    results.append(self.block(self.subgraphs[symbol].body.block, list(chunk)))
            return [np.concatenate(parts) for parts in zip(*results)]
        if isinstance(op, OnnxOp) and not op.regions:
            return self.onnx_op(op, values)
        if isinstance(op, cpu.PadOp | cpu.SliceOp):
            return [_host_batch_op(op, values[0])]
        if isinstance(op, cpu.PoolOp | cpu.GlobalPoolOp) and op.channels_last is not None:
            return [_channels_last_pool(op, values[0])]
        if isinstance(op, cpu.ConvTransposeOp) and op.channels_last is not None and op.slope is None:
            return [_channels_last_conv_transpose(op, *values)]
        if isinstance(op, cpu.BatchNormOp) and op.channels_last is not None:
            return [_channels_last_batch_norm(op, *values)]
        raise Unsupported(f"no reference rule for '{op.name}'")

    def onnx_op(self, op: OnnxOp, values: list[np.ndarray]) -> list[np.ndarray]:
        try:
            return evaluate(op, values)
        except NotEvaluable as e:
            raise Unsupported(str(e)) from None
