// plan-host-memory, strided slices: a concat's input that a cpu.elementwise computes and only
// the concat reads is written by it straight into its slice of the concat's output (here the
// channels of NHWC, rows 12 floats apart: `out_strides`, its loop unmerged). A split of such a
// result whose pieces are consecutive inputs of the concat (C2f) gets the same: the split's
// input lies in the concat's output (`in_strides`), a piece only the concat reads is not
// written (`in_place`, its offset its slice's), a piece read elsewhere too (%b) is copied out.
// The concat then copies nothing (`in_place`: every input).
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @c2f(
// CHECK-NEXT:    %s = cpu.elementwise %x {loop = array<i64: 16, 8>, strides = array<i64: 8, 1>, out_strides = array<i64: 12, 1>, offsets = array<i64: [[C:[0-9]+]]>}
// CHECK:         %a, %b = cpu.split %s {axis = 3 : i64, sizes = array<i64: 4, 4>, in_strides = array<i64: 192, 48, 12, 1>, in_place = array<i64: 0>, offsets = array<i64: [[C]], [[B:[0-9]+]]>}
// CHECK-NEXT:    %r = cpu.unary relu %b
// CHECK-NEXT:    %m_1 = cpu.elementwise %r, %b {loop = array<i64: 16, 4>, strides = array<i64: 4, 1, 4, 1>, out_strides = array<i64: 12, 1>, offsets = array<i64: 32>}
// CHECK:         %c = cpu.concat %a, %b, %m_1 {axis = 3 : i64, in_place = array<i64: 0, 1, 2>, offsets = array<i64: [[C]]>}
func.func @c2f(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x12xf32> {
  %s = cpu.elementwise %x : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: f32):
    %g = cpu.sigmoid %v : f32
    %m = arith.mulf %v, %g : f32
    cpu.yield %m : f32
  }
  %a, %b = cpu.split %s {axis = 3 : i64, sizes = array<i64: 4, 4>} : (tensor<1x4x4x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
  %r = cpu.unary relu %b : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %m = cpu.elementwise %r, %b : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%v: f32, %u: f32):
    %t = arith.addf %v, %u : f32
    cpu.yield %t : f32
  }
  %c = cpu.concat %a, %b, %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x12xf32>
  %y = cpu.unary relu %c : (tensor<1x4x4x12xf32>) -> tensor<1x4x4x12xf32>
  func.return %y : tensor<1x4x4x12xf32>
}

// A result read twice (%s, also returned through %t) or a function input (%x) is copied by
// the concat; the elementwise result read by it only (%e) is written in place.
// CHECK-LABEL: func.func @partly(
// CHECK:         %e = cpu.elementwise %x {loop = array<i64: 16, 4>, strides = array<i64: 4, 1>, out_strides = array<i64: 12, 1>, offsets = array<i64: [[E:[0-9]+]]>}
// CHECK:         %c = cpu.concat %s, %x, %e {axis = 3 : i64, in_place = array<i64: 2>, offsets = array<i64: {{[0-9]+}}>}
func.func @partly(%x: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x12xf32>, tensor<1x4x4x4xf32>) {
  %s = cpu.elementwise %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%v: f32):
    %g = cpu.sigmoid %v : f32
    cpu.yield %g : f32
  }
  %e = cpu.elementwise %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%v: f32):
    %n = arith.negf %v : f32
    cpu.yield %n : f32
  }
  %t = cpu.unary relu %s : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = cpu.concat %s, %x, %e {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x12xf32>
  %y = cpu.unary relu %c : (tensor<1x4x4x12xf32>) -> tensor<1x4x4x12xf32>
  func.return %y, %t : tensor<1x4x4x12xf32>, tensor<1x4x4x4xf32>
}

// A nearest resize read only by the concat writes its rows into the concat's last dim too
// (`out_strides`: the output's); a resize read twice is copied by the concat.
// CHECK-LABEL: func.func @upsampled(
// CHECK-NEXT:    %u = cpu.resize nearest %x {{{.*}}kernel = #cpu<resize_kernel nearest>, out_strides = array<i64: 256, 64, 8, 1>, offsets = array<i64: [[U:[0-9]+]]>}
// CHECK-NEXT:    %l = cpu.resize nearest %x {{{.*}}kernel = #cpu<resize_kernel nearest>, offsets = array<i64: {{[0-9]+}}>}
// CHECK-NEXT:    %c = cpu.concat %u, %l {axis = 3 : i64, in_place = array<i64: 0>, offsets = array<i64: [[U]]>}
func.func @upsampled(%x: tensor<1x2x4x4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x4xf32>) {
  %u = cpu.resize nearest %x {scales = array<f32: 1.0, 2.0, 2.0, 1.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<1x2x4x4xf32>) -> tensor<1x4x8x4xf32>
  %l = cpu.resize nearest %x {scales = array<f32: 1.0, 2.0, 2.0, 1.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<1x2x4x4xf32>) -> tensor<1x4x8x4xf32>
  %c = cpu.concat %u, %l {axis = 3 : i64} : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x8xf32>
  %y = cpu.unary relu %c : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %z = cpu.unary relu %l : (tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  func.return %y, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x4xf32>
}
