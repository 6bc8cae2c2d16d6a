// After partitioning: the nodes of a `mrvl.subgraph` are listed where the host calls it
// (program order, not the order of the symbols), a fused layer gives one row per name of
// its `loc(fused[...])` (its op type is no longer known: `-`), and a group the partitioner
// rejected is on the host with its `policy.` reason.
// RUN: mrvl-opt %s -t placement-report | filecheck %s

// CHECK-LABEL: node   op type  runs on                   reasons
// CHECK-NEXT:  conv2  Conv     MLIP (mrvl_sg1, conv2d)
// CHECK-NEXT:  add2   -        MLIP (mrvl_sg1, sum)
// CHECK-NEXT:  relu2  -        MLIP (mrvl_sg1, sum)
// CHECK-NEXT:  pool1  MaxPool  host                      policy.min-size: a subgraph of one layer costs more to call than it saves
// CHECK-NEXT:  conv1  Conv     MLIP (mrvl_sg0, conv2d)
// CHECK-EMPTY:
// CHECK-NEXT:  nodes      5
// CHECK-NEXT:    on MLIP  4   80.0%
// CHECK-NEXT:    on host  1   20.0%
// CHECK-NEXT:  subgraphs  2

mrvl.subgraph @mrvl_sg0(%a: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "hw"} {
  %w = graph.constant dense<1.0> : tensor<4x3x1x1xf32> loc("w1")
  %c = graph.Conv %a, %w {"mrvl.group" = 2 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32> loc("conv1")
  mrvl.yield %c : tensor<1x4x8x8xf32>
}
mrvl.subgraph @mrvl_sg1(%a: tensor<1x3x8x8xf32>) -> tensor<1x8x8x4xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "hw"} {
  %w = graph.constant dense<1.0> : tensor<4x3x1x1xf32> loc("w2")
  %c = graph.Conv %a, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32> loc("conv2")
  %t = graph.Transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
  %s = mrvl.sum %t, %t {activation = #mrvl<activation relu>} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc(fused["add2", "relu2"])
  mrvl.yield %s : tensor<1x8x8x4xf32>
}
func.func @partitioned(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %y = "test.op"(%x) {callee = @mrvl_sg1} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x4xf32>
  %p = graph.MaxPool %x {kernel_shape = array<i64: 1, 1>, "mrvl.place" = "host", "mrvl.group" = 1 : i64, "mrvl.pattern" = "maxpool2d", "mrvl.reasons" = ["policy.min-size: a subgraph of one layer costs more to call than it saves"]} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> loc("pool1")
  %z = "test.op"(%p) {callee = @mrvl_sg0} : (tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %z : tensor<1x4x8x8xf32>
}
