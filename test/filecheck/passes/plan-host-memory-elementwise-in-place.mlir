// plan-host-memory writes a cpu.elementwise's result over an input whose storage it reads last
// (`in_place`, the same offset): over %a, a host result read by nothing after it. Not over a
// function input (%x), nor over a result still read later (%b, read by %d), nor as the
// function's result (%y, written into the caller's buffer).
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %a = cpu.leaky_relu %x {alpha = 1.000000e-01 : f32, offsets = array<i64: [[A:[0-9]+]]>}
// CHECK-NEXT:    %b = cpu.leaky_relu %x {alpha = 2.000000e-01 : f32, offsets = array<i64: [[B:[0-9]+]]>}
// CHECK-NEXT:    %c = cpu.elementwise %x, %a, %b {loop = array<i64: 256>, strides = array<i64: 1, 1, 1>, in_place = 1 : i64, offsets = array<i64: [[A]]>}
// CHECK:         %d = cpu.elementwise %c, %b {loop = array<i64: 256>, strides = array<i64: 1, 1>, in_place = 0 : i64, offsets = array<i64: [[A]]>}
// CHECK:         %y = cpu.elementwise %d {loop = array<i64: 256>, strides = array<i64: 1>, offsets = array<i64: -1>}
func.func @chain(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = cpu.leaky_relu %x {alpha = 0.1 : f32} : (tensor<256xf32>) -> tensor<256xf32>
  %b = cpu.leaky_relu %x {alpha = 0.2 : f32} : (tensor<256xf32>) -> tensor<256xf32>
  %c = cpu.elementwise %x, %a, %b : (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%v: f32, %w: f32, %u: f32):
    %s = arith.addf %v, %w : f32
    %m = arith.mulf %s, %u : f32
    cpu.yield %m : f32
  }
  %d = cpu.elementwise %c, %b : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%v: f32, %w: f32):
    %s = arith.subf %v, %w : f32
    cpu.yield %s : f32
  }
  %y = cpu.elementwise %d : (tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    cpu.yield %e : f32
  }
  func.return %y : tensor<256xf32>
}

// A single elementwise op takes over an input's storage in the same way (a cold result
// buffer costs a read of each cache line before it is written): the HardSwish over %a, the Add
// over %h (its lhs); not a comparison (its i1 result is not its operands' type), nor the
// Softmax (not an elementwise op).
// CHECK-LABEL: func.func @single_ops(
// CHECK-NEXT:    %a = cpu.softmax %x {axis = 0 : i64, offsets = array<i64: [[A:[0-9]+]]>}
// CHECK-NEXT:    %h = cpu.hard_swish %a {in_place = 0 : i64, offsets = array<i64: [[A]]>}
// CHECK-NEXT:    %s = cpu.softmax %h {axis = 0 : i64, offsets = array<i64: {{[0-9]+}}>}
// CHECK-NEXT:    %g = cpu.binary greater %s, %h {offsets = array<i64: -1>}
// CHECK-NEXT:    %d = cpu.binary add %h, %s {in_place = 0 : i64, offsets = array<i64: [[A]]>}
func.func @single_ops(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xi1>) {
  %a = cpu.softmax %x {axis = 0 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %h = cpu.hard_swish %a : (tensor<256xf32>) -> tensor<256xf32>
  %s = cpu.softmax %h {axis = 0 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %g = cpu.binary greater %s, %h : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xi1>
  %d = cpu.binary add %h, %s : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %y = cpu.unary exp %d : (tensor<256xf32>) -> tensor<256xf32>
  func.return %y, %g : tensor<256xf32>, tensor<256xi1>
}
