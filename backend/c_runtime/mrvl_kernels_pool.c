/* mrvl_kernels_pool.c: pooling: max, average and Lp over windows, max with indices, global pools.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

/* Max or average over each window of x (n, c, in). Windows are clipped to the input; an
 * average divides by the elements inside it, or by those inside the padded input with
 * count_include_pad. The bounds-checked window loop, for rows wider than MRVL_POOL_ROW. */
static void pool_window_f32(const mrvl_pool_params *p, const float *x, float *y)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    const int64_t *pb = p->pad_begin, *pe = p->pad_end;
    for (int64_t nc = 0; nc < p->n * p->c; nc++) {
        const float *plane = x + nc * volume3(in);
        float *o = y + nc * volume3(out);
        for (int64_t oz = 0; oz < out[0]; oz++) {
            for (int64_t oy = 0; oy < out[1]; oy++) {
                for (int64_t ox = 0; ox < out[2]; ox++) {
                    float acc = p->is_max ? -INFINITY : 0.0f;
                    int64_t valid = 0, padded = 0;
                    for (int64_t kz = 0; kz < k[0]; kz++) {
                        int64_t iz = oz * s[0] - pb[0] + kz * d[0];
                        int in_z = iz >= 0 && iz < in[0], pad_z = iz >= -pb[0] && iz < in[0] + pe[0];
                        for (int64_t ky = 0; ky < k[1]; ky++) {
                            int64_t iy = oy * s[1] - pb[1] + ky * d[1];
                            int in_y = in_z && iy >= 0 && iy < in[1];
                            int pad_y = pad_z && iy >= -pb[1] && iy < in[1] + pe[1];
                            for (int64_t kx = 0; kx < k[2]; kx++) {
                                int64_t ix = ox * s[2] - pb[2] + kx * d[2];
                                if (pad_y && ix >= -pb[2] && ix < in[2] + pe[2]) padded++;
                                if (!in_y || ix < 0 || ix >= in[2]) continue;
                                float v = plane[(iz * in[1] + iy) * in[2] + ix];
                                valid++;
                                if (p->is_max) acc = v > acc ? v : acc;
                                else acc += v;
                            }
                        }
                    }
                    if (!p->is_max) {
                        int64_t count = p->count_include_pad ? padded : valid;
                        acc = count ? acc / (float)count : 0.0f;
                    }
                    o[(oz * out[1] + oy) * out[2] + ox] = acc;
                }
            }
        }
    }
}

/* Floats of the padded rows (V) and of a band of them that mrvl_pool_f32 works in, on the
 * stack; wider padded rows (rare: a pooled row more than 2048 elements wide) take the
 * bounds-checked loop. */
#define MRVL_POOL_ROW 2048
#define MRVL_POOL_BAND 4096
/* At most this many rows in a band (the averages' row counts are kept per row). */
#define MRVL_POOL_BAND_ROWS 256
/* Input rows the vertical pass reduces in registers before it stores (more: in groups). */
#define MRVL_POOL_TAPS_ROWS 8

/* How many of a window's taps o * stride - pad + k * dilation (k < kernel) lie in [lo, hi). */
static int64_t pool_taps_in(int64_t o, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad, int64_t lo,
                            int64_t hi)
{
    int64_t count = 0;
    for (int64_t k = 0; k < kernel; k++) {
        int64_t i = o * stride - pad + k * dilation;
        count += i >= lo && i < hi;
    }
    return count;
}

/* Max or average over each window of x (n, c, in). Windows are clipped to the input; an
 * average divides by the elements inside it, or by those inside the padded input with
 * count_include_pad; NaN never wins a max.
 *
 * Separable, over whole bands of output rows (which may span several planes, so small
 * planes cost no more per element than large ones) and without a bounds check per tap:
 * 1. vertically: each output row's input rows reduced (max or sum) into one row V of the
 *    padded width, its padding -inf (max) or 0 (sum), NaN replaced by -inf; V's rows lie
 *    `wp` floats apart, wp a multiple of the horizontal stride;
 * 2. horizontally, over the band as one flat array: T[j] = reduce of V[s * j + k] over the
 *    taps k. Since wp = s * tw, T's row r starts at r * tw: its first `out` elements are the
 *    row's outputs and the rest are discarded. With stride 1 every tap is a contiguous load;
 *    with stride 2 the even and odd elements of V are split apart (a shuffle per vector)
 *    and every tap is again a whole vector;
 * 3. each row's outputs stored (an average divided by its window's count: the product of
 *    its valid rows and its valid columns).
 * Vectors read and write past a row's end where that lands in the band's buffers or in
 * later rows of the same planes, which are written afterwards. */
typedef struct {
    const mrvl_pool_params *p;
    const float *x;
    int64_t x_size; /* floats of x */
    float *y;
    const float *cols; /* an average's valid columns per output column */
} pool_args;

/* Output rows [first, first + rows) of all planes (counted over n, c, out[0], out[1]) into
 * V: vertical pass. Returns through `counts` each row's valid (or padded-valid) rows. */
