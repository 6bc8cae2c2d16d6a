/* mrvl_kernels_data.c: data movement: copies and transposes, gather and scatter, Trilu, Pad;
 * training-mode Dropout; kernels along one axis (arg max and min, running sums and products,
 * top-k, Range).
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

/* Floats of each side of copy_transposed_f32's square blocks. */
#define MRVL_TRANSPOSE_BLOCK 16

/* The odometer of a strided copy over `shape`: the next index of dims [0, rank - 1) but `skip`
 * (-1: none), the source and destination offsets *so and *to moved with it. */
static void next_row(int rank, int skip, const int64_t *shape, const int64_t *src_stride, const int64_t *dst_stride,
                     int64_t *idx, int64_t *so, int64_t *to)
{
    for (int d = rank - 2; d >= 0; d--) {
        if (d == skip) continue;
        idx[d]++;
        *so += src_stride[d];
        *to += dst_stride[d];
        if (idx[d] < shape[d]) return;
        *so -= src_stride[d] * shape[d];
        *to -= dst_stride[d] * shape[d];
        idx[d] = 0;
    }
}

typedef float transpose_vec __attribute__((vector_size(16)));
typedef int32_t transpose_lanes __attribute__((vector_size(16)));

/* The 4 x 4 floats a[i][j] = src[i + j * ss] written as dst[i * ti + j]: four rows loaded,
 * transposed in registers by shuffles (x86 unpck/shufps, NEON zip/uzp), four rows stored. */
static MRVL_ALWAYS_INLINE void transpose_4x4_f32(const float *src, int64_t ss, float *dst, int64_t ti)
{
    transpose_vec r[4], t[4];
    for (int j = 0; j < 4; j++) memcpy(&r[j], src + j * ss, sizeof r[j]);
#if defined(__clang__)
    t[0] = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5);
    t[1] = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
    t[2] = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5);
    t[3] = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
    r[0] = __builtin_shufflevector(t[0], t[2], 0, 1, 4, 5);
    r[1] = __builtin_shufflevector(t[0], t[2], 2, 3, 6, 7);
    r[2] = __builtin_shufflevector(t[1], t[3], 0, 1, 4, 5);
    r[3] = __builtin_shufflevector(t[1], t[3], 2, 3, 6, 7);
#else
    t[0] = __builtin_shuffle(r[0], r[1], (transpose_lanes){0, 4, 1, 5});
    t[1] = __builtin_shuffle(r[0], r[1], (transpose_lanes){2, 6, 3, 7});
    t[2] = __builtin_shuffle(r[2], r[3], (transpose_lanes){0, 4, 1, 5});
    t[3] = __builtin_shuffle(r[2], r[3], (transpose_lanes){2, 6, 3, 7});
    r[0] = __builtin_shuffle(t[0], t[2], (transpose_lanes){0, 1, 4, 5});
    r[1] = __builtin_shuffle(t[0], t[2], (transpose_lanes){2, 3, 6, 7});
    r[2] = __builtin_shuffle(t[1], t[3], (transpose_lanes){0, 1, 4, 5});
    r[3] = __builtin_shuffle(t[1], t[3], (transpose_lanes){2, 3, 6, 7});
#endif
    for (int i = 0; i < 4; i++) memcpy(dst + i * ti, &r[i], sizeof r[i]);
}

/* mrvl_copy_nd of floats whose source is contiguous along dim `inner`, not along the last
 * (a transpose): the other dims by an odometer, then (inner, last) in square blocks, read
 * along inner and written along the last, so that both sides of a block stay in a few cache
 * lines (copied row by row, every read would touch a line of its own); within a block, 4 x 4
 * tiles through registers where the destination is contiguous along the last dim. Not
 * inlined: with the shapes constant, gcc warns of loop bounds it cannot prove safe. */
