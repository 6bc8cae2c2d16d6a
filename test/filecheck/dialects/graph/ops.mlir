// Round trips of the graph dialect's custom syntax: print -> parse -> print, and through
// the generic form (--print-op-generic) back to the custom form.
// RUN: MRVL_ROUNDTRIP
// RUN: mrvl-opt %s --print-op-generic --split-input-file | mrvl-opt --split-input-file | filecheck %s
// RUN: mrvl-opt %s --print-op-generic --split-input-file | filecheck %s --check-prefix=GENERIC

// A typed op with properties; `group = 1` and `auto_pad = "NOTSET"` are the defaults
// and are not printed, even when written. The generic form has them all.
// CHECK-LABEL: func.func @typed_op(
// CHECK-NEXT:    %y = graph.Conv %x, %w, %b {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-SAME:        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %z = graph.Gemm %m, %n {alpha = 5.000000e-01 : f32, transB = 1 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %y, %z
// GENERIC-LABEL: "func.func"() <{sym_name = "typed_op"
// GENERIC:         "graph.Conv"(%x, %w, %b) <{
// GENERIC-SAME:        group = 1 : i64, auto_pad = "NOTSET"
// GENERIC:         "graph.Gemm"(%m, %n) <{
// GENERIC-SAME:        beta = 1.000000e+00 : f32
func.func @typed_op(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %m: tensor<2x4xf32>, %n: tensor<3x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<2x3xf32>) {
  %y = graph.Conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, auto_pad = "NOTSET", dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %z = graph.Gemm %m, %n {transB = 1 : i64, alpha = 0.5 : f32} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  func.return %y, %z : tensor<1x4x4x4xf32>, tensor<2x3xf32>
}

// -----

// graph.constant: inline dense (integer tensor, float scalar) and dense_resource whose
// handle has no blob (IR printed without its weights).
// CHECK-LABEL: func.func @constants(
// CHECK-NEXT:    %shape = graph.constant dense<[1, -1]> : tensor<2xi64>
// CHECK-NEXT:    %eps = graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %w = graph.constant dense_resource<w> : tensor<4x3xf32>
// CHECK-NEXT:    func.return %shape, %eps, %w
// GENERIC-LABEL: "func.func"() <{sym_name = "constants"
// GENERIC:         "graph.constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
// GENERIC:         "graph.constant"() <{value = dense_resource<w> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
func.func @constants() -> (tensor<2xi64>, tensor<f32>, tensor<4x3xf32>) {
  %shape = graph.constant dense<[1, -1]> : tensor<2xi64>
  %eps = graph.constant dense<0.5> : tensor<f32>
  %w = graph.constant dense_resource<w> : tensor<4x3xf32>
  func.return %shape, %eps, %w : tensor<2xi64>, tensor<f32>, tensor<4x3xf32>
}

// -----

// graph.custom: op type, optional domain, ONNX attributes (may be empty), any operands
// and results.
// CHECK-LABEL: func.func @custom(
// CHECK-NEXT:    %y = graph.custom "BiasGelu" domain "com.microsoft"{{ ?}}(%x, %b) {alpha = 5.000000e-01 : f32, mode = "fast", ks = array<i64: 1, 2>}
// CHECK-SAME:        : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %p, %q = graph.custom "Pair"{{ ?}}(%y) {} : (tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi64>)
// CHECK-NEXT:    %s = graph.custom "Source" domain "org.example"{{ ?}}() {} : () -> tensor<2xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "custom"
// GENERIC:         "graph.custom"(%x, %b) <{op_type = "BiasGelu", domain = "com.microsoft", onnx_attributes = {alpha = 5.000000e-01 : f32, mode = "fast", ks = array<i64: 1, 2>}}>
// GENERIC:         "graph.custom"(%y) <{op_type = "Pair", onnx_attributes = {}}>
func.func @custom(%x: tensor<1x4xf32>, %b: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi64>, tensor<2xf32>) {
  %y = graph.custom "BiasGelu" domain "com.microsoft" (%x, %b) {alpha = 5.000000e-01 : f32, mode = "fast", ks = array<i64: 1, 2>} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %p, %q = graph.custom "Pair" (%y) {} : (tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi64>)
  %s = graph.custom "Source" domain "org.example" () {} : () -> tensor<2xf32>
  func.return %p, %q, %s : tensor<1x4xf32>, tensor<1x4xi64>, tensor<2xf32>
}

// -----

