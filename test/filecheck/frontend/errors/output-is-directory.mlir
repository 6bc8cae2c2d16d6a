// Valid input, but `-o` names a folder: one error line, the folder is left as it was
// (no temporary file in it or next to it).
// RUN: rm -rf %t && mkdir %t %t/out.mlir
// RUN: %python %S/Inputs/expect_error.py mrvl-opt %s -o %t/out.mlir 2>&1 | filecheck %s
// RUN: %python -c "import os, sys; sys.exit(int(sorted(os.listdir(r'%t')) != ['out.mlir'] or bool(os.listdir(r'%t/out.mlir'))))"
// CHECK: {{^}}error: {{.*}}out.mlir{{.*}}{{$}}
// CHECK-NOT: Traceback

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
