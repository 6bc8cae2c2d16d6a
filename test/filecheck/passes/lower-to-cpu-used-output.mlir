// An output no host kernel computes (here MaxPool's Indices) must be unused.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'pool1' (MaxPool): no host kernel for MaxPool computing its output 'indices'{{$}}

func.func @used_indices(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  %y, %indices = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) loc("pool1")
  func.return %indices : tensor<1x1x2x2xi64>
}
