"""The C printer: the host part of a lowered module (`cpu` ops) as C99 text.

For a model named M (the `name` option, else the function's name) it prints:

- `M.h`: the one entry point `int M_run(const M_inputs *in, M_outputs *out, void *workspace)`,
  every input and output (ONNX name, dtype, shape, bytes) as macros and struct fields, the
  workspace size and alignment, and the weights layout;
- `M.c`: one `static int` function per host op, commented with its ONNX node, and `M_run`
  calling them in order; it includes the hand-written runtime (`mrvl_kernels.c`), so the
  kernels have internal linkage and two models link into one program, and with accelerator
  subgraphs lists them in `M_subgraphs` for the board's runner;
- `M_weights.bin`: every constant, 64-byte aligned, after a 64-byte header (see
  `weights_blob`); loaded once with `M_load_weights(path)` or handed over with
  `M_set_weights(data, size)` (linked in, or mapped by the application).

`HostProgram` holds these with the interface they describe; `backend/bundle.py` puts them
in a bundle with the runtime, the Makefile, `metadata.json` and the subgraphs' JSON.

The printer decides nothing: it prints each op's kernel as `select-host-kernels` chose it and
the memory plan `plan-host-memory` recorded on the ops (`mrvl-host-pipeline` runs both; a
function it has not been through is refused): every intermediate tensor and every kernel's
scratch at its offset in the caller's workspace, results the function returns written
straight into the caller's output buffers, an aliasing `cpu.reshape` and an in-place
`cpu.concat` as no code, packed conv weights as they are. Nothing is allocated in `M_run`.
"""

import hashlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import singledispatchmethod

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    BoolAttr,
    FloatAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from mrvl.backend.json_emitter import subgraph_batch
from mrvl_dialect import cpu
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import location_nodes, op_label
from mrvl_dialect.mrvl import SubgraphOp
from mrvl_dialect.graph_queries import constant_value
from mrvl.target.host_kernels import (ELEMENTWISE_PREDICATES, NUMERIC_SUFFIXES, SPATIAL, broadcast_strides,
                                      contiguous_strides, matmul_shapes, merge_dims)

ALIGN = 64
"""Alignment (bytes) of every weight in the blob."""
ELEMENTWISE_ARITHMETIC = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
ELEMENTWISE_UNARY = {"arith.negf": "-{a}", "math.exp": "exp_vec({a})", "math.tanh": "tanh_vec({a})",
                     "math.absf": "pool_abs({a})", "cpu.sigmoid": "sigmoid_vec({a}, 0.0f, 0.0f)"}
ELEMENTWISE_EXTREMA = {"arith.maximumf": ("max", True), "arith.minimumf": ("min", True),
                       "arith.maxnumf": ("max", False), "arith.minnumf": ("min", False)}
"""The body ops of a `cpu.elementwise` in C over vectors: operators, functions of one vector,
and maxima and minima (the kernels' pool_max or pool_min, and whether a NaN wins)."""
WEIGHTS_MAGIC = b"MRVLWTS1"


# --- Types and names ----------------------------------------------------------------


@dataclass(frozen=True)
class CType:
    c: str
    onnx: str
    size: int
    code: str
    """The `enum mrvl_dtype` name."""


def _int(width: int, signed: bool = True) -> IntegerType:
    return IntegerType(width, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)


C_TYPES: dict[Attribute, CType] = {
    f32: CType("float", "float32", 4, "MRVL_F32"),
    f64: CType("double", "float64", 8, "MRVL_F64"),
    f16: CType("uint16_t", "float16", 2, "MRVL_F16"),
    bf16: CType("uint16_t", "bfloat16", 2, "MRVL_BF16"),
    _int(8): CType("int8_t", "int8", 1, "MRVL_I8"),
    _int(16): CType("int16_t", "int16", 2, "MRVL_I16"),
    _int(32): CType("int32_t", "int32", 4, "MRVL_I32"),
    _int(64): CType("int64_t", "int64", 8, "MRVL_I64"),
    _int(8, False): CType("uint8_t", "uint8", 1, "MRVL_U8"),
    _int(16, False): CType("uint16_t", "uint16", 2, "MRVL_U16"),
    _int(32, False): CType("uint32_t", "uint32", 4, "MRVL_U32"),
    _int(64, False): CType("uint64_t", "uint64", 8, "MRVL_U64"),
    i1: CType("uint8_t", "bool", 1, "MRVL_BOOL"),
}

C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void "
    "volatile while _Bool _Complex _Imaginary in out arena weights rc".split()
)
"""C99's keywords (ISO/IEC 9899:1999 §6.4.1) and the names `M_run` itself uses."""


class Names:
    """C identifiers from ONNX names: one sanitiser, keywords dodged, collisions numbered."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.last_number: dict[str, int] = {}
        """The number of the last collision of each base name: the numbers below it are
        taken, so that n ops named alike cost n look-ups, not n^2 / 2."""

    def __call__(self, text: str, prefix: str = "") -> str:
        base = prefix + re.sub(r"[^A-Za-z0-9_]", "_", text).strip("_")
        if not base or base[0].isdigit():
            base = "t_" + base
        if base in C_KEYWORDS:
            base += "_"
        name, k = base, self.last_number.get(base, 1)
        if name in self.used:
            name = f"{base}_{k}"
            while name in self.used:
                k += 1
                name = f"{base}_{k}"
            self.last_number[base] = k
        self.used.add(name)
        return name


def _ctype(value: SSAValue) -> CType:
    assert isinstance(value.type, TensorType)
    return C_TYPES[value.type.element_type]


def _suffix(value: SSAValue) -> str:
    """The suffix of the kernel for `value`'s element type (NUMERIC_SUFFIXES)."""
    return NUMERIC_SUFFIXES[cpu.element_type_of(value)]


def _shape(value: SSAValue) -> tuple[int, ...]:
    return cpu.shape_of(value)


def _matmul_fields(op: cpu.MatmulOp | cpu.MatmulIntegerOp) -> dict[str, object]:
    """The product's shape and batch strides, as `mrvl_matmul_params` holds them."""
    a2, b2, batch = matmul_shapes(op)
    m, k, n = a2[-2], a2[-1], b2[-1]
    a_bs = [s * m * k for s in broadcast_strides(a2[:-2], batch)]
    b_bs = [s * k * n for s in broadcast_strides(b2[:-2], batch)]
    return dict(batch_rank=len(batch), batch=_array(batch or [0]), a_batch_stride=_array(a_bs or [0]),
                b_batch_stride=_array(b_bs or [0]), m=m, k=k, n=n)


def _flag(attr: BoolAttr) -> int:
    """1 or 0 (a true i1 holds -1)."""
    return int(bool(attr.value.data))


def _bytes(value: SSAValue) -> int:
    return math.prod(_shape(value)) * _ctype(value).size


def _c_float(value: float) -> str:
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    text = "%.9g" % float(np.float32(value))
    if not re.search(r"[.e]", text):
        text += ".0"
    return text + "f"


def _array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _node(op: Operation) -> tuple[str, str]:
    """The ONNX node name and op type of `op` (its `NameLoc(name, NameLoc(op_type))`); of the
    first node when it does the work of several (a `FusedLoc`)."""
    nodes = _nodes(op)
    return nodes[0] if nodes else ("", "")


def _nodes(op: Operation) -> list[tuple[str, str]]:
    """The ONNX node names and op types ("" when unknown) of `op`: one, or several when fused."""
    return [(node.name, node.op_type or "") for node in location_nodes(op.location)]


def _label(op: Operation) -> str:
    name, op_type = _node(op)
    return f"node '{name}' ({op_type or op.name})" if name else f"'{op.name}'"


def _comment(text: str) -> str:
    return text.replace("*/", "*\\/")


# --- Weights ------------------------------------------------------------------------


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def weights_blob(arrays: list[np.ndarray]) -> tuple[bytes, list[int]]:
    """The weights file and each array's offset in it.

    Layout: a 64-byte header (the 8 bytes `MRVLWTS1`, the file size and a 64-bit
    checksum (BLAKE2b, 8 bytes) of everything after the header, both little-endian uint64, then zeros),
    then every array's raw little-endian bytes at a 64-byte aligned offset."""
    offsets, chunks, position = [], [], ALIGN
    for array in arrays:
        data = np.ascontiguousarray(array).tobytes()
        offsets.append(position)
        chunks.append(data + b"\0" * (_align(len(data)) - len(data)))
        position += _align(len(data))
    payload = b"".join(chunks)
    header = WEIGHTS_MAGIC + (ALIGN + len(payload)).to_bytes(8, "little") + _checksum(payload).to_bytes(8, "little")
    return header + b"\0" * (ALIGN - len(header)) + payload, offsets


def weights_file_bytes(array_bytes: Iterable[int]) -> int:
    """The size of the weights file `weights_blob` writes for arrays of `array_bytes` bytes."""
    return ALIGN + sum(_align(n) for n in array_bytes)


def weight_constants(block: Block) -> list[ConstantOp]:
    """The constants of a function's `block` that its weights file holds: those something reads."""
    return [op for op in block.ops if isinstance(op, ConstantOp) and op.output.uses]


def _checksum(data: bytes) -> int:
    # A content hash the loader compares with the header's macro; not a cryptographic one.
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


# --- The program ----------------------------------------------------------------------


@dataclass(frozen=True)
class HostTensor:
    """An input or output of the host program: a field of `M_inputs` or `M_outputs`."""

    name: str
    """The ONNX name."""
    c_name: str
    dtype: str
    shape: tuple[int, ...]
    bytes: int


