// fuse-host-qdq-adds: an Add group onnxruntime does not run as QLinearAdd stays float: a
// broadcast operand, inputs of two integer types, a scale per channel, a sum read twice.
// RUN: mrvl-opt %s -p fuse-host-qdq-adds | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NOT:     cpu.qlinear_add
// CHECK-COUNT-4: cpu.binary add
// CHECK-NOT:     cpu.qlinear_add

func.func @net(%aq: tensor<1x2x4x4xui8>, %bq: tensor<1x2x1x1xui8>, %cq: tensor<1x2x4x4xi8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>, tensor<1x2x4x4xf32>) {
  %s = graph.constant dense<5.000000e-02> : tensor<f32>
  %z = graph.constant dense<3> : tensor<ui8>
  %zi = graph.constant dense<3> : tensor<i8>
  %sc = graph.constant dense<[5.000000e-02, 2.500000e-02]> : tensor<2xf32>
  %zc = graph.constant dense<[3, 4]> : tensor<2xui8>
  %af = cpu.dequantize %aq, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %bf = cpu.dequantize %bq, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x1x1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x1x1xf32>
  %f1 = cpu.binary add %af, %bf : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y1 = cpu.quantize %f1, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %cf = cpu.dequantize %cq, %s, %zi {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %f2 = cpu.binary add %af, %cf : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y2 = cpu.quantize %f2, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %pf = cpu.dequantize %aq, %sc, %zc {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x4x4xf32>
  %f3 = cpu.binary add %af, %pf : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y3 = cpu.quantize %f3, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %f4 = cpu.binary add %af, %af : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y4 = cpu.quantize %f4, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  func.return %y1, %y2, %y3, %y4, %f4 : tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>, tensor<1x2x4x4xf32>
}
