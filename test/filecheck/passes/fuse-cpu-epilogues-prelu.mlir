// A PRelu of a conv's result, its only use, whose slope is a constant per output channel
// ((3, 1, 1) as keras2onnx writes it, or a scalar, broadcast) is the conv applying it as it
// stores its output, after its residual: activation prelu with the slope as a new (3)
// constant in the weights.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-weights --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %s_slope = graph.constant dense_resource<s_slope> : tensor<3xf32>
// CHECK-NEXT:    %y = cpu.conv %x, %w residual %r slope %s_slope {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind prelu>} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) residual tensor<1x3x6x6xf32> slope tensor<3xf32> -> tensor<1x3x6x6xf32>
// CHECK-SAME:        loc(fused["conv1"("Conv"), "add"("Add"), "prelu1"("PRelu")])
// CHECK-NEXT:    %d_slope = graph.constant dense_resource<d_slope> : tensor<3xf32>
// CHECK-NEXT:    %z = cpu.conv %x, %w slope %d_slope {{{.*}}, activation = #cpu<epilogue_kind prelu>}
// CHECK-SAME:        loc(fused["conv2"("Conv"), "prelu2"("PRelu")])
// CHECK-NEXT:    func.return %y, %z
// CHECK:       s_slope: "0x04000000CDCC4C3E0000C0BF0000C03F"
// CHECK-NEXT:  d_slope: "0x040000000000803E0000803E0000803E"
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>, %r: tensor<1x3x6x6xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %a311 = graph.constant dense_resource<a311> : tensor<3x1x1xf32>
  %one = graph.constant dense_resource<one> : tensor<1xf32>
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %s = cpu.binary add %c, %r : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("add"("Add"))
  %y = cpu.binary prelu %s, %a311 : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32> loc("prelu1"("PRelu"))
  %d = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv2"("Conv"))
  %z = cpu.binary prelu %d, %one : (tensor<1x3x6x6xf32>, tensor<1xf32>) -> tensor<1x3x6x6xf32> loc("prelu2"("PRelu"))
  func.return %y, %z : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      a311: "0x04000000CDCC4C3E0000C0BF0000C03F",
      one: "0x040000000000803E"
    }
  }
#-}
