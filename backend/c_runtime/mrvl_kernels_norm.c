/* mrvl_kernels_norm.c: normalisation and reductions: softmax and its kin, layer, RMS and
 * batch norm, the Reduce ops.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

/* e^x lane by lane for x <= 0 as exp_nonpositive_f32: below -87 0, NaN stays NaN. */
static inline pool_vec exp_nonpositive_vec(pool_vec x)
{
    pool_vec e = exp_normal_vec(pool_min(pool_max(x, (pool_vec){0} - 87.0f), (pool_vec){0}));
    return pool_select(x != x, x, pool_select(x >= -87.0f, e, (pool_vec){0}));
}

/* Softmax of one contiguous row of n floats, in vectors: the maximum (NaN never wins), then
 * e^(x - max) stored and summed, then times 1 / sum. A row's last part vector goes through a
 * buffer (its lanes past the row -inf: e^-inf adds 0); a row of whole vectors (a DFL's 16
 * bins) needs none. The lanes are combined pairwise, halving (short rows wait on a chain of
 * log2 lanes, not of all of them), in a fixed order: the same bits however rows are split. */
static void softmax_row_f32(int64_t n, const float *in, float *out)
{
    int64_t whole = n - n % MRVL_POOL_VF, rest = n - whole;
    float tail[MRVL_POOL_VF], lanes[MRVL_POOL_VF];
    pool_vec acc = (pool_vec){0} - INFINITY;
    if (rest) {
        for (int l = 0; l < MRVL_POOL_VF; l++) tail[l] = -INFINITY;
        memcpy(tail, in + whole, (size_t)rest * sizeof(float));
        acc = pool_load(tail);
    }
    for (int64_t a = 0; a < whole; a += MRVL_POOL_VF) acc = pool_max(pool_load(in + a), acc);
    pool_store(lanes, acc);
    for (int w = MRVL_POOL_VF / 2; w >= 1; w /= 2)
        for (int l = 0; l < w; l++) lanes[l] = lanes[l + w] > lanes[l] ? lanes[l + w] : lanes[l];
    float max = lanes[0];
    pool_vec sum = (pool_vec){0};
    if (rest) {
        sum = exp_nonpositive_vec(pool_load(tail) - max);
        pool_store(tail, sum);
        memcpy(out + whole, tail, (size_t)rest * sizeof(float));
    }
    for (int64_t a = 0; a < whole; a += MRVL_POOL_VF) {
        pool_vec e = exp_nonpositive_vec(pool_load(in + a) - max);
        pool_store(out + a, e);
        sum += e;
    }
    pool_store(lanes, sum);
    for (int w = MRVL_POOL_VF / 2; w >= 1; w /= 2)
        for (int l = 0; l < w; l++) lanes[l] += lanes[l + w];
    float scale = 1.0f / lanes[0];
    for (int64_t a = 0; a < whole; a += MRVL_POOL_VF) pool_store(out + a, pool_load(out + a) * scale);
    for (int64_t a = whole; a < n; a++) out[a] *= scale;
}

/* Softmax over the axis of x viewed as (axis, inner) for the `inner` columns from x, VF of them
 * side by side in a vector (contiguous: a channel softmax's positions): as softmax_row_f32,
 * lane by lane. */
static void softmax_columns_f32(int64_t axis, int64_t inner, const float *x, float *y)
{
    pool_vec max = (pool_vec){0} - INFINITY, sum = (pool_vec){0};
    for (int64_t a = 0; a < axis; a++) max = pool_max(pool_load(x + a * inner), max);
    for (int64_t a = 0; a < axis; a++) {
        pool_vec e = exp_nonpositive_vec(pool_load(x + a * inner) - max);
        pool_store(y + a * inner, e);
        sum += e;
    }
    pool_vec scale = 1.0f / sum;
    for (int64_t a = 0; a < axis; a++) pool_store(y + a * inner, pool_load(y + a * inner) * scale);
}

