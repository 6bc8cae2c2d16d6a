// An epilogue folds only when it is all the conv's result is used for: a conv whose result
// is also a function result keeps its Relu apart.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} :
// CHECK-NEXT:    %r = cpu.unary relu %c
// CHECK-NEXT:    func.return %c, %r
func.func @net(%x: tensor<1x3x6x6xf32>, %w: tensor<3x3x1x1xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %r = cpu.unary relu %c : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %c, %r : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
}
