// allow_unsupported=true keeps ops with no host kernel and lowers the rest.
// RUN: mrvl-opt %s -p 'lower-to-cpu{allow_unsupported=true}' | filecheck %s

// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %r = cpu.unary relu %x
// CHECK-NEXT:    %d = graph.Det %r
// CHECK-NEXT:    %n = graph.custom "Fancy" domain "org.example"{{ ?}}(%d)
// CHECK-NEXT:    func.return %n
func.func @f(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %r = graph.Relu %x : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %d = graph.Det %r : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %n = graph.custom "Fancy" domain "org.example" (%d) {} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %n : tensor<2xf32>
}