/* Softmax over the middle dim of x viewed as (outer, axis, inner): the usual last axis (inner
 * 1) row by row in vectors (softmax_row_f32), other axes (a channel softmax, inner the
 * positions) VF columns at a time (softmax_columns_f32) and the last few one by one. */
/* Softmax of VF short rows of n floats (n at most MRVL_SOFTMAX_SHORT_ROW) side by side: the
 * rows transposed into a tile of n vectors, one row a lane, softmax_columns_f32 down them
 * (no lanes to combine), and transposed back. */
#define MRVL_SOFTMAX_SHORT_ROW 32
static inline __attribute__((always_inline)) void softmax_short_rows_f32(int64_t n, const float *in, float *out)
{
    float tile[n * MRVL_POOL_VF];
    for (int64_t r = 0; r < MRVL_POOL_VF; r++)
        for (int64_t a = 0; a < n; a++) tile[a * MRVL_POOL_VF + r] = in[r * n + a];
    softmax_columns_f32(n, MRVL_POOL_VF, tile, tile);
    for (int64_t r = 0; r < MRVL_POOL_VF; r++)
        for (int64_t a = 0; a < n; a++) out[r * n + a] = tile[a * MRVL_POOL_VF + r];
}

static void mrvl_softmax_f32(int64_t outer, int64_t axis, int64_t inner, const float *x, float *y)
{
    if (inner == 1) {
        const int64_t tiled = axis <= MRVL_SOFTMAX_SHORT_ROW && MRVL_POOL_VF > 1 ? outer - outer % MRVL_POOL_VF : 0;
        /* The common bin counts as constants: the tile's transposes then unroll into shuffles. */
        switch (tiled ? axis : 0) {
#define MRVL_SHORT_ROWS(N)                                                                        \
    case N:                                                                                       \
        for (int64_t o = 0; o < tiled; o += MRVL_POOL_VF) softmax_short_rows_f32(N, x + o * N, y + o * N); \
        break;
            MRVL_SHORT_ROWS(4)
            MRVL_SHORT_ROWS(8)
            MRVL_SHORT_ROWS(16)
            MRVL_SHORT_ROWS(32)
#undef MRVL_SHORT_ROWS
        default:
            for (int64_t o = 0; o < tiled; o += MRVL_POOL_VF) softmax_short_rows_f32(axis, x + o * axis, y + o * axis);
        }
        for (int64_t o = tiled; o < outer; o++) softmax_row_f32(axis, x + o * axis, y + o * axis);
        return;
    }
    int64_t whole = inner - inner % MRVL_POOL_VF;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < whole; i += MRVL_POOL_VF)
            softmax_columns_f32(axis, inner, x + o * axis * inner + i, y + o * axis * inner + i);
        for (int64_t i = whole; i < inner; i++) {
            const float *in = x + o * axis * inner + i;
            float *out = y + o * axis * inner + i;
            float max = -INFINITY, sum = 0.0f;
            for (int64_t a = 0; a < axis; a++) max = in[a * inner] > max ? in[a * inner] : max;
            /* Two loops: the exponentials vectorise, the ordered sum does not. */
            for (int64_t a = 0; a < axis; a++) out[a * inner] = exp_nonpositive_f32(in[a * inner] - max);
            for (int64_t a = 0; a < axis; a++) sum += out[a * inner];
            for (int64_t a = 0; a < axis; a++) out[a * inner] /= sum;
        }
    }
}

/* log(softmax(x)) over the middle dim of x viewed as (outer, axis, inner), as
 * x - max - log(sum(exp(x - max))): finite where the softmax itself underflows to 0. */
