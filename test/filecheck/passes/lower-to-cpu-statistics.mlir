// Outputs computed from statistics: LayerNormalization's Mean and InvStdDev, and
// BatchNormalization in training mode (the batch's mean and variance normalise, and update
// the running ones), from cpu.reduce and elementwise ops; Dropout's mask at inference is
// all true.
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @layer_norm_statistics(
// CHECK-NEXT:    %{{.*}} = cpu.reduce mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %{{.*}} = cpu.binary sub %x, %{{.*}} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = cpu.binary mul
// CHECK-NEXT:    %{{.*}} = cpu.reduce mean
// CHECK-NEXT:    %{{.*}} = graph.constant dense<1.000000e-05> : tensor<f32>
// CHECK-NEXT:    %{{.*}} = cpu.binary add
// CHECK-NEXT:    %{{.*}} = cpu.unary sqrt
// CHECK-NEXT:    %{{.*}} = cpu.unary reciprocal
// CHECK-NEXT:    %{{.*}} = cpu.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.000000e-05 : f32}
func.func @layer_norm_statistics(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %n, %mean, %inv = graph.LayerNormalization %x, %s {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  func.return %n, %mean, %inv : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// CHECK-LABEL: func.func @batch_norm_training(
// CHECK-NEXT:    %{{.*}} = cpu.reduce mean %x {axes = array<i64: 0, 2, 3>, keepdims = true} : (tensor<2x3x4x5xf32>) -> tensor<1x3x1x1xf32>
// CHECK:         %[[MEAN:.*]] = cpu.reshape %{{.*}} : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[VAR:.*]] = cpu.reshape %{{.*}} : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = cpu.batch_norm %x, %s, %b, %[[MEAN]], %[[VAR]]
// CHECK:         %{{.*}} = cpu.binary mul %m, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = cpu.binary mul %[[MEAN]], %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = cpu.binary add
func.func @batch_norm_training(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>) {
  %y, %rm, %rv = graph.BatchNormalization %x, %s, %b, %m, %v {training_mode = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %y, %rm : tensor<2x3x4x5xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @dropout_mask(
// CHECK-NEXT:    %{{.*}} = graph.constant dense<true> : tensor<i1>
// CHECK-NEXT:    %{{.*}} = cpu.expand %{{.*}} : (tensor<i1>) -> tensor<2x2xi1>
// CHECK-NEXT:    func.return %x, %{{.*}}
func.func @dropout_mask(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xi1>) {
  %d, %mask = graph.Dropout %x : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xi1>)
  func.return %d, %mask : tensor<2x2xf32>, tensor<2x2xi1>
}
