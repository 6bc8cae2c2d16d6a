// plan-host-memory, outputs: a result the function returns is written straight into the
// caller's buffer (offset -1, no workspace), while another result of the same op that is
// not returned gets its place in the workspace.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// COM: %i takes 192 bytes at 0, then TopK's scratch: two index arrays of the 5 elements along
// COM: its axis, 16 bytes per element. %v is returned twice: written once, then copied.
// CHECK-LABEL: func.func @top_k(
// CHECK-SAME:    attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<320 bytes, align 64>}
// CHECK-NEXT:    %v, %i = cpu.top_k %x {{{.*}}, offsets = array<i64: -1, 0>, scratch = #cpu.scratch<80 bytes at 192>}
// CHECK-NEXT:    %c = cpu.cast %i {offsets = array<i64: -1>}
func.func @top_k(%x: tensor<3x4x5xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>) {
  %v, %i = cpu.top_k %x {axis = 2 : i64, k = 2 : i64, largest = true} : (tensor<3x4x5xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xi64>)
  %c = cpu.cast %i : (tensor<3x4x2xi64>) -> tensor<3x4x2xf32>
  func.return %v, %c, %v : tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>
}
