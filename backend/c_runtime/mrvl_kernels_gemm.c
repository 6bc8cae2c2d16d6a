/* mrvl_kernels_gemm.c: matrix products: the packed, blocked GEMM and its micro-kernels,
 * the products on B packed at compile time, the dot products of few rows; Gemm and MatMul.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */


/* c (mr x cols of an MR x NR tile, rows ldc apart) += a (mr x kc, element (i, p) at
 * a[i * a_rs + p * a_cs]) bp (kc x NR, row p at bp + p * b_rs: a panel of B). The
 * accumulators start at 0 and are added to c once, each a multiply-add of B's row by a
 * broadcast element of A, so no sum is reassociated. Always inlined with a constant mr (at
 * most MR, or MRVL_GEMM_PANEL_MR for gemm_panels: gemm_micro), so that a short tile does
 * only its own rows' multiply-adds. A tile of at most half MR rows, whose B streams past
 * few multiply-adds a row (a product of few rows whose B is not read by rows: a run-time
 * (K, N) B, a transposed A), asks the caches for B's
 * row MRVL_GEMM_PREFETCH_ROWS on (in fuller tiles the prefetch costs the 4-wide front end of
 * a Haswell 4% of the 6 x 16 loop). With GCC's
 * vector extension (gcc, clang) the accumulators are explicit vectors of
 * MRVL_GEMM_VECTOR_FLOATS: left to itself, gcc's SLP vectoriser shuffles SSE2 tiles between
 * registers instead. */
static MRVL_ALWAYS_INLINE void gemm_tile(const int mr, int64_t kc, const float *a, int64_t a_rs, int64_t a_cs,
                                         const float *restrict bp, int64_t b_rs, float *restrict c, int64_t ldc,
                                         int64_t cols)
{
    const float *row[MRVL_GEMM_PANEL_MR];
    float acc[MRVL_GEMM_PANEL_MR][MRVL_GEMM_NR];
    for (int i = 0; i < mr; i++) row[i] = a + i * a_rs;
#if defined(__GNUC__)
    /* aligned(4): B's rows need not be vector-aligned, and the loads say so. */
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    vec va[MRVL_GEMM_PANEL_MR][MRVL_GEMM_VECTORS];
    MRVL_UNROLL for (int i = 0; i < mr; i++)
        MRVL_UNROLL for (int v = 0; v < MRVL_GEMM_VECTORS; v++) va[i][v] = (vec){0};
    MRVL_MCA_BEGIN("gemm_micro", mr, MRVL_GEMM_NR, mr * MRVL_GEMM_NR);
    for (int64_t p = 0; p < kc; p++, bp += b_rs) {
        const vec *b = (const vec *)(const void *)bp;
        if (mr <= MRVL_GEMM_MR / 2) __builtin_prefetch(bp + MRVL_GEMM_PREFETCH_ROWS * b_rs);
        MRVL_UNROLL for (int i = 0; i < mr; i++) {
            float x = row[i][p * a_cs]; /* vector times scalar: the scalar is broadcast */
            MRVL_UNROLL for (int v = 0; v < MRVL_GEMM_VECTORS; v++) va[i][v] += b[v] * x;
        }
    }
    MRVL_MCA_END("gemm_micro", mr, MRVL_GEMM_NR, mr * MRVL_GEMM_NR);
    MRVL_UNROLL for (int i = 0; i < mr; i++)
        MRVL_UNROLL for (int v = 0; v < MRVL_GEMM_VECTORS; v++)
            for (int j = 0; j < MRVL_GEMM_VECTOR_FLOATS; j++) acc[i][v * MRVL_GEMM_VECTOR_FLOATS + j] = va[i][v][j];
#else
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < MRVL_GEMM_NR; j++) acc[i][j] = 0.0f;
    for (int64_t p = 0; p < kc; p++, bp += b_rs)
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < MRVL_GEMM_NR; j++) acc[i][j] += row[i][p * a_cs] * bp[j];
#endif
    if (cols == MRVL_GEMM_NR) {
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < MRVL_GEMM_NR; j++) c[i * ldc + j] += acc[i][j];
    } else {
        for (int i = 0; i < mr; i++)
            for (int64_t j = 0; j < cols; j++) c[i * ldc + j] += acc[i][j];
    }
}

