// recognize-qdq's options are checked: quantize takes the target's values (fp16, int8),
// absorb a boolean.
// RUN: not mrvl-opt %s -p 'recognize-qdq{quantize=int4}' 2>&1 | filecheck %s --check-prefix=QUANTIZE
// RUN: not mrvl-opt %s -p 'mrvl-pipeline{quantize=uint8}' 2>&1 | filecheck %s --check-prefix=PIPELINE
// RUN: not mrvl-opt %s -p 'recognize-qdq{absorb=maybe}' 2>&1 | filecheck %s --check-prefix=ABSORB

// QUANTIZE:     error: {{.*}}: recognize-qdq: quantize must be one of fp16, int8, got 'int4'
// QUANTIZE-NOT: Traceback
// PIPELINE:     error: {{.*}}: mrvl-pipeline: quantize must be one of fp16, int8, got 'uint8'
// ABSORB:       error: {{.*}}given ('maybe',), expected <class 'bool'>
// ABSORB-NOT:   Traceback
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
