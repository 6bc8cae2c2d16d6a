// plan-host-memory, reshape aliasing: a cpu.reshape shares its input's storage (`alias`, no
// offsets), through chains of reshapes and for function inputs too; a reader of the alias
// keeps that storage live. A reshape whose result the function returns is a copy.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// COM: %a's storage is read through %g by %y0, the last op: %c cannot take it; %y0, its last
// COM: reader, writes its result over it (in place through the aliases).
// CHECK-LABEL: func.func @aliases(
// CHECK-SAME:    attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<2048 bytes, align 64>}
// CHECK-NEXT:    %a = cpu.unary relu %x {offsets = array<i64: 0>}
// CHECK-NEXT:    %f = cpu.reshape %a {alias}
// CHECK-NEXT:    %g = cpu.reshape %f {alias}
// CHECK-NEXT:    %c = cpu.unary relu %g {offsets = array<i64: 1024>}
// CHECK-NEXT:    %r = cpu.reshape %c {offsets = array<i64: -1>}
// CHECK-NEXT:    %i = cpu.reshape %x {alias}
// CHECK-NEXT:    %y0 = cpu.binary add %g, %i {in_place = 0 : i64, offsets = array<i64: 0>}
// CHECK-NEXT:    %y = cpu.reshape %y0 {offsets = array<i64: -1>}
func.func @aliases(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<256xf32>) {
  %a = cpu.unary relu %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %f = cpu.reshape %a : (tensor<4x64xf32>) -> tensor<256xf32>
  %g = cpu.reshape %f : (tensor<256xf32>) -> tensor<16x16xf32>
  %c = cpu.unary relu %g : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = cpu.reshape %c : (tensor<16x16xf32>) -> tensor<4x64xf32>
  %i = cpu.reshape %x : (tensor<4x64xf32>) -> tensor<16x16xf32>
  %y0 = cpu.binary add %g, %i : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = cpu.reshape %y0 : (tensor<16x16xf32>) -> tensor<256xf32>
  func.return %r, %y : tensor<4x64xf32>, tensor<256xf32>
}
