"""The target options (`target/options.py`): their values and defaults, the
`mrvl.subgraph` properties that record them, and the mrvl-tmlc command line written and
read back."""

import pytest
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Block, Region

from mrvl_dialect.errors import CompileError
from mrvl_dialect.mrvl import SubgraphOp, YieldOp
from mrvl.target.options import DEFAULT_TARGET, TargetOptions, parse_mattr


def test_defaults_are_tvms():
    assert DEFAULT_TARGET.as_dict() == {"mcpu": "cn10ka", "num_tiles": 8, "quantize": "fp16", "wb_pin_ocm": 0,
                                        "run_mode": "sim"}
    assert TargetOptions.values("num_tiles") == (1, 2, 4, 8)
    assert TargetOptions.help("num_tiles") == "MLIP tiles (default 8)"


@pytest.mark.parametrize(("options", "message"), [
    ({"num_tiles": 16}, "num_tiles must be one of 1, 2, 4, 8, got 16"),
    ({"num_tiles": "4"}, "num_tiles must be one of 1, 2, 4, 8, got '4'"),
    ({"mcpu": "cn9k"}, "mcpu must be one of cn10ka, cnf10kb, got 'cn9k'"),
    ({"wb_pin_ocm": True}, "wb_pin_ocm must be one of 0, 1, got True"),
])
def test_checked_refuses_other_values(options, message):
    with pytest.raises(CompileError) as error:
        TargetOptions.checked("mrvl-compile", **options)
    assert (error.value.where, error.value.message) == ("mrvl-compile", message)


def test_subgraph_properties_round_trip():
    target = TargetOptions(mcpu="cnf10kb", num_tiles=2, quantize="int8", wb_pin_ocm=1, run_mode="hw")
    subgraph = SubgraphOp("sg", FunctionType.from_lists([], []), Region(Block([YieldOp.create(operands=[])])), target.properties())
    subgraph.verify()
    assert TargetOptions.of_subgraph(subgraph) == target


def test_tmlc_command_is_read_back():
    target = TargetOptions(num_tiles=4, wb_pin_ocm=1)
    argv = target.tmlc_command("sg", "sg-nodes.json", "sg-consts.json", 2)
    assert argv == ["mrvl-tmlc", "-mn", "sg", "-f1", "sg-nodes.json", "-f2", "sg-consts.json", "-arch=mlip",
                    "-quantize=fp16", "-wb_pin_ocm=1", "-num_tiles=4", "-b", "2"]
    assert TargetOptions.from_tmlc_command("cmd", argv) == target


def test_tmlc_command_with_a_bad_value_is_an_error():
    with pytest.raises(CompileError, match="^cmd: num_tiles must be one of 1, 2, 4, 8, got 3$"):
        TargetOptions.from_tmlc_command("cmd", ["mrvl-tmlc", "-mn", "sg", "-num_tiles=3"])


def test_mattr_sets_its_three_options():
    assert parse_mattr("hw, -quantize=int8 -wb_pin_ocm=1") == {"run_mode": "hw", "quantize": "int8", "wb_pin_ocm": 1}
    with pytest.raises(CompileError, match="unknown attribute '-num_tiles=4'"):
        parse_mattr("-num_tiles=4")
