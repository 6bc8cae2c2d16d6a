// A PRelu whose slope is not one value per output channel stays a cpu.binary prelu of its
// own: a slope that varies along the width (1, 1, 1, 6), or one given at run time.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %row = graph.constant
// CHECK-NEXT:    %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} :
// CHECK-NEXT:    %y = cpu.binary prelu %c, %row
// CHECK-NEXT:    %d = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} :
// CHECK-NEXT:    %z = cpu.binary prelu %d, %a
// CHECK-NEXT:    func.return %y, %z
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>, %a: tensor<3x1x1xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %row = graph.constant dense_resource<row> : tensor<1x1x1x6xf32>
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %y = cpu.binary prelu %c, %row : (tensor<1x3x6x6xf32>, tensor<1x1x1x6xf32>) -> tensor<1x3x6x6xf32>
  %d = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %z = cpu.binary prelu %d, %a : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
  func.return %y, %z : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      row: "0x040000000000803E0000003F0000803E0000003F0000803E0000003F"
    }
  }
#-}
