// COM: Ops inside If, Loop and Scan bodies run on the host, whatever the rules say; the
// COM: If itself has no MLIP layer.
// RUN: mrvl-opt %s -p place-ops | filecheck %s

// CHECK-LABEL: func.func @if(
// CHECK-NEXT:    %y = graph.If %c ({
// CHECK-NEXT:      %t = graph.Relu %x {mrvl.place = "host", mrvl.reasons = ["control-flow: ops inside If, Loop and Scan bodies run on the host"]}
// CHECK-NEXT:      graph.yield %t
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %g = graph.GlobalMaxPool %x {mrvl.place = "host", mrvl.reasons = ["control-flow: ops inside If, Loop and Scan bodies run on the host"]}
// CHECK-NEXT:      graph.yield %g
// CHECK-NEXT:    }) {mrvl.place = "host", mrvl.reasons = ["unsupported: MLIP has no layer for If"]}
func.func @if(%c: tensor<i1>, %x: tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32> {
  %y = graph.If %c ({
    %t = graph.Relu %x : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
    graph.yield %t : tensor<1x4x1x1xf32>
  }, {
    %g = graph.GlobalMaxPool %x : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
    graph.yield %g : tensor<1x4x1x1xf32>
  }) : (tensor<i1>) -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}
