// An Add of a conv's result and another tensor of its type, the result's only use, is the
// conv with that tensor as its residual, whichever side of the Add the conv is on. The fused
// conv stands where the Add was, after the residual's definition.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %r = cpu.unary relu %x
// CHECK-NEXT:    %y = cpu.conv %x, %w residual %r {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64}
// CHECK-SAME:        : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) residual tensor<1x3x6x6xf32> -> tensor<1x3x6x6xf32> loc(fused["conv1"("Conv"), "add1"("Add")])
// CHECK-NEXT:    %z = cpu.conv %x, %w residual %x {{.*}} loc(fused["conv2"("Conv"), "add2"("Add")])
// CHECK-NEXT:    func.return %y, %z
func.func @net(%x: tensor<1x3x6x6xf32>, %w: tensor<3x3x1x1xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %r = cpu.unary relu %x : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("relu0"("Relu"))
  %y = cpu.binary add %c, %r : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("add1"("Add"))
  %d = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv2"("Conv"))
  %z = cpu.binary add %x, %d : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("add2"("Add"))
  func.return %y, %z : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>
}