MRVL_NOINLINE static void copy_transposed_f32(int rank, const int64_t *shape, const float *src,
                                              const int64_t *src_stride, float *dst, const int64_t *dst_stride,
                                              int inner)
{
    int64_t idx[MRVL_MAX_RANK] = {0}, outer = 1, so = 0, to = 0;
    int64_t rows = shape[inner], cols = shape[rank - 1], ss = src_stride[rank - 1];
    int64_t ti = dst_stride[inner], ts = dst_stride[rank - 1];
    for (int d = 0; d < rank - 1; d++) outer *= d == inner ? 1 : shape[d];
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i0 = 0; i0 < rows; i0 += MRVL_TRANSPOSE_BLOCK)
            for (int64_t j0 = 0; j0 < cols; j0 += MRVL_TRANSPOSE_BLOCK) {
                int64_t i1 = min_i64(rows, i0 + MRVL_TRANSPOSE_BLOCK), j1 = min_i64(cols, j0 + MRVL_TRANSPOSE_BLOCK);
                int64_t i4 = ts == 1 ? i0 + (i1 - i0) / 4 * 4 : i0, j4 = ts == 1 ? j0 + (j1 - j0) / 4 * 4 : j0;
                for (int64_t i = i0; i < i4; i += 4)
                    for (int64_t j = j0; j < j4; j += 4)
                        transpose_4x4_f32(src + so + i + j * ss, ss, dst + to + i * ti + j, ti);
                for (int64_t j = j0; j < j1; j++)
                    for (int64_t i = j < j4 ? i4 : i0; i < i1; i++) dst[to + i * ti + j * ts] = src[so + i + j * ss];
            }
        next_row(rank, inner, shape, src_stride, dst_stride, idx, &so, &to);
    }
}

/* The same copy over fewer dims: size-1 dims dropped, and a dim merged into the next where
 * both sides step over the two as over one (a transpose of NHWC's H and W stays (H * W)). */
static int merged_copy_dims(int rank, const int64_t *shape, const int64_t *src_stride, const int64_t *dst_stride,
                            int64_t *m_shape, int64_t *m_src, int64_t *m_dst)
{
    int n = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        if (n > 0 && m_src[n - 1] == src_stride[d] * shape[d] && m_dst[n - 1] == dst_stride[d] * shape[d]) {
            m_shape[n - 1] *= shape[d];
            m_src[n - 1] = src_stride[d];
            m_dst[n - 1] = dst_stride[d];
            continue;
        }
        m_shape[n] = shape[d];
        m_src[n] = src_stride[d];
        m_dst[n] = dst_stride[d];
        n++;
    }
    return n;
}

/* dst[i] = src[i] over `shape`, each side with its own strides (elements); a transpose of
 * floats in blocks (copy_transposed_f32). */
static void mrvl_copy_nd(int rank, const int64_t *shape_in, const void *src, const int64_t *src_in, void *dst,
                         const int64_t *dst_in, size_t elem)
{
    int64_t shape[MRVL_MAX_RANK], src_stride[MRVL_MAX_RANK], dst_stride[MRVL_MAX_RANK];
    for (int d = 0; d < rank; d++)
        if (shape_in[d] == 0) return;
    if (rank > 0) {
        rank = merged_copy_dims(rank, shape_in, src_in, dst_in, shape, src_stride, dst_stride);
        if (rank == 0) { /* one element */
            memcpy(dst, src, elem);
            return;
        }
    }
    if (elem == 4 && rank >= 2 && src_stride[rank - 1] != 1 && shape[rank - 1] > 1)
        for (int d = 0; d < rank - 1; d++)
            if (src_stride[d] == 1 && shape[d] > 1) {
                copy_transposed_f32(rank, shape, src, src_stride, dst, dst_stride, d);
                return;
            }
    const char *s = (const char *)src;
    char *t = (char *)dst;
    int64_t idx[MRVL_MAX_RANK] = {0}, total = 1, so = 0, to = 0;
    for (int d = 0; d < rank; d++) total *= shape[d];
    if (rank == 0) {
        if (total) memcpy(t, s, elem);
        return;
    }
    int64_t last = shape[rank - 1], ss = src_stride[rank - 1], ts = dst_stride[rank - 1];
    for (int64_t r = 0; r < total / last; r++) {
        if (ss == 1 && ts == 1) {
            memcpy(t + to * (int64_t)elem, s + so * (int64_t)elem, (size_t)last * elem);
        } else if (elem == 4) {
            const float *sf = (const float *)(const void *)(s + so * 4);
            float *tf = (float *)(void *)(t + to * 4);
            for (int64_t j = 0; j < last; j++) tf[j * ts] = sf[j * ss];
        } else {
            for (int64_t j = 0; j < last; j++) memcpy(t + (to + j * ts) * (int64_t)elem, s + (so + j * ss) * (int64_t)elem, elem);
        }
        next_row(rank, -1, shape, src_stride, dst_stride, idx, &so, &to);
    }
}

