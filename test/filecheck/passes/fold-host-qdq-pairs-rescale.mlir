// fold-host-qdq-pairs: a DequantizeLinear -> QuantizeLinear between two grids (here uint8 to
// int8) becomes one cpu.rescale of the integers; a pair with a scale per channel stays.
// RUN: mrvl-opt %s -p fold-host-qdq-pairs | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %yq = cpu.rescale %xq, %sx, %zx, %sy, %zy : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    %f2 = cpu.dequantize %xq, %sc, %zc
// CHECK-NEXT:    %y2 = cpu.quantize %f2, %sy, %zy
// CHECK-NEXT:    func.return %yq, %y2

func.func @net(%xq: tensor<1x2x4x4xui8>) -> (tensor<1x2x4x4xi8>, tensor<1x2x4x4xi8>) {
  %sx = graph.constant dense<5.000000e-02> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %sy = graph.constant dense<3.000000e-02> : tensor<f32>
  %zy = graph.constant dense<-5> : tensor<i8>
  %sc = graph.constant dense<[5.000000e-02, 2.500000e-02]> : tensor<2xf32>
  %zc = graph.constant dense<[128, 120]> : tensor<2xui8>
  %f = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %yq = cpu.quantize %f, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %f2 = cpu.dequantize %xq, %sc, %zc {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x4x4xf32>
  %y2 = cpu.quantize %f2, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  func.return %yq, %y2 : tensor<1x2x4x4xi8>, tensor<1x2x4x4xi8>
}
