// COM: A Squeeze whose axes are computed at run time cannot become a squeeze layer (its
// COM: axes are a property): place-ops keeps it on the host and fuse-mrvl leaves it, with
// COM: or without placement (no crash).
// RUN: mrvl-opt %s -p place-ops,fuse-mrvl | filecheck %s
// RUN: mrvl-opt %s -p fuse-mrvl | filecheck %s

// CHECK-LABEL: func.func @squeeze_runtime_axes(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x8x1x1xf32>, %[[AXES:[^:]+]]: tensor<2xi64>
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.Squeeze %[[X]], %[[AXES]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @squeeze_runtime_axes(%x: tensor<1x8x1x1xf32>, %axes: tensor<2xi64>) -> tensor<1x8xf32> {
  %y = graph.Squeeze %x, %axes : (tensor<1x8x1x1xf32>, tensor<2xi64>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}