/* y (outer, count, inner) = data (outer, dim, inner) at `indices` (count, i32 or i64). */
static int mrvl_gather(int64_t outer, int64_t dim, int64_t inner, const void *data, int64_t count,
                const void *indices, int indices_are_i64, void *y, size_t elem)
{
    const char *d = (const char *)data;
    char *out = (char *)y;
    size_t row = (size_t)inner * elem;
    for (int64_t i = 0; i < count; i++) {
        int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
        if (k < 0) k += dim;
        if (k < 0 || k >= dim) return MRVL_ERR_INDEX;
    }
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < count; i++) {
            int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
            if (k < 0) k += dim;
            memcpy(out + (o * count + i) * (int64_t)row, d + (o * dim + k) * (int64_t)row, row);
        }
    }
    return MRVL_OK;
}

/* GatherElements: y (`shape`, the indices' shape) at position p = data at p, but along `axis`
 * at indices[p] (negative: from the end); data has `data_shape`, the same rank. Every index is
 * checked before anything is written. */
static int mrvl_gather_elements(int rank, const int64_t *data_shape, const int64_t *shape, int axis,
                                const void *data, const void *indices, int indices_are_i64, void *y, size_t elem)
{
    const char *d = (const char *)data;
    char *out = (char *)y;
    int64_t stride[MRVL_MAX_RANK], idx[MRVL_MAX_RANK] = {0}, total = 1, step = 1, offset = 0;
    int64_t dim = data_shape[axis];
    for (int i = rank - 1; i >= 0; i--) {
        stride[i] = step;
        step *= data_shape[i];
        total *= shape[i];
    }
    for (int64_t i = 0; i < total; i++) {
        int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
        if (k < -dim || k >= dim) return MRVL_ERR_INDEX;
    }
    for (int64_t i = 0; i < total; i++) {
        int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
        if (k < 0) k += dim;
        memcpy(out + i * (int64_t)elem, d + (offset + k * stride[axis]) * (int64_t)elem, elem);
        for (int j = rank - 1; j >= 0; j--) {
            idx[j]++;
            if (j != axis) offset += stride[j];
            if (idx[j] < shape[j]) break;
            if (j != axis) offset -= stride[j] * shape[j];
            idx[j] = 0;
        }
    }
    return MRVL_OK;
}

/* An update combined with the element it lands on by ONNX's `reduction` (enum
 * mrvl_scatter_reduction). */
#define MRVL_SCATTER_COMBINE(T, REDUCTION, OLD, NEW)                                             \
    ((REDUCTION) == MRVL_SCATTER_ADD   ? (T)((OLD) + (NEW))                                        \
     : (REDUCTION) == MRVL_SCATTER_MUL ? (T)((OLD) * (NEW))                                        \
     : (REDUCTION) == MRVL_SCATTER_MAX ? ((NEW) > (OLD) ? (NEW) : (OLD))                           \
     : (REDUCTION) == MRVL_SCATTER_MIN ? ((NEW) < (OLD) ? (NEW) : (OLD))                           \
                                       : (NEW))

/* ScatterElements and ScatterND on elements of type T; y starts as a copy of x, every index is
 * checked before anything is written, and updates apply in row-major order.
 *
 * scatter_elements: indices and updates of `shape`, x and y of `data_shape` (one rank); the
 * update at position p goes to p but along `axis` at indices[p].
 * scatter_nd: `count` tuples of `depth` indices (int64) into x's leading dims, each naming a
 * slice of `slice` elements that the next `slice` updates go to. */
