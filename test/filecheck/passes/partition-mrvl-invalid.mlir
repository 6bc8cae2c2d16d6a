// partition-mrvl option errors: one `error:` line naming the pass, the option, the
// allowed values and what was given; exit code 1, no traceback.
// RUN: not mrvl-opt %s -p 'partition-mrvl{num_tiles=3}' 2>&1 | filecheck %s --check-prefix=TILES
// RUN: not mrvl-opt %s -p 'partition-mrvl{mcpu=cn9k}' 2>&1 | filecheck %s --check-prefix=MCPU
// RUN: not mrvl-opt %s -p 'partition-mrvl{quantize=int4}' 2>&1 | filecheck %s --check-prefix=QUANTIZE
// RUN: not mrvl-opt %s -p 'partition-mrvl{wb_pin_ocm=2}' 2>&1 | filecheck %s --check-prefix=PIN
// RUN: not mrvl-opt %s -p 'partition-mrvl{wb_pin_ocm=true}' 2>&1 | filecheck %s --check-prefix=PIN-BOOL
// RUN: not mrvl-opt %s -p 'partition-mrvl{run_mode=board}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not mrvl-opt %s -p 'partition-mrvl{policies=compute-intensive,no-leading-relu}' 2>&1 | filecheck %s --check-prefix=POLICY
// RUN: not mrvl-opt %s -p 'partition-mrvl{num_tiles=four}' 2>&1 | filecheck %s --check-prefix=TYPE

// TILES:         error: {{.*}}: partition-mrvl: num_tiles must be one of 1, 2, 4, 8, got 3
// TILES-NOT:     Traceback
// MCPU:          error: {{.*}}: partition-mrvl: mcpu must be one of cn10ka, cnf10kb, got 'cn9k'
// QUANTIZE:      error: {{.*}}: partition-mrvl: quantize must be one of fp16, int8, got 'int4'
// PIN:           error: {{.*}}: partition-mrvl: wb_pin_ocm must be one of 0, 1, got 2
// PIN-BOOL:      error: {{.*}}: partition-mrvl: wb_pin_ocm must be one of 0, 1, got True
// MODE:          error: {{.*}}: partition-mrvl: run_mode must be one of sim, hw, got 'board'
// POLICY:        error: {{.*}}: partition-mrvl: policies must be among compute-intensive, no-leading-concat, no-leading-sum, no-trailing-reshape, worth-the-call, got 'no-leading-relu'
// TYPE:          error: {{.*}}: partition-mrvl: num_tiles must be one of 1, 2, 4, 8, got 'four'
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