static void pool_band_rows(const pool_args *a, int64_t first, int64_t rows, int64_t wp, float *v, float *counts)
{
    const mrvl_pool_params *p = a->p;
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    const int64_t *pb = p->pad_begin, *pe = p->pad_end;
    int is_max = p->is_max;
    float fill = is_max ? -INFINITY : 0.0f;
    int64_t span = (out[2] - 1) * s[2] + (k[2] - 1) * d[2] + 1;
    int64_t x0 = pb[2] < span ? pb[2] : span, x1 = min_i64(span, pb[2] + in[2]); /* the input's columns */
    int64_t width = x1 - x0, chunks = (width + MRVL_POOL_VF - 1) / MRVL_POOL_VF;
    pool_vec vfill = fill + (pool_vec){0};
    /* The first row's plane, depth and row; then counted up (no division per row). */
    int64_t oy = first % out[1], oz = first / out[1] % out[0];
    const float *plane = a->x + first / (out[0] * out[1]) * volume3(in);
    for (int64_t r = 0; r < rows; r++, v += wp) {
        if (r > 0 && ++oy == out[1]) {
            oy = 0;
            if (++oz == out[0]) {
                oz = 0;
                plane += volume3(in);
            }
        }
        /* Common case first: a 2-D window wholly inside the input, its rows w apart, each
         * vector reduced in registers (the general loop below costs several times more
         * per row, which small planes feel). */
        int64_t iz0 = oz * s[0] - pb[0], iy0 = oy * s[1] - pb[1], w = d[1] * in[2];
        if (k[0] == 1 && iz0 >= 0 && iz0 < in[0] && iy0 >= 0 && iy0 + (k[1] - 1) * d[1] < in[1]) {
            const float *row = plane + iz0 * in[1] * in[2] + iy0 * in[2] + (x0 - pb[2]);
            if (row - a->x + (k[1] - 1) * w + chunks * MRVL_POOL_VF <= a->x_size) {
                float *dst = v + x0;
                for (int64_t c = 0; c < chunks * MRVL_POOL_VF; c += MRVL_POOL_VF) {
                    const float *src = row + c;
                    pool_vec acc = is_max ? pool_max(pool_load(src), vfill) : pool_load(src);
                    MRVL_MCA_BEGIN("pool_rows", 1, MRVL_POOL_VF, MRVL_POOL_VF);
                    for (int64_t t = 1; t < k[1]; t++) {
                        pool_vec x = pool_load(src += w);
                        acc = is_max ? pool_max(x, acc) : acc + x;
                    }
                    MRVL_MCA_END("pool_rows", 1, MRVL_POOL_VF, MRVL_POOL_VF);
                    pool_store(dst + c, acc);
                }
                for (int64_t c = x1; c < wp; c += MRVL_POOL_VF) pool_store(v + c, vfill);
                for (int64_t c = 0; c < x0; c++) v[c] = fill;
                counts[r] = (float)k[1];
                continue;
            }
        }
        /* The row's input rows, reduced a few at a time in registers, vector by vector. */
        const float *src[MRVL_POOL_TAPS_ROWS];
        int64_t valid = 0, padded = 0, n = 0, whole = chunks;
        for (int64_t c = 0; c < x0; c++) v[c] = fill;
        for (int64_t kz = 0; kz < k[0]; kz++) {
            int64_t iz = oz * s[0] - pb[0] + kz * d[0];
            int in_z = iz >= 0 && iz < in[0], pad_z = iz >= -pb[0] && iz < in[0] + pe[0];
            for (int64_t ky = 0; ky < k[1]; ky++) {
                int64_t iy = oy * s[1] - pb[1] + ky * d[1];
                padded += pad_z && iy >= -pb[1] && iy < in[1] + pe[1];
                if (in_z && iy >= 0 && iy < in[1]) {
                    const float *row = plane + (iz * in[1] + iy) * in[2] + (x0 - pb[2]);
                    /* Whole vectors, but not past the end of x. */
                    if (row - a->x + chunks * MRVL_POOL_VF > a->x_size) whole = width / MRVL_POOL_VF;
                    src[n++] = row;
                    valid++;
                }
                if (n == 0 || (n < MRVL_POOL_TAPS_ROWS && (kz < k[0] - 1 || ky < k[1] - 1))) continue;
                /* Reduce the n rows collected into the row (the first ones store it). */
                int fresh = valid == n;
                float *dst = v + x0;
                for (int64_t i = 0; i < whole; i++) {
                    int64_t c = i * MRVL_POOL_VF;
                    pool_vec acc = fresh ? (is_max ? pool_max(pool_load(src[0] + c), vfill) : pool_load(src[0] + c))
                                         : (is_max ? pool_max(pool_load(src[0] + c), pool_load(dst + c))
                                                   : pool_load(dst + c) + pool_load(src[0] + c));
                    for (int64_t t = 1; t < n; t++) {
                        pool_vec x = pool_load(src[t] + c);
                        acc = is_max ? pool_max(x, acc) : acc + x;
                    }
                    pool_store(dst + c, acc);
                }
                for (int64_t c = whole * MRVL_POOL_VF; c < width; c++) {
                    float acc = fresh ? fill : dst[c];
                    for (int64_t t = 0; t < n; t++) acc = is_max ? (src[t][c] > acc ? src[t][c] : acc) : acc + src[t][c];
                    dst[c] = acc;
                }
                n = 0;
            }
        }
        if (valid == 0)
            for (int64_t c = x0; c < x1; c++) v[c] = fill;
        for (int64_t c = x1; c < wp; c += MRVL_POOL_VF) pool_store(v + c, vfill);
        counts[r] = (float)(p->count_include_pad ? padded : valid);
    }
}

/* T[j] for j < n: the reduce of V[s * j + t * d] over the taps t < kernel (V holds no NaN). */
static void pool_band_across(int is_max, int64_t n, int64_t kernel, int64_t s, int64_t d, const float *v, float *t)
{
    if (d == 1 && s == 2) {
        for (int64_t j = 0; j < n; j += MRVL_POOL_VF, t += MRVL_POOL_VF) {
            const float *src = v + 2 * j;
            pool_vec acc = pool_load(src), even, odd;
            if (kernel == 1) {
                pool_deinterleave(acc, pool_load(src + MRVL_POOL_VF), &even, &odd);
                pool_store(t, even);
                continue;
            }
            int first = 1;
            for (int64_t tap = 0; tap < kernel; tap += 2, src += 2) {
                pool_deinterleave(pool_load(src), pool_load(src + MRVL_POOL_VF), &even, &odd);
                if (first) acc = even;
                else acc = is_max ? pool_max(even, acc) : acc + even;
                first = 0;
                if (tap + 1 < kernel) acc = is_max ? pool_max(odd, acc) : acc + odd;
            }
            pool_store(t, acc);
        }
    } else if (d == 1 && s == 1) {
        for (int64_t j = 0; j < n; j += MRVL_POOL_VF, t += MRVL_POOL_VF) {
            pool_vec acc = pool_load(v + j);
            for (int64_t tap = 1; tap < kernel; tap++) {
                pool_vec x = pool_load(v + j + tap);
                acc = is_max ? pool_max(x, acc) : acc + x;
            }
            pool_store(t, acc);
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            float acc = v[s * j];
            for (int64_t tap = 1; tap < kernel; tap++) {
                float x = v[s * j + tap * d];
                acc = is_max ? (x > acc ? x : acc) : acc + x;
            }
            t[j] = acc;
        }
    }
}

/* The reduced row `src` (padded to whole vectors) as `count` outputs at dst: averages divided
 * by their windows' taps, rows_in x cols[c] (0 where a window holds none); the last vector
 * cut at y_end. Inlined where is_max is a constant. */
