// A leading sum goes to the host with its whole fusion group (the Relu fused into it) and
// nothing else: the convs after it stay on MLIP. When the next layer then leads, and is a
// sum too, it follows; the first conv ends the evictions. A conv is never evicted.
// RUN: mrvl-opt %s -p partition-mrvl | filecheck %s

// CHECK-LABEL: func.func @chain_of_sums(
// CHECK-NEXT:    %h = graph.Sigmoid %x
// CHECK-NEXT:    %s = graph.Add %h, %x {mrvl.pattern = "sum", mrvl.place = "host", mrvl.reasons = ["policy.no-leading-sum: {{.*}}(node 's' (Add) reads a subgraph input)"]}
// CHECK-NEXT:    %r = graph.Relu %s {mrvl.pattern = "sum", mrvl.place = "host", mrvl.reasons = ["policy.no-leading-sum: {{.*}}(node 's' (Add) reads a subgraph input)"]}
// CHECK-NEXT:    %t = graph.Add %r, %r {mrvl.pattern = "sum", mrvl.place = "host", mrvl.reasons = ["policy.no-leading-sum: {{.*}}(node 't' (Add) reads a subgraph input)"]}
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%t)
// CHECK-NEXT:    func.return %c
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%t
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    %a = graph.Conv %t, %w {{.*}}mrvl.place = "mlip"
// CHECK-NEXT:    %u = graph.Add %a, %a {{.*}}mrvl.place = "mlip"
// CHECK-NEXT:    %c = graph.Conv %u, %w {{.*}}mrvl.place = "mlip"
// CHECK-NEXT:    mrvl.yield %c
func.func @chain_of_sums(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %h = graph.Sigmoid %x {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = graph.Add %h, %x {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("s")
  %r = graph.Relu %s {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("r")
  %t = graph.Add %r, %r {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("t")
  %a = graph.Conv %t, %w {"mrvl.place" = "mlip", "mrvl.group" = 2 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %u = graph.Add %a, %a {"mrvl.place" = "mlip", "mrvl.group" = 3 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("u")
  %c = graph.Conv %u, %w {"mrvl.place" = "mlip", "mrvl.group" = 4 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}
