// fuse-host-qdq-adds: DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear, all
// uint8 of one shape and one grid each, becomes one cpu.qlinear_add of the integers, the
// Add's first operand as A; the DequantizeLinear something else still reads stays.
// RUN: mrvl-opt %s -p fuse-host-qdq-adds | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %bf = cpu.dequantize %bq, %sb, %zb
// CHECK-NEXT:    %yq = cpu.qlinear_add %aq, %sa, %za, %bq, %sb, %zb, %sy, %zy : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
// CHECK-NEXT:    func.return %yq, %bf
// CHECK-NOT:     cpu.binary

func.func @net(%aq: tensor<1x2x4x4xui8>, %bq: tensor<1x2x4x4xui8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x4x4xf32>) {
  %sa = graph.constant dense<5.000000e-02> : tensor<f32>
  %za = graph.constant dense<3> : tensor<ui8>
  %sb = graph.constant dense<2.500000e-02> : tensor<f32>
  %zb = graph.constant dense<0> : tensor<ui8>
  %sy = graph.constant dense<6.000000e-02> : tensor<f32>
  %zy = graph.constant dense<10> : tensor<ui8>
  %af = cpu.dequantize %aq, %sa, %za {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %bf = cpu.dequantize %bq, %sb, %zb {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %f = cpu.binary add %af, %bf : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %yq = cpu.quantize %f, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  func.return %yq, %bf : tensor<1x2x4x4xui8>, tensor<1x2x4x4xf32>
}
