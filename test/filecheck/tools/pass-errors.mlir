// A bad pass pipeline is a user error: one `error:` line and exit code 1, like every
// other bad input, not a Python traceback.
// RUN: not mrvl-opt %s -p nosuchpass 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not mrvl-opt %s -p 'cse{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// UNKNOWN:     error: {{.*}}nosuchpass
// UNKNOWN-NOT: Traceback

// OPTION:      error: {{.*}}bogus
// OPTION-NOT:  Traceback
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
