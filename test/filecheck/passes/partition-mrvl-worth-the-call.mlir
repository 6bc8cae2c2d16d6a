// partition-mrvl's worth-the-call policy (asked for by name): a region whose MLIP estimate,
// transfers and the call's fixed cost included, exceeds its ops' host time stays on the
// host, with both estimates in the reason. The small conv (1,024 MACs: 0.33 us on the
// host) is worth a call only below about 0.21 us of call overhead: the default 10 us keeps
// it on the host, 0.1 us offloads it, 0.3 us does not. The large conv (37.7 M MACs) is
// offloaded whatever the overhead.
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies=worth-the-call}' | filecheck %s
// RUN: printf '[mlip]\ncall_overhead_s = 0.1e-6\n' > %t.below.ini
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies=worth-the-call target_file="%t.below.ini"}' | filecheck %s --check-prefix=BELOW
// RUN: printf '[mlip]\ncall_overhead_s = 0.3e-6\n' > %t.above.ini
// RUN: mrvl-opt %s --split-input-file -p 'partition-mrvl{policies=worth-the-call target_file="%t.above.ini"}' | filecheck %s --check-prefix=ABOVE
// RUN: mrvl-opt %s --split-input-file -p partition-mrvl | filecheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @small(
// CHECK-NEXT:    %w = graph.constant
// CHECK-NEXT:    %c = graph.Conv %x, %w {mrvl.pattern = "conv2d", mrvl.place = "host", mrvl.reasons = ["policy.worth-the-call: An MLIP subgraph must take less time than its layers take on the host, {{.*}} (MLIP 10.1 us: compute 1.54 ns, weights DMA 3.52 ns (overlapped), I/O 113 ns, call 10 us; host 328 ns, host assumed)"]}
// CHECK-NEXT:    func.return %c
// CHECK-NOT:   mrvl.subgraph
// BELOW-LABEL: func.func @small(
// BELOW-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// ABOVE-LABEL: func.func @small(
// ABOVE:         mrvl.reasons = ["policy.worth-the-call: {{.*}} (MLIP 416 ns: {{.*}}; host 328 ns, host assumed)"]
// ABOVE-NOT:   mrvl.subgraph
// OFF-LABEL:   func.func @small(
// OFF-NEXT:      %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
func.func @small(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %c = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @large(
// CHECK-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// ABOVE-LABEL: func.func @large(
// ABOVE-NEXT:    %c = cpu.call_mlip @tvmgen_mrvl_main_0(%x)
func.func @large(%x: tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32> {
  %w = graph.constant dense_resource<w> : tensor<64x64x3x3xf32>
  %c = graph.Conv %x, %w {pads = array<i64: 1, 1, 1, 1>, "mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x64x32x32xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x32x32xf32>
  func.return %c : tensor<1x64x32x32xf32>
}
