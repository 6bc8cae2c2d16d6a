"""Outlining: one module per pipeline stage of a module `split-stages` annotated.

Stage k's module holds a function of its ops (those whose `mrvl.stage` is k, in order),
the constants they read, and the subgraphs they call (each at its stage's `num_tiles`),
with its own weight store holding only those weights. Its arguments are the values live
across the cut before it, its results those live across the cut after it (the last
stage's: the model's outputs, in order), each named (`graph.name`) as `stage_names`
names it, in the order they are defined, so stage k's results are stage k + 1's
arguments. A value that skips the stage is an argument it returns: the C program copies
it into the output. Each module then goes through `mrvl-host-pipeline` alone.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue

from mrvl_dialect import cpu
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.mrvl import SubgraphOp
from mrvl_dialect.weights import WeightStore, resource_handles
from mrvl.passes.split_stages import (ARG_NAME, TensorNaming, live_values, main_function, stage_bounds,
                                      stage_names, stage_ops)


@dataclass(frozen=True)
class StageModule:
    """One stage: its module and the interface it has with its neighbours."""

    module: ModuleOp
    inputs: list[str]
    outputs: list[str]
    forwarded: list[bool]
    """For each output: is it one of the stage's inputs, passed through?"""
    layouts: dict[str, str]
    """The layout of the inputs and outputs not in their ONNX shape's order, by name."""
    ops: list[Operation]
    """The ops of the annotated module the stage runs (for its ONNX nodes)."""


def outline_stages(module: ModuleOp, naming: TensorNaming | None = None) -> list[StageModule]:
    """The stage modules of `module` (`split-stages` recorded the split); `module` is left as
    it was. `naming` gives the ONNX names and layouts of the values between stages (`stage_names`)."""
    function = main_function(module)
    ops = stage_ops(function)
    live = live_values(function, ops)
    names, layouts = stage_names(function, live, naming)
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    bounds = stage_bounds(ops)
    subgraphs = {op.sym_name.data: op for op in module.ops if isinstance(op, SubgraphOp)}
    store = WeightStore.of(module)
    stages = []
    for k in range(len(bounds) - 1):
        first, end = bounds[k], bounds[k + 1]
        outputs = list(returned.arguments) if end == len(ops) else live[end]
        stage = _outline(module, function, ops[first:end], live[first], outputs, names, subgraphs, store)
        inputs = set(live[first])
        stages.append(StageModule(stage, [names[v] for v in live[first]], [names[v] for v in outputs],
                                  [v in inputs for v in outputs],
                                  {names[v]: layouts[v] for v in (*live[first], *outputs) if v in layouts},
                                  ops[first:end]))
    return stages


def _outline(module: ModuleOp, function: func.FuncOp, ops: Sequence[Operation], inputs: Sequence[SSAValue],
             outputs: Sequence[SSAValue], names: dict[SSAValue, str], subgraphs: dict[str, SubgraphOp],
             store: WeightStore) -> ModuleOp:
    block = Block(arg_types=[v.type for v in inputs])
    mapper: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for value, arg in zip(inputs, block.args):
        arg.name_hint = value.name_hint
    read = {operand for op in ops for inner in op.walk() for operand in inner.operands}
    for constant in function.body.block.ops:
        if isinstance(constant, ConstantOp) and constant.results[0] in read:
            block.add_op(constant.clone(value_mapper=mapper))
    called: list[str] = []
    for op in ops:
        block.add_op(op.clone(value_mapper=mapper))
        if isinstance(op, cpu.CallMlipOp) and (symbol := op.callee.root_reference.data) not in called:
            called.append(symbol)
    block.add_op(func.ReturnOp(*(mapper[v] for v in outputs)))

    def name_attrs(values: Sequence[SSAValue]) -> ArrayAttr[DictionaryAttr]:
        return ArrayAttr([DictionaryAttr({ARG_NAME: StringAttr(names[v])}) for v in values])

    stage_function = func.FuncOp(function.sym_name.data, FunctionType.from_lists([v.type for v in inputs],
                                                                                  [v.type for v in outputs]),
                                 Region(block), arg_attrs=name_attrs(inputs), res_attrs=name_attrs(outputs))
    kept = {"sym_name", "function_type", "arg_attrs", "res_attrs"}
    stage_function.attributes |= {k: v for k, v in function.attributes.items() if k not in kept}
    stage_module = ModuleOp([stage_function, *(subgraphs[s].clone() for s in called)])
    stage_module.attributes |= module.attributes
    stage_store = WeightStore.of(stage_module)
    for attr in resource_handles(stage_module):
        handle = attr.resource_handle.data
        if handle in store:
            stage_store.put(handle, store[handle])
    return stage_module

