// A training-mode Dropout's seed must be one numpy's legacy generator takes, in [0, 2^32).
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'drop1' (Dropout): 'seed' must be in [0, 2^32) (numpy's generator takes no other), got -5{{$}}

func.func @negative_seed(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = graph.constant dense<5.000000e-01> : tensor<f32>
  %t = graph.constant dense<true> : tensor<i1>
  %y = graph.Dropout %x, %r, %t {seed = -5 : i64} : (tensor<3x4xf32>, tensor<f32>, tensor<i1>) -> tensor<3x4xf32> loc("drop1")
  func.return %y : tensor<3x4xf32>
}
