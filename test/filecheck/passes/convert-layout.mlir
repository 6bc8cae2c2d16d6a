// convert-layout settles the transposes fuse-mrvl leaves around layers.
// RUN: mrvl-opt %s -p convert-layout --split-input-file --print-weights | filecheck %s

// A transpose to NHWC and back cancels out.
// CHECK-LABEL: func.func @inverse_pair_cancels(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x3x8x8xf32>
// CHECK-NEXT:    func.return %[[X]] : tensor<1x3x8x8xf32>
func.func @inverse_pair_cancels(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %a = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %b = graph.Transpose %a {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
  func.return %b : tensor<1x3x8x8xf32>
}

// -----

// Between two layers the NHWC -> NCHW -> NHWC round trip goes away: the second layer
// reads the first one's result.
// CHECK-LABEL: func.func @between_layers(
// CHECK-NEXT:    %[[A:[^ ]+]] = mrvl.global_maxpool2d %{{[^ ]+}}
// CHECK-NEXT:    %[[B:[^ ]+]] = mrvl.reshape %[[A]] : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @between_layers(%x: tensor<1x8x8x3xf32>) -> tensor<1x3xf32> {
  %a = mrvl.global_maxpool2d %x : (tensor<1x8x8x3xf32>) -> tensor<1x1x1x3xf32>
  %t = graph.Transpose %a {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x3xf32>) -> tensor<1x3x1x1xf32>
  %u = graph.Transpose %t {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x1x1xf32>) -> tensor<1x1x1x3xf32>
  %b = mrvl.reshape %u : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
  func.return %b : tensor<1x3xf32>
}

// -----

// Two transposes that are not inverse compose into one: out[i] = in[p[q[i]]].
// CHECK-LABEL: func.func @composed(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x2x3x4xf32>
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.Transpose %[[X]] {{.*}}perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @composed(%x: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32> {
  %a = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %b = graph.Transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x2xf32>) -> tensor<1x4x2x3xf32>
  func.return %b : tensor<1x4x2x3xf32>
}

// -----

// The inner transpose has another user: it stays for it, the outer one is composed.
// CHECK-LABEL: func.func @composed_inner_kept(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x2x3x4xf32>
// CHECK-NEXT:    %[[A:[^ ]+]] = graph.Transpose %[[X]] {{.*}}perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[B:[^ ]+]] = graph.Transpose %[[X]] {{.*}}perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @composed_inner_kept(%x: tensor<1x2x3x4xf32>) -> (tensor<1x3x4x2xf32>, tensor<1x4x2x3xf32>) {
  %a = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %b = graph.Transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x2xf32>) -> tensor<1x4x2x3xf32>
  func.return %a, %b : tensor<1x3x4x2xf32>, tensor<1x4x2x3xf32>
}

// -----

// A transpose of a constant (no perm: dims reversed) is computed now, into a new weight:
// [[1, 2, 3], [4, 5, 6]] becomes [[1, 4], [2, 5], [3, 6]].
// CHECK-LABEL: func.func @constant_folds(
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.constant dense_resource<k.t> : tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[T]]
// CHECK:         k.t: "0x040000000000803F00008040000000400000A040000040400000C040"
func.func @constant_folds() -> tensor<3x2xf32> {
  %k = graph.constant dense_resource<k> : tensor<2x3xf32>
  %t = graph.Transpose %k : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      k: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// COM: The data of a constant read without its weights is unknown: its transpose stays.
// CHECK-LABEL: func.func @constant_without_data_stays(
// CHECK-NEXT:    %[[K:[^ ]+]] = graph.constant dense_resource<absent> : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.Transpose %[[K]] {mrvl.layout_reason = "a model output is in the model's dim order"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @constant_without_data_stays() -> tensor<3x2xf32> {
  %k = graph.constant dense_resource<absent> : tensor<2x3xf32>
  %t = graph.Transpose %k : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}

// -----

// Inside a subgraph, the NCHW -> NHWC transpose of an input runs on MLIP as a
// layout_transform; the NHWC -> NCHW transpose of an output moves to the host, after
// the call: the subgraph then returns NHWC. (There, as it moves only dims of size 1 of the
// [1, 1, 1, 3] pool result, it becomes a Reshape.)
// CHECK-LABEL: mrvl.subgraph @mrvl_sg0(%x: tensor<1x3x8x8xf32>) -> tensor<1x1x1x3xf32>
// CHECK-NEXT:    %[[T:[^ ]+]] = mrvl.layout_transform %x : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    %[[G:[^ ]+]] = mrvl.global_maxpool2d %[[T]] : (tensor<1x8x8x3xf32>) -> tensor<1x1x1x3xf32>
// CHECK-NEXT:    mrvl.yield %[[G]] : tensor<1x1x1x3xf32>
// CHECK-LABEL: func.func @host(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x3x8x8xf32>
// CHECK-NEXT:    %[[C:[^ ]+]] = cpu.call_mlip @mrvl_sg0(%[[X]]) : (tensor<1x3x8x8xf32>) -> tensor<1x1x1x3xf32>
// CHECK-NEXT:    %[[SHAPE:[^ ]+]] = graph.constant dense<[1, 3, 1, 1]> : tensor<4xi64>
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.Reshape %[[C]], %[[SHAPE]] : (tensor<1x1x1x3xf32>, tensor<4xi64>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
mrvl.subgraph @mrvl_sg0(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  %t = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %g = mrvl.global_maxpool2d %t : (tensor<1x8x8x3xf32>) -> tensor<1x1x1x3xf32>
  %o = graph.Transpose %g {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x3xf32>) -> tensor<1x3x1x1xf32>
  mrvl.yield %o : tensor<1x3x1x1xf32>
}
func.func @host(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32> {
  %y = cpu.call_mlip @mrvl_sg0(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
  func.return %y : tensor<1x3x1x1xf32>
}

// -----

// COM: Outside a subgraph, a transpose of a function argument stays a graph op (the host
// COM: runs it): only subgraph inputs become layout_transform layers.
// CHECK-LABEL: func.func @input_transpose_on_host(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x3x8x8xf32>
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.Transpose %[[X]] {{.*}}perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[G:[^ ]+]] = mrvl.global_maxpool2d %[[T]]
func.func @input_transpose_on_host(%x: tensor<1x3x8x8xf32>) -> tensor<1x1x1x3xf32> {
  %t = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %g = mrvl.global_maxpool2d %t : (tensor<1x8x8x3xf32>) -> tensor<1x1x1x3xf32>
  func.return %g : tensor<1x1x1x3xf32>
}
