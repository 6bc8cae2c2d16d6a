// select-host-kernels refuses an op no C kernel runs, with one error naming its ONNX node and
// what the kernels lack (here a conv on float16: the conv kernels are float32 only).
// RUN: not mrvl-opt %s -p select-host-kernels 2>&1 | filecheck %s

// CHECK: {{^}}error: {{.*}}select-host-kernels-unsupported.mlir: node 'conv_fp16' (Conv): the C backend has no kernel for 'cpu.conv' on tensor<1x2x4x4xf16> (float32 only){{$}}
// CHECK-NOT: error
func.func @half(%x: tensor<1x2x4x4xf16>, %w: tensor<2x2x1x1xf16>) -> tensor<1x2x4x4xf16> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf16>, tensor<2x2x1x1xf16>) -> tensor<1x2x4x4xf16> loc("conv_fp16"("Conv"))
  func.return %y : tensor<1x2x4x4xf16>
}
