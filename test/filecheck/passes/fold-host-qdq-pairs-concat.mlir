// fold-host-qdq-pairs: DequantizeLinear -> Concat -> QuantizeLinear becomes a concat of the
// integers: an input on the output's grid as it is, another through a cpu.rescale. A concat
// whose float result something else reads stays float.
// RUN: mrvl-opt %s -p fold-host-qdq-pairs | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %bq_rescaled = cpu.rescale %bq, %sb, %z, %s, %z
// CHECK-NEXT:    %yq = cpu.concat %aq, %bq_rescaled {axis = 1 : i64} : (tensor<1x2x4x4xui8>, tensor<1x3x4x4xui8>) -> tensor<1x5x4x4xui8>
// CHECK:         %c2 = cpu.concat %a, %b
// CHECK-NEXT:    %y2 = cpu.quantize %c2, %s, %z
// CHECK-NEXT:    func.return %yq, %y2, %c2

func.func @net(%aq: tensor<1x2x4x4xui8>, %bq: tensor<1x3x4x4xui8>) -> (tensor<1x5x4x4xui8>, tensor<1x5x4x4xui8>, tensor<1x5x4x4xf32>) {
  %s = graph.constant dense<5.000000e-02> : tensor<f32>
  %sb = graph.constant dense<4.000000e-02> : tensor<f32>
  %z = graph.constant dense<0> : tensor<ui8>
  %a = cpu.dequantize %aq, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %b = cpu.dequantize %bq, %sb, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xf32>
  %c = cpu.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
  %yq = cpu.quantize %c, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x5x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x5x4x4xui8>
  %c2 = cpu.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
  %y2 = cpu.quantize %c2, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x5x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x5x4x4xui8>
  func.return %yq, %y2, %c2 : tensor<1x5x4x4xui8>, tensor<1x5x4x4xui8>, tensor<1x5x4x4xf32>
}
