// A pass pipeline that does not parse (an option without a value, a stray space) is a user
// error: one `error:` line naming the spec and the column, exit code 1, no traceback.
// RUN: not mrvl-opt %s -p 'partition-mrvl{policies=}' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not mrvl-opt %s -p 'cse,dce ' 2>&1 | filecheck %s --check-prefix=SPACE

// EMPTY:      error: {{.*}}pass-spec-syntax.mlir: in 'partition-mrvl{policies=}' at column 25: Unknown argument value
// EMPTY-NOT:  Traceback

// SPACE:      error: {{.*}}pass-spec-syntax.mlir: in 'cse,dce ' at column 8: Expected a comma or pass arguments here
// SPACE-NOT:  Traceback
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
