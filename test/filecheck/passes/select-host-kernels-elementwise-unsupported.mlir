// select-host-kernels refuses a cpu.elementwise whose body holds an op the C printer has no
// vector form for, with one error naming the nodes and the op.
// RUN: not mrvl-opt %s -p select-host-kernels 2>&1 | filecheck %s

// CHECK: {{^}}error: {{.*}}select-host-kernels-elementwise-unsupported.mlir: node 'sqrt' (Sqrt): the C backend has no kernel for 'cpu.elementwise' with 'math.sqrt' in its body{{$}}
// CHECK-NOT: error
func.func @sqrt(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = cpu.elementwise %x : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%v: f32):
    %r = math.sqrt %v : f32
    cpu.yield %r : f32
  } loc("sqrt"("Sqrt"))
  func.return %y : tensor<8xf32>
}
