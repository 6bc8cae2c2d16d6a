/* mrvl_mlip_board.h: the accelerator runner for the OCTEON 10 board.
 *
 * It runs each subgraph's mrvl-tmlc binary (`bin_<symbol>/<symbol>.bin` in the bundle) on
 * MLIP through Marvell's ML library, libmldpc (a wrapper over DPDK's rte_mldev), which it
 * opens with dlopen as TVM's mrvl runtime did (apache/tvm src/runtime/contrib/mrvl/mrvl_hw_runtime.cc):
 *
 *   mrvl_mlip_board *board;
 *   if (mrvl_mlip_board_open(&board, "path/to/bundle", NULL, m_subgraphs, M_NUM_SUBGRAPHS) != MRVL_OK)
 *       fprintf(stderr, "%s\n", mrvl_mlip_board_error());
 *   m_set_mlip(mrvl_mlip_board_run, board);
 *   ... m_run(&in, &out, ws) as often as needed ...
 *   mrvl_mlip_board_close(board);
 *
 * The library is initialised once per process and finished when the last board closes.
 * Per run of a subgraph: its float32 inputs are quantized into the device's format (one
 * input directly, several copied back to back first), the model runs with the batch it was
 * compiled for, and the outputs are dequantized (several: into one buffer, then sliced), as
 * TVM's runtime did. A board is not for concurrent runs from several threads.
 */
#ifndef MRVL_MLIP_BOARD_H
#define MRVL_MLIP_BOARD_H

#include "mrvl_mlip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library opened when mrvl_mlip_board_open is given none and MRVL_LIBMLDPC_PATH is unset. */
#define MRVL_LIBMLDPC_DEFAULT "/usr/lib/libmldpc.so"

typedef struct mrvl_mlip_board mrvl_mlip_board;

/* Opens libmldpc (`library`, else $MRVL_LIBMLDPC_PATH, else MRVL_LIBMLDPC_DEFAULT) and loads the
 * binary of each of the `count` subgraphs from `bundle_dir`. Returns MRVL_OK and the board in
 * *board, or MRVL_ERR_MLIP with *board NULL and the reason in mrvl_mlip_board_error(). */
int mrvl_mlip_board_open(mrvl_mlip_board **board, const char *bundle_dir, const char *library,
                         const mrvl_mlip_subgraph *subgraphs, int count);

/* A mrvl_mlip_run_fn: `ctx` is the board. Returns 0, or nonzero with the reason in
 * mrvl_mlip_board_error(). */
int mrvl_mlip_board_run(void *ctx, const char *symbol, const void *const *inputs, void *const *outputs);

/* Frees the subgraphs' buffers and unloads them; NULL is allowed. */
void mrvl_mlip_board_close(mrvl_mlip_board *board);

/* The last failure's reason, one line (process-wide, not thread-safe). */
const char *mrvl_mlip_board_error(void);

#ifdef __cplusplus
}
#endif

#endif /* MRVL_MLIP_BOARD_H */
