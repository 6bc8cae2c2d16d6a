// `-p 'canonicalize,cse'`: a pipeline of two xDSL passes. CSE merges an op that repeats
// another (same operands, properties and types) and equal constants, also when one
// spells out a default property the other leaves out; canonicalize erases the unused
// pure op.
// RUN: mrvl-opt %s -p 'canonicalize,cse' | filecheck %s

// CHECK-LABEL: func.func @cse(
// CHECK-SAME:      [[X:%[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    [[A:%[^ ]+]] = graph.Relu [[X]]
// CHECK-NEXT:    [[C:%[^ ]+]] = graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[S:%[^ ]+]] = graph.Add [[A]], [[C]]
// CHECK-NEXT:    [[P:%[^ ]+]] = graph.LeakyRelu [[X]] {alpha = 2.000000e-02 : f32}
// CHECK-NEXT:    [[Q:%[^ ]+]] = graph.LeakyRelu [[X]] :
// CHECK-NEXT:    [[Y:%[^ ]+]] = graph.Mul [[S]], [[S]]
// CHECK-NEXT:    func.return [[Y]], [[P]], [[Q]], [[Q]] :
func.func @cse(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %a = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %b = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %unused = graph.Sigmoid %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %c = graph.constant dense<1.0> : tensor<f32>
  %d = graph.constant dense<1.0> : tensor<f32>
  %s = graph.Add %a, %c : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %t = graph.Add %b, %d : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  // Different properties: not merged.
  %p = graph.LeakyRelu %x {alpha = 0.02 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %q = graph.LeakyRelu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // The default alpha (0.01) written out: merged with %q.
  %r = graph.LeakyRelu %x {alpha = 0.01 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = graph.Mul %s, %t : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %y, %p, %q, %r : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}
