// A rounded result of a host op gets its pair right after the op; a folded weight the
// host reads is exact already and gets none.
// RUN: mrvl-opt %s -p restore-host-qdq | filecheck %s

// CHECK-LABEL: func.func @host_op(
// CHECK:         %[[W:[^ ]+]] = graph.constant dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[M:[^ ]+]] = graph.Mul %x, %[[W]]
// CHECK-NEXT:    graph.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT:    graph.constant dense<0> : tensor<i8>
// CHECK-NEXT:    %[[Q:[^ ]+]] = graph.QuantizeLinear %[[M]],
// CHECK-NEXT:    %[[D:[^ ]+]] = graph.DequantizeLinear %[[Q]],
// CHECK-NEXT:    %[[S:[^ ]+]] = graph.Sigmoid %[[D]]
// CHECK-NEXT:    func.return %[[S]] : tensor<2xf32>
func.func @host_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.constant dense<[0.5, 1.0]> : tensor<2xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "", "w_dq">>
  %m = graph.Mul %x, %w : (tensor<2xf32>, tensor<2xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, "", "w_dq">>) -> tensor<2xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.25], zero_point [0], axis 0>, "m_q", "m_dq">>
  %s = graph.Sigmoid %m : (tensor<2xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.25], zero_point [0], axis 0>, "m_q", "m_dq">>) -> tensor<2xf32>
  func.return %s : tensor<2xf32>
}
