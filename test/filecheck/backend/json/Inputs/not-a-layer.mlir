builtin.module {
  mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<1x4xf32>) -> tensor<1x4xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
    %y = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
    mrvl.yield %y : tensor<1x4xf32>
  }
}
