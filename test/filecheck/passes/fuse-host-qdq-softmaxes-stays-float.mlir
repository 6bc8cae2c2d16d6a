// fuse-host-qdq-softmaxes leaves in float what onnxruntime's QLinearSoftmax does not compute: a
// LogSoftmax, a Softmax whose result another op reads, and one between two 8-bit types.
// RUN: mrvl-opt %s -p fuse-host-qdq-softmaxes | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NOT:     cpu.qlinear_softmax
// CHECK:         func.return

func.func @net(%xq: tensor<4x16xui8>) -> (tensor<4x16xui8>, tensor<4x16xui8>, tensor<4x16xf32>, tensor<4x16xi8>) {
  %sx = graph.constant dense<5.000000e-02> : tensor<f32>
  %zx = graph.constant dense<7> : tensor<ui8>
  %sy = graph.constant dense<3.906250e-03> : tensor<f32>
  %zy = graph.constant dense<0> : tensor<ui8>
  %zi = graph.constant dense<-128> : tensor<i8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %l = cpu.softmax %x {axis = 1 : i64, log} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %lq = cpu.quantize %l, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x16xui8>
  %p = cpu.softmax %x {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %pq = cpu.quantize %p, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x16xui8>
  %s = cpu.softmax %x {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %si = cpu.quantize %s, %sy, %zi {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x16xf32>, tensor<f32>, tensor<i8>) -> tensor<4x16xi8>
  func.return %lq, %pq, %p, %si : tensor<4x16xui8>, tensor<4x16xui8>, tensor<4x16xf32>, tensor<4x16xi8>
}
