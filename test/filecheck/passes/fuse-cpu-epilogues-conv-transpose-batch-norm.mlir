// A batch norm of a transposed conv's result, its only use, folds into it: W (C, M, kernel...)
// scaled along its output channels (dim 1), s = scale / sqrt(var + epsilon) = 1, 4: w (1, 2;
// 3, 4) -> (1, 8; 3, 16); the bias (none) (0 - mean) * s + beta = 0.5, -5 (0xC0A00000).
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-weights --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %w_bn = graph.constant dense_resource<w_bn> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %b_bn = graph.constant dense_resource<b_bn> : tensor<2xf32>
// CHECK-NEXT:    %y = cpu.conv_transpose %x, %w_bn, %b_bn {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 1, 1>}
// CHECK-SAME:        loc(fused["up1"("ConvTranspose"), "bn1"("BatchNormalization")])
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     cpu.batch_norm
// CHECK:       w_bn: "0x040000000000803F000000410000404000008041"
// CHECK-NEXT:  b_bn: "0x040000000000003F0000A0C0"
func.func @net(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %s = graph.constant dense_resource<s> : tensor<2xf32>
  %b = graph.constant dense_resource<b> : tensor<2xf32>
  %m = graph.constant dense_resource<m> : tensor<2xf32>
  %v = graph.constant dense_resource<v> : tensor<2xf32>
  %c = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x6x6xf32> loc("up1"("ConvTranspose"))
  %y = cpu.batch_norm %c, %s, %b, %m, %v {epsilon = 0.000000e+00 : f32} : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32> loc("bn1"("BatchNormalization"))
  func.return %y : tensor<1x2x6x6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040",
      s: "0x040000000000803F00000040",
      b: "0x040000000000003F000080BF",
      m: "0x04000000000000000000803F",
      v: "0x040000000000803F0000803E"
    }
  }
#-}
