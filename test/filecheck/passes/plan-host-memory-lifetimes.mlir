// plan-host-memory, lifetimes: a result lives in the workspace from its op to its last
// reader, placed by first fit in op order; its storage is free after that reader, so a later
// result takes the hole it leaves, and an op never writes over an operand it reads.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// COM: every tensor is 1024 bytes; %b's storage is free once %c has read it, and %d (which
// COM: reads %a at 0 and %c at 2048) takes it, its scratch after the three; %y is the
// COM: function's result. (Softmax and MatMul: ops that do not write over their input.)
// CHECK-LABEL: func.func @diamond(
// CHECK-SAME:    attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<6080 bytes, align 64>}
// CHECK-NEXT:    %a = cpu.softmax %x {axis = 1 : i64, offsets = array<i64: 0>}
// CHECK-NEXT:    %b = cpu.softmax %x {axis = 1 : i64, offsets = array<i64: 1024>}
// CHECK-NEXT:    %c = cpu.softmax %b {axis = 1 : i64, offsets = array<i64: 2048>}
// CHECK-NEXT:    %d = cpu.matmul %a, %c {offsets = array<i64: 1024>, scratch = #cpu.scratch<3008 bytes at 3072>}
// CHECK-NEXT:    %y = cpu.softmax %d {axis = 1 : i64, offsets = array<i64: -1>}
func.func @diamond(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = cpu.softmax %x {axis = 1 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = cpu.softmax %x {axis = 1 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = cpu.softmax %b {axis = 1 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %d = cpu.matmul %a, %c : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = cpu.softmax %d {axis = 1 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  func.return %y : tensor<16x16xf32>
}