static MRVL_ALWAYS_INLINE void pool_store_row(float *dst, const float *src, int64_t count, int is_max, float rows_in,
                                              const float *cols, const float *y_end)
{
    for (int64_t c = 0; c < count; c += MRVL_POOL_VF) {
        pool_vec o = pool_load(src + c);
        if (!is_max) {
            pool_vec n = rows_in * pool_load(cols + c);
#if defined(__GNUC__)
            o = (pool_vec)((pool_mask)(o / n) & (n > 0));
#else
            o = n > 0 ? o / n : 0.0f;
#endif
        }
        if (dst + c + MRVL_POOL_VF <= y_end) pool_store(dst + c, o);
        else pool_store_part(dst + c, o, y_end - dst - c);
    }
}

/* Planes [begin, end) of mrvl_pool_f32 (an mrvl_task over its n * c planes), band by band. */
static void pool_planes(const void *ctx, int64_t begin, int64_t end)
{
    const pool_args *a = ctx;
    const mrvl_pool_params *p = a->p;
    const int64_t *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    int64_t span = (out[2] - 1) * s[2] + (k[2] - 1) * d[2] + 1;
    int64_t tw = (span + s[2] - 1) / s[2], wp = tw * s[2]; /* T's and V's row strides */
    int64_t band_rows = min_i64(MRVL_POOL_BAND_ROWS, MRVL_POOL_BAND / wp);
    /* V's slack: what the horizontal pass reads past a band's rows (and the vertical pass's
     * fill stores write). */
    int64_t slack = (k[2] - 1) * d[2] + 6 * MRVL_POOL_VF;
    float fill = p->is_max ? -INFINITY : 0.0f;
    /* Cache-line aligned: most of V's and T's vectors then lie in one line. */
    MRVL_POOL_ALIGNED float v[MRVL_POOL_BAND + MRVL_POOL_ROW + 6 * MRVL_POOL_VF];
    MRVL_POOL_ALIGNED float t[MRVL_POOL_BAND + 2 * MRVL_POOL_VF];
    float counts[MRVL_POOL_BAND_ROWS];
    int64_t per_plane = out[0] * out[1], last = end * per_plane;
    float *y_end = a->y + last * out[2];
    for (int64_t first = begin * per_plane; first < last; first += band_rows) {
        int64_t rows = min_i64(band_rows, last - first);
        pool_band_rows(a, first, rows, wp, v, counts);
        for (int64_t c = rows * wp; c < rows * wp + slack; c++) v[c] = fill;
        pool_band_across(p->is_max, rows * tw, k[2], s[2], d[2], v, t);
        /* Each row's last vector below may read one vector past the band's T. */
        for (int64_t c = rows * tw; c < rows * tw + MRVL_POOL_VF; c++) t[c] = fill;
        for (int64_t r = 0; r < rows; r++) {
            const float *src = t + r * tw;
            float *dst = a->y + (first + r) * out[2];
            pool_store_row(dst, src, out[2], p->is_max, counts[r], a->cols, y_end);
        }
    }
}

/* The VF columns at src of kh rows w apart, reduced (a max from -inf: NaN never wins). */
static MRVL_ALWAYS_INLINE pool_vec pool_window_column(const float *src, int64_t kh, int64_t w, int is_max)
{
    pool_vec acc = (is_max ? -INFINITY : 0.0f) + (pool_vec){0};
    for (int64_t ky = 0; ky < kh; ky++, src += w) {
        pool_vec x = pool_load(src);
        acc = is_max ? pool_max(x, acc) : acc + x;
    }
    return acc;
}

/* v with its lanes whose input column (col + lane) lies outside [0, width) set to fill. */
static inline pool_vec pool_inside(pool_vec v, int64_t col, int64_t width, pool_vec fill)
{
    if (col >= 0 && col + MRVL_POOL_VF <= width) return v;
#if defined(__GNUC__)
    pool_mask lane = (pool_mask){MRVL_POOL_IOTA} + (int32_t)col;
    return pool_select((lane >= 0) & (lane < (int32_t)width), v, fill);
#else
    return col >= 0 && col < width ? v : fill;
#endif
}

/* Planes [begin, end) of a 2-D pool (in[0] 1) 2 or 3 wide with horizontal stride 2: each vector
 * of VF outputs straight from the input rows, without pool_planes' row buffers. The window's
 * rows are reduced over the 2 * VF columns from 2 * ox - pad (two vectors, and for 3 wide one
 * more): their even elements are the first tap of each output, the odd ones the second, and
 * the even ones moved down one lane (the third vector's first element entering) the third
 * (loaded only where the last lane is an output). With `edges` (padding, or windows past the
 * input's end: ceil mode) a window's rows are those inside the input, and the lanes of
 * columns outside it are set to -inf (max) or 0 (sum) after the rows are reduced; an average
 * divides by its window's rows inside times its columns inside (both counting the padding
 * with count_include_pad). A row whose vectors would read outside x is done a window at a
 * time. Inlined with is_max, the kernel (unless `edges`) and `edges` constant. */
