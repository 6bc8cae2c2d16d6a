/* mrvl_kernels_winograd.c: 3x3 stride-1 convs by Winograd's minimal filtering F(2x2, 3x3).
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own.
 *
 * A 2x2 block of outputs (a tile) is A' [(G g G') . (B' d B)] A for the 4x4 input patch d
 * under it and the 3x3 kernel g: 16 multiplies a tile and input channel instead of 36, the
 * rest additions. The weights' transform U = G g G' is done at compile time
 * (target/host_kernels.py pack_winograd_weights); here the input patches are transformed
 * (V = B' d B), then each of the 16 elements is a matrix product over the input channels,
 * M[e] (output channels x tiles) = U[e] (output channels x input channels) x V[e] (input
 * channels x tiles), and the outputs are A' M A. The tiles are vectors' lanes throughout: a
 * block of tile rows is transformed, multiplied and transformed back while its V and M stay
 * in L2, and a slot of scratch holds one block (MRVL_WINOGRAD_SLOTS slots, one per task).
 *
 * B' = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
 * A' = [1 1 1 0; 0 1 -1 -1]: coefficients 0, +-1 and +-1/2, so that in float32 the outputs stay
 * within a few roundings of their scale (ResNet-50: 4.6e-7 of it against onnxruntime). */

enum { WINOGRAD_ELEMENTS = 16 };

/* The tile rows of a block: as many as keep its V and M (16 x (c + m) floats a tile) within
 * MRVL_WINOGRAD_BLOCK_FLOATS, at least one. */
static int64_t winograd_block_rows(int64_t c, int64_t m, int64_t tile_cols)
{
    int64_t mp = (m + MRVL_WINOGRAD_PANEL - 1) / MRVL_WINOGRAD_PANEL * MRVL_WINOGRAD_PANEL;
    return max_i64(1, MRVL_WINOGRAD_BLOCK_FLOATS / (WINOGRAD_ELEMENTS * (c + mp) * tile_cols));
}

typedef struct {
    const mrvl_conv_params *p;
    const float *x, *u, *b, *r; /* input, transformed weights, bias and residual (b, r may be NULL) */
    float *y, *scratch;
    int64_t tile_rows, tile_cols; /* of an image */
    int64_t block_rows, blocks;   /* tile rows a block; blocks an image */
    int64_t items, slots;         /* blocks of all images; slots in use */
    int64_t cols;                 /* a block's tiles, rounded up to whole vectors: the products' columns */
    int64_t pitch;                /* floats from a row of V or M to the next */
    int64_t v_element, m_element; /* floats from an element's V (M) to the next's */
    int64_t mp;                   /* output channels rounded up to MRVL_WINOGRAD_PANEL */
    int64_t edge;                 /* floats of a row's even (or odd) columns in the row buffers */
    int64_t slot_floats;
} winograd_args;

/* The blocks, a pitch of V and M, the rows' buffers' width, and a slot's floats: as
 * target/host_kernels.py winograd_scratch_floats plans them (with the widest vector), or less:
 * with threads, blocks of fewer tile rows where the images have fewer blocks than two a thread
 * (the pool's chunks), so that each thread has work. */
static void winograd_layout(const mrvl_conv_params *p, winograd_args *a)
{
    enum { VF = MRVL_GEMM_VECTOR_FLOATS, SHARES = 2 * MRVL_HOST_THREADS };
    a->tile_rows = (p->out[1] + 1) / 2;
    a->tile_cols = (p->out[2] + 1) / 2;
    a->mp = (p->m + MRVL_WINOGRAD_PANEL - 1) / MRVL_WINOGRAD_PANEL * MRVL_WINOGRAD_PANEL;
    a->block_rows = min_i64(winograd_block_rows(p->c, p->m, a->tile_cols), a->tile_rows);
    if (SHARES > 2 && p->n * ((a->tile_rows + a->block_rows - 1) / a->block_rows) < SHARES)
        a->block_rows = min_i64(a->block_rows, (p->n * a->tile_rows + SHARES - 1) / SHARES);
    a->blocks = (a->tile_rows + a->block_rows - 1) / a->block_rows;
    a->cols = (a->block_rows * a->tile_cols + VF - 1) / VF * VF;
    a->pitch = a->cols + VF; /* a tile row's last vector may run past the block's tiles */
    a->edge = (a->tile_cols + VF - 1) / VF * VF + VF;
    /* A line more: the 16 elements' rows, written (read) together, in different cache sets. */
    a->v_element = p->c * a->pitch + MRVL_WINOGRAD_SKEW;
    a->m_element = a->mp * a->pitch + MRVL_WINOGRAD_SKEW;
    a->slot_floats = WINOGRAD_ELEMENTS * (a->v_element + a->m_element) + (2 * a->block_rows + 4) * 2 * a->edge;
}

