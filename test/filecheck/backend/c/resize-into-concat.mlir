// The C of a nearest resize written into a concat's last dim (plan-host-memory's strided
// slices): its parameters give the rows' distance in the concat's output (`out_row`), and the
// concat copies only its other input.
// RUN: rm -rf %t && mrvl-opt %s -p select-host-kernels,plan-host-memory -t 'c{model=net}' -o %t
// RUN: filecheck %s < %t/net.c

// CHECK-LABEL: static int op_cpu_resize(const float *x0, float *y0)
// CHECK:           .out_row = 8};
// CHECK-NEXT:      mrvl_resize_nearest(&p, x0, y0, 4);
// CHECK-LABEL: static int op_cpu_concat(const float *x0, const float *x1, float *y0)
// CHECK-NEXT:  {
// CHECK-NEXT:      /* x0: written into its slice by its producer */
// CHECK-NEXT:      {
// CHECK-NEXT:          static const int64_t shape[] = {1, 4, 8, 4}, src_stride[] = {128, 32, 4, 1}, dst_stride[] = {256, 64, 8, 1};
// CHECK-NEXT:          mrvl_copy_nd(4, shape, x1, src_stride, y0 + 4, dst_stride, 4);
func.func @net(%x: tensor<1x2x4x4xf32>, %z: tensor<1x4x8x4xf32>) -> tensor<1x4x8x8xf32> {
  %u = cpu.resize nearest %x {scales = array<f32: 1.0, 2.0, 2.0, 1.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<1x2x4x4xf32>) -> tensor<1x4x8x4xf32>
  %c = cpu.concat %u, %z {axis = 3 : i64} : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x8xf32>
  %y = cpu.unary relu %c : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
