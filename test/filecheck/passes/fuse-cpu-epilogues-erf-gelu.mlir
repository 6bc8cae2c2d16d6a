// GELU written out, x * 0.5 * (1 + erf(x / sqrt(2))), is one cpu.unary gelu, which then folds
// into the matmul before it; with another constant (1.5 for the 1) it stays as written.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %y = cpu.matmul %x, %w {activation = #cpu<epilogue_kind gelu>}
// CHECK-SAME:        loc(fused["m"("MatMul"), "y"("Mul"), "p"("Mul"), "g"("Add"), "e"("Erf"), "d"("Div")])
// CHECK-NEXT:    %n = cpu.matmul %x, %w :
// CHECK-NEXT:    %d2 = cpu.binary div %n, %sqrt2
// CHECK-NEXT:    %e2 = cpu.unary erf %d2
// CHECK-NEXT:    %g2 = cpu.binary add %e2, %other
// CHECK-NEXT:    %p2 = cpu.binary mul %n, %g2
// CHECK-NEXT:    %z = cpu.binary mul %p2, %half
func.func @net(%x: tensor<5x3xf32>, %w: tensor<3x4xf32>) -> (tensor<5x4xf32>, tensor<5x4xf32>) {
  %sqrt2 = graph.constant dense_resource<sqrt2> : tensor<f32>
  %one = graph.constant dense_resource<one> : tensor<f32>
  %half = graph.constant dense_resource<half> : tensor<f32>
  %other = graph.constant dense_resource<other> : tensor<f32>
  %m = cpu.matmul %x, %w : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32> loc("m"("MatMul"))
  %d = cpu.binary div %m, %sqrt2 : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x4xf32> loc("d"("Div"))
  %e = cpu.unary erf %d : (tensor<5x4xf32>) -> tensor<5x4xf32> loc("e"("Erf"))
  %g = cpu.binary add %e, %one : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x4xf32> loc("g"("Add"))
  %p = cpu.binary mul %m, %g : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32> loc("p"("Mul"))
  %y = cpu.binary mul %p, %half : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x4xf32> loc("y"("Mul"))
  %n = cpu.matmul %x, %w : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %d2 = cpu.binary div %n, %sqrt2 : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x4xf32>
  %e2 = cpu.unary erf %d2 : (tensor<5x4xf32>) -> tensor<5x4xf32>
  %g2 = cpu.binary add %e2, %other : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x4xf32>
  %p2 = cpu.binary mul %n, %g2 : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %z = cpu.binary mul %p2, %half : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x4xf32>
  func.return %y, %z : tensor<5x4xf32>, tensor<5x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      sqrt2: "0x04000000f304b53f",
      one: "0x040000000000803f",
      half: "0x040000000000003f",
      other: "0x040000000000c03f"
    }
  }
#-}
