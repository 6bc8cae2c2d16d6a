// restore-host-qdq puts a QuantizeLinear -> DequantizeLinear pair, under the model's node
// names, on each rounded tensor the host reads: the graph input before the MLIP call, the
// call's result after it; the other readers read the pair's result.
// RUN: mrvl-opt %s -p restore-host-qdq --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @absorb(%x: tensor<1x2x4x4xf32> loc(unknown)) -> tensor<1x2x4x4xf32> {
// CHECK:         %[[S:[^ ]+]] = graph.constant dense<5.000000e-01> : tensor<f32> loc("x_q.scale")
// CHECK:         %[[Z:[^ ]+]] = graph.constant dense<0> : tensor<i8> loc("x_q.zero_point")
// CHECK:         %[[QX:[^ ]+]] = graph.QuantizeLinear %x, %[[S]], %[[Z]] {mrvl.place = "host", {{.*}}} : ({{.*}}) -> tensor<1x2x4x4xi8> loc("x_q")
// CHECK:         %[[DX:[^ ]+]] = graph.DequantizeLinear %[[QX]], %[[S]], %[[Z]] {{.*}} -> tensor<1x2x4x4xf32> loc("x_dq")
// CHECK:         %[[Y:[^ ]+]] = cpu.call_mlip @tvmgen_mrvl_main_0(%[[DX]]) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:         %[[QY:[^ ]+]] = graph.QuantizeLinear %[[Y]], {{.*}} loc("y_q")
// CHECK:         %[[DY:[^ ]+]] = graph.DequantizeLinear %[[QY]], {{.*}} loc("y_dq")
// CHECK:         func.return %[[DY]] : tensor<1x2x4x4xf32>
func.func @absorb(%x: tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">> {
  %y = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
  func.return %y : tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
}
mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  %y = graph.Relu %x {mrvl.quantized = #mrvl.quantized<input #mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, weight none, output #mrvl.qparams<i8, scale [1], zero_point [0], axis 0>>} : (tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "x_q", "x_dq">>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
  mrvl.yield %y : tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [1], zero_point [0], axis 0>, "y_q", "y_dq">>
}
