// In a QDQ model, the layer fuse-mrvl builds records the quantization of its first op's
// input, its weight and its last op's output, from the records of the ops it fuses.
// RUN: mrvl-opt %s -p fuse-mrvl | filecheck %s

// CHECK-LABEL: func.func @quantized(
// CHECK:         mrvl.conv2d {{.*}}mrvl.quantized = #mrvl.quantized<input #mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, weight #mrvl.qparams<i8, scale [0.125], zero_point [0], axis 0>, output #mrvl.qparams<i8, scale [0.25], zero_point [0], axis 0>>
// CHECK-SAME:        activation = #mrvl<activation relu>
func.func @quantized(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %c = graph.Conv %x, %w {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip", mrvl.quantized = #mrvl.quantized<input #mrvl.qparams<i8, scale [0.5], zero_point [0], axis 0>, weight #mrvl.qparams<i8, scale [0.125], zero_point [0], axis 0>, output none>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.Relu %c {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip", mrvl.quantized = #mrvl.quantized<input none, weight none, output #mrvl.qparams<i8, scale [0.25], zero_point [0], axis 0>>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
