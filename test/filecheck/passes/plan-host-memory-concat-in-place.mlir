// plan-host-memory, concat in place: a concat of conv results read by it only, each slice
// contiguous (batch 1, channel axis), is `in_place`: each conv's offset is the concat's plus
// its slice's (2x4x4 floats = 128 bytes per 2 channels), and the concat's output is live from
// the first conv, so the relu between the convs does not take its bytes (0 to 384). A concat with an
// input that is not a conv result, or of a conv result read elsewhere, stays a copy.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @fire(
// CHECK-NEXT:    %a = cpu.conv %x, %w {{.*}}offsets = array<i64: 0>, scratch = #cpu.scratch<1040 bytes at 384>}
// CHECK-NEXT:    %r = cpu.unary relu %x {offsets = array<i64: 384>}
// CHECK-NEXT:    %b = cpu.conv %r, %w2 {{.*}}offsets = array<i64: 128>, scratch = #cpu.scratch<1040 bytes at 512>}
// CHECK-NEXT:    %c = cpu.concat %a, %b {axis = 1 : i64, in_place = array<i64: 0, 1>, offsets = array<i64: 0>}
// CHECK-NEXT:    %y = cpu.unary relu %c {offsets = array<i64: -1>}
func.func @fire(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %w2: tensor<4x2x1x1xf32>) -> tensor<1x6x4x4xf32> {
  %a = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = cpu.unary relu %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %b = cpu.conv %r, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  %c = cpu.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x6x4x4xf32>
  %y = cpu.unary relu %c : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %y : tensor<1x6x4x4xf32>
}

// CHECK-LABEL: func.func @copies(
// CHECK:         %c = cpu.concat %a, %x {axis = 1 : i64, offsets = array<i64: {{[0-9]+}}>}
// CHECK:         %d = cpu.concat %a, %b {axis = 1 : i64, offsets = array<i64: {{[0-9]+}}>}
// CHECK:         %e = cpu.concat %b, %b {axis = 0 : i64, offsets = array<i64: {{[0-9]+}}>}
func.func @copies(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<2x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %a = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = cpu.concat %a, %x {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = cpu.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e = cpu.concat %b, %b {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %f = cpu.unary relu %c : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %g = cpu.unary relu %d : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %h = cpu.unary relu %e : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %i = cpu.unary relu %a : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %f, %g, %h, %i : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<2x2x4x4xf32>, tensor<1x2x4x4xf32>
}
