/* mrvl_mlip.h: how generated host code calls an accelerator (MLIP) subgraph.
 *
 * Every `cpu.call_mlip @symbol` becomes one call of a runner the application installs
 * with `<model>_set_mlip(run, ctx)`:
 *
 *   rc = run(ctx, "tvmgen_mrvl_main_0", inputs, outputs);
 *
 * `inputs` and `outputs` hold one pointer per subgraph input / output, in the subgraph's
 * order, each a dense row-major float32 tensor whose shape is the one in
 * `<symbol>-nodes.json`. The runner returns 0 on success. On the board, mrvl_mlip_board.h's
 * runner maps it onto Marvell's ML library (model load once per symbol, then quantize, run,
 * dequantize); on a workstation `mrvl-run` serves it with the reference simulator through
 * ctypes. Without a runner a call returns MRVL_ERR_NO_MLIP.
 */
#ifndef MRVL_MLIP_H
#define MRVL_MLIP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*mrvl_mlip_run_fn)(void *ctx, const char *symbol, const void *const *inputs, void *const *outputs);

/* What a runner needs to know of a subgraph (`<model>_subgraphs` in a generated header): its
 * symbol, the float32 elements of each input and output in order, and the batch it was
 * compiled for (mrvl-tmlc -b). */
typedef struct {
    const char *symbol;
    int num_inputs, num_outputs;
    const int64_t *input_counts, *output_counts;
    int batch;
} mrvl_mlip_subgraph;

#ifdef __cplusplus
}
#endif

#endif /* MRVL_MLIP_H */
