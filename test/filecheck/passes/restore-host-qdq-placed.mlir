// The pairs restore-host-qdq puts back are placed as place-ops places an op that is part of
// no MLIP group: on the host, with place-ops' reason; the reports list them as nodes.
// RUN: mrvl-opt %s -p restore-host-qdq -t placement-report | filecheck %s

// CHECK:      x_q   QuantizeLinear    host     unsupported: MLIP has no layer for QuantizeLinear
// CHECK-NEXT: x_dq  DequantizeLinear  host     unsupported: MLIP has no layer for DequantizeLinear
// CHECK-NEXT: y_q   QuantizeLinear    host     unsupported: MLIP has no layer for QuantizeLinear
// CHECK-NEXT: y_dq  DequantizeLinear  host     unsupported: MLIP has no layer for DequantizeLinear
func.func @absorb(%x: tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">> {
  %y = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
  func.return %y : tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
}
mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  %y = graph.Relu %x {mrvl.quantized = #mrvl.quantized<input #mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, weight none, output #mrvl.qparams<i8, scale [1], zero_point [0], axis 0>>} : (tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
  mrvl.yield %y : tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
}
