// plan-host-memory, weight packing: a cpu.gemm of at most GEMM_DOT_ROWS (4) rows whose
// constant B is (K, N) gets B's transpose as a new constant and trans_b, so that its kernel
// dots each row of A with B's rows; the constant it replaced goes.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory --print-weights | filecheck %s

// COM: b (K 2, N 3) [[0, 1, 2], [10, 11, 12]] transposed is [[0, 10], [1, 11], [2, 12]]:
// COM: 0.0, 10.0 (0x41200000), 1.0 (0x3F800000), 11.0 (0x41300000), 2.0 (0x40000000), 12.0 (0x41400000).
// CHECK-LABEL: func.func @fc(
// CHECK-NEXT:    %b_transposed = graph.constant dense_resource<b_transposed> : tensor<3x2xf32>
// CHECK-NEXT:    %y = cpu.gemm %x, %b_transposed {{{.*}}trans_a = false, trans_b = true, offsets = array<i64: -1>} : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    func.return %y
// CHECK:         b_transposed: "0x0400000000000000000020410000803F000030410000004000004041"
func.func @fc(%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %b = graph.constant dense<[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]]> : tensor<2x3xf32>
  %y = cpu.gemm %x, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  func.return %y : tensor<1x3xf32>
}
