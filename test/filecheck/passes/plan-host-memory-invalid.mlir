// plan-host-memory plans functions of cpu ops only: another op is an error naming it.
// RUN: not mrvl-opt %s -p plan-host-memory 2>&1 | filecheck %s

// CHECK: {{^}}error: {{.*}}plan-host-memory-invalid.mlir: 'graph.Relu': plan-host-memory plans cpu ops only: lower it to cpu first{{$}}
func.func @graph_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.Relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
