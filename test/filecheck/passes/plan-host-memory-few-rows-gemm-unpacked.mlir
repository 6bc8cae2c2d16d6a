// plan-host-memory, weight packing: a cpu.gemm of at most GEMM_DOT_ROWS (4) rows whose
// constant B is transposed (trans_b: a fully connected layer on a sample or a few, as
// PyTorch exports it) keeps B as it is: its kernel dots each row of A with B's rows, reading
// B once from memory, and packs nothing at run time (no scratch).
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @fc(
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    %y = cpu.gemm %x, %w {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true, offsets = array<i64: -1>} : (tensor<4x64xf32>, tensor<100x64xf32>) -> tensor<4x100xf32>
// CHECK-NOT:     packed
func.func @fc(%x: tensor<4x64xf32>) -> tensor<4x100xf32> {
  %w = graph.constant dense<1.0> : tensor<100x64xf32>
  %y = cpu.gemm %x, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x64xf32>, tensor<100x64xf32>) -> tensor<4x100xf32>
  func.return %y : tensor<4x100xf32>
}