#define MRVL_DEFINE_SCATTER(SUFFIX, T)                                                            \
    static int mrvl_scatter_elements_##SUFFIX(int reduction, int rank, const int64_t *data_shape,  \
                                              const int64_t *shape, int axis, const T *x,          \
                                              const void *indices, int indices_are_i64,            \
                                              const T *updates, T *y)                              \
    {                                                                                              \
        int64_t stride[MRVL_MAX_RANK], idx[MRVL_MAX_RANK] = {0}, total = 1, step = 1, offset = 0;  \
        int64_t dim = data_shape[axis];                                                            \
        for (int i = rank - 1; i >= 0; i--) {                                                      \
            stride[i] = step;                                                                      \
            step *= data_shape[i];                                                                 \
            total *= shape[i];                                                                     \
        }                                                                                          \
        for (int64_t i = 0; i < total; i++) {                                                      \
            int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i]; \
            if (k < -dim || k >= dim) return MRVL_ERR_INDEX;                                       \
        }                                                                                          \
        memcpy(y, x, (size_t)step * sizeof(T));                                                    \
        for (int64_t i = 0; i < total; i++) {                                                      \
            int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i]; \
            T *at = y + offset + (k < 0 ? k + dim : k) * stride[axis];                             \
            *at = MRVL_SCATTER_COMBINE(T, reduction, *at, updates[i]);                             \
            for (int j = rank - 1; j >= 0; j--) {                                                  \
                idx[j]++;                                                                          \
                if (j != axis) offset += stride[j];                                                \
                if (idx[j] < shape[j]) break;                                                      \
                if (j != axis) offset -= stride[j] * shape[j];                                     \
                idx[j] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
        return MRVL_OK;                                                                            \
    }                                                                                              \
    static int mrvl_scatter_nd_##SUFFIX(int reduction, int rank, const int64_t *data_shape,        \
                                        int64_t count, int depth, int64_t slice, const T *x,       \
                                        const int64_t *indices, const T *updates, T *y)            \
    {                                                                                              \
        int64_t stride[MRVL_MAX_RANK], total = 1;                                                  \
        for (int i = rank - 1; i >= 0; i--) {                                                      \
            stride[i] = total;                                                                     \
            total *= data_shape[i];                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < count * depth; i++) {                                              \
            int64_t dim = data_shape[i % depth];                                                   \
            if (indices[i] < -dim || indices[i] >= dim) return MRVL_ERR_INDEX;                     \
        }                                                                                          \
        memcpy(y, x, (size_t)total * sizeof(T));                                                   \
        for (int64_t i = 0; i < count; i++) {                                                      \
            int64_t offset = 0;                                                                    \
            for (int d = 0; d < depth; d++) {                                                      \
                int64_t k = indices[i * depth + d];                                                \
                offset += (k < 0 ? k + data_shape[d] : k) * stride[d];                             \
            }                                                                                      \
            for (int64_t s = 0; s < slice; s++)                                                    \
                y[offset + s] = MRVL_SCATTER_COMBINE(T, reduction, y[offset + s], updates[i * slice + s]); \
        }                                                                                          \
        return MRVL_OK;                                                                            \
    }

MRVL_DEFINE_SCATTER(f32, float)
MRVL_DEFINE_SCATTER(f64, double)
MRVL_DEFINE_SCATTER(i8, int8_t)
MRVL_DEFINE_SCATTER(i16, int16_t)
MRVL_DEFINE_SCATTER(i32, int32_t)
MRVL_DEFINE_SCATTER(i64, int64_t)
MRVL_DEFINE_SCATTER(u8, uint8_t)
MRVL_DEFINE_SCATTER(u16, uint16_t)
MRVL_DEFINE_SCATTER(u32, uint32_t)
MRVL_DEFINE_SCATTER(u64, uint64_t)

/* Trilu over `batch` matrices (rows, cols): row r keeps columns c with c - r >= k (upper) or
 * c - r <= k (lower), the rest zero bytes (zero in every element type). */
