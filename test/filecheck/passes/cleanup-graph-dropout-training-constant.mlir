// COM: A training-mode Dropout of a constant must not be folded: evaluating it draws a
// COM: random mask at compile time (each build gets other weights). Like any
// COM: training-mode Dropout, it stays.
// RUN: mrvl-opt %s -p cleanup-graph | filecheck %s

// CHECK-LABEL: func.func @dropout_training_of_constant(
// CHECK:         %[[Y:[^ ]+]] = graph.Dropout %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : (tensor<8xf32>, tensor<f32>, tensor<i1>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @dropout_training_of_constant() -> tensor<8xf32> {
  %x = graph.constant dense_resource<k> : tensor<8xf32>
  %r = graph.constant dense<5.000000e-01> : tensor<f32>
  %t = graph.constant dense<true> : tensor<i1>
  %y = graph.Dropout %x, %r, %t : (tensor<8xf32>, tensor<f32>, tensor<i1>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}
{-#
  dialect_resources: {
    builtin: {
      k: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}