/* Input row iy of channel plane x (in[1] x in[2]) as the padded conv reads it from column
 * -pad on, split into its even columns (at even) and odd ones (at odd), a->edge each, zeros
 * outside the input. row is 2 * a->edge floats of scratch. */
static void winograd_split_row(const winograd_args *a, const float *x, int64_t iy, float *row, float *even,
                               float *odd)
{
    const mrvl_conv_params *p = a->p;
    int64_t width = 2 * a->edge, x0 = min_i64(p->pad[2], width), x1 = min_i64(width, p->pad[2] + p->in[2]);
    if (iy < 0 || iy >= p->in[1] || x1 <= x0) {
        memset(even, 0, (size_t)a->edge * sizeof(float));
        memset(odd, 0, (size_t)a->edge * sizeof(float));
        return;
    }
    memset(row, 0, (size_t)x0 * sizeof(float));
    memcpy(row + x0, x + iy * p->in[2] + (x0 - p->pad[2]), (size_t)(x1 - x0) * sizeof(float));
    memset(row + x1, 0, (size_t)(width - x1) * sizeof(float));
    for (int64_t j = 0; j < a->edge; j += MRVL_POOL_VF) {
        pool_vec e, o;
        pool_deinterleave(pool_load(row + 2 * j), pool_load(row + 2 * j + MRVL_POOL_VF), &e, &o);
        pool_store(even + j, e);
        pool_store(odd + j, o);
    }
}

/* V of channel plane x for the block's tile rows from ty0: element e of tile (j, t) at
 * v[e * v_element + j * tile_cols + t]. */
static void winograd_input(const winograd_args *a, const float *x, int64_t ty0, int64_t rows, float *v,
                           float *buffers)
{
    const mrvl_conv_params *p = a->p;
    int64_t edge = a->edge, element = a->v_element;
    float *row = buffers, *split = buffers + 2 * edge; /* input row i's evens at split + 2i edge, odds after */
    for (int64_t i = 0; i < 2 * rows + 2; i++)
        winograd_split_row(a, x, 2 * ty0 + i - p->pad[1], row, split + 2 * i * edge, split + (2 * i + 1) * edge);
    for (int64_t j = 0; j < rows; j++) {
        const float *d = split + 4 * j * edge; /* rows 2j .. 2j + 3 */
        float *out = v + j * a->tile_cols;
        for (int64_t t = 0; t < a->tile_cols; t += MRVL_POOL_VF) {
            pool_vec h[4][4];
            for (int k = 0; k < 4; k++) { /* d's row k times B: columns 2t .. 2t + 3 */
                const float *even = d + 2 * k * edge + t, *odd = even + edge;
                pool_vec e0 = pool_load(even), e1 = pool_load(even + 1), o0 = pool_load(odd), o1 = pool_load(odd + 1);
                h[k][0] = e0 - e1;
                h[k][1] = o0 + e1;
                h[k][2] = e1 - o0;
                h[k][3] = o0 - o1;
            }
            for (int q = 0; q < 4; q++) { /* B' times the rows */
                pool_store(out + (0 + q) * element + t, h[0][q] - h[2][q]);
                pool_store(out + (4 + q) * element + t, h[1][q] + h[2][q]);
                pool_store(out + (8 + q) * element + t, h[2][q] - h[1][q]);
                pool_store(out + (12 + q) * element + t, h[1][q] - h[3][q]);
            }
        }
    }
}

/* m[i * pitch + j] = the sum over input channels c < depth of w[c * MRVL_WINOGRAD_PANEL + i] *
 * v[c * pitch + j] for the MRVL_FLAT_MR x (vecs vectors) tile, in registers: the flat conv's
 * tile (flat_micro, MRVL_FLAT_ROWS_FMA), its rows a fixed pitch apart. Always inlined with
 * constant vecs. */
static MRVL_ALWAYS_INLINE void winograd_micro(int vecs, int64_t depth, const float *v, int64_t pitch,
                                              const float *w, float *m)
{
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    vec sum[MRVL_FLAT_MR][MRVL_FLAT_VECTORS];
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int k = 0; k < vecs; k++) sum[i][k] = (vec){0};
    MRVL_MCA_BEGIN("conv_winograd", MRVL_FLAT_MR, vecs * MRVL_GEMM_VECTOR_FLOATS,
                   MRVL_FLAT_MR * vecs * MRVL_GEMM_VECTOR_FLOATS);
    for (int64_t c = 0; c < depth; c++, v += pitch, w += MRVL_WINOGRAD_PANEL) {
        vec in[MRVL_FLAT_VECTORS];
        for (int k = 0; k < vecs; k++) in[k] = *(const vec *)(const void *)(v + k * MRVL_GEMM_VECTOR_FLOATS);
        MRVL_FLAT_ROWS_FMA(vecs, in, w, sum);
    }
    MRVL_MCA_END("conv_winograd", MRVL_FLAT_MR, vecs * MRVL_GEMM_VECTOR_FLOATS,
                 MRVL_FLAT_MR * vecs * MRVL_GEMM_VECTOR_FLOATS);
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int k = 0; k < vecs; k++) *(vec *)(void *)(m + i * pitch + k * MRVL_GEMM_VECTOR_FLOATS) = sum[i][k];
#else
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int j = 0; j < vecs * MRVL_GEMM_VECTOR_FLOATS; j++) {
            float s = 0.0f;
            for (int64_t c = 0; c < depth; c++) s += w[c * MRVL_WINOGRAD_PANEL + i] * v[c * pitch + j];
            m[i * pitch + j] = s;
        }
