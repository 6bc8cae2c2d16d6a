// plan-host-memory, weight packing: a cpu.gemm or cpu.matmul of more than GEMM_DOT_ROWS rows
// with fewer than 16 result columns (half a panel of the packed GEMM layout) keeps its
// constant B as it is: packed, it would be mostly zeros, and its kernel reads few weights
// either way.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @narrow(
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    %y = cpu.gemm %x, %w {{{.*}}trans_b = true, offsets
// CHECK-NEXT:    %v = graph.constant
// CHECK-NEXT:    %z = cpu.matmul %x, %v {offsets
// CHECK-NOT:     packed
func.func @narrow(%x: tensor<5x4xf32>) -> (tensor<5x15xf32>, tensor<5x15xf32>) {
  %w = graph.constant dense<1.0> : tensor<15x4xf32>
  %y = cpu.gemm %x, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<5x4xf32>, tensor<15x4xf32>) -> tensor<5x15xf32>
  %v = graph.constant dense<1.0> : tensor<4x15xf32>
  %z = cpu.matmul %x, %v : (tensor<5x4xf32>, tensor<4x15xf32>) -> tensor<5x15xf32>
  func.return %y, %z : tensor<5x15xf32>, tensor<5x15xf32>
}
