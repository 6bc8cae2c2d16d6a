// A Mul and then an Add of a conv's result (after its Relu) by constants per output channel
// ((3, 1, 1) and (1, 3, 1, 1): one value per channel) fold into the conv as its `scale` and
// `shift`, new (3) constants; a Mul after the shift, or by a constant that varies along
// another dim, stays.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-weights | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %r_scale = graph.constant dense_resource<r_scale> : tensor<3xf32>
// CHECK-NEXT:    %m_shift = graph.constant dense_resource<m_shift> : tensor<3xf32>
// CHECK-NEXT:    %t = cpu.conv %x, %w scale %r_scale shift %m_shift {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) scale tensor<3xf32> shift tensor<3xf32> -> tensor<1x3x6x6xf32>
// CHECK-NEXT:    %y = cpu.binary mul %t, %s
// CHECK-NEXT:    %c = cpu.conv %x, %w {
// CHECK-NEXT:    %z = cpu.binary mul %c, %row
// CHECK:       r_scale: "0x040000000000803F0000004000004040"
// CHECK-NEXT:  m_shift: "0x040000000000003F00000000000080BF"
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %s = graph.constant dense_resource<s> : tensor<3x1x1xf32>
  %t4 = graph.constant dense_resource<t4> : tensor<1x3x1x1xf32>
  %row = graph.constant dense_resource<row> : tensor<1x1x1x6xf32>
  %a = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %r = cpu.unary relu %a : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %m = cpu.binary mul %r, %s : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %t = cpu.binary add %t4, %m : (tensor<1x3x1x1xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %y = cpu.binary mul %t, %s : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %z = cpu.binary mul %c, %row : (tensor<1x3x6x6xf32>, tensor<1x1x1x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %y, %z : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      s: "0x040000000000803F0000004000004040",
      t4: "0x040000000000003F00000000000080BF",
      row: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}
