// Epilogues fold in the order ONNX computes them: an Add after a Relu is no residual of the
// conv (relu(conv) + x is not relu(conv + x)), so only the Relu folds.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %d = cpu.conv %x, %w {{{.*}}min = 0.000000e+00 : f32} : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32>
// CHECK-NEXT:    %a = cpu.binary add %d, %x
// CHECK-NEXT:    func.return %a
func.func @net(%x: tensor<1x3x6x6xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %d0 = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %d = cpu.unary relu %d0 : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %a = cpu.binary add %d, %x : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %a : tensor<1x3x6x6xf32>
}