static MRVL_ALWAYS_INLINE void pool_direct_rows(const pool_args *a, int64_t begin, int64_t end, int is_max,
                                                int64_t kh, int64_t kw, int edges)
{
    const mrvl_pool_params *p = a->p;
    const int64_t *in = p->in, *out = p->out, *s = p->stride;
    int64_t w = p->dilation[1] * in[2], top = edges ? p->pad_begin[1] : 0, left = edges ? p->pad_begin[2] : 0;
    int64_t lo = p->count_include_pad ? -top : 0, hi = p->count_include_pad ? in[1] + p->pad_end[1] : in[1];
    float fill = is_max ? -INFINITY : 0.0f, count = (float)(kh * kw);
    pool_vec vfill = fill + (pool_vec){0};
    int64_t reach = (kh - 1) * w + 2 * ((out[2] - 1) / MRVL_POOL_VF * MRVL_POOL_VF) + 3 * MRVL_POOL_VF;
    const float *y_end = a->y + end * out[1] * out[2];
    for (int64_t nc = begin; nc < end; nc++) {
        for (int64_t oy = 0; oy < out[1]; oy++) {
            /* The window's rows inside the input: `rows` from `first` (all kh without edges). */
            int64_t iy = oy * s[1] - top, first = edges && iy < 0 ? -iy : 0;
            int64_t rows = edges ? min_i64(kh, in[1] - iy) - first : kh;
            float rows_in = edges && !is_max ? (float)pool_taps_in(oy, kh, s[1], 1, top, lo, hi) : (float)kh;
            int64_t at = nc * volume3(in) + (iy + first) * in[2] - left; /* of column -left */
            float *dst = a->y + (nc * out[1] + oy) * out[2];
            if ((edges && at < 0) || at + reach > a->x_size) {
                const float *row = a->x + at + left;
                for (int64_t ox = 0; ox < out[2]; ox++) {
                    float acc = fill;
                    for (int64_t ky = 0; ky < rows; ky++)
                        for (int64_t kx = 0; kx < kw; kx++) {
                            int64_t ix = 2 * ox + kx - left;
                            if (ix < 0 || ix >= in[2]) continue;
                            float x = row[ky * w + ix];
                            acc = is_max ? (x > acc ? x : acc) : acc + x;
                        }
                    float n = edges ? rows_in * a->cols[ox] : count;
                    dst[ox] = is_max ? acc : (n > 0.0f ? acc / n : 0.0f);
                }
                continue;
            }
            const float *row = a->x + at;
            /* For 3 wide, the third vector (it feeds the last lane only, and is loaded only
             * where that is an output) is the next vector's first. */
            pool_vec v0 = pool_window_column(row, rows, w, is_max), v2 = vfill;
            if (edges) v0 = pool_inside(v0, -left, in[2], vfill);
            for (int64_t ox = 0; ox < out[2]; ox += MRVL_POOL_VF) {
                const float *src = row + 2 * ox;
                int64_t col = 2 * ox - left;
                if (ox > 0) v0 = kw == 3 ? v2 : pool_window_column(src, rows, w, is_max);
                if (ox > 0 && kw != 3 && edges) v0 = pool_inside(v0, col, in[2], vfill);
                pool_vec v1 = pool_window_column(src + MRVL_POOL_VF, rows, w, is_max), acc, even, odd;
                if (edges) v1 = pool_inside(v1, col + MRVL_POOL_VF, in[2], vfill);
                if (kw == 3) {
                    pool_deinterleave(v0, v1, &even, &odd);
                    acc = is_max ? pool_max(odd, even) : even + odd;
                    v2 = ox + MRVL_POOL_VF <= out[2] ? pool_window_column(src + 2 * MRVL_POOL_VF, rows, w, is_max)
                                                     : vfill;
                    if (edges) v2 = pool_inside(v2, col + 2 * MRVL_POOL_VF, in[2], vfill);
                    pool_vec next = pool_next(even, v2);
                    acc = is_max ? pool_max(next, acc) : acc + next;
                } else {
                    acc = pool_pairs(v0, v1, is_max);
                }
                if (!is_max && edges) { /* a window wholly in the padding averages to 0 */
                    pool_vec n = rows_in * pool_load(a->cols + ox);
                    acc = pool_select(n > 0.0f, acc / n, (pool_vec){0});
                } else if (!is_max) {
                    acc = acc / count;
                }
                /* A row's last vector spills into the next row, written afterwards, but not
                 * past the task's planes (another thread's). */
                if (dst + ox + MRVL_POOL_VF <= y_end) pool_store(dst + ox, acc);
                else pool_store_part(dst + ox, acc, out[2] - ox);
            }
        }
    }
}

static void pool_direct_planes(const void *ctx, int64_t begin, int64_t end)
{
    /* Local copies of the arguments, which the stores to y then cannot alias: GCC keeps the
     * sizes in registers, where it loaded them again per vector (AVX2: SqueezeNet's 3x3/2 pools
     * took 0.8x the time, 2x2/2 on 16 x 256 x 256 0.87x). */
    mrvl_pool_params params = *((const pool_args *)ctx)->p;
    pool_args args = *(const pool_args *)ctx;
    const pool_args *a = &args;
    args.p = &params;
    int is_max = a->p->is_max;
    int64_t kh = a->p->kernel[1], kw = a->p->kernel[2];
    /* Square windows unrolled (the window's rows in registers). */
    if (is_max && kh == 3 && kw == 3) pool_direct_rows(a, begin, end, 1, 3, 3, 0);
    else if (is_max && kh == 2 && kw == 2) pool_direct_rows(a, begin, end, 1, 2, 2, 0);
    else if (!is_max && kh == 3 && kw == 3) pool_direct_rows(a, begin, end, 0, 3, 3, 0);
    else if (!is_max && kh == 2 && kw == 2) pool_direct_rows(a, begin, end, 0, 2, 2, 0);
    else if (is_max) pool_direct_rows(a, begin, end, 1, kh, kw, 0);
    else pool_direct_rows(a, begin, end, 0, kh, kw, 0);
}

/* pool_direct_planes with edges (padding, ceil mode). */
static void pool_direct_edge_planes(const void *ctx, int64_t begin, int64_t end)
{
    mrvl_pool_params params = *((const pool_args *)ctx)->p; /* copies, as pool_direct_planes */
    pool_args args = *(const pool_args *)ctx;
    const pool_args *a = &args;
    args.p = &params;
    int is_max = a->p->is_max;
    int64_t kh = a->p->kernel[1], kw3 = a->p->kernel[2] == 3;
    if (is_max && kw3) pool_direct_rows(a, begin, end, 1, kh, 3, 1);
    else if (is_max) pool_direct_rows(a, begin, end, 1, kh, 2, 1);
    else if (kw3) pool_direct_rows(a, begin, end, 0, kh, 3, 1);
    else pool_direct_rows(a, begin, end, 0, kh, 2, 1);
}

/* Planes [begin, end) of a pool as pool_direct_planes takes, whose windows of a row span at
 * most VF input columns (so at most VF / 2 outputs): two output rows to a pair of vectors,
 * where one row would leave most lanes idle. The first vector holds the first row's window
 * rows reduced, the second the next row's (of the same plane or the next); deinterleaved as
 * in pool_direct_planes, the lower half of the result is the first row's outputs and the
 * upper half the second's. The result is stored at the first row, then its upper half moved
 * down stored at the second (overwriting the first store's spill). Window rows near the end
 * of x are loaded through a buffer. Inlined with is_max and the kernel's width constant
 * (pool_pair_planes). */