static void mrvl_trilu(int upper, int64_t k, int64_t batch, int64_t rows, int64_t cols, const void *x, void *y,
                       size_t elem)
{
    const char *in = (const char *)x;
    char *out = (char *)y;
    for (int64_t m = 0; m < batch * rows; m++) {
        int64_t r = m % rows, from = upper ? r + k : 0, to = upper ? cols : r + k + 1;
        from = from < 0 ? 0 : (from > cols ? cols : from);
        to = to < from ? from : (to > cols ? cols : to);
        int64_t row = m * cols * (int64_t)elem;
        memset(out + row, 0, (size_t)from * elem);
        memcpy(out + row + from * (int64_t)elem, in + row + from * (int64_t)elem, (size_t)(to - from) * elem);
        memset(out + row + to * (int64_t)elem, 0, (size_t)(cols - to) * elem);
    }
}

/* The input index of output index `o` along a dim of `size` padded by `before`, or -1. */
static int64_t pad_source(int mode, int64_t o, int64_t before, int64_t size)
{
    int64_t i = o - before;
    if (i >= 0 && i < size) return i;
    switch (mode) {
    case MRVL_PAD_EDGE: return i < 0 ? 0 : size - 1;
    case MRVL_PAD_WRAP: i %= size; return i < 0 ? i + size : i;
    case MRVL_PAD_REFLECT:
        if (size == 1) return 0;
        {
            int64_t period = 2 * (size - 1);
            i %= period;
            if (i < 0) i += period;
            return i < size ? i : period - i;
        }
    default: return -1;
    }
}

/* pads: rank begins then rank ends (negative: crop); fill: one element (constant mode). */
static void mrvl_pad(int mode, int rank, const int64_t *in_shape, const int64_t *out_shape, const int64_t *pads,
              const void *fill, const void *x, void *y, size_t elem)
{
    const char *in = (const char *)x;
    char *out = (char *)y;
    int64_t idx[MRVL_MAX_RANK] = {0}, in_stride[MRVL_MAX_RANK], total = 1;
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        in_stride[d] = s;
        s *= in_shape[d];
    }
    for (int d = 0; d < rank; d++) total *= out_shape[d];
    for (int64_t o = 0; o < total; o++) {
        int64_t src = 0;
        for (int d = 0; d < rank && src >= 0; d++) {
            int64_t i = pad_source(mode, idx[d], pads[d], in_shape[d]);
            src = i < 0 ? -1 : src + i * in_stride[d];
        }
        memcpy(out + o * (int64_t)elem, src < 0 ? (const char *)fill : in + src * (int64_t)elem, elem);
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < out_shape[d]) break;
            idx[d] = 0;
        }
    }
}


/* --- Training-mode Dropout ------------------------------------------------------------- */

/* Matsumoto and Nishimura's Mersenne Twister MT19937, seeded and read as numpy's legacy
 * RandomState does (np.random.seed(s); np.random.uniform), so that a seeded Dropout draws the
 * mask ONNX's reference draws. */
#define MRVL_MT_WORDS 624
#define MRVL_MT_SHIFT 397

typedef struct {
    uint32_t word[MRVL_MT_WORDS];
    int next; /* the next word to temper; MRVL_MT_WORDS: the state needs its twist */
} mrvl_mt19937;

/* Knuth's multiplicative initialisation (init_genrand), numpy's seeding for an integer seed. */
static void mt19937_seed(mrvl_mt19937 *mt, uint32_t seed)
{
    mt->word[0] = seed;
    for (uint32_t i = 1; i < MRVL_MT_WORDS; i++)
        mt->word[i] = 1812433253u * (mt->word[i - 1] ^ (mt->word[i - 1] >> 30)) + i;
    mt->next = MRVL_MT_WORDS;
}

