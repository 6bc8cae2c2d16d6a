/* mrvl_kernels.h: the host kernels generated code calls (C99, no allocation, no globals).
 *
 * Tensors are dense, row-major (NCHW for images, OIHW for conv weights). Shapes and
 * strides are counted in elements. Data-movement kernels are element-type generic
 * (they take the element size in bytes); arithmetic kernels are float32 (`_f32`).
 * Spatial kernels (conv, conv_transpose, pool) are 2-d: a 1-d op is passed as 2-d with
 * height 1.
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
    MRVL_SOFTPLUS, MRVL_SOFTSIGN, MRVL_GELU, MRVL_GELU_TANH
};
enum mrvl_reduce_kind {
    MRVL_REDUCE_SUM, MRVL_REDUCE_MEAN, MRVL_REDUCE_MAX, MRVL_REDUCE_MIN, MRVL_REDUCE_PROD, MRVL_REDUCE_L1,
    MRVL_REDUCE_L2, MRVL_REDUCE_LOG_SUM, MRVL_REDUCE_LOG_SUM_EXP, MRVL_REDUCE_SUM_SQUARE
};
enum mrvl_pad_mode { MRVL_PAD_CONSTANT, MRVL_PAD_REFLECT, MRVL_PAD_EDGE, MRVL_PAD_WRAP };
enum mrvl_coordinate_mode {
    MRVL_HALF_PIXEL, MRVL_HALF_PIXEL_SYMMETRIC, MRVL_PYTORCH_HALF_PIXEL, MRVL_ALIGN_CORNERS, MRVL_ASYMMETRIC
};
enum mrvl_nearest_mode { MRVL_ROUND_PREFER_FLOOR, MRVL_ROUND_PREFER_CEIL, MRVL_NEAREST_FLOOR, MRVL_NEAREST_CEIL };
/* Element types of mrvl_cast. */
enum mrvl_dtype {
    MRVL_F32, MRVL_F64, MRVL_F16, MRVL_BF16, MRVL_I8, MRVL_I16, MRVL_I32, MRVL_I64,
    MRVL_U8, MRVL_U16, MRVL_U32, MRVL_U64, MRVL_BOOL
};

/* --- Convolution, pooling, matrix products ---------------------------------------- */

typedef struct {
    int64_t n, c, h, w;          /* input */
    int64_t m, kh, kw;           /* output channels, kernel */
    int64_t oh, ow;              /* output spatial size (from the result type) */
    int64_t stride_h, stride_w, dilation_h, dilation_w;
    int64_t pad_top, pad_left;   /* conv_transpose: output elements cropped at the start */
    int64_t group;
} mrvl_conv2d_params;

/* y (n, m, oh, ow) = conv(x (n, c, h, w), w (m, c/group, kh, kw)) + b (m); b may be NULL. */
void mrvl_conv2d_f32(const mrvl_conv2d_params *p, const float *x, const float *w, const float *b, float *y);
/* y (n, m, oh, ow) from x (n, c, h, w) and w (c, m/group, kh, kw), plus b (m) or NULL. */
void mrvl_conv_transpose2d_f32(const mrvl_conv2d_params *p, const float *x, const float *w, const float *b,
                               float *y);

typedef struct {
    int64_t n, c, h, w, oh, ow;
    int64_t kh, kw, stride_h, stride_w, dilation_h, dilation_w;
    int64_t pad_top, pad_left, pad_bottom, pad_right;
    int is_max, count_include_pad;
} mrvl_pool2d_params;

void mrvl_pool2d_f32(const mrvl_pool2d_params *p, const float *x, float *y);
/* Max or average of each of `rows` rows of `size` elements. */
void mrvl_global_pool_f32(int is_max, int64_t rows, int64_t size, const float *x, float *y);

typedef struct {
    int64_t m, n, k;
    int trans_a, trans_b;
    float alpha, beta;
    int64_t c_row_stride, c_col_stride; /* C broadcast to (m, n): 0 on a broadcast dim */
} mrvl_gemm_params;

/* y (m, n) = alpha * A' B' + beta * C; c may be NULL. */
void mrvl_gemm_f32(const mrvl_gemm_params *p, const float *a, const float *b, const float *c, float *y);

typedef struct {
    int batch_rank;                      /* the result's batch dims */
    int64_t batch[MRVL_MAX_RANK];
    int64_t a_batch_stride[MRVL_MAX_RANK]; /* 0 where A broadcasts */
    int64_t b_batch_stride[MRVL_MAX_RANK];
    int64_t m, k, n;
} mrvl_matmul_params;