#endif
}

/* M = U V for each of the 16 elements, over the block's columns. */
static void winograd_products(const winograd_args *a, const float *v, float *m)
{
    enum { VF = MRVL_GEMM_VECTOR_FLOATS, TILE = MRVL_FLAT_TILE };
    const mrvl_conv_params *p = a->p;
    int64_t full = a->cols / TILE * TILE, rest = (a->cols - full) / VF;
    for (int e = 0; e < WINOGRAD_ELEMENTS; e++) {
        const float *ve = v + e * a->v_element, *ue = a->u + e * a->mp * p->c;
        float *me = m + e * a->m_element;
        for (int64_t i = 0; i < p->m; i += MRVL_FLAT_MR) {
            const float *w = ue + i / MRVL_WINOGRAD_PANEL * MRVL_WINOGRAD_PANEL * p->c + i % MRVL_WINOGRAD_PANEL;
            float *mi = me + i * a->pitch;
            for (int64_t j = 0; j < full; j += TILE)
                winograd_micro(MRVL_FLAT_VECTORS, p->c, ve + j, a->pitch, w, mi + j);
            if (rest == 2) winograd_micro(2, p->c, ve + full, a->pitch, w, mi + full);
            else if (rest == 1) winograd_micro(1, p->c, ve + full, a->pitch, w, mi + full);
        }
    }
}

/* The first n lanes of v (0 < n <= MRVL_POOL_VF) to y: a masked store where x86 has one, else
 * lane by lane (GCC warns that pool_store_part's memcpy might be given a negative n here). */
static MRVL_ALWAYS_INLINE void winograd_store_first(float *y, pool_vec v, int64_t n)
{
#if (MRVL_POOL_VF == 16 && defined(__AVX512F__)) || (MRVL_POOL_VF == 8 && defined(__AVX2__))
    pool_store_part(y, v, n);
#else
    float lanes[MRVL_POOL_VF];
    pool_store(lanes, v);
    for (int64_t i = 0; i < n && i < MRVL_POOL_VF; i++) y[i] = lanes[i];
#endif
}

/* `n` floats of the lanes of a and b interleaved (a0 b0 a1 b1 ...) to y. */
static MRVL_ALWAYS_INLINE void winograd_store_pairs(pool_vec a, pool_vec b, float *y, int64_t n)
{
#if defined(__GNUC__)
    conv_vec lo, hi;
#if defined(__clang__)
    lo = __builtin_shufflevector((conv_vec)a, (conv_vec)b, MRVL_CONV_ZIP_LO);
    hi = __builtin_shufflevector((conv_vec)a, (conv_vec)b, MRVL_CONV_ZIP_HI);
#else
    lo = __builtin_shuffle((conv_vec)a, (conv_vec)b, (conv_mask){MRVL_CONV_ZIP_LO});
    hi = __builtin_shuffle((conv_vec)a, (conv_vec)b, (conv_mask){MRVL_CONV_ZIP_HI});
#endif
    if (n >= 2 * MRVL_POOL_VF) {
        pool_store(y, (pool_vec)lo);
        pool_store(y + MRVL_POOL_VF, (pool_vec)hi);
    } else if (n > MRVL_POOL_VF) {
        pool_store(y, (pool_vec)lo);
        winograd_store_first(y + MRVL_POOL_VF, (pool_vec)hi, n - MRVL_POOL_VF);
    } else if (n > 0) {
        winograd_store_first(y, (pool_vec)lo, n);
    }
#else
    y[0] = a;
    if (n > 1) y[1] = b;
#endif
}

/* The outputs of the block's tile rows from ty0, A' M A plus the bias, into y (the image's
 * output), then the conv's epilogue over them (residual r, laid out as y; may be NULL). */
