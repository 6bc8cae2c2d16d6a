"""select-host-kernels refuses every form the C kernels cannot run, with the one error line
the C emitter printed before the check moved into the pass; and what it refuses, -t c never
sees (the emitter has no such checks left)."""

from pathlib import Path

import pytest

from mrvl.opt import main as mrvl_opt

T = "tensor"
CASES = {
    "add-on-half": ('%y = cpu.binary add %h, %h : ({t}<4xf16>, {t}<4xf16>) -> {t}<4xf16>',
                    "'cpu.binary' add on tensor<4xf16>"),
    "exp-on-int": ('%y = cpu.unary exp %i : ({t}<4xi32>) -> {t}<4xi32>', "'cpu.unary' exp on tensor<4xi32>"),
    "reduce-on-int": ('%y = cpu.reduce sum %i {{axes = array<i64: 0>, keepdims = true}} : ({t}<4xi32>) -> {t}<1xi32>',
                      "'cpu.reduce' on tensor<4xi32> (float32 and float64 only)"),
    "clip-on-double": ('%y = cpu.clip %d {{min = 0.0 : f32, max = 1.0 : f32}} : ({t}<4xf64>) -> {t}<4xf64>',
                       "'cpu.clip' on tensor<4xf64> (float32 only)"),
    "hardmax-on-int": ('%y = cpu.hardmax %i {{axis = 0 : i64}} : ({t}<4xi32>) -> {t}<4xi32>',
                       "'cpu.hardmax' on tensor<4xi32> (float32, float64 only)"),
    "transpose-rank-9": ('%y = cpu.transpose %n {{perm = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8>}} : '
                         '({t}<1x1x1x1x1x1x1x1x2xf32>) -> {t}<1x1x1x1x1x1x1x1x2xf32>',
                         "'cpu.transpose' of rank 9 (at most 8)"),
    "graph-op": ('%y = graph.Relu %a : ({t}<4xf32>) -> {t}<4xf32>', "'graph.Relu' (lower it to cpu first)"),
}


@pytest.mark.parametrize("case", CASES)
def test_unsupported_forms_are_refused_naming_the_node(case: str, tmp_path: Path, capsys) -> None:
    body, message = CASES[case]
    source = tmp_path / "m.mlir"
    source.write_text(
        "func.func @f(%a: tensor<4xf32>, %i: tensor<4xi32>, %d: tensor<4xf64>, %h: tensor<4xf16>,\n"
        "            %n: tensor<1x1x1x1x1x1x1x1x2xf32>) {\n"
        f'  {body.format(t=T)} loc("bad"("Op"))\n'
        "  func.return\n}\n")
    for pipeline in ("select-host-kernels", "mrvl-host-pipeline"):
        assert mrvl_opt([str(source), "-p", pipeline]) == 1
        err = capsys.readouterr().err
        assert err == f"error: {source}: node 'bad' (Op): the C backend has no kernel for {message}\n"
