// plan-host-memory, weight packing: the constant B of a cpu.gemm of more than GEMM_DOT_ROWS
// (4) rows becomes a constant in the GEMM kernel's packed layout of B' (panels, K, 32): B'
// (K x N) in panels of 32 columns, N rounded up to whole panels with zeros, each panel a row
// of 32 columns per k. With trans_b the packed constant holds B transposed. The gemm is
// marked `packed_b`, keeps trans_b (it still describes the ONNX weights), needs no scratch,
// and the constant it replaced goes.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory --print-weights | filecheck %s

// COM: b (N 16 rows, K 2 columns), row j = [j, 100 + j]: packed row k=0 is 0, 1, ..., 15 then
// COM: 16 zeros, row k=1 is 100, ..., 115 then 16 zeros (15.0 is 0x41700000, 100.0 0x42C80000, 115.0 0x42E60000).
// CHECK-LABEL: func.func @gemm(
// CHECK-NEXT:    %b_packed = graph.constant dense_resource<b_packed> : tensor<1x2x32xf32>
// CHECK-NEXT:    %y = cpu.gemm %x, %b_packed {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true, packed_b, offsets = array<i64: -1>} : (tensor<5x2xf32>, tensor<1x2x32xf32>) -> tensor<5x16xf32>
// CHECK-NEXT:    func.return %y
// CHECK:         b_packed: "0x04000000000000000000803F0000004000004040{{[0-9A-F]*00007041(00000000){16}0000C842[0-9A-F]*0000E642(00000000){16}"}}
func.func @gemm(%x: tensor<5x2xf32>) -> tensor<5x16xf32> {
  %b = graph.constant dense<[[0.0, 100.0], [1.0, 101.0], [2.0, 102.0], [3.0, 103.0], [4.0, 104.0], [5.0, 105.0], [6.0, 106.0], [7.0, 107.0], [8.0, 108.0], [9.0, 109.0], [10.0, 110.0], [11.0, 111.0], [12.0, 112.0], [13.0, 113.0], [14.0, 114.0], [15.0, 115.0]]> : tensor<16x2xf32>
  %y = cpu.gemm %x, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<5x2xf32>, tensor<16x2xf32>) -> tensor<5x16xf32>
  func.return %y : tensor<5x16xf32>
}
