// fuse-host-qdq-softmaxes: DequantizeLinear -> Softmax -> QuantizeLinear of one 8-bit type
// becomes one cpu.qlinear_softmax of the integers (onnxruntime's QLinearSoftmax arithmetic);
// the DequantizeLinear stays for its other reader.
// RUN: mrvl-opt %s -p fuse-host-qdq-softmaxes | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %sx = graph.constant
// CHECK-NEXT:    %zx = graph.constant
// CHECK-NEXT:    %sy = graph.constant
// CHECK-NEXT:    %zy = graph.constant
// CHECK-NEXT:    %x = cpu.dequantize %xq, %sx, %zx
// CHECK-NEXT:    %yq = cpu.qlinear_softmax %xq, %sx, %sy, %zy {axis = 3 : i64} : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xui8>
// CHECK-NEXT:    func.return %yq, %x

func.func @net(%xq: tensor<1x2x8x8xui8>) -> (tensor<1x2x8x8xui8>, tensor<1x2x8x8xf32>) {
  %sx = graph.constant dense<5.000000e-02> : tensor<f32>
  %zx = graph.constant dense<7> : tensor<ui8>
  %sy = graph.constant dense<3.906250e-03> : tensor<f32>
  %zy = graph.constant dense<0> : tensor<ui8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xf32>
  %p = cpu.softmax %x {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %yq = cpu.quantize %p, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x8x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xui8>
  func.return %yq, %x : tensor<1x2x8x8xui8>, tensor<1x2x8x8xf32>
}
