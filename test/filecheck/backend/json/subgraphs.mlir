// mrvl-translate --to-json on mrvl IR: one set of files per subgraph and one command line
// each, with the options the subgraph records. In each file the layers count from
// tvmgen_mrvl_main_0 and the inputs are mrvl_<r>_i<k> (r from the symbol); weights may be
// inline `dense<...>` constants.
// Subgraph 0: an NCHW input through a layout_transform and an NHWC input read directly
// (data_layout NHWC, where TVM wrote NCHW: docs/json-format.md D6); three outputs, one of
// them input 0 itself (`[0, 0, 0]`, which TVM dropped: D9). The layout_transform layer
// (NCHW -> NHWC) has the keys of TVM's bare `layout_transform` op.
// RUN: mrvl-translate --to-json %s -o %t
// RUN: filecheck %s < %t/tvmgen_mrvl_main_0-nodes.json
// RUN: filecheck %s --check-prefix=ABSENT < %t/tvmgen_mrvl_main_0-nodes.json
// RUN: filecheck %s --check-prefix=SG1 < %t/tvmgen_mrvl_main_1-nodes.json
// RUN: filecheck %s --check-prefix=CONSTS1 < %t/tvmgen_mrvl_main_1-consts.json
// RUN: filecheck %s --check-prefix=MAP < %t/tvmgen_mrvl_main_0-sourcemap.json
// RUN: filecheck %s --check-prefix=TMLC < %t/tmlc-commands.txt

// TMLC:      {{^}}mrvl-tmlc -mn tvmgen_mrvl_main_0 -f1 tvmgen_mrvl_main_0-nodes.json -f2 tvmgen_mrvl_main_0-consts.json -arch=mlip -quantize=fp16 -wb_pin_ocm=0 -num_tiles=8 -b 1{{$}}
// TMLC-NEXT: {{^}}mrvl-tmlc -mn tvmgen_mrvl_main_1 -f1 tvmgen_mrvl_main_1-nodes.json -f2 tvmgen_mrvl_main_1-consts.json -arch=mlip -quantize=int8 -wb_pin_ocm=1 -num_tiles=4 -b 2{{$}}
// TMLC-EMPTY:

// CHECK-LABEL: "name": "mrvl_0_i0",
// CHECK:       "data_layout": [
// CHECK-NEXT:    "NCHW"
// CHECK-NEXT:  ]
// CHECK:       "input_id": [
// CHECK-NEXT:    "0"
// CHECK-NEXT:  ]
// CHECK-LABEL: "name": "mrvl_0_i1",
// CHECK:       "shape": [
// CHECK-NEXT:    [
// CHECK-NEXT:      1,
// CHECK-NEXT:      2,
// CHECK-NEXT:      2,
// CHECK-NEXT:      3
// CHECK-NEXT:    ]
// CHECK-NEXT:  ],
// CHECK:       "data_layout": [
// CHECK-NEXT:    "NHWC"
// CHECK-NEXT:  ]
// CHECK:       "input_id": [
// CHECK-NEXT:    "1"
// CHECK-NEXT:  ]
// CHECK-LABEL: "name": "tvmgen_mrvl_main_0",
// CHECK:       "src_layout": [
// CHECK-NEXT:    "NCHW"
// CHECK-NEXT:  ],
// CHECK:       "dst_layout": [
// CHECK-NEXT:    "NHWC"
// CHECK-NEXT:  ],
// CHECK:       "data_layout_shape": [
// CHECK-NEXT:    "1",
// CHECK-NEXT:    "3",
// CHECK-NEXT:    "2",
// CHECK-NEXT:    "2"
// CHECK-NEXT:  ],
// CHECK:       "out_layout": [
// CHECK-NEXT:    "NHWC"
// CHECK-NEXT:  ],
// CHECK:       "data_layout": [
// CHECK-NEXT:    "NCHW"
// CHECK-NEXT:  ],
// CHECK:       "out_layout_shape": [
// CHECK-NEXT:    "1",
// CHECK-NEXT:    "2",
// CHECK-NEXT:    "2",
// CHECK-NEXT:    "3"
// CHECK-NEXT:  ],
// CHECK:       "func_name": [
// CHECK-NEXT:    "n0_layout_transform_NCHW2NHWC"
// CHECK-NEXT:  ],
// CHECK:       "inputs": [
// CHECK-NEXT:    [
// CHECK-NEXT:      0,
// CHECK-NEXT:      0,
// CHECK-NEXT:      0
// CHECK-NEXT:    ]
// CHECK-NEXT:  ]
// CHECK-LABEL: "name": "tvmgen_mrvl_main_1",
// CHECK:       "layer_name": [
// CHECK-NEXT:    "Sum2D"
// CHECK-NEXT:  ],
// CHECK:       "inputs": [
// CHECK-NEXT:    [
// CHECK-NEXT:      2,
// CHECK-NEXT:      0,
// CHECK-NEXT:      0
// CHECK-NEXT:    ],
// CHECK-NEXT:    [
// CHECK-NEXT:      1,
// CHECK-NEXT:      0,
// CHECK-NEXT:      0
// CHECK-NEXT:    ]
// CHECK-NEXT:  ]
// CHECK:       "arg_nodes": [
// CHECK-NEXT:    0,
// CHECK-NEXT:    1
// CHECK-NEXT:  ],
// CHECK-NEXT:  "heads": [
// CHECK-NEXT:    [
// CHECK-NEXT:      3,
// CHECK-NEXT:      0,
// CHECK-NEXT:      0
// CHECK-NEXT:    ],
// CHECK-NEXT:    [
// CHECK-NEXT:      0,
// CHECK-NEXT:      0,
// CHECK-NEXT:      0
// CHECK-NEXT:    ],
// CHECK-NEXT:    [
// CHECK-NEXT:      2,
// CHECK-NEXT:      0,
// CHECK-NEXT:      0
// CHECK-NEXT:    ]
// CHECK-NEXT:  ],
// CHECK-NEXT:  "batch_size": "1",
// CHECK-NEXT:  "num_subgraph_inputs": "2",
// CHECK-NEXT:  "num_subgraph_outputs": "3",