/* gemm_tile for rows <= MRVL_GEMM_PANEL_MR (>= MR: 4, 6 or 8) rows of A and C: the tile of
 * exactly that many rows (a product of a few rows, a fully connected layer on a few samples,
 * is all such a tile). */
static void gemm_micro(int64_t kc, const float *a, int64_t a_rs, int64_t a_cs, const float *restrict bp,
                       int64_t b_rs, float *restrict c, int64_t ldc, int64_t rows, int64_t cols)
{
    switch (rows) {
    case 1: gemm_tile(1, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
    case 2: gemm_tile(2, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
    case 3: gemm_tile(3, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
#if MRVL_GEMM_PANEL_MR > 4
    case 4: gemm_tile(4, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
    case 5: gemm_tile(5, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
#endif
#if MRVL_GEMM_PANEL_MR > 6
    case 6: gemm_tile(6, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
    case 7: gemm_tile(7, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
#endif
    default: gemm_tile(MRVL_GEMM_PANEL_MR, kc, a, a_rs, a_cs, bp, b_rs, c, ldc, cols); return;
    }
}

/* Panels of `width` columns of the (depth x count) matrix x, element (p, j) at
 * x[p * rs + j * cs]: panel after panel, each depth rows of `width` (zeros past count). */
static void gemm_pack(int64_t depth, int64_t count, int64_t width, const float *x, int64_t rs, int64_t cs,
                      float *restrict out)
{
    for (int64_t j0 = 0; j0 < count; j0 += width) {
        int64_t w = min_i64(width, count - j0);
        for (int64_t p = 0; p < depth; p++, out += width) {
            const float *row = x + p * rs + j0 * cs;
            if (cs == 1) {
                for (int64_t j = 0; j < w; j++) out[j] = row[j];
            } else {
                for (int64_t j = 0; j < w; j++) out[j] = row[j * cs];
            }
            for (int64_t j = w; j < width; j++) out[j] = 0.0f;
        }
    }
}

/* c (m, n) += a (m, k) b (k, n), with A's element (i, p) at a[i * a_rs + p * a_cs] (either
 * layout works) and B already packed: panels of `pw` columns (a multiple of MRVL_GEMM_NR)
 * `ps` floats apart, row p of a panel at offset p * pw. C's rows are ldc apart. `apack`: (min(m, MC) + 7) *
 * min(k, KC) floats for the packed blocks of A, unused when A's rows are contiguous: the
 * micro-kernel then reads A where it is (one broadcast per element either way). */
static void gemm_packed_b_serial(int64_t m, int64_t n, int64_t k, const float *a, int64_t a_rs, int64_t a_cs,
                                 const float *bp, int64_t ps, int64_t pw, float *c, int64_t ldc, float *apack)
{
    for (int64_t pc = 0; pc < k; pc += MRVL_GEMM_KC) {
        int64_t kc = min_i64(MRVL_GEMM_KC, k - pc);
        for (int64_t ic = 0; ic < m; ic += MRVL_GEMM_MC) {
            int64_t mc = min_i64(MRVL_GEMM_MC, m - ic), rs = a_rs, cs = a_cs;
            const float *ablock = a + ic * a_rs + pc * a_cs;
            if (a_cs != 1) {
                /* A's columns are the packed rows: the transposed packing of its block. */
                gemm_pack(kc, mc, MRVL_GEMM_MR, ablock, a_cs, a_rs, apack);
                ablock = apack;
                rs = 1;
                cs = MRVL_GEMM_MR;
            }
            /* One KC x NR panel of B stays in L1 while the MC rows of A pass over it. */
            for (int64_t jr = 0; jr < n; jr += MRVL_GEMM_NR) {
                const float *panel = bp + jr / pw * ps + jr % pw + pc * pw;
                for (int64_t ir = 0; ir < mc; ir += MRVL_GEMM_MR) {
                    gemm_micro(kc, ablock + (cs == 1 ? ir * rs : ir * kc), rs, cs, panel, pw, c + (ic + ir) * ldc + jr,
                               ldc, min_i64(MRVL_GEMM_MR, mc - ir), min_i64(MRVL_GEMM_NR, n - jr));
                }
            }
        }
    }
}

/* The arguments of one gemm_packed_b, for its parallel parts. */
typedef struct {
    int64_t m, n, k, a_rs, ps, pw, ldc;
    const float *a, *bp;
    float *c;
} gemm_rows_args;

/* Row tiles [begin, end) (MRVL_GEMM_MR rows each) of a gemm_packed_b with contiguous A rows. */
static void gemm_rows(const void *ctx, int64_t begin, int64_t end)
{
    const gemm_rows_args *g = ctx;
    int64_t r0 = begin * MRVL_GEMM_MR, r1 = min_i64(end * MRVL_GEMM_MR, g->m);
    gemm_packed_b_serial(r1 - r0, g->n, g->k, g->a + r0 * g->a_rs, g->a_rs, 1, g->bp, g->ps, g->pw, g->c + r0 * g->ldc,
                         g->ldc, NULL);
}

/* gemm_packed_b_serial, its row tiles split over the threads when A's rows are contiguous (a
 * transposed A is packed into the one `apack`, so it stays on one thread). Each row's sums
 * are the same on any thread. */
static void gemm_packed_b(int64_t m, int64_t n, int64_t k, const float *a, int64_t a_rs, int64_t a_cs,
                          const float *bp, int64_t ps, int64_t pw, float *c, int64_t ldc, float *apack)
{
    if (MRVL_HOST_THREADS == 1 || a_cs != 1 || m * n * k < MRVL_PARALLEL_MACS) {
        gemm_packed_b_serial(m, n, k, a, a_rs, a_cs, bp, ps, pw, c, ldc, apack);
        return;
    }
    gemm_rows_args args = {m, n, k, a_rs, ps, pw, ldc, a, bp, c};
    mrvl_parallel((m + MRVL_GEMM_MR - 1) / MRVL_GEMM_MR, gemm_rows, &args);
}

/* c (m, n) += a (m, k) b (k, n), with A's element (i, p) at a[i * a_rs + p * a_cs] and B's
 * (p, j) at b[p * b_rs + j * b_cs] (so either layout of each works); C's rows ldc apart.
 * `pack`: MRVL_GEMM_PACK_FLOATS(m, n, k) floats for the packed blocks of B and A. */
static void gemm_acc_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t a_rs, int64_t a_cs,
                         const float *b, int64_t b_rs, int64_t b_cs, float *c, int64_t ldc, float *pack)
{
    float *bpack = pack, *apack = pack + min_i64(k, MRVL_GEMM_KC) * (min_i64(n, MRVL_GEMM_NC) + 31);
    for (int64_t jc = 0; jc < n; jc += MRVL_GEMM_NC) {
        int64_t nc = min_i64(MRVL_GEMM_NC, n - jc);
        for (int64_t pc = 0; pc < k; pc += MRVL_GEMM_KC) {
            int64_t kc = min_i64(MRVL_GEMM_KC, k - pc);
            gemm_pack(kc, nc, MRVL_GEMM_NR, b + pc * b_rs + jc * b_cs, b_rs, b_cs, bpack);
            gemm_packed_b(m, nc, kc, a + pc * a_cs, a_rs, a_cs, bpack, kc * MRVL_GEMM_NR, MRVL_GEMM_NR, c + jc, ldc,
                          apack);
        }
    }
}

/* The arguments of one gemm_prepacked by column tiles, for its parallel parts. */
typedef struct {
    int64_t m, n, k, a_rs, ldc;
    const float *a, *bp;
    float *c;
} gemm_panels_args;

/* Column tiles [begin, end) (MRVL_GEMM_NR columns each) of a gemm_prepacked of at most
 * MRVL_GEMM_MC rows: a tile's KC x NR block of B stays in L1 while every row tile of A passes
 * over it, so each tile's part of B is one stream read once, and A (a few rows) stays in L2. */
static void gemm_panels(const void *ctx, int64_t begin, int64_t end)
{
    const gemm_panels_args *g = ctx;
    for (int64_t t = begin; t < end; t++) {
        int64_t j = t * MRVL_GEMM_NR, cols = min_i64(MRVL_GEMM_NR, g->n - j);
        const float *panel = g->bp + j / MRVL_GEMM_PANEL * g->k * MRVL_GEMM_PANEL + j % MRVL_GEMM_PANEL;
        for (int64_t pc = 0; pc < g->k; pc += MRVL_GEMM_KC) {
            int64_t kc = min_i64(MRVL_GEMM_KC, g->k - pc);
            for (int64_t i = 0; i < g->m; i += MRVL_GEMM_PANEL_MR) {
                gemm_micro(kc, g->a + i * g->a_rs + pc, g->a_rs, 1, panel + pc * MRVL_GEMM_PANEL, MRVL_GEMM_PANEL,
                           g->c + i * g->ldc + j, g->ldc, min_i64(MRVL_GEMM_PANEL_MR, g->m - i), cols);
            }
        }
    }
}

/* c (m, n) += a (m, k) b (k, n), A as in gemm_acc_f32 and B packed at compile time: panels of
 * MRVL_GEMM_PANEL columns (zeros past n), each k rows. At most MRVL_GEMM_MC rows of A with
 * contiguous rows (a fully connected layer on a batch, a short sequence) take column tiles
 * over the threads (gemm_panels); more are blocked as gemm_acc_f32 blocks them, without its
 * packing of B, so that a block of B is read from L2 by each block of A's rows. `apack`:
 * (min(m, MC) + 7) * min(k, KC) floats when A is transposed, else unused. */
static void gemm_prepacked(int64_t m, int64_t n, int64_t k, const float *a, int64_t a_rs, int64_t a_cs,
                           const float *bp, float *c, int64_t ldc, float *apack)
{
    int64_t ps = k * MRVL_GEMM_PANEL;
    if (m <= MRVL_GEMM_MC && a_cs == 1) {
        gemm_panels_args args = {m, n, k, a_rs, ldc, a, bp, c};
        int64_t tiles = (n + MRVL_GEMM_NR - 1) / MRVL_GEMM_NR;
        if (m * n * k < MRVL_PARALLEL_MACS) gemm_panels(&args, 0, tiles);
        else mrvl_parallel(tiles, gemm_panels, &args);
        return;
    }
    for (int64_t jc = 0; jc < n; jc += MRVL_GEMM_NC) {
        int64_t nc = min_i64(MRVL_GEMM_NC, n - jc);
        for (int64_t pc = 0; pc < k; pc += MRVL_GEMM_KC) {
            gemm_packed_b(m, nc, min_i64(MRVL_GEMM_KC, k - pc), a + pc * a_cs, a_rs, a_cs,
                          bp + jc / MRVL_GEMM_PANEL * ps + pc * MRVL_GEMM_PANEL, ps, MRVL_GEMM_PANEL, c + jc, ldc, apack);
        }
    }
}

/* Each of the m rows of c (n elements, ldc apart) set to bias[i], or 0 without a bias. */
static void fill_rows_f32(int64_t m, int64_t n, const float *bias, float *c, int64_t ldc)
{
    for (int64_t i = 0; i < m; i++) {
        float v = bias ? bias[i] : 0.0f;
        for (int64_t j = 0; j < n; j++) c[i * ldc + j] = v;
    }
}

/* sum a[p] b[p], p < k, in 16 partial sums so the loop vectorises without reassociation. */
static float dot_f32(int64_t k, const float *restrict a, const float *restrict b)
{
    float part[16] = {0}, sum = 0.0f;
    int64_t whole = k - k % 16;
    for (int64_t p = 0; p < whole; p += 16)
        for (int l = 0; l < 16; l++) part[l] += a[p + l] * b[p + l];
    for (int l = 0; l < 16; l++) sum += part[l];
    for (int64_t p = whole; p < k; p++) sum += a[p] * b[p];
    return sum;
}

typedef struct {
    int64_t m, n, k;
    const float *a, *b;
    float *y;
} gemm_dot_args;

#if defined(__GNUC__)
/* Accumulator vectors of a gemm_dot_tile (rows x MRVL_GEMM_DOT_COLS(rows) dot products),
 * held in registers next to a vector of each row of A and of B (AVX-512 and NEON have 32
 * vector registers, the rest 16: 12 sums there, A read by the multiply-adds from memory). */
#if defined(__AVX512F__) || !(defined(__x86_64__) || defined(__i386__))
#define MRVL_GEMM_DOT_TILE 16
#else
#define MRVL_GEMM_DOT_TILE 12
#endif
/* The cache B's rows are prefetched into: L2 on x86, where a prefetch into L1 evicts the rows
 * of A the next tile reads again (a 4 x 2048 A fills a 32 KiB L1). */
#if defined(__x86_64__) || defined(__i386__)
#define MRVL_GEMM_DOT_PREFETCH_LOCALITY 1
#else
#define MRVL_GEMM_DOT_PREFETCH_LOCALITY 3
#endif

/* y[i][j] += a's row i . b's row j for i < rows (rows and cols constants once inlined) and
 * j < count <= cols: every pair's sums in a vector of its own, so that the multiply-adds of
 * the tile are independent (one chain of them per dot product waits on its latency, and
 * loads B slower than memory delivers it) and each vector of B loaded feeds `rows` of them.
 * Past `count` the tile reads B's last row again and drops those sums. Each product is then
 * summed as dot_f32 sums it (its lanes in order, then the tail), wherever it lies in a tile. */
static MRVL_ALWAYS_INLINE void gemm_dot_tile(int64_t k, const int rows, const int cols, const float *a,
                                             const float *b, int64_t count, float *y, int64_t ldy)
{
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4)));
    /* Arrays no larger than the tile, so that gcc keeps them in registers. */
    const float *bj[MRVL_GEMM_DOT_TILE];
    vec acc[MRVL_GEMM_DOT_TILE];
    for (int j = 0; j < cols; j++) bj[j] = b + min_i64(j, count - 1) * k;
    for (int t = 0; t < rows * cols; t++) acc[t] = (vec){0};
    int64_t whole = k - k % MRVL_GEMM_VECTOR_FLOATS;
    MRVL_MCA_BEGIN("gemm_dot", rows, cols, rows * cols * MRVL_GEMM_VECTOR_FLOATS);
    for (int64_t p = 0; p < whole; p += MRVL_GEMM_VECTOR_FLOATS) {
        for (int j = 0; j < cols; j++) {
            vec vb;
            /* B streams from memory, several rows at once: a prefetch 4 KiB ahead in each keeps
             * up where the hardware prefetcher alone does not (a prefetch past the end is no access). */
            __builtin_prefetch(bj[j] + p + 1024, 0, MRVL_GEMM_DOT_PREFETCH_LOCALITY);
            memcpy(&vb, bj[j] + p, sizeof(vec));
            for (int i = 0; i < rows; i++) {
                vec va;
                memcpy(&va, a + i * k + p, sizeof(vec));
                acc[i * cols + j] += va * vb;
            }
        }
    }
    MRVL_MCA_END("gemm_dot", rows, cols, rows * cols * MRVL_GEMM_VECTOR_FLOATS);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < count && j < cols; j++) {
            float lanes[MRVL_GEMM_VECTOR_FLOATS], sum = 0.0f;
            memcpy(lanes, &acc[i * cols + j], sizeof lanes); /* not acc[..][l]: acc would live in memory */
            for (int l = 0; l < MRVL_GEMM_VECTOR_FLOATS; l++) sum += lanes[l];
            for (int64_t p = whole; p < k; p++) sum += a[i * k + p] * bj[j][p];
            y[i * ldy + j] += sum;
        }
}

/* B's rows per tile for ROWS rows of A: the tile's accumulators, but at most 8 rows of B
 * (more streams of B at once are slower for one row of A). */
#define MRVL_GEMM_DOT_COLS(ROWS) (MRVL_GEMM_DOT_TILE / (ROWS) < 8 ? MRVL_GEMM_DOT_TILE / (ROWS) : 8)
/* B's rows [begin, end) in tiles, for the ROWS rows of A. */
#define MRVL_GEMM_DOT_TILES(ROWS)                                                                       \
    for (int64_t j = begin; j < end; j += MRVL_GEMM_DOT_COLS(ROWS))                                     \
        gemm_dot_tile(g->k, (ROWS), MRVL_GEMM_DOT_COLS(ROWS), g->a, g->b + j * g->k,                   \
                      min_i64(MRVL_GEMM_DOT_COLS(ROWS), end - j), g->y + j, g->n)
#endif

/* y[i][j] += a's row i . b's row j for B's rows j in [begin, end) and every row i: each row of
 * B is read once, from L1 for the m <= MRVL_GEMM_DOT_ROWS rows of A, not once per row of A
 * (a fully connected layer's weights are larger than the caches); with GCC's vector
 * extension in tiles of independent dot products (gemm_dot_tile). */
static void gemm_dots(const void *ctx, int64_t begin, int64_t end)
{
    const gemm_dot_args *g = ctx;
#if defined(__GNUC__)
    switch (g->m) {
    case 1: MRVL_GEMM_DOT_TILES(1); return;
    case 2: MRVL_GEMM_DOT_TILES(2); return;
    case 3: MRVL_GEMM_DOT_TILES(3); return;
    case 4: MRVL_GEMM_DOT_TILES(4); return;
    default: break;
    }
#endif
    for (int64_t j = begin; j < end; j++)
        for (int64_t i = 0; i < g->m; i++) g->y[i * g->n + j] += dot_f32(g->k, g->a + i * g->k, g->b + j * g->k);
}

/* y[i][j] += a's row i . b's row j: gemm_dots over B's rows, on the threads when the
 * product is large enough. */
static void gemm_dot_products(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *y)
{
    gemm_dot_args args = {m, n, k, a, b, y};
    if (m * n * k < MRVL_PARALLEL_MACS) gemm_dots(&args, 0, n);
    else mrvl_parallel(n, gemm_dots, &args); /* B's rows over the threads */
}

/* y (m, n) = alpha * A' B' + beta * C; c may be NULL. With p->packed_b, b is B' packed at
 * compile time (gemm_prepacked; `scratch` as its apack). Else `scratch`:
 * MRVL_GEMM_PACK_FLOATS(m, n, k) floats unless trans_b and m <= MRVL_GEMM_DOT_ROWS (then
 * unused). */
static void mrvl_gemm_f32(const mrvl_gemm_params *p, const float *a, const float *b, const float *c, float *y,
                          float *scratch)
{
    int64_t m = p->m, n = p->n, k = p->k;
    int64_t a_rs = p->trans_a ? 1 : k, a_cs = p->trans_a ? m : 1;
    /* With alpha 1, y starts as beta * C and the product accumulates onto it. */
    int scale_after = p->alpha != 1.0f;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            y[i * n + j] = c && !scale_after ? p->beta * c[i * p->c_row_stride + j * p->c_col_stride] : 0.0f;
    if (p->packed_b) {
        gemm_prepacked(m, n, k, a, a_rs, a_cs, b, y, n, scratch);
    } else if (p->trans_b && m <= MRVL_GEMM_DOT_ROWS && !p->trans_a) {
        gemm_dot_products(m, n, k, a, b, y);
    } else {
        gemm_acc_f32(m, n, k, a, a_rs, a_cs, b, p->trans_b ? 1 : n, p->trans_b ? k : 1, y, n, scratch);
    }
    if (scale_after) {
        for (int64_t i = 0; i < m; i++) {
            for (int64_t j = 0; j < n; j++) {
                float v = p->alpha * y[i * n + j];
                y[i * n + j] = c ? v + p->beta * c[i * p->c_row_stride + j * p->c_col_stride] : v;
            }
        }
    }
}

static void activate_f32(int activation, float alpha, float beta, int64_t count, float *y);

/* Batched matrix product (numpy's matmul), plus `bias` (n, may be NULL) on every row, then
 * clamped and activated as p says (a fused bias Add, Relu or Clip, activation, PRelu with a
 * slope per column): the bias is
 * where the sums start, the rest one pass over the result. A batch whose B is shared and
 * whose A matrices are consecutive is one product of m * batch rows. With p->packed_b, b is
 * the one (k, n) B of every batch packed at compile time (gemm_prepacked), and `scratch` is
 * unused; with p->transposed_b, b is that B's (n, k) transpose, dotted with the few rows of
 * A (gemm_dot_products), and `scratch` unused; else it is MRVL_GEMM_PACK_FLOATS(m * batch,
 * n, k) floats. */
static void mrvl_matmul_f32(const mrvl_matmul_params *p, const float *a, const float *b, const float *bias,
                            float *y, float *scratch)
{
    int64_t idx[MRVL_MAX_RANK] = {0}, batches = 1, ao = 0, bo = 0, rows = p->m;
    int shared_b = 1, stacked_a = 1;
    for (int d = 0; d < p->batch_rank; d++) {
        batches *= p->batch[d];
        shared_b = shared_b && (p->b_batch_stride[d] == 0 || p->batch[d] == 1);
    }
    for (int d = p->batch_rank - 1, expected = 1; d >= 0; d--) {
        stacked_a = stacked_a && (p->batch[d] == 1 || p->a_batch_stride[d] == expected * p->m * p->k);
        expected *= p->batch[d];
    }
    if (shared_b && stacked_a) {
        rows *= batches;
        batches = 1;
    }
    if (bias)
        for (int64_t r = 0; r < rows * batches; r++) memcpy(y + r * p->n, bias, (size_t)p->n * sizeof(float));
    else
        fill_rows_f32(rows * batches, p->n, NULL, y, p->n);
    for (int64_t t = 0; t < batches; t++) {
        if (p->transposed_b) gemm_dot_products(rows, p->n, p->k, a + ao, b, y + t * rows * p->n);
        else if (p->packed_b) gemm_prepacked(rows, p->n, p->k, a + ao, p->k, 1, b, y + t * rows * p->n, p->n, NULL);
        else gemm_acc_f32(rows, p->n, p->k, a + ao, p->k, 1, b + bo, p->n, 1, y + t * rows * p->n, p->n, scratch);
        for (int d = p->batch_rank - 1; d >= 0; d--) {
            idx[d]++;
            ao += p->a_batch_stride[d];
            bo += p->b_batch_stride[d];
            if (idx[d] < p->batch[d]) break;
            ao -= p->a_batch_stride[d] * p->batch[d];
            bo -= p->b_batch_stride[d] * p->batch[d];
            idx[d] = 0;
        }
    }
    int64_t count = rows * batches * p->n;
    if (p->clamp) clamp_f32(count, p->min, p->max, y);
    activate_f32(p->activation, p->alpha, p->beta, count, y);
    if (p->slope)
        for (int64_t r = 0; r < rows * batches; r++)
            for (int64_t j = 0; j < p->n; j++) y[r * p->n + j] = prelu_value(y[r * p->n + j], p->slope[j]);
}
