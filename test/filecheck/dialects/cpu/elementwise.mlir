// Round trip of cpu.elementwise (with cpu.sigmoid and cpu.yield in its body, a per-channel
// input broadcast over the result, and the properties select-host-kernels and
// plan-host-memory record): print -> parse -> print, and through the generic form.
// RUN: MRVL_ROUNDTRIP
// RUN: mrvl-opt %s --print-op-generic | mrvl-opt | filecheck %s
// RUN: mrvl-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @silu_plus_channel(
// CHECK-NEXT:    %y = cpu.elementwise %x, %c {loop = array<i64: 8, 16>, strides = array<i64: 16, 1, 1, 0>, in_place = 0 : i64} : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32> {
// CHECK-NEXT:    ^bb0(%v: f32, %w: f32):
// CHECK-NEXT:      %s = cpu.sigmoid %v : f32
// CHECK-NEXT:      %m = arith.mulf %v, %s : f32
// CHECK-NEXT:      %a = arith.addf %m, %w : f32
// CHECK-NEXT:      cpu.yield %a : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y
// GENERIC:       "cpu.elementwise"(%x, %c) <{loop = array<i64: 8, 16>, strides = array<i64: 16, 1, 1, 0>, in_place = 0 : i64}> ({
// GENERIC:         "cpu.sigmoid"(%v) : (f32) -> f32
// GENERIC:         "cpu.yield"(%a) : (f32) -> ()
// GENERIC-NEXT:  }) : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
func.func @silu_plus_channel(%x: tensor<1x8x4x4xf32>, %c: tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %y = cpu.elementwise %x, %c {loop = array<i64: 8, 16>, strides = array<i64: 16, 1, 1, 0>, in_place = 0 : i64} : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  ^bb0(%v: f32, %w: f32):
    %s = cpu.sigmoid %v : f32
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %w : f32
    cpu.yield %a : f32
  }
  func.return %y : tensor<1x8x4x4xf32>
}
