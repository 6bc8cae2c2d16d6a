// A subgraph over MLIP's batch limit that does not keep the batch as dim 0 (IR written by
// hand: partition-mrvl never makes one) cannot run in chunks: one `error:` line naming the
// subgraph and why, exit code 1, no traceback.
// RUN: not mrvl-opt %s -p chunk-mrvl-batch 2>&1 | filecheck %s

// CHECK:     error: {{.*}}: @sg: batch 16 is over MLIP's limit of 8 and the subgraph cannot run in chunks (node {{.*}} (Reshape): dim 0 goes 16 -> 2): partition-mrvl keeps such layers on the host
// CHECK-NOT: Traceback
builtin.module {
  func.func @main(%x: tensor<16x4x1x1xf32>) -> tensor<2x32x1x1xf32> {
    %y = cpu.call_mlip @sg(%x) : (tensor<16x4x1x1xf32>) -> tensor<2x32x1x1xf32>
    func.return %y : tensor<2x32x1x1xf32>
  }
  mrvl.subgraph @sg(%x: tensor<16x4x1x1xf32>) -> tensor<2x32x1x1xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
    %shape = graph.constant dense<[2, 32, 1, 1]> : tensor<4xi64>
    %y = graph.Reshape %x, %shape : (tensor<16x4x1x1xf32>, tensor<4xi64>) -> tensor<2x32x1x1xf32>
    mrvl.yield %y : tensor<2x32x1x1xf32>
  }
}
