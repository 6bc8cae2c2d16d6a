// A conv whose result is also used elsewhere (here: a function result) keeps its batch
// norm: folding would change the other use's value.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %c = cpu.conv %x, %w {
// CHECK-NEXT:    %y = cpu.batch_norm %c, %s, %b, %m, %v
// CHECK-NEXT:    func.return %y, %c
func.func @net(%x: tensor<1x2x6x6xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %w = graph.constant dense_resource<w> : tensor<3x2x1x1xf32>
  %s = graph.constant dense_resource<s> : tensor<3xf32>
  %b = graph.constant dense_resource<b> : tensor<3xf32>
  %m = graph.constant dense_resource<m> : tensor<3xf32>
  %v = graph.constant dense_resource<v> : tensor<3xf32>
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %y = cpu.batch_norm %c, %s, %b, %m, %v {epsilon = 0.000000e+00 : f32} : (tensor<1x3x6x6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  func.return %y, %c : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
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
