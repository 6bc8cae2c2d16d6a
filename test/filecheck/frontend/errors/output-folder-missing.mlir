// Valid input, but the output cannot be written: one error line naming the output file.
// RUN: rm -rf %t && mkdir %t
// RUN: %python %S/Inputs/expect_error.py mrvl-opt %s -o %t/missing/out.mlir 2>&1 | filecheck %s
// CHECK: {{^}}error: {{.*}}missing/out.mlir{{.*}}{{$}}
// CHECK-NOT: Traceback

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
