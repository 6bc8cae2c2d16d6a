// A 3x3 stride-1 conv on the Winograd kernel: its weights in the weights blob transformed at
// compile time (and described so), and the kernel handed them with the bias and its scratch
// (the slots of blocks of tile rows).
// RUN: rm -rf %t && mrvl-opt %s -p select-host-kernels,plan-host-memory -t 'c{model=net}' -o %t
// RUN: filecheck %s < %t/net.c
// RUN: filecheck %s --check-prefix=HEADER < %t/net.h

// HEADER:        #define NET_WEIGHT_w_packed_OFFSET {{[0-9]+}} /* float32[64, 64, 3, 3], transformed for mrvl_winograd_conv_f32 */
// CHECK-LABEL: static int op_cpu_conv(const float *x0, const float *x1, const float *x2, float *y0, float *scratch)
// CHECK:           mrvl_winograd_conv_f32(&p, x0, x1, x2, NULL, y0, scratch);
func.func @net(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w = graph.constant dense<0.5> : tensor<64x64x3x3xf32>
  %b = graph.constant dense<0.25> : tensor<64xf32>
  %y = cpu.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}
