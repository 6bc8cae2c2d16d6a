// plan-host-memory, lifetimes: a result lives in the workspace from its op to its last
// reader, placed by first fit in op order; its storage is free after that reader, so a later
// result takes the hole it leaves, and an op never writes over an operand it reads.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// COM: every tensor is 1024 bytes; %b's storage is free once %c has read it, and %d (which
// COM: reads %a at 0 and %c at 2048) takes it; %y is the function's result.
// CHECK-LABEL: func.func @diamond(
// CHECK-SAME:    attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<3072 bytes, align 64>}
// CHECK-NEXT:    %a = cpu.unary relu %x {offsets = array<i64: 0>}
// CHECK-NEXT:    %b = cpu.unary relu %x {offsets = array<i64: 1024>}
// CHECK-NEXT:    %c = cpu.unary relu %b {offsets = array<i64: 2048>}
// CHECK-NEXT:    %d = cpu.binary add %a, %c {offsets = array<i64: 1024>}
// CHECK-NEXT:    %y = cpu.unary relu %d {offsets = array<i64: -1>}
func.func @diamond(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = cpu.unary relu %x : (tensor<256xf32>) -> tensor<256xf32>
  %b = cpu.unary relu %x : (tensor<256xf32>) -> tensor<256xf32>
  %c = cpu.unary relu %b : (tensor<256xf32>) -> tensor<256xf32>
  %d = cpu.binary add %a, %c : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %y = cpu.unary relu %d : (tensor<256xf32>) -> tensor<256xf32>
  func.return %y : tensor<256xf32>
}
