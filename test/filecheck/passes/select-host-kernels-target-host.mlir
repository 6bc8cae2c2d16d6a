// select-host-kernels weighs the conv kernels with the overheads of the host the target
// description names ([host] name; keys in [host] override that host's). The stem's flat
// kernel copies its input (flat_copy_cost a float): made 40 times dearer, the direct one
// wins, whether in [host] or in the named [host.neoverse-n2]; in a set the target does
// not name it changes nothing.
// RUN: mrvl-opt %s -p select-host-kernels | filecheck %s --check-prefix=FLAT
// RUN: printf '[host]\nflat_copy_cost = 1000\n' > %t.override.ini
// RUN: mrvl-opt %s -p 'select-host-kernels{target_file="%t.override.ini"}' | filecheck %s --check-prefix=DIRECT
// RUN: printf '[host.neoverse-n2]\nflat_copy_cost = 1000\n' > %t.named.ini
// RUN: mrvl-opt %s -p 'select-host-kernels{target_file="%t.named.ini"}' | filecheck %s --check-prefix=DIRECT
// RUN: printf '[host]\nname = x86-64\n[host.neoverse-n2]\nflat_copy_cost = 1000\n' > %t.other.ini
// RUN: mrvl-opt %s -p 'select-host-kernels{target_file="%t.other.ini"}' | filecheck %s --check-prefix=FLAT
// RUN: mrvl-opt %s -p 'mrvl-host-pipeline{target_file="%t.override.ini"}' | filecheck %s --check-prefix=DIRECT

// FLAT:   %stem = cpu.conv {{.*}}kernel = #cpu<conv_kernel flat>
// DIRECT: %stem = cpu.conv {{.*}}kernel = #cpu<conv_kernel direct>
func.func @stem(%img: tensor<1x3x64x64xf32>) -> tensor<1x16x32x32xf32> {
  %ws = graph.constant dense<0.5> : tensor<16x3x3x3xf32>
  %stem = cpu.conv %img, %ws {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x3x64x64xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  func.return %stem : tensor<1x16x32x32xf32>
}
