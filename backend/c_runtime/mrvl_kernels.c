/* mrvl_kernels.c: the C99 host kernels, included by every generated `<model>.c`.
 *
 * Every kernel is `static`: each model gets its own copy with internal linkage, so two models
 * link into one program, and the compiler sees the kernels next to their constant parameters.
 * Kernels the model does not call are dropped by the compiler. Scratch memory (im2col columns,
 * a transposed B) is part of the caller's workspace, planned by the emitter: nothing here
 * allocates.
 *
 * The kernels live in one file per family, included here in order so that the compiler sees
 * them as one translation unit: a family calls the static helpers of those before it (a conv
 * its GEMM micro-kernels and activations), and they are inlined across families. What they
 * share is in mrvl_kernels_internal.h, the tile sizes in mrvl_kernels_tiles.h.
 */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* a model calls only some kernels */
#endif

#include "mrvl_kernels_internal.h"

#include "mrvl_kernels_threads.c"
#include "mrvl_kernels_math.c"
#include "mrvl_kernels_gemm.c"
#include "mrvl_kernels_conv.c"
#include "mrvl_kernels_winograd.c"
#include "mrvl_kernels_conv_transpose.c"
#include "mrvl_kernels_depthwise.c"
#include "mrvl_kernels_pool.c"
#include "mrvl_kernels_elementwise.c"
#include "mrvl_kernels_norm.c"
#include "mrvl_kernels_data.c"
#include "mrvl_kernels_resize.c"
#include "mrvl_kernels_recurrent.c"
#include "mrvl_kernels_qgemm.c"
#include "mrvl_kernels_qdepthwise.c"

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