#define MRVL_DEFINE_LOG_SOFTMAX(NAME, T, EXP_NONPOSITIVE, LOG)                                    \
    static void NAME(int64_t outer, int64_t axis, int64_t inner, const T *x, T *y)                 \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                const T *in = x + o * axis * inner + i;                                            \
                T *out = y + o * axis * inner + i;                                                 \
                T max = (T)-INFINITY, sum = 0;                                                     \
                for (int64_t a = 0; a < axis; a++) max = in[a * inner] > max ? in[a * inner] : max; \
                for (int64_t a = 0; a < axis; a++) out[a * inner] = in[a * inner] - max;           \
                for (int64_t a = 0; a < axis; a++) sum += EXP_NONPOSITIVE(out[a * inner]);         \
                T shift = LOG(sum);                                                                \
                for (int64_t a = 0; a < axis; a++) out[a * inner] -= shift;                        \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_LOG_SOFTMAX(mrvl_log_softmax_f32, float, exp_nonpositive_f32, logf)
MRVL_DEFINE_LOG_SOFTMAX(mrvl_log_softmax_f64, double, exp, log)

/* A NaN test for the generic kernels below, for the element types that have no NaN. */
static int never_nan(double v)
{
    (void)v;
    return 0;
}

/* Hardmax: 1 at the first maximum along the middle dim of (outer, axis, inner), 0 elsewhere;
 * a NaN counts as the maximum (numpy's argmax, as ONNX's reference). */
#define MRVL_DEFINE_HARDMAX(NAME, T)                                                              \
    static void NAME(int64_t outer, int64_t axis, int64_t inner, const T *x, T *y)                 \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                const T *in = x + o * axis * inner + i;                                            \
                T *out = y + o * axis * inner + i;                                                 \
                int64_t at = 0;                                                                    \
                for (int64_t a = 1; a < axis && !isnan(in[at * inner]); a++)                       \
                    if (isnan(in[a * inner]) || in[a * inner] > in[at * inner]) at = a;            \
                for (int64_t a = 0; a < axis; a++) out[a * inner] = (T)(a == at);                  \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_HARDMAX(mrvl_hardmax_f32, float)
MRVL_DEFINE_HARDMAX(mrvl_hardmax_f64, double)

/* Each of `rows` rows of `size` normalised, times scale (size), plus b (size) or NULL; the
 * mean, then the variance about it, summed in double. */
static void mrvl_layer_norm_f32(int64_t rows, int64_t size, float epsilon, const float *x, const float *scale,
                         const float *b, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *in = x + r * size;
        float *out = y + r * size;
        /* The sums in double, 16 partial ones each, so that the loops vectorise. */
        double sum[16] = {0}, sq[16] = {0}, total = 0.0, squares = 0.0;
        int64_t whole = size - size % 16;
        for (int64_t i = 0; i < whole; i += 16)
            for (int l = 0; l < 16; l++) sum[l] += in[i + l];
        for (int l = 0; l < 16; l++) total += sum[l];
        for (int64_t i = whole; i < size; i++) total += in[i];
        float mean = (float)(total / (double)size);
        for (int64_t i = 0; i < whole; i += 16)
            for (int l = 0; l < 16; l++) sq[l] += (double)(in[i + l] - mean) * (in[i + l] - mean);
        for (int l = 0; l < 16; l++) squares += sq[l];
        for (int64_t i = whole; i < size; i++) squares += (double)(in[i] - mean) * (in[i] - mean);
        float inv = (float)(1.0 / sqrt(squares / (double)size + epsilon));
        for (int64_t i = 0; i < size; i++) out[i] = (in[i] - mean) * inv * scale[i] + (b ? b[i] : 0.0f);
    }
}

/* RMSNormalization: each of `rows` rows of `size` divided by its root mean square (epsilon
 * added under the root; the squares summed in double), times scale (size). */
static void mrvl_rms_norm_f32(int64_t rows, int64_t size, float epsilon, const float *x, const float *scale,
                              float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *in = x + r * size;
        float *out = y + r * size;
        double squares = 0.0;
        for (int64_t i = 0; i < size; i++) squares += (double)in[i] * in[i];
        float inv = (float)(1.0 / sqrt(squares / (double)size + epsilon));
        for (int64_t i = 0; i < size; i++) out[i] = in[i] * inv * scale[i];
    }
}

