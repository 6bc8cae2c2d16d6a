// A comparison in a cpu.elementwise body is a vector mask (pool_mask, C's comparison of
// vectors), and a select of it pool_select.
// RUN: rm -rf %t && mrvl-opt %s -p select-host-kernels,plan-host-memory -t 'c{model=net}' -o %t
// RUN: filecheck %s < %t/net.c

// CHECK:      pool_mask t1 = a0 < c0;
// CHECK-NEXT: pool_vec t3 = a0 * c2;
// CHECK-NEXT: pool_vec t4 = pool_select(t1, t3, a0);
// CHECK-NEXT: pool_store(q + j, t4);
func.func @net(%x: tensor<37xf32>) -> tensor<37xf32> {
  %y = cpu.elementwise %x : (tensor<37xf32>) -> tensor<37xf32> {
  ^bb0(%v: f32):
    %zero = arith.constant 0.0 : f32
    %negative = arith.cmpf olt, %v, %zero : f32
    %alpha = arith.constant 0.25 : f32
    %m = arith.mulf %v, %alpha : f32
    %r = arith.select %negative, %m, %v : f32
    cpu.yield %r : f32
  }
  func.return %y : tensor<37xf32>
}
