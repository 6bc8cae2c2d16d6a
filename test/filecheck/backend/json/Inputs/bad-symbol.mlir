builtin.module {
  mrvl.subgraph @"../sg0"(%x: tensor<1x4xf32>) -> tensor<1x4xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
    mrvl.yield %x : tensor<1x4xf32>
  }
}
