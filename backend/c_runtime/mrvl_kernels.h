/* mrvl_kernels.h: the error codes, element codes and parameter structs of the host kernels.
 *
 * The kernels themselves are in mrvl_kernels.c (and the family files it includes), which the
 * generated `<model>.c` includes: they have internal linkage, so two generated models link
 * into one program without a clash. This header declares no function and is safe to include
 * from application code.
 *
 * Tensors are dense, row-major (NCHW for images, OIHW for conv weights). Shapes and
 * strides are counted in elements. Spatial kernels (conv, conv_transpose, pool) take
 * (depth, height, width) triples: a 1-d or 2-d op passes leading 1s.
 */
#ifndef MRVL_KERNELS_H
#define MRVL_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes every generated `<model>_run` returns (0 is success). */
#define MRVL_OK 0
#define MRVL_ERR_ARGUMENT (-1)    /* a null pointer where a buffer is needed */
#define MRVL_ERR_ALIGNMENT (-2)   /* the workspace is not aligned as the header asks */
#define MRVL_ERR_NO_WEIGHTS (-3)  /* run before <model>_load_weights / _set_weights */
#define MRVL_ERR_WEIGHTS (-4)     /* the weights file is missing, short or of another model */
#define MRVL_ERR_NO_MLIP (-5)     /* an accelerator subgraph, and no runner set */
#define MRVL_ERR_MLIP (-6)        /* the accelerator runner reported an error */
#define MRVL_ERR_INDEX (-7)       /* a Gather index outside the indexed dim */
#define MRVL_ERR_SEQUENCE_LENS (-8) /* a recurrent layer's sequence_lens value outside [0, seq_length] */

#define MRVL_MAX_RANK 8

/* Elementwise function codes: the order of cpu.BinaryKind / cpu.UnaryKind / cpu.ReduceKind. */
enum mrvl_binary_kind {
    MRVL_ADD, MRVL_SUB, MRVL_MUL, MRVL_DIV, MRVL_POW, MRVL_MAX, MRVL_MIN, MRVL_MOD, MRVL_FMOD, MRVL_PRELU,
    MRVL_AND, MRVL_OR, MRVL_XOR, MRVL_EQUAL, MRVL_LESS, MRVL_LESS_OR_EQUAL, MRVL_GREATER, MRVL_GREATER_OR_EQUAL
};
enum mrvl_unary_kind {
    MRVL_RELU, MRVL_SIGMOID, MRVL_TANH, MRVL_SQRT, MRVL_EXP, MRVL_LOG, MRVL_ERF, MRVL_NEG, MRVL_ABS,
    MRVL_RECIPROCAL, MRVL_FLOOR, MRVL_CEIL, MRVL_ROUND, MRVL_SIGN, MRVL_SIN, MRVL_COS, MRVL_TAN, MRVL_ASIN,
    MRVL_ACOS, MRVL_ATAN, MRVL_SINH, MRVL_COSH, MRVL_ASINH, MRVL_ACOSH, MRVL_ATANH, MRVL_NOT, MRVL_IDENTITY,
    MRVL_SOFTPLUS, MRVL_SOFTSIGN, MRVL_GELU, MRVL_GELU_TANH, MRVL_MISH
};
enum mrvl_reduce_kind {
    MRVL_REDUCE_SUM, MRVL_REDUCE_MEAN, MRVL_REDUCE_MAX, MRVL_REDUCE_MIN, MRVL_REDUCE_PROD, MRVL_REDUCE_L1,
    MRVL_REDUCE_L2, MRVL_REDUCE_LOG_SUM, MRVL_REDUCE_LOG_SUM_EXP, MRVL_REDUCE_SUM_SQUARE
};
/* The order of cpu.ActivationKind. */
enum mrvl_activation_kind { MRVL_ELU, MRVL_SELU, MRVL_CELU, MRVL_THRESHOLDED_RELU };
/* The order of cpu.ScatterReduction. */
enum mrvl_scatter_reduction {
    MRVL_SCATTER_NONE, MRVL_SCATTER_ADD, MRVL_SCATTER_MUL, MRVL_SCATTER_MAX, MRVL_SCATTER_MIN
};
enum mrvl_pad_mode { MRVL_PAD_CONSTANT, MRVL_PAD_REFLECT, MRVL_PAD_EDGE, MRVL_PAD_WRAP };
enum mrvl_coordinate_mode {
    MRVL_HALF_PIXEL, MRVL_HALF_PIXEL_SYMMETRIC, MRVL_PYTORCH_HALF_PIXEL, MRVL_ALIGN_CORNERS, MRVL_ASYMMETRIC,
    MRVL_TF_CROP_AND_RESIZE
};
enum mrvl_nearest_mode { MRVL_ROUND_PREFER_FLOOR, MRVL_ROUND_PREFER_CEIL, MRVL_NEAREST_FLOOR, MRVL_NEAREST_CEIL };
/* The activation a conv or matmul applies to its output: the order of cpu.EpilogueKind, after
 * MRVL_EPILOGUE_NONE. */
