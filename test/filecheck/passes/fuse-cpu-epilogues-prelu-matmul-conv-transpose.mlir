// A PRelu of a matmul's result (after its bias) whose slope is a constant along the last dim
// ((1, 4): a dense layer's), or of a transposed conv's result whose slope is a constant per
// output channel, is the op applying it: activation prelu with the slope as a new (4) or (3)
// constant in the weights.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-weights --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %b_slope = graph.constant dense_resource<b_slope> : tensor<4xf32>
// CHECK-NEXT:    %y = cpu.matmul %x, %w bias %b4 slope %b_slope {activation = #cpu<epilogue_kind prelu>} : (tensor<2x3xf32>, tensor<3x4xf32>) bias tensor<4xf32> slope tensor<4xf32> -> tensor<2x4xf32>
// CHECK-SAME:        loc(fused["m"("MatMul"), "b"("Add"), "p"("PRelu")])
// CHECK-NEXT:    %t_slope = graph.constant dense_resource<t_slope> : tensor<3xf32>
// CHECK-NEXT:    %z = cpu.conv_transpose %u, %v slope %t_slope {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind prelu>} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) slope tensor<3xf32> -> tensor<1x3x8x8xf32>
// CHECK-SAME:        loc(fused["t"("ConvTranspose"), "q"("PRelu")])
// CHECK:       b_slope: "0x040000000000803E0000003F000080BF00000040"
// CHECK-NEXT:  t_slope: "0x04000000CDCC4C3E0000C0BF0000C03F"
func.func @net(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %u: tensor<1x2x4x4xf32>, %v: tensor<2x3x2x2xf32>) -> (tensor<2x4xf32>, tensor<1x3x8x8xf32>) {
  %b4 = graph.constant dense_resource<b4> : tensor<4xf32>
  %a14 = graph.constant dense_resource<a14> : tensor<1x4xf32>
  %a311 = graph.constant dense_resource<a311> : tensor<3x1x1xf32>
  %m = cpu.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("m"("MatMul"))
  %b = cpu.binary add %m, %b4 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("b"("Add"))
  %y = cpu.binary prelu %b, %a14 : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32> loc("p"("PRelu"))
  %t = cpu.conv_transpose %u, %v {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x8xf32> loc("t"("ConvTranspose"))
  %z = cpu.binary prelu %t, %a311 : (tensor<1x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<1x3x8x8xf32> loc("q"("PRelu"))
  func.return %y, %z : tensor<2x4xf32>, tensor<1x3x8x8xf32>
}
{-#
  dialect_resources: {
    builtin: {
      b4: "0x040000000000803F0000004000004040000080BF",
      a14: "0x040000000000803E0000003F000080BF00000040",
      a311: "0x04000000CDCC4C3E0000C0BF0000C03F"
    }
  }
#-}
