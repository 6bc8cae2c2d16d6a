// Verifier errors of cpu.elementwise, one per chunk: each names the rule and what it got.
// RUN: mrvl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: Operation does not verify: the body must take one scalar per input (2), got 1
func.func @too_few_arguments(%x: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.elementwise %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: f32):
    cpu.yield %v : f32
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: body argument 0 must be f32 (its input's element type), got f64
func.func @argument_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.elementwise %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: f64):
    %t = arith.truncf %v : f64 to f32
    cpu.yield %t : f32
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: the body must yield f32 (the result's element type), got f64
func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.elementwise %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: f32):
    %e = arith.extf %v : f32 to f64
    cpu.yield %e : f64
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: the input shapes [[3], [4]] must broadcast to the result shape [4]
func.func @not_broadcastable(%x: tensor<3xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.elementwise %x, %z : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: f32, %w: f32):
    %a = arith.addf %v, %w : f32
    cpu.yield %a : f32
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: 'strides' must have 2 values (one per loop dim and input), got 1: [1]
func.func @strides_count(%x: tensor<4x5xf32>, %z: tensor<5xf32>) -> tensor<4x5xf32> {
  %y = cpu.elementwise %x, %z {loop = array<i64: 20>, strides = array<i64: 1>} : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32> {
  ^bb0(%v: f32, %w: f32):
    %a = arith.addf %v, %w : f32
    cpu.yield %a : f32
  }
  func.return %y : tensor<4x5xf32>
}

// -----

// CHECK: Operation does not verify: 'in_place' must name an input of the result's type, got 1
func.func @in_place_over_a_broadcast_input(%x: tensor<4x5xf32>, %z: tensor<5xf32>) -> tensor<4x5xf32> {
  %y = cpu.elementwise %x, %z {in_place = 1 : i64} : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32> {
  ^bb0(%v: f32, %w: f32):
    %a = arith.addf %v, %w : f32
    cpu.yield %a : f32
  }
  func.return %y : tensor<4x5xf32>
}

// -----

// CHECK: Operation does not verify: 'out_strides' must give one stride per loop dim
func.func @out_strides_not_one_per_loop_dim(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = cpu.elementwise %x {loop = array<i64: 4, 5>, strides = array<i64: 5, 1>, out_strides = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4x5xf32> {
  ^bb0(%v: f32):
    cpu.yield %v : f32
  }
  func.return %y : tensor<4x5xf32>
}

// -----

// CHECK: Operation does not verify: 'out_strides' must be 1 along the innermost loop dim
func.func @out_strides_inner_not_contiguous(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = cpu.elementwise %x {loop = array<i64: 4, 5>, strides = array<i64: 5, 1>, out_strides = array<i64: 1, 4>} : (tensor<4x5xf32>) -> tensor<4x5xf32> {
  ^bb0(%v: f32):
    cpu.yield %v : f32
  }
  func.return %y : tensor<4x5xf32>
}

// -----

// CHECK: Operation does not verify: 'out_strides' and 'in_place' exclude each other
func.func @out_strides_in_place(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = cpu.elementwise %x {loop = array<i64: 4, 5>, strides = array<i64: 5, 1>, out_strides = array<i64: 8, 1>, in_place = 0 : i64} : (tensor<4x5xf32>) -> tensor<4x5xf32> {
  ^bb0(%v: f32):
    cpu.yield %v : f32
  }
  func.return %y : tensor<4x5xf32>
}

// -----

// CHECK: 'cpu.yield' expects parent op 'cpu.elementwise'
func.func @yield_outside(%v: f32) {
  cpu.yield %v : f32
}
