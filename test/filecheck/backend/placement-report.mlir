// `-t placement-report` after place-ops: one row per ONNX node in IR order, with its op
// type, where it runs (layer group and kind on MLIP) and every reason a node is on the
// host; constants and unnamed compiler-made ops (the transpose) are not nodes.
// RUN: mrvl-opt %s -t placement-report | filecheck %s
// RUN: mrvl-opt %s -t 'placement-report{format="json"}' | filecheck %s --check-prefix=JSON
// RUN: mrvl-opt %s -t 'placement-report{format=csv}' | filecheck %s --check-prefix=CSV

// CHECK-LABEL: node   op type   runs on                 reasons
// CHECK-NEXT:  conv1  Conv      MLIP (layer 0, conv2d)
// CHECK-NEXT:  relu1  Relu      MLIP (layer 0, conv2d)
// CHECK-NEXT:  relu2  Relu      host                    relu.fused-only: Relu runs on MLIP only fused after a Conv, Gemm or Add
// CHECK-NEXT:  gelu   FastGelu  host                    placement.host: kept on the host by the placement file p.json
// CHECK-NEXT:                                           unsupported: MLIP has no layer for FastGelu
// CHECK-EMPTY:
// CHECK-NEXT:  nodes      4
// CHECK-NEXT:    on MLIP  2   50.0%
// CHECK-NEXT:    on host  2   50.0%
// CHECK-NEXT:  subgraphs  0
// CHECK-NOT:   {{.}}

// JSON-LABEL: "nodes": [
// JSON-NEXT:    {"name": "conv1", "op_type": "Conv", "place": "mlip", "subgraph": null, "pattern": "conv2d", "group": 0, "legalized": null, "reasons": []},
// JSON-NEXT:    {"name": "relu1", "op_type": "Relu", "place": "mlip", "subgraph": null, "pattern": "conv2d", "group": 0, "legalized": null, "reasons": []},
// JSON-NEXT:    {"name": "relu2", "op_type": "Relu", "place": "host", "subgraph": null, "pattern": null, "group": null, "legalized": null, "reasons": ["relu.fused-only: Relu runs on MLIP only fused after a Conv, Gemm or Add"]},
// JSON-NEXT:    {"name": "gelu", "op_type": "FastGelu", "place": "host", "subgraph": null, "pattern": null, "group": null, "legalized": null, "reasons": ["placement.host: kept on the host by the placement file p.json", "unsupported: MLIP has no layer for FastGelu"]}
// JSON-NEXT:  ],
// JSON-NEXT:  "totals": {"nodes": 4, "mlip": 2, "host": 2, "subgraphs": 0}
// JSON-NEXT:  }

// CSV-LABEL: name,op_type,place,subgraph,pattern,group,legalized,reasons
// CSV-NEXT:  conv1,Conv,mlip,,conv2d,0,,
// CSV-NEXT:  relu1,Relu,mlip,,conv2d,0,,
// CSV-NEXT:  relu2,Relu,host,,,,,"relu.fused-only: Relu runs on MLIP only fused after a Conv, Gemm or Add"
// CSV-NEXT:  gelu,FastGelu,host,,,,,placement.host: kept on the host by the placement file p.json; unsupported: MLIP has no layer for FastGelu
// CSV-NOT:   {{.}}

func.func @placed(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense<1.0> : tensor<4x3x1x1xf32> loc("w")
  %c = graph.Conv %x, %w {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32> loc("conv1")
  %r = graph.Relu %c {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, "mrvl.pattern" = "conv2d"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("relu1")
  %t = graph.Transpose %r {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r2 = graph.Relu %t {"mrvl.place" = "host", "mrvl.reasons" = ["relu.fused-only: Relu runs on MLIP only fused after a Conv, Gemm or Add"]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("relu2")
  %g = graph.custom "FastGelu" domain "com.microsoft" (%r2) {} {"mrvl.place" = "host", "mrvl.reasons" = ["placement.host: kept on the host by the placement file p.json", "unsupported: MLIP has no layer for FastGelu"]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("gelu")
  func.return %g : tensor<1x4x8x8xf32>
}
