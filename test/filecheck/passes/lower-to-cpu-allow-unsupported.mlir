// allow_unsupported=true keeps ops with no host kernel and lowers the rest.
// RUN: mrvl-opt %s -p 'lower-to-cpu{allow_unsupported=true}' | filecheck %s

// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %k = graph.constant dense<3> : tensor<1xi64>
// CHECK-NEXT:    %r = cpu.unary relu %x
// CHECK-NEXT:    %v, %i = graph.TopK %r, %k
// CHECK-NEXT:    %n = graph.custom "Fancy" domain "org.example"{{ ?}}(%v)
// CHECK-NEXT:    func.return %n
func.func @f(%x: tensor<8xf32>) -> tensor<3xf32> {
  %k = graph.constant dense<3> : tensor<1xi64>
  %r = graph.Relu %x : (tensor<8xf32>) -> tensor<8xf32>
  %v, %i = graph.TopK %r, %k : (tensor<8xf32>, tensor<1xi64>) -> (tensor<3xf32>, tensor<3xi64>)
  %n = graph.custom "Fancy" domain "org.example" (%v) {} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %n : tensor<3xf32>
}
