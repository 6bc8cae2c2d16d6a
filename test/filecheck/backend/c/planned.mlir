// -t c prints the memory plan the IR carries (plan-host-memory's attributes) as it is: a
// planned function is not planned again (-t c runs no pass).
// RUN: rm -rf %t && mrvl-opt %s -t 'c{model=net}' -o %t
// RUN: filecheck %s < %t/net.c
// RUN: filecheck %s --check-prefix=HEADER < %t/net.h

// CHECK-LABEL: int net_run(
// CHECK:       /* a at arena + 512 */
// CHECK-NEXT:  rc = op_cpu_unary(in->input_0, (float *)(arena + 512));
// CHECK:       rc = op_cpu_unary_1((float *)(arena + 512), out->output_0);
// HEADER: #define NET_WORKSPACE_BYTES 4096
// HEADER: #define NET_WORKSPACE_ALIGN 128
func.func @planned(%x: tensor<4x64xf32>) -> tensor<4x64xf32> attributes {cpu.kernels_selected, cpu.workspace = #cpu.workspace<4096 bytes, align 128>} {
  %a = cpu.unary relu %x {offsets = array<i64: 512>} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = cpu.unary relu %a {offsets = array<i64: -1>} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  func.return %y : tensor<4x64xf32>
}
