// Mul(x, Tanh(Softplus(x))) of a conv's result (Mish as exporters before opset 18 write it,
// e.g. YOLOv4's), either operand order, is the conv applying Mish as it stores its output:
// the Tanh and Softplus go, the location names all four nodes.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind mish>}
// CHECK-SAME:        loc(fused["conv1"("Conv"), "mish"("Mul"), "tanh"("Tanh"), "softplus"("Softplus")])
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     cpu.unary
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %s = cpu.unary softplus %c : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("softplus"("Softplus"))
  %t = cpu.unary tanh %s : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("tanh"("Tanh"))
  %y = cpu.binary mul %t, %c : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("mish"("Mul"))
  func.return %y : tensor<1x3x6x6xf32>
}