@dataclass(frozen=True)
class HostProgram:
    """The printed C of a model named `model`, and the interface it declares."""

    model: str
    header: str
    source: str
    weights: bytes
    """The weights file (`weights_blob`)."""
    inputs: tuple[HostTensor, ...]
    outputs: tuple[HostTensor, ...]
    workspace: cpu.WorkspaceAttr

    @property
    def header_file(self) -> str:
        return f"{self.model}.h"

    @property
    def source_file(self) -> str:
        return f"{self.model}.c"

    @property
    def weights_file(self) -> str:
        return f"{self.model}_weights.bin"

    def files(self) -> dict[str, str | bytes]:
        """`M.h`, `M.c` and `M_weights.bin`, by name."""
        return {self.header_file: self.header, self.source_file: self.source, self.weights_file: self.weights}


# --- The emitter ----------------------------------------------------------------------


class CEmitter:
    """Prints one `func.func` of `cpu` ops as C (see the module docstring)."""

    def __init__(self, module: ModuleOp, name: str = "", host_threads: int = 1):
        self.module = module
        if host_threads < 1:
            raise CompileError("host-threads", f"must be at least 1, got {host_threads}")
        self.host_threads = host_threads
        """Threads the kernels split their work over (the Makefile's HOST_THREADS default)."""
        functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
        if len(functions) != 1:
            raise CompileError("-t c", f"needs a module with one func.func, got {len(functions)}")
        self.function = functions[0]
        self.model = re.sub(r"[^A-Za-z0-9_]", "_", name or self.function.sym_name.data).lower()
        if not self.model or self.model[0].isdigit():
            self.model = "m_" + self.model
        self.macro = self.model.upper()
        self.names = Names()
        self.op_names = Names()

    # -- per-op C ---------------------------------------------------------------------

    @singledispatchmethod
    def emit(self, op: Operation, x: list[str], y: list[str]) -> list[str]:
        raise NotImplementedError(f"no printer for '{op.name}'")  # select-host-kernels refuses it first

    @emit.register
    def _(self, op: cpu.ConvOp, x: list[str], y: list[str]) -> list[str]:
        fields = self.conv_params(op) | self.epilogue_params(op)
        if op.y_batch is not None:
            fields |= dict(y_batch=op.y_batch.value.data)
        # The optional operands in order (B, R, slope, S, T): each present one takes the next of x.
        present = iter(x[2:])
        bias, residual, slope, scale, shift = (next(present) if v is not None else "NULL"
                                               for v in (op.B, op.R, op.slope, op.S, op.T))
        params = self.params("mrvl_conv_params", fields)
        if op.slope is not None:
            params = self.set_at_run_time(params, f"p.slope = {slope};")
        if op.S is not None or op.T is not None:
            params = self.set_at_run_time(params, f"p.scale = {scale};", f"p.shift = {shift};")
        assert op.kernel is not None
        path = op.kernel.data
        if path in (cpu.ConvKernel.DEPTHWISE, cpu.ConvKernel.DEPTHWISE_BLOCKED, cpu.ConvKernel.POINTWISE,
                    cpu.ConvKernel.WINOGRAD):
            return [*params,
                    f"mrvl_{path}_conv_f32(&p, {x[0]}, {x[1]}, {bias}, {residual}, {y[0]}, scratch);"]
        kernel = "mrvl_flat_conv_f32" if path == cpu.ConvKernel.FLAT else "mrvl_conv_f32"
        if op.packing_floats is None:
            return [*params, f"{kernel}(&p, {x[0]}, {x[1]}, {bias}, {residual}, {y[0]}, scratch);"]
        packed = op.packing_floats.value.data
        return [*params,
                "/* The weights are a run-time tensor: packed into the scratch area first. */",
                f"mrvl_conv_pack_weights_f32(&p, {x[1]}, scratch);",
                f"{kernel}(&p, {x[0]}, scratch, {bias}, {residual}, {y[0]}, scratch + {packed});"]

    @emit.register
    def _(self, op: cpu.ConvTransposeOp, x: list[str], y: list[str]) -> list[str]:
        fields = self.conv_params(op) | self.epilogue_params(op)
        bias = x[2] if op.B is not None else "NULL"
        params = self.params("mrvl_conv_params", fields)
        if op.slope is not None:
            params = self.set_at_run_time(params, f"p.slope = {x[-1]};")
        kernel = "mrvl_conv_transpose_nhwc_f32" if op.channels_last is not None else "mrvl_conv_transpose_f32"
        return [*params, f"{kernel}(&p, {x[0]}, {x[1]}, {bias}, {y[0]}, scratch);"]

    def conv_params(self, op: cpu.ConvOp | cpu.ConvTransposeOp) -> dict[str, object]:
        """The conv kernels' parameters, spatial dims as (depth, height, width) with leading 1s."""
        xs, ws, ys = op.x_shape(), op.weights_shape(), _shape(op.Y)
        if isinstance(op, cpu.ConvTransposeOp):
            ys = tuple(cpu.channels_first(op, ys))
        rank = len(xs) - 2
        group = op.group.value.data
        lead = SPATIAL - rank
        kernel, strides, dilations = ws[2:], op.strides.get_values(), op.dilations.get_values()
        pads = op.pads.get_values()[:rank]
        return dict(n=xs[0], c=xs[1], m=ys[1], group=group, **{
            key: _array([fill] * lead + list(values))
            for key, values, fill in (("in", xs[2:], 1), ("out", ys[2:], 1), ("kernel", kernel, 1),
                                      ("stride", strides, 1), ("dilation", dilations, 1), ("pad", pads, 0))})

    @staticmethod
    def set_at_run_time(params: list[str], *assignments: str) -> list[str]:
        """`params` (self.params's lines) with `assignments` to fields that point into the
        weights, loaded at run time (a PRelu's slopes, a conv's scale and shift): the
        parameters are set in the call, still visible to the compiler."""
        return [params[0].replace("static const ", "", 1), *params[1:], *assignments]

    def params(self, struct: str, fields: dict[str, object]) -> list[str]:
        items = [f".{k} = {v}" for k, v in fields.items()]
        lines, line = [], f"static const {struct} p = {{"
        for item in items:
            if len(line) + len(item) > 100:
                lines.append(line.rstrip())
                line = "    "
            line += item + ", "
        lines.append(line.rstrip(", ") + "};")
        return lines

    @emit.register
    def _(self, op: cpu.GemmOp, x: list[str], y: list[str]) -> list[str]:
        m, n = _shape(op.Y)
        a = _shape(op.A)
        k = a[0] if op.trans_a.value.data else a[1]
        c_strides = broadcast_strides(_shape(op.C), (m, n)) if op.C is not None else [0, 0]
        fields = dict(m=m, n=n, k=k, trans_a=_flag(op.trans_a), trans_b=_flag(op.trans_b),
                      alpha=_c_float(op.alpha.value.data), beta=_c_float(op.beta.value.data),
                      c_row_stride=c_strides[0], c_col_stride=c_strides[1], packed_b=int(op.packed_b is not None))
        c = x[2] if op.C is not None else "NULL"
        scratch = "scratch" if op.scratch is not None else "NULL"
        return [*self.params("mrvl_gemm_params", fields), f"mrvl_gemm_f32(&p, {x[0]}, {x[1]}, {c}, {y[0]}, {scratch});"]


    @emit.register
    def _(self, op: cpu.MatmulOp, x: list[str], y: list[str]) -> list[str]:
        fields = _matmul_fields(op) | dict(packed_b=int(op.packed_b is not None),
                                            transposed_b=int(op.transposed_b is not None))
        bias = x[2] if op.C is not None else "NULL"
        scratch = "scratch" if op.scratch is not None else "NULL"
        params = self.params("mrvl_matmul_params", fields | self.epilogue_params(op))
        if op.slope is not None:
            params = self.set_at_run_time(params, f"p.slope = {x[-1]};")
        return [*params, f"mrvl_matmul_f32(&p, {x[0]}, {x[1]}, {bias}, {y[0]}, {scratch});"]

    def epilogue_params(self, op: cpu.ConvOp | cpu.ConvTransposeOp | cpu.MatmulOp) -> dict[str, object]:
        """The parameters of the clamp and activation fused into `op` (none when it has none)."""
        fields: dict[str, object] = {}
        if (clamp := op.clamp()) is not None:
            fields |= dict(clamp=1, min=_c_float(clamp[0]), max=_c_float(clamp[1]))
        if op.activation is not None:
            fields |= dict(activation=f"MRVL_EPILOGUE_{op.activation.data.name}", **{
                name: _c_float(op.properties[name].value.data)  # type: ignore[attr-defined]
                for name in ("alpha", "beta") if name in op.properties})
        return fields

    def broadcast(self, result: SSAValue, operands: list[SSAValue]) -> list[str]:
        shape = _shape(result)
        strides = [broadcast_strides(_shape(value), shape) for value in operands]
        shape, strides = merge_dims(list(shape), strides)
        fields: dict[str, object] = dict(rank=len(shape), shape=_array(shape or [0]))
        for key, operand_strides in zip(("a_stride", "b_stride", "c_stride"), strides):
            fields[key] = _array(operand_strides or [0])
        return self.params("mrvl_broadcast", fields)

    @emit.register
    def _(self, op: cpu.BinaryOp, x: list[str], y: list[str]) -> list[str]:
        suffix = "bool" if cpu.element_type_of(op.lhs) == i1 else _suffix(op.lhs)
        return [*self.broadcast(op.result, [op.lhs, op.rhs]),
                f"mrvl_binary_{suffix}(MRVL_{op.kind.data.name}, &p, {x[0]}, {x[1]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.WhereOp, x: list[str], y: list[str]) -> list[str]:
        size = _ctype(op.output).size
        return [*self.broadcast(op.output, [op.condition, op.X, op.Y]),
                f"mrvl_where(&p, {x[0]}, {x[1]}, {x[2]}, {y[0]}, {size});"]

    @emit.register
    def _(self, op: cpu.UnaryOp, x: list[str], y: list[str]) -> list[str]:
        count = math.prod(_shape(op.output))
        if op.kind.data == cpu.UnaryKind.NOT:
            return [f"mrvl_not({count}, {x[0]}, {y[0]});"]
        if op.kind.data == cpu.UnaryKind.IDENTITY:
            return [f"memcpy({y[0]}, {x[0]}, {_bytes(op.output)});"]
        return [f"mrvl_unary_{_suffix(op.input)}(MRVL_{op.kind.data.name}, {count}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.ClipOp, x: list[str], y: list[str]) -> list[str]:
        low, high = _c_float(op.min.value.data), _c_float(op.max.value.data)
        return [f"mrvl_clip_f32({math.prod(_shape(op.output))}, {low}, {high}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.LeakyReluOp, x: list[str], y: list[str]) -> list[str]:
        alpha = _c_float(op.alpha.value.data)
        return [f"mrvl_leaky_relu_f32({math.prod(_shape(op.output))}, {alpha}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.HardSigmoidOp, x: list[str], y: list[str]) -> list[str]:
        alpha, beta = _c_float(op.alpha.value.data), _c_float(op.beta.value.data)
        return [f"mrvl_hard_sigmoid_f32({math.prod(_shape(op.output))}, {alpha}, {beta}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.HardSwishOp, x: list[str], y: list[str]) -> list[str]:
        return [f"mrvl_hard_swish_f32({math.prod(_shape(op.output))}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.ElementwiseOp, x: list[str], y: list[str]) -> list[str]:
        assert op.loop is not None and op.strides is not None
        loop = list(op.loop.get_values())
        rank, flat = len(loop), list(op.strides.get_values())
        strides = [flat[k * rank:(k + 1) * rank] for k in range(len(op.inputs))]
        inner, outer = loop[-1], range(rank - 1)
        row = list(op.out_strides.get_values()) if op.out_strides is not None else contiguous_strides(tuple(loop))
        where = (f", in place over x{op.in_place.value.data}" if op.in_place is not None
                 else ", into a slice of a concat's output" if op.out_strides is not None else "")
        lines = [f"/* {' x '.join(map(str, loop))} elements{where} */"]
        block = op.body.block
        names: dict[SSAValue, str] = {}
        constants = []
        for n, scalar in enumerate(block.ops):
            if isinstance(scalar, arith.ConstantOp):
                assert isinstance(scalar.value, FloatAttr)
                names[scalar.result] = f"c{n}"
                constants.append(f"const pool_vec c{n} = (pool_vec){{0}} + {_c_float(scalar.value.value.data)};")
        lines += constants
        indent = ""
        for d in outer:
            lines.append(f"{indent}for (int64_t i{d} = 0; i{d} < {loop[d]}; i{d}++) {{")
            indent += "    "

        def offset(steps: list[int]) -> str:
            terms = [f"i{d} * {steps[d]}" if steps[d] != 1 else f"i{d}" for d in outer if steps[d]]
            return f" + {' + '.join(terms)}" if terms else ""

        splats = []
        for k, arg in enumerate(block.args):
            lines.append(f"{indent}const float *p{k} = x{k}{offset(strides[k])};")
            if strides[k][-1] == 0:
                names[arg] = f"s{k}"
                splats.append(f"{indent}const pool_vec s{k} = (pool_vec){{0}} + p{k}[0]; /* broadcast along the row */")
        lines += [f"{indent}float *q = y0{offset(row)};", *splats]
        rows = [k for k in range(len(block.args)) if strides[k][-1]]

        yielded = block.last_op
        assert isinstance(yielded, cpu.YieldOp)

        def body(load: str) -> tuple[list[str], str]:
            """The body's statements on one vector of each input, read by `load`, and its result."""
            values = dict(names)
            text = [f"pool_vec a{k} = {load.format(k=k)};" for k in rows]
            values |= {block.args[k]: f"a{k}" for k in rows}
            for n, scalar in enumerate(block.ops):
                if not isinstance(scalar, arith.ConstantOp | cpu.YieldOp):
                    vector = "pool_mask" if isinstance(scalar, arith.CmpfOp) else "pool_vec"
                    text.append(f"{vector} t{n} = {self.vector_expression(scalar, values)};")
                    values[scalar.results[0]] = f"t{n}"
            return text, values[yielded.arguments[0]]

        main, result = body("pool_load(p{k} + j)")
        tail, tail_result = body(f"pool_load_part(p{{k}} + j, {inner} - j)")
        lines += [f"{indent}int64_t j = 0;",
                  f"{indent}for (; j + MRVL_POOL_VF <= {inner}; j += MRVL_POOL_VF) {{",
                  *(f"{indent}    {line}" for line in main),
                  f"{indent}    pool_store(q + j, {result});", f"{indent}}}",
                  f"{indent}if (j < {inner}) {{ /* the last part of a row */",
                  *(f"{indent}    {line}" for line in tail),
                  f"{indent}    pool_store_part(q + j, {tail_result}, {inner} - j);",
                  f"{indent}}}"]
        for d in reversed(outer):
            indent = indent[4:]
            lines.append(f"{indent}}}")
        return lines

    @staticmethod
    def vector_expression(scalar: Operation, values: dict[SSAValue, str]) -> str:
        """The C expression of a `cpu.elementwise` body op over vectors of MRVL_POOL_VF floats.
        pool_max and pool_min give their second operand where either is NaN: a maximum or
        minimum with a number constant puts it where that is the op's NaN rule (second for
        maxnumf and minnumf, first for maximumf and minimumf), one of two vectors selects."""
        a = values[scalar.operands[0]]
        if len(scalar.operands) == 1:
            return ELEMENTWISE_UNARY[scalar.name].format(a=a)
        b = values[scalar.operands[1]]
        if isinstance(scalar, arith.CmpfOp):
            return f"{a} {ELEMENTWISE_PREDICATES[arith.CMPF_COMPARISON_OPERATIONS[scalar.predicate.value.data]]} {b}"
        if isinstance(scalar, arith.SelectOp):
            return f"pool_select({a}, {b}, {values[scalar.operands[2]]})"
        if scalar.name in ELEMENTWISE_ARITHMETIC:
            return f"{a} {ELEMENTWISE_ARITHMETIC[scalar.name]} {b}"
        pick, propagate = ELEMENTWISE_EXTREMA[scalar.name]
        constant = [isinstance(v.owner, arith.ConstantOp) and not math.isnan(v.owner.value.value.data)
                    for v in scalar.operands]
        if propagate:  # NaN wins: a NaN operand must come second, or be picked
            if constant[0]:
                return f"pool_{pick}({a}, {b})"
            if constant[1]:
                return f"pool_{pick}({b}, {a})"
            return f"pool_select({a} != {a}, {a}, pool_{pick}({a}, {b}))"
        if constant[1]:  # the number wins: the constant comes second
            return f"pool_{pick}({a}, {b})"
        if constant[0]:
            return f"pool_{pick}({b}, {a})"
        return f"pool_select({b} != {b}, {a}, pool_{pick}({a}, {b}))"

    @emit.register
    def _(self, op: cpu.DropoutOp, x: list[str], y: list[str]) -> list[str]:
        mask = y[1] if op.mask is not None else "NULL"
        return [f"mrvl_dropout_f32({math.prod(_shape(op.output))}, {_c_float(op.ratio.value.data)}, "
                f"{op.seed.value.data}u, {x[0]}, {y[0]}, {mask});"]

    @emit.register
    def _(self, op: cpu.CastOp, x: list[str], y: list[str]) -> list[str]:
        count = math.prod(_shape(op.output))
        return [f"mrvl_cast({count}, {_ctype(op.input).code}, {x[0]}, {_ctype(op.output).code}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.QuantizeOp | cpu.DequantizeOp, x: list[str], y: list[str]) -> list[str]:
        shape, axis, block = _shape(op.input), op.axis.value.data, op.block_size.value.data
        scale = _shape(op.scale)
        fields: dict[str, object] = dict(outer=math.prod(shape[:axis]), axis=shape[axis] if shape else 1,
                                         inner=math.prod(shape[axis + 1:]), block=block or 1)
        if block:  # the scale tensor's own strides around the axis
            fields |= dict(scale_outer=math.prod(scale[axis:]), scale_axis=math.prod(scale[axis + 1:]), scale_inner=1)
        elif math.prod(scale) != 1:
            fields |= dict(scale_outer=0, scale_axis=1, scale_inner=0)
        else:
            fields |= dict(scale_outer=0, scale_axis=0, scale_inner=0)
        integer = op.output if isinstance(op, cpu.QuantizeOp) else op.input
        suffix = NUMERIC_SUFFIXES.get(integer.type.element_type)  # type: ignore[attr-defined]
        kernel = "quantize" if isinstance(op, cpu.QuantizeOp) else "dequantize"
        zero_point = x[2] if op.zero_point is not None else "NULL"
        return [*self.params("mrvl_quant_params", fields),
                f"mrvl_{kernel}_{suffix}(&p, {x[0]}, {x[1]}, {zero_point}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.DynamicQuantizeOp, x: list[str], y: list[str]) -> list[str]:
        return [f"mrvl_dynamic_quantize_u8({math.prod(_shape(op.input))}, {x[0]}, {y[0]}, {y[1]}, {y[2]});"]

    @emit.register
    def _(self, op: cpu.MatmulIntegerOp, x: list[str], y: list[str]) -> list[str]:
        fields = _matmul_fields(op)
        zeros = iter(x[2:])
        a_zero = next(zeros) if op.a_zero_point is not None else "NULL"
        b_zero = next(zeros) if op.b_zero_point is not None else "NULL"
        per_row = int(op.a_zero_point is not None and math.prod(_shape(op.a_zero_point)) > 1)
        per_column = int(op.b_zero_point is not None and math.prod(_shape(op.b_zero_point)) > 1)
        suffix = _suffix(op.A) + _suffix(op.B)
        return [*self.params("mrvl_matmul_params", fields),
                f"mrvl_matmul_integer_{suffix}(&p, {x[0]}, {x[1]}, {a_zero}, {per_row}, {b_zero}, {per_column}, "
                f"{y[0]});"]

    @emit.register
    def _(self, op: cpu.ConvIntegerOp, x: list[str], y: list[str]) -> list[str]:
        (n, c, h, w), (m, _, kh, kw), (_, _, oh, ow) = _shape(op.X), _shape(op.W), _shape(op.Y)
        strides, dilations, pads = (list(a.get_values()) for a in (op.strides, op.dilations, op.pads))
        fields = dict(n=n, c=c, h=h, w=w, m=m, kh=kh, kw=kw, oh=oh, ow=ow, group=op.group.value.data,
                      stride_h=strides[0], stride_w=strides[1], dilation_h=dilations[0], dilation_w=dilations[1],
                      pad_top=pads[0], pad_left=pads[1])
        operands = iter(x[2:])
        x_zero, w_zero, bias = (next(operands) if v is not None else "NULL"
                                for v in (op.x_zero_point, op.w_zero_point, op.bias))
        per_channel = int(op.w_zero_point is not None and math.prod(_shape(op.w_zero_point)) > 1)
        return [*self.params("mrvl_conv_integer_params", fields),
                f"mrvl_conv_integer_{_suffix(op.X)}{_suffix(op.W)}(&p, {x[0]}, {x[1]}, {x_zero}, {w_zero}, "
                f"{per_channel}, {bias}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.QLinearConvOp, x: list[str], y: list[str]) -> list[str]:
        if op.packed_weights is None:
            raise CompileError(_label(op), "its weights are not packed: run plan-host-memory (mrvl-host-pipeline)")
        (n, c, h, w), (m, _, kh, kw), (_, _, oh, ow) = _shape(op.x), op.weights_shape(), _shape(op.y)
        strides, dilations, pads = (list(a.get_values()) for a in (op.strides, op.dilations, op.pads))
        y_signed = cpu.element_type_of(op.y) == IntegerType(8)
        lo, hi = (-128, 127) if y_signed else (0, 255)
        if op.min is not None:
            lo = max(lo, op.min.value.data)
        if op.max is not None:
            hi = min(hi, op.max.value.data)
        fields = dict(n=n, c=c, h=h, w=w, m=m, kh=kh, kw=kw, oh=oh, ow=ow, group=op.group.value.data,
                      stride_h=strides[0], stride_w=strides[1], dilation_h=dilations[0], dilation_w=dilations[1],
                      pad_top=pads[0], pad_left=pads[1], x_signed=int(cpu.element_type_of(op.x) == IntegerType(8)),
                      y_signed=int(y_signed), w_shift=op.w_shift.value.data if op.w_shift is not None else 0,
                      w_scale_channels=int(math.prod(_shape(op.w_scale)) > 1),
                      w_zero_channels=int(math.prod(_shape(op.w_zero_point)) > 1),
                      depthwise=int(op.is_depthwise()), y_min=lo, y_max=hi)
        bias = x[8] if op.B is not None else "NULL"
        return [*self.params("mrvl_qconv_params", fields),
                f"mrvl_qlinear_conv(&p, {x[0]}, {x[1]}, {x[2]}, (const int8_t *){x[3]}, {x[4]}, {x[5]}, {x[6]}, "
                f"{x[7]}, {bias}, {y[0]}, scratch);"]

    @emit.register
    def _(self, op: cpu.RequantizeOp, x: list[str], y: list[str]) -> list[str]:
        shape = _shape(op.input)
        m, n = (shape[-2] if len(shape) > 1 else 1), (shape[-1] if shape else 1)
        matrices = math.prod(shape) // (m * n)
        a_rows, b_columns = (int(math.prod(_shape(v)) > 1) for v in (op.row_scale, op.column_scale))
        return [f"mrvl_requantize_{_suffix(op.output)}({matrices}, {m}, {n}, {x[0]}, {x[1]}, {a_rows}, {x[2]}, "
                f"{b_columns}, {x[3]}, {x[4]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.RescaleOp, x: list[str], y: list[str]) -> list[str]:
        return [f"mrvl_rescale_{_suffix(op.input)}{_suffix(op.output)}({math.prod(_shape(op.input))}, {x[0]}, "
                f"{x[1]}, {x[2]}, {x[3]}, {x[4]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.QLinearSoftmaxOp, x: list[str], y: list[str]) -> list[str]:
        s, axis = _shape(op.input), op.axis.value.data
        return [f"mrvl_qlinear_softmax_{_suffix(op.input)}({math.prod(s[:axis])}, {s[axis]}, "
                f"{math.prod(s[axis + 1:])}, {x[0]}, {x[1]}, {x[2]}, {x[3]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.QLinearAddOp, x: list[str], y: list[str]) -> list[str]:
        return [f"mrvl_qlinear_add_{_suffix(op.output)}({math.prod(_shape(op.output))}, {', '.join(x)}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.SoftmaxOp, x: list[str], y: list[str]) -> list[str]:
        s, axis = _shape(op.input), op.axis.value.data
        if op.log is not None:
            return [f"mrvl_log_softmax_{_suffix(op.input)}({math.prod(s[:axis])}, {s[axis]}, "
                    f"{math.prod(s[axis + 1:])}, {x[0]}, {y[0]});"]
        return [f"mrvl_softmax_f32({math.prod(s[:axis])}, {s[axis]}, {math.prod(s[axis + 1:])}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.LayerNormOp, x: list[str], y: list[str]) -> list[str]:
        s, axis = _shape(op.X), op.axis.value.data
        bias = x[2] if op.B is not None else "NULL"
        eps = _c_float(op.epsilon.value.data)
        return [f"mrvl_layer_norm_f32({math.prod(s[:axis])}, {math.prod(s[axis:])}, {eps}, {x[0]}, {x[1]}, "
                f"{bias}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.BatchNormOp, x: list[str], y: list[str]) -> list[str]:
        s = _shape(op.X)
        eps = _c_float(op.epsilon.value.data)
        if op.channels_last is not None:
            return [f"mrvl_batch_norm_nhwc_f32({math.prod(s[:-1])}, {s[-1]}, {eps}, {', '.join(x)}, {y[0]}, scratch);"]
        return [f"mrvl_batch_norm_f32({s[0]}, {s[1]}, {math.prod(s[2:])}, {eps}, {', '.join(x)}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.PoolOp, x: list[str], y: list[str]) -> list[str]:
        xs, ys = cpu.channels_first(op, _shape(op.input)), cpu.channels_first(op, _shape(op.output))
        rank = len(xs) - 2
        lead = SPATIAL - rank
        pads = list(op.pads.get_values())
        fields: dict[str, object] = dict(n=xs[0], c=xs[1])
        for key, values, fill in (("in", xs[2:], 1), ("out", ys[2:], 1), ("kernel", op.kernel.get_values(), 1),
                                  ("stride", op.strides.get_values(), 1), ("dilation", op.dilations.get_values(), 1),
                                  ("pad_begin", pads[:rank], 0), ("pad_end", pads[rank:], 0)):
            fields[key] = _array([fill] * lead + list(values))
        fields |= dict(is_max=int(op.kind.data == cpu.PoolKind.MAX),
                       count_include_pad=_flag(op.count_include_pad))
        if op.indices is not None:
            column_major = op.storage_order.value.data  # type: ignore[union-attr]
            return [*self.params("mrvl_pool_params", fields),
                    f"mrvl_max_pool_indices_f32(&p, {column_major}, {x[0]}, {y[0]}, {y[1]});"]
        kernel = "mrvl_pool_nhwc_f32" if op.channels_last is not None else "mrvl_pool_f32"
        if cpu.element_type_of(op.input) in cpu.INTEGER_PRODUCT_TYPES:
            kernel = f"mrvl_max_pool_{_suffix(op.input)}"
        return [*self.params("mrvl_pool_params", fields), f"{kernel}(&p, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.GlobalPoolOp, x: list[str], y: list[str]) -> list[str]:
        s = _shape(op.input)
        is_max = int(op.kind.data == cpu.PoolKind.MAX)
        if op.channels_last is not None:
            return [f"mrvl_global_pool_nhwc_f32({is_max}, {s[0]}, {math.prod(s[1:-1])}, {s[-1]}, {x[0]}, {y[0]});"]
        return [f"mrvl_global_pool_f32({is_max}, {s[0] * s[1]}, {math.prod(s[2:])}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.ReduceOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.input)
        s, axes = _shape(op.input), set(op.axes.get_values())
        kept = tuple(1 if i in axes else d for i, d in enumerate(s))
        out_stride = [0 if i in axes else st for i, st in enumerate(contiguous_strides(kept))]
        count = math.prod(s[i] for i in axes)
        return [f"static const int64_t shape[] = {_array(s or [0])}, out_stride[] = {_array(out_stride or [0])};",
                f"mrvl_reduce_{suffix}(MRVL_REDUCE_{op.kind.data.name}, {len(s)}, shape, out_stride, "
                f"{math.prod(kept)}, {count}, {x[0]}, {y[0]});"]

    def copy_nd(self, shape, src: str, src_stride, dst: str, dst_stride, elem: int) -> list[str]:
        if not shape:
            shape, src_stride, dst_stride = [1], [1], [1]
        return ["{",
                f"    static const int64_t shape[] = {_array(shape)}, src_stride[] = {_array(src_stride)}, "
                f"dst_stride[] = {_array(dst_stride)};",
                f"    mrvl_copy_nd({len(shape)}, shape, {src}, src_stride, {dst}, dst_stride, {elem});",
                "}"]

    @emit.register
    def _(self, op: cpu.ConcatOp, x: list[str], y: list[str]) -> list[str]:
        out, axis = _shape(op.output), op.axis.value.data
        out_strides, lines, position = contiguous_strides(out), [], 0
        written = set(op.in_place.get_values()) if op.in_place is not None else set()
        for k, (name, value) in enumerate(zip(x, op.inputs)):
            s = _shape(value)
            if k in written:
                lines.append(f"/* x{k}: written into its slice by its producer */")
            else:
                dst = f"{y[0]} + {position * out_strides[axis]}"
                lines += self.copy_nd(s, name, contiguous_strides(s), dst, out_strides, _ctype(value).size)
            position += s[axis]
        return lines

    @emit.register
    def _(self, op: cpu.ReshapeOp, x: list[str], y: list[str]) -> list[str]:
        return [f"memcpy({y[0]}, {x[0]}, {_bytes(op.output)});"]

    @emit.register
    def _(self, op: cpu.TransposeOp, x: list[str], y: list[str]) -> list[str]:
        s, perm, out = _shape(op.input), list(op.perm.get_values()), _shape(op.output)
        strides = contiguous_strides(s)
        return self.copy_nd(out, x[0], [strides[p] for p in perm], y[0], contiguous_strides(out), _ctype(op.output).size)

    @emit.register
    def _(self, op: cpu.SliceOp, x: list[str], y: list[str]) -> list[str]:
        s, out = _shape(op.input), _shape(op.output)
        starts, steps = list(op.starts.get_values()), list(op.steps.get_values())
        strides = contiguous_strides(s)
        if math.prod(out) == 0:
            return ["/* empty result */"]
        offset = sum(a * b for a, b in zip(starts, strides))
        return self.copy_nd(out, f"{x[0]} + {offset}", [st * k for st, k in zip(strides, steps)], y[0],
                            contiguous_strides(out), _ctype(op.output).size)

    @emit.register
    def _(self, op: cpu.SplitOp, x: list[str], y: list[str]) -> list[str]:
        s, axis = _shape(op.input), op.axis.value.data
        strides = list(op.in_strides.get_values()) if op.in_strides is not None else contiguous_strides(s)
        unwritten = set(op.in_place.get_values()) if op.in_place is not None else set()
        lines, position = [], 0
        for k, (name, value) in enumerate(zip(y, op.outputs)):
            out = _shape(value)
            if k in unwritten:
                lines.append(f"/* y{k}: in place in the concat that reads it */")
            else:
                lines += self.copy_nd(out, f"{x[0]} + {position * strides[axis]}", strides, name,
                                      contiguous_strides(out), _ctype(value).size)
            position += out[axis]
        return lines

    @emit.register
    def _(self, op: cpu.GatherOp, x: list[str], y: list[str]) -> list[str]:
        s, axis = _shape(op.data), op.axis.value.data
        count = math.prod(_shape(op.indices))
        is64 = int(op.indices.type.element_type == _int(64))  # type: ignore[attr-defined]
        return [f"return mrvl_gather({math.prod(s[:axis])}, {s[axis]}, {math.prod(s[axis + 1:])}, {x[0]}, "
                f"{count}, {x[1]}, {is64}, {y[0]}, {_ctype(op.data).size});"]

    @emit.register
    def _(self, op: cpu.PadOp, x: list[str], y: list[str]) -> list[str]:
        s, out, pads = _shape(op.input), _shape(op.output), list(op.pads.get_values())
        if math.prod(out) == 0:
            return ["/* empty result */"]
        ctype = _ctype(op.output)
        numpy_type = {"bfloat16": None, "bool": np.bool_}.get(ctype.onnx, ctype.onnx)
        value = op.value.value.data
        if numpy_type is None:
            fill = np.array([np.float32(value)]).view(np.uint32) >> 16
            fill_bytes = fill.astype("<u2").tobytes()
        else:
            fill_bytes = np.array([value]).astype(numpy_type).tobytes()
        if not s:
            s, out, pads = (1,), (1,), [0, 0]
        return [f"static const int64_t in_shape[] = {_array(s)}, out_shape[] = {_array(out)}, "
                f"pads[] = {_array(pads)};",
                f"static const unsigned char fill[] = {_array(fill_bytes)};",
                f"mrvl_pad(MRVL_PAD_{op.mode.data.name}, {len(s)}, in_shape, out_shape, pads, fill, {x[0]}, {y[0]}, "
                f"{ctype.size});"]

    @emit.register
    def _(self, op: cpu.ResizeOp, x: list[str], y: list[str]) -> list[str]:
        s, out, scales = _shape(op.input), _shape(op.output), list(op.scales.get_values())
        mode = op.mode.data
        cropping = op.roi is not None
        fields = dict(rank=len(s), in_shape=_array(s), out_shape=_array(out),
                      scale="{" + ", ".join(_c_float(v) for v in scales) + "}",
                      mode=f"MRVL_RESIZE_{mode.name}",
                      coordinate_mode=f"MRVL_{op.coordinate_transformation_mode.data.name}",
                      nearest_mode={"FLOOR": "MRVL_NEAREST_FLOOR", "CEIL": "MRVL_NEAREST_CEIL"}.get(
                          op.nearest_mode.data.name, f"MRVL_{op.nearest_mode.data.name}"),
                      cubic_coeff_a=_c_float(op.cubic_coeff_a.value.data),
                      exclude_outside=_flag(op.exclude_outside))
        if cropping:
            roi = list(op.roi.get_values())  # type: ignore[union-attr]
            starts, ends = roi[:len(s)], roi[len(s):]
            fields |= dict(roi_start="{" + ", ".join(_c_float(v) for v in starts) + "}",
                           roi_end="{" + ", ".join(_c_float(v) for v in ends) + "}",
                           extrapolation_value=_c_float(op.extrapolation_value.value.data))
        if op.antialias.value.data:
            fields["antialias"] = 1
        if op.out_strides is not None:
            fields["out_row"] = list(op.out_strides.get_values())[-2]
        assert op.kernel is not None
        if op.kernel.data == cpu.ResizeKernel.FILTERED:
            call = f"mrvl_resize_filtered_f32(&p, {x[0]}, {y[0]}, scratch);"
        elif op.kernel.data == cpu.ResizeKernel.TAPS:
            call = f"mrvl_resize_f32(&p, {x[0]}, {y[0]});"
        else:
            call = f"mrvl_resize_nearest(&p, {x[0]}, {y[0]}, {_ctype(op.output).size});"
        return [*self.params("mrvl_resize_params", fields), call]

    @emit.register
    def _(self, op: cpu.DepthToSpaceOp, x: list[str], y: list[str]) -> list[str]:
        n, c, h, w = _shape(op.input)
        b = op.blocksize.value.data
        c2 = c // (b * b)
        if op.mode.data == cpu.DepthToSpaceMode.DCR:  # x as (n, b, b, c2, h, w)
            st = contiguous_strides((n, b, b, c2, h, w))
            src = [st[0], st[3], st[4], st[1], st[5], st[2]]
        else:  # CRD: x as (n, c2, b, b, h, w)
            st = contiguous_strides((n, c2, b, b, h, w))
            src = [st[0], st[1], st[4], st[2], st[5], st[3]]
        shape = (n, c2, h, b, w, b)
        return self.copy_nd(shape, x[0], src, y[0], contiguous_strides(shape), _ctype(op.output).size)

    @emit.register
    def _(self, op: cpu.ExpandOp, x: list[str], y: list[str]) -> list[str]:
        out = _shape(op.output)
        return self.copy_nd(out, x[0], broadcast_strides(_shape(op.input), out), y[0], contiguous_strides(out),
                            _ctype(op.output).size)

    @staticmethod
    def axis_split(value: SSAValue, axis: int) -> str:
        """`outer, dim, inner`: `value`'s shape as three dims around `axis`, for the kernels along one axis."""
        s = _shape(value)
        return f"{math.prod(s[:axis])}, {s[axis]}, {math.prod(s[axis + 1:])}"

    @emit.register
    def _(self, op: cpu.ArgReduceOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.input)
        is_max = int(op.kind.data == cpu.ArgReduceKind.MAX)
        last = _flag(op.select_last_index)
        return [f"mrvl_arg_reduce_{suffix}({is_max}, {last}, {self.axis_split(op.input, op.axis.value.data)}, "
                f"{x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.HardmaxOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.input)
        return [f"mrvl_hardmax_{suffix}({self.axis_split(op.input, op.axis.value.data)}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.CumulativeOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.input)
        flags = [int(op.kind.data == cpu.CumulativeKind.PROD), _flag(op.exclusive),
                 _flag(op.reverse)]
        return [f"mrvl_cumulative_{suffix}({', '.join(map(str, flags))}, "
                f"{self.axis_split(op.input, op.axis.value.data)}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.TopKOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.input)
        return [f"mrvl_top_k_{suffix}({_flag(op.largest)}, {self.axis_split(op.input, op.axis.value.data)}, "
                f"{op.k.value.data}, {x[0]}, {y[0]}, {y[1]}, (int64_t *)(void *)scratch);"]

    @emit.register
    def _(self, op: cpu.RmsNormOp, x: list[str], y: list[str]) -> list[str]:
        s, axis = _shape(op.X), op.axis.value.data
        eps = _c_float(op.epsilon.value.data)
        return [f"mrvl_rms_norm_f32({math.prod(s[:axis])}, {math.prod(s[axis:])}, {eps}, {x[0]}, {x[1]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.GatherElementsOp, x: list[str], y: list[str]) -> list[str]:
        s, out = _shape(op.data), _shape(op.output)
        is64 = int(op.indices.type.element_type == _int(64))  # type: ignore[attr-defined]
        return [f"static const int64_t data_shape[] = {_array(s)}, shape[] = {_array(out)};",
                f"return mrvl_gather_elements({len(s)}, data_shape, shape, {op.axis.value.data}, {x[0]}, {x[1]}, "
                f"{is64}, {y[0]}, {_ctype(op.data).size});"]

    @emit.register
    def _(self, op: cpu.TriluOp, x: list[str], y: list[str]) -> list[str]:
        s = _shape(op.input)
        rows, cols = s[-2], s[-1]
        k = min(max(op.k.value.data, -rows), cols)  # beyond these the triangle is all or nothing
        return [f"mrvl_trilu({_flag(op.upper)}, {k}, {math.prod(s[:-2])}, {rows}, {cols}, {x[0]}, {y[0]}, "
                f"{_ctype(op.output).size});"]

    @emit.register
    def _(self, op: cpu.RangeOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.output)
        return [f"mrvl_range_{suffix}({_shape(op.output)[0]}, {x[0]}, {x[1]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.ActivationOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.input)
        alpha = _c_float(op.alpha.value.data)
        gamma = _c_float(op.gamma.value.data) if op.gamma is not None else "0.0f"
        return [f"mrvl_activation_{suffix}(MRVL_{op.kind.data.name}, {math.prod(_shape(op.output))}, {alpha}, "
                f"{gamma}, {x[0]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.ScatterElementsOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.data)
        s, idx = _shape(op.data), _shape(op.indices)
        is64 = int(op.indices.type.element_type == _int(64))  # type: ignore[attr-defined]
        return [f"static const int64_t data_shape[] = {_array(s)}, shape[] = {_array(idx)};",
                f"return mrvl_scatter_elements_{suffix}(MRVL_SCATTER_{op.reduction.data.name}, {len(s)}, data_shape, "
                f"shape, {op.axis.value.data}, {x[0]}, {x[1]}, {is64}, {x[2]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.ScatterNdOp, x: list[str], y: list[str]) -> list[str]:
        suffix = _suffix(op.data)
        s, idx = _shape(op.data), _shape(op.indices)
        depth = idx[-1]
        return [f"static const int64_t data_shape[] = {_array(s)};",
                f"return mrvl_scatter_nd_{suffix}(MRVL_SCATTER_{op.reduction.data.name}, {len(s)}, data_shape, "
                f"{math.prod(idx[:-1])}, {depth}, {math.prod(s[depth:])}, {x[0]}, {x[1]}, {x[2]}, {y[0]});"]

    @emit.register
    def _(self, op: cpu.RecurrentOp, x: list[str], y: list[str]) -> list[str]:
        seq, batch, size, hidden = op.sizes()
        per_direction = op.kind.data.activations
        rows: dict[str, list[list[str]]] = {"activation": [], "alpha": [], "beta": []}
        for d in range(op.directions()):
            part = slice(d * per_direction, (d + 1) * per_direction)
            rows["activation"].append([f"MRVL_RNN_{a.data.name}" for a in op.activations.data[part]])
            rows["alpha"].append([_c_float(v) for v in op.alphas.get_values()[part]])
            rows["beta"].append([_c_float(v) for v in op.betas.get_values()[part]])
        fields: dict[str, object] = dict(
            kind=f"MRVL_{op.kind.data.name}", seq=seq, batch=batch, input=size, hidden=hidden,
            directions=op.directions(), reverse=int(op.direction.data == cpu.RecurrentDirection.REVERSE),
            batch_major=op.layout.value.data,
            **{key: "{" + ", ".join("{" + ", ".join(row) + "}" for row in table) + "}" for key, table in rows.items()})
        if op.clip is not None:
            fields |= dict(has_clip=1, clip=_c_float(op.clip.value.data))
        fields |= dict(input_forget=int(op.input_forget is not None),
                       linear_before_reset=int(op.linear_before_reset is not None))
        if op.quantized_hidden is not None:
            fields |= dict(quantized_hidden=1)
        operands = iter(x[3:])
        inputs = [next(operands) if value is not None else "NULL"
                  for value in (op.B, op.sequence_lens, op.initial_h, op.initial_c, op.P)]
        results = iter(y)
        outputs = [next(results) if value is not None else "NULL" for value in (op.Y, op.Y_h, op.Y_c)]
        return [*self.params("mrvl_recurrent_params", fields),
                f"return mrvl_recurrent_f32(&p, {x[0]}, {x[1]}, {x[2]}, {', '.join(inputs)}, {', '.join(outputs)}, "
                "scratch);"]

    @emit.register
    def _(self, op: cpu.CallMlipOp, x: list[str], y: list[str]) -> list[str]:
        symbol = op.callee.root_reference.data
        if (chunks := op.chunk_count()) > 1:
            # Each call takes the next slice of every operand and result: contiguous, dim 0 leading.
            step = [math.prod(_shape(v)) // chunks for v in (*op.args, *op.res)]
            inputs = [f"{name} + chunk * {n}" for name, n in zip(x, step)]
            outputs = [f"{name} + chunk * {n}" for name, n in zip(y, step[len(x):])]
            return ["if (!mlip_run) return MRVL_ERR_NO_MLIP;",
                    f"for (int64_t chunk = 0; chunk < {chunks}; chunk++) {{",
                    f"    const void *const inputs[] = {{{', '.join(inputs) or 'NULL'}}};",
                    f"    void *const outputs[] = {{{', '.join(outputs) or 'NULL'}}};",
                    f"    if (mlip_run(mlip_context, \"{symbol}\", inputs, outputs) != 0) return MRVL_ERR_MLIP;",
                    "}",
                    "return MRVL_OK;"]
        return [f"const void *const inputs[] = {{{', '.join(x) or 'NULL'}}};",
                f"void *const outputs[] = {{{', '.join(y) or 'NULL'}}};",
                "if (!mlip_run) return MRVL_ERR_NO_MLIP;",
                f"return mlip_run(mlip_context, \"{symbol}\", inputs, outputs) == 0 ? MRVL_OK : MRVL_ERR_MLIP;"]

    # -- the whole function -------------------------------------------------------------

    def program(self) -> "HostProgram":
        """The C of a function `mrvl-host-pipeline` has prepared."""
        block = self.function.body.block
        ret = block.last_op
        assert isinstance(ret, func.ReturnOp)
        ops = [op for op in block.ops if not isinstance(op, ConstantOp | func.ReturnOp)]
        for marker, what in ((cpu.KERNELS_SELECTED, "no host kernels chosen"), (cpu.WORKSPACE, "no host memory plan")):
            if marker not in self.function.attributes:
                raise CompileError(f"@{self.function.sym_name.data}", f"has {what}: run mrvl-host-pipeline first "
                                   "(mrvl-opt -p mrvl-pipeline,mrvl-host-pipeline -t c)")
        workspace = self.function.attributes[cpu.WORKSPACE]
        assert isinstance(workspace, cpu.WorkspaceAttr)

        # Interface.
        arg_attrs = self.function.arg_attrs.data if self.function.arg_attrs else ()
        res_attrs = self.function.res_attrs.data if self.function.res_attrs else ()

        def onnx_name(attrs, i: int, default: str) -> str:
            label = attrs[i].data.get("graph.name") if i < len(attrs) else None
            return label.data if label is not None else default

        fields = Names()
        inputs = [(onnx_name(arg_attrs, i, f"input_{i}"), arg) for i, arg in enumerate(block.args)]
        inputs = [(name, fields(name), arg) for name, arg in inputs]
        outputs = [(onnx_name(res_attrs, i, f"output_{i}"), v) for i, v in enumerate(ret.arguments)]
        outputs = [(name, fields(name), v) for name, v in outputs]

        # Storage: C expression of every value.
        where: dict[SSAValue, str] = {}
        for _, field_name, arg in inputs:
            where[arg] = f"in->{field_name}"
        blob, weight_table = self.weights(block, where)

        copies: list[tuple[str, SSAValue, int]] = []  # (dst, src, bytes) at the end of the run
        output_of: dict[SSAValue, str] = {}
        for _, field_name, value in outputs:
            if value in output_of or isinstance(value, BlockArgument) or value in where:
                copies.append((f"out->{field_name}", value, _bytes(value)))
            else:
                output_of[value] = f"out->{field_name}"

        alias_of: dict[SSAValue, SSAValue] = {}  # an aliasing reshape's result -> the storage it shares
        arena_offsets: dict[SSAValue, int] = {}
        for op in ops:
            if isinstance(op, cpu.ReshapeOp) and op.alias is not None:
                alias_of[op.output] = alias_of.get(op.input, op.input)
                continue
            if op.results and op.offsets is None:
                raise CompileError(_label(op), "has no memory plan: run plan-host-memory on the whole function")
            for result, offset in zip(op.results, op.offsets.get_values() if op.offsets else ()):
                if offset >= 0:
                    arena_offsets[result] = offset
                    where[result] = f"({_ctype(result).c} *)(arena + {offset})"
                elif result not in output_of:
                    raise CompileError(_label(op), "the memory plan puts a result that is not returned in an output buffer")
        where |= output_of

        def expr(value: SSAValue) -> str:
            root = alias_of.get(value, value)
            text = where[root]
            if root is not value and _ctype(root).c != _ctype(value).c:
                text = f"({_ctype(value).c} *){text}"
            return text

        for value, root in alias_of.items():
            where[value] = expr(value)

        # Op functions and the run body.
        functions: list[str] = []
        calls: list[str] = []
        profile_labels: list[str] = []
        for op in ops:
            name, op_type = _node(op)
            if isinstance(op, cpu.CallMlipOp):
                name = name or f"call_{op.callee.root_reference.data}"
                comment = f"/* accelerator subgraph @{op.callee.root_reference.data}: {op.name}"
                if op.chunks is not None:
                    images = _shape((*op.args, *op.res)[0])[0] // op.chunk_count()
                    comment += f" in {op.chunk_count()} chunks of {images} images"
            elif len(nodes := _nodes(op)) > 1:
                listed = ", ".join(f"'{_comment(n)}' ({_comment(t or op.name)})" for n, t in nodes)
                comment = f"/* nodes {listed}: {op.name}"
            elif name:
                comment = f"/* node '{_comment(name)}' ({_comment(op_type or op.name)}): {op.name}"
            else:
                comment = f"/* inserted by the compiler: {op.name}"
            kind = getattr(op, "kind", None) or getattr(op, "mode", None)
            comment += f" {kind.data}" if kind is not None else ""
            comment += " */"
            if op.results and all(r in alias_of for r in op.results):
                calls += [f"    {comment}", "    /* aliases its input: no code */"]
                continue
            if isinstance(op, cpu.ConcatOp) and op.in_place is not None and len(op.in_place) == len(op.inputs):
                calls += [f"    {comment}", f"    /* in place: its inputs were written into their slices of "
                                            f"arena + {arena_offsets[op.output]}: no code */"]
                continue
            fn = self.op_names(name or op.name, prefix="op_")
            params = [f"const {_ctype(v).c} *x{i}" for i, v in enumerate(op.operands)]
            params += [f"{_ctype(v).c} *y{i}" for i, v in enumerate(op.results)]
            params += ["float *scratch"] if op.scratch is not None else []
            body = self.emit(op, [f"x{i}" for i in range(len(op.operands))],
                             [f"y{i}" for i in range(len(op.results))])
            if not body[-1].lstrip().startswith("return"):
                body.append("return MRVL_OK;")
            functions.append("\n".join([comment, f"static int {fn}({', '.join(params) or 'void'})", "{",
                                        *(f"    {line}" for line in body), "}", ""]))
            args = [expr(v) for v in (*op.operands, *op.results)]
            placement = ", ".join(
                f"{r.name_hint or 'result'} at arena + {arena_offsets[r]}" for r in op.results if r in arena_offsets)
            if op.scratch is not None:
                offset = op.scratch.offset.data
                args.append(f"(float *)(arena + {offset})")
                placement += f"{', ' if placement else ''}scratch ({op.scratch.size.data} bytes) at arena + {offset}"
            calls.append(f"    {comment}")
            if placement:
                calls.append(f"    /* {placement} */")
            calls += [f"    rc = {fn}({', '.join(args)});", "    if (rc != MRVL_OK) return rc;",
                      f"    MRVL_PROFILE_MARK({len(profile_labels)});"]
            profile_labels.append(op_label(op))
        for dst, src, size in copies:
            calls.append(f"    memcpy({dst}, {expr(src)}, {size}); /* an output that is an input, a weight or another output */")

        has_mlip = any(isinstance(op, cpu.CallMlipOp) for op in ops)
        subgraphs = [op for op in self.module.walk() if isinstance(op, SubgraphOp)]
        header = self.header(inputs, outputs, workspace, blob, weight_table, len(subgraphs))
        source = self.source(functions, calls, profile_labels, has_mlip)
        source += self.subgraph_table(subgraphs)
        def tensors(entries) -> tuple[HostTensor, ...]:
            return tuple(HostTensor(name, field_name, _ctype(value).onnx, _shape(value), _bytes(value))
                         for name, field_name, value in entries)

        return HostProgram(self.model, header, source, blob, tensors(inputs), tensors(outputs), workspace)

    def weights(self, block: Block, where: dict[SSAValue, str]) -> tuple[bytes, list[tuple[str, int, int, str]]]:
        """The weights file of every constant something reads, in IR order, and its table
        `(C name, offset, bytes, what)`; `where` gets the pointer to each constant."""
        constants = weight_constants(block)
        arrays = []
        for c in constants:
            array = constant_value(c.output, self.module)
            if array is None:
                raise CompileError(_label(c) if _node(c)[0] else "graph.constant",
                                   "has no data: print the IR with --print-weights to keep the weights")
            arrays.append(array)
        blob, offsets = weights_blob(arrays)
        names = Names()
        table = []
        for c, array, offset in zip(constants, arrays, offsets):
            value = c.output
            where[value] = f"(const {_ctype(value).c} *)(weights + {offset})"
            shape, layout = _shape(value), ""
            reader = next((use.operation for use in value.uses if use.index == 1 and (
                isinstance(use.operation, cpu.ConvOp) and use.operation.packed_weights is not None
                or isinstance(use.operation, cpu.GemmOp | cpu.MatmulOp) and use.operation.packed_b is not None)), None)
            qconv = next((use.operation for use in value.uses if use.index == 3 and isinstance(
                use.operation, cpu.QLinearConvOp) and use.operation.packed_weights is not None), None)
            if qconv is not None:
                groups = qconv.group.value.data
                shape, layout = qconv.weights_shape(), f", packed for mrvl_qlinear_conv, {groups} group(s)"
            elif isinstance(reader, cpu.ConvOp) and reader.winograd_weights():
                shape, layout = reader.weights_shape(), ", transformed for mrvl_winograd_conv_f32"
            elif isinstance(reader, cpu.ConvOp):  # described as the weights it packs
                shape, layout = reader.weights_shape(), f", packed for mrvl_conv_f32, {reader.group.value.data} group(s)"
            elif reader is not None:
                shape, layout = reader.weights_shape(), ", packed for the GEMM"
            elif (matmul := next((use.operation for use in value.uses if use.index == 1 and isinstance(
                    use.operation, cpu.MatmulOp) and use.operation.transposed_b is not None), None)):
                layout = f", the transpose of the matmul's B{list(matmul.weights_shape())}"
            table.append((names(value.name_hint or "weight"), offset, array.nbytes,
                          f"{_ctype(value).onnx}{list(shape)}{layout}"))
        return blob, table

    def header(self, inputs, outputs, workspace: cpu.WorkspaceAttr, blob: bytes, weight_table, subgraphs: int) -> str:
        M, m = self.macro, self.model
        lines = [
            f"/* {m}.h: the host program of ONNX graph '{_comment(self.function.sym_name.data)}', generated by",
            " * mrvl-opt -t c. Do not edit.",
            " *",
            " * Usage:",
            f" *   {m}_load_weights(\"{m}_weights.bin\");   (or {m}_set_weights(data, size), once)",
            f" *   void *ws = aligned_alloc({M}_WORKSPACE_ALIGN, {M}_WORKSPACE_BYTES);   (rounded up to the alignment)",
            f" *   {m}_inputs in = {{...}};  {m}_outputs out = {{...}};   (caller-owned, dense, row-major)",
            f" *   int rc = {m}_run(&in, &out, ws);                     (0 on success, else MRVL_ERR_*)",
            " *",
            f" * {m}_run allocates nothing and keeps no state between calls; the weights and the",
            " * accelerator runner are process-wide. Concurrent runs need one workspace each.",
            " */",
            f"#ifndef {M}_H",
            f"#define {M}_H",
            "",
            "#include <stddef.h>",
            "#include <stdint.h>",
            "",
            "#include \"mrvl_kernels.h\" /* MRVL_OK, MRVL_ERR_* */",
            "#include \"mrvl_mlip.h\"",
            "",
            "#ifdef __cplusplus",
            "extern \"C\" {",
            "#endif",
            "",
        ]
        for kind, entries in (("INPUT", inputs), ("OUTPUT", outputs)):
            lines.append(f"#define {M}_NUM_{kind}S {len(entries)}")
            for i, (name, field_name, value) in enumerate(entries):
                shape = _shape(value)
                ctype = _ctype(value)
                lines += [
                    f"/* {kind.lower()} {i}: \"{_comment(name)}\", {ctype.onnx}{list(shape)}, field '{field_name}' */",
                    f"#define {M}_{kind}_{i}_NAME \"{_c_string(name)}\"",
                    f"#define {M}_{kind}_{i}_DTYPE \"{ctype.onnx}\"",
                    f"#define {M}_{kind}_{i}_RANK {len(shape)}",
                    f"#define {M}_{kind}_{i}_SHAPE {_array(shape)}",
                    f"#define {M}_{kind}_{i}_COUNT {math.prod(shape)}",
                    f"#define {M}_{kind}_{i}_BYTES {_bytes(value)}",
                ]
            lines.append("")
        lines += [
            "/* The workspace: every intermediate tensor, at offsets planned by liveness. */",
            f"#define {M}_WORKSPACE_BYTES {workspace.size.data}",
            f"#define {M}_WORKSPACE_ALIGN {workspace.align.data}",
            "",
            f"/* The weights file: a {ALIGN}-byte header (\"{WEIGHTS_MAGIC.decode()}\", file size and checksum as",
            f" * little-endian uint64), then each tensor's raw bytes at a {ALIGN}-byte aligned offset. */",
            f"#define {M}_WEIGHTS_FILE \"{m}_weights.bin\"",
            f"#define {M}_WEIGHTS_BYTES {len(blob)}",
            f"#define {M}_WEIGHTS_CHECKSUM 0x{int.from_bytes(blob[16:24], 'little'):016x}ULL",
        ]
        for name, offset, size, what in weight_table:
            lines.append(f"#define {M}_WEIGHT_{name}_OFFSET {offset} /* {what} */")
            lines.append(f"#define {M}_WEIGHT_{name}_BYTES {size}")
        lines.append("")
        for kind, entries, const in (("inputs", inputs, "const "), ("outputs", outputs, "")):
            lines.append("typedef struct {")
            for name, field_name, value in entries:
                lines.append(f"    {const}{_ctype(value).c} *{field_name}; /* \"{_comment(name)}\" "
                             f"{_ctype(value).onnx}{list(_shape(value))}, {_bytes(value)} bytes */")
            if not entries:
                lines.append("    int unused;")
            lines.append(f"}} {m}_{kind};")
            lines.append("")
        lines += [
            "/* Reads the weights file once (into memory it allocates); returns MRVL_OK, or",
            f" * MRVL_ERR_WEIGHTS when the file is missing or not {M}_WEIGHTS_FILE of this build. */",
            f"int {m}_load_weights(const char *path);",
            f"/* Uses `size` bytes at `data` (a {ALIGN}-byte aligned copy of the weights file, linked in",
            " * or mapped; it must outlive every run) as the weights; checked like a loaded file. */",
            f"int {m}_set_weights(const void *data, size_t size);",
            "/* The runner of accelerator subgraphs (mrvl_mlip.h); NULL removes it. */",
            f"void {m}_set_mlip(mrvl_mlip_run_fn run, void *context);",
            f"/* Runs the model: reads `in`, writes `out`, uses {M}_WORKSPACE_BYTES bytes of `workspace`",
            f" * (aligned to {M}_WORKSPACE_ALIGN). Returns MRVL_OK or a MRVL_ERR_* code. */",
            f"int {m}_run(const {m}_inputs *in, {m}_outputs *out, void *workspace);",
            "",
            *([f"/* The {subgraphs} accelerator subgraph(s), for a runner that loads them: on the board",
               f" * mrvl_mlip_board_open(&board, dir, NULL, {m}_subgraphs, {M}_NUM_SUBGRAPHS), then",
               f" * {m}_set_mlip(mrvl_mlip_board_run, board) (mrvl_mlip_board.h). */",
               f"#define {M}_NUM_SUBGRAPHS {subgraphs}",
               f"extern const mrvl_mlip_subgraph {m}_subgraphs[{M}_NUM_SUBGRAPHS];",
               ""] if subgraphs else []),
            "#ifdef MRVL_PROFILE",
            f"/* Built with -DMRVL_PROFILE (make PROFILE=1): {m}_run times each of its {m}_profile_ops()",
            f" * ops; {m}_profile_ns(i) is op i's total since {m}_profile_reset() (not thread-safe). */",
            f"int {m}_profile_ops(void);",
            f"const char *{m}_profile_label(int i);",
            f"uint64_t {m}_profile_ns(int i);",
            f"void {m}_profile_reset(void);",
            "#endif",
            "",
            "#ifdef __cplusplus",
            "}",
            "#endif",
            "",
            f"#endif /* {M}_H */",
            "",
        ]
        return "\n".join(lines)

    def source(self, functions: list[str], calls: list[str], profile_labels: list[str], has_mlip: bool) -> str:
        M, m = self.macro, self.model
        lines = [
            f"/* {m}.c: generated by mrvl-opt -t c. Do not edit. */",
            "#if defined(MRVL_PROFILE) && !defined(_POSIX_C_SOURCE)",
            "#define _POSIX_C_SOURCE 200112L /* clock_gettime under -std=c99 */",
            "#endif",
            f"#include \"{m}.h\"",
            "",
            "#include <math.h>",
            "#include <stdio.h>",
            "#include <stdlib.h>",
            "#include <string.h>",
            "",
            *(["/* Threads the large kernels split their work over (the Makefile's HOST_THREADS). */",
                "#ifndef MRVL_HOST_THREADS", f"#define MRVL_HOST_THREADS {self.host_threads}", "#endif", ""]
              if self.host_threads > 1 else []),
            "/* The kernels, with internal linkage: models link into one program side by side. */",
            "#include \"mrvl_kernels.c\"",
            "#include \"mrvl_quantize.c\"",
            "",
            "static const unsigned char *weights_data;",
            "static unsigned char *weights_owned;",
            "static mrvl_mlip_run_fn mlip_run;",
            "static void *mlip_context;",
            "",
            *self.profiling(profile_labels),
            f"int {m}_set_weights(const void *data, size_t size)",
            "{",
            "    const unsigned char *d = (const unsigned char *)data;",
            "    uint64_t file_size = 0, checksum = 0;",
            "    int i;",
            f"    if (!d || size != {M}_WEIGHTS_BYTES || memcmp(d, \"{WEIGHTS_MAGIC.decode()}\", 8) != 0) return MRVL_ERR_WEIGHTS;",
            "    for (i = 7; i >= 0; i--) {",
            "        file_size = file_size << 8 | d[8 + i];",
            "        checksum = checksum << 8 | d[16 + i];",
            "    }",
            f"    if (file_size != {M}_WEIGHTS_BYTES || checksum != {M}_WEIGHTS_CHECKSUM) return MRVL_ERR_WEIGHTS;",
            "    weights_data = d;",
            "    return MRVL_OK;",
            "}",
            "",
            f"int {m}_load_weights(const char *path)",
            "{",
            "    FILE *f = path ? fopen(path, \"rb\") : NULL;",
            "    unsigned char *raw, *data;",
            "    size_t got;",
            "    int rc;",
            "    if (!f) return MRVL_ERR_WEIGHTS;",
            f"    raw = (unsigned char *)malloc({M}_WEIGHTS_BYTES + 1 + {ALIGN - 1});",
            "    if (!raw) {",
            "        fclose(f);",
            "        return MRVL_ERR_WEIGHTS;",
            "    }",
            f"    /* {ALIGN}-byte aligned, as the arrays are in the file: a vector load of weights then",
            "     * never splits a cache line (malloc aligns to 16 bytes only). */",
            f"    data = raw + (-(uintptr_t)raw & {ALIGN - 1});",
            f"    got = fread(data, 1, {M}_WEIGHTS_BYTES + 1, f); /* one more: a longer file is an error */",
            "    fclose(f);",
            f"    rc = {m}_set_weights(data, got);",
            "    if (rc != MRVL_OK) {",
            "        free(raw);",
            "        return rc;",
            "    }",
            "    free(weights_owned);",
            "    weights_owned = raw;",
            "    return MRVL_OK;",
            "}",
            "",
            f"void {m}_set_mlip(mrvl_mlip_run_fn run, void *context)",
            "{",
            "    mlip_run = run;",
            "    mlip_context = context;",
            "}",
            "",
            *functions,
            f"int {m}_run(const {m}_inputs *in, {m}_outputs *out, void *workspace)",
            "{",
            "    unsigned char *arena = (unsigned char *)workspace;",
            "    const unsigned char *weights = weights_data;",
            "    int rc = MRVL_OK;",
            f"    if (!in || !out || ({M}_WORKSPACE_BYTES > 0 && !arena)) return MRVL_ERR_ARGUMENT;",
            f"    if ({M}_WORKSPACE_BYTES > 0 && (uintptr_t)arena % {M}_WORKSPACE_ALIGN != 0) return MRVL_ERR_ALIGNMENT;",
            "    if (!weights) return MRVL_ERR_NO_WEIGHTS;",
            "    (void)arena;",
            "    (void)weights;",
            "    MRVL_PROFILE_START();",
            *calls,
            "    return rc;",
            "}",
            "",
        ]
        if not has_mlip:
            lines.insert(lines.index(f"void {m}_set_mlip(mrvl_mlip_run_fn run, void *context)") - 1,
                         "/* This model has no accelerator subgraph: the runner is never called. */")
        return "\n".join(lines)

    def profiling(self, labels: list[str]) -> list[str]:
        """Per-op timing, compiled in only with -DMRVL_PROFILE: the time from one op's mark in
        `M_run` to the next is that op's, summed over runs (the accelerator calls included)."""
        m, count = self.model, len(labels)
        size = max(count, 1)
        return [
            f"/* Per-op timing (make PROFILE=1, mrvl-run --profile): {m}_profile_ns(i) is the time op i",
            f" * took in every run since {m}_profile_reset(), {m}_profile_label(i) names its ONNX nodes. */",
            "#ifdef MRVL_PROFILE",
            "#include <time.h>",
            f"static const char *const profile_labels[{size}] = {{",
            *(f"    \"{_c_string(label)}\"," for label in labels),
            "};",
            f"static uint64_t profile_ns[{size}], profile_last;",
            "static uint64_t profile_now(void)",
            "{",
            "    struct timespec t;",
            "    clock_gettime(CLOCK_MONOTONIC, &t);",
            "    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;",
            "}",
            "#define MRVL_PROFILE_START() (profile_last = profile_now())",
            "#define MRVL_PROFILE_MARK(i) \\",
            "    do { uint64_t now_ = profile_now(); profile_ns[i] += now_ - profile_last; profile_last = now_; } while (0)",
            f"int {m}_profile_ops(void) {{ return {count}; }}",
            f"const char *{m}_profile_label(int i) {{ return i >= 0 && i < {count} ? profile_labels[i] : NULL; }}",
            f"uint64_t {m}_profile_ns(int i) {{ return i >= 0 && i < {count} ? profile_ns[i] : 0; }}",
            f"void {m}_profile_reset(void) {{ memset(profile_ns, 0, sizeof profile_ns); }}",
            "#else",
            "#define MRVL_PROFILE_START() ((void)0)",
            "#define MRVL_PROFILE_MARK(i) ((void)0)",
            "#endif",
            "",
        ]

    def subgraph_table(self, subgraphs: list[SubgraphOp]) -> str:
        """`M_subgraphs`: each accelerator subgraph's interface, for a runner that loads them
        (mrvl_mlip_board.h)."""
        if not subgraphs:
            return ""
        lines = ["", "/* The accelerator subgraphs, for a runner that loads them (mrvl_mlip_board.h). */"]
        entries = []
        for k, op in enumerate(subgraphs):
            counts = {kind: [math.prod(t.get_shape()) for t in types.data]
                      for kind, types in (("inputs", op.function_type.inputs), ("outputs", op.function_type.outputs))}
            lines += [f"static const int64_t subgraph{k}_{kind}[] = {_array(values or [0])};"
                      for kind, values in counts.items()]
            entries.append(f"    {{\"{op.sym_name.data}\", {len(counts['inputs'])}, {len(counts['outputs'])}, "
                           f"subgraph{k}_inputs, subgraph{k}_outputs, {subgraph_batch(op)}}},")
        return "\n".join([*lines, f"const mrvl_mlip_subgraph {self.model}_subgraphs[{len(subgraphs)}] = {{",
                          *entries, "};", ""])


def _c_string(text: str) -> str:
    if text.isprintable() and '"' not in text and "\\" not in text and "?" not in text:
        return text  # most names: nothing to escape
    return "".join(c if c.isprintable() and c not in '"\\?' else f"\\{ord(c):03o}" for c in text)


def print_c(module: ModuleOp, name: str = "", host_threads: int = 1) -> HostProgram:
    """The host C of `module` (`name`, `host_threads`: see `CEmitter`)."""
    return CEmitter(module, name, host_threads).program()
