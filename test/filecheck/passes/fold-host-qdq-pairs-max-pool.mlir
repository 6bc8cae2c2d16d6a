// fold-host-qdq-pairs: DequantizeLinear -> MaxPool -> QuantizeLinear of one grid becomes a max
// pool of the integers (the pair cancels); an average pool stays float.
// RUN: mrvl-opt %s -p fold-host-qdq-pairs | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %s = graph.constant
// CHECK-NEXT:    %z = graph.constant
// CHECK-NEXT:    %yq = cpu.pool max %xq {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x2x8x8xui8>) -> tensor<1x2x4x4xui8>
// CHECK-NEXT:    %x2 = cpu.dequantize %xq, %s, %z
// CHECK-NEXT:    %p2 = cpu.pool average %x2
// CHECK-NEXT:    %y2 = cpu.quantize %p2, %s, %z
// CHECK-NEXT:    func.return %yq, %y2

func.func @net(%xq: tensor<1x2x8x8xui8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>) {
  %s = graph.constant dense<5.000000e-02> : tensor<f32>
  %z = graph.constant dense<7> : tensor<ui8>
  %x = cpu.dequantize %xq, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xf32>
  %p = cpu.pool max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %yq = cpu.quantize %p, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %x2 = cpu.dequantize %xq, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xf32>
  %p2 = cpu.pool average %x2 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %y2 = cpu.quantize %p2, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  func.return %yq, %y2 : tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>
}
