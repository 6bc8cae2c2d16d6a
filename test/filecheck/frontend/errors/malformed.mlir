// A parse error is reported at its line and column.
// RUN: rm -rf %t && mkdir %t
// RUN: %python %S/Inputs/expect_error.py mrvl-opt %s -o %t/out.mlir 2>&1 | filecheck %s
// CHECK: {{^}}error: {{.*}}malformed.mlir: [[# @LINE + 4]]:6: Expected '=' after operation result list{{$}}
// CHECK-NOT: Traceback

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