enum mrvl_epilogue_kind {
    MRVL_EPILOGUE_NONE, MRVL_EPILOGUE_LEAKY_RELU, MRVL_EPILOGUE_SIGMOID, MRVL_EPILOGUE_SILU,
    MRVL_EPILOGUE_HARD_SIGMOID, MRVL_EPILOGUE_HARD_SWISH, MRVL_EPILOGUE_GELU, MRVL_EPILOGUE_GELU_TANH,
    MRVL_EPILOGUE_MISH, MRVL_EPILOGUE_PRELU /* a PRelu: the per-channel `slope` of the params */
};
/* Element types of mrvl_cast. */
enum mrvl_dtype {
    MRVL_F32, MRVL_F64, MRVL_F16, MRVL_BF16, MRVL_I8, MRVL_I16, MRVL_I32, MRVL_I64,
    MRVL_U8, MRVL_U16, MRVL_U32, MRVL_U64, MRVL_BOOL
};

/* --- Parameters of the kernels ------------------------------------------------------ */

/* Spatial dims of conv and pool kernels: (depth, height, width). */
#define MRVL_SPATIAL 3

typedef struct {
    int64_t n, c, m, group;          /* batch, input and output channels, groups */
    int64_t in[MRVL_SPATIAL];        /* input spatial size */
    int64_t out[MRVL_SPATIAL];       /* output spatial size (from the result type) */
    int64_t kernel[MRVL_SPATIAL], stride[MRVL_SPATIAL], dilation[MRVL_SPATIAL];
    int64_t pad[MRVL_SPATIAL];       /* at the start; conv_transpose: output elements cropped there */
    int clamp;                       /* conv: the output clamped to [min, max] (a fused Relu or Clip) */
    float min, max;
    int activation;                  /* conv: then this enum mrvl_epilogue_kind, with its alpha and beta */
    float alpha, beta;
    const float *slope;              /* MRVL_EPILOGUE_PRELU: x < 0 ? slope[m] * x : x (else NULL) */
    const float *scale, *shift;      /* conv: then times scale[m], plus shift[m] (each may be NULL) */
    int64_t y_batch;                 /* conv: floats from an image of y to the next (0: m * out, dense;
                                        more when y is a slice of a concat's output) */
} mrvl_conv_params;

typedef struct {
    int64_t n, c;
    int64_t in[MRVL_SPATIAL], out[MRVL_SPATIAL];
    int64_t kernel[MRVL_SPATIAL], stride[MRVL_SPATIAL], dilation[MRVL_SPATIAL];
    int64_t pad_begin[MRVL_SPATIAL], pad_end[MRVL_SPATIAL];
    int is_max, count_include_pad;
} mrvl_pool_params;

typedef struct {
    int64_t m, n, k;
    int trans_a, trans_b;
    float alpha, beta;
    int64_t c_row_stride, c_col_stride; /* C broadcast to (m, n): 0 on a broadcast dim */
    int packed_b;                       /* B' (k, n) packed at compile time (pack_gemm_weights) */
} mrvl_gemm_params;

