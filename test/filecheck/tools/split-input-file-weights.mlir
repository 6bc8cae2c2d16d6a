// With --split-input-file each chunk is its own module with its own weights: a blob in
// one chunk's dialect_resources section must not leak into another chunk, nor rename a
// dense_resource handle there (`v` must stay `v`).
// RUN: mrvl-opt %s --split-input-file --print-weights | filecheck %s

// CHECK-LABEL: func.func @a()
// CHECK:         graph.constant dense_resource<w> : tensor<2xf32>
// CHECK:         w: "0x040000000000803F00000040"
// CHECK-LABEL: func.func @b()
// CHECK-NEXT:    %w = graph.constant dense_resource<w> : tensor<2xf32>
// CHECK-NEXT:    %v = graph.constant dense_resource<v> : tensor<2xf32>
// CHECK:         w: "0x040000000000404000008040"
// CHECK-NOT:     v:
func.func @a() -> tensor<2xf32> {
  %w = graph.constant dense_resource<w> : tensor<2xf32>
  func.return %w : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040",
      v: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @b() -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.constant dense_resource<w> : tensor<2xf32>
  %v = graph.constant dense_resource<v> : tensor<2xf32>
  func.return %w, %v : tensor<2xf32>, tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000404000008040"
    }
  }
#-}
