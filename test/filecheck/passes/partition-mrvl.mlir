// partition-mrvl: regions of MLIP-placed ops -> mrvl.subgraph + cpu.call_mlip.
// The policies are off here (partition-mrvl-policies.mlir tests them), so every region
// is outlined.
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies}' | filecheck %s
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies}' --print-debuginfo | filecheck %s --check-prefix=LOC

// Two fusion groups connected by an edge form one region. The call takes the region's
// place; the weights move into the subgraph, and the host copies, now unused, go. The
// moved ops keep their attributes and their ONNX node names.
// CHECK-LABEL: func.func @one_region(
// CHECK-NEXT:    %p = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %p
// CHECK-NEXT:  }
// CHECK-NEXT:  mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> attributes {
// CHECK-NEXT:    %w = graph.constant dense_resource<w> : tensor<4x3x3x3xf32>
// CHECK-NEXT:    %b = graph.constant dense_resource<b> : tensor<4xf32>
// CHECK-NEXT:    %c = graph.Conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip", pads = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %r = graph.Relu %c {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"}
// CHECK-NEXT:    %p = graph.MaxPool %r {kernel_shape = array<i64: 2, 2>, mrvl.group = 1 : i64, mrvl.pattern = "maxpool2d", mrvl.place = "mlip", strides = array<i64: 2, 2>}
// CHECK-NEXT:    mrvl.yield %p : tensor<1x4x4x4xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   mrvl.subgraph
// LOC-LABEL:   func.func @one_region(
// LOC:         mrvl.subgraph @tvmgen_mrvl_main_0(
// LOC:           graph.Conv {{.*}} loc("conv")
// LOC-NEXT:      graph.Relu {{.*}} loc("relu")
// LOC-NEXT:      graph.MaxPool {{.*}} loc("pool")
func.func @one_region(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x3x3x3xf32>
  %b = graph.constant dense_resource<b> : tensor<4xf32>
  %c = graph.Conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, "mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc("conv")
  %r = graph.Relu %c {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("relu")
  %p = graph.MaxPool %r {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, "mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "maxpool2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> loc("pool")
  func.return %p : tensor<1x4x4x4xf32>
}

// -----

// A host op between two MLIP ops splits them into two subgraphs, named in IR order and
// placed after the function in that order. A weight both use is cloned into each.
// CHECK-LABEL: func.func @two_regions(
// CHECK-NEXT:    %a = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %s = graph.Sigmoid %a {mrvl.place = "host", mrvl.reasons = ["unsupported: MLIP has no layer for Sigmoid"]}
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_1(%s) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %c
// CHECK-NEXT:  }
// CHECK-NEXT:  mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %w = graph.constant dense_resource<w>
// CHECK-NEXT:    %a = graph.Conv %x, %w
// CHECK-NEXT:    mrvl.yield %a
// CHECK-NEXT:  }
// CHECK-NEXT:  mrvl.subgraph @tvmgen_mrvl_main_1(%s: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %w = graph.constant dense_resource<w>
// CHECK-NEXT:    %c = graph.Conv %s, %w
// CHECK-NEXT:    mrvl.yield %c
// CHECK-NEXT:  }
func.func @two_regions(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %a = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = graph.Sigmoid %a {"mrvl.place" = "host", "mrvl.reasons" = ["unsupported: MLIP has no layer for Sigmoid"]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.Conv %s, %w {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}

// -----

// A -> B (host) -> C and A -> C: one subgraph {A, C} would need B's result, which
// needs A's: a cycle. A and C become two subgraphs, B runs between their calls.
// CHECK-LABEL: func.func @cycle_through_host(
// CHECK-NEXT:    %a = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %b = graph.Sigmoid %a
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_1(%a, %b) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %c
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x4x8x8xf32>)
// CHECK:         %a = graph.Conv %x, %w
// CHECK-NEXT:    mrvl.yield %a
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_1(%a: tensor<1x4x8x8xf32>, %b: tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %c = graph.Add %a, %b
// CHECK-NEXT:    mrvl.yield %c
func.func @cycle_through_host(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %a = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %b = graph.Sigmoid %a {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.Add %a, %b {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}

// -----

// Two branches that cross through the host: {a1, a2, a3} is a region; {c1, c2, c3}
// would also have no path out and back in through host ops alone, but c2 -> h2 -> (a2
// in region A) ... a1 -> h1 -> c1 makes A and C depend on each other. Other regions
// count as one node in the cycle check, so c2 stays apart: three subgraphs, and the
// calls run in an order that works.
// CHECK-LABEL: func.func @crossing_branches(
// CHECK-NEXT:    %c2 = cpu.call_mlip @tvmgen_mrvl_main_1(%y)
// CHECK-NEXT:    %h2 = graph.Sigmoid %c2
// CHECK-NEXT:    %a1, %a3 = cpu.call_mlip @tvmgen_mrvl_main_0(%x, %h2)
// CHECK-NEXT:    %h1 = graph.Sigmoid %a1
// CHECK-NEXT:    %c3 = cpu.call_mlip @tvmgen_mrvl_main_2(%h1, %c2)
// CHECK-NEXT:    func.return %a3, %c3
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(
// CHECK:         %a1 = graph.Conv %x
// CHECK-NEXT:    %a2 = graph.Conv %h2
// CHECK-NEXT:    %a3 = graph.Add %a1, %a2
// CHECK-NEXT:    mrvl.yield %a1, %a3
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_1(
// CHECK:         %c2 = graph.Conv %y
// CHECK-NEXT:    mrvl.yield %c2
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_2(
// CHECK:         %c1 = graph.Conv %h1
// CHECK-NEXT:    %c3 = graph.Add %c1, %c2
// CHECK-NEXT:    mrvl.yield %c3
func.func @crossing_branches(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %a1 = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %c2 = graph.Conv %y, %w {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %h1 = graph.Sigmoid %a1 {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %h2 = graph.Sigmoid %c2 {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = graph.Conv %h1, %w {"mrvl.place" = "mlip", "mrvl.group" = 2 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a2 = graph.Conv %h2, %w {"mrvl.place" = "mlip", "mrvl.group" = 3 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a3 = graph.Add %a1, %a2 {"mrvl.place" = "mlip", "mrvl.group" = 4 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c3 = graph.Add %c1, %c2 {"mrvl.place" = "mlip", "mrvl.group" = 5 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %a3, %c3 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Every value used outside is a result, in IR order. The host op that reads %a sat
// between the region's ops; it moves after the call that now defines %a.
// CHECK-LABEL: func.func @multiple_outputs(
// CHECK-NEXT:    %a, %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %h = graph.Sigmoid %a
// CHECK-NEXT:    func.return %h, %c
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
// CHECK:         mrvl.yield %a, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
func.func @multiple_outputs(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %a = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %h = graph.Sigmoid %a {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.Conv %a, %w {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %h, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Constants: one only the region reads moves in (the host copy goes), one the host
// also reads is cloned in and stays; each is cloned once however often it is read.
// The region's arguments are its inputs in order of first use; constants are not.
// CHECK-LABEL: func.func @constants(
// CHECK-NEXT:    %shared = graph.constant dense_resource<shared> : tensor<4x4x1x1xf32>
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%y, %x) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %h = graph.Conv %c, %shared {mrvl.place = "host"}
// CHECK-NEXT:    func.return %h
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%y: tensor<1x4x8x8xf32>, %x: tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %own = graph.constant dense_resource<own> : tensor<4x4x1x1xf32>
// CHECK-NEXT:    %shared = graph.constant dense_resource<shared> : tensor<4x4x1x1xf32>
// CHECK-NEXT:    %a = graph.Conv %y, %own
// CHECK-NEXT:    %b = graph.Conv %a, %shared
// CHECK-NEXT:    %c = graph.Add %b, %x
// CHECK-NEXT:    mrvl.yield %c
func.func @constants(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %own = graph.constant dense_resource<own> : tensor<4x4x1x1xf32>
  %shared = graph.constant dense_resource<shared> : tensor<4x4x1x1xf32>
  %a = graph.Conv %y, %own {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %b = graph.Conv %a, %shared {"mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.Add %b, %x {"mrvl.place" = "mlip", "mrvl.group" = 2 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %h = graph.Conv %c, %shared {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %h : tensor<1x4x8x8xf32>
}

// -----

// A fusion group is never split. Grown op by op, %c would join the region of its
// producer %p, and then %s (of %c's group) could not follow, as %p -> %h -> %s. Groups
// are contracted first, so %p is the one left out.
// CHECK-LABEL: func.func @group_kept_whole(
// CHECK-NEXT:    %p = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// CHECK-NEXT:    %h = graph.Sigmoid %p
// CHECK-NEXT:    %s = cpu.call_mlip @tvmgen_mrvl_main_1(%p, %h)
// CHECK-NEXT:    func.return %s
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(
// CHECK:         %p = graph.MaxPool %x
// CHECK-NEXT:    mrvl.yield %p
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_1(
// CHECK:         %c = graph.Conv %p, %w {mrvl.group = 0 : i64
// CHECK-NEXT:    %s = graph.Add %c, %h {mrvl.group = 0 : i64
// CHECK-NEXT:    mrvl.yield %s
func.func @group_kept_whole(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %p = graph.MaxPool %x {kernel_shape = array<i64: 1, 1>, "mrvl.place" = "mlip", "mrvl.group" = 1 : i64, "mrvl.pattern" = "maxpool2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.Conv %p, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %h = graph.Sigmoid %p {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = graph.Add %c, %h {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %s : tensor<1x4x8x8xf32>
}

// -----

// A fusion group that reaches itself through the host cannot be one subgraph (place-ops
// never makes one); it stays on the host, and says why.
// CHECK-LABEL: func.func @group_with_cycle(
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    %c = graph.Conv %x, %w {mrvl.pattern = "conv2d", mrvl.place = "host", mrvl.reasons = ["partition.group-cycle: The ops of a fused layer must form one subgraph. (group 0 reaches itself through other ops)"]}
// CHECK-NEXT:    %h = graph.Sigmoid %c
// CHECK-NEXT:    %s = graph.Add %c, %h {mrvl.pattern = "conv2d", mrvl.place = "host", mrvl.reasons = ["partition.group-cycle:
// CHECK-NEXT:    func.return %s
// CHECK-NOT:   mrvl.subgraph
func.func @group_with_cycle(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %c = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %h = graph.Sigmoid %c {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = graph.Add %c, %h {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %s : tensor<1x4x8x8xf32>
}

// -----

// Subgraph names count on over the functions of a module; each function's subgraphs
// follow it. A function with nothing on MLIP is left as it is.
// CHECK-LABEL: func.func @first(
// CHECK-NEXT:    cpu.call_mlip @tvmgen_mrvl_main_0(
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(
// CHECK:       func.func @host_only(
// CHECK-NEXT:    %s = graph.Sigmoid %x {mrvl.place = "host"}
// CHECK-NEXT:    func.return %s
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @second(
// CHECK-NEXT:    cpu.call_mlip @tvmgen_mrvl_main_1(
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_1(
func.func @first(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %p = graph.MaxPool %x {kernel_shape = array<i64: 1, 1>, "mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "maxpool2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %p : tensor<1x4x8x8xf32>
}
func.func @host_only(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %s = graph.Sigmoid %x {"mrvl.place" = "host"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %s : tensor<1x4x8x8xf32>
}
func.func @second(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %p = graph.MaxPool %x {kernel_shape = array<i64: 1, 1>, "mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "maxpool2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %p : tensor<1x4x8x8xf32>
}
