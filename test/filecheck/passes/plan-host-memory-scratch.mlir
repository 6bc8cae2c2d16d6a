// plan-host-memory, scratch: a kernel's scratch area (`scratch`, its size in bytes then its
// offset) is placed after the op's results and is live during the op's call only, so the
// next op's result may take it. Its size is what the kernel of mrvl_kernels.c reads.
// RUN: mrvl-opt %s --split-input-file -p select-host-kernels,plan-host-memory | filecheck %s

// COM: the conv's result (216 bytes) takes 256, its scratch follows; %z takes the scratch's
// COM: place. A direct conv whose weights are a run-time tensor: its scratch holds the weights
// COM: packed (3 output channels rounded up to 32, 2 x 3 x 3 rows: 576 floats), the padded
// COM: input (2 channels x 7 x 8) and the tap table (2 x 9): 706 floats.
// CHECK-LABEL: func.func @conv(
// CHECK-NEXT:    %y = cpu.conv %x, %w {{{.*}}, offsets = array<i64: 0>, scratch = #cpu.scratch<2824 bytes at 256>}
// CHECK-NEXT:    %z = cpu.softmax %y {axis = 3 : i64, offsets = array<i64: 256>}
func.func @conv(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x6xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 2, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x6xf32>
  %z = cpu.softmax %y {axis = 3 : i64} : (tensor<1x3x3x6xf32>) -> tensor<1x3x3x6xf32>
  %r = cpu.unary relu %z : (tensor<1x3x3x6xf32>) -> tensor<1x3x3x6xf32>
  func.return %r : tensor<1x3x3x6xf32>
}

// -----

// COM: A Gemm of at most MRVL_GEMM_DOT_ROWS rows with B transposed takes dot products: no
// COM: scratch. Otherwise the packed blocks of B (A's rows are contiguous, not packed):
// COM: k 8 rows of n 3 + 31 floats = 272 floats.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME:    attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<1088 bytes, align 64>}
// CHECK-NEXT:    %dot = cpu.gemm %a, %bt {{{[^}]*}} trans_b = true, offsets = array<i64: -1>} : (
// CHECK-NEXT:    %packed = cpu.gemm %a, %b {{{.*}}, offsets = array<i64: -1>, scratch = #cpu.scratch<1088 bytes at 0>}
func.func @gemm(%a: tensor<2x8xf32>, %bt: tensor<3x8xf32>, %b: tensor<8x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %dot = cpu.gemm %a, %bt {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x3xf32>
  %packed = cpu.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  func.return %dot, %packed : tensor<2x3xf32>, tensor<2x3xf32>
}
