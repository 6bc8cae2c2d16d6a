// Clip bounds known only at run time (graph inputs, as Paddle exports them) lower to a
// cpu.binary max with min, then min with max; a constant bound next to a run-time one
// goes the same way. Bounds that are both constant stay one cpu.clip.
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @both(
// CHECK-SAME:      %x: tensor<2x8xf32>, %lo: tensor<f32>, %hi: tensor<f32>
// CHECK-NEXT:    %y_above_min = cpu.binary max %x, %lo : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %y = cpu.binary min %y_above_min, %hi : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y
func.func @both(%x: tensor<2x8xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x8xf32> {
  %y = graph.Clip %x, %lo, %hi : (tensor<2x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @constant_min(
// CHECK-NEXT:    %lo = graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %y_above_min = cpu.binary max %x, %lo : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT:    %y = cpu.binary min %y_above_min, %hi : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %y
func.func @constant_min(%x: tensor<8xf32>, %hi: tensor<1xf32>) -> tensor<8xf32> {
  %lo = graph.constant dense<0.0> : tensor<f32>
  %y = graph.Clip %x, %lo, %hi : (tensor<8xf32>, tensor<f32>, tensor<1xf32>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @max_only(
// CHECK-NEXT:    %y = cpu.binary min %x, %hi : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %y
func.func @max_only(%x: tensor<8xf32>, %hi: tensor<f32>) -> tensor<8xf32> {
  %y = "graph.Clip"(%x, %hi) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @constant_both(
// CHECK:         %y = cpu.clip %x {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<8xf32>) -> tensor<8xf32>
func.func @constant_both(%x: tensor<8xf32>) -> tensor<8xf32> {
  %lo = graph.constant dense<0.0> : tensor<f32>
  %hi = graph.constant dense<6.0> : tensor<f32>
  %y = graph.Clip %x, %lo, %hi : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}