/* x viewed as (n, c, spatial). */
static void mrvl_batch_norm_f32(int64_t n, int64_t c, int64_t spatial, float epsilon, const float *x,
                         const float *scale, const float *b, const float *mean, const float *var, float *y)
{
    for (int64_t k = 0; k < c; k++) {
        float mul = scale[k] / sqrtf(var[k] + epsilon), add = b[k] - mean[k] * mul;
        for (int64_t i = 0; i < n; i++) {
            const float *in = x + (i * c + k) * spatial;
            float *out = y + (i * c + k) * spatial;
            for (int64_t s = 0; s < spatial; s++) out[s] = in[s] * mul + add;
        }
    }
}

/* x viewed as (positions, c): channels last, the host glue between MLIP calls in NHWC. The
 * per-channel factors as mrvl_batch_norm_f32 computes them, in `factors` (2 * c floats). */
static void mrvl_batch_norm_nhwc_f32(int64_t positions, int64_t c, float epsilon, const float *x, const float *scale,
                                     const float *b, const float *mean, const float *var, float *y, float *factors)
{
    float *mul = factors, *add = factors + c;
    for (int64_t k = 0; k < c; k++) {
        mul[k] = scale[k] / sqrtf(var[k] + epsilon);
        add[k] = b[k] - mean[k] * mul[k];
    }
    for (int64_t i = 0; i < positions; i++)
        for (int64_t k = 0; k < c; k++) y[i * c + k] = x[i * c + k] * mul[k] + add[k];
}

/* A row of x's last dim (`n` elements at `row`) folded by FOLD(acc, v) into the result at
 * `out` when that dim is reduced (in 16 lanes, combined in a fixed order, so that the loop
 * vectorises), else elementwise into the row of results at `out`. */
#define MRVL_REDUCE_ROW(T, FOLD, COMBINE, init, reduced, n, row, out)                                      \
    do {                                                                                           \
        if (reduced) {                                                                             \
            T part_[16], acc_ = (init);                                                            \
            int64_t whole_ = (n) - (n) % 16;                                                       \
            for (int l_ = 0; l_ < 16; l_++) part_[l_] = (init);                                    \
            for (int64_t j_ = 0; j_ < whole_; j_ += 16)                                            \
                for (int l_ = 0; l_ < 16; l_++) part_[l_] = FOLD(part_[l_], (row)[j_ + l_]);        \
            for (int l_ = 0; l_ < 16; l_++) acc_ = COMBINE(acc_, part_[l_]);                      \
            for (int64_t j_ = whole_; j_ < (n); j_++) acc_ = FOLD(acc_, (row)[j_]);                \
            *(out) = COMBINE(*(out), acc_);                                                        \
        } else {                                                                                   \
            for (int64_t j_ = 0; j_ < (n); j_++) (out)[j_] = FOLD((out)[j_], (row)[j_]);           \
        }                                                                                          \
    } while (0)
/* Each kind's step (FOLD), and how its partial results combine (COMBINE: a sum of squares,
 * of absolute values or of exponentials sums them). */
#define MRVL_FOLD_MAX(acc, v) ((v) > (acc) ? (v) : (acc))
#define MRVL_FOLD_MIN(acc, v) ((v) < (acc) ? (v) : (acc))
#define MRVL_FOLD_PROD(acc, v) ((acc) * (v))
#define MRVL_FOLD_SUM(acc, v) ((acc) + (v))
#define MRVL_FOLD_SQUARES(acc, v) ((acc) + (v) * (v))

/* NAME(kind, rank, shape, out_stride, out_count, count, x, y) on elements of type T with T's
 * libm functions: x of `rank` dims `shape`; out_stride: the result's strides over x's dims,
 * 0 on a reduced dim; `count`: the elements reduced into each result. Row by row of x's last
 * dim (reduced, or kept with stride 1), each kind its own loop. */
