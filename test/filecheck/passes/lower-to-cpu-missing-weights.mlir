// A parameter held as a weight (dense_resource) needs its data: IR printed without its
// weights cannot be lowered.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'up1' (Resize): input 'scales' is the weight 'scales', and the IR carries no data for it{{$}}

func.func @f(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %scales = graph.constant dense_resource<scales> : tensor<4xf32>
  %y = graph.Resize %x, %scales {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32> loc("up1")
  func.return %y : tensor<1x1x4x4xf32>
}
