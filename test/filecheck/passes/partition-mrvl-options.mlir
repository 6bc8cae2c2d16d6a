// partition-mrvl target options: each subgraph records the options it is compiled with,
// as properties; `prefix` names the subgraphs (`tvmgen_mrvl_main_` by default, TVM's names).
// RUN: mrvl-opt %s -p partition-mrvl | filecheck %s
// RUN: mrvl-opt %s -p 'partition-mrvl{mcpu=cnf10kb num_tiles=2 quantize=int8 wb_pin_ocm=1 run_mode=hw prefix=mrvl_sg}' | filecheck %s --check-prefix=SET
// RUN: mrvl-opt %s -p partition-mrvl --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK:       cpu.call_mlip @tvmgen_mrvl_main_0(%x)
// CHECK:       mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {

// SET:         cpu.call_mlip @mrvl_sg0(%x)
// SET:         mrvl.subgraph @mrvl_sg0(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {mcpu = "cnf10kb", num_tiles = 2 : i64, quantize = "int8", wb_pin_ocm = 1 : i64, run_mode = "hw"} {

// The options are properties of the op, not discardable attributes.
// GENERIC:     "cpu.call_mlip"(%x) <{callee = @tvmgen_mrvl_main_0}>
// GENERIC:     "mrvl.subgraph"() <{sym_name = "tvmgen_mrvl_main_0", function_type = (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>, mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"}>
func.func @f(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x1x1xf32>
  %c = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}