static inline pool_vec pool_pair_row(const float *src, int64_t kh, int64_t w, const float *x_end, int is_max)
{
    float fill = is_max ? -INFINITY : 0.0f;
    if (x_end - src - (kh - 1) * w >= MRVL_POOL_VF) return pool_window_column(src, kh, w, is_max);
    pool_vec acc = fill + (pool_vec){0};
    for (int64_t ky = 0; ky < kh; ky++, src += w) {
        float tail[MRVL_POOL_VF];
        for (int j = 0; j < MRVL_POOL_VF; j++) tail[j] = src + j < x_end ? src[j] : fill;
        pool_vec x = pool_load(tail);
        acc = is_max ? pool_max(x, acc) : acc + x;
    }
    return acc;
}

static inline void pool_pair_rows(const pool_args *a, int64_t begin, int64_t end, int is_max, int64_t kw)
{
    const mrvl_pool_params *p = a->p;
    const int64_t *in = p->in, *out = p->out;
    int64_t kh = p->kernel[1], step = p->stride[1] * in[2], w = p->dilation[1] * in[2], last = end * out[1];
    float count = (float)(kh * kw);
    pool_vec vfill = (is_max ? -INFINITY : 0.0f) + (pool_vec){0};
    const float *x_end = a->x + a->x_size;
    float *y_end = a->y + last * out[2];
    /* The next row's plane and row; counted up (no division per row). */
    const float *plane = a->x + begin * volume3(in);
    int64_t oy = 0;
    for (int64_t r = begin * out[1]; r < last; r += 2) {
        pool_vec v0 = pool_pair_row(plane + oy * step, kh, w, x_end, is_max), v1 = v0;
        if (++oy == out[1]) {
            oy = 0;
            plane += volume3(in);
        }
        if (r + 1 < last) { /* else an odd row out: the upper half is not stored */
            v1 = pool_pair_row(plane + oy * step, kh, w, x_end, is_max);
            if (++oy == out[1]) {
                oy = 0;
                plane += volume3(in);
            }
        }
        pool_vec even, odd, acc;
        if (kw == 3) {
            pool_deinterleave(v0, v1, &even, &odd);
            acc = is_max ? pool_max(odd, even) : even + odd;
            pool_vec next = pool_next(even, vfill);
            acc = is_max ? pool_max(next, acc) : acc + next;
        } else {
            acc = pool_pairs(v0, v1, is_max);
        }
        if (!is_max) acc = acc / count;
        float *dst = a->y + r * out[2];
        if (dst + MRVL_POOL_VF <= y_end) pool_store(dst, acc);
        else pool_store_part(dst, acc, min_i64(MRVL_POOL_VF / 2, y_end - dst));
        if (r + 1 == last) continue;
        dst += out[2];
        acc = pool_upper(acc);
        if (dst + MRVL_POOL_VF <= y_end) pool_store(dst, acc);
        else pool_store_part(dst, acc, out[2]);
    }
}

static void pool_pair_planes(const void *ctx, int64_t begin, int64_t end)
{
    const pool_args *a = ctx;
    int is_max = a->p->is_max, kw3 = a->p->kernel[2] == 3;
    if (is_max && kw3) pool_pair_rows(a, begin, end, 1, 3);
    else if (is_max) pool_pair_rows(a, begin, end, 1, 2);
    else if (kw3) pool_pair_rows(a, begin, end, 0, 3);
    else pool_pair_rows(a, begin, end, 0, 2);
}

/* Planes [begin, end) of a 2-D pool with stride 1 and no dilation on planes whose padded
 * extent (the rows and columns its windows span) fits a band: several planes at a time, each
 * copied into a grid of its padded extent (rows `pitch` = the padded width apart, -inf for a
 * max or 0 for a sum around it), the band of grids then reduced as one flat array, without
 * any work per row: vertically V[i] = the reduce of G[i + ky * pitch], horizontally T[i] =
 * the reduce of V[i + kx]; T's first out columns of each row are the outputs (the grids' last
 * rows and columns give junk, dropped). pool_planes' bands cost several times more per row,
 * which small planes (8x8, 13x13) feel. A max starts from -inf: NaN never wins. Inlined with
 * is_max constant (pool_grid_planes). */