#define MRVL_DEFINE_REDUCE(NAME, T, ABS, EXP, SQRT, LOG)                                           \
    static inline T NAME##_abs(T acc, T v) { return acc + ABS(v); }                               \
    static inline T NAME##_exp(T acc, T v) { return acc + EXP(v); }                               \
    static void NAME(int kind, int rank, const int64_t *shape, const int64_t *out_stride, int64_t out_count, \
                     int64_t count, const T *x, T *y)                                              \
    {                                                                                              \
        T init = kind == MRVL_REDUCE_MAX ? (T)-INFINITY                                            \
                 : kind == MRVL_REDUCE_MIN ? (T)INFINITY                                           \
                 : kind == MRVL_REDUCE_PROD ? (T)1 : (T)0;                                         \
        int64_t idx[MRVL_MAX_RANK] = {0}, total = 1, o = 0;                                        \
        for (int64_t i = 0; i < out_count; i++) y[i] = init;                                       \
        for (int d = 0; d < rank; d++) total *= shape[d];                                          \
        int64_t n = rank ? shape[rank - 1] : 1;                                                    \
        int reduced = rank == 0 || out_stride[rank - 1] == 0;                                     \
        for (const T *row = x; row < x + total; row += n) {                                        \
            switch (kind) {                                                                        \
            case MRVL_REDUCE_MAX: MRVL_REDUCE_ROW(T, MRVL_FOLD_MAX, MRVL_FOLD_MAX, init, reduced, n, row, y + o); break; \
            case MRVL_REDUCE_MIN: MRVL_REDUCE_ROW(T, MRVL_FOLD_MIN, MRVL_FOLD_MIN, init, reduced, n, row, y + o); break; \
            case MRVL_REDUCE_PROD: MRVL_REDUCE_ROW(T, MRVL_FOLD_PROD, MRVL_FOLD_PROD, init, reduced, n, row, y + o); break; \
            case MRVL_REDUCE_L1: MRVL_REDUCE_ROW(T, NAME##_abs, MRVL_FOLD_SUM, init, reduced, n, row, y + o); break; \
            case MRVL_REDUCE_L2:                                                                   \
            case MRVL_REDUCE_SUM_SQUARE: MRVL_REDUCE_ROW(T, MRVL_FOLD_SQUARES, MRVL_FOLD_SUM, init, reduced, n, row, y + o); break; \
            case MRVL_REDUCE_LOG_SUM_EXP: MRVL_REDUCE_ROW(T, NAME##_exp, MRVL_FOLD_SUM, init, reduced, n, row, y + o); break; \
            default: MRVL_REDUCE_ROW(T, MRVL_FOLD_SUM, MRVL_FOLD_SUM, init, reduced, n, row, y + o); break;       \
            }                                                                                      \
            for (int d = rank - 2; d >= 0; d--) {                                                  \
                idx[d]++;                                                                          \
                o += out_stride[d];                                                                \
                if (idx[d] < shape[d]) break;                                                      \
                o -= out_stride[d] * shape[d];                                                     \
                idx[d] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
        for (int64_t i = 0; i < out_count; i++) {                                                  \
            switch (kind) {                                                                        \
            case MRVL_REDUCE_MEAN: y[i] /= (T)count; break;                                        \
            case MRVL_REDUCE_L2: y[i] = SQRT(y[i]); break;                                         \
            case MRVL_REDUCE_LOG_SUM: case MRVL_REDUCE_LOG_SUM_EXP: y[i] = LOG(y[i]); break;       \
            default: break;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_REDUCE(mrvl_reduce_f32, float, fabsf, expf, sqrtf, logf)
MRVL_DEFINE_REDUCE(mrvl_reduce_f64, double, fabs, exp, sqrt, log)
