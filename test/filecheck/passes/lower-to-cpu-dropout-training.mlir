// A training-mode Dropout with a seed becomes cpu.dropout (ratio 0.5 when not given), its
// mask a result only when used; its mask is the one ONNX's reference draws for the seed.
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @seeded(
// CHECK-NEXT:    %y, %mask = cpu.dropout %x {ratio = 7.500000e-01 : f32, seed = 3 : i64} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
// CHECK-NEXT:    func.return %y, %mask
func.func @seeded(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>) {
  %r = graph.constant dense<7.500000e-01> : tensor<f32>
  %t = graph.constant dense<true> : tensor<i1>
  %y, %mask = graph.Dropout %x, %r, %t {seed = 3 : i64} : (tensor<3x4xf32>, tensor<f32>, tensor<i1>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
  func.return %y, %mask : tensor<3x4xf32>, tensor<3x4xi1>
}

// CHECK-LABEL: func.func @default_ratio(
// CHECK-NEXT:    %y = cpu.dropout %x {ratio = 5.000000e-01 : f32, seed = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %y
func.func @default_ratio(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %t = graph.constant dense<true> : tensor<i1>
  %y, %mask = graph.Dropout %x, %t {operandSegmentSizes = array<i32: 1, 0, 1>, seed = 0 : i64} : (tensor<3x4xf32>, tensor<i1>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
  func.return %y : tensor<3x4xf32>
}
