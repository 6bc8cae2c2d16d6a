// After restore-host-qdq no type keeps its #mrvl.rounded (signatures, the subgraph's
// values), and between MLIP ops no pair comes back: the ops keep their #mrvl.quantized,
// which fuse-mrvl carries onto the layers.
// RUN: mrvl-opt %s -p restore-host-qdq | filecheck %s
// RUN: mrvl-opt %s -p restore-host-qdq | filecheck %s --check-prefix=NONE

// CHECK-LABEL: mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT:     Quantize
// CHECK:         %[[Y:[^ ]+]] = graph.Relu %x {mrvl.quantized = #mrvl.quantized<input #mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, weight none, output #mrvl.qparams<i8, scale [1], zero_point [0], axis 0>>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    mrvl.yield %[[Y]] : tensor<1x2x4x4xf32>
// NONE-NOT:    mrvl.rounded
func.func @absorb(%x: tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">> {
  %y = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
  func.return %y : tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
}
mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  %y = graph.Relu %x {mrvl.quantized = #mrvl.quantized<input #mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, weight none, output #mrvl.qparams<i8, scale [1], zero_point [0], axis 0>>} : (tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
  mrvl.yield %y : tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
}
