// plan-host-memory, weight packing: the constant (K, N) B of a cpu.matmul becomes a constant
// in the GEMM kernel's packed layout (panels, K, 32), as a cpu.gemm's B' (see
// plan-host-memory-gemm-weight-packing.mlir): N rounded up to whole panels of 32 columns with
// zeros. The matmul is marked `packed_b` and needs no scratch (it packs nothing at run time).
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory --print-weights | filecheck %s

// COM: w (K 2, N 40), column j of row k 100 k + j: panel 0 is row 0's 0 ... 31 (0x41F80000), row
// COM: 1's 100 (0x42C80000) ... 131 (0x43030000); panel 1 is 32 (0x42000000) ... 39 (0x421C0000) then
// COM: 24 zeros, 132 (0x43040000) ... 139 (0x430B0000) then 24 zeros.
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %w_packed = graph.constant dense_resource<w_packed> : tensor<2x2x32xf32>
// CHECK-NEXT:    %y = cpu.matmul %x, %w_packed {packed_b, offsets = array<i64: -1>} : (tensor<1x5x2xf32>, tensor<2x2x32xf32>) -> tensor<1x5x40xf32>
// CHECK-NEXT:    func.return %y
// CHECK:         w_packed: "0x04000000000000000000803F{{[0-9A-F]*0000F8410000C842[0-9A-F]*0000034300000042[0-9A-F]*00001C42(00000000){24}00000443[0-9A-F]*00000B43(00000000){24}"}}
func.func @matmul(%x: tensor<1x5x2xf32>) -> tensor<1x5x40xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0], [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0, 132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0]]> : tensor<2x40xf32>
  %y = cpu.matmul %x, %w : (tensor<1x5x2xf32>, tensor<2x40xf32>) -> tensor<1x5x40xf32>
  func.return %y : tensor<1x5x40xf32>
}