// The layout transform is a bare op in TVM, not a composite: no `composite_name`.
// ABSENT-LABEL: "name": "tvmgen_mrvl_main_0",
// ABSENT-NOT:   "composite_name"
// ABSENT-LABEL: "name": "tvmgen_mrvl_main_1",

// Subgraph 1: a 2-D input (NC), an FC whose weight is an inline constant.
// SG1:       "symbol": "tvmgen_mrvl_main_1",
// SG1-LABEL: "name": "mrvl_1_i0",
// SG1:       "data_layout": [
// SG1-NEXT:    "NC"
// SG1-NEXT:  ]
// SG1-LABEL: "name": "tvmgen_mrvl_main_0",
// SG1:       "func_node_name": [
// SG1-NEXT:    "tvmgen_mrvl_main_1"
// SG1-NEXT:  ],
// SG1:       "kernel_const_name": [
// SG1-NEXT:    "tvmgen_mrvl_main_0_const_0"
// SG1-NEXT:  ],
// SG1:       "func_name": [
// SG1-NEXT:    "n0_FC_NC"
// SG1-NEXT:  ],
// SG1:       "batch_size": "2",

// Little-endian float32s: 0.1 is CD CC CC 3D, the smallest denormal 01 00 00 00.
// CONSTS1-LABEL: "tvmgen_mrvl_main_0_const_0": {
// CONSTS1:       "min": "-2.5",
// CONSTS1:       "max": "4",
// CONSTS1:       "data_base64": "AACAPwAAAEAAAEBAAACAQM3MzD0AACDAAAAAAAEAAAA="

// The ONNX nodes of each layer, from its location; none for inputs and layout transforms.
// MAP-LABEL: "name": "tvmgen_mrvl_main_0",
// MAP:       "onnx_nodes": []
// MAP-LABEL: "name": "tvmgen_mrvl_main_1",
// MAP:       "layer_name": "Sum2D",
// MAP:       "onnx_nodes": [
// MAP-NEXT:    {
// MAP-NEXT:      "name": "Add_3",
// MAP-NEXT:      "op_type": "Add"
// MAP-NEXT:    }
// MAP-NEXT:  ]

builtin.module {
  mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x3x2x2xf32>, %y: tensor<1x2x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x3x2x2xf32>, tensor<1x2x2x3xf32>) attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
    %t = mrvl.layout_transform %x : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
    %s = mrvl.sum %t, %y : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32> loc(fused["Add_3"("Add")])
    mrvl.yield %s, %x, %t : tensor<1x2x2x3xf32>, tensor<1x3x2x2xf32>, tensor<1x2x2x3xf32>
  }
  mrvl.subgraph @tvmgen_mrvl_main_1(%a: tensor<2x4xf32>) -> tensor<2x2xf32> attributes {mcpu = "cnf10kb", num_tiles = 4 : i64, quantize = "int8", wb_pin_ocm = 1 : i64, run_mode = "hw"} {
    %w = graph.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.1, -2.5, 0.0, 1.0e-45]]> : tensor<2x4xf32>
    %f = mrvl.fc %a, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32> loc(fused["MatMul_7"("MatMul")])
    mrvl.yield %f : tensor<2x2xf32>
  }
}
