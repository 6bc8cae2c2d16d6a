// Round trips of every cpu op: print -> parse -> print, and through the generic form.
// RUN: MRVL_ROUNDTRIP
// RUN: mrvl-opt %s --print-op-generic --split-input-file | mrvl-opt --split-input-file | filecheck %s
// RUN: mrvl-opt %s --print-op-generic --split-input-file | filecheck %s --check-prefix=GENERIC

// cpu.call_mlip calls any func-like symbol with a matching function_type (here a
// func.func standing in for an mrvl.subgraph).
// CHECK-LABEL: func.func private @sg0(tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-LABEL: func.func @call(
// CHECK-NEXT:    %y = cpu.call_mlip @sg0(%x, %b) : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %y
// GENERIC:       "cpu.call_mlip"(%x, %b) <{callee = @sg0}> : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
func.func private @sg0(tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
func.func @call(%x: tensor<1x4xf32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {
  %y = cpu.call_mlip @sg0(%x, %b) : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// With chunks, each operand and result holds `chunks` times the callee's dim 0.
// CHECK-LABEL: func.func @call_in_chunks(
// CHECK-NEXT:    %y = cpu.call_mlip @sg8(%x) {chunks = 2 : i64} : (tensor<16x4xf32>) -> tensor<16x2xf32>
// GENERIC:       "cpu.call_mlip"(%x) <{callee = @sg8, chunks = 2 : i64}> : (tensor<16x4xf32>) -> tensor<16x2xf32>
func.func private @sg8(tensor<8x4xf32>) -> tensor<8x2xf32>
func.func @call_in_chunks(%x: tensor<16x4xf32>) -> tensor<16x2xf32> {
  %y = cpu.call_mlip @sg8(%x) {chunks = 2 : i64} : (tensor<16x4xf32>) -> tensor<16x2xf32>
  func.return %y : tensor<16x2xf32>
}

// -----

// Convolutions and matrix products; an absent bias is just not written.
// CHECK-LABEL: func.func @products(
// CHECK-NEXT:    %c = cpu.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %d = cpu.conv %c, %dw {strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, group = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %t = cpu.conv_transpose %d, %tw {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
// CHECK-NEXT:    %g = cpu.gemm %a, %m, %bias {alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %p = cpu.matmul %q, %k : (tensor<2x4x16x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK-NEXT:    %v = cpu.matmul %vec, %k : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "products"
// GENERIC:         "cpu.conv"(%x, %w, %b) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>}>
// GENERIC:         "cpu.gemm"(%a, %m, %bias) <{alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true}>
func.func @products(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %dw: tensor<4x1x3x3xf32>, %tw: tensor<4x2x3x3xf32>,
                    %a: tensor<2x8xf32>, %m: tensor<3x8xf32>, %bias: tensor<3xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<8x16xf32>, %vec: tensor<8xf32>)
    -> (tensor<1x2x10x10xf32>, tensor<2x3xf32>, tensor<2x4x16x16xf32>, tensor<16xf32>) {
  %c = cpu.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %d = cpu.conv %c, %dw {strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, group = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  %t = cpu.conv_transpose %d, %tw {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  %g = cpu.gemm %a, %m, %bias {alpha = 0.5 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %p = cpu.matmul %q, %k : (tensor<2x4x16x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16x16xf32>
  %v = cpu.matmul %vec, %k : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  func.return %t, %g, %p, %v : tensor<1x2x10x10xf32>, tensor<2x3xf32>, tensor<2x4x16x16xf32>, tensor<16xf32>
}

// -----

// A matmul with a fused bias, clamp and activation.
// CHECK-LABEL: func.func @matmul_epilogue(
// CHECK-NEXT:    %y = cpu.matmul %x, %w bias %b {min = 0.000000e+00 : f32, activation = #cpu<epilogue_kind leaky_relu>, alpha = 1.000000e-01 : f32} : (tensor<2x5x8xf32>, tensor<8x4xf32>) bias tensor<4xf32> -> tensor<2x5x4xf32>
// GENERIC:       "cpu.matmul"(%x, %w, %b) <{min = 0.000000e+00 : f32, activation = #cpu<epilogue_kind leaky_relu>, alpha = 1.000000e-01 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
func.func @matmul_epilogue(%x: tensor<2x5x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<2x5x4xf32> {
  %y = cpu.matmul %x, %w bias %b {min = 0.0 : f32, activation = #cpu<epilogue_kind leaky_relu>, alpha = 0.1 : f32} : (tensor<2x5x8xf32>, tensor<8x4xf32>) bias tensor<4xf32> -> tensor<2x5x4xf32>
  func.return %y : tensor<2x5x4xf32>
}

// -----

// A conv with fused epilogues: a residual added, then the output clamped (a Relu: min only);
// a PRelu with its slope per output channel.
// CHECK-LABEL: func.func @epilogues(
// CHECK-NEXT:    %y = cpu.conv %x, %w, %b residual %x {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, min = 0.000000e+00 : f32} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) residual tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %z = cpu.conv %y, %w residual %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) residual tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %p = cpu.conv %z, %w slope %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, activation = #cpu<epilogue_kind prelu>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) slope tensor<4xf32> -> tensor<1x4x8x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogues"
// GENERIC:         "cpu.conv"(%x, %w, %b, %x) <{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>}>
// GENERIC:         "cpu.conv"(%y, %w, %y) <{{.*}}operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0, 0>}>
// GENERIC:         "cpu.conv"(%z, %w, %b) <{{.*}}operandSegmentSizes = array<i32: 1, 1, 0, 0, 1, 0, 0>}>
func.func @epilogues(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w, %b residual %x {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, min = 0.0 : f32} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) residual tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %z = cpu.conv %y, %w residual %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) residual tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %p = cpu.conv %z, %w slope %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, activation = #cpu<epilogue_kind prelu>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) slope tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %p : tensor<1x4x8x8xf32>
}

// -----

// Elementwise ops: the kind is a keyword; comparisons give i1; clip bounds may be
// infinite (printed as hex floats).
// CHECK-LABEL: func.func @elementwise(
// CHECK-NEXT:    %add = cpu.binary add %x, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %lt = cpu.binary less_or_equal %x, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xi1>
// CHECK-NEXT:    %or = cpu.binary or %lt, %lt : (tensor<1x8x4x4xi1>, tensor<1x8x4x4xi1>) -> tensor<1x8x4x4xi1>
// CHECK-NEXT:    %not = cpu.unary not %or : (tensor<1x8x4x4xi1>) -> tensor<1x8x4x4xi1>
// CHECK-NEXT:    %gelu = cpu.unary gelu_tanh %add : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %clip = cpu.clip %gelu {min = 0xff800000 : f32, max = 6.000000e+00 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %leaky = cpu.leaky_relu %clip {alpha = 1.000000e-02 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %hsig = cpu.hard_sigmoid %leaky {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %hswish = cpu.hard_swish %hsig : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %where = cpu.where %not, %hswish, %b : (tensor<1x8x4x4xi1>, tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %cast = cpu.cast %where : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf16>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "elementwise"
// GENERIC:         "cpu.binary"(%x, %b) <{kind = #cpu<binary_kind add>}>
// GENERIC:         "cpu.unary"(%or) <{kind = #cpu<unary_kind not>}>
func.func @elementwise(%x: tensor<1x8x4x4xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x4x4xf16> {
  %add = cpu.binary add %x, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %lt = cpu.binary less_or_equal %x, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xi1>
  %or = cpu.binary or %lt, %lt : (tensor<1x8x4x4xi1>, tensor<1x8x4x4xi1>) -> tensor<1x8x4x4xi1>
  %not = cpu.unary not %or : (tensor<1x8x4x4xi1>) -> tensor<1x8x4x4xi1>
  %gelu = cpu.unary gelu_tanh %add : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %clip = cpu.clip %gelu {min = 0xFF800000 : f32, max = 6.0 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %leaky = cpu.leaky_relu %clip {alpha = 0.00999999977 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %hsig = cpu.hard_sigmoid %leaky {alpha = 0.2 : f32, beta = 0.5 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %hswish = cpu.hard_swish %hsig : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %where = cpu.where %not, %hswish, %b : (tensor<1x8x4x4xi1>, tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %cast = cpu.cast %where : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf16>
  func.return %cast : tensor<1x8x4x4xf16>
}

// -----

// Normalisation, softmax, pooling and reductions.
// CHECK-LABEL: func.func @normalise_pool_reduce(
// CHECK-NEXT:    %sm = cpu.softmax %x {axis = 3 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %ln = cpu.layer_norm %sm, %s, %lb {axis = 2 : i64, epsilon = 1.000000e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %ln2 = cpu.layer_norm %sm, %s {axis = 2 : i64, epsilon = 1.000000e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %bn = cpu.batch_norm %ln, %c, %c, %c, %c {epsilon = 1.000000e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %mp = cpu.pool max %bn {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:    %ap = cpu.pool average %bn {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:    %gp = cpu.global_pool max %bn : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %rm = cpu.reduce mean %bn {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %rs = cpu.reduce log_sum_exp %bn {axes = array<i64: 1>, keepdims = false} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4xf32>
// CHECK-NEXT:    func.return
func.func @normalise_pool_reduce(%x: tensor<1x8x4x4xf32>, %s: tensor<4x4xf32>, %lb: tensor<4x4xf32>, %c: tensor<8xf32>)
    -> (tensor<1x8x4x4xf32>, tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x4x4xf32>) {
  %sm = cpu.softmax %x {axis = 3 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %ln = cpu.layer_norm %sm, %s, %lb {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
  %ln2 = cpu.layer_norm %sm, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
  %bn = cpu.batch_norm %ln, %c, %c, %c, %c {epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %mp = cpu.pool max %bn {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
  %ap = cpu.pool average %bn {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
  %gp = cpu.global_pool max %bn : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %rm = cpu.reduce mean %bn {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %rs = cpu.reduce log_sum_exp %bn {axes = array<i64: 1>, keepdims = false} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4xf32>
  func.return %ln2, %mp, %ap, %gp, %rm, %rs : tensor<1x8x4x4xf32>, tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x4x4xf32>
}

// -----

// Training-mode dropout, with and without its mask.
// CHECK-LABEL: func.func @dropout(
// CHECK-NEXT:    %d, %dm = cpu.dropout %x {ratio = 2.500000e-01 : f32, seed = 4294967295 : i64} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
// CHECK-NEXT:    %d2 = cpu.dropout %x {ratio = 0.000000e+00 : f32, seed = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %d, %dm, %d2
// GENERIC:       "cpu.dropout"(%x) <{ratio = 2.500000e-01 : f32, seed = 4294967295 : i64}> : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
func.func @dropout(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>, tensor<3x4xf32>) {
  %d, %dm = cpu.dropout %x {ratio = 0.25 : f32, seed = 4294967295 : i64} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
  %d2 = cpu.dropout %x {ratio = 0.0 : f32, seed = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %d, %dm, %d2 : tensor<3x4xf32>, tensor<3x4xi1>, tensor<3x4xf32>
}

// -----

// A max pool with its indices (ONNX MaxPool's Indices) and their storage order.
// CHECK-LABEL: func.func @pool_indices(
// CHECK-NEXT:    %mp, %mi = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 1 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>)
// CHECK-NEXT:    func.return %mp, %mi
// GENERIC:       "cpu.pool"(%x) <{kind = #cpu<pool_kind max>, {{.*}}, storage_order = 1 : i64}> : (tensor<1x8x4x4xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>)
func.func @pool_indices(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>) {
  %mp, %mi = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 1 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>)
  func.return %mp, %mi : tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>
}

// -----

// Pools of NHWC tensors (host glue between MLIP calls): channels last.
// CHECK-LABEL: func.func @pool_channels_last(
// CHECK-NEXT:    %mp = cpu.pool max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false, channels_last} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
// CHECK-NEXT:    %gp = cpu.global_pool average %x {channels_last} : (tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32>
// GENERIC:       "cpu.pool"(%x) <{{{.*}}channels_last}> : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
func.func @pool_channels_last(%x: tensor<1x4x4x8xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x1x1x8xf32>) {
  %mp = cpu.pool max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false, channels_last} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
  %gp = cpu.global_pool average %x {channels_last} : (tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32>
  func.return %mp, %gp : tensor<1x2x2x8xf32>, tensor<1x1x1x8xf32>
}

// -----

// A transposed conv and a batch norm of NHWC tensors (host glue between MLIP calls): channels
// last; the weights keep ONNX's layout.
// CHECK-LABEL: func.func @conv_transpose_channels_last(
// CHECK-NEXT:    %t = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, channels_last} : (tensor<1x4x4x8xf32>, tensor<8x2x2x2xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT:    %n = cpu.batch_norm %t, %s, %s, %s, %s {epsilon = 1.000000e-05 : f32, channels_last} : (tensor<1x8x8x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x8x8x2xf32>
// GENERIC:       "cpu.conv_transpose"(%x, %w) <{{{.*}}channels_last{{.*}}}> : (tensor<1x4x4x8xf32>, tensor<8x2x2x2xf32>) -> tensor<1x8x8x2xf32>
func.func @conv_transpose_channels_last(%x: tensor<1x4x4x8xf32>, %w: tensor<8x2x2x2xf32>, %s: tensor<2xf32>) -> tensor<1x8x8x2xf32> {
  %t = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, channels_last} : (tensor<1x4x4x8xf32>, tensor<8x2x2x2xf32>) -> tensor<1x8x8x2xf32>
  %n = cpu.batch_norm %t, %s, %s, %s, %s {epsilon = 1.0e-05 : f32, channels_last} : (tensor<1x8x8x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x8x8x2xf32>
  func.return %n : tensor<1x8x8x2xf32>
}

// -----

// A cropping, antialiased resize: roi has a start and an end per dim.
// CHECK-LABEL: func.func @resize_crop(
// CHECK-NEXT:    %rc = cpu.resize cubic %x {scales = array<f32: 1.000000e+00, 5.000000e-01>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode tf_crop_and_resize>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 2.500000e+00 : f32, antialias = true, roi = array<f32: 0.000000e+00, 2.500000e-01, 1.000000e+00, 7.500000e-01>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %rc
// GENERIC:       "cpu.resize"(%x) <{{{.*}}antialias = true, roi = array<f32: 0.000000e+00, 2.500000e-01, 1.000000e+00, 7.500000e-01>}> : (tensor<2x8xf32>) -> tensor<2x4xf32>
func.func @resize_crop(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %rc = cpu.resize cubic %x {scales = array<f32: 1.0, 0.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode tf_crop_and_resize>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 2.5 : f32, antialias = true, roi = array<f32: 0.0, 0.25, 1.0, 0.75>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  func.return %rc : tensor<2x4xf32>
}

// -----

// Data movement; pad, resize and depth_to_space take their mode as a keyword. A slice
// with a negative step may end at -1 (through index 0).
// CHECK-LABEL: func.func @data_movement(
// CHECK-NEXT:    %cat = cpu.concat %x, %y {axis = 1 : i64} : (tensor<1x8x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x12x2x3xf32>
// CHECK-NEXT:    %flat = cpu.reshape %cat : (tensor<1x12x2x3xf32>) -> tensor<1x72xf32>
// CHECK-NEXT:    %tr = cpu.transpose %x {{.*}}perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x2x3xf32>) -> tensor<1x2x3x8xf32>
// CHECK-NEXT:    %sl = cpu.slice %flat {starts = array<i64: 0, 71>, ends = array<i64: 1, -1>, steps = array<i64: 1, -2>} : (tensor<1x72xf32>) -> tensor<1x36xf32>
// CHECK-NEXT:    %a, %b = cpu.split %x {axis = 1 : i64, sizes = array<i64: 5, 3>} : (tensor<1x8x2x3xf32>) -> (tensor<1x5x2x3xf32>, tensor<1x3x2x3xf32>)
// CHECK-NEXT:    %ga = cpu.gather %x, %i {axis = 1 : i64} : (tensor<1x8x2x3xf32>, tensor<2xi64>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT:    %pad = cpu.pad reflect %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, -1>, value = 0.000000e+00 : f32} : (tensor<1x8x2x3xf32>) -> tensor<1x8x4x3xf32>
// CHECK-NEXT:    %rs = cpu.resize linear %x {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 1.500000e+00>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode align_corners>, nearest_mode = #cpu<nearest_mode round_prefer_floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, antialias = false} : (tensor<1x8x2x3xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %d2s = cpu.depth_to_space CRD %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    %ex = cpu.expand %i : (tensor<2xi64>) -> tensor<3x2xi64>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "data_movement"
// GENERIC:         "cpu.pad"(%x) <{mode = #cpu<pad_mode reflect>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, -1>, value = 0.000000e+00 : f32}>
// GENERIC:         "cpu.depth_to_space"(%x) <{mode = #cpu<depth_to_space_mode CRD>, blocksize = 2 : i64}>
func.func @data_movement(%x: tensor<1x8x2x3xf32>, %y: tensor<1x4x2x3xf32>, %i: tensor<2xi64>)
    -> (tensor<1x2x3x8xf32>, tensor<1x36xf32>, tensor<1x5x2x3xf32>, tensor<1x3x2x3xf32>, tensor<1x2x2x3xf32>, tensor<1x8x4x3xf32>, tensor<1x8x4x4xf32>, tensor<1x2x4x6xf32>, tensor<3x2xi64>) {
  %cat = cpu.concat %x, %y {axis = 1 : i64} : (tensor<1x8x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x12x2x3xf32>
  %flat = cpu.reshape %cat : (tensor<1x12x2x3xf32>) -> tensor<1x72xf32>
  %tr = cpu.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x2x3xf32>) -> tensor<1x2x3x8xf32>
  %sl = cpu.slice %flat {starts = array<i64: 0, 71>, ends = array<i64: 1, -1>, steps = array<i64: 1, -2>} : (tensor<1x72xf32>) -> tensor<1x36xf32>
  %a, %b = cpu.split %x {axis = 1 : i64, sizes = array<i64: 5, 3>} : (tensor<1x8x2x3xf32>) -> (tensor<1x5x2x3xf32>, tensor<1x3x2x3xf32>)
  %ga = cpu.gather %x, %i {axis = 1 : i64} : (tensor<1x8x2x3xf32>, tensor<2xi64>) -> tensor<1x2x2x3xf32>
  %pad = cpu.pad reflect %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, -1>, value = 0.0 : f32} : (tensor<1x8x2x3xf32>) -> tensor<1x8x4x3xf32>
  %rs = cpu.resize linear %x {scales = array<f32: 1.0, 1.0, 2.0, 1.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode align_corners>, nearest_mode = #cpu<nearest_mode round_prefer_floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<1x8x2x3xf32>) -> tensor<1x8x4x4xf32>
  %d2s = cpu.depth_to_space CRD %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %ex = cpu.expand %i : (tensor<2xi64>) -> tensor<3x2xi64>
  func.return %tr, %sl, %a, %b, %ga, %pad, %rs, %d2s, %ex : tensor<1x2x3x8xf32>, tensor<1x36xf32>, tensor<1x5x2x3xf32>, tensor<1x3x2x3xf32>, tensor<1x2x2x3xf32>, tensor<1x8x4x3xf32>, tensor<1x8x4x4xf32>, tensor<1x2x4x6xf32>, tensor<3x2xi64>
}

// -----

// Ops along one axis and index computations: log-softmax (softmax with `log`), hardmax,
// arg max and min (int64 results), running sums and products, top-k (values and indices).
// CHECK-LABEL: func.func @along_an_axis(
// CHECK-NEXT:    %ls = cpu.softmax %x {axis = 1 : i64, log} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// CHECK-NEXT:    %hm = cpu.hardmax %x {axis = 2 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// CHECK-NEXT:    %am = cpu.arg_reduce max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<3x4x5xf32>) -> tensor<3x5xi64>
// CHECK-NEXT:    %an = cpu.arg_reduce min %i {axis = 0 : i64, keepdims = true, select_last_index = false} : (tensor<6xui8>) -> tensor<1xi64>
// CHECK-NEXT:    %cs = cpu.cumulative sum %x {axis = 2 : i64, exclusive = true, reverse = false} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// CHECK-NEXT:    %cp = cpu.cumulative prod %x {axis = 0 : i64, exclusive = false, reverse = true} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// CHECK-NEXT:    %tv, %ti = cpu.top_k %x {axis = 2 : i64, k = 2 : i64, largest = false} : (tensor<3x4x5xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xi64>)
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "along_an_axis"
// GENERIC:         "cpu.softmax"(%x) <{axis = 1 : i64, log}> : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// GENERIC:         "cpu.arg_reduce"(%x) <{kind = #cpu<arg_reduce_kind max>, axis = 1 : i64, keepdims = false, select_last_index = true}>
// GENERIC:         "cpu.cumulative"(%x) <{kind = #cpu<cumulative_kind sum>, axis = 2 : i64, exclusive = true, reverse = false}>
func.func @along_an_axis(%x: tensor<3x4x5xf32>, %i: tensor<6xui8>)
    -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x5xi64>, tensor<1xi64>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x2xf32>, tensor<3x4x2xi64>) {
  %ls = cpu.softmax %x {axis = 1 : i64, log} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %hm = cpu.hardmax %x {axis = 2 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %am = cpu.arg_reduce max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<3x4x5xf32>) -> tensor<3x5xi64>
  %an = cpu.arg_reduce min %i {axis = 0 : i64, keepdims = true, select_last_index = false} : (tensor<6xui8>) -> tensor<1xi64>
  %cs = cpu.cumulative sum %x {axis = 2 : i64, exclusive = true, reverse = false} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %cp = cpu.cumulative prod %x {axis = 0 : i64, exclusive = false, reverse = true} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %tv, %ti = cpu.top_k %x {axis = 2 : i64, k = 2 : i64, largest = false} : (tensor<3x4x5xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xi64>)
  func.return %ls, %hm, %am, %an, %cs, %cp, %tv, %ti : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x5xi64>, tensor<1xi64>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x2xf32>, tensor<3x4x2xi64>
}

// -----

// RMS normalisation, elements gathered along an axis, triangles, ranges and the parametric
// activations (gamma for selu only).
// CHECK-LABEL: func.func @more_kernels(
// CHECK-NEXT:    %rms = cpu.rms_norm %x, %s {axis = 1 : i64, epsilon = 1.000000e-05 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %ge = cpu.gather_elements %x, %gi {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x7xi32>) -> tensor<2x3x7xf32>
// CHECK-NEXT:    %tri = cpu.trilu %x {upper = false, k = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %rg = cpu.range %start, %delta : (tensor<i64>, tensor<i64>) -> tensor<9xi64>
// CHECK-NEXT:    %elu = cpu.activation elu %x {alpha = 1.000000e+00 : f32} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %selu = cpu.activation selu %x {alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return
// GENERIC:       "cpu.activation"(%x) <{kind = #cpu<activation_kind selu>, alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32}>
func.func @more_kernels(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %gi: tensor<2x3x7xi32>, %start: tensor<i64>, %delta: tensor<i64>)
    -> (tensor<2x3x4xf32>, tensor<2x3x7xf32>, tensor<2x3x4xf32>, tensor<9xi64>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %rms = cpu.rms_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %ge = cpu.gather_elements %x, %gi {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x7xi32>) -> tensor<2x3x7xf32>
  %tri = cpu.trilu %x {upper = false, k = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %rg = cpu.range %start, %delta : (tensor<i64>, tensor<i64>) -> tensor<9xi64>
  %elu = cpu.activation elu %x {alpha = 1.0 : f32} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %selu = cpu.activation selu %x {alpha = 1.5 : f32, gamma = 2.0 : f32} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %rms, %ge, %tri, %rg, %elu, %selu : tensor<2x3x4xf32>, tensor<2x3x7xf32>, tensor<2x3x4xf32>, tensor<9xi64>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Scatters, the reduction as a keyword.
// CHECK-LABEL: func.func @scatters(
// CHECK-NEXT:    %se = cpu.scatter_elements add %x, %i, %u {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %sn = cpu.scatter_nd none %x, %j, %v : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return
// GENERIC:       "cpu.scatter_elements"(%x, %i, %u) <{reduction = #cpu<scatter_reduction add>, axis = 0 : i64}>
func.func @scatters(%x: tensor<3x4xf32>, %i: tensor<2x4xi32>, %u: tensor<2x4xf32>, %j: tensor<2x1xi64>, %v: tensor<2x4xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %se = cpu.scatter_elements add %x, %i, %u {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %sn = cpu.scatter_nd none %x, %j, %v : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return %se, %sn : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// Recurrent layers: every optional input, each subset of outputs, clip, input_forget and
// linear_before_reset.
// CHECK-LABEL: func.func @recurrent(
// CHECK-NEXT:    %y, %yh, %yc = cpu.recurrent lstm %x, %w, %r bias %b sequence_lens %l initial_h %h initial_c %h peepholes %p {direction = #cpu<recurrent_direction bidirectional>, layout = 0 : i64, activations = [#cpu<recurrent_activation sigmoid>, #cpu<recurrent_activation tanh>, #cpu<recurrent_activation tanh>, #cpu<recurrent_activation hard_sigmoid>, #cpu<recurrent_activation scaled_tanh>, #cpu<recurrent_activation affine>], alphas = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00, 2.000000e-01, 1.000000e+00, 1.000000e+00>, betas = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e-01, 1.000000e+00, 0.000000e+00>, clip = 3.000000e+00 : f32, input_forget} : (tensor<5x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>) bias tensor<2x32xf32> sequence_lens tensor<2xi32> initial_h tensor<2x2x4xf32> initial_c tensor<2x2x4xf32> peepholes tensor<2x12xf32> -> Y tensor<5x2x2x4xf32> Y_h tensor<2x2x4xf32> Y_c tensor<2x2x4xf32>
// CHECK-NEXT:    %gh = cpu.recurrent gru %x, %wg, %rg {direction = #cpu<recurrent_direction reverse>, layout = 0 : i64, activations = [#cpu<recurrent_activation sigmoid>, #cpu<recurrent_activation tanh>], alphas = array<f32: 0.000000e+00, 0.000000e+00>, betas = array<f32: 0.000000e+00, 0.000000e+00>, linear_before_reset} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> Y_h tensor<1x2x4xf32>
// CHECK-NEXT:    func.return
// GENERIC:       "cpu.recurrent"(%x, %w, %r, %b, %l, %h, %h, %p) <{kind = #cpu<recurrent_kind lstm>, {{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>}>
// GENERIC:       "cpu.recurrent"(%x, %wg, %rg) <{kind = #cpu<recurrent_kind gru>, {{.*}}resultSegmentSizes = array<i32: 0, 1, 0>}>
func.func @recurrent(%x: tensor<5x2x3xf32>, %w: tensor<2x16x3xf32>, %r: tensor<2x16x4xf32>, %b: tensor<2x32xf32>,
                     %l: tensor<2xi32>, %h: tensor<2x2x4xf32>, %p: tensor<2x12xf32>, %wg: tensor<1x12x3xf32>,
                     %rg: tensor<1x12x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<1x2x4xf32>) {
  %y, %yh, %yc = cpu.recurrent lstm %x, %w, %r bias %b sequence_lens %l initial_h %h initial_c %h peepholes %p {direction = #cpu<recurrent_direction bidirectional>, layout = 0 : i64, activations = [#cpu<recurrent_activation sigmoid>, #cpu<recurrent_activation tanh>, #cpu<recurrent_activation tanh>, #cpu<recurrent_activation hard_sigmoid>, #cpu<recurrent_activation scaled_tanh>, #cpu<recurrent_activation affine>], alphas = array<f32: 0.0, 0.0, 0.0, 0.2, 1.0, 1.0>, betas = array<f32: 0.0, 0.0, 0.0, 0.5, 1.0, 0.0>, clip = 3.0 : f32, input_forget} : (tensor<5x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>) bias tensor<2x32xf32> sequence_lens tensor<2xi32> initial_h tensor<2x2x4xf32> initial_c tensor<2x2x4xf32> peepholes tensor<2x12xf32> -> Y tensor<5x2x2x4xf32> Y_h tensor<2x2x4xf32> Y_c tensor<2x2x4xf32>
  %gh = cpu.recurrent gru %x, %wg, %rg {direction = #cpu<recurrent_direction reverse>, layout = 0 : i64, activations = [#cpu<recurrent_activation sigmoid>, #cpu<recurrent_activation tanh>], alphas = array<f32: 0.0, 0.0>, betas = array<f32: 0.0, 0.0>, linear_before_reset} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> Y_h tensor<1x2x4xf32>
  func.return %y, %yh, %yc, %gh : tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// The memory plan (plan-host-memory): result offsets, scratch, reshape aliases, packed conv
// weights, and the function's workspace.
// CHECK-LABEL: func.func @planned(
// CHECK-SAME:    attributes {cpu.workspace = #cpu.workspace<4096 bytes, align 64>}
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, packed_weights, offsets = array<i64: 0>, scratch = #cpu.scratch<520 bytes at 1024>} : (tensor<1x2x3x4xf32>, tensor<1x2x2x1x2x16xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    %r = cpu.reshape %y {alias} : (tensor<1x2x3x3xf32>) -> tensor<18xf32>
// CHECK-NEXT:    %o = cpu.unary relu %r {offsets = array<i64: -1>} : (tensor<18xf32>) -> tensor<18xf32>
// GENERIC:       "cpu.conv"(%x, %w) <{strides = {{.*}}, packed_weights, offsets = array<i64: 0>, scratch = #cpu.scratch<520 bytes at 1024>, operandSegmentSizes
// GENERIC:       "cpu.reshape"(%y) <{alias}>
func.func @planned(%x: tensor<1x2x3x4xf32>, %w: tensor<1x2x2x1x2x16xf32>) -> tensor<18xf32> attributes {cpu.workspace = #cpu.workspace<4096 bytes, align 64>} {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, packed_weights, offsets = array<i64: 0>, scratch = #cpu.scratch<520 bytes at 1024>} : (tensor<1x2x3x4xf32>, tensor<1x2x2x1x2x16xf32>) -> tensor<1x2x3x3xf32>
  %r = cpu.reshape %y {alias} : (tensor<1x2x3x3xf32>) -> tensor<18xf32>
  %o = cpu.unary relu %r {offsets = array<i64: -1>} : (tensor<18xf32>) -> tensor<18xf32>
  func.return %o : tensor<18xf32>
}

// -----

// The kernel choice (select-host-kernels): a conv's and a resize's kernel, the function marked
// cpu.kernels_selected; and the plan's run-time weight packing and batch stride of a conv.
// CHECK-LABEL: func.func @selected(
// CHECK-SAME:    attributes {cpu.kernels_selected}
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, kernel = #cpu<conv_kernel flat>, packing_floats = 64 : i64, y_batch = 36 : i64} : (tensor<2x2x3x4xf32>, tensor<2x2x1x2xf32>) -> tensor<2x2x3x3xf32>
// CHECK-NEXT:    %u = cpu.resize linear %y {{{.*}}, kernel = #cpu<resize_kernel taps>}
// GENERIC:       "cpu.conv"(%x, %w) <{strides = {{.*}}, kernel = #cpu<conv_kernel flat>, packing_floats = 64 : i64, y_batch = 36 : i64, operandSegmentSizes
func.func @selected(%x: tensor<2x2x3x4xf32>, %w: tensor<2x2x1x2xf32>) -> tensor<2x2x6x6xf32> attributes {cpu.kernels_selected} {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, kernel = #cpu<conv_kernel flat>, packing_floats = 64 : i64, y_batch = 36 : i64} : (tensor<2x2x3x4xf32>, tensor<2x2x1x2xf32>) -> tensor<2x2x3x3xf32>
  %u = cpu.resize linear %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode half_pixel>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false, kernel = #cpu<resize_kernel taps>} : (tensor<2x2x3x3xf32>) -> tensor<2x2x6x6xf32>
  func.return %u : tensor<2x2x6x6xf32>
}

// -----

// DynamicQuantizeLinear, MatMulInteger and QLinearMatMul's requantization: uint8 with a scale
// and zero point computed at run time; int8 and uint8 products with zero points per tensor and
// per column, summed in int32; the sums to uint8 with B's scale per column.
// CHECK-LABEL: func.func @integer(
// CHECK-NEXT:    %y, %s, %z = cpu.dynamic_quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xui8>, tensor<f32>, tensor<ui8>)
// CHECK-NEXT:    %m = cpu.matmul_integer %y, %b a_zero_point %z b_zero_point %zb : (tensor<4x8xui8>, tensor<2x8x16xi8>) a_zero_point tensor<ui8> b_zero_point tensor<16xi8> -> tensor<2x4x16xi32>
// CHECK-NEXT:    %q = cpu.requantize %m, %s, %sb, %s, %z : (tensor<2x4x16xi32>, tensor<f32>, tensor<16xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4x16xui8>
// GENERIC:       "cpu.matmul_integer"(%y, %b, %z, %zb) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
func.func @integer(%x: tensor<4x8xf32>, %b: tensor<2x8x16xi8>, %zb: tensor<16xi8>, %sb: tensor<16xf32>) -> tensor<2x4x16xui8> {
  %y, %s, %z = cpu.dynamic_quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xui8>, tensor<f32>, tensor<ui8>)
  %m = cpu.matmul_integer %y, %b a_zero_point %z b_zero_point %zb : (tensor<4x8xui8>, tensor<2x8x16xi8>) a_zero_point tensor<ui8> b_zero_point tensor<16xi8> -> tensor<2x4x16xi32>
  %q = cpu.requantize %m, %s, %sb, %s, %z : (tensor<2x4x16xi32>, tensor<f32>, tensor<16xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4x16xui8>
  func.return %q : tensor<2x4x16xui8>
}

// -----

// ConvInteger and QLinearConv's sums: int8 and uint8 with zero points and an int32 bias.
// CHECK-LABEL: func.func @conv_integer(
// CHECK-NEXT:    %y = cpu.conv_integer %x, %w x_zero_point %zx w_zero_point %zw bias %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : (tensor<1x4x5x5xui8>, tensor<6x2x3x3xi8>) x_zero_point tensor<ui8> w_zero_point tensor<6xi8> bias tensor<6xi32> -> tensor<1x6x3x3xi32>
func.func @conv_integer(%x: tensor<1x4x5x5xui8>, %w: tensor<6x2x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<6xi8>, %b: tensor<6xi32>) -> tensor<1x6x3x3xi32> {
  %y = cpu.conv_integer %x, %w x_zero_point %zx w_zero_point %zw bias %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : (tensor<1x4x5x5xui8>, tensor<6x2x3x3xi8>) x_zero_point tensor<ui8> w_zero_point tensor<6xi8> bias tensor<6xi32> -> tensor<1x6x3x3xi32>
  func.return %y : tensor<1x6x3x3xi32>
}

// -----

// onnxruntime's QLinearSoftmax: uint8 along the last axis, the input's zero point not needed.
// CHECK-LABEL: func.func @qlinear_softmax(
// CHECK-NEXT:    %y = cpu.qlinear_softmax %x, %sx, %sy, %z {axis = 2 : i64} : (tensor<2x4x16xui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<2x4x16xui8>
func.func @qlinear_softmax(%x: tensor<2x4x16xui8>, %sx: tensor<f32>, %sy: tensor<f32>, %z: tensor<ui8>) -> tensor<2x4x16xui8> {
  %y = cpu.qlinear_softmax %x, %sx, %sy, %z {axis = 2 : i64} : (tensor<2x4x16xui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<2x4x16xui8>
  func.return %y : tensor<2x4x16xui8>
}

// -----

// onnxruntime's QLinearAdd: two int8 tensors and the result, each with its scale and zero point.
// CHECK-LABEL: func.func @qlinear_add(
// CHECK-NEXT:    %y = cpu.qlinear_add %a, %s, %z, %b, %s, %z, %s, %z : (tensor<1x4x5x5xi8>, tensor<f32>, tensor<i8>, tensor<1x4x5x5xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x5xi8>
func.func @qlinear_add(%a: tensor<1x4x5x5xi8>, %b: tensor<1x4x5x5xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<1x4x5x5xi8> {
  %y = cpu.qlinear_add %a, %s, %z, %b, %s, %z, %s, %z : (tensor<1x4x5x5xi8>, tensor<f32>, tensor<i8>, tensor<1x4x5x5xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x5xi8>
  func.return %y : tensor<1x4x5x5xi8>
}

// -----

// QLinearConv in one int8 kernel: every scale and zero point an operand, a quantized clamp;
// packed, the weights' ONNX shape a property.
// CHECK-LABEL: func.func @qlinear_conv(
// CHECK-NEXT:    %y = cpu.qlinear_conv %x, %s, %zx, %w, %sw, %zw, %s, %zx bias %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, min = 10 : i64} : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<6x4x3x3xi8>, tensor<6xf32>, tensor<6xi8>, tensor<f32>, tensor<ui8>) bias tensor<6xi32> -> tensor<1x6x5x5xui8>
// CHECK-NEXT:    %p = cpu.qlinear_conv %x, %s, %zx, %packed, %sw, %zw, %s, %zx {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, packed_weights, weights_shape = array<i64: 6, 4, 3, 3>} : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<1x320xi8>, tensor<6xf32>, tensor<6xi8>, tensor<f32>, tensor<ui8>) -> tensor<1x6x5x5xui8>
func.func @qlinear_conv(%x: tensor<1x4x5x5xui8>, %s: tensor<f32>, %zx: tensor<ui8>, %w: tensor<6x4x3x3xi8>, %sw: tensor<6xf32>, %zw: tensor<6xi8>, %b: tensor<6xi32>, %packed: tensor<1x320xi8>) -> (tensor<1x6x5x5xui8>, tensor<1x6x5x5xui8>) {
  %y = cpu.qlinear_conv %x, %s, %zx, %w, %sw, %zw, %s, %zx bias %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, min = 10 : i64} : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<6x4x3x3xi8>, tensor<6xf32>, tensor<6xi8>, tensor<f32>, tensor<ui8>) bias tensor<6xi32> -> tensor<1x6x5x5xui8>
  %p = cpu.qlinear_conv %x, %s, %zx, %packed, %sw, %zw, %s, %zx {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, packed_weights, weights_shape = array<i64: 6, 4, 3, 3>} : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<1x320xi8>, tensor<6xf32>, tensor<6xi8>, tensor<f32>, tensor<ui8>) -> tensor<1x6x5x5xui8>
  func.return %y, %p : tensor<1x6x5x5xui8>, tensor<1x6x5x5xui8>
}
