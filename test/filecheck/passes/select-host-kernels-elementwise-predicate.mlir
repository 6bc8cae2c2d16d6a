// select-host-kernels refuses a cpu.elementwise comparing with a predicate C's comparisons of
// vectors do not give (here 'ord': neither operand NaN), naming the node and the predicate.
// RUN: not mrvl-opt %s -p select-host-kernels 2>&1 | filecheck %s

// CHECK: {{^}}error: {{.*}}select-host-kernels-elementwise-predicate.mlir: node 'ordered' (Custom): the C backend has no kernel for 'cpu.elementwise' with the comparison 'ord' in its body{{$}}
// CHECK-NOT: error
func.func @ordered(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = cpu.elementwise %x : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%v: f32):
    %o = arith.cmpf ord, %v, %v : f32
    %r = arith.select %o, %v, %v : f32
    cpu.yield %r : f32
  } loc("ordered"("Custom"))
  func.return %y : tensor<8xf32>
}
