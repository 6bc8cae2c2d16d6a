// Discardable attributes (any name that is not a property) survive the custom syntax of
// the ops that have a hand-written printer and parser, as they do for the declarative
// ones (mrvl.fc): print -> parse -> generic print keeps them.
// RUN: mrvl-opt %s --split-input-file | mrvl-opt --split-input-file --print-op-generic | filecheck %s

// CHECK-LABEL: "func.func"() <{sym_name = "conv2d"
// CHECK:         "mrvl.conv2d"(%x, %w)
// CHECK-SAME:        {note = "kept"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
// CHECK:         "mrvl.fc"(%v, %m)
// CHECK-SAME:        {note = "kept"} : (tensor<1x16xf32>, tensor<10x16xf32>) -> tensor<1x10xf32>
func.func @conv2d(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %v: tensor<1x16xf32>, %m: tensor<10x16xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x10xf32>) {
  %y = "mrvl.conv2d"(%x, %w) <{padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>}> {note = "kept"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  %z = "mrvl.fc"(%v, %m) {note = "kept"} : (tensor<1x16xf32>, tensor<10x16xf32>) -> tensor<1x10xf32>
  func.return %y, %z : tensor<1x8x8x4xf32>, tensor<1x10xf32>
}

// -----

// CHECK-LABEL: "mrvl.subgraph"() <{sym_name = "sg"
// CHECK:         "mrvl.yield"() : () -> ()
// CHECK-NEXT:  }) {note = "kept"} : () -> ()
"mrvl.subgraph"() <{sym_name = "sg", function_type = () -> (), mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"}> ({
  "mrvl.yield"() : () -> ()
}) {note = "kept"} : () -> ()
