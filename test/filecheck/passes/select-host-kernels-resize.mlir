// select-host-kernels records the C kernel of each resize as its `kernel`: nearest, taps (linear
// and cubic on fixed 2 and 4 taps) or filtered (linear or cubic with antialias, or
// tf_crop_and_resize).
// RUN: mrvl-opt %s -p select-host-kernels | filecheck %s

// CHECK: %near = cpu.resize nearest {{.*}}kernel = #cpu<resize_kernel nearest>
// CHECK: %lin = cpu.resize linear {{.*}}kernel = #cpu<resize_kernel taps>
// CHECK: %aa = cpu.resize linear {{.*}}kernel = #cpu<resize_kernel filtered>
func.func @resizes(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x4x4xf32>) {
  %near = cpu.resize nearest %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<1x2x8x8xf32>) -> tensor<1x2x16x16xf32>
  %lin = cpu.resize linear %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode half_pixel>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<1x2x8x8xf32>) -> tensor<1x2x16x16xf32>
  %aa = cpu.resize linear %x {scales = array<f32: 1.0, 1.0, 0.5, 0.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode half_pixel>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = true} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  func.return %near, %lin, %aa : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x4x4xf32>
}