static void winograd_output(const winograd_args *a, const float *m, int64_t ty0, int64_t rows, const float *r,
                            float *y)
{
    const mrvl_conv_params *p = a->p;
    int64_t plane = p->out[1] * p->out[2], element = a->m_element;
    int64_t oy0 = 2 * ty0, oy1 = min_i64(p->out[1], 2 * (ty0 + rows));
    for (int64_t k = 0; k < p->m; k++) {
        const float *mk = m + k * a->pitch;
        pool_vec bias = (pool_vec){0} + (a->b ? a->b[k] : 0.0f);
        float *yk = y + k * plane;
        for (int64_t j = 0; j < rows; j++) {
            int64_t oy = 2 * (ty0 + j);
            for (int64_t t = 0; t < a->tile_cols; t += MRVL_POOL_VF) {
                pool_vec s[4][2];
                for (int q = 0; q < 4; q++) { /* M's row q times A */
                    const float *at = mk + q * 4 * element + j * a->tile_cols + t;
                    pool_vec m0 = pool_load(at), m1 = pool_load(at + element), m2 = pool_load(at + 2 * element),
                             m3 = pool_load(at + 3 * element);
                    s[q][0] = m0 + m1 + m2;
                    s[q][1] = m1 - m2 - m3;
                }
                int64_t n = min_i64(2 * MRVL_POOL_VF, p->out[2] - 2 * t);
                winograd_store_pairs(s[0][0] + s[1][0] + s[2][0] + bias, s[0][1] + s[1][1] + s[2][1] + bias,
                                     yk + oy * p->out[2] + 2 * t, n);
                if (oy + 1 < p->out[1])
                    winograd_store_pairs(s[1][0] - s[2][0] - s[3][0] + bias, s[1][1] - s[2][1] - s[3][1] + bias,
                                         yk + (oy + 1) * p->out[2] + 2 * t, n);
            }
        }
        int64_t at = oy0 * p->out[2], count = (oy1 - oy0) * p->out[2];
        conv_epilogue(p, count, count, k, r ? r + k * plane + at : NULL, yk + at);
    }
}

/* Slots [s0, s1): each runs its share of the blocks of all images in its slot of scratch. */
static void winograd_slots(const void *ctx, int64_t s0, int64_t s1)
{
    const winograd_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    int64_t plane = p->in[1] * p->in[2], out = p->m * p->out[1] * p->out[2];
    for (int64_t s = s0; s < s1; s++) {
        float *v = a->scratch + s * a->slot_floats, *m = v + WINOGRAD_ELEMENTS * a->v_element;
        float *buffers = m + WINOGRAD_ELEMENTS * a->m_element;
        /* The products' columns past what the shortest block's transform writes: zeros, not
         * whatever the workspace held (a NaN or a subnormal there would cost time, not bits). */
        int64_t shortest = a->tile_rows - (a->blocks - 1) * a->block_rows;
        int64_t last_row = (a->tile_cols + MRVL_POOL_VF - 1) / MRVL_POOL_VF * MRVL_POOL_VF;
        int64_t written = (shortest - 1) * a->tile_cols + last_row;
        for (int64_t row = 0; row < WINOGRAD_ELEMENTS * p->c && written < a->cols; row++)
            memset(v + row / p->c * a->v_element + row % p->c * a->pitch + written, 0,
                   (size_t)(a->cols - written) * sizeof(float));
        for (int64_t item = s * a->items / a->slots; item < (s + 1) * a->items / a->slots; item++) {
            int64_t image = item / a->blocks, ty0 = item % a->blocks * a->block_rows;
            int64_t rows = min_i64(a->block_rows, a->tile_rows - ty0);
            const float *x = a->x + image * p->c * plane;
            for (int64_t c = 0; c < p->c; c++) winograd_input(a, x + c * plane, ty0, rows, v + c * a->pitch, buffers);
            winograd_products(a, v, m);
            winograd_output(a, m, ty0, rows, a->r ? a->r + image * out : NULL, a->y + image * conv_y_batch(p));
        }
    }
}

/* Conv of a 3x3 kernel, strides and dilations 1, one group, 2D (in[0] 1), with the weights
 * transformed and packed by pack_winograd_weights: (16, m rounded up to MRVL_WINOGRAD_PANEL
 * in panels, c, MRVL_WINOGRAD_PANEL). Images of y are conv_y_batch(p) apart (r's are dense).
 * scratch: winograd_scratch_floats. */
static void mrvl_winograd_conv_f32(const mrvl_conv_params *p, const float *x, const float *u, const float *b,
                                   const float *r, float *y, float *scratch)
{
    winograd_args a = {.p = p, .x = x, .u = u, .b = b, .r = r, .y = y, .scratch = scratch};
    winograd_layout(p, &a);
    a.items = p->n * a.blocks;
    a.slots = min_i64(min_i64(MRVL_WINOGRAD_SLOTS, MRVL_HOST_THREADS > 1 ? 2 * MRVL_HOST_THREADS : 1), a.items);
    mrvl_parallel(a.slots, winograd_slots, &a);
}
