// select-host-kernels records the loop of each cpu.elementwise: the result's dims with size-1
// dims dropped and merged where every input steps over both alike, and each input's strides
// over it (input after input), so the innermost dim is as long as it can be and every input
// is read contiguously along it (stride 1) or splatted (stride 0).
// RUN: mrvl-opt %s -p select-host-kernels | filecheck %s

// COM: per channel in NCHW: a row of H*W = 20 for each of the 6 channels of each of 2 images (the
// COM: constant starts again at each image: those dims do not merge)
// CHECK-LABEL: func.func @nchw_channel(
// CHECK-NEXT:    cpu.elementwise %x, %c {loop = array<i64: 2, 6, 20>, strides = array<i64: 120, 20, 1, 0, 1, 0>}
func.func @nchw_channel(%x: tensor<2x6x4x5xf32>, %c: tensor<6x1x1xf32>) -> tensor<2x6x4x5xf32> {
  %y = cpu.elementwise %x, %c : (tensor<2x6x4x5xf32>, tensor<6x1x1xf32>) -> tensor<2x6x4x5xf32> {
  ^bb0(%v: f32, %w: f32):
    %m = arith.mulf %v, %w : f32
    cpu.yield %m : f32
  }
  func.return %y : tensor<2x6x4x5xf32>
}

// COM: per channel in NHWC: the innermost dim, its 7 channels read again for each of the 20 pixels
// CHECK-LABEL: func.func @nhwc_channel(
// CHECK-NEXT:    cpu.elementwise %x, %c {loop = array<i64: 20, 7>, strides = array<i64: 7, 1, 0, 1>}
func.func @nhwc_channel(%x: tensor<1x4x5x7xf32>, %c: tensor<7xf32>) -> tensor<1x4x5x7xf32> {
  %y = cpu.elementwise %x, %c : (tensor<1x4x5x7xf32>, tensor<7xf32>) -> tensor<1x4x5x7xf32> {
  ^bb0(%v: f32, %w: f32):
    %m = arith.addf %v, %w : f32
    cpu.yield %m : f32
  }
  func.return %y : tensor<1x4x5x7xf32>
}

// COM: full and scalar inputs: one flat row
// CHECK-LABEL: func.func @full_and_scalar(
// CHECK-NEXT:    cpu.elementwise %x, %z, %s {loop = array<i64: 120>, strides = array<i64: 1, 1, 0>}
func.func @full_and_scalar(%x: tensor<2x3x4x5xf32>, %z: tensor<2x3x4x5xf32>, %s: tensor<f32>) -> tensor<2x3x4x5xf32> {
  %y = cpu.elementwise %x, %z, %s : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x4x5xf32> {
  ^bb0(%v: f32, %w: f32, %u: f32):
    %a = arith.addf %v, %w : f32
    %m = arith.mulf %a, %u : f32
    cpu.yield %m : f32
  }
  func.return %y : tensor<2x3x4x5xf32>
}
