// A batch norm of a conv's result, its only use, folds into the conv: weights and bias
// scaled by s = scale / sqrt(var + epsilon) per output channel, the bias shifted,
// (b - mean) * s + beta (0 without a bias). Here s = 1, 1, 6: w's last row 5, 6 -> 30, 36
// (0x41F00000, 0x42100000); bias 0.5, -1, (0 - 2) * 6 - 1 = -13 (0xC1500000).
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-weights --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %w_bn = graph.constant dense_resource<w_bn> : tensor<3x2x1x1xf32>
// CHECK-NEXT:    %b_bn = graph.constant dense_resource<b_bn> : tensor<3xf32>
// CHECK-NEXT:    %y = cpu.conv %x, %w_bn, %b_bn {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64}
// CHECK-SAME:        loc(fused["conv1"("Conv"), "bn1"("BatchNormalization")])
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     cpu.batch_norm
// CHECK:       w_bn: "0x040000000000803F0000004000004040000080400000F04100001042"
// CHECK-NEXT:  b_bn: "0x040000000000003F000080BF000050C1"
func.func @net(%x: tensor<1x2x6x6xf32>) -> tensor<1x3x6x6xf32> {
  %w = graph.constant dense_resource<w> : tensor<3x2x1x1xf32>
  %s = graph.constant dense_resource<s> : tensor<3xf32>
  %b = graph.constant dense_resource<b> : tensor<3xf32>
  %m = graph.constant dense_resource<m> : tensor<3xf32>
  %v = graph.constant dense_resource<v> : tensor<3xf32>
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %y = cpu.batch_norm %c, %s, %b, %m, %v {epsilon = 0.000000e+00 : f32} : (tensor<1x3x6x6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32> loc("bn1"("BatchNormalization"))
  func.return %y : tensor<1x3x6x6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040000080400000A0400000C040",
      s: "0x040000000000803F0000004000004040",
      b: "0x040000000000003F00000000000080BF",
      m: "0x04000000000000000000803F00000040",
      v: "0x040000000000803F000080400000803E"
    }
  }
#-}
