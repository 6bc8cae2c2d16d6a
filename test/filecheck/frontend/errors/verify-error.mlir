// graph.Relu does not take booleans. The message says which op failed (its name, or
// its location) before what is wrong.
// RUN: rm -rf %t && mkdir %t
// RUN: %python %S/Inputs/expect_error.py mrvl-opt %s -o %t/out.mlir 2>&1 | filecheck %s
// CHECK: {{^}}error: {{.*}}verify-error.mlir: {{.*(graph.Relu|relu1).*}}: operand 'X' at position 0 does not verify: {{.*}}but got i1{{$}}
// CHECK-NOT: Traceback

func.func @f(%x: tensor<2xi1>) -> tensor<2xi1> {
  %y = graph.Relu %x : (tensor<2xi1>) -> tensor<2xi1> loc("relu1")
  func.return %y : tensor<2xi1>
}
