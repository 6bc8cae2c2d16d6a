// The C of a concat written in place through strided slices (plan-host-memory's strided
// slices): each cpu.elementwise stores its rows 12 floats apart in the concat's output, the
// last part of a short row in one part-vector store; the split copies only the piece the relu
// reads, from its input's rows in the concat's output; the concat is no code.
// RUN: rm -rf %t && mrvl-opt %s -p select-host-kernels,plan-host-memory -t 'c{model=net}' -o %t
// RUN: filecheck %s < %t/net.c

// CHECK-LABEL: static int op_cpu_elementwise(const float *x0, float *y0)
// CHECK-NEXT:  {
// CHECK-NEXT:      /* 16 x 8 elements, into a slice of a concat's output */
// CHECK-NEXT:      for (int64_t i0 = 0; i0 < 16; i0++) {
// CHECK-NEXT:          const float *p0 = x0 + i0 * 8;
// CHECK-NEXT:          float *q = y0 + i0 * 12;
// CHECK:               pool_store_part(q + j, t1, 8 - j);
// CHECK-LABEL: static int op_cpu_split(const float *x0, float *y0, float *y1)
// CHECK-NEXT:  {
// CHECK-NEXT:      /* y0: in place in the concat that reads it */
// CHECK-NEXT:      {
// CHECK-NEXT:          static const int64_t shape[] = {1, 4, 4, 4}, src_stride[] = {192, 48, 12, 1}, dst_stride[] = {64, 16, 4, 1};
// CHECK-NEXT:          mrvl_copy_nd(4, shape, x0 + 4, src_stride, y1, dst_stride, 4);
// CHECK-NEXT:      }
// CHECK-NEXT:      return MRVL_OK;
// CHECK-LABEL: static int op_cpu_elementwise_1(const float *x0, const float *x1, float *y0)
// CHECK:               float *q = y0 + i0 * 12;
// CHECK-LABEL: int net_run(
// CHECK:           /* s at arena + 0 */
// CHECK-NEXT:      rc = op_cpu_elementwise(in->input_0, (float *)(arena + 0));
// CHECK:           /* m at arena + 32 */
// CHECK:           /* inserted by the compiler: cpu.concat */
// CHECK-NEXT:      /* in place: its inputs were written into their slices of arena + 0: no code */
func.func @net(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x12xf32> {
  %s = cpu.elementwise %x : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: f32):
    %g = cpu.sigmoid %v : f32
    %m = arith.mulf %v, %g : f32
    cpu.yield %m : f32
  }
  %a, %b = cpu.split %s {axis = 3 : i64, sizes = array<i64: 4, 4>} : (tensor<1x4x4x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
  %r = cpu.unary relu %b : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %m = cpu.elementwise %r, %b : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%v: f32, %u: f32):
    %t = arith.addf %v, %u : f32
    cpu.yield %t : f32
  }
  %c = cpu.concat %a, %b, %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x12xf32>
  %y = cpu.unary relu %c : (tensor<1x4x4x12xf32>) -> tensor<1x4x4x12xf32>
  func.return %y : tensor<1x4x4x12xf32>
}
