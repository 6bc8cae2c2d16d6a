// Ops inside an accelerator subgraph are not the host's: lower-to-cpu leaves them as
// they are, and cpu.call_mlip checks its operands and results against the subgraph.
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: mrvl.subgraph @mrvl_sg0(
// CHECK-NEXT:    %y = graph.Relu %a
// CHECK-NEXT:    mrvl.yield %y
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %s = cpu.call_mlip @mrvl_sg0(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %z = cpu.unary sigmoid %s
// CHECK-NEXT:    func.return %z
mrvl.subgraph @mrvl_sg0(%a: tensor<1x4xf32>) -> tensor<1x4xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  %y = graph.Relu %a : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mrvl.yield %y : tensor<1x4xf32>
}
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %s = cpu.call_mlip @mrvl_sg0(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %z = graph.Sigmoid %s : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %z : tensor<1x4xf32>
}
