// partition-mrvl policies: what breaks a policy stays on the host, with the reason: the
// leading sum or concat alone (the rest of its region is formed again and offloaded), or a
// region without compute as a whole.
// RUN: mrvl-opt %s --split-input-file -p partition-mrvl | filecheck %s
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies=compute-intensive}' | filecheck %s --check-prefix=ONLY
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies}' | filecheck %s --check-prefix=NONE

// compute-intensive: a region without a conv2d or fc layer is not worth offloading. Its
// ops go back to the host: place "host", the reason appended, the group dropped.
// CHECK-LABEL: func.func @no_compute(
// CHECK-NEXT:    %p = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, mrvl.pattern = "maxpool2d", mrvl.place = "host", mrvl.reasons = ["policy.compute-intensive: An MLIP subgraph must hold a conv2d or fc layer; other layers alone are not worth the transfers. (its layers are maxpool2d, sum)"], strides = array<i64: 2, 2>}
// CHECK-NEXT:    %s = graph.Add %p, %p {mrvl.pattern = "sum", mrvl.place = "host", mrvl.reasons = ["policy.compute-intensive: {{.*}}"]}
// CHECK-NEXT:    func.return %s
// CHECK-NOT:   mrvl.subgraph
// ONLY-LABEL:  func.func @no_compute(
// ONLY-NEXT:     graph.MaxPool {{.*}}mrvl.place = "host"
// NONE-LABEL:  func.func @no_compute(
// NONE-NEXT:     cpu.call_mlip @tvmgen_mrvl_main_0(%x)
func.func @no_compute(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %p = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, "mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "maxpool2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %s = graph.Add %p, %p {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %s : tensor<1x4x4x4xf32>
}

// -----

// Gemm and MatMul layers (fc) count as compute, as conv2d layers do.
// CHECK-LABEL: func.func @fc_is_compute(
// CHECK-NEXT:    cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// ONLY-LABEL:  func.func @fc_is_compute(
// ONLY-NEXT:     cpu.call_mlip @tvmgen_mrvl_main_0(%x)
func.func @fc_is_compute(%x: tensor<1x16xf32>) -> tensor<1x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<16x4xf32>
  %y = graph.MatMul %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "fc"} : (tensor<1x16xf32>, tensor<16x4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// no-leading-concat: no concat may read a subgraph input (a function argument here). The
// concat alone goes to the host; the conv after it is offloaded, reading its result.
// CHECK-LABEL: func.func @leading_concat(
// CHECK-NEXT:    %cat = graph.Concat %x, %y {axis = 1 : i64, mrvl.pattern = "concat", mrvl.place = "host", mrvl.reasons = ["policy.no-leading-concat: An MLIP subgraph must not start with a concat: no concat may read a subgraph input. (node 'cat' (Concat) reads a subgraph input)"]}
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%cat)
// CHECK-NEXT:    func.return %c
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%cat
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    graph.Conv %cat, %w {mrvl.group = 1 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"}
// ONLY-LABEL:  func.func @leading_concat(
// ONLY-NEXT:     %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x, %y)
// NONE-LABEL:  func.func @leading_concat(
// NONE-NEXT:     %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x, %y)
func.func @leading_concat(%x: tensor<1x2x8x8xf32>, %y: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %cat = graph.Concat %x, %y {axis = 1 : i64, "mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "concat"} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> loc("cat")
  %c = graph.Conv %cat, %w {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}

// -----

// A concat inside the region, of values the region computes, is fine.
// CHECK-LABEL: func.func @inner_concat(
// CHECK-NEXT:    %cat = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// CHECK:         graph.Concat %a, %b
func.func @inner_concat(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %a = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %b = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %cat = graph.Concat %a, %b {axis = 1 : i64, "mrvl.place" = "mlip", "mrvl.group" = 2 : i64, "mrvl.pattern" = "concat"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %cat : tensor<1x8x8x8xf32>
}

// -----

// no-leading-sum: the same for a sum (TVM meant this rule, but it checked a stale name).
// The input that trips it may be a host op's result.
// CHECK-LABEL: func.func @leading_sum(
// CHECK:         %s = graph.Add %h, %x {mrvl.pattern = "sum", mrvl.place = "host", mrvl.reasons = ["policy.no-leading-sum: An MLIP subgraph must not start with a sum: no sum may read a subgraph input. (node 'add' (Add) reads a subgraph input)"]}
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%s)
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%s
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    graph.Conv %s, %w {{.*}}mrvl.place = "mlip"
// ONLY-LABEL:  func.func @leading_sum(
// ONLY:          cpu.call_mlip @tvmgen_mrvl_main_0(%h, %x)
// NONE-LABEL:  func.func @leading_sum(
// NONE:          cpu.call_mlip @tvmgen_mrvl_main_0(%h, %x)
func.func @leading_sum(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %h = graph.Sigmoid %x {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = graph.Add %h, %x {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("add")
  %c = graph.Conv %s, %w {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}

// -----

// A region that breaks a layer policy loses those layers first (each reason appended after
// the ones the op had); what is left is checked again. A rejection leaves the other regions as they were formed, and the names of the
// outlined ones count from 0 without gaps.
// CHECK-LABEL: func.func @others_unaffected(
// CHECK-NEXT:    %a = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// CHECK-NEXT:    %h = graph.Sigmoid %a
// CHECK-NEXT:    %s = graph.Add %h, %h {mrvl.pattern = "sum", mrvl.place = "host", mrvl.reasons = ["earlier: kept", "policy.no-leading-sum: {{.*}}"]}
// CHECK-NEXT:    %g = graph.Sigmoid %s
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_1(%g)
// CHECK-NEXT:    func.return %c
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_1(
func.func @others_unaffected(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %a = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %h = graph.Sigmoid %a {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = graph.Add %h, %h {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "sum", "mrvl.reasons" = ["earlier: kept"]} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %g = graph.Sigmoid %s {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.Conv %g, %w {"mrvl.place" = "mlip", "mrvl.group" = 2 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}
