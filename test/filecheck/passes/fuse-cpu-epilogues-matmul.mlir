// A linear layer: the Add of a matmul's result and a constant along the last dim ((4) as it
// is; (1, 4) as a new (4) constant) is the matmul's `bias`; a Relu, or the SiLU Mul(x,
// Sigmoid(x)), after it folds in too. An Add of a constant that varies along another dim, or
// of a run-time tensor, stays.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-weights --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %m_bias = graph.constant dense_resource<m_bias> : tensor<4xf32>
// CHECK-NEXT:    %r = cpu.matmul %x, %w bias %m_bias {min = 0.000000e+00 : f32} : (tensor<2x5x3xf32>, tensor<3x4xf32>) bias tensor<4xf32> -> tensor<2x5x4xf32>
// CHECK-SAME:        loc(fused["m"("MatMul"), "b"("Add"), "r"("Relu")])
// CHECK-NEXT:    %g = cpu.matmul %x, %w bias %b4 {activation = #cpu<epilogue_kind silu>} : (tensor<2x5x3xf32>, tensor<3x4xf32>) bias tensor<4xf32> -> tensor<2x5x4xf32>
// CHECK-SAME:        loc(fused["n"("MatMul"), "c"("Add"), "g"("Mul"), "s"("Sigmoid")])
// CHECK-NEXT:    %o = cpu.matmul %x, %w :
// CHECK-NEXT:    %p = cpu.binary add %o, %col
// CHECK-NEXT:    %q = cpu.matmul %x, %w :
// CHECK-NEXT:    %t = cpu.binary add %q, %v
// CHECK:       m_bias: "0x040000000000803F0000004000004040000080BF"
func.func @net(%x: tensor<2x5x3xf32>, %w: tensor<3x4xf32>, %v: tensor<4xf32>)
    -> (tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>) {
  %b14 = graph.constant dense_resource<b14> : tensor<1x4xf32>
  %b4 = graph.constant dense_resource<b4> : tensor<4xf32>
  %col = graph.constant dense_resource<col> : tensor<5x1xf32>
  %m = cpu.matmul %x, %w : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32> loc("m"("MatMul"))
  %b = cpu.binary add %m, %b14 : (tensor<2x5x4xf32>, tensor<1x4xf32>) -> tensor<2x5x4xf32> loc("b"("Add"))
  %r = cpu.unary relu %b : (tensor<2x5x4xf32>) -> tensor<2x5x4xf32> loc("r"("Relu"))
  %n = cpu.matmul %x, %w : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32> loc("n"("MatMul"))
  %c = cpu.binary add %b4, %n : (tensor<4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32> loc("c"("Add"))
  %s = cpu.unary sigmoid %c : (tensor<2x5x4xf32>) -> tensor<2x5x4xf32> loc("s"("Sigmoid"))
  %g = cpu.binary mul %c, %s : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32> loc("g"("Mul"))
  %o = cpu.matmul %x, %w : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32>
  %p = cpu.binary add %o, %col : (tensor<2x5x4xf32>, tensor<5x1xf32>) -> tensor<2x5x4xf32>
  %q = cpu.matmul %x, %w : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32>
  %t = cpu.binary add %q, %v : (tensor<2x5x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  func.return %r, %g, %p, %t : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      b14: "0x040000000000803F0000004000004040000080BF",
      b4: "0x040000000000003F00000000000080BF0000803F",
      col: "0x040000000000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}
