// plan-host-memory, alignment: every buffer in the workspace starts and ends on a 64-byte
// boundary (12 and 3 bytes take 64 each, an empty tensor 64 too: %e takes %a's 64 bytes once
// %b has read them), and the function records the workspace's size and alignment.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @small(
// CHECK-SAME:    attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<192 bytes, align 64>}
// CHECK-NEXT:    %a = cpu.unary relu %x {offsets = array<i64: 0>}
// CHECK-NEXT:    %b = cpu.cast %a {offsets = array<i64: 64>}
// CHECK-NEXT:    %e = cpu.unary relu %empty {offsets = array<i64: 0>}
// CHECK-NEXT:    %c = cpu.cast %b {offsets = array<i64: 128>}
func.func @small(%x: tensor<3xf32>, %empty: tensor<0xf32>) -> (tensor<3xf32>, tensor<0xf32>) {
  %a = cpu.unary relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %b = cpu.cast %a : (tensor<3xf32>) -> tensor<3xi8>
  %e = cpu.unary relu %empty : (tensor<0xf32>) -> tensor<0xf32>
  %c = cpu.cast %b : (tensor<3xi8>) -> tensor<3xf32>
  %y = cpu.unary relu %c : (tensor<3xf32>) -> tensor<3xf32>
  %z = cpu.unary relu %e : (tensor<0xf32>) -> tensor<0xf32>
  func.return %y, %z : tensor<3xf32>, tensor<0xf32>
}