// Absent optional operands in the middle: the segment sizes are printed (and needed to
// parse). Where the present operands fill the definitions left to right, they are
// implied and not printed, even when written.
// CHECK-LABEL: func.func @optional_operands(
// CHECK-NEXT:    %up = graph.Resize %x, %scales {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x16x16xf32>
// CHECK-NEXT:    %down = graph.Resize %x, %sizes {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %max = graph.Clip %x, %hi {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    %min = graph.Clip %x, %lo : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    %both = graph.Clip %x, %lo, %hi : (tensor<1x3x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "optional_operands"
// GENERIC:         "graph.Resize"(%x, %scales) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>
// GENERIC:         "graph.Resize"(%x, %sizes) <{mode = "linear", operandSegmentSizes = array<i32: 1, 0, 0, 1>
// GENERIC:         "graph.Clip"(%x, %hi) <{operandSegmentSizes = array<i32: 1, 0, 1>}>
// GENERIC:         "graph.Clip"(%x, %lo) <{operandSegmentSizes = array<i32: 1, 1, 0>}>
// GENERIC:         "graph.Clip"(%x, %lo, %hi) <{operandSegmentSizes = array<i32: 1, 1, 1>}>
func.func @optional_operands(%x: tensor<1x3x8x8xf32>, %scales: tensor<4xf32>, %sizes: tensor<4xi64>, %lo: tensor<f32>, %hi: tensor<f32>) -> (tensor<1x3x16x16xf32>, tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %up = graph.Resize %x, %scales {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x16x16xf32>
  %down = graph.Resize %x, %sizes {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  %max = graph.Clip %x, %hi {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xf32>
  %min = graph.Clip %x, %lo {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xf32>
  %both = graph.Clip %x, %lo, %hi : (tensor<1x3x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x3x8x8xf32>
  func.return %up, %down, %max, %min, %both : tensor<1x3x16x16xf32>, tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// -----

// A variadic operand (Concat): any number of operands, no segment sizes.
// CHECK-LABEL: func.func @variadic(
// CHECK-NEXT:    %y = graph.Concat %a, %b, %c {axis = 1 : i64} : (tensor<1x3xf32>, tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x6xf32>
// CHECK-NEXT:    %z = graph.Concat %a {axis = 0 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "variadic"
// GENERIC:         "graph.Concat"(%a, %b, %c) <{axis = 1 : i64}>
func.func @variadic(%a: tensor<1x3xf32>, %b: tensor<1x2xf32>, %c: tensor<1x1xf32>) -> (tensor<1x6xf32>, tensor<1x3xf32>) {
  %y = graph.Concat %a, %b, %c {axis = 1 : i64} : (tensor<1x3xf32>, tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x6xf32>
  %z = graph.Concat %a {axis = 0 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %y, %z : tensor<1x6xf32>, tensor<1x3xf32>
}

// -----

// Several optional results (BatchNormalization in training mode returns running mean
// and variance): resultSegmentSizes follows from the result count and is not printed.
// CHECK-LABEL: func.func @optional_results(
// CHECK-NEXT:    %y, %mean, %var = graph.BatchNormalization %x, %s, %b, %m, %v {training_mode = 1 : i64}
// CHECK-SAME:        : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %inference = graph.BatchNormalization %x, %s, %b, %m, %v : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "optional_results"
// GENERIC:         "graph.BatchNormalization"(%x, %s, %b, %m, %v) <{
// GENERIC-SAME:        resultSegmentSizes = array<i32: 1, 1, 1>
// GENERIC:         "graph.BatchNormalization"(%x, %s, %b, %m, %v) <{
// GENERIC-SAME:        resultSegmentSizes = array<i32: 1, 0, 0>
func.func @optional_results(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %y, %mean, %var = graph.BatchNormalization %x, %s, %b, %m, %v {training_mode = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %inference = graph.BatchNormalization %x, %s, %b, %m, %v : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y, %mean, %var, %inference : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}

// -----

// A region op: graph.If with then and else regions, each ended by graph.yield; a branch
// uses values of the enclosing block.
// CHECK-LABEL: func.func @if(
// CHECK-NEXT:    %y = graph.If %c ({
// CHECK-NEXT:      %t = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:      graph.yield %t : tensor<1x4xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %k = graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:      %e = graph.Mul %x, %k : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
// CHECK-NEXT:      graph.yield %e : tensor<1x4xf32>
// CHECK-NEXT:    }) : (tensor<i1>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %y : tensor<1x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "if"
// GENERIC:         "graph.If"(%c) ({
// GENERIC:           "graph.yield"(%t) : (tensor<1x4xf32>) -> ()
// GENERIC:         }, {
// GENERIC:           "graph.yield"(%e) : (tensor<1x4xf32>) -> ()
// GENERIC:         }) : (tensor<i1>) -> tensor<1x4xf32>
func.func @if(%c: tensor<i1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y = graph.If %c ({
    %t = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
    graph.yield %t : tensor<1x4xf32>
  }, {
    %k = graph.constant dense<2.0> : tensor<f32>
    %e = graph.Mul %x, %k : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
    graph.yield %e : tensor<1x4xf32>
  }) : (tensor<i1>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}
