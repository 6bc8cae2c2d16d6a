// lower-to-cpu: each graph op becomes its cpu op with every parameter spelled out;
// constants that are parameters become properties and, unused then, disappear.
// RUN: mrvl-opt %s --split-input-file -p lower-to-cpu | filecheck %s
// RUN: mrvl-opt %s --split-input-file -p lower-to-cpu | filecheck %s --check-prefix=NOGRAPH
// RUN: mrvl-opt %s --split-input-file -p lower-to-cpu --print-debuginfo | filecheck %s --check-prefix=LOC

// No ONNX operator op is left anywhere (graph.constant may stay).
// NOGRAPH-NOT: graph.{{[A-Z]}}

// Conv's defaults (strides, dilations, pads, group) become explicit properties; the
// op keeps its ONNX node name as location and its result's name.
// CHECK-LABEL: func.func @conv_defaults_spelled_out(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64}
// CHECK-SAME:        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    func.return %y
// LOC-LABEL:   func.func @conv_defaults_spelled_out(
// LOC:           cpu.conv {{.*}} loc("conv1"("Conv"))
func.func @conv_defaults_spelled_out(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = graph.Conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv1"("Conv"))
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// Gemm's defaults: alpha = beta = 1, no transposes; transB and C carry over.
// CHECK-LABEL: func.func @gemm_defaults(
// CHECK-NEXT:    %y = cpu.gemm %a, %b {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false}
// CHECK-SAME:        : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %z = cpu.gemm %a, %bt, %c {alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true}
// CHECK-SAME:        : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %y, %z
func.func @gemm_defaults(%a: tensor<2x8xf32>, %b: tensor<8x3xf32>, %bt: tensor<3x8xf32>, %c: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = graph.Gemm %a, %b : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  %z = graph.Gemm %a, %bt, %c {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Clip's bounds come from its constant inputs; an absent bound is infinite
// (0xff800000 is -inf, 0x7f800000 is +inf).
// CHECK-LABEL: func.func @clip_with_absent_bounds(
// CHECK-NEXT:    %relu6 = cpu.clip %x {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32}
// CHECK-NEXT:    %upper = cpu.clip %x {min = 0xff800000 : f32, max = 6.000000e+00 : f32}
// CHECK-NEXT:    %none = cpu.clip %x {min = 0xff800000 : f32, max = 0x7f800000 : f32}
// CHECK-NEXT:    func.return %relu6, %upper, %none
func.func @clip_with_absent_bounds(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %lo = graph.constant dense<0.0> : tensor<f32>
  %hi = graph.constant dense<6.0> : tensor<f32>
  %relu6 = graph.Clip %x, %lo, %hi : (tensor<1x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4xf32>
  %upper = graph.Clip %x, %hi {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %none = graph.Clip %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %relu6, %upper, %none : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Negative axes count from the end; the cpu ops get them non-negative.
// CHECK-LABEL: func.func @negative_axes_are_normalised(
// CHECK-NEXT:    %i = graph.constant dense<[0, -1]> : tensor<2xi64>
// CHECK-NEXT:    %sm = cpu.softmax %x {axis = 2 : i64}
// CHECK-NEXT:    %cat = cpu.concat %x, %x {axis = 2 : i64}
// CHECK-NEXT:    %g = cpu.gather %x, %i {axis = 2 : i64}
// CHECK-NEXT:    %s0, %s1 = cpu.split %x {axis = 2 : i64, sizes = array<i64: 1, 3>}
// CHECK-NEXT:    %r = cpu.reduce sum %x {axes = array<i64: 1, 2>, keepdims = false}
// CHECK-NEXT:    %ln = cpu.layer_norm %x, %scale {axis = 2 : i64, epsilon = 1.000000e-05 : f32}
// CHECK-NEXT:    func.return
func.func @negative_axes_are_normalised(%x: tensor<2x3x4xf32>, %scale: tensor<4xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>, tensor<2x3x3xf32>, tensor<2xf32>, tensor<2x3x4xf32>) {
  %i = graph.constant dense<[0, -1]> : tensor<2xi64>
  %split = graph.constant dense<[1, 3]> : tensor<2xi64>
  %axes = graph.constant dense<[-1, -2, 2]> : tensor<3xi64>
  %sm = graph.Softmax %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %cat = graph.Concat %x, %x {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %g = graph.Gather %x, %i {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x3x2xf32>
  %s0, %s1 = graph.Split %x, %split {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> (tensor<2x3x1xf32>, tensor<2x3x3xf32>)
  %r = graph.ReduceSum %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2xf32>
  %ln = graph.LayerNormalization %x, %scale : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %sm, %cat, %g, %s0, %s1, %r, %ln : tensor<2x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>, tensor<2x3x3xf32>, tensor<2xf32>, tensor<2x3x4xf32>
}

// -----

// Reshape, Flatten, Squeeze and Unsqueeze are all cpu.reshape: the static result type
// says everything, so their shape/axes constants are not read and die.
// CHECK-LABEL: func.func @reshape_like_ops_are_reshapes(
// CHECK-NEXT:    %r = cpu.reshape %x : (tensor<1x2x3x1xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %f = cpu.reshape %x : (tensor<1x2x3x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %s = cpu.reshape %x : (tensor<1x2x3x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %u = cpu.reshape %s : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK-NEXT:    func.return %r, %f, %s, %u
func.func @reshape_like_ops_are_reshapes(%x: tensor<1x2x3x1xf32>) -> (tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>) {
  %shape = graph.constant dense<-1> : tensor<1xi64>
  %squeeze_axes = graph.constant dense<[0, -1]> : tensor<2xi64>
  %unsqueeze_axes = graph.constant dense<1> : tensor<1xi64>
  %r = graph.Reshape %x, %shape : (tensor<1x2x3x1xf32>, tensor<1xi64>) -> tensor<6xf32>
  %f = graph.Flatten %x {axis = 2 : i64} : (tensor<1x2x3x1xf32>) -> tensor<2x3xf32>
  %s = graph.Squeeze %x, %squeeze_axes : (tensor<1x2x3x1xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %u = graph.Unsqueeze %s, %unsqueeze_axes : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
  func.return %r, %f, %s, %u : tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>
}

// -----

// Identity, inference Dropout and a Cast to the same type pass their input on; Cast
// and CastLike to another type are cpu.cast (the result type says which).
// CHECK-LABEL: func.func @pass_through_ops_are_their_input(
// CHECK-NEXT:    %c = cpu.cast %x : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NEXT:    %l = cpu.cast %x : (tensor<4xf32>) -> tensor<4xi64>
// CHECK-NEXT:    func.return %x, %x, %x, %c, %l
func.func @pass_through_ops_are_their_input(%x: tensor<4xf32>, %like: tensor<2xi64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi64>) {
  %i = graph.Identity %x : (tensor<4xf32>) -> tensor<4xf32>
  %d = graph.Dropout %x : (tensor<4xf32>) -> tensor<4xf32>
  %same = graph.Cast %x {to = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.Cast %x {to = 10 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  %l = graph.CastLike %x, %like : (tensor<4xf32>, tensor<2xi64>) -> tensor<4xi64>
  func.return %i, %d, %same, %c, %l : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi64>
}

// -----

// Sum/Max/Min/Mean of n inputs are n - 1 binary ops with broadcast partial results; Mean
// then divides by n.
// CHECK-LABEL: func.func @variadic_ops_are_binary_chains(
// CHECK-NEXT:    %sum_partial1 = cpu.binary add %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %sum = cpu.binary add %sum_partial1, %c : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %mean_partial1 = cpu.binary add %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %mean_count = graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %mean = cpu.binary div %mean_partial1, %mean_count : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %max = cpu.binary max %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %sum, %mean, %max, %a
func.func @variadic_ops_are_binary_chains(%a: tensor<3x1xf32>, %b: tensor<4xf32>, %c: tensor<1xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>) {
  %sum = graph.Sum %a, %b, %c : (tensor<3x1xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
  %mean = graph.Mean %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %max = graph.Max %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %min = graph.Min %a : (tensor<3x1xf32>) -> tensor<3x1xf32>
  func.return %sum, %mean, %max, %min : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>
}

// -----

// Binary kinds: Pow with an exponent of another type casts it first; Mod with fmod = 1
// is fmod; comparisons give i1.
// CHECK-LABEL: func.func @binary_kinds(
// CHECK-NEXT:    %p_rhs = cpu.cast %e : (tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT:    %p = cpu.binary pow %x, %p_rhs : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %m = cpu.binary fmod %x, %x
// CHECK-NEXT:    %l = cpu.binary less_or_equal %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %s = cpu.binary prelu %x, %x
// CHECK-NEXT:    func.return %p, %m, %l, %s
func.func @binary_kinds(%x: tensor<4xf32>, %e: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) {
  %p = graph.Pow %x, %e : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  %m = graph.Mod %x, %x {fmod = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = graph.LessOrEqual %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %s = graph.PRelu %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %p, %m, %l, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>
}

// -----

// Unary kinds; Gelu's approximation picks the kind.
// CHECK-LABEL: func.func @unary_kinds(
// CHECK-NEXT:    %r = cpu.unary relu %x
// CHECK-NEXT:    %g = cpu.unary gelu %r
// CHECK-NEXT:    %t = cpu.unary gelu_tanh %g
// CHECK-NEXT:    %h = cpu.hard_sigmoid %t {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}
// CHECK-NEXT:    %l = cpu.leaky_relu %h {alpha = 1.000000e-01 : f32}
// CHECK-NEXT:    func.return %l
func.func @unary_kinds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.Relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %g = graph.Gelu %r : (tensor<4xf32>) -> tensor<4xf32>
  %t = graph.Gelu %g {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  %h = graph.HardSigmoid %t : (tensor<4xf32>) -> tensor<4xf32>
  %l = graph.LeakyRelu %h {alpha = 0.1 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %l : tensor<4xf32>
}

// -----

// Pad: pads given for some axes (negative ones too) cover every dim; the fill value
// comes from the constant input.
// CHECK-LABEL: func.func @pad_axes_and_value(
// CHECK-NEXT:    %y = cpu.pad constant %x {pads = array<i64: 0, 1, 0, 2>, value = -1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    %z = cpu.pad edge %x {pads = array<i64: 1, 1, 1, 1>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    func.return %y, %z
func.func @pad_axes_and_value(%x: tensor<2x3xf32>) -> (tensor<2x6xf32>, tensor<4x5xf32>) {
  %pads = graph.constant dense<[1, 2]> : tensor<2xi64>
  %value = graph.constant dense<-1.0> : tensor<f32>
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %all = graph.constant dense<1> : tensor<4xi64>
  %y = graph.Pad %x, %pads, %value, %axes : (tensor<2x3xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<2x6xf32>
  %z = graph.Pad %x, %all {mode = "edge"} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  func.return %y, %z : tensor<2x6xf32>, tensor<4x5xf32>
}

// -----

// ReduceX without axes reduces all dims, unless noop_with_empty_axes makes it a no-op.
// CHECK-LABEL: func.func @reduce_without_axes(
// CHECK-NEXT:    %all = cpu.reduce max %x {axes = array<i64: 0, 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:    func.return %all, %x
func.func @reduce_without_axes(%x: tensor<2x3xf32>) -> (tensor<1x1xf32>, tensor<2x3xf32>) {
  %all = graph.ReduceMax %x : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %none = graph.ReduceMax %x {noop_with_empty_axes = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %all, %none : tensor<1x1xf32>, tensor<2x3xf32>
}

// -----

// Pools: MaxPool's defaults; AveragePool's count_include_pad; global pools.
// CHECK-LABEL: func.func @pools(
// CHECK-NEXT:    %m = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %a = cpu.pool average %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = true} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    %g = cpu.global_pool max %x : (tensor<1x2x5x5xf32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    func.return %m, %a, %g
func.func @pools(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) {
  %m = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  %a = graph.AveragePool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %g = graph.GlobalMaxPool %x : (tensor<1x2x5x5xf32>) -> tensor<1x2x1x1xf32>
  func.return %m, %a, %g : tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>
}

// -----

// Transpose's default permutation reverses the dims; DepthToSpace keeps its mode.
// CHECK-LABEL: func.func @data_movement(
// CHECK-NEXT:    %t = cpu.transpose %x {{.*}}perm = array<i64: 3, 2, 1, 0>} : (tensor<1x8x2x3xf32>) -> tensor<3x2x8x1xf32>
// CHECK-NEXT:    %d = cpu.depth_to_space CRD %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    %w = cpu.where %c, %x, %x
// CHECK-NEXT:    %e = cpu.expand %x : (tensor<1x8x2x3xf32>) -> tensor<2x8x2x3xf32>
// CHECK-NEXT:    func.return %t, %d, %w, %e
func.func @data_movement(%x: tensor<1x8x2x3xf32>, %c: tensor<3xi1>) -> (tensor<3x2x8x1xf32>, tensor<1x2x4x6xf32>, tensor<1x8x2x3xf32>, tensor<2x8x2x3xf32>) {
  %shape = graph.constant dense<[2, 1, 1, 1]> : tensor<4xi64>
  %t = graph.Transpose %x : (tensor<1x8x2x3xf32>) -> tensor<3x2x8x1xf32>
  %d = graph.DepthToSpace %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %w = graph.Where %c, %x, %x : (tensor<3xi1>, tensor<1x8x2x3xf32>, tensor<1x8x2x3xf32>) -> tensor<1x8x2x3xf32>
  %e = graph.Expand %x, %shape : (tensor<1x8x2x3xf32>, tensor<4xi64>) -> tensor<2x8x2x3xf32>
  func.return %t, %d, %w, %e : tensor<3x2x8x1xf32>, tensor<1x2x4x6xf32>, tensor<1x8x2x3xf32>, tensor<2x8x2x3xf32>
}

// -----

// Unused host ops are dropped on the way, supported or not.
// CHECK-LABEL: func.func @dead_ops_are_erased(
// CHECK-NEXT:    func.return %x
func.func @dead_ops_are_erased(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = graph.constant dense<2> : tensor<1xi64>
  %r = graph.Relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %v, %i = graph.TopK %x, %k : (tensor<4xf32>, tensor<1xi64>) -> (tensor<2xf32>, tensor<2xi64>)
  func.return %x : tensor<4xf32>
}
