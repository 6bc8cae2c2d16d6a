// mrvl-opt runs xDSL passes on graph IR: `dce` erases unused pure graph ops (and the
// constants only they used), but keeps graph.custom, whose effects are unknown.
// RUN: mrvl-opt %s -p dce | filecheck %s

// CHECK-LABEL: func.func @dce(
// CHECK-NEXT:    %r = graph.Relu %x
// CHECK-NEXT:    %side = graph.custom "Log" domain "org.example"
// CHECK-NEXT:    func.return %r
// CHECK-NOT:     graph.Sigmoid
// CHECK-NOT:     graph.constant
func.func @dce(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %k = graph.constant dense<2.0> : tensor<f32>
  %unused = graph.Mul %x, %k : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %dead = graph.Sigmoid %unused : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %side = graph.custom "Log" domain "org.example" (%x) {} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %r : tensor<1x4xf32>
}
