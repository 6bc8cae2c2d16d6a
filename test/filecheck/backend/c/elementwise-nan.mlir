// A maximum or minimum of two vectors in a cpu.elementwise body keeps the NaN semantics of its
// arith op: pool_max and pool_min give their second operand where either is NaN, so
// arith.maximumf (NaN wins) selects its first operand where that is NaN, and arith.minnumf
// (the number wins) its first operand where the second is NaN.
// RUN: rm -rf %t && mrvl-opt %s -p select-host-kernels,plan-host-memory -t 'c{model=net}' -o %t
// RUN: filecheck %s < %t/net.c

// CHECK:      pool_vec t0 = pool_select(a0 != a0, a0, pool_max(a0, a1));
// CHECK-NEXT: pool_vec t1 = pool_select(a1 != a1, t0, pool_min(t0, a1));
// CHECK-NEXT: pool_store(q + j, t1);
func.func @net(%x: tensor<37xf32>, %z: tensor<37xf32>) -> tensor<37xf32> {
  %y = cpu.elementwise %x, %z : (tensor<37xf32>, tensor<37xf32>) -> tensor<37xf32> {
  ^bb0(%v: f32, %w: f32):
    %m = arith.maximumf %v, %w : f32
    %n = arith.minnumf %m, %w : f32
    cpu.yield %n : f32
  }
  func.return %y : tensor<37xf32>
}