static uint32_t mt19937_next(mrvl_mt19937 *mt)
{
    if (mt->next == MRVL_MT_WORDS) {
        /* The twist in place: words past i are still the old ones, those before the new. */
        for (int i = 0; i < MRVL_MT_WORDS; i++) {
            uint32_t y = (mt->word[i] & 0x80000000u) | (mt->word[(i + 1) % MRVL_MT_WORDS] & 0x7fffffffu);
            mt->word[i] = mt->word[(i + MRVL_MT_SHIFT) % MRVL_MT_WORDS] ^ (y >> 1) ^ (y & 1u ? 0x9908b0dfu : 0u);
        }
        mt->next = 0;
    }
    uint32_t y = mt->word[mt->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* A double in [0, 1) with 53 random bits from two draws, the first giving the high 27. */
static double mt19937_double(mrvl_mt19937 *mt)
{
    uint32_t high = mt19937_next(mt) >> 5;
    uint32_t low = mt19937_next(mt) >> 6;
    return ((double)high * 67108864.0 + (double)low) / 9007199254740992.0;
}

/* y = x * mask / (1 - ratio) over `count` elements, the mask drawn as ONNX's reference draws
 * it: element i kept when the i-th uniform double of MT19937(seed) is >= ratio. `mask` (bool,
 * one byte) may be NULL. A dropped element is x * 0, as the reference's product (NaN for an
 * infinite x). */
static void mrvl_dropout_f32(int64_t count, float ratio, uint32_t seed, const float *x, float *y, uint8_t *mask)
{
    mrvl_mt19937 mt;
    float scale = 1.0f / (1.0f - ratio);
    mt19937_seed(&mt, seed);
    for (int64_t i = 0; i < count; i++) {
        int keep = mt19937_double(&mt) >= (double)ratio;
        y[i] = x[i] * (keep ? scale : 0.0f);
        if (mask) mask[i] = (uint8_t)keep;
    }
}

/* --- Along one axis: arg max and min, running sums and products, top-k; Range ------------- */

/* The index of the maximum (is_max) or minimum along the middle dim of x (outer, axis, inner)
 * into y (outer, inner): the first of equal extremes, or the last with `last`; a NaN counts as
 * the extreme (numpy's argmax and argmin; with `last`, the last NaN). */
#define MRVL_DEFINE_ARG_REDUCE(NAME, T, ISNAN)                                                    \
    static void NAME(int is_max, int last, int64_t outer, int64_t axis, int64_t inner, const T *x, \
                     int64_t *y)                                                                   \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                const T *in = x + o * axis * inner + i;                                            \
                T best = in[0];                                                                    \
                int64_t at = 0;                                                                    \
                for (int64_t a = 1; a < axis; a++) {                                               \
                    T v = in[a * inner];                                                           \
                    int wins = ISNAN(best) ? last && ISNAN(v)                                      \
                               : ISNAN(v) || (is_max ? v > best : v < best) || (last && v == best); \
                    if (wins) {                                                                    \
                        best = v;                                                                  \
                        at = a;                                                                    \
                    }                                                                              \
                }                                                                                  \
                y[o * inner + i] = at;                                                             \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_f32, float, isnan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_f64, double, isnan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_i8, int8_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_i16, int16_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_i32, int32_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_i64, int64_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_u8, uint8_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_u16, uint16_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_u32, uint32_t, never_nan)
MRVL_DEFINE_ARG_REDUCE(mrvl_arg_reduce_u64, uint64_t, never_nan)

/* Running sums (or products, is_prod) along the middle dim of (outer, axis, inner), from the
 * end with `reverse`; `exclusive` leaves each element itself out (the first is 0, or 1). One
 * row of `inner` elements at a time from the row before, so the loops vectorise. */
#define MRVL_DEFINE_CUMULATIVE(NAME, T)                                                           \
    static void NAME(int is_prod, int exclusive, int reverse, int64_t outer, int64_t axis,         \
                     int64_t inner, const T *x, T *y)                                              \
    {                                                                                              \
        int64_t step = reverse ? -inner : inner;                                                   \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            int64_t first = o * axis * inner + (reverse ? (axis - 1) * inner : 0);                 \
            for (int64_t a = 0; a < axis; a++) {                                                   \
                const T *in = x + first + a * step;                                                \
                T *out = y + first + a * step;                                                     \
                if (a == 0) {                                                                      \
                    for (int64_t i = 0; i < inner; i++) out[i] = exclusive ? (T)is_prod : in[i];   \
                    continue;                                                                      \
                }                                                                                  \
                const T *before = out - step, *term = exclusive ? in - step : in;                  \
                if (is_prod)                                                                       \
                    for (int64_t i = 0; i < inner; i++) out[i] = (T)(before[i] * term[i]);         \
                else                                                                               \
                    for (int64_t i = 0; i < inner; i++) out[i] = (T)(before[i] + term[i]);         \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_CUMULATIVE(mrvl_cumulative_f32, float)
MRVL_DEFINE_CUMULATIVE(mrvl_cumulative_f64, double)
MRVL_DEFINE_CUMULATIVE(mrvl_cumulative_i32, int32_t)
MRVL_DEFINE_CUMULATIVE(mrvl_cumulative_i64, int64_t)
MRVL_DEFINE_CUMULATIVE(mrvl_cumulative_u32, uint32_t)
MRVL_DEFINE_CUMULATIVE(mrvl_cumulative_u64, uint64_t)

/* The k largest (or smallest) along the middle dim of x (outer, axis, inner), best first,
 * into values and indices (outer, k, inner). Each line's indices are merge sorted (bottom up,
 * in `scratch`: 2 * axis int64s); the sort is stable, so of equal elements the lower index
 * comes first. A NaN is larger than every number (numpy's sort order, ONNX's reference). */
#define MRVL_DEFINE_TOP_K(NAME, T, ISNAN)                                                         \
    static void NAME(int largest, int64_t outer, int64_t axis, int64_t inner, int64_t k, const T *x, \
                     T *values, int64_t *indices, int64_t *scratch)                                \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                const T *in = x + o * axis * inner + i;                                            \
                int64_t *order = scratch, *merged = scratch + axis;                                \
                for (int64_t a = 0; a < axis; a++) order[a] = a;                                   \
                for (int64_t width = 1; width < axis; width *= 2) {                                \
                    for (int64_t lo = 0; lo < axis; lo += 2 * width) {                             \
                        int64_t mid = min_i64(lo + width, axis), hi = min_i64(lo + 2 * width, axis); \
                        int64_t p = lo, q = mid, t = lo;                                           \
                        while (p < mid && q < hi) {                                                \
                            T u = in[order[q] * inner], v = in[order[p] * inner];                  \
                            int nu = ISNAN(u) != 0, nv = ISNAN(v) != 0;                            \
                            /* the right run's head goes first only when strictly better */        \
                            int right = largest ? (nu && !nv) || (!nu && !nv && u > v)             \
                                                : (!nu && nv) || (!nu && !nv && u < v);            \
                            merged[t++] = right ? order[q++] : order[p++];                         \
                        }                                                                          \
                        while (p < mid) merged[t++] = order[p++];                                  \
                        while (q < hi) merged[t++] = order[q++];                                   \
                    }                                                                              \
                    int64_t *swap = order;                                                         \
                    order = merged;                                                                \
                    merged = swap;                                                                 \
                }                                                                                  \
                for (int64_t j = 0; j < k; j++) {                                                  \
                    values[(o * k + j) * inner + i] = in[order[j] * inner];                        \
                    indices[(o * k + j) * inner + i] = order[j];                                   \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_TOP_K(mrvl_top_k_f32, float, isnan)
MRVL_DEFINE_TOP_K(mrvl_top_k_f64, double, isnan)
MRVL_DEFINE_TOP_K(mrvl_top_k_i8, int8_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_i16, int16_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_i32, int32_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_i64, int64_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_u8, uint8_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_u16, uint16_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_u32, uint32_t, never_nan)
MRVL_DEFINE_TOP_K(mrvl_top_k_u64, uint64_t, never_nan)

/* Range: y[i] = start + i * delta for `count` elements, computed in ACC (double for floats, so
 * no error builds up along the row; exact for integers). */
#define MRVL_DEFINE_RANGE(NAME, T, ACC)                                                           \
    static void NAME(int64_t count, const T *start, const T *delta, T *y)                          \
    {                                                                                              \
        ACC first = (ACC)*start, step = (ACC)*delta;                                               \
        for (int64_t i = 0; i < count; i++) y[i] = (T)(first + (ACC)i * step);                     \
    }

MRVL_DEFINE_RANGE(mrvl_range_f32, float, double)
MRVL_DEFINE_RANGE(mrvl_range_f64, double, double)
MRVL_DEFINE_RANGE(mrvl_range_i16, int16_t, int64_t)
MRVL_DEFINE_RANGE(mrvl_range_i32, int32_t, int64_t)
MRVL_DEFINE_RANGE(mrvl_range_i64, int64_t, int64_t)
