// recognize-qdq's option is checked: absorb is a boolean; quantize is a target option,
// which the passes that decide take (mrvl-pipeline, place-ops), not this one.
// RUN: not mrvl-opt %s -p 'recognize-qdq{quantize=int8}' 2>&1 | filecheck %s --check-prefix=QUANTIZE
// RUN: not mrvl-opt %s -p 'mrvl-pipeline{quantize=uint8}' 2>&1 | filecheck %s --check-prefix=PIPELINE
// RUN: not mrvl-opt %s -p 'recognize-qdq{absorb=maybe}' 2>&1 | filecheck %s --check-prefix=ABSORB

// QUANTIZE:     error: {{.*}}arguments ["quantize"] not found in expected arguments ["absorb"]
// QUANTIZE-NOT: Traceback
// PIPELINE:     error: {{.*}}: mrvl-pipeline: quantize must be one of fp16, int8, got 'uint8'
// ABSORB:       error: {{.*}}given ('maybe',), expected <class 'bool'>
// ABSORB-NOT:   Traceback
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
