// A Mish chain whose Softplus is also used elsewhere (here: a function result) does not fuse:
// the Softplus must still be computed.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} :
// CHECK-NEXT:    %s = cpu.unary softplus %c
// CHECK-NEXT:    %t = cpu.unary tanh %s
// CHECK-NEXT:    %y = cpu.binary mul %c, %t
// CHECK-NEXT:    func.return %y, %s
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %s = cpu.unary softplus %c : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %t = cpu.unary tanh %s : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %y = cpu.binary mul %c, %t : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %y, %s : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
}
