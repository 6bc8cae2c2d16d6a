// Optional outputs nothing uses (MaxPool's Indices, LayerNormalization's Mean and
// InvStdDev, Dropout's mask) are not computed.
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @unused_outputs(
// CHECK-NEXT:    %y = cpu.pool max %x
// CHECK-NEXT:    %n = cpu.layer_norm %y, %s {axis = 3 : i64, epsilon = 1.000000e-05 : f32}
// CHECK-NEXT:    func.return %n, %y
func.func @unused_outputs(%x: tensor<1x1x4x4xf32>, %s: tensor<2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %y, %indices = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %n, %mean, %inv = graph.LayerNormalization %y, %s : (tensor<1x1x2x2xf32>, tensor<2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>)
  %d, %mask = graph.Dropout %y : (tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi1>)
  func.return %n, %d : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}