static MRVL_ALWAYS_INLINE void pool_grid_bands(const pool_args *a, int64_t begin, int64_t end, int is_max)
{
    const mrvl_pool_params *p = a->p;
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *pb = p->pad_begin;
    float fill = is_max ? -INFINITY : 0.0f;
    pool_vec vfill = fill + (pool_vec){0};
    int64_t pitch = out[2] + k[2] - 1, rows = out[1] + k[1] - 1, grid = rows * pitch;
    int64_t planes = MRVL_POOL_BAND / grid;
    /* The input's rows and columns in the grid. */
    int64_t r0 = min_i64(pb[1], rows), r1 = min_i64(rows, pb[1] + in[1]);
    int64_t c0 = min_i64(pb[2], pitch), c1 = min_i64(pitch, pb[2] + in[2]);
    int64_t lo = p->count_include_pad ? -pb[1] : 0, hi = p->count_include_pad ? in[1] + p->pad_end[1] : in[1];
    /* The grids (at most a band), and their slack: the vertical pass reads k1 - 1 rows and
     * two vectors past the band (less than a grid and two vectors: (k1 - 1) pitch + k2 - 1 <
     * rows * pitch), the horizontal pass k2 - 1 floats and a vector past its last vector. */
    MRVL_POOL_ALIGNED float g[2 * MRVL_POOL_BAND + 4 * MRVL_POOL_VF];
    MRVL_POOL_ALIGNED float v[2 * MRVL_POOL_BAND + 4 * MRVL_POOL_VF];
    float *y_end = a->y + end * out[1] * out[2];
    const float *x_end = a->x + a->x_size;
    for (int64_t first = begin; first < end; first += planes) {
        int64_t count = min_i64(planes, end - first), size = count * grid;
        for (int64_t i = 0; i < size + grid + 3 * MRVL_POOL_VF; i += MRVL_POOL_VF) pool_store(g + i, vfill);
        /* Row by row in order, whole vectors: a row's last one holds fill past the row (its
         * padding), and the next row's data is written after it. */
        for (int64_t c = 0; c < count; c++) {
            for (int64_t r = r0; r < r1; r++) {
                const float *src = a->x + (first + c) * volume3(in) + (r - pb[1]) * in[2] + c0 - pb[2];
                float *dst = g + c * grid + r * pitch + c0;
                for (int64_t j = 0; j < c1 - c0; j += MRVL_POOL_VF) {
                    pool_vec x;
                    if (x_end - src - j >= MRVL_POOL_VF) x = pool_load(src + j);
                    else {
                        float tail[MRVL_POOL_VF];
                        for (int l = 0; l < MRVL_POOL_VF; l++) tail[l] = src + j + l < x_end ? src[j + l] : fill;
                        x = pool_load(tail);
                    }
#if defined(__GNUC__)
                    pool_mask inside = (pool_mask){MRVL_POOL_IOTA} < (int32_t)(c1 - c0 - j);
                    x = (pool_vec)((inside & (pool_mask)x) | (~inside & (pool_mask)vfill));
#endif
                    pool_store(dst + j, x);
                }
            }
        }
        for (int64_t i = 0; i < size + k[2] - 1 + MRVL_POOL_VF; i += MRVL_POOL_VF) {
            pool_vec acc = is_max ? vfill : pool_load(g + i);
            for (int64_t ky = is_max ? 0 : 1; ky < k[1]; ky++) {
                pool_vec x = pool_load(g + i + ky * pitch);
                acc = is_max ? pool_max(x, acc) : acc + x;
            }
            pool_store(v + i, acc);
        }
        for (int64_t i = 0; i < size; i += MRVL_POOL_VF) {
            pool_vec acc = pool_load(v + i);
            for (int64_t kx = 1; kx < k[2]; kx++) {
                pool_vec x = pool_load(v + i + kx);
                acc = is_max ? pool_max(x, acc) : acc + x;
            }
            pool_store(g + i, acc); /* T over the grids, read below */
        }
        for (int64_t c = 0; c < count; c++) {
            for (int64_t oy = 0; oy < out[1]; oy++) {
                const float *t = g + c * grid + oy * pitch;
                float *dst = a->y + ((first + c) * out[1] + oy) * out[2];
                float rows_in = is_max ? 1.0f : (float)pool_taps_in(oy, k[1], 1, 1, pb[1], lo, hi);
                pool_store_row(dst, t, out[2], is_max, rows_in, a->cols, y_end);
            }
        }
    }
}

static void pool_grid_planes(const void *ctx, int64_t begin, int64_t end)
{
    const pool_args *a = ctx;
    if (a->p->is_max) pool_grid_bands(a, begin, end, 1);
    else pool_grid_bands(a, begin, end, 0);
}

/* Planes [begin, end) of a 2-D max pool with stride 1 and no dilation whose input and output
 * rows are at most a vector wide (tiny-YOLO's 2x2/1 on 512 planes of 8x8): each output row one
 * vector, straight from the input: for each of its window's rows inside the input and each
 * kernel column kx, the vector of that row's columns from kx - pad on, its lanes of columns
 * outside the row set to -inf, reduced from -inf (NaN never wins). pool_grid_planes' copies and
 * passes cost 3x onnxruntime's time there. A vector that would read outside x is read through a
 * buffer; a row's store spills into the next row, written afterwards, but not past the task's
 * planes. Inlined with the kernel constant where it is 2x2 or 3x3 (pool_small_planes). */
/* The widest kernel pool_small_planes takes. */
#define MRVL_POOL_SMALL_KERNEL 3
static MRVL_ALWAYS_INLINE void pool_small_rows(const pool_args *a, int64_t begin, int64_t end, int64_t kh,
                                               int64_t kw)
{
    const mrvl_pool_params *p = a->p;
    /* The sizes as locals: the stores to y may alias p for all the compiler knows. */
    int64_t height = p->in[1], width = p->in[2], rows = p->out[1], cols = p->out[2];
    int64_t top = p->pad_begin[1], left = p->pad_begin[2], plane_floats = height * width;
    pool_vec vfill = -INFINITY + (pool_vec){0};
    const float *x = a->x, *x_end = a->x + a->x_size;
    float *y = a->y, *y_end = a->y + end * rows * cols;
    /* Per kernel column kx, the lanes whose input column (lane + kx - left) lies in the row. */
    pool_mask keep[MRVL_POOL_SMALL_KERNEL];
    for (int64_t kx = 0; kx < kw; kx++) {
#if defined(__GNUC__)
        pool_mask column = (pool_mask){MRVL_POOL_IOTA} + (int32_t)(kx - left);
        keep[kx] = (column >= 0) & (column < (int32_t)width);
#else
        keep[kx] = kx - left >= 0 && kx - left < width;
#endif
    }
    for (int64_t nc = begin; nc < end; nc++) {
        const float *plane = x + nc * plane_floats;
        /* Whether every vector the plane's windows read lies in x (all but the first and last
         * planes, mostly). */
        int inside_x = plane - left >= x && x_end - (plane + plane_floats + kw - 1 - left) >= MRVL_POOL_VF;
        for (int64_t oy = 0; oy < rows; oy++) {
            pool_vec acc = vfill;
            for (int64_t ky = 0; ky < kh; ky++) {
                int64_t iy = oy - top + ky;
                if (iy < 0 || iy >= height) continue;
                for (int64_t kx = 0; kx < kw; kx++) {
                    const float *src = plane + iy * width + kx - left;
                    pool_vec v;
                    if (inside_x) {
                        v = pool_load(src);
                    } else {
                        float part[MRVL_POOL_VF];
                        for (int l = 0; l < MRVL_POOL_VF; l++)
                            part[l] = src + l >= x && src + l < x_end ? src[l] : 0.0f;
                        v = pool_load(part);
                    }
                    acc = pool_max(pool_select(keep[kx], v, vfill), acc);
                }
            }
            float *dst = y + (nc * rows + oy) * cols;
            if (y_end - dst >= MRVL_POOL_VF) pool_store(dst, acc);
            else pool_store_part(dst, acc, y_end - dst);
        }
    }
}

static void pool_small_planes(const void *ctx, int64_t begin, int64_t end)
{
    const pool_args *a = ctx;
    int64_t kh = a->p->kernel[1], kw = a->p->kernel[2];
    if (kh == 2 && kw == 2) pool_small_rows(a, begin, end, 2, 2);
    else if (kh == 3 && kw == 3) pool_small_rows(a, begin, end, 3, 3);
    else pool_small_rows(a, begin, end, kh, kw);
}