void mrvl_matmul_f32(const mrvl_matmul_params *p, const float *a, const float *b, float *y);

/* --- Elementwise ------------------------------------------------------------------ */

/* A result shape and, per operand, its strides over that shape (0 where it broadcasts). */
typedef struct {
    int rank;
    int64_t shape[MRVL_MAX_RANK];
    int64_t a_stride[MRVL_MAX_RANK];
    int64_t b_stride[MRVL_MAX_RANK];
    int64_t c_stride[MRVL_MAX_RANK];
} mrvl_broadcast;

/* out = a `kind` b; comparisons write bool (one byte) elements. */
void mrvl_binary_f32(int kind, const mrvl_broadcast *p, const float *a, const float *b, void *y);
/* and, or, xor, and comparisons of bool elements. */
void mrvl_binary_bool(int kind, const mrvl_broadcast *p, const uint8_t *a, const uint8_t *b, uint8_t *y);
/* y = cond ? a : b, a and b of `elem` bytes (a_stride: cond, b_stride: a, c_stride: b). */
void mrvl_where(const mrvl_broadcast *p, const uint8_t *cond, const void *a, const void *b, void *y, size_t elem);

void mrvl_unary_f32(int kind, int64_t count, const float *x, float *y);
void mrvl_not(int64_t count, const uint8_t *x, uint8_t *y);
void mrvl_clip_f32(int64_t count, float low, float high, const float *x, float *y);
void mrvl_leaky_relu_f32(int64_t count, float alpha, const float *x, float *y);
void mrvl_hard_sigmoid_f32(int64_t count, float alpha, float beta, const float *x, float *y);
void mrvl_hard_swish_f32(int64_t count, const float *x, float *y);
void mrvl_cast(int64_t count, int from, const void *x, int to, void *y);

/* --- Normalisation ---------------------------------------------------------------- */

/* Softmax over the middle dim of x viewed as (outer, axis, inner). */
void mrvl_softmax_f32(int64_t outer, int64_t axis, int64_t inner, const float *x, float *y);
/* Each of `rows` rows of `size` normalised, times scale (size), plus b (size) or NULL. */
void mrvl_layer_norm_f32(int64_t rows, int64_t size, float epsilon, const float *x, const float *scale,
                         const float *b, float *y);
/* x viewed as (n, c, spatial). */
void mrvl_batch_norm_f32(int64_t n, int64_t c, int64_t spatial, float epsilon, const float *x,
                         const float *scale, const float *b, const float *mean, const float *var, float *y);
/* x of `rank` dims `shape`; out_stride: the result's strides over x's dims, 0 on a
 * reduced dim; `count`: the elements reduced into each result. */
void mrvl_reduce_f32(int kind, int rank, const int64_t *shape, const int64_t *out_stride, int64_t out_count,
                     int64_t count, const float *x, float *y);

/* --- Data movement (any element type) --------------------------------------------- */

/* dst[i] = src[i] over `shape`, each side with its own strides (elements). */
void mrvl_copy_nd(int rank, const int64_t *shape, const void *src, const int64_t *src_stride, void *dst,
                  const int64_t *dst_stride, size_t elem);
/* y (outer, count, inner) = data (outer, dim, inner) at `indices` (count, i32 or i64). */
int mrvl_gather(int64_t outer, int64_t dim, int64_t inner, const void *data, int64_t count,
                const void *indices, int indices_are_i64, void *y, size_t elem);
/* pads: rank begins then rank ends (negative: crop); fill: one element (constant mode). */
void mrvl_pad(int mode, int rank, const int64_t *in_shape, const int64_t *out_shape, const int64_t *pads,
              const void *fill, const void *x, void *y, size_t elem);

typedef struct {
    int rank;
    int64_t in_shape[MRVL_MAX_RANK], out_shape[MRVL_MAX_RANK];
    float scale[MRVL_MAX_RANK];
    int linear;                /* else nearest */
    int coordinate_mode, nearest_mode;
} mrvl_resize_params;

/* Nearest: any dims; linear: only the last two dims may change size. */
void mrvl_resize_f32(const mrvl_resize_params *p, const float *x, float *y);
void mrvl_resize_nearest(const mrvl_resize_params *p, const void *x, void *y, size_t elem);

#ifdef __cplusplus
}
#endif

#endif /* MRVL_KERNELS_H */
