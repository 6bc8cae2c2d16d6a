// ResNet's block end: conv, batch norm, the Add of the block's input, Relu. All three
// epilogues fold, in that order, into one conv whose location names all four ONNX nodes.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @block(
// CHECK:         %y = cpu.conv %x, %w_bn, %b_bn residual %x {{{.*}}min = 0.000000e+00 : f32} : ({{.*}}) residual tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
// CHECK-SAME:        loc(fused["conv"("Conv"), "bn"("BatchNormalization"), "add"("Add"), "relu"("Relu")])
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     cpu.batch_norm
// CHECK-NOT:     cpu.binary
// CHECK-NOT:     cpu.unary
func.func @block(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %b = graph.constant dense_resource<b> : tensor<2xf32>
  %s = graph.constant dense_resource<s> : tensor<2xf32>
  %m = graph.constant dense_resource<m> : tensor<2xf32>
  %v = graph.constant dense_resource<v> : tensor<2xf32>
  %c = cpu.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv"("Conv"))
  %n = cpu.batch_norm %c, %s, %b, %m, %v {epsilon = 1.000000e-05 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("bn"("BatchNormalization"))
  %a = cpu.binary add %n, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("add"("Add"))
  %y = cpu.unary relu %a : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("relu"("Relu"))
  func.return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000000000000000000803F",
      b: "0x040000000000803F00000040",
      s: "0x040000000000803F0000803F",
      m: "0x040000000000000000000000",
      v: "0x040000000000803F0000803F"
    }
  }
#-}