/* Max or average over each window of x (n, c, in): pool_direct_planes, pool_pair_planes,
 * pool_small_planes or pool_grid_planes where they apply, else pool_planes, the planes split
 * over the threads; padded rows wider than MRVL_POOL_ROW take the bounds-checked loop. */
static void mrvl_pool_f32(const mrvl_pool_params *p, const float *x, float *y)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    int64_t span = (out[2] - 1) * s[2] + (k[2] - 1) * d[2] + 1;
    if ((span + s[2] - 1) / s[2] * s[2] > MRVL_POOL_ROW) {
        pool_window_f32(p, x, y);
        return;
    }
    /* An average's valid (or padded-valid) columns per output column, and a vector more. */
    float cols[MRVL_POOL_ROW + MRVL_POOL_VF];
    int64_t lo = p->count_include_pad ? -p->pad_begin[2] : 0;
    int64_t hi = p->count_include_pad ? in[2] + p->pad_end[2] : in[2];
    for (int64_t o = 0; o < out[2] + MRVL_POOL_VF && !p->is_max; o++)
        cols[o] = o < out[2] ? (float)pool_taps_in(o, k[2], s[2], d[2], p->pad_begin[2], lo, hi) : 1.0f;
    int64_t planes = p->n * p->c;
    pool_args args = {p, x, planes * volume3(in), y, cols};
    int padded = 0;
    for (int i = 0; i < MRVL_SPATIAL; i++)
        padded |= p->pad_begin[i] || (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 > in[i];
    /* Rows of fewer than VF / 2 outputs waste most of the direct path's lanes: the flat bands
     * then cost less. */
    int direct = in[0] == 1 && k[0] == 1 && (k[2] == 2 || k[2] == 3) && s[2] == 2 && d[2] == 1
              && (!padded || d[1] == 1);
    /* A max at stride 1 over rows at most a vector wide, whose outputs fill more than half of it
     * or whose window is at most 2x2: pool_small_planes (AVX-512's 16 lanes over 8x8 planes:
     * 2x2 0.5x the time of the grids, 3x3 pad 1 1.07x); else stride 1 on planes whose padded
     * extent fits a band: pool_grid_planes. */
    int small = p->is_max && in[0] == 1 && k[0] == 1 && out[0] == 1 && s[1] == 1 && s[2] == 1 && d[1] == 1 &&
                d[2] == 1 && in[2] <= MRVL_POOL_VF && k[2] <= MRVL_POOL_SMALL_KERNEL &&
                (2 * out[2] > MRVL_POOL_VF || k[1] * k[2] <= 4);
    int grid = in[0] == 1 && k[0] == 1 && out[0] == 1 && s[1] == 1 && s[2] == 1 && d[1] == 1 && d[2] == 1
            && (out[1] + k[1] - 1) * (out[2] + k[2] - 1) <= MRVL_POOL_BAND && out[2] + k[2] - 1 <= MRVL_POOL_ROW;
    mrvl_task task = small ? pool_small_planes
                   : grid ? pool_grid_planes
                   : !direct ? pool_planes
                   : !padded && span <= MRVL_POOL_VF && 2 * out[2] <= MRVL_POOL_VF ? pool_pair_planes
                   : 2 * out[2] < MRVL_POOL_VF ? pool_planes
                   : padded ? pool_direct_edge_planes : pool_direct_planes;
    if (planes * volume3(out) * volume3(k) < MRVL_PARALLEL_MACS) task(&args, 0, planes);
    else mrvl_parallel(planes, task, &args);
}

/* MaxPool with its Indices: the max of each window of x (n, c, in), as mrvl_pool_f32 takes it
 * (NaN never wins), into y, and where it is into `indices`, flattened over the whole input
 * (n, c, in) as ONNX says: the spatial dims row-major, or column-major with `column_major`
 * (storage_order 1). The first of equal maxima wins; a window with no number above -infinity
 * points at its first element, one wholly in the padding at -1. */
static void mrvl_max_pool_indices_f32(const mrvl_pool_params *p, int column_major, const float *x, float *y,
                                      int64_t *indices)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pb = p->pad_begin;
    int64_t plane = volume3(in), out_plane = volume3(out);
    /* The index steps of z, y and x (the kernel's depth, height, width). */
    int64_t step_z = column_major ? 1 : in[1] * in[2], step_y = column_major ? in[0] : in[2];
    int64_t step_x = column_major ? in[0] * in[1] : 1;
    for (int64_t nc = 0; nc < p->n * p->c; nc++) {
        const float *src = x + nc * plane;
        for (int64_t o = 0; o < out_plane; o++) {
            int64_t oz = o / (out[1] * out[2]), oy = o / out[2] % out[1], ox = o % out[2];
            float best = -INFINITY;
            int64_t where = -1;
            for (int64_t kz = 0; kz < k[0]; kz++) {
                int64_t iz = oz * s[0] - pb[0] + kz * d[0];
                if (iz < 0 || iz >= in[0]) continue;
                for (int64_t ky = 0; ky < k[1]; ky++) {
                    int64_t iy = oy * s[1] - pb[1] + ky * d[1];
                    if (iy < 0 || iy >= in[1]) continue;
                    for (int64_t kx = 0; kx < k[2]; kx++) {
                        int64_t ix = ox * s[2] - pb[2] + kx * d[2];
                        if (ix < 0 || ix >= in[2]) continue;
                        float v = src[(iz * in[1] + iy) * in[2] + ix];
                        if (v > best || where < 0) {
                            where = nc * plane + iz * step_z + iy * step_y + ix * step_x;
                            best = v > best ? v : best;
                        }
                    }
                }
            }
            y[nc * out_plane + o] = best;
            indices[nc * out_plane + o] = where;
        }
    }
}

/* Max or average of each of `rows` rows of `size` elements: 16 running maxima or partial
 * sums per row, so the loop vectorises without reassociating a lane's sum, then combined in
 * double in a fixed tree (lanes l and l + 8, then l + 4, ...: vector code, where a chain of 16
 * dependent adds cost a 7x7 plane's row more than its loads), then the rest of the row. */
