// plan-host-memory, weight packing: a cpu.matmul of at most GEMM_DOT_ROWS (4) rows (its batch
// dims stacked: 2 x 1 rows here) by one constant (K, N) matrix gets B's transpose as a new
// constant and `transposed_b`, so that its kernel dots each row of A with B's rows.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory --print-weights | filecheck %s

// CHECK-LABEL: func.func @linear(
// CHECK-NEXT:    %w_transposed = graph.constant dense_resource<w_transposed> : tensor<3x2xf32>
// CHECK-NEXT:    %y = cpu.matmul %x, %w_transposed {transposed_b, offsets = array<i64: -1>} : (tensor<2x1x2xf32>, tensor<3x2xf32>) -> tensor<2x1x3xf32>
// CHECK-NEXT:    func.return %y
// CHECK:         w_transposed: "0x0400000000000000000020410000803F000030410000004000004041"
func.func @linear(%x: tensor<2x1x2xf32>) -> tensor<2x1x3xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]]> : tensor<2x3xf32>
  %y = cpu.matmul %x, %w : (tensor<2x1x2xf32>, tensor<2x3xf32>) -> tensor<2x1x3xf32>
  func.return %y : tensor<2x1x3xf32>
}
