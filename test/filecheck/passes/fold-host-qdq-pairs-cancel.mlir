// fold-host-qdq-pairs: a DequantizeLinear -> QuantizeLinear of one grid gives every integer
// back: the pair goes, its readers read the integers (the DequantizeLinear stays for its
// other reader).
// RUN: mrvl-opt %s -p fold-host-qdq-pairs | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %s = graph.constant
// CHECK-NEXT:    %z = graph.constant
// CHECK-NEXT:    %f = cpu.dequantize %xq, %s, %z
// CHECK-NOT:     cpu.quantize
// CHECK-NOT:     cpu.rescale
// CHECK:         func.return %xq, %f

func.func @net(%xq: tensor<1x2x4x4xui8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x4x4xf32>) {
  %s = graph.constant dense<3.700000e-02> : tensor<f32>
  %z = graph.constant dense<131> : tensor<ui8>
  %f = cpu.dequantize %xq, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %yq = cpu.quantize %f, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  func.return %yq, %f : tensor<1x2x4x4xui8>, tensor<1x2x4x4xf32>
}
