// Without a seed a training-mode Dropout's mask would be random: no host kernel draws it.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'drop1' (Dropout): no host kernel for Dropout in training mode without a 'seed' (its mask would be random){{$}}

func.func @unseeded(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = graph.constant dense<5.000000e-01> : tensor<f32>
  %t = graph.constant dense<true> : tensor<i1>
  %y = graph.Dropout %x, %r, %t : (tensor<3x4xf32>, tensor<f32>, tensor<i1>) -> tensor<3x4xf32> loc("drop1")
  func.return %y : tensor<3x4xf32>
}
