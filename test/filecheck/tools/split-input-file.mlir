// --split-input-file: each chunk between separator lines is parsed and printed on its
// own, and the outputs are joined by the same separator; the same SSA and symbol names
// in two chunks do not clash.
// RUN: mrvl-opt %s --split-input-file | filecheck %s

// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:      %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      func.return %y : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NEXT:  {{^// -{5}$}}
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:      %y = graph.Neg %x : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      func.return %y : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   builtin.module
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Neg %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