typedef struct {
    int batch_rank;                        /* the result's batch dims */
    int64_t batch[MRVL_MAX_RANK];
    int64_t a_batch_stride[MRVL_MAX_RANK]; /* 0 where A broadcasts */
    int64_t b_batch_stride[MRVL_MAX_RANK];
    int64_t m, k, n;
    int packed_b;                          /* B (k, n), shared by the batch, packed at compile time */
    int transposed_b;                      /* B given as its (n, k) transpose, shared; m * batch rows
                                              at most MRVL_GEMM_DOT_ROWS (gemm_dots) */
    int clamp;                             /* then clamped to [min, max] (a fused Relu or Clip) */
    float min, max;
    int activation;                        /* then this enum mrvl_epilogue_kind, with its alpha and beta */
    float alpha, beta;
    const float *slope;                    /* MRVL_EPILOGUE_PRELU: x < 0 ? slope[j] * x : x (else NULL) */
} mrvl_matmul_params;

/* A result shape and, per operand, its strides over that shape (0 where it broadcasts). */
typedef struct {
    int rank;
    int64_t shape[MRVL_MAX_RANK];
    int64_t a_stride[MRVL_MAX_RANK];
    int64_t b_stride[MRVL_MAX_RANK];
    int64_t c_stride[MRVL_MAX_RANK];
} mrvl_broadcast;

enum mrvl_resize_mode { MRVL_RESIZE_NEAREST, MRVL_RESIZE_LINEAR, MRVL_RESIZE_CUBIC };

typedef struct {
    int rank;
    int64_t in_shape[MRVL_MAX_RANK], out_shape[MRVL_MAX_RANK];
    float scale[MRVL_MAX_RANK];
    int mode;                  /* enum mrvl_resize_mode */
    int coordinate_mode, nearest_mode;
    float cubic_coeff_a;
    int exclude_outside;       /* cubic: taps outside the input get weight 0, the rest renormalised */
    int antialias;             /* linear, cubic: the filter stretched by 1/scale on a shrinking dim */
    float roi_start[MRVL_MAX_RANK], roi_end[MRVL_MAX_RANK]; /* tf_crop_and_resize: fractions of the input */
    float extrapolation_value; /* tf_crop_and_resize: the result where the source is outside the input */
    int64_t out_row;           /* nearest: elements between the result's rows of its last dim, in a concat's
                                  output (0: the last dim's size, contiguous) */
} mrvl_resize_params;

/* Recurrent layers: the order of cpu.RecurrentKind and cpu.RecurrentActivation. */
enum mrvl_recurrent_kind { MRVL_LSTM, MRVL_GRU, MRVL_RNN };
enum mrvl_recurrent_activation {
    MRVL_RNN_SIGMOID, MRVL_RNN_TANH, MRVL_RNN_RELU, MRVL_RNN_AFFINE, MRVL_RNN_LEAKY_RELU, MRVL_RNN_THRESHOLDED_RELU,
    MRVL_RNN_SCALED_TANH, MRVL_RNN_HARD_SIGMOID, MRVL_RNN_ELU, MRVL_RNN_SOFTSIGN, MRVL_RNN_SOFTPLUS
};

/* One LSTM, GRU or RNN layer. Gates in ONNX's order: LSTM i, o, f, c; GRU z, r, h; RNN one. */
typedef struct {
    int kind;                  /* enum mrvl_recurrent_kind */
    int64_t seq, batch, input, hidden;
    int directions;            /* 1, or 2: forward then reverse */
    int reverse;               /* one direction, from the last step to the first */
    int batch_major;           /* layout 1: X (batch, seq, input), Y (batch, seq, directions, hidden) and
                                  initial_h, Y_h (batch, directions, hidden); else seq (directions) first */
    int activation[2][3];      /* per direction, f (g, h): enum mrvl_recurrent_activation */
    float alpha[2][3], beta[2][3];
    int has_clip;              /* every activation's input clamped to [-clip, clip] */
    float clip;
    int input_forget;          /* LSTM: the forget gate is 1 - the input gate */
    int linear_before_reset;   /* GRU: r multiplies H·Rh^T + Rbh, not H before the product */
    int quantized_hidden;      /* LSTM: each sample's H rounded to the uint8 grid of its range before
                                  each step's product (onnxruntime's DynamicQuantizeLSTM) */
} mrvl_recurrent_params;

#ifdef __cplusplus
}
#endif

#endif /* MRVL_KERNELS_H */