static void mrvl_global_pool_f32(int is_max, int64_t rows, int64_t size, const float *x, float *y)
{
    int64_t whole = size - size % 16;
    for (int64_t r = 0; r < rows; r++) {
        const float *in = x + r * size;
        float part[16];
        double half[8];
        for (int l = 0; l < 16; l++) part[l] = is_max ? -INFINITY : 0.0f;
        if (is_max) {
            for (int64_t i = 0; i < whole; i += 16)
                for (int l = 0; l < 16; l++) part[l] = in[i + l] > part[l] ? in[i + l] : part[l];
            for (int l = 0; l < 8; l++) half[l] = part[l + 8] > part[l] ? part[l + 8] : part[l];
            for (int w = 4; w > 0; w /= 2)
                for (int l = 0; l < w; l++) half[l] = half[l + w] > half[l] ? half[l + w] : half[l];
        } else {
            for (int64_t i = 0; i < whole; i += 16)
                for (int l = 0; l < 16; l++) part[l] += in[i + l];
            for (int l = 0; l < 8; l++) half[l] = (double)part[l] + (double)part[l + 8];
            for (int w = 4; w > 0; w /= 2)
                for (int l = 0; l < w; l++) half[l] += half[l + w];
        }
        double acc = half[0];
        for (int64_t i = whole; i < size; i++) acc = is_max ? (in[i] > acc ? in[i] : acc) : acc + in[i];
        y[r] = is_max ? (float)acc : (float)(acc / (double)size);
    }
}

/* --- Channels last: x (n, in, c), the host glue between MLIP calls in NHWC ---------------- */

/* The first tap of a window along one dim that lands inside the input (o * stride - pad +
 * k * dilation >= 0); the taps inside follow it, pool_taps_in(..., 0, in) of them. */
static int64_t pool_first_tap(int64_t o, int64_t stride, int64_t dilation, int64_t pad)
{
    int64_t start = o * stride - pad;
    return start >= 0 ? 0 : (-start + dilation - 1) / dilation;
}

/* Output positions [begin, end) of a channels-last pool, counted over (n, out): each is the max
 * or average of its window's rows of c channels, read and combined whole, so the inner loop
 * runs along the channels, contiguous in memory. */
static void pool_nhwc_positions(const void *ctx, int64_t begin, int64_t end)
{
    const pool_args *a = ctx;
    const mrvl_pool_params *p = a->p;
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, c = p->c;
    for (int64_t o = begin; o < end; o++) {
        int64_t at[MRVL_SPATIAL] = {o / (out[1] * out[2]) % out[0], o / out[2] % out[1], o % out[2]};
        int64_t first[MRVL_SPATIAL], taps[MRVL_SPATIAL], count = 1;
        for (int i = 0; i < MRVL_SPATIAL; i++) {
            first[i] = pool_first_tap(at[i], s[i], d[i], p->pad_begin[i]);
            taps[i] = pool_taps_in(at[i], k[i], s[i], d[i], p->pad_begin[i], 0, in[i]);
            count *= p->count_include_pad
                ? pool_taps_in(at[i], k[i], s[i], d[i], p->pad_begin[i], -p->pad_begin[i], in[i] + p->pad_end[i])
                : taps[i];
        }
        const float *image = a->x + o / volume3(out) * volume3(in) * c;
        float *y = a->y + o * c;
        for (int64_t ch = 0; ch < c; ch++) y[ch] = p->is_max ? -INFINITY : 0.0f;
        for (int64_t kz = first[0]; kz < first[0] + taps[0]; kz++)
            for (int64_t ky = first[1]; ky < first[1] + taps[1]; ky++)
                for (int64_t kx = first[2]; kx < first[2] + taps[2]; kx++) {
                    int64_t iz = at[0] * s[0] - p->pad_begin[0] + kz * d[0];
                    int64_t iy = at[1] * s[1] - p->pad_begin[1] + ky * d[1];
                    int64_t ix = at[2] * s[2] - p->pad_begin[2] + kx * d[2];
                    const float *row = image + ((iz * in[1] + iy) * in[2] + ix) * c;
                    if (p->is_max)
                        for (int64_t ch = 0; ch < c; ch++) y[ch] = row[ch] > y[ch] ? row[ch] : y[ch];
                    else
                        for (int64_t ch = 0; ch < c; ch++) y[ch] += row[ch];
                }
        if (!p->is_max)
            for (int64_t ch = 0; ch < c; ch++) y[ch] = count ? y[ch] / (float)count : 0.0f;
    }
}

/* Max or average over each window of x (n, in, c), channels last: as mrvl_pool_f32 computes
 * it, the output positions split over the threads. */
static void mrvl_pool_nhwc_f32(const mrvl_pool_params *p, const float *x, float *y)
{
    int64_t positions = p->n * volume3(p->out);
    pool_args args = {p, x, 0, y, NULL};
    if (positions * p->c * volume3(p->kernel) < MRVL_PARALLEL_MACS) pool_nhwc_positions(&args, 0, positions);
    else mrvl_parallel(positions, pool_nhwc_positions, &args);
}

/* Max or average over the `size` positions of each of n images of x (n, size, c), channels
 * last, into y (n, c): the positions combined row by row into c running values, an average's
 * sums in double. */
static void mrvl_global_pool_nhwc_f32(int is_max, int64_t n, int64_t size, int64_t c, const float *x, float *y)
{
    enum { CHANNELS = 256 };
    double sum[CHANNELS];
    for (int64_t i = 0; i < n; i++) {
        const float *image = x + i * size * c;
        for (int64_t c0 = 0; c0 < c; c0 += CHANNELS) {
            int64_t width = min_i64(CHANNELS, c - c0);
            float *o = y + i * c + c0;
            if (is_max) {
                for (int64_t ch = 0; ch < width; ch++) o[ch] = -INFINITY;
                for (int64_t r = 0; r < size; r++)
                    for (int64_t ch = 0; ch < width; ch++) {
                        float v = image[r * c + c0 + ch];
                        o[ch] = v > o[ch] ? v : o[ch];
                    }
                continue;
            }
            for (int64_t ch = 0; ch < width; ch++) sum[ch] = 0.0;
            for (int64_t r = 0; r < size; r++)
                for (int64_t ch = 0; ch < width; ch++) sum[ch] += image[r * c + c0 + ch];
            for (int64_t ch = 0; ch < width; ch++) o[ch] = (float)(sum[ch] / (double)size);
        }
    }
}
