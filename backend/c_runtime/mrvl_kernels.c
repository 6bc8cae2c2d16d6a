/* mrvl_kernels.c: the C99 host kernels, included by every generated `<model>.c`.
 *
 * Every kernel is `static`: each model gets its own copy with internal linkage, so two models
 * link into one program, and the compiler sees the kernels next to their constant parameters.
 * Kernels the model does not call are dropped by the compiler. Scratch memory (im2col columns,
 * a transposed B) is part of the caller's workspace, planned by the emitter: nothing here
 * allocates.
 */
#include "mrvl_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__SSE__)
#include <immintrin.h>
#endif

/* Threads the large kernels split their work over (the bundle's Makefile passes HOST_THREADS,
 * mrvl-compile --host-threads): the calling thread and MRVL_HOST_THREADS - 1 workers. */
#ifndef MRVL_HOST_THREADS
#define MRVL_HOST_THREADS 1
#endif
#if MRVL_HOST_THREADS > 1
#include <pthread.h>
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* a model calls only some kernels */
#endif

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

/* --- Threads --------------------------------------------------------------------------- */

/* A share of a kernel's work: the items [begin, end) of the `count` it splits. */
typedef void (*mrvl_task)(const void *ctx, int64_t begin, int64_t end);

/* Part `part` of MRVL_HOST_THREADS equal, contiguous parts of [0, count). Which thread takes
 * an item depends on nothing but count, and each item is computed the same way wherever it
 * runs, so the output bits are the same for any thread count. */
static void mrvl_part(int64_t count, int part, int64_t *begin, int64_t *end)
{
    *begin = count * part / MRVL_HOST_THREADS;
    *end = count * (part + 1) / MRVL_HOST_THREADS;
}

#if MRVL_HOST_THREADS > 1
/* The pool: MRVL_HOST_THREADS - 1 workers, started once by the first parallel call and
 * spinning a little, then waiting on a condition variable between calls; static storage,
 * nothing allocated. `generation` and `pending` are also read without the lock while
 * spinning (atomically; written under it). One call
 * at a time (`busy`), so two threads may run the model. */
static struct {
    pthread_once_t once;
    pthread_mutex_t busy, lock;
    pthread_cond_t start, done;
    pthread_t workers[MRVL_HOST_THREADS - 1];
    unsigned long generation; /* bumped by each call: a worker's signal to go */
    int pending;              /* workers still running the current call */
    mrvl_task fn;
    const void *ctx;
    int64_t count;
} mrvl_pool = {.once = PTHREAD_ONCE_INIT, .busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER,
               .start = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

/* Spins (each a pause) a thread waits before it sleeps on a condition variable: a kernel
 * follows the last within microseconds, and waking a sleeping thread costs tens of them. */
#ifndef MRVL_POOL_SPINS
#define MRVL_POOL_SPINS 20000
#endif

static inline void mrvl_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void *mrvl_worker(void *arg)
{
    int part = (int)(intptr_t)arg;
    unsigned long seen = 0;
    for (;;) {
        for (int spin = 0; spin < MRVL_POOL_SPINS && __atomic_load_n(&mrvl_pool.generation, __ATOMIC_ACQUIRE) == seen;
             spin++)
            mrvl_pause();
        pthread_mutex_lock(&mrvl_pool.lock);
        while (mrvl_pool.generation == seen) pthread_cond_wait(&mrvl_pool.start, &mrvl_pool.lock);
        seen = mrvl_pool.generation;
        mrvl_task fn = mrvl_pool.fn;
        const void *ctx = mrvl_pool.ctx;
        int64_t begin, end;
        mrvl_part(mrvl_pool.count, part, &begin, &end);
        pthread_mutex_unlock(&mrvl_pool.lock);
        if (begin < end) fn(ctx, begin, end);
        pthread_mutex_lock(&mrvl_pool.lock);
        if (__atomic_sub_fetch(&mrvl_pool.pending, 1, __ATOMIC_RELEASE) == 0) pthread_cond_signal(&mrvl_pool.done);
        pthread_mutex_unlock(&mrvl_pool.lock);
    }
    return NULL;
}

static void mrvl_pool_start(void)
{
    for (int t = 1; t < MRVL_HOST_THREADS; t++)
        pthread_create(&mrvl_pool.workers[t - 1], NULL, mrvl_worker, (void *)(intptr_t)t);
}
#endif

/* fn(ctx, begin, end) over [0, count), split into MRVL_HOST_THREADS parts run at once (the
 * calling thread takes part 0); returns when all are done. */
static void mrvl_parallel(int64_t count, mrvl_task fn, const void *ctx)
{
#if MRVL_HOST_THREADS > 1
    if (count > 1) {
        pthread_once(&mrvl_pool.once, mrvl_pool_start);
        pthread_mutex_lock(&mrvl_pool.busy);
        pthread_mutex_lock(&mrvl_pool.lock);
        mrvl_pool.fn = fn;
        mrvl_pool.ctx = ctx;
        mrvl_pool.count = count;
        __atomic_store_n(&mrvl_pool.pending, MRVL_HOST_THREADS - 1, __ATOMIC_RELAXED);
        __atomic_store_n(&mrvl_pool.generation, mrvl_pool.generation + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&mrvl_pool.start);
        pthread_mutex_unlock(&mrvl_pool.lock);
        int64_t begin, end;
        mrvl_part(count, 0, &begin, &end);
        if (begin < end) fn(ctx, begin, end);
        for (int spin = 0; spin < MRVL_POOL_SPINS && __atomic_load_n(&mrvl_pool.pending, __ATOMIC_ACQUIRE); spin++)
            mrvl_pause();
        pthread_mutex_lock(&mrvl_pool.lock);
        while (mrvl_pool.pending) pthread_cond_wait(&mrvl_pool.done, &mrvl_pool.lock);
        pthread_mutex_unlock(&mrvl_pool.lock);
        pthread_mutex_unlock(&mrvl_pool.busy);
        return;
    }
#endif
    if (count > 0) fn(ctx, 0, count);
}

/* v clamped to [low, high]: a max, then a min (in vector loops each x86's instruction, whose
 * rule keeps a NaN; GCC made the nested conditional a compare and a blend, a fifth of a
 * depthwise conv's time, or where the loop did not vectorise a branch on the value). */
static inline float clamp_value(float v, float low, float high)
{
    v = v < low ? low : v;
    return v > high ? high : v;
}

/* A PRelu's v < 0 ? slope * v : v: a select, as clamp_value is, which vectorises to a compare
 * and a blend; a NaN stays a NaN (as onnxruntime's PRelu keeps it). */
static inline float prelu_value(float v, float slope)
{
    return v < 0.0f ? slope * v : v;
}

/* y[i] clamped to [low, high] for i < count, in place. */
static void clamp_f32(int64_t count, float low, float high, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = clamp_value(y[i], low, high);
}

/* --- Matrix products ------------------------------------------------------------------ */

#if defined(__GNUC__)
#define MRVL_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define MRVL_ALWAYS_INLINE
#endif

/* The register tile of gemm_micro: MR rows of C by NR columns, held in vector registers for
 * a whole KC-deep product, so each loaded element of B feeds MR multiply-adds and each of A
 * feeds NR. Sized to the target's registers (accumulators plus B's row and a broadcast A):
 * AVX-512 12 of 32 zmm, AVX 12 of 16 ymm, NEON (and other 32-register ISAs) 16 of 32, SSE2
 * 8 of 16 xmm. Larger tiles spill and smaller ones leave the multiply-add units idle. */
#if defined(__AVX512F__)
#define MRVL_GEMM_MR 6
#define MRVL_GEMM_NR 32
#define MRVL_GEMM_VECTOR_FLOATS 16
#elif defined(__AVX__)
#define MRVL_GEMM_MR 6
#define MRVL_GEMM_NR 16
#define MRVL_GEMM_VECTOR_FLOATS 8
#elif defined(__x86_64__) || defined(__i386__)
#define MRVL_GEMM_MR 4
#define MRVL_GEMM_NR 8
#define MRVL_GEMM_VECTOR_FLOATS 4
#else
#define MRVL_GEMM_MR 4
#define MRVL_GEMM_NR 16
#define MRVL_GEMM_VECTOR_FLOATS 4
#endif
#define MRVL_GEMM_VECTORS (MRVL_GEMM_NR / MRVL_GEMM_VECTOR_FLOATS)
/* The tile height of a product of few rows on B packed at compile time (gemm_panels): with
 * AVX-512's 32 registers 8 rows (16 sums) fit, and a batch of 8 is one tile (measured 25%
 * faster than tiles of 6 and 2 on a 2048-wide layer); elsewhere MR. */
#if defined(__AVX512F__)
#define MRVL_GEMM_PANEL_MR 8
#else
#define MRVL_GEMM_PANEL_MR MRVL_GEMM_MR
#endif

/* Block sizes of gemm_acc_f32: a packed KC x NC block of B (at most 256 KiB) stays in L2, a
 * packed MC x KC block of A (at most 96 KiB) in L2 too, and one KC x NR panel of B in L1
 * while the MC rows of A pass over it. */
#define MRVL_GEMM_NC 256
#define MRVL_GEMM_KC 256
#define MRVL_GEMM_MC 96

/* Floats of packing scratch gemm_acc_f32 needs for an (m, n, k) product, for any tile size
 * up to 8 x 32 (plan-host-memory reserves the same: mrvl_dialect/host_kernels.py gemm_pack_floats); the
 * part after B's, for A, is not used when A's rows are contiguous (a_cs 1). */
#define MRVL_GEMM_PACK_FLOATS(m, n, k)                                                        \
    (min_i64((k), MRVL_GEMM_KC) * (min_i64((n), MRVL_GEMM_NC) + 31 + min_i64((m), MRVL_GEMM_MC) + 7))

/* c (mr x cols of an MR x NR tile, rows ldc apart) += a (mr x kc, element (i, p) at
 * a[i * a_rs + p * a_cs]) bp (kc x NR, row p at bp + p * b_rs: a panel of B). The
 * accumulators start at 0 and are added to c once, each a multiply-add of B's row by a
 * broadcast element of A, so no sum is reassociated. Always inlined with a constant mr (at
 * most MR, or MRVL_GEMM_PANEL_MR for gemm_panels: gemm_micro), so that a short tile does
 * only its own rows' multiply-adds. With GCC's
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
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < MRVL_GEMM_VECTORS; v++) va[i][v] = (vec){0};
    for (int64_t p = 0; p < kc; p++, bp += b_rs) {
        const vec *b = (const vec *)(const void *)bp;
        for (int i = 0; i < mr; i++) {
            float x = row[i][p * a_cs]; /* vector times scalar: the scalar is broadcast */
            for (int v = 0; v < MRVL_GEMM_VECTORS; v++) va[i][v] += b[v] * x;
        }
    }
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < MRVL_GEMM_VECTORS; v++)
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

/* Below this many multiply-adds a product is not split over threads: waking them costs more. */
#define MRVL_PARALLEL_MACS 200000

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

/* Columns per panel of a constant B packed at compile time (mrvl_dialect/host_kernels.py
 * pack_gemm_weights): a multiple of every target's MRVL_GEMM_NR, so one layout serves all. */
#define MRVL_GEMM_PANEL 32

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

/* Rows of A at most this many with a transposed B: dot products along B's rows beat
 * transposing B first (a fully connected layer on one sample is a matrix-vector product). */
#define MRVL_GEMM_DOT_ROWS 4

typedef struct {
    int64_t m, n, k;
    const float *a, *b;
    float *y;
} gemm_dot_args;

#if defined(__GNUC__)
/* Accumulator vectors of a gemm_dot_tile (rows x MRVL_GEMM_DOT_COLS(rows) dot products),
 * held in registers next to a vector of each row of A and of B (AVX-512 and NEON have 32
 * vector registers, the rest 16). */
#if defined(__AVX512F__) || !(defined(__x86_64__) || defined(__i386__))
#define MRVL_GEMM_DOT_TILE 16
#else
#define MRVL_GEMM_DOT_TILE 8
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
    for (int64_t p = 0; p < whole; p += MRVL_GEMM_VECTOR_FLOATS) {
        for (int j = 0; j < cols; j++) {
            vec vb;
            /* B streams from memory, several rows at once: 4 KiB ahead in each measured ~10%
             * faster than the hardware prefetcher alone (a prefetch past the end is no access). */
            __builtin_prefetch(bj[j] + p + 1024);
            memcpy(&vb, bj[j] + p, sizeof(vec));
            for (int i = 0; i < rows; i++) {
                vec va;
                memcpy(&va, a + i * k + p, sizeof(vec));
                acc[i * cols + j] += va * vb;
            }
        }
    }
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
 * (more streams of B at once measured slower for one row of A). */
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
        gemm_dot_args args = {m, n, k, a, b, y};
        if (m * n * k < MRVL_PARALLEL_MACS) gemm_dots(&args, 0, n);
        else mrvl_parallel(n, gemm_dots, &args); /* B's rows over the threads */
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
 * unused; else it is MRVL_GEMM_PACK_FLOATS(m * batch, n, k) floats. */
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
        if (p->packed_b) gemm_prepacked(rows, p->n, p->k, a + ao, p->k, 1, b, y + t * rows * p->n, p->n, NULL);
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

/* --- Convolution and pooling ------------------------------------------------------------ */

/* The output range [lo, hi) whose input index o * stride + offset lies in [0, size). */
static void valid_range(int64_t out, int64_t size, int64_t stride, int64_t offset, int64_t *lo, int64_t *hi)
{
    int64_t a = -offset, b = size - 1 - offset;
    int64_t l = a <= 0 ? 0 : (a + stride - 1) / stride;
    int64_t h = b < 0 ? 0 : b / stride + 1;
    *lo = l;
    *hi = h < out ? h : out;
    if (*hi < *lo) *hi = *lo;
}

static int64_t volume3(const int64_t *d) { return d[0] * d[1] * d[2]; }

/* Convolution as an implicit matrix product: output positions (rows) x output channels
 * (columns), summed over (input channel, kernel tap). The weights are packed (at compile time
 * when they are constants, see mrvl_conv_pack_weights_f32) so that a tap's output channels
 * are contiguous: vectors of them are the product's B. The input is read in place as A: the
 * element under tap (c, kz, ky, kx) of the window at an output position lies a fixed distance
 * from the window's corner, the same for every position, so one table of those distances and
 * one pointer per position stand for the im2col matrix, which is never written. A padded conv
 * reads a zero-padded copy of its input instead (the only copy). The tile is MRVL_CONV_MR
 * positions by MRVL_GEMM_NR channels, summed in registers over the whole depth and stored
 * once, transposed into NCHW, with the bias added. */
/* Output positions per conv tile, and per narrow tile (below): with AVX-512's 32 registers,
 * 12 (24 sums of 2 x 12 vectors) measured 5-10% faster than 8 on ResNet's convs, more
 * weights read from the caches per multiply-add; the narrow tile keeps 16 rows (24 spill the
 * row pointers). */
#if defined(__AVX512F__)
#define MRVL_CONV_MR 12
#define MRVL_CONV_SHORT_MR 8 /* for planes that 8s fill better than 12s (conv_short_tiles_pay) */
#define MRVL_CONV_NARROW_MR 16
#define MRVL_CONV_LONG_TILES 1
#else
#define MRVL_CONV_LONG_TILES 0
#define MRVL_CONV_MR MRVL_GEMM_MR
#define MRVL_CONV_SHORT_MR MRVL_GEMM_MR
#define MRVL_CONV_NARROW_MR (2 * MRVL_GEMM_MR)
#endif
/* Output channels per panel of packed weights: a multiple of every target's vector width. */
#define MRVL_CONV_PANEL 16
/* How many rows of a weight panel (a 64-byte line each) conv_micro asks the caches for ahead
 * of the row it multiplies: a deep conv on a small plane (ResNet's last stages) streams its
 * weights from memory, once per channel block, faster than the hardware prefetchers fetch
 * them (measured: a cold 512 -> 2048 1x1 conv at 7x7, 791 -> 618 us; 64 rows beat 8, 32, 128). */
#define MRVL_CONV_PREFETCH_ROWS 64
/* Packed output channels are rounded up to a multiple of this (zeros), the widest tile. */
#define MRVL_CONV_CHANNEL_ALIGN 32

/* Packed weights of one group: mg output channels rounded up to MRVL_CONV_CHANNEL_ALIGN, in
 * panels of MRVL_CONV_PANEL channels, each panel depth rows of MRVL_CONV_PANEL floats. */
static int64_t conv_packed_group_floats(int64_t mg, int64_t depth)
{
    return (mg + MRVL_CONV_CHANNEL_ALIGN - 1) / MRVL_CONV_CHANNEL_ALIGN * MRVL_CONV_CHANNEL_ALIGN * depth;
}

/* w (m, c/group, kernel) into the packed layout, group after group (the C emitter packs
 * constant weights the same way at compile time: mrvl_dialect/host_kernels.py pack_conv_weights). */
static void mrvl_conv_pack_weights_f32(const mrvl_conv_params *p, const float *w, float *packed)
{
    int64_t mg = p->m / p->group, depth = p->c / p->group * volume3(p->kernel);
    int64_t channels = conv_packed_group_floats(mg, depth) / depth;
    for (int64_t g = 0; g < p->group; g++, w += mg * depth) {
        for (int64_t q = 0; q < channels / MRVL_CONV_PANEL; q++) {
            for (int64_t r = 0; r < depth; r++, packed += MRVL_CONV_PANEL) {
                for (int j = 0; j < MRVL_CONV_PANEL; j++) {
                    int64_t m = q * MRVL_CONV_PANEL + j;
                    packed[j] = m < mg ? w[m * depth + r] : 0.0f;
                }
            }
        }
    }
}

/* The narrow conv tile (MRVL_CONV_NARROW_MR rows, above) is for convs of at most
 * MRVL_GEMM_NR / 2 output channels per group (a 16-channel stem on AVX-512 would fill half the
 * wide tile): more positions, half the channel vectors. */

/* out[i * vecs * VF + j] = sum over r < depth of row[i][tap[r]] * channel j of packed row r,
 * for the mr x (vecs vectors) tile; vector v of the channels is read at b[v] + r *
 * MRVL_CONV_PANEL. Each element of A is one broadcast times B's vectors, summed in order.
 * Always inlined with constant mr and vecs (conv_tiles_wide, conv_tiles_narrow), so that the
 * sums stay in registers. */
static MRVL_ALWAYS_INLINE void conv_micro(int mr, int vecs, int64_t depth, const float *const *row,
                                          const int32_t *tap, const float *const *b, float *out)
{
    int width = vecs * MRVL_GEMM_VECTOR_FLOATS;
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    vec acc[MRVL_CONV_NARROW_MR + MRVL_CONV_LONG_TILES][MRVL_GEMM_VECTORS];
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < vecs; v++) acc[i][v] = (vec){0};
    for (int64_t r = 0; r < depth; r++) {
        int32_t t = tap[r];
        vec bv[MRVL_GEMM_VECTORS];
        for (int v = 0; v < vecs; v++) bv[v] = *(const vec *)(const void *)(b[v] + r * MRVL_CONV_PANEL);
        for (int v = 0; v < vecs; v += MRVL_CONV_PANEL / MRVL_GEMM_VECTOR_FLOATS) /* a line per panel */
            __builtin_prefetch(b[v] + (r + MRVL_CONV_PREFETCH_ROWS) * MRVL_CONV_PANEL);
        for (int i = 0; i < mr; i++) {
            float x = row[i][t];
            for (int v = 0; v < vecs; v++) acc[i][v] += bv[v] * x;
        }
    }
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < vecs; v++)
            for (int j = 0; j < MRVL_GEMM_VECTOR_FLOATS; j++)
                out[i * width + v * MRVL_GEMM_VECTOR_FLOATS + j] = acc[i][v][j];
#else
    for (int i = 0; i < mr * width; i++) out[i] = 0.0f;
    for (int64_t r = 0; r < depth; r++)
        for (int i = 0; i < mr; i++)
            for (int v = 0; v < vecs; v++)
                for (int j = 0; j < MRVL_GEMM_VECTOR_FLOATS; j++)
                    out[i * width + v * MRVL_GEMM_VECTOR_FLOATS + j] += row[i][tap[r]] * b[v][r * MRVL_CONV_PANEL + j];
#endif
}

/* The extent of input a conv's windows read, per spatial dim: its padded input when it pads,
 * else the input itself. Returns whether a padded copy is needed. */
static int conv_read_extent(const mrvl_conv_params *p, int64_t dims[MRVL_SPATIAL])
{
    int padded = 0;
    for (int i = 0; i < MRVL_SPATIAL; i++) {
        dims[i] = (p->out[i] - 1) * p->stride[i] + (p->kernel[i] - 1) * p->dilation[i] + 1;
        padded = padded || p->pad[i] != 0 || dims[i] > p->in[i];
    }
    if (!padded)
        for (int i = 0; i < MRVL_SPATIAL; i++) dims[i] = p->in[i];
    return padded;
}

/* cg planes of x (in) into planes of dims, shifted by the leading pads, zeros around. */
static void conv_pad_input(const mrvl_conv_params *p, int64_t cg, const float *x, const int64_t dims[MRVL_SPATIAL],
                           float *restrict padded)
{
    const int64_t *in = p->in, *pad = p->pad;
    int64_t x0 = pad[2] < dims[2] ? pad[2] : dims[2], x1 = min_i64(dims[2], pad[2] + in[2]);
    for (int64_t c = 0; c < cg; c++, x += volume3(in)) {
        for (int64_t z = 0; z < dims[0]; z++) {
            for (int64_t yy = 0; yy < dims[1]; yy++, padded += dims[2]) {
                int64_t iz = z - pad[0], iy = yy - pad[1];
                if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1] || x1 <= x0) {
                    memset(padded, 0, (size_t)dims[2] * sizeof(float));
                    continue;
                }
                for (int64_t xx = 0; xx < x0; xx++) padded[xx] = 0.0f;
                memcpy(padded + x0, x + (iz * in[1] + iy) * in[2] + (x0 - pad[2]), (size_t)(x1 - x0) * sizeof(float));
                for (int64_t xx = x1; xx < dims[2]; xx++) padded[xx] = 0.0f;
            }
        }
    }
}

/* The activation loops (activate_f32's too) are functions of their own, not inlined: inlined
 * into a caller (a conv's tile store, activate_f32's switch) GCC vectorises none of them (its
 * if-conversion gives up); HardSwish ran 8x slower so. */
#if defined(__GNUC__)
#define MRVL_NOINLINE __attribute__((noinline))
#else
#define MRVL_NOINLINE
#endif

/* e^t for -87 <= t <= 88 (where e^t is a normal float) without a libm call, so loops over it
 * vectorise. t = n ln2 + r with |r| <= ln2 / 2 (n rounded by the 1.5 * 2^23 trick, ln2 in two
 * parts so n ln2 is exact enough); e^r by its Taylor series to r^7 (relative error below
 * 1e-8); 2^n written into the exponent bits. */
static float exp_normal_f32(float t)
{
    float n = (t * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = (t - n * 0.693145752f) - n * 1.42860677e-6f;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits = ((int32_t)n + 127) * (1 << 23);
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* e^x for x <= 0 (softmax's inputs less their maximum, erf's -x^2): below -87 (where e^x is
 * subnormal) 0; NaN stays NaN. */
static float exp_nonpositive_f32(float x)
{
    float t = x > -87.0f ? x : -87.0f; /* also maps NaN to -87: the conversion needs a number */
    float e = exp_normal_f32(t < 0.0f ? t : 0.0f);
    return x != x ? x : (x < -87.0f ? 0.0f : e);
}

MRVL_NOINLINE static void mrvl_leaky_relu_f32(int64_t count, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
}

/* The activations written in vectors (defined with the vectors, below). */
static void mrvl_hard_sigmoid_f32(int64_t count, float alpha, float beta, const float *x, float *y);
static void mrvl_hard_swish_f32(int64_t count, const float *x, float *y);
static void sigmoid_loop_f32(int64_t count, const float *x, float *y);
static void silu_loop_f32(int64_t count, float *y);
static void mish_loop_f32(int64_t count, const float *x, float *y);

static void mrvl_unary_f32(int kind, int64_t count, const float *x, float *y);

/* A fused activation (enum mrvl_epilogue_kind, with its alpha and beta) over `count` floats
 * at y, in place; a PRelu is none here: its slope is per channel, applied by the caller. */
static void activate_f32(int activation, float alpha, float beta, int64_t count, float *y)
{
    switch (activation) {
    case MRVL_EPILOGUE_LEAKY_RELU: mrvl_leaky_relu_f32(count, alpha, y, y); break;
    case MRVL_EPILOGUE_SIGMOID: sigmoid_loop_f32(count, y, y); break;
    case MRVL_EPILOGUE_SILU: silu_loop_f32(count, y); break;
    case MRVL_EPILOGUE_HARD_SIGMOID: mrvl_hard_sigmoid_f32(count, alpha, beta, y, y); break;
    case MRVL_EPILOGUE_HARD_SWISH: mrvl_hard_swish_f32(count, y, y); break;
    case MRVL_EPILOGUE_GELU: mrvl_unary_f32(MRVL_GELU, count, y, y); break;
    case MRVL_EPILOGUE_GELU_TANH: mrvl_unary_f32(MRVL_GELU_TANH, count, y, y); break;
    case MRVL_EPILOGUE_MISH: mish_loop_f32(count, y, y); break;
    default: break;
    }
}

/* A conv's fused activation over `count` floats at y, in place. */
static void conv_activate(const mrvl_conv_params *p, int64_t count, float *y)
{
    activate_f32(p->activation, p->alpha, p->beta, count, y);
}

/* A conv's per-channel epilogue over one plane of a channel (`count` floats at y), in place:
 * its PRelu with slope *slope, then times *scale, plus *shift (each pointer may be NULL: no
 * PRelu, 1, 0). */
static void conv_per_channel(const float *slope, const float *scale, const float *shift, int64_t count, float *y)
{
    if (slope) {
        float a = *slope;
        for (int64_t i = 0; i < count; i++) y[i] = prelu_value(y[i], a);
    }
    if (scale) {
        float s = *scale;
        for (int64_t i = 0; i < count; i++) y[i] *= s;
    }
    if (shift) {
        float t = *shift;
        for (int64_t i = 0; i < count; i++) y[i] += t;
    }
}

/* A conv's epilogue over `count` outputs at y (the sums and bias; planes of `positions`, the
 * first of output channel `channel`): plus the residual r (laid out as y; may be NULL), then
 * clamped when the conv clamps, then its activation (a PRelu: per channel), then its
 * per-channel scale and shift. Each a loop of its own, so that they vectorise. */
static void conv_epilogue(const mrvl_conv_params *p, int64_t count, int64_t positions, int64_t channel,
                          const float *r, float *y)
{
    if (r)
        for (int64_t i = 0; i < count; i++) y[i] += r[i];
    if (p->clamp) clamp_f32(count, p->min, p->max, y);
    conv_activate(p, count, y);
    if (p->slope || p->scale || p->shift) /* per channel: count / positions planes, from `channel` on */
        for (int64_t q = 0; q < count / positions; q++) {
            int64_t m = (channel + q) % p->m;
            conv_per_channel(p->slope ? p->slope + m : NULL, p->scale ? p->scale + m : NULL,
                             p->shift ? p->shift + m : NULL, positions, y + q * positions);
        }
}

/* The epilogue of a tile of mrvl_conv_f32 (rows of its mr positions x cols of its width
 * channels, at acc[i * width + j]), in place: the bias (per channel, may be NULL), the
 * residual (at r, laid out as y; may be NULL), the clamp, the activation, the PRelu's slope
 * and the scale and shift per channel (may be NULL). Bias, clamp and activation run over the tile's channels,
 * which vectorises; only the residual is read transposed (channel rows `positions` apart).
 * The residual is added in a pass of its own, not clamped and stored with it: GCC branches
 * on that pass's clamp, and a Relu's sign is a coin toss (ResNet-50's 512 -> 2048 1x1 conv
 * with its residual at 7x7 811 -> 493 us). */
static void conv_tile_epilogue(const mrvl_conv_params *p, int mr, int width, float *acc, const float *b,
                               const float *r, const float *slope, const float *scale, const float *shift,
                               int64_t positions, int64_t rows, int64_t cols)
{
    if (b) {
        float bias[MRVL_GEMM_NR] = {0};
        for (int64_t j = 0; j < cols; j++) bias[j] = b[j];
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < width; j++) acc[i * width + j] += bias[j];
    }
    if (r)
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) acc[i * width + j] += r[j * positions + i];
    if (p->clamp)
        for (int i = 0; i < mr * width; i++) acc[i] = clamp_value(acc[i], p->min, p->max);
    conv_activate(p, mr * width, acc);
    if (slope) {
        float a[MRVL_GEMM_NR];
        for (int64_t j = 0; j < width; j++) a[j] = j < cols ? slope[j] : 0.0f;
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < width; j++) acc[i * width + j] = prelu_value(acc[i * width + j], a[j]);
    }
    if (scale || shift) {
        float sc[MRVL_GEMM_NR], sh[MRVL_GEMM_NR];
        for (int64_t j = 0; j < width; j++) {
            sc[j] = scale && j < cols ? scale[j] : 1.0f;
            sh[j] = shift && j < cols ? shift[j] : 0.0f;
        }
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < width; j++) acc[i * width + j] = acc[i * width + j] * sc[j] + sh[j];
    }
}

#if defined(__GNUC__)
typedef float conv_vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4)));
typedef int32_t conv_mask __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4)));
#if MRVL_GEMM_VECTOR_FLOATS == 16
#define MRVL_CONV_ZIP_LO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define MRVL_CONV_ZIP_HI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#elif MRVL_GEMM_VECTOR_FLOATS == 8
#define MRVL_CONV_ZIP_LO 0, 8, 1, 9, 2, 10, 3, 11
#define MRVL_CONV_ZIP_HI 4, 12, 5, 13, 6, 14, 7, 15
#else
#define MRVL_CONV_ZIP_LO 0, 4, 1, 5
#define MRVL_CONV_ZIP_HI 2, 6, 3, 7
#endif

/* t (VF vectors of VF floats) transposed in registers: log2 VF rounds, each interleaving the
 * first half of the vectors with the second (lower halves into even vectors, upper halves
 * into odd ones; NEON zip1 and zip2, AVX-512 vpermt2ps). */
static MRVL_ALWAYS_INLINE void conv_transpose(conv_vec *t)
{
    enum { VF = MRVL_GEMM_VECTOR_FLOATS };
    for (int round = 1; round < VF; round *= 2) {
        conv_vec next[VF];
        for (int i = 0; i < VF / 2; i++) {
#if defined(__clang__)
            next[2 * i] = __builtin_shufflevector(t[i], t[i + VF / 2], MRVL_CONV_ZIP_LO);
            next[2 * i + 1] = __builtin_shufflevector(t[i], t[i + VF / 2], MRVL_CONV_ZIP_HI);
#else
            next[2 * i] = __builtin_shuffle(t[i], t[i + VF / 2], (conv_mask){MRVL_CONV_ZIP_LO});
            next[2 * i + 1] = __builtin_shuffle(t[i], t[i + VF / 2], (conv_mask){MRVL_CONV_ZIP_HI});
#endif
        }
        for (int i = 0; i < VF; i++) t[i] = next[i];
    }
}
#endif

/* The tile (rows of its mr positions x cols of its width channels, at acc[i * width + j])
 * transposed into NCHW at y (channel rows `positions` apart). Blocks of VF positions x VF
 * channels are transposed in registers (conv_transpose) and each channel's run of positions
 * stored at once, instead of a scalar store per output (which cost convs of few input
 * channels as much as their multiply-adds). Always inlined with constant mr and width. */
static MRVL_ALWAYS_INLINE void conv_store_transposed(int mr, int width, const float *acc, float *y,
                                                     int64_t positions, int64_t rows, int64_t cols)
{
#if defined(__GNUC__)
    enum { VF = MRVL_GEMM_VECTOR_FLOATS };
    for (int i0 = 0; i0 < mr && i0 < rows; i0 += VF) {
        int part = mr - i0 < VF ? mr - i0 : VF; /* the block's positions, constant */
        int64_t n = min_i64(rows - i0, part);
        for (int j0 = 0; j0 < width && j0 < cols; j0 += VF) {
            conv_vec t[VF];
            for (int i = 0; i < VF; i++) {
                t[i] = (conv_vec){0};
                if (i < part) memcpy(&t[i], acc + (i0 + i) * width + j0, sizeof t[i]);
            }
            conv_transpose(t);
            for (int j = 0; j < VF && j0 + j < cols; j++) {
                float *dst = y + (j0 + j) * positions + i0;
                if (n == part) memcpy(dst, &t[j], (size_t)part * sizeof(float));
                else memcpy(dst, &t[j], (size_t)n * sizeof(float));
            }
        }
    }
#else
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) y[j * positions + i] = acc[i * width + j];
#endif
}

/* What the tiles of one image and group of mrvl_conv_f32 read and write. */
typedef struct {
    const mrvl_conv_params *p;
    const float *base;            /* the (padded) input of the group */
    int64_t dims[MRVL_SPATIAL];   /* its extent */
    const int32_t *tap;           /* the tap table */
    int64_t depth, mg, positions;
    int channel_major;            /* the items channel block after channel block (conv_tiles) */
    const float *w, *b, *r;       /* the group's packed weights, bias, residual (b, r may be NULL) */
    const float *slope;           /* the group's PRelu slopes (may be NULL) */
    const float *scale, *shift;   /* the group's per-channel scale and shift (may be NULL) */
    float *y;                     /* the group's output */
} conv_tiles_args;

/* The mr x (vecs vectors) tile of rows `row` (positions o0...) and channels j0..., summed and
 * stored; rows of it are output positions. */
static MRVL_ALWAYS_INLINE void conv_tile(int mr, int vecs, const conv_tiles_args *a, const float *const *row,
                                         const float *const *bv, int64_t o0, int64_t j0, int64_t rows)
{
    int width = vecs * MRVL_GEMM_VECTOR_FLOATS;
    int64_t positions = a->positions;
    float acc[(MRVL_CONV_NARROW_MR + MRVL_CONV_LONG_TILES) * MRVL_GEMM_NR];
    int64_t cols = min_i64(width, a->mg - j0);
    float *y = a->y + j0 * positions + o0;
    conv_micro(mr, vecs, a->depth, row, a->tap, bv, acc);
    conv_tile_epilogue(a->p, mr, width, acc, a->b ? a->b + j0 : NULL, a->r ? a->r + j0 * positions + o0 : NULL,
                       a->slope ? a->slope + j0 : NULL, a->scale ? a->scale + j0 : NULL,
                       a->shift ? a->shift + j0 : NULL, positions, rows, cols);
    conv_store_transposed(mr, width, acc, y, positions, rows, cols);
}

/* Of the tiles of mr positions on a plane of `positions`, how many take a position more
 * (the last ones; MRVL_CONV_LONG_TILES): the positions past whole tiles, when there are no
 * more of them than whole tiles. A 7 x 7 plane is 3 tiles of 12 and 1 of 13, not 4 and a
 * short one of 1 (which costs as much as a third of a whole one: few sums to hide the
 * multiply-adds' latency); a 14 x 14 one 12 of 12 and 4 of 13. */
static int64_t conv_long_tiles(int64_t positions, int64_t mr)
{
    return MRVL_CONV_LONG_TILES && positions % mr <= positions / mr ? positions % mr : 0;
}

/* The tiles of mr positions (some long, above; else the last may be short) on a plane. */
static int64_t conv_tile_count(int64_t positions, int64_t mr)
{
    int64_t longer = conv_long_tiles(positions, mr);
    return (positions - longer * (mr + 1) + mr - 1) / mr + longer;
}

/* Items [begin, end) of a group: tiles of mr positions (the last ones long, or the last
 * short: conv_tile_count) by blocks of vecs vectors of channels, position tile after position
 * tile, or with channel_major block after block. */
static MRVL_ALWAYS_INLINE void conv_tiles(int mr, int vecs, const conv_tiles_args *a, int64_t begin, int64_t end)
{
    const mrvl_conv_params *p = a->p;
    const int64_t *out = p->out, *s = p->stride, *dims = a->dims;
    int64_t positions = a->positions, mg = a->mg, depth = a->depth, tile = -1, rows = 0;
    int width = vecs * MRVL_GEMM_VECTOR_FLOATS;
    int64_t tiles = conv_tile_count(positions, mr), blocks = (mg + width - 1) / width;
    int64_t whole = tiles - conv_long_tiles(positions, mr); /* the tiles of mr positions at most */
    /* Set by the first item (tile -1 differs from any). */
    const float *row[MRVL_CONV_NARROW_MR + MRVL_CONV_LONG_TILES] = {0};
    for (int64_t item = begin; item < end; item++) {
        int64_t t = a->channel_major ? item % tiles : item / blocks;
        int64_t j0 = (a->channel_major ? item / tiles : item % blocks) * width;
        int64_t o0 = t * mr + (t > whole ? t - whole : 0);
        if (t != tile) {
            /* The window corner of each row, its output position counted, not divided, per row. */
            int64_t at[MRVL_SPATIAL] = {o0 / (out[1] * out[2]), o0 / out[2] % out[1], o0 % out[2]};
            const float *corner = a->base;
            tile = t;
            rows = t < whole ? min_i64(mr, positions - o0) : mr + 1;
            for (int i = 0; i < mr + MRVL_CONV_LONG_TILES; i++) {
                if (i < rows) {
                    corner = a->base + (at[0] * s[0] * dims[1] + at[1] * s[1]) * dims[2] + at[2] * s[2];
                    if (++at[2] == out[2]) {
                        at[2] = 0;
                        if (++at[1] == out[1]) at[1] = 0, at[0]++;
                    }
                }
                row[i] = corner;
            }
        }
        const float *bv[MRVL_GEMM_VECTORS];
        for (int v = 0; v < vecs; v++) {
            int64_t ch = j0 + v * MRVL_GEMM_VECTOR_FLOATS;
            bv[v] = a->w + ch / MRVL_CONV_PANEL * depth * MRVL_CONV_PANEL + ch % MRVL_CONV_PANEL;
        }
        /* A short tile is computed by the shortest of a quarter, half and three quarters of
         * the tile that holds it (its rows past the end repeat the last position, their sums
         * dropped), not by a whole one (a 4 x 5 plane is a tile of 12 positions and 8). Single
         * rows read each weight vector for two multiply-adds: that costs more than the few
         * rows dropped. */
        if (rows > mr) conv_tile(mr + MRVL_CONV_LONG_TILES, vecs, a, row, bv, o0, j0, rows);
        else if (rows <= mr / 4) conv_tile(mr / 4, vecs, a, row, bv, o0, j0, rows);
        else if (rows <= mr / 2) conv_tile(mr / 2, vecs, a, row, bv, o0, j0, rows);
        else if (rows <= 3 * mr / 4) conv_tile(3 * mr / 4, vecs, a, row, bv, o0, j0, rows);
        else conv_tile(mr, vecs, a, row, bv, o0, j0, rows);
    }
}

/* The two tile shapes, each with its constants folded in (mrvl_task: a range of tiles). */
static void conv_tiles_wide(const void *a, int64_t t0, int64_t t1)
{
    conv_tiles(MRVL_CONV_MR, MRVL_GEMM_VECTORS, a, t0, t1);
}

static void conv_tiles_narrow(const void *a, int64_t t0, int64_t t1)
{
    conv_tiles(MRVL_CONV_NARROW_MR, MRVL_GEMM_VECTORS / 2, a, t0, t1);
}

static void conv_tiles_short(const void *a, int64_t t0, int64_t t1)
{
    conv_tiles(MRVL_CONV_SHORT_MR, MRVL_GEMM_VECTORS, a, t0, t1);
}

/* The rows a plane of `positions` takes in tiles of mr (long ones none more, the last short
 * one rounded up as conv_tiles does). */
static int64_t conv_tile_rows(int64_t positions, int64_t mr)
{
    if (conv_long_tiles(positions, mr)) return positions;
    int64_t rest = positions % mr;
    int64_t part = rest <= mr / 4 ? mr / 4 : rest <= mr / 2 ? mr / 2 : rest <= 3 * mr / 4 ? 3 * mr / 4 : mr;
    return positions - rest + (rest ? part : 0);
}

/* Whether MRVL_CONV_SHORT_MR-row tiles beat MRVL_CONV_MR-row ones on a plane of `positions`:
 * fewer rows computed, each 8% dearer (measured: 4 x 4 planes, 2 x 8 rows, not 12 and 6). */
static int conv_short_tiles_pay(int64_t positions)
{
    return MRVL_CONV_SHORT_MR < MRVL_CONV_MR &&
           conv_tile_rows(positions, MRVL_CONV_SHORT_MR) * 108 < conv_tile_rows(positions, MRVL_CONV_MR) * 100;
}

/* Floats of scratch mrvl_conv_f32 needs: the padded input of a group (when it pads) and the
 * tap table (plan-host-memory reserves the same: mrvl_dialect/host_kernels.py conv_scratch_floats). */
static int64_t conv_scratch_floats(const mrvl_conv_params *p)
{
    int64_t dims[MRVL_SPATIAL];
    int padded = conv_read_extent(p, dims);
    return (padded ? p->c / p->group * volume3(dims) : 0) + p->c / p->group * volume3(p->kernel);
}

/* Floats from an image of a conv's output to the next: p->y_batch when the output is a slice
 * of a concat's (plan-host-memory), else the image's own m * out. */
static int64_t conv_y_batch(const mrvl_conv_params *p)
{
    return p->y_batch ? p->y_batch : p->m * volume3(p->out);
}

/* y (n, m, out) = conv(x (n, c, in), w) + b (m) + r (n, m, out), then clamped if p->clamp;
 * b and r may be NULL; w packed by mrvl_conv_pack_weights_f32; `scratch`:
 * conv_scratch_floats(p) floats. Images of y are conv_y_batch(p) apart (r's are dense). */
static void mrvl_conv_f32(const mrvl_conv_params *p, const float *x, const float *packed, const float *b,
                          const float *r, float *y, float *scratch)
{
    const int64_t *k = p->kernel, *d = p->dilation;
    int64_t cg = p->c / p->group, mg = p->m / p->group, positions = volume3(p->out), plane = volume3(p->in);
    int64_t depth = cg * volume3(k), dims[MRVL_SPATIAL];
    int narrow = mg <= MRVL_GEMM_NR / 2;
    int padded = conv_read_extent(p, dims);
    int64_t pplane = volume3(dims);
    int short_tiles = !narrow && conv_short_tiles_pay(positions);
    int64_t mr = narrow ? MRVL_CONV_NARROW_MR : short_tiles ? MRVL_CONV_SHORT_MR : MRVL_CONV_MR;
    int64_t width = narrow ? MRVL_GEMM_NR / 2 : MRVL_GEMM_NR;
    int64_t items = conv_tile_count(positions, mr) * ((mg + width - 1) / width);
    mrvl_task fn = narrow ? conv_tiles_narrow : short_tiles ? conv_tiles_short : conv_tiles_wide;
    /* Position-major, every position tile reads all of the group's weights; channel-major,
     * every channel block reads all of its input: the smaller is read again (from the
     * caches, when it fits), the larger once. Deep convs on small planes (weights larger
     * than the caches) go channel-major. */
    int channel_major = conv_packed_group_floats(mg, depth) > cg * pplane;
    float *xpad = scratch;
    int32_t *tap = (int32_t *)(void *)(scratch + (padded ? cg * pplane : 0));
    int64_t row = 0;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t kz = 0; kz < k[0]; kz++)
            for (int64_t ky = 0; ky < k[1]; ky++)
                for (int64_t kx = 0; kx < k[2]; kx++)
                    tap[row++] = (int32_t)(c * pplane + (kz * d[0] * dims[1] + ky * d[1]) * dims[2] + kx * d[2]);
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            const float *base = x + (n * p->c + g * cg) * plane;
            const float *wg = packed + g * conv_packed_group_floats(mg, depth);
            float *yg = y + n * conv_y_batch(p) + g * mg * positions;
            if (padded) {
                conv_pad_input(p, cg, base, dims, xpad);
                base = xpad;
            }
            conv_tiles_args args = {p, base, {dims[0], dims[1], dims[2]}, tap, depth, mg, positions, channel_major,
                                    wg, b ? b + g * mg : NULL, r ? r + (n * p->m + g * mg) * positions : NULL,
                                    p->slope ? p->slope + g * mg : NULL, p->scale ? p->scale + g * mg : NULL,
                                    p->shift ? p->shift + g * mg : NULL, yg};
            if (positions * mg * depth < MRVL_PARALLEL_MACS) fn(&args, 0, items);
            else mrvl_parallel(items, fn, &args); /* the items over the threads */
        }
    }
}

/* The flat conv: the implicit matrix product of mrvl_conv_f32 the other way round, output
 * channels (broadcasts of packed weights) by output positions (vectors), for convs whose
 * planes are wide next to their depth (few input channels: stems, early layers), where
 * mrvl_conv_f32's transposed stores and per-channel epilogue cost as much as its sums.
 *
 * The input is copied into a flat layout: per input channel, its zero-padded planes split
 * into stride phases (phase (a, b, c) holds the padded elements (z, y, x) with z % s0 == a,
 * y % s1 == b, x % s2 == c), each q0 x q1 x q2 (flat_layout). Output position (oz, oy, ox)
 * has the flat index i = (oz * q1 + oy) * q2 + ox, and tap (c, kz, ky, kx) reads the float
 * tap[r] after it in every phase-plane: channel c's phase of (kz d0 % s0, ky d1 % s1, kx d2 %
 * s2), at (kz d0 / s0 * q1 + ky d1 / s1) * q2 + kx d2 / s2. Consecutive output positions thus
 * read consecutive floats, one unaligned vector load per tap and vector; the indices past an
 * output row (ox >= out2, oy >= out1) are computed too and dropped. A tile is MRVL_FLAT_MR
 * channels by MRVL_FLAT_TILE flat positions, summed in registers over the whole depth; its
 * rows are stored as runs of output positions, no transpose, and its epilogue runs along
 * them. */
#if defined(__AVX512F__) || !(defined(__x86_64__) || defined(__i386__))
#define MRVL_FLAT_MR 8 /* 32 vector registers (AVX-512, NEON): 24 sums, 3 input vectors */
#else
#define MRVL_FLAT_MR 4 /* 16 (AVX, SSE2): 12 sums, 3 input vectors and a broadcast */
#endif
#define MRVL_FLAT_VECTORS 3
#define MRVL_FLAT_TILE (MRVL_FLAT_VECTORS * MRVL_GEMM_VECTOR_FLOATS)

/* The flat layout of a conv's input: q, the extent of each phase per spatial dim (the
 * extent the windows read, over the stride, rounded up); the phases; the floats of a channel. */
static void flat_layout(const mrvl_conv_params *p, int64_t q[MRVL_SPATIAL], int64_t *phases, int64_t *channel_floats)
{
    *phases = 1;
    for (int i = 0; i < MRVL_SPATIAL; i++) {
        int64_t extent = (p->out[i] - 1) * p->stride[i] + (p->kernel[i] - 1) * p->dilation[i] + 1;
        q[i] = (extent + p->stride[i] - 1) / p->stride[i];
        *phases *= p->stride[i];
    }
    *channel_floats = *phases * volume3(q);
}

/* The flat positions of a conv: the flat index of its last output position, plus one. */
static int64_t flat_count(const mrvl_conv_params *p, const int64_t q[MRVL_SPATIAL])
{
    return ((p->out[0] - 1) * q[1] + p->out[1] - 1) * q[2] + p->out[2];
}

/* Whether the flat layout of a conv's input is the input itself (stride 1, no padding: 1x1
 * convs), which the tiles then read in place, not copied. */
static int flat_in_place(const mrvl_conv_params *p, const int64_t q[MRVL_SPATIAL])
{
    for (int i = 0; i < MRVL_SPATIAL; i++)
        if (p->stride[i] != 1 || p->pad[i] != 0 || q[i] != p->in[i]) return 0;
    return 1;
}

/* Floats per input channel of the tail an in-place flat conv copies (the floats its last
 * tile reads from the tile's start, which may be past the input's end, zeros there): the
 * input's floats past its last flat position, a tile of them before it and one after. */
static int64_t flat_tail_floats(const mrvl_conv_params *p, const int64_t q[MRVL_SPATIAL])
{
    return volume3(p->in) - flat_count(p, q) + 2 * MRVL_FLAT_TILE;
}

/* Floats of scratch mrvl_flat_conv_f32 needs (mrvl_dialect/host_kernels.py
 * flat_scratch_floats): a group's input in the flat layout, a tile of zeros after it (the
 * last tile's dropped positions read that far), and the tap table; in place, the tail of each
 * input channel (flat_tail_floats) and two tap tables, the input's and the tail's. */
static int64_t flat_scratch_floats(const mrvl_conv_params *p)
{
    int64_t q[MRVL_SPATIAL], phases, channel_floats, cg = p->c / p->group;
    flat_layout(p, q, &phases, &channel_floats);
    if (flat_in_place(p, q)) return cg * flat_tail_floats(p, q) + 2 * cg * volume3(p->kernel);
    return cg * channel_floats + MRVL_FLAT_TILE + cg * volume3(p->kernel);
}

/* What the parts of one image and group of mrvl_flat_conv_f32 read and write. */
typedef struct {
    const mrvl_conv_params *p;
    const float *x;               /* the group's input */
    float *flat;                  /* it in the flat layout (flat_copy) */
    const float *src;             /* what the tiles read: flat, or x in place */
    int64_t q[MRVL_SPATIAL], channel_floats;
    const int32_t *tap;           /* the tap table */
    const float *tail;            /* in place: the last tile's floats of each channel (else NULL) */
    const int32_t *tail_tap;      /* and their tap table */
    int64_t depth, mg, blocks, count; /* blocks of MRVL_FLAT_MR channels; flat positions */
    const float *w, *b, *r;       /* the group's packed weights, bias, residual (b, r may be NULL) */
    const float *slope;           /* the group's PRelu slopes (may be NULL) */
    const float *scale, *shift;   /* the group's per-channel scale and shift (may be NULL) */
    float *y;                     /* the group's output */
} flat_args;

/* Column phases whose valid columns flat_copy works out once (more: per row). */
#define MRVL_FLAT_COPY_PHASES 8

/* Input channels [c0, c1) of the group into the flat layout, zeros where the phases reach
 * past the input (the padding). Row by padded row, each input row read once for all its
 * column phases; the rows' phases and the columns each phase takes are counted, not divided
 * out per row (small planes have many short rows). */
static void flat_copy(const void *ctx, int64_t c0, int64_t c1)
{
    const flat_args *a = ctx;
    const int64_t *in = a->p->in, *s = a->p->stride, *pad = a->p->pad, *q = a->q;
    int64_t phase_floats = volume3(q);
    /* Column j of phase px reads input column j * s2 + px - pad2: those in [lo, hi). */
    int64_t lo[MRVL_FLAT_COPY_PHASES], hi[MRVL_FLAT_COPY_PHASES];
    for (int64_t px = 0; px < s[2] && px < MRVL_FLAT_COPY_PHASES; px++)
        valid_range(q[2], in[2], s[2], px - pad[2], &lo[px], &hi[px]);
    for (int64_t c = c0; c < c1; c++) {
        const float *plane = a->x + c * volume3(in);
        float *flat = a->flat + c * a->channel_floats;
        for (int64_t z = 0; z < q[0] * s[0]; z++) {
            int64_t iz = z - pad[0], yp = 0, yq = 0; /* y = yq * s1 + yp */
            for (int64_t y = 0; y < q[1] * s[1]; y++) {
                int64_t iy = y - pad[1];
                int inside = iz >= 0 && iz < in[0] && iy >= 0 && iy < in[1];
                const float *src = inside ? plane + (iz * in[1] + iy) * in[2] : plane;
                float *row = flat + (z % s[0] * s[1] + yp) * s[2] * phase_floats + (z / s[0] * q[1] + yq) * q[2];
                for (int64_t px = 0; px < s[2]; px++, row += phase_floats) {
                    int64_t j0 = 0, j1 = 0;
                    if (inside && px < MRVL_FLAT_COPY_PHASES) j0 = lo[px], j1 = hi[px];
                    else if (inside) valid_range(q[2], in[2], s[2], px - pad[2], &j0, &j1);
                    for (int64_t j = 0; j < j0; j++) row[j] = 0.0f;
                    int64_t x0 = px - pad[2];
                    if (s[2] == 1) for (int64_t j = j0; j < j1; j++) row[j] = src[j + x0];
                    else if (s[2] == 2) for (int64_t j = j0; j < j1; j++) row[j] = src[2 * j + x0]; /* vectorises */
                    else for (int64_t j = j0; j < j1; j++) row[j] = src[j * s[2] + x0];
                    for (int64_t j = j1 > j0 ? j1 : 0; j < q[2]; j++) row[j] = 0.0f;
                }
                if (++yp == s[1]) yp = 0, yq++;
            }
        }
    }
}

/* acc[i][j] = bias[i] + the sum over r < depth of x[tap[r] + j] * w[r * MRVL_CONV_PANEL + i]
 * for the MRVL_FLAT_MR x MRVL_FLAT_TILE tile, in registers: each input vector feeds
 * MRVL_FLAT_MR multiply-adds and each broadcast weight `vecs` (of MRVL_FLAT_VECTORS; a last
 * tile of fewer positions sums fewer vectors, bias in the rest), summed in order. Always
 * inlined with constant vecs. */
static MRVL_ALWAYS_INLINE void flat_micro(int vecs, int64_t depth, const float *x, const int32_t *tap,
                                          const float *w, const float *bias, float acc[MRVL_FLAT_MR][MRVL_FLAT_TILE])
{
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    vec sum[MRVL_FLAT_MR][MRVL_FLAT_VECTORS];
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int v = 0; v < MRVL_FLAT_VECTORS; v++) sum[i][v] = (vec){0} + bias[i];
    for (int64_t r = 0; r < depth; r++, w += MRVL_CONV_PANEL) {
        const float *xr = x + tap[r];
        vec in[MRVL_FLAT_VECTORS];
        for (int v = 0; v < vecs; v++)
            in[v] = *(const vec *)(const void *)(xr + v * MRVL_GEMM_VECTOR_FLOATS);
        for (int i = 0; i < MRVL_FLAT_MR; i++) {
            float wt = w[i];
            for (int v = 0; v < vecs; v++) sum[i][v] += in[v] * wt;
        }
    }
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int v = 0; v < MRVL_FLAT_VECTORS; v++)
            memcpy(acc[i] + v * MRVL_GEMM_VECTOR_FLOATS, &sum[i][v], sizeof sum[i][v]);
#else
    (void)vecs;
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int j = 0; j < MRVL_FLAT_TILE; j++) acc[i][j] = bias[i];
    for (int64_t r = 0; r < depth; r++, w += MRVL_CONV_PANEL)
        for (int i = 0; i < MRVL_FLAT_MR; i++)
            for (int j = 0; j < MRVL_FLAT_TILE; j++) acc[i][j] += x[tap[r] + j] * w[i];
#endif
}

/* y[j] = a[j] for j < len <= MRVL_FLAT_TILE: whole vectors, then halves down to one float,
 * each a copy of constant size in a loop of constant count (moves; a copy loop would become a
 * call to memcpy, which costs more than these runs). */
static MRVL_ALWAYS_INLINE void copy_run(float *y, const float *a, int64_t len)
{
    int64_t j = 0;
    for (int v = 0; v < MRVL_FLAT_VECTORS; v++)
        if (j + MRVL_GEMM_VECTOR_FLOATS <= len) {
            memcpy(y + j, a + j, MRVL_GEMM_VECTOR_FLOATS * sizeof(float));
            j += MRVL_GEMM_VECTOR_FLOATS;
        }
    if (MRVL_GEMM_VECTOR_FLOATS >= 16 && len - j >= 8) memcpy(y + j, a + j, 8 * sizeof(float)), j += 8;
    if (MRVL_GEMM_VECTOR_FLOATS >= 8 && len - j >= 4) memcpy(y + j, a + j, 4 * sizeof(float)), j += 4;
    if (len - j >= 2) memcpy(y + j, a + j, 2 * sizeof(float)), j += 2;
    if (len - j >= 1) y[j] = a[j];
}

/* Items [begin, end) of a group of mrvl_flat_conv_f32: item t * blocks + jb is flat tile t
 * (positions [t, t + 1) * MRVL_FLAT_TILE) of channel block jb. */
static void flat_tiles(const void *ctx, int64_t begin, int64_t end)
{
    const flat_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const int64_t *out = p->out, *q = a->q;
    int64_t positions = volume3(out), tile = -1;
    /* The tile's runs of output positions: run k is acc[.][at[k]...] to output position
     * first[k] on, len[k] long (a run ends with its output row or the tile; rows without
     * junk columns after them, a kernel 1 wide, run on into the next). */
    int64_t row_junk = q[2] - out[2];
    int64_t at[MRVL_FLAT_TILE], first[MRVL_FLAT_TILE], len[MRVL_FLAT_TILE];
    int runs = 0;
    for (int64_t item = begin; item < end; item++) {
        int64_t t = item / a->blocks, j0 = item % a->blocks * MRVL_FLAT_MR;
        int64_t i0 = t * MRVL_FLAT_TILE, i1 = min_i64(i0 + MRVL_FLAT_TILE, a->count);
        if (t != tile) {
            tile = t;
            runs = 0;
            for (int64_t i = i0; i < i1;) {
                int64_t ox = i % q[2], oy = i / q[2] % q[1], oz = i / q[2] / q[1];
                if (ox < out[2] && oy < out[1]) {
                    at[runs] = i - i0;
                    first[runs] = (oz * out[1] + oy) * out[2] + ox;
                    len[runs] = min_i64(row_junk ? out[2] - ox : (out[1] - oy) * out[2] - ox, i1 - i);
                    i += len[runs++];
                } else {
                    i += q[2] - ox; /* the rest of the flat row, or a dropped row */
                }
            }
        }
        int channels = (int)min_i64(MRVL_FLAT_MR, a->mg - j0);
        float bias[MRVL_FLAT_MR] = {0}, acc[MRVL_FLAT_MR][MRVL_FLAT_TILE];
        if (a->b)
            for (int i = 0; i < MRVL_FLAT_MR; i++) bias[i] = i < channels ? a->b[j0 + i] : 0.0f;
        int at_tail = a->tail && i0 + MRVL_FLAT_TILE > a->count; /* would read past the input */
        const float *src = at_tail ? a->tail : a->src + i0, *w;
        const int32_t *tap = at_tail ? a->tail_tap : a->tap;
        w = a->w + j0 / MRVL_CONV_PANEL * a->depth * MRVL_CONV_PANEL + j0 % MRVL_CONV_PANEL;
        /* The last tile sums only the vectors that hold positions (a 14 x 14 plane is 4 tiles
         * of 48 and 4 positions: 1 vector, not 3). */
        if (i1 - i0 <= MRVL_GEMM_VECTOR_FLOATS) flat_micro(1, a->depth, src, tap, w, bias, acc);
        else if (i1 - i0 <= 2 * MRVL_GEMM_VECTOR_FLOATS) flat_micro(2, a->depth, src, tap, w, bias, acc);
        else flat_micro(MRVL_FLAT_VECTORS, a->depth, src, tap, w, bias, acc);
        /* A tile that is one run of output positions and needs at most a residual and a clamp
         * (a Relu, a Clip) is stored in one pass that reads the residual and clamps. */
        if (runs == 1 && len[0] == MRVL_FLAT_TILE && p->activation == MRVL_EPILOGUE_NONE && !a->scale && !a->shift) {
            float low = p->clamp ? p->min : -INFINITY, high = p->clamp ? p->max : INFINITY;
            for (int i = 0; i < channels; i++) {
                float *yo = a->y + (j0 + i) * positions + first[0];
                if (a->r) {
                    const float *ro = a->r + (j0 + i) * positions + first[0];
                    for (int j = 0; j < MRVL_FLAT_TILE; j++) yo[j] = clamp_value(acc[i][j] + ro[j], low, high);
                } else {
                    for (int j = 0; j < MRVL_FLAT_TILE; j++) yo[j] = clamp_value(acc[i][j], low, high);
                }
            }
            continue;
        }
        /* The epilogue in ONNX's order: residual, clamp, activation (a PRelu per channel), scale
         * and shift. */
        if (a->r)
            for (int i = 0; i < channels; i++)
                for (int k = 0; k < runs; k++)
                    for (int64_t j = 0; j < len[k]; j++)
                        acc[i][at[k] + j] += a->r[(j0 + i) * positions + first[k] + j];
        if (p->clamp)
            for (int i = 0; i < channels; i++)
                for (int j = 0; j < MRVL_FLAT_TILE; j++) acc[i][j] = clamp_value(acc[i][j], p->min, p->max);
        conv_activate(p, channels * MRVL_FLAT_TILE, acc[0]);
        for (int i = 0; i < channels; i++) {
            if (a->slope || a->scale || a->shift)
                conv_per_channel(a->slope ? a->slope + j0 + i : NULL, a->scale ? a->scale + j0 + i : NULL,
                                 a->shift ? a->shift + j0 + i : NULL, MRVL_FLAT_TILE, acc[i]);
            float *yo = a->y + (j0 + i) * positions;
            for (int k = 0; k < runs; k++) copy_run(yo + first[k], acc[i] + at[k], len[k]);
        }
    }
}

/* y (n, m, out) = conv(x (n, c, in), w) + b (m) + r (n, m, out), then the conv's epilogue
 * (as mrvl_conv_f32), by flat tiles (above); b and r may be NULL; w packed by
 * mrvl_conv_pack_weights_f32; `scratch`: flat_scratch_floats(p) floats; images of y
 * conv_y_batch(p) apart. Per image and group, the input channels are copied over the
 * threads, then the tiles computed over them. */
static void mrvl_flat_conv_f32(const mrvl_conv_params *p, const float *x, const float *packed, const float *b,
                               const float *r, float *y, float *scratch)
{
    const int64_t *k = p->kernel, *s = p->stride, *d = p->dilation, *out = p->out;
    int64_t cg = p->c / p->group, mg = p->m / p->group, positions = volume3(out), plane = volume3(p->in);
    int64_t depth = cg * volume3(k), q[MRVL_SPATIAL], phases, channel_floats;
    flat_layout(p, q, &phases, &channel_floats);
    int64_t phase_floats = volume3(q), count = flat_count(p, q);
    /* In place, the last tile (from flat position `last` on) reads a copy of each channel's
     * floats from there to its end, zeros after them, `tail_floats` apart. */
    int in_place = flat_in_place(p, q);
    int64_t tail_floats = in_place ? flat_tail_floats(p, q) : 0, last = (count - 1) / MRVL_FLAT_TILE * MRVL_FLAT_TILE;
    float *tail = in_place ? scratch : NULL;
    int32_t *tap = (int32_t *)(void *)(in_place ? scratch + cg * tail_floats + depth
                                                : scratch + cg * channel_floats + MRVL_FLAT_TILE);
    int32_t *tail_tap = in_place ? (int32_t *)(void *)(scratch + cg * tail_floats) : NULL;
    if (!in_place) memset(scratch + cg * channel_floats, 0, MRVL_FLAT_TILE * sizeof(float));
    int64_t row = 0;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t kz = 0; kz < k[0]; kz++)
            for (int64_t ky = 0; ky < k[1]; ky++)
                for (int64_t kx = 0; kx < k[2]; kx++, row++) {
                    int64_t phase = ((kz * d[0] % s[0]) * s[1] + ky * d[1] % s[1]) * s[2] + kx * d[2] % s[2];
                    int64_t offset = phase * phase_floats + (kz * d[0] / s[0] * q[1] + ky * d[1] / s[1]) * q[2] +
                                     kx * d[2] / s[2];
                    tap[row] = (int32_t)(c * channel_floats + offset);
                    if (in_place) tail_tap[row] = (int32_t)(c * tail_floats + offset);
                }
    int64_t blocks = (mg + MRVL_FLAT_MR - 1) / MRVL_FLAT_MR;
    int64_t items = (count + MRVL_FLAT_TILE - 1) / MRVL_FLAT_TILE * blocks;
    int serial = positions * mg * depth < MRVL_PARALLEL_MACS;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            float *yg = y + n * conv_y_batch(p) + g * mg * positions;
            const float *xg = x + (n * p->c + g * cg) * plane;
            flat_args args = {p, xg, scratch, in_place ? xg : scratch, {q[0], q[1], q[2]}, channel_floats, tap,
                              tail, tail_tap, depth, mg, blocks, count,
                              packed + g * conv_packed_group_floats(mg, depth), b ? b + g * mg : NULL,
                              r ? r + (n * p->m + g * mg) * positions : NULL, p->slope ? p->slope + g * mg : NULL,
                              p->scale ? p->scale + g * mg : NULL, p->shift ? p->shift + g * mg : NULL, yg};
            if (in_place) {
                for (int64_t c = 0; c < cg; c++) {
                    memcpy(tail + c * tail_floats, xg + c * plane + last, (size_t)(plane - last) * sizeof(float));
                    memset(tail + c * tail_floats + plane - last, 0,
                           (size_t)(tail_floats - (plane - last)) * sizeof(float));
                }
            } else if (serial) {
                flat_copy(&args, 0, cg);
            } else {
                mrvl_parallel(cg, flat_copy, &args);
            }
            if (serial) flat_tiles(&args, 0, items);
            else mrvl_parallel(items, flat_tiles, &args);
        }
    }
}

/* A 1x1 convolution with stride 1 and no padding is the matrix product w (mg, c/group) x
 * x (c/group, positions) per image and group: its input is the product's B, packed in
 * `scratch` (MRVL_GEMM_PACK_FLOATS(mg, positions, c/group) floats, less A's part: the
 * weights' rows are contiguous), and its output rows are stored whole, which suits the few
 * input channels of the pointwise convs of small networks better than mrvl_conv_f32's
 * transposed tiles. Images of y are conv_y_batch(p) apart. */
static void mrvl_pointwise_conv_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                    const float *r, float *y, float *scratch)
{
    int64_t cg = p->c / p->group, mg = p->m / p->group, positions = volume3(p->out);
    for (int64_t n = 0; n < p->n; n++) {
        float *yn = y + n * conv_y_batch(p);
        for (int64_t g = 0; g < p->group; g++) {
            const float *xg = x + (n * p->c + g * cg) * positions;
            float *yg = yn + g * mg * positions;
            fill_rows_f32(mg, positions, b ? b + g * mg : NULL, yg, positions);
            gemm_acc_f32(mg, positions, cg, w + g * mg * cg, cg, 1, xg, positions, 1, yg, positions, scratch);
        }
        conv_epilogue(p, p->m * positions, positions, 0, r ? r + n * p->m * positions : NULL, yn);
    }
}

/* The pools' vectors (and the depthwise conv's stride-2 copies'): GCC's vector extension (gcc,
 * clang), or single floats elsewhere (the same algorithm, one lane). */
#if defined(__GNUC__)
#define MRVL_POOL_VF MRVL_GEMM_VECTOR_FLOATS
#define MRVL_POOL_ALIGNED __attribute__((aligned(64)))
typedef float pool_vec __attribute__((vector_size(MRVL_POOL_VF * 4)));
typedef int32_t pool_mask __attribute__((vector_size(MRVL_POOL_VF * 4)));
#if MRVL_POOL_VF == 16
#define MRVL_POOL_EVENS 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define MRVL_POOL_ODDS 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define MRVL_POOL_NEXT 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
#define MRVL_POOL_UPPER 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15
#define MRVL_POOL_IOTA 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#elif MRVL_POOL_VF == 8
#define MRVL_POOL_EVENS 0, 2, 4, 6, 8, 10, 12, 14
#define MRVL_POOL_ODDS 1, 3, 5, 7, 9, 11, 13, 15
#define MRVL_POOL_NEXT 1, 2, 3, 4, 5, 6, 7, 8
#define MRVL_POOL_UPPER 4, 5, 6, 7, 4, 5, 6, 7
#define MRVL_POOL_IOTA 0, 1, 2, 3, 4, 5, 6, 7
#else
#define MRVL_POOL_EVENS 0, 2, 4, 6
#define MRVL_POOL_ODDS 1, 3, 5, 7
#define MRVL_POOL_NEXT 1, 2, 3, 4
#define MRVL_POOL_UPPER 2, 3, 2, 3
#define MRVL_POOL_IOTA 0, 1, 2, 3
#endif
/* m ? a : b lane by lane (m's lanes all ones or zeros). */
static inline pool_vec pool_select(pool_mask m, pool_vec a, pool_vec b)
{
    return (pool_vec)((m & (pool_mask)a) | (~m & (pool_mask)b));
}
/* x86's max or min (name) of two vectors of VF floats, where the target has them. */
#if MRVL_POOL_VF == 16 && defined(__AVX512F__)
#define MRVL_X86_PS(name, a, b) (pool_vec) _mm512_##name##_ps((__m512)(a), (__m512)(b))
#elif MRVL_POOL_VF == 8 && defined(__AVX__)
#define MRVL_X86_PS(name, a, b) (pool_vec) _mm256_##name##_ps((__m256)(a), (__m256)(b))
#elif MRVL_POOL_VF == 4 && defined(__SSE__)
#define MRVL_X86_PS(name, a, b) (pool_vec) _mm_##name##_ps((__m128)(a), (__m128)(b))
#endif
/* a > b ? a : b lane by lane (NaN in a never wins): x86's max instruction is exactly that (it
 * returns b where either is NaN), one instruction where a compare and a select are two (GCC
 * does not fuse them: the pools 15-30% faster); elsewhere the compare and the select. */
static inline pool_vec pool_max(pool_vec a, pool_vec b)
{
#if defined(MRVL_X86_PS)
    return MRVL_X86_PS(max, a, b);
#else
    return pool_select(a > b, a, b);
#endif
}
/* a < b ? a : b lane by lane (x86's min instruction, as pool_max). */
static inline pool_vec pool_min(pool_vec a, pool_vec b)
{
#if defined(MRVL_X86_PS)
    return MRVL_X86_PS(min, a, b);
#else
    return pool_select(a < b, a, b);
#endif
}
/* The even and the odd elements of the 2 * MRVL_POOL_VF floats a, b (x86 vpermt2ps or
 * shufps, NEON uzp1 and uzp2). */
static inline void pool_deinterleave(pool_vec a, pool_vec b, pool_vec *even, pool_vec *odd)
{
#if defined(__clang__)
    *even = __builtin_shufflevector(a, b, MRVL_POOL_EVENS);
    *odd = __builtin_shufflevector(a, b, MRVL_POOL_ODDS);
#else
    *even = __builtin_shuffle(a, b, (pool_mask){MRVL_POOL_EVENS});
    *odd = __builtin_shuffle(a, b, (pool_mask){MRVL_POOL_ODDS});
#endif
}
/* a's lanes 1 .. VF - 1, then b's lane 0 (x86 valignd or vpermt2ps, NEON ext). */
static inline pool_vec pool_next(pool_vec a, pool_vec b)
{
#if defined(__clang__)
    return __builtin_shufflevector(a, b, MRVL_POOL_NEXT);
#else
    return __builtin_shuffle(a, b, (pool_mask){MRVL_POOL_NEXT});
#endif
}
/* a's upper half moved down to its lower half (x86 vshuff32x4 or vpermps, NEON ext). */
static inline pool_vec pool_upper(pool_vec a)
{
#if defined(__clang__)
    return __builtin_shufflevector(a, a, MRVL_POOL_UPPER);
#else
    return __builtin_shuffle(a, (pool_mask){MRVL_POOL_UPPER});
#endif
}
#else
#define MRVL_POOL_VF 1
#define MRVL_POOL_ALIGNED
typedef float pool_vec;
typedef int32_t pool_mask;
static inline pool_vec pool_max(pool_vec a, pool_vec b) { return a > b ? a : b; }
static inline pool_vec pool_select(pool_mask m, pool_vec a, pool_vec b) { return m ? a : b; }
static inline pool_vec pool_min(pool_vec a, pool_vec b) { return a < b ? a : b; }
static inline void pool_deinterleave(pool_vec a, pool_vec b, pool_vec *even, pool_vec *odd)
{
    *even = a;
    *odd = b;
}
static inline pool_vec pool_next(pool_vec a, pool_vec b)
{
    (void)a;
    return b;
}
static inline pool_vec pool_upper(pool_vec a) { return a; }
#endif
static inline pool_vec pool_load(const float *p)
{
    pool_vec v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void pool_store(float *p, pool_vec v) { memcpy(p, &v, sizeof v); }

/* --- Sigmoid and SiLU, written in vectors: GCC's if-conversion of the scalar loops (a clamp
 * around exp_normal_f32) computed three divisions per vector. -------------------------- */

/* e^r for t = n ln2 + r, |r| <= ln2 / 2, as exp_normal_f32 computes it; *big = n + 1.5 * 2^23
 * (n in its low bits). */
static inline pool_vec exp_reduced(pool_vec t, pool_vec *big)
{
    *big = t * 1.44269504f + 12582912.0f;
    pool_vec n = *big - 12582912.0f;
    pool_vec r = (t - n * 0.693145752f) - n * 1.42860677e-6f;
    pool_vec p = (1.0f / 5040.0f) * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    return p * r + 1.0f;
}

/* exp_normal_f32 lane by lane (-87 <= t <= 88), 2^n from the bits of n + 1.5 * 2^23. */
static inline pool_vec exp_normal_vec(pool_vec t)
{
    pool_vec big, p = exp_reduced(t, &big);
    pool_mask bits, exponent = (pool_mask){0} + (0x4B400000 - 127); /* big's bits less n + 127 */
    memcpy(&bits, &big, sizeof bits);
    bits = (bits - exponent) << 23;
    pool_vec scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* 1 + e^-v, with -v clamped to [-87, 88] where e^-v is a normal float (the result moves by
 * less than float's resolution; NaN becomes -87: the caller passes it through). */
static inline pool_vec one_plus_exp_minus(pool_vec v)
{
    pool_vec t = pool_min(pool_max(-v, (pool_vec){0} - 87.0f), (pool_vec){0} + 88.0f);
    return 1.0f + exp_normal_vec(t);
}

/* f(x, alpha, beta) over count floats, in vectors and a last one through a buffer (every
 * element computed the same way, however the caller splits its work). Inlined where f is a
 * constant. */
static MRVL_ALWAYS_INLINE void map_vectors(int64_t count, const float *x, float *y,
                                           pool_vec (*f)(pool_vec, float, float), float alpha, float beta)
{
    int64_t whole = count - count % MRVL_POOL_VF;
    for (int64_t i = 0; i < whole; i += MRVL_POOL_VF) pool_store(y + i, f(pool_load(x + i), alpha, beta));
    if (whole == count) return;
    float tail[MRVL_POOL_VF] = {0};
    memcpy(tail, x + whole, (size_t)(count - whole) * sizeof(float));
    pool_store(tail, f(pool_load(tail), alpha, beta));
    memcpy(y + whole, tail, (size_t)(count - whole) * sizeof(float));
}

/* 1 / (1 + e^-v) (NaN stays NaN: one compare and select). */
static inline pool_vec sigmoid_vec(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return pool_select(v == v, 1.0f / one_plus_exp_minus(v), v);
}

/* v / (1 + e^-v): NaN stays NaN by itself. */
static inline pool_vec silu_vec(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return v / one_plus_exp_minus(v);
}

MRVL_NOINLINE static void sigmoid_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, sigmoid_vec, 0.0f, 0.0f);
}

MRVL_NOINLINE static void silu_loop_f32(int64_t count, float *y) { map_vectors(count, y, y, silu_vec, 0.0f, 0.0f); }

/* max(0, min(1, alpha x + beta)), NaN kept (the max and min return their second operand
 * where either is NaN). */
static inline pool_vec hard_sigmoid_vec(pool_vec x, float alpha, float beta)
{
    return pool_min((pool_vec){0} + 1.0f, pool_max((pool_vec){0}, alpha * x + beta));
}

MRVL_NOINLINE static void mrvl_hard_sigmoid_f32(int64_t count, float alpha, float beta, const float *x, float *y)
{
    map_vectors(count, x, y, hard_sigmoid_vec, alpha, beta);
}

/* x HardSigmoid(x), ONNX's alpha 1/6 (a multiplication, as the spec writes it) and beta 0.5. */
static inline pool_vec hard_swish_vec(pool_vec x, float alpha, float beta) { return x * hard_sigmoid_vec(x, alpha, beta); }

MRVL_NOINLINE static void mrvl_hard_swish_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, hard_swish_vec, 1.0f / 6.0f, 0.5f);
}

/* |x| (clearing the sign bit). */
static inline pool_vec pool_abs(pool_vec x)
{
    pool_mask bits;
    memcpy(&bits, &x, sizeof bits);
    bits &= 0x7fffffff;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* a >= 0 with the sign of x. */
static inline pool_vec pool_copysign(pool_vec a, pool_vec x)
{
    pool_mask ab, xb;
    memcpy(&ab, &a, sizeof ab);
    memcpy(&xb, &x, sizeof xb);
    ab |= xb & ((pool_mask){0} + INT32_MIN);
    memcpy(&a, &ab, sizeof a);
    return a;
}

/* tanh: for |x| < 0.3 its odd Taylor polynomial to x^11 (the next term is below 2e-9 of the
 * result there), else (1 - e) / (1 + e) with e = e^-2|x| (at |x| >= 0.3 the difference loses
 * at most a bit; past |x| = 9, e is below float's resolution of 1), the sign put back; NaN
 * stays NaN. Both computed, one selected: one division. */
static inline pool_vec tanh_vec(pool_vec x)
{
    pool_vec a = pool_abs(x);
    pool_vec e = exp_normal_vec(pool_max(-2.0f * a, (pool_vec){0} - 87.0f)); /* NaN: -87 */
    pool_vec q = (1.0f - e) / (1.0f + e), x2 = x * x;
    pool_vec p = (-1382.0f / 155925.0f) * x2 + 62.0f / 2835.0f;
    p = p * x2 - 17.0f / 315.0f;
    p = p * x2 + 2.0f / 15.0f;
    p = p * x2 - 1.0f / 3.0f;
    pool_vec small = x + x * x2 * p;
    return pool_select(x != x, x, pool_select(a < 0.3f, small, pool_copysign(q, x)));
}

/* erf. |x| < 1: the Taylor series x * sum c_n x^2n to n = 11 (terms alternate and shrink, the
 * last below 2e-9). |x| >= 1: 1 - e^(-x^2) g(1/|x|), g(u) a degree-9 polynomial least-squares
 * fitted (in double, against erfc(x) e^(x^2) on [1, 4]) to a relative error below 3e-7, so the
 * error in erf stays below 5e-8; past |x| = 4 erf is 1 in float (erfc(4) < 2e-8). Both
 * computed, one selected; NaN stays NaN. */
static inline pool_vec erf_vec(pool_vec x)
{
    pool_vec a = pool_abs(x), z = x * x;
    pool_vec t = -1.229055524e-09f * z + 1.480719281e-08f;
    t = t * z - 1.636584415e-07f;
    t = t * z + 1.646211444e-06f;
    t = t * z - 1.492565025e-05f;
    t = t * z + 1.205533263e-04f;
    t = t * z - 8.548327023e-04f;
    t = t * z + 5.223977845e-03f;
    t = t * z - 2.686617151e-02f;
    t = t * z + 1.128379181e-01f;
    t = t * z - 3.761263788e-01f;
    t = t * z + 1.128379226e+00f;
    pool_vec small = x * t;
    pool_vec b = pool_min(pool_max(a, (pool_vec){0} + 1.0f), (pool_vec){0} + 4.0f), u = 1.0f / b;
    pool_vec g = 2.995467186e-02f * u - 1.748546213e-01f;
    g = g * u + 4.249329567e-01f;
    g = g * u - 5.164400339e-01f;
    g = g * u + 2.187259495e-01f;
    g = g * u + 2.424559295e-01f;
    g = g * u - 3.806347251e-01f;
    g = g * u + 2.170642093e-02f;
    g = g * u + 5.616064072e-01f;
    g = g * u + 1.306367631e-04f;
    pool_vec large = pool_copysign(1.0f - exp_normal_vec(-b * b) * g, x); /* -16 <= -b^2 <= -1 */
    return pool_select(a < 1.0f, small, pool_select(x != x, x, large));
}

/* e^x over float's whole range (Exp): as exp_normal_vec, with x clamped to [-104, 89] (where
 * e^x is 0 and infinity in float) and 2^n applied as two factors 2^(n/2) 2^(n - n/2), each a
 * normal float, so that the product overflows to infinity and underflows through the
 * subnormals as e^x does; NaN stays NaN. */
static inline pool_vec exp_vec(pool_vec x)
{
    pool_vec t = pool_min(pool_max(x, (pool_vec){0} - 104.0f), (pool_vec){0} + 89.0f); /* NaN: -104 */
    pool_vec big, p = exp_reduced(t, &big);
    pool_mask k, half;
    memcpy(&k, &big, sizeof k);
    k -= (pool_mask){0} + 0x4B400000; /* n, in [-150, 128] */
    half = k >> 1;
    pool_mask high = (half + 127) << 23, low = (k - half + 127) << 23;
    pool_vec scale_high, scale_low;
    memcpy(&scale_high, &high, sizeof high);
    memcpy(&scale_low, &low, sizeof low);
    return pool_select(x != x, x, p * scale_high * scale_low);
}

/* Mish, x tanh(softplus(x)), from e = e^x alone: tanh(log(1 + e)) = n / (n + 2) with n =
 * e (e + 2); past x = 20 that is 1 in float (and e^x would soon overflow): x (NaN too). */
static inline pool_vec mish_vec(pool_vec x, float alpha, float beta)
{
    (void)alpha, (void)beta;
    pool_vec t = pool_max(pool_min(x, (pool_vec){0} + 20.0f), (pool_vec){0} - 87.0f); /* NaN: 20 */
    pool_vec e = exp_normal_vec(t), n = e * (e + 2.0f);
    return pool_select(x < 20.0f, x * n / (n + 2.0f), x);
}

MRVL_NOINLINE static void mish_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, mish_vec, 0.0f, 0.0f);
}

/* A depthwise conv works on "flat" planes: it computes its output plane as one run of
 * contiguous vectors over a grid of rows `pitch` apart (pitch >= the output's width: the rest
 * of each row is junk, dropped as the grid is copied out), each vector a multiply-add per tap
 * of contiguous input at a fixed offset from the output's, so that no row is shorter than a
 * vector however small the plane (MobileNet's 7x7). Each input plane is copied into one of
 * two layouts first:
 * - rows (equal strides s dividing the width, one depth slice, padding at most the kernel's,
 *   a narrow plane: MobileNets' later stages): the plane split into s column phases by one
 *   pass over it (phase q holds columns q, q + s, ...; rows width / s long), between zero rows
 *   standing for the vertical padding. The grid's pitch is the input's width, s phase rows:
 *   output (oy, ox) under tap (ky, kx) reads input row s oy + ky d - pad, column s ox + kx d -
 *   pad, which is phase (kx d - pad) mod s at flat index oy pitch + ox plus the tap's offset.
 *   At stride 1 and an output as large as the input the grid is the output, written in place.
 *   A tap reaching across the left or right edge reads the end of the neighbouring row instead
 *   of padding: a mask per kernel column zeroes those lanes (bitwise, so that an infinity
 *   there cannot make a NaN). The grid holds s - 1 junk rows' worth per output row.
 * - phases (any other): the plane zero-padded to the extent the windows read and split into
 *   stride phases row by row: phase (py, px) holds padded rows py, py + stride, ... and
 *   columns px, px + stride, ..., each phase row `w` wide. Output (oy, ox) under tap (ky, kx)
 *   reads phase ((ky d) % stride, (kx d) % stride) at row oy + ky d / stride, column ox +
 *   kx d / stride: flat index oy w + ox plus the tap's offset; the pitch is w, a few columns
 *   more than the output's. The depth dim, if any, indexes slices of each phase. */
#define MRVL_DEPTHWISE_VECTORS 4
#define MRVL_DEPTHWISE_TILE (MRVL_DEPTHWISE_VECTORS * MRVL_GEMM_VECTOR_FLOATS)
/* The rows layout serves planes at most this many times (the kernel's width - 1) x the stride
 * wide: its masks cost a bitwise and per tap (and at stride s, (s - 1) / s of its grid is
 * junk), the phases layout's junk columns a multiply-add per tap and each of its rows a few
 * instructions of copying. Measured on AVX-512: at stride 1 a 3x3 conv 14 wide runs faster on
 * rows, 28 wide on phases, a 5x5 28 wide on rows; at stride 2 a 3x3 28 wide 2x faster on
 * rows (shorter than a pair of vectors, the phases' rows split one float at a time), 56 wide
 * 1.4x slower, 112 wide 1.8x. */
#define MRVL_DEPTHWISE_ROWS_PER_COLUMN 8 /* not to be overridden: host_kernels.py reads it */

/* The layout of one input channel (floats): `lead` floats before the data (the rows layout's
 * taps left of the first column read there), the data (each phase `depth` slices of h rows of
 * w), slack that the last tile's junk reads past it, and the grid (flat floats: rows `pitch`
 * apart, whole tiles; also the length of each rows mask) unless it is written in place
 * (`direct`). */
typedef struct {
    int rows, direct;
    int64_t depth, h, w, pitch, lead, phase, data, flat, channel;
} depthwise_geometry;

static depthwise_geometry depthwise_layout(const mrvl_conv_params *p)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    depthwise_geometry g;
    g.rows = k[0] == 1 && in[0] == 1 && out[0] == 1 && s[1] == s[2] && in[2] % s[2] == 0 &&
             s[1] * (out[1] - 1) < in[1] && s[2] * (out[2] - 1) < in[2] && pad[1] <= (k[1] - 1) * d[1] &&
             pad[2] <= (k[2] - 1) * d[2] && in[2] <= MRVL_DEPTHWISE_ROWS_PER_COLUMN * (k[2] - 1) * s[2];
    g.direct = g.rows && s[2] == 1 && out[1] == in[1] && out[2] == in[2];
    if (g.rows) {
        g.depth = 1;
        g.h = in[1] + (k[1] - 1) * d[1] + s[1];
        g.w = in[2] / s[2];
        g.pitch = in[2];
        g.lead = (k[2] - 1) * d[2];
        g.phase = g.h * g.w;
        g.data = s[2] * g.phase;
    } else {
        int64_t extent[MRVL_SPATIAL];
        for (int i = 0; i < MRVL_SPATIAL; i++) extent[i] = (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1;
        g.depth = extent[0];
        g.h = (extent[1] + s[1] - 1) / s[1];
        g.w = (extent[2] + s[2] - 1) / s[2];
        g.pitch = g.w;
        g.lead = 0;
        g.phase = g.depth * g.h * g.w;
        g.data = s[1] * s[2] * g.phase;
    }
    g.data += MRVL_DEPTHWISE_TILE + g.w + g.lead;
    g.flat = (out[1] * g.pitch + MRVL_DEPTHWISE_TILE - 1) / MRVL_DEPTHWISE_TILE * MRVL_DEPTHWISE_TILE;
    g.channel = g.lead + g.data + (g.direct ? 0 : g.flat);
    return g;
}

/* Floats of scratch mrvl_depthwise_conv_f32 needs: a layout per input channel (each task uses
 * the one of its first channel, so that the threads share none), the rows layout's column
 * masks, and the tap offsets (mrvl_dialect/host_kernels.py depthwise_scratch_floats). */
static int64_t depthwise_scratch_floats(const mrvl_conv_params *p)
{
    depthwise_geometry g = depthwise_layout(p);
    return p->c * g.channel + (g.rows ? p->kernel[2] * g.flat : 0) + volume3(p->kernel);
}

/* out[i] = bias + the sum over the taps t = (kz, ky, kx) of w[t] * base[offset[t] + i] (lanes
 * whose mask of the tap's kernel column, mask[kx * flat + i], is 0 left out; mask NULL: none),
 * for i < count (a multiple of MRVL_DEPTHWISE_TILE): a tile of MRVL_DEPTHWISE_VECTORS vectors
 * in registers, the taps in order. Always inlined with a constant kernel where it is 3x3 or 5x5,
 * so that the tap loops unroll around the vectors. */
static MRVL_ALWAYS_INLINE void depthwise_flat(int64_t kd, int64_t kh, int64_t kw, const float *base,
                                              const int32_t *offset, const int32_t *mask, int64_t flat,
                                              const float *restrict w, float bias, int64_t count, float *restrict out)
{
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    typedef int32_t ivec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    for (int64_t i = 0; i < count; i += MRVL_DEPTHWISE_TILE) {
        vec a[MRVL_DEPTHWISE_VECTORS];
        for (int v = 0; v < MRVL_DEPTHWISE_VECTORS; v++) a[v] = (vec){0} + bias;
        for (int64_t kz = 0, t = 0; kz < kd; kz++) {
            for (int64_t ky = 0; ky < kh; ky++) {
                for (int64_t kx = 0; kx < kw; kx++, t++) {
                    const float *src = base + offset[t] + i;
                    float wt = w[t];
                    for (int v = 0; v < MRVL_DEPTHWISE_VECTORS; v++) {
                        vec x = *(const vec *)(const void *)(src + v * MRVL_GEMM_VECTOR_FLOATS);
                        if (mask)
                            x = (vec)((ivec)x & *(const ivec *)(const void *)(mask + kx * flat + i +
                                                                              v * MRVL_GEMM_VECTOR_FLOATS));
                        a[v] += x * wt;
                    }
                }
            }
        }
        for (int v = 0; v < MRVL_DEPTHWISE_VECTORS; v++) *(vec *)(void *)(out + i + v * MRVL_GEMM_VECTOR_FLOATS) = a[v];
    }
#else
    for (int64_t i = 0; i < count; i++) {
        float a = bias;
        for (int64_t t = 0; t < kd * kh * kw; t++)
            if (!mask || mask[t % kw * flat + i]) a += base[offset[t] + i] * w[t];
        out[i] = a;
    }
#endif
}

/* depthwise_flat for 3x3, 5x5 and other kernels k, with and without masks. */
static void depthwise_flat_kernel(const int64_t *k, const float *base, const int32_t *offset, const int32_t *mask,
                                  int64_t flat, const float *w, float bias, int64_t count, float *out)
{
    if (k[0] == 1 && k[1] == 3 && k[2] == 3) {
        if (mask) depthwise_flat(1, 3, 3, base, offset, mask, flat, w, bias, count, out);
        else depthwise_flat(1, 3, 3, base, offset, NULL, flat, w, bias, count, out);
    } else if (k[0] == 1 && k[1] == 5 && k[2] == 5) {
        if (mask) depthwise_flat(1, 5, 5, base, offset, mask, flat, w, bias, count, out);
        else depthwise_flat(1, 5, 5, base, offset, NULL, flat, w, bias, count, out);
    } else {
        depthwise_flat(k[0], k[1], k[2], base, offset, mask, flat, w, bias, count, out);
    }
}

/* What the channels of one image of mrvl_depthwise_conv_f32 read and write. */
typedef struct {
    const mrvl_conv_params *p;
    const float *x, *w, *b, *r; /* the image's input, the weights, bias and the image's residual (b, r may be NULL) */
    float *y, *scratch;         /* the image's output; the channels' layouts, the masks, the tap offsets */
    const int32_t *mask, *offset;
    depthwise_geometry g;
} depthwise_args;

/* dst[j] = src[j] for j < count: rows of a depthwise conv, often a few floats long (a 7x7
 * plane's), too short for a call to memcpy to pay (a 112-float row's call cost 4x its copy).
 * Up to 128 floats, in vectors of 16, 8, 4 or 2, the last overlapping the one before, and no
 * loop (which GCC would make a call to memmove); nothing past either row is touched. */
static MRVL_ALWAYS_INLINE void copy_row_f32(float *restrict dst, const float *restrict src, int64_t count)
{
#if defined(__GNUC__)
    typedef float vec16 __attribute__((vector_size(64), aligned(4)));
    typedef float vec8 __attribute__((vector_size(32), aligned(4)));
    typedef float vec4 __attribute__((vector_size(16), aligned(4)));
    typedef float vec2 __attribute__((vector_size(8), aligned(4)));
#define MRVL_COPY(VEC, AT) (*(VEC *)(void *)(dst + (AT)) = *(const VEC *)(const void *)(src + (AT)))
    if (count > 128) {
        memcpy(dst, src, (size_t)count * sizeof(float));
    } else if (count >= 16) {
        MRVL_COPY(vec16, 0);
        if (count > 32) MRVL_COPY(vec16, 16);
        if (count > 48) MRVL_COPY(vec16, 32);
        if (count > 64) MRVL_COPY(vec16, 48);
        if (count > 80) MRVL_COPY(vec16, 64);
        if (count > 96) MRVL_COPY(vec16, 80);
        if (count > 112) MRVL_COPY(vec16, 96);
        MRVL_COPY(vec16, count - 16);
    } else if (count >= 8) {
        MRVL_COPY(vec8, 0);
        MRVL_COPY(vec8, count - 8);
    } else if (count >= 4) {
        MRVL_COPY(vec4, 0);
        MRVL_COPY(vec4, count - 4);
    } else if (count >= 2) {
        MRVL_COPY(vec2, 0);
        MRVL_COPY(vec2, count - 2);
    } else if (count == 1) {
        dst[0] = src[0]; /* (a loop here became a rep movs, tens of cycles) */
    }
#undef MRVL_COPY
#else
    memcpy(dst, src, (size_t)count * sizeof(float));
#endif
}

/* The even floats of src[0, count) to evens[0, ...), the odd ones to odds[0, ...): vectors of
 * each from pairs of loads, the last pair overlapping the one before (rather than up to 2 VF - 1
 * floats one by one: half of a 56-float row), an odd count's last float alone. */
static void split_columns_f32(float *restrict evens, float *restrict odds, const float *restrict src, int64_t count)
{
    int64_t t = 0;
    for (;;) {
        if (2 * (t + MRVL_POOL_VF) > count) {
            if (2 * t >= count - 1 || count < 2 * MRVL_POOL_VF) break;
            t = (count - 2 * MRVL_POOL_VF) / 2; /* the last whole pair, from an even float */
        }
        pool_vec even, odd;
        pool_deinterleave(pool_load(src + 2 * t), pool_load(src + 2 * t + MRVL_POOL_VF), &even, &odd);
        pool_store(evens + t, even);
        pool_store(odds + t, odd);
        t += MRVL_POOL_VF;
    }
    for (; 2 * t < count; t++) {
        evens[t] = src[2 * t];
        if (2 * t + 1 < count) odds[t] = src[2 * t + 1];
    }
}

/* The phases layout at horizontal stride 2: each input row read once, in order, its padded
 * columns c (input column + pad) apart by parity into the two phases of its row's vertical
 * phase, at c / 2 (a pass per phase read each row twice, in 4 runs of rows: a third slower). */
static void depthwise_copy_in_pairs(const mrvl_conv_params *p, const depthwise_geometry *g, const float *plane,
                                    float *data)
{
    const int64_t *in = p->in, *s = p->stride, *pad = p->pad;
    int64_t count = min_i64(in[2], 2 * g->w - pad[2]); /* the columns whose c / 2 is a phase column */
    int64_t first = pad[2] / 2, second = (pad[2] + 1) / 2; /* c / 2 of input columns 0 and 1 */
    for (int64_t z = pad[0]; z < min_i64(g->depth, pad[0] + in[0]); z++) {
        for (int64_t yy = 0; yy < in[1]; yy++) {
            int64_t py = (yy + pad[1]) % s[1], i = (yy + pad[1]) / s[1];
            if (i >= g->h) break;
            float *phase0 = data + 2 * py * g->phase + (z * g->h + i) * g->w, *phase1 = phase0 + g->phase;
            const float *src = plane + ((z - pad[0]) * in[1] + yy) * in[2];
            if (pad[2] % 2) split_columns_f32(phase1 + first, phase0 + second, src, count);
            else split_columns_f32(phase0 + first, phase1 + second, src, count);
        }
    }
}

/* Input plane `plane` into its layout at `data` (depthwise_layout): the input's own rows and
 * columns only; the padding around them is left as it is, zeros written once for all the
 * channels that reuse the layout. */
static void depthwise_copy_in(const mrvl_conv_params *p, const depthwise_geometry *g, const float *plane, float *data)
{
    const int64_t *in = p->in, *s = p->stride, *pad = p->pad;
    if (g->rows) { /* column phase q of element f of the plane: f % s (the width is a multiple of s) */
        int64_t count = in[1] * in[2] / s[2];
        float *row0 = data + pad[1] * g->w, *row1 = row0 + g->phase;
        if (s[2] == 1) copy_row_f32(row0, plane, count);
        else if (s[2] == 2)
            for (int64_t j = 0; j < count; j++) row0[j] = plane[2 * j], row1[j] = plane[2 * j + 1]; /* vectorises */
        else
            for (int64_t j = 0; j < count; j++)
                for (int64_t q = 0; q < s[2]; q++) row0[q * g->phase + j] = plane[j * s[2] + q];
        return;
    }
    if (s[2] == 2) {
        depthwise_copy_in_pairs(p, g, plane, data);
        return;
    }
    for (int64_t py = 0; py < s[1]; py++) {
        for (int64_t px = 0; px < s[2]; px++, data += g->phase) {
            /* Columns j of this phase read input column j * stride + px - pad: those in [j0, j1);
             * rows i, input row i * stride + py - pad: those in [i0, i1). */
            int64_t j0 = 0, j1 = 0, i0 = 0, i1 = 0;
            valid_range(g->w, in[2], s[2], px - pad[2], &j0, &j1);
            valid_range(g->h, in[1], s[1], py - pad[1], &i0, &i1);
            for (int64_t z = pad[0]; z < min_i64(g->depth, pad[0] + in[0]); z++) {
                for (int64_t i = i0; i < i1; i++) {
                    float *row = data + (z * g->h + i) * g->w;
                    const float *src = plane + ((z - pad[0]) * in[1] + i * s[1] + py - pad[1]) * in[2] + px - pad[2];
                    if (s[2] == 1) copy_row_f32(row + j0, src + j0, j1 - j0);
                    else if (s[2] == 2) for (int64_t j = j0; j < j1; j++) row[j] = src[2 * j]; /* vectorises */
                    else for (int64_t j = j0; j < j1; j++) row[j] = src[j * s[2]];
                }
            }
        }
    }
}

/* dst[j] = src[j] clamped to [low, high] for j < count (at least 16): copy_row_f32 and
 * clamp_f32 in one pass, in runs of 16 floats (each a max and a min of whole vectors), the
 * last overlapping the one before. */
static MRVL_ALWAYS_INLINE void copy_clamped_row_f32(float *restrict dst, const float *restrict src, int64_t count,
                                                    float low, float high)
{
    int64_t last = count - 16;
    for (int64_t j = 0; j < count; j += 16) {
        float run[16];
        int64_t at = j < last ? j : last;
        memcpy(run, src + at, sizeof run);
        for (int l = 0; l < 16; l++) run[l] = clamp_value(run[l], low, high);
        memcpy(dst + at, run, sizeof run);
    }
}

/* Output floats a depthwise conv's epilogue takes at a time: planes computed lately, in L1. */
#define MRVL_DEPTHWISE_EPILOGUE_FLOATS 2048

/* Input channels [begin, end) of one image (an mrvl_task): each channel's layout, then each of
 * its output channels, slice by slice, over the flat grid, then (every few planes) their
 * epilogue. The channels of
 * one task take turns in the layout of the first, `begin`, which no other task uses: its
 * padding is zeroed once. */
static void depthwise_channels(const void *ctx, int64_t begin, int64_t end)
{
    const depthwise_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const depthwise_geometry *g = &a->g;
    const int64_t *out = p->out, *k = p->kernel;
    int64_t mult = p->m / p->c, taps = volume3(k), positions = volume3(out);
    int64_t pending = begin * mult; /* the first output plane whose epilogue has not run */
    float *layout = a->scratch + begin * g->channel, *data = layout + g->lead, *flat = data + g->data;
    /* A clamp alone (ReLU6) on rows copied out of the grid, 16 floats or more: clamped as they
     * are copied, not in a pass of its own. */
    int clamped = p->clamp && !a->r && p->activation == MRVL_EPILOGUE_NONE && !p->scale && !p->shift && !g->direct &&
                  out[2] >= 16;
    memset(layout, 0, (size_t)(g->lead + g->data) * sizeof(float));
    for (int64_t ic = begin; ic < end; ic++) {
        depthwise_copy_in(p, g, a->x + ic * volume3(p->in), data);
        for (int64_t m = ic * mult; m < (ic + 1) * mult; m++) {
            const float *wm = a->w + m * taps;
            float bias = a->b ? a->b[m] : 0.0f, *o = a->y + m * positions;
            if (g->direct) { /* the grid is the output plane: whole tiles in place, the last through `tail` */
                int64_t whole = positions / MRVL_DEPTHWISE_TILE * MRVL_DEPTHWISE_TILE;
                float tail[64]; /* a tile on any target (<= 64 floats), as far as copy_row_f32 can tell */
                depthwise_flat_kernel(k, data, a->offset, a->mask, g->flat, wm, bias, whole, o);
                if (whole < positions) {
                    depthwise_flat_kernel(k, data + whole, a->offset, a->mask + whole, g->flat, wm, bias,
                                          MRVL_DEPTHWISE_TILE, tail);
                    copy_row_f32(o + whole, tail, positions - whole);
                }
            } else if (g->rows) {
                depthwise_flat_kernel(k, data, a->offset, a->mask, g->flat, wm, bias, g->flat, flat);
                for (int64_t oy = 0; oy < out[1]; oy++)
                    if (clamped) copy_clamped_row_f32(o + oy * out[2], flat + oy * g->pitch, out[2], p->min, p->max);
                    else copy_row_f32(o + oy * out[2], flat + oy * g->pitch, out[2]);
            } else {
                for (int64_t oz = 0; oz < out[0]; oz++) {
                    depthwise_flat_kernel(k, data + oz * p->stride[0] * g->h * g->w, a->offset, NULL, g->flat, wm,
                                          bias, g->flat, flat);
                    for (int64_t oy = 0; oy < out[1]; oy++)
                        if (clamped)
                            copy_clamped_row_f32(o + (oz * out[1] + oy) * out[2], flat + oy * g->w, out[2], p->min,
                                                 p->max);
                        else copy_row_f32(o + (oz * out[1] + oy) * out[2], flat + oy * g->w, out[2]);
                }
            }
        }
        /* The epilogue over the planes since the last, once they fill the caches' share (a
         * call per 7x7 plane was a tenth of MobileNet's last depthwise convs). */
        int64_t next = (ic + 1) * mult;
        if (!clamped && ((next - pending) * positions >= MRVL_DEPTHWISE_EPILOGUE_FLOATS || ic + 1 == end)) {
            conv_epilogue(p, (next - pending) * positions, positions, pending,
                          a->r ? a->r + pending * positions : NULL, a->y + pending * positions);
            pending = next;
        }
    }
}

/* A grouped conv with one input channel per group (depthwise, channel multiplier m/c), on flat
 * planes (depthwise_layout) in `scratch` (depthwise_scratch_floats(p) floats); the input
 * channels of each image split over the threads. */
static void mrvl_depthwise_conv_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                    const float *r, float *y, float *scratch)
{
    const int64_t *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    depthwise_geometry g = depthwise_layout(p);
    int32_t *mask = (int32_t *)(void *)(scratch + p->c * g.channel);
    int32_t *offset = mask + (g.rows ? k[2] * g.flat : 0);
    for (int64_t kz = 0, t = 0; kz < k[0]; kz++)
        for (int64_t ky = 0; ky < k[1]; ky++)
            for (int64_t kx = 0; kx < k[2]; kx++, t++)
                offset[t] = (int32_t)(g.rows ? (kx * d[2] - pad[2] + s[2] * pad[2]) % s[2] * g.phase + ky * d[1] * g.w +
                                                   (kx * d[2] - pad[2] + s[2] * pad[2]) / s[2] - pad[2]
                                             : ((ky * d[1] % s[1]) * s[2] + kx * d[2] % s[2]) * g.phase +
                                                   (kz * d[0] * g.h + ky * d[1] / s[1]) * g.w + kx * d[2] / s[2]);
    if (g.rows) /* lane i of kernel column kx: whether input column s (i % pitch) + kx d - pad is inside */
        for (int64_t kx = 0; kx < k[2]; kx++)
            for (int64_t i = 0; i < g.flat; i++) {
                int64_t col = s[2] * (i % g.pitch) + kx * d[2] - pad[2];
                mask[kx * g.flat + i] = col >= 0 && col < p->in[2] ? -1 : 0;
            }
    depthwise_args a = {p, x, w, b, r, y, scratch, g.rows ? mask : NULL, offset, g};
    int64_t plane = volume3(p->in), positions = volume3(p->out);
    for (int64_t n = 0; n < p->n; n++, a.x += p->c * plane, a.y += p->m * positions) {
        a.r = r ? r + n * p->m * positions : NULL;
        if (p->m * g.flat * volume3(k) < MRVL_PARALLEL_MACS) depthwise_channels(&a, 0, p->c);
        else mrvl_parallel(p->c, depthwise_channels, &a);
    }
}

/* A depthwise conv may also run channel-blocked (mrvl_depthwise_blocked_conv_f32): the input
 * planes of MRVL_DEPTHWISE_BLOCK channels transposed into one position-major plane (each
 * position the block's channels side by side, zero-padded to the extent the windows read),
 * so that each tap is one multiply-add of a whole vector of channels by the tap's weights of
 * those channels, on aligned loads, with no masks and no junk at any stride; the output
 * computed into a position-major grid and transposed back, the epilogue run on the way out.
 * The transposes cost what the flat layouts' copies save where planes are small or strided
 * (host_kernels.py depthwise_is_blocked picks). */
#define MRVL_DEPTHWISE_BLOCK 16 /* not to be overridden: host_kernels.py reads it */
/* Output positions a tile of the channel-blocked conv sums at once: a vector of the block's
 * channels each, (MRVL_DEPTHWISE_BLOCK / vector floats) registers; about half the registers. */
#if MRVL_GEMM_VECTOR_FLOATS == 16
#define MRVL_DEPTHWISE_BLOCK_TILE 8
#elif MRVL_GEMM_VECTOR_FLOATS == 8 || defined(__aarch64__)
#define MRVL_DEPTHWISE_BLOCK_TILE 4
#else
#define MRVL_DEPTHWISE_BLOCK_TILE 2
#endif

/* The channel-blocked layout (positions of MRVL_DEPTHWISE_BLOCK floats): the padded input
 * `h` rows of `w`, as far as the windows read, then slack the last tiles' junk reads; the
 * output grid, rows `pitch` apart (the output's width rounded up to whole tiles). */
typedef struct {
    int64_t h, w, pitch, input, grid, block; /* block: floats of one block's scratch */
} depthwise_blocked_geometry;

static depthwise_blocked_geometry depthwise_blocked_layout(const mrvl_conv_params *p)
{
    const int64_t *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    depthwise_blocked_geometry g;
    g.h = (out[1] - 1) * s[1] + (k[1] - 1) * d[1] + 1;
    g.w = (out[2] - 1) * s[2] + (k[2] - 1) * d[2] + 1;
    g.pitch = (out[2] + MRVL_DEPTHWISE_BLOCK_TILE - 1) / MRVL_DEPTHWISE_BLOCK_TILE * MRVL_DEPTHWISE_BLOCK_TILE;
    g.input = g.h * g.w + s[2] * (g.pitch - out[2]);
    g.grid = out[1] * g.pitch;
    g.block = (g.input + g.grid + volume3(k) + 1) * MRVL_DEPTHWISE_BLOCK;
    return g;
}

/* Floats of scratch mrvl_depthwise_blocked_conv_f32 needs: a layout, the weights and the
 * bias per block of channels (each task uses its first block's) and the tap offsets
 * (mrvl_dialect/host_kernels.py depthwise_blocked_scratch_floats). */
static int64_t depthwise_blocked_scratch_floats(const mrvl_conv_params *p)
{
    int64_t blocks = (p->c + MRVL_DEPTHWISE_BLOCK - 1) / MRVL_DEPTHWISE_BLOCK;
    return blocks * depthwise_blocked_layout(p).block + volume3(p->kernel);
}

#if defined(__GNUC__)
enum { DW_VF = MRVL_GEMM_VECTOR_FLOATS, DW_VECS = MRVL_DEPTHWISE_BLOCK / MRVL_GEMM_VECTOR_FLOATS };
typedef float dw_vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
#endif

/* A tile of MRVL_DEPTHWISE_BLOCK_TILE output positions of a row, sx positions apart in the
 * input (at `in`, its first window's first tap), into grid positions at `out`: each starts
 * at the bias and adds, tap by tap in order, the tap's input position times its weights.
 * Always inlined with a constant kernel and stride where they are the usual ones, so that the
 * taps unroll and the loads take constant displacements. */
static MRVL_ALWAYS_INLINE void depthwise_blocked_tile(int64_t taps, int64_t sx, const float *in,
                                                      const int32_t *offset, const float *restrict w,
                                                      const float *restrict bias, float *restrict out)
{
#if defined(__GNUC__)
    dw_vec acc[MRVL_DEPTHWISE_BLOCK_TILE][DW_VECS];
    for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++)
        for (int v = 0; v < DW_VECS; v++) acc[r][v] = *(const dw_vec *)(const void *)(bias + v * DW_VF);
    for (int64_t t = 0; t < taps; t++) {
        const float *src = in + offset[t];
        dw_vec wt[DW_VECS];
        for (int v = 0; v < DW_VECS; v++)
            wt[v] = *(const dw_vec *)(const void *)(w + t * MRVL_DEPTHWISE_BLOCK + v * DW_VF);
        for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++)
            for (int v = 0; v < DW_VECS; v++)
                acc[r][v] += *(const dw_vec *)(const void *)(src + r * sx * MRVL_DEPTHWISE_BLOCK + v * DW_VF) * wt[v];
    }
    for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++)
        for (int v = 0; v < DW_VECS; v++) *(dw_vec *)(void *)(out + r * MRVL_DEPTHWISE_BLOCK + v * DW_VF) = acc[r][v];
#else
    for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++)
        for (int j = 0; j < MRVL_DEPTHWISE_BLOCK; j++) {
            float a = bias[j];
            for (int64_t t = 0; t < taps; t++)
                a += in[offset[t] + r * sx * MRVL_DEPTHWISE_BLOCK + j] * w[t * MRVL_DEPTHWISE_BLOCK + j];
            out[r * MRVL_DEPTHWISE_BLOCK + j] = a;
        }
#endif
}

/* The tiles of output row `oy` (depthwise_blocked_tile), for 3x3 and 5x5 kernels at strides
 * 1 and 2 and any other. */
static void depthwise_blocked_row(const mrvl_conv_params *p, const depthwise_blocked_geometry *g, const float *in,
                                  const int32_t *offset, const float *w, const float *bias, int64_t oy, float *grid)
{
    const int64_t *k = p->kernel, *s = p->stride;
    int64_t taps = k[1] * k[2], sx = s[2];
    in += oy * s[1] * g->w * MRVL_DEPTHWISE_BLOCK;
    grid += oy * g->pitch * MRVL_DEPTHWISE_BLOCK;
#define MRVL_ROW(TAPS, SX)                                                                                    \
    for (int64_t ox = 0; ox < g->pitch; ox += MRVL_DEPTHWISE_BLOCK_TILE)                                     \
        depthwise_blocked_tile(TAPS, SX, in + ox * (SX) * MRVL_DEPTHWISE_BLOCK, offset, w, bias,              \
                               grid + ox * MRVL_DEPTHWISE_BLOCK)
    if (taps == 9 && k[1] == 3 && sx == 1) MRVL_ROW(9, 1);
    else if (taps == 9 && k[1] == 3 && sx == 2) MRVL_ROW(9, 2);
    else if (taps == 25 && k[1] == 5 && sx == 1) MRVL_ROW(25, 1);
    else if (taps == 25 && k[1] == 5 && sx == 2) MRVL_ROW(25, 2);
    else MRVL_ROW(taps, sx);
#undef MRVL_ROW
}

/* Input positions [begin, end) (flat indices of the planes of channels c0 .. c0 + count) into
 * the block's padded input: runs of vector-floats positions of vector-floats channels
 * transposed in registers, each position stored where it goes (if the windows read it). */
static void depthwise_blocked_in(const mrvl_conv_params *p, const depthwise_blocked_geometry *g, const float *x,
                                 int64_t count, int64_t begin, int64_t end, float *input)
{
    const int64_t *in = p->in, *pad = p->pad;
    int64_t plane = in[1] * in[2];
#if defined(__GNUC__)
    int64_t yy = begin / in[2], xx = begin % in[2]; /* position f's row and column */
    for (int64_t f = begin; f < end; f += DW_VF) {
        /* A short last run is read as the whole vectors that end with it (the lanes before f
         * not stored again), where the plane has them: a vector loaded from floats stored one
         * by one would wait for them (a store-forwarding stall per channel). */
        int64_t n = min_i64(DW_VF, end - f), at = n < DW_VF && end >= DW_VF ? end - DW_VF : f;
        /* Where each position goes: a run of a row, all of it read (the usual), or one by one. */
        float *dst[DW_VF];
        float *run = input + ((yy + pad[1]) * g->w + xx + pad[2]) * MRVL_DEPTHWISE_BLOCK;
        int whole = n == DW_VF && xx + DW_VF <= in[2] && yy + pad[1] < g->h && xx + DW_VF + pad[2] <= g->w;
        int64_t row = at / in[2] + pad[1], col = at % in[2] + pad[2]; /* lane 0's */
        for (int64_t j = 0; j < DW_VF && !whole; j++) {
            dst[j] = at + j >= f && at + j < end && row < g->h && col < g->w
                         ? input + (row * g->w + col) * MRVL_DEPTHWISE_BLOCK : NULL;
            if (++col == in[2] + pad[2]) col = pad[2], row++;
        }
        for (xx += DW_VF; xx >= in[2]; xx -= in[2]) yy++;
        for (int v = 0; v < DW_VECS; v++) {
            conv_vec t[DW_VF];
            for (int i = 0; i < DW_VF; i++) {
                int64_t c = v * DW_VF + i;
                if (c >= count) t[i] = (conv_vec){0};
                else if (at + DW_VF <= end) t[i] = *(const dw_vec *)(const void *)(x + c * plane + at);
                else t[i] = (conv_vec){0}, copy_row_f32((float *)&t[i], x + c * plane + f, n);
            }
            conv_transpose(t);
            for (int j = 0; j < DW_VF; j++)
                if (whole) *(dw_vec *)(void *)(run + j * MRVL_DEPTHWISE_BLOCK + v * DW_VF) = t[j];
                else if (dst[j]) *(dw_vec *)(void *)(dst[j] + v * DW_VF) = t[j];
        }
    }
#else
    for (int64_t f = begin; f < end; f++) {
        int64_t yy = f / in[2] + pad[1], xx = f % in[2] + pad[2];
        if (yy < g->h && xx < g->w)
            for (int64_t c = 0; c < count; c++) input[(yy * g->w + xx) * MRVL_DEPTHWISE_BLOCK + c] = x[c * plane + f];
    }
#endif
}

/* dst[t * MRVL_DEPTHWISE_BLOCK + c] = src[c * taps + t] for the taps t and channels c < count,
 * 0 for the block's other channels (src has `size` floats): a block's weights, tap-major,
 * transposed in registers as depthwise_blocked_in does (one by one they were a tenth of a 7x7
 * plane's conv). A vector of a channel's taps may run into the next channel's, not past src. */
static void depthwise_blocked_weights(const float *src, int64_t taps, int64_t count, int64_t size, float *dst)
{
#if defined(__GNUC__)
    for (int64_t f = 0; f < taps; f += DW_VF) {
        int64_t m = min_i64(DW_VF, taps - f);
        for (int v = 0; v < DW_VECS; v++) {
            conv_vec t[DW_VF];
            for (int i = 0; i < DW_VF; i++) {
                int64_t at = (v * DW_VF + i) * taps + f;
                if (v * DW_VF + i >= count) t[i] = (conv_vec){0};
                else if (at + DW_VF <= size) t[i] = *(const dw_vec *)(const void *)(src + at);
                else t[i] = (conv_vec){0}, copy_row_f32((float *)&t[i], src + at, m);
            }
            conv_transpose(t);
            for (int64_t j = 0; j < m; j++)
                *(dw_vec *)(void *)(dst + (f + j) * MRVL_DEPTHWISE_BLOCK + v * DW_VF) = t[j];
        }
    }
#else
    (void)size;
    for (int64_t t = 0; t < taps; t++)
        for (int64_t c = 0; c < MRVL_DEPTHWISE_BLOCK; c++)
            dst[t * MRVL_DEPTHWISE_BLOCK + c] = c < count ? src[c * taps + t] : 0.0f;
#endif
}

/* Output positions [begin, end) (flat) of channels c0 .. c0 + count from the grid into their
 * planes of y, transposed back in registers, with the conv's epilogue on the way: the
 * residual (r: the image's, or NULL), the clamp, the activation, the per-channel PRelu, scale
 * and shift, in conv_epilogue's order. */
static void depthwise_blocked_out(const mrvl_conv_params *p, const depthwise_blocked_geometry *g, const float *grid,
                                  int64_t c0, int64_t count, int64_t begin, int64_t end, const float *r, float *y)
{
    int64_t positions = p->out[1] * p->out[2];
#if defined(__GNUC__)
    int64_t oy = begin / p->out[2], ox = begin % p->out[2]; /* position f's */
    for (int64_t f = begin; f < end; f += DW_VF) {
        /* A short last run as the whole vectors that end with it, where the plane has them
         * (as depthwise_blocked_in), its lanes before f not stored. */
        int64_t n = min_i64(DW_VF, end - f), at = n < DW_VF && end >= DW_VF ? end - DW_VF : f;
        /* Where each position is: a run of a row (the usual), or one by one, lanes past the
         * end repeating the last position. */
        const float *src[DW_VF];
        const float *run = grid + (oy * g->pitch + ox) * MRVL_DEPTHWISE_BLOCK;
        int whole = n == DW_VF && ox + DW_VF <= p->out[2];
        for (int64_t j = 0, i = at / p->out[2], k = at % p->out[2]; j < DW_VF && !whole; j++) {
            src[j] = grid + (i * g->pitch + k) * MRVL_DEPTHWISE_BLOCK;
            if (at + j + 1 < end && ++k == p->out[2]) k = 0, i++;
        }
        for (ox += DW_VF; ox >= p->out[2]; ox -= p->out[2]) oy++;
        conv_vec t[MRVL_DEPTHWISE_BLOCK]; /* t[c]: channel c0 + c at positions f .. */
        for (int v = 0; v < DW_VECS; v++) {
            for (int j = 0; j < DW_VF; j++)
                t[v * DW_VF + j] = *(const dw_vec *)(const void *)((whole ? run + j * MRVL_DEPTHWISE_BLOCK : src[j]) +
                                                                   v * DW_VF);
            conv_transpose(t + v * DW_VF);
        }
        if (r)
            for (int64_t c = 0; c < count; c++) {
                conv_vec add = {0};
                if (at + DW_VF <= end) add = *(const dw_vec *)(const void *)(r + (c0 + c) * positions + at);
                else copy_row_f32((float *)&add, r + (c0 + c) * positions + f, n);
                t[c] += add;
            }
        if (p->clamp) clamp_f32(MRVL_DEPTHWISE_BLOCK * DW_VF, p->min, p->max, (float *)t);
        if (p->activation != MRVL_EPILOGUE_NONE) conv_activate(p, (int64_t)sizeof t / sizeof(float), (float *)t);
        if (p->slope)
            for (int64_t c = 0; c < count; c++) {
                float a = p->slope[c0 + c], *tc = (float *)&t[c];
                for (int j = 0; j < DW_VF; j++) tc[j] = prelu_value(tc[j], a);
            }
        if (p->scale || p->shift)
            for (int64_t c = 0; c < count; c++) {
                if (p->scale) t[c] *= p->scale[c0 + c];
                if (p->shift) t[c] += p->shift[c0 + c];
            }
        for (int64_t c = 0; c < count; c++)
            if (n == DW_VF) *(dw_vec *)(void *)(y + (c0 + c) * positions + f) = t[c];
            else copy_row_f32(y + (c0 + c) * positions + f, (const float *)&t[c] + (f - at), n);
    }
#else
    for (int64_t c = 0; c < count; c++) {
        float *yc = y + (c0 + c) * positions;
        for (int64_t f = begin; f < end; f++)
            yc[f] = grid[(f / p->out[2] * g->pitch + f % p->out[2]) * MRVL_DEPTHWISE_BLOCK + c];
        conv_epilogue(p, end - begin, positions, c0 + c, r ? r + (c0 + c) * positions + begin : NULL, yc + begin);
    }
#endif
}

/* What the channel blocks of one image of mrvl_depthwise_blocked_conv_f32 read and write. */
typedef struct {
    const mrvl_conv_params *p;
    const float *x, *w, *b, *r; /* the image's input, the weights, bias and the image's residual (b, r may be NULL) */
    float *y, *scratch;         /* the image's output; the blocks' layouts */
    const int32_t *offset;      /* the taps' offsets in the input (floats) */
    depthwise_blocked_geometry g;
} depthwise_blocked_args;

/* Positions the channel-blocked conv transposes in or out at a time (at least): planes of a
 * few rows are done in one go, larger ones while their rows are still in L1. */
#define MRVL_DEPTHWISE_BLOCK_BATCH 128

/* Channel blocks [begin, end) of one image (an mrvl_task), in the layout of the first block,
 * `begin`, which no other task uses (its padding zeroed once): per block its weights, then
 * row by row the input rows the next output row's windows reach transposed in, the row
 * computed and, every few rows, the grid's finished positions transposed out. */
static void depthwise_blocked_channels(const void *ctx, int64_t begin, int64_t end)
{
    const depthwise_blocked_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const depthwise_blocked_geometry *g = &a->g;
    const int64_t *in = p->in, *out = p->out, *k = p->kernel;
    int64_t taps = k[1] * k[2], plane = in[1] * in[2], positions = out[1] * out[2];
    float *input = a->scratch + begin * g->block, *grid = input + g->input * MRVL_DEPTHWISE_BLOCK;
    float *w = grid + g->grid * MRVL_DEPTHWISE_BLOCK, *bias = w + taps * MRVL_DEPTHWISE_BLOCK;
    memset(input, 0, (size_t)g->input * MRVL_DEPTHWISE_BLOCK * sizeof(float));
    for (int64_t block = begin; block < end; block++) {
        int64_t c0 = block * MRVL_DEPTHWISE_BLOCK, count = min_i64(MRVL_DEPTHWISE_BLOCK, p->c - c0);
        depthwise_blocked_weights(a->w + c0 * taps, taps, count, (p->c - c0) * taps, w);
        for (int64_t j = 0; j < MRVL_DEPTHWISE_BLOCK; j++) bias[j] = j < count && a->b ? a->b[c0 + j] : 0.0f;
        const float *x = a->x + c0 * plane;
        int64_t read = 0, written = 0; /* input positions transposed in, output positions out */
        for (int64_t oy = 0; oy < out[1]; oy++) {
            /* the input rows this output row's windows reach (padded rows up to `last`) */
            int64_t last = oy * p->stride[1] + (k[1] - 1) * p->dilation[1] - p->pad[1];
            int64_t need = (last + 1) * in[2];
            if (need > read) { /* whole batches of positions, the plane's last ones with the rest */
                int64_t upto = read + MRVL_DEPTHWISE_BLOCK_BATCH;
                while (upto < need) upto += MRVL_DEPTHWISE_BLOCK_BATCH;
                if (upto + MRVL_DEPTHWISE_BLOCK_BATCH > plane) upto = plane;
                depthwise_blocked_in(p, g, x, count, read, upto, input);
                read = upto;
            }
            depthwise_blocked_row(p, g, input, a->offset, w, bias, oy, grid);
            /* whole vectors of positions done, the plane's last ones with the rest */
            int64_t done = oy + 1 == out[1] ? positions
                                            : (oy + 1) * out[2] / MRVL_GEMM_VECTOR_FLOATS * MRVL_GEMM_VECTOR_FLOATS;
            if (done - written >= MRVL_DEPTHWISE_BLOCK_BATCH || oy + 1 == out[1]) {
                depthwise_blocked_out(p, g, grid, c0, count, written, done, a->r, a->y);
                written = done;
            }
        }
    }
}

/* A depthwise conv (one input channel per group, channel multiplier 1, one depth slice),
 * channel-blocked (depthwise_blocked_layout) in `scratch` (depthwise_blocked_scratch_floats(p)
 * floats); the blocks of each image split over the threads. */
static void mrvl_depthwise_blocked_conv_f32(const mrvl_conv_params *p, const float *x, const float *w,
                                            const float *b, const float *r, float *y, float *scratch)
{
    const int64_t *k = p->kernel, *d = p->dilation;
    depthwise_blocked_geometry g = depthwise_blocked_layout(p);
    int64_t blocks = (p->c + MRVL_DEPTHWISE_BLOCK - 1) / MRVL_DEPTHWISE_BLOCK;
    int32_t *offset = (int32_t *)(void *)(scratch + blocks * g.block);
    for (int64_t ky = 0, t = 0; ky < k[1]; ky++)
        for (int64_t kx = 0; kx < k[2]; kx++, t++)
            offset[t] = (int32_t)((ky * d[1] * g.w + kx * d[2]) * MRVL_DEPTHWISE_BLOCK);
    depthwise_blocked_args a = {p, x, w, b, r, y, scratch, offset, g};
    int64_t plane = volume3(p->in), positions = volume3(p->out);
    for (int64_t n = 0; n < p->n; n++, a.x += p->c * plane, a.y += conv_y_batch(p)) {
        a.r = r ? r + n * p->m * positions : NULL;
        if (p->m * positions * volume3(k) < MRVL_PARALLEL_MACS) depthwise_blocked_channels(&a, 0, blocks);
        else mrvl_parallel(blocks, depthwise_blocked_channels, &a);
    }
}

/* Floats of the phase rows conv_transpose_channels sums an output row in (on the stack): a
 * wider output row (over ~4000 columns) takes the generic scatter. */
#define MRVL_CONV_TRANSPOSE_ROW 4096

typedef struct {
    const mrvl_conv_params *p;
    const float *col, *b; /* the GEMM's columns (mg * taps, in-positions); the group's bias or NULL */
    int64_t m0;           /* the group's first output channel */
    float *y;             /* the group's output channels */
} conv_transpose_args;

/* Output channels [begin, end) of one image and group of a 2-D transposed conv (an mrvl_task),
 * from its GEMM's columns: each output row summed as s phase rows (s the horizontal stride;
 * output column s * j + phase is phase row `phase`'s element j), each tap's input row added
 * whole and contiguous into the phase its columns land in, then the phases interleaved into
 * the row with the bias (then its clamp and activation): one store per output, where a
 * scatter of each tap's row would read and write every output once per tap with a stride. */
static void conv_transpose_channels(const void *ctx, int64_t begin, int64_t end)
{
    const conv_transpose_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t in_positions = in[1] * in[2], positions = out[1] * out[2], sx = s[2], tw = (out[2] + sx - 1) / sx;
    float t[MRVL_CONV_TRANSPOSE_ROW];
    for (int64_t m = begin; m < end; m++) {
        float bias = a->b ? a->b[m] : 0.0f;
        const float *col = a->col + m * k[1] * k[2] * in_positions;
        for (int64_t oy = 0; oy < out[1]; oy++) {
            memset(t, 0, (size_t)(sx * tw) * sizeof(float));
            for (int64_t ky = 0; ky < k[1]; ky++) {
                int64_t from = oy + pad[1] - ky * d[1], iy = from / s[1];
                if (from < 0 || from % s[1] || iy >= in[1]) continue;
                for (int64_t kx = 0; kx < k[2]; kx++) {
                    int64_t at = kx * d[2] - pad[2], phase = (at % sx + sx) % sx, q = (at - phase) / sx;
                    int64_t length = (out[2] - phase + sx - 1) / sx; /* the phase's outputs */
                    int64_t lo = q < 0 ? -q : 0, hi = min_i64(in[2], length - q);
                    const float *src = col + (ky * k[2] + kx) * in_positions + iy * in[2];
                    float *dst = t + phase * tw + q;
                    for (int64_t ix = lo; ix < hi; ix++) dst[ix] += src[ix];
                }
            }
            float *row = a->y + m * positions + oy * out[2];
            if (sx == 2) {
                for (int64_t j = 0; j < out[2] / 2; j++) {
                    row[2 * j] = bias + t[j];
                    row[2 * j + 1] = bias + t[tw + j];
                }
                if (out[2] % 2) row[out[2] - 1] = bias + t[tw - 1];
            } else {
                for (int64_t phase = 0; phase < sx; phase++)
                    for (int64_t j = 0; j * sx + phase < out[2]; j++) row[j * sx + phase] = bias + t[phase * tw + j];
            }
            if (p->clamp || p->activation) conv_epilogue(p, out[2], out[2], a->m0 + m, NULL, row);
        }
    }
}

/* y (n, m, out) from x (n, c, in) and w (c, m/group, kernel), plus b (m) or NULL. Per image
 * and group: the product w' (mg * taps, cg) x x (cg, in-positions) into `scratch` (mg * taps *
 * in-positions floats, then MRVL_GEMM_PACK_FLOATS(mg * taps, in-positions, cg) for packing),
 * then each column added into the output at its taps (col2im): for 2-D convs by output rows
 * (conv_transpose_channels, the channels split over the threads), else tap by tap; then the
 * fused clamp and activation (p's, a PRelu per channel; a transposed conv has no residual,
 * scale or shift). */
static void mrvl_conv_transpose_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                    float *y, float *scratch)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t cg = p->c / p->group, mg = p->m / p->group, taps = volume3(k);
    int64_t in_positions = volume3(in), positions = volume3(out), rows = mg * taps;
    int by_rows = in[0] == 1 && k[0] == 1 && out[0] == 1 && out[2] + s[2] <= MRVL_CONV_TRANSPOSE_ROW;
    float *pack = scratch + rows * in_positions;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            const float *xg = x + (n * p->c + g * cg) * in_positions;
            float *yg = y + (n * p->m + g * mg) * positions;
            /* w's group g is (cg, mg * taps): its transpose has row stride 1, column stride rows. */
            fill_rows_f32(rows, in_positions, NULL, scratch, in_positions);
            gemm_acc_f32(rows, in_positions, cg, w + g * cg * rows, 1, rows, xg, in_positions, 1, scratch,
                         in_positions, pack);
            if (by_rows) {
                conv_transpose_args args = {p, scratch, b ? b + g * mg : NULL, g * mg, yg};
                if (mg * positions * taps < MRVL_PARALLEL_MACS) conv_transpose_channels(&args, 0, mg);
                else mrvl_parallel(mg, conv_transpose_channels, &args);
                continue;
            }
            fill_rows_f32(mg, positions, b ? b + g * mg : NULL, yg, positions);
            const float *col = scratch;
            for (int64_t m = 0; m < mg; m++) {
                float *o = yg + m * positions;
                for (int64_t kz = 0; kz < k[0]; kz++) {
                    for (int64_t ky = 0; ky < k[1]; ky++) {
                        for (int64_t kx = 0; kx < k[2]; kx++, col += in_positions) {
                            for (int64_t iz = 0; iz < in[0]; iz++) {
                                int64_t oz = iz * s[0] + kz * d[0] - pad[0];
                                if (oz < 0 || oz >= out[0]) continue;
                                for (int64_t iy = 0; iy < in[1]; iy++) {
                                    int64_t oy = iy * s[1] + ky * d[1] - pad[1];
                                    if (oy < 0 || oy >= out[1]) continue;
                                    const float *src = col + (iz * in[1] + iy) * in[2];
                                    float *dst = o + (oz * out[1] + oy) * out[2];
                                    for (int64_t ix = 0; ix < in[2]; ix++) {
                                        int64_t ox = ix * s[2] + kx * d[2] - pad[2];
                                        if (ox >= 0 && ox < out[2]) dst[ox] += src[ix];
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if (p->clamp || p->activation) conv_epilogue(p, mg * positions, positions, g * mg, NULL, yg);
        }
    }
}

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
                    for (int64_t t = 1; t < k[1]; t++) {
                        pool_vec x = pool_load(src += w);
                        acc = is_max ? pool_max(x, acc) : acc + x;
                    }
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
        else memcpy(dst + c, &o, (size_t)(y_end - dst - c) * sizeof(float));
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
                pool_vec v1 = pool_window_column(src + MRVL_POOL_VF, rows, w, is_max), even, odd;
                if (edges) v1 = pool_inside(v1, col + MRVL_POOL_VF, in[2], vfill);
                pool_deinterleave(v0, v1, &even, &odd);
                pool_vec acc = is_max ? pool_max(odd, even) : even + odd;
                if (kw == 3) {
                    v2 = ox + MRVL_POOL_VF <= out[2] ? pool_window_column(src + 2 * MRVL_POOL_VF, rows, w, is_max)
                                                     : vfill;
                    if (edges) v2 = pool_inside(v2, col + 2 * MRVL_POOL_VF, in[2], vfill);
                    pool_vec next = pool_next(even, v2);
                    acc = is_max ? pool_max(next, acc) : acc + next;
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
                else memcpy(dst + ox, &acc, (size_t)(out[2] - ox) * sizeof(float));
            }
        }
    }
}

static void pool_direct_planes(const void *ctx, int64_t begin, int64_t end)
{
    const pool_args *a = ctx;
    int is_max = a->p->is_max;
    int64_t kh = a->p->kernel[1], kw = a->p->kernel[2];
    /* Square windows unrolled (the window's rows in registers, 15% faster at 3x3). */
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
    const pool_args *a = ctx;
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
        pool_deinterleave(v0, v1, &even, &odd);
        acc = is_max ? pool_max(odd, even) : even + odd;
        if (kw == 3) {
            pool_vec next = pool_next(even, vfill);
            acc = is_max ? pool_max(next, acc) : acc + next;
        }
        if (!is_max) acc = acc / count;
        float *dst = a->y + r * out[2];
        if (dst + MRVL_POOL_VF <= y_end) pool_store(dst, acc);
        else memcpy(dst, &acc, (size_t)min_i64(MRVL_POOL_VF / 2, y_end - dst) * sizeof(float));
        if (r + 1 == last) continue;
        dst += out[2];
        acc = pool_upper(acc);
        if (dst + MRVL_POOL_VF <= y_end) pool_store(dst, acc);
        else memcpy(dst, &acc, (size_t)out[2] * sizeof(float));
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

/* Max or average over each window of x (n, c, in): pool_direct_planes or pool_pair_planes
 * where they apply, else pool_planes, the planes split over the threads; padded rows wider
 * than MRVL_POOL_ROW take the bounds-checked loop. */
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
    /* Stride 1 on planes whose padded extent fits a band: pool_grid_planes. */
    int grid = in[0] == 1 && k[0] == 1 && out[0] == 1 && s[1] == 1 && s[2] == 1 && d[1] == 1 && d[2] == 1
            && (out[1] + k[1] - 1) * (out[2] + k[2] - 1) <= MRVL_POOL_BAND && out[2] + k[2] - 1 <= MRVL_POOL_ROW;
    mrvl_task task = grid ? pool_grid_planes
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

/* --- Elementwise ---------------------------------------------------------------------- */

/* Runs BODY for every element of p's shape with `o` the result offset and `ia`, `ib`, `ic`
 * the operands' offsets: rows of the last dim, the outer dims by an odometer. A row whose
 * operands are contiguous or one repeated element gets its own loop, which gcc vectorises. */
#define MRVL_BROADCAST_ROW(A_STEP, B_STEP, C_STEP, BODY)                                    \
    for (int64_t j_ = 0; j_ < last_; j_++) {                                               \
        int64_t o = r_ * last_ + j_, ia = ra_ + j_ * (A_STEP), ib = rb_ + j_ * (B_STEP);    \
        int64_t ic = rc_ + j_ * (C_STEP);                                                  \
        (void)ic;                                                                          \
        BODY;                                                                              \
    }
#define MRVL_BROADCAST_LOOP(p, BODY)                                                          \
    do {                                                                                      \
        int rank_ = (p)->rank;                                                                \
        int64_t last_ = rank_ ? (p)->shape[rank_ - 1] : 1;                                    \
        int64_t as_ = rank_ ? (p)->a_stride[rank_ - 1] : 0;                                   \
        int64_t bs_ = rank_ ? (p)->b_stride[rank_ - 1] : 0;                                   \
        int64_t cs_ = rank_ ? (p)->c_stride[rank_ - 1] : 0;                                   \
        int64_t rows_ = 1, idx_[MRVL_MAX_RANK] = {0}, ra_ = 0, rb_ = 0, rc_ = 0;              \
        for (int d_ = 0; d_ + 1 < rank_; d_++) rows_ *= (p)->shape[d_];                       \
        for (int64_t r_ = 0; r_ < rows_; r_++) {                                              \
            if (as_ == 1 && bs_ == 1 && cs_ == 1) MRVL_BROADCAST_ROW(1, 1, 1, BODY)           \
            else if (as_ == 1 && bs_ == 0 && cs_ == 0) MRVL_BROADCAST_ROW(1, 0, 0, BODY)      \
            else if (as_ == 0 && bs_ == 1 && cs_ == 0) MRVL_BROADCAST_ROW(0, 1, 0, BODY)      \
            else MRVL_BROADCAST_ROW(as_, bs_, cs_, BODY)                                      \
            for (int d_ = rank_ - 2; d_ >= 0; d_--) {                                         \
                idx_[d_]++;                                                                   \
                ra_ += (p)->a_stride[d_];                                                     \
                rb_ += (p)->b_stride[d_];                                                     \
                rc_ += (p)->c_stride[d_];                                                     \
                if (idx_[d_] < (p)->shape[d_]) break;                                         \
                ra_ -= (p)->a_stride[d_] * (p)->shape[d_];                                    \
                rb_ -= (p)->b_stride[d_] * (p)->shape[d_];                                    \
                rc_ -= (p)->c_stride[d_] * (p)->shape[d_];                                    \
                idx_[d_] = 0;                                                                 \
            }                                                                                 \
        }                                                                                     \
    } while (0)

/* Python's modulo (the sign of the divisor): ONNX Mod with fmod = 0. */
static float mod_f32(float a, float b)
{
    float r = fmodf(a, b);
    return r != 0.0f && ((r < 0.0f) != (b < 0.0f)) ? r + b : r;
}

static double mod_f64(double a, double b)
{
    double r = fmod(a, b);
    return r != 0.0 && ((r < 0.0) != (b < 0.0)) ? r + b : r;
}

static int64_t mod_int(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

static int64_t fmod_int(int64_t a, int64_t b) { return a % b; }
static int64_t pow_int(int64_t a, int64_t b) { return (int64_t)pow((double)a, (double)b); }
static int64_t max_int(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min_int(int64_t a, int64_t b) { return a < b ? a : b; }

/* out = a `kind` b over elements of type T (comparisons write bool, one byte); MOD, FMOD,
 * POW, MAX and MIN name T's functions. Integer division truncates toward zero, as ONNX Div;
 * an integer division by zero is undefined, as in C. */
#define MRVL_DEFINE_BINARY(NAME, T, MOD, FMOD, POW, MAX, MIN)                                  \
    static void NAME(int kind, const mrvl_broadcast *p, const T *a, const T *b, void *y)      \
    {                                                                                          \
        T *t = (T *)y;                                                                         \
        uint8_t *u = (uint8_t *)y;                                                             \
        switch (kind) {                                                                        \
        case MRVL_ADD: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] + b[ib]); break;                    \
        case MRVL_SUB: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] - b[ib]); break;                    \
        case MRVL_MUL: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] * b[ib]); break;                    \
        case MRVL_DIV: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] / b[ib]); break;                    \
        case MRVL_POW: MRVL_BROADCAST_LOOP(p, t[o] = (T)POW(a[ia], b[ib])); break;             \
        case MRVL_MAX: MRVL_BROADCAST_LOOP(p, t[o] = (T)MAX(a[ia], b[ib])); break;             \
        case MRVL_MIN: MRVL_BROADCAST_LOOP(p, t[o] = (T)MIN(a[ia], b[ib])); break;             \
        case MRVL_MOD: MRVL_BROADCAST_LOOP(p, t[o] = (T)MOD(a[ia], b[ib])); break;             \
        case MRVL_FMOD: MRVL_BROADCAST_LOOP(p, t[o] = (T)FMOD(a[ia], b[ib])); break;           \
        case MRVL_PRELU: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] < 0 ? a[ia] * b[ib] : a[ia]); break; \
        case MRVL_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] == b[ib]); break;                 \
        case MRVL_LESS: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] < b[ib]); break;                   \
        case MRVL_LESS_OR_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] <= b[ib]); break;         \
        case MRVL_GREATER: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] > b[ib]); break;                \
        case MRVL_GREATER_OR_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] >= b[ib]); break;      \
        default: break; /* the emitter passes only the kinds above */                         \
        }                                                                                      \
    }

MRVL_DEFINE_BINARY(mrvl_binary_f32, float, mod_f32, fmodf, powf, fmaxf, fminf)
MRVL_DEFINE_BINARY(mrvl_binary_f64, double, mod_f64, fmod, pow, fmax, fmin)
MRVL_DEFINE_BINARY(mrvl_binary_i32, int32_t, mod_int, fmod_int, pow_int, max_int, min_int)
MRVL_DEFINE_BINARY(mrvl_binary_i64, int64_t, mod_int, fmod_int, pow_int, max_int, min_int)

/* The narrower signed types go through the int64 helpers; the unsigned ones through their own,
 * since uint64 values past INT64_MAX do not survive a signed one. An unsigned Mod has no sign
 * to follow (fmod 0 and 1 agree), and its Pow is exact (squaring, wrapping as numpy does). */
static uint64_t mod_uint(uint64_t a, uint64_t b) { return a % b; }
static uint64_t max_uint(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_uint(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t pow_uint(uint64_t base, uint64_t exponent)
{
    uint64_t result = 1;
    for (; exponent; exponent >>= 1, base *= base)
        if (exponent & 1) result *= base;
    return result;
}

MRVL_DEFINE_BINARY(mrvl_binary_i8, int8_t, mod_int, fmod_int, pow_int, max_int, min_int)
MRVL_DEFINE_BINARY(mrvl_binary_i16, int16_t, mod_int, fmod_int, pow_int, max_int, min_int)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits" /* PRelu's x < 0 is never true unsigned, rightly */
#endif
MRVL_DEFINE_BINARY(mrvl_binary_u8, uint8_t, mod_uint, mod_uint, pow_uint, max_uint, min_uint)
MRVL_DEFINE_BINARY(mrvl_binary_u16, uint16_t, mod_uint, mod_uint, pow_uint, max_uint, min_uint)
MRVL_DEFINE_BINARY(mrvl_binary_u32, uint32_t, mod_uint, mod_uint, pow_uint, max_uint, min_uint)
MRVL_DEFINE_BINARY(mrvl_binary_u64, uint64_t, mod_uint, mod_uint, pow_uint, max_uint, min_uint)
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* and, or, xor, and comparisons of bool elements. */
static void mrvl_binary_bool(int kind, const mrvl_broadcast *p, const uint8_t *a, const uint8_t *b, uint8_t *y)
{
    switch (kind) {
    case MRVL_AND: MRVL_BROADCAST_LOOP(p, y[o] = a[ia] && b[ib]); break;
    case MRVL_OR: MRVL_BROADCAST_LOOP(p, y[o] = a[ia] || b[ib]); break;
    case MRVL_XOR: MRVL_BROADCAST_LOOP(p, y[o] = (a[ia] != 0) != (b[ib] != 0)); break;
    case MRVL_EQUAL: MRVL_BROADCAST_LOOP(p, y[o] = (a[ia] != 0) == (b[ib] != 0)); break;
    default: break;
    }
}

/* y = cond ? a : b, a and b of `elem` bytes (a_stride: cond, b_stride: a, c_stride: b). */
static void mrvl_where(const mrvl_broadcast *p, const uint8_t *cond, const void *a, const void *b, void *y,
                       size_t elem)
{
    const char *ca = (const char *)a, *cb = (const char *)b;
    char *cy = (char *)y;
    MRVL_BROADCAST_LOOP(p, memcpy(cy + o * elem, cond[ia] ? ca + ib * elem : cb + ic * elem, elem));
}

/* y = kind(x) over elements of floating type T; F is the suffix of T's <math.h> functions
 * (f for float, nothing for double), ERF, SIGMOID, TANH, GELU, GELU_TANH, MISH and EXP(count,
 * x, y) T's loops of those (each a function of its own: in this one's switch gcc vectorises
 * none of them). */
#define MRVL_DEFINE_UNARY_FLOAT(NAME, T, F, ERF, SIGMOID, TANH, GELU, GELU_TANH, MISH, EXP)                            \
    static void NAME(int kind, int64_t count, const T *x, T *y)                               \
    {                                                                                          \
        int64_t i;                                                                             \
        switch (kind) {                                                                        \
        case MRVL_RELU: MRVL_UNARY(T, v > 0 ? v : 0);                                          \
        case MRVL_SIGMOID: SIGMOID(count, x, y); break;                                        \
        case MRVL_TANH: TANH(count, x, y); break;                                              \
        case MRVL_SQRT: MRVL_UNARY(T, sqrt##F(v));                                             \
        case MRVL_EXP: EXP(count, x, y); break;                                                \
        case MRVL_LOG: MRVL_UNARY(T, log##F(v));                                               \
        case MRVL_ERF: ERF(count, x, y); break;                                                \
        case MRVL_NEG: MRVL_UNARY(T, -v);                                                      \
        case MRVL_ABS: MRVL_UNARY(T, fabs##F(v));                                              \
        case MRVL_RECIPROCAL: MRVL_UNARY(T, 1 / v);                                            \
        case MRVL_FLOOR: MRVL_UNARY(T, floor##F(v));                                           \
        case MRVL_CEIL: MRVL_UNARY(T, ceil##F(v));                                             \
        case MRVL_ROUND: MRVL_UNARY(T, nearbyint##F(v));                                       \
        case MRVL_SIGN: MRVL_UNARY(T, v > 0 ? 1 : (v < 0 ? -1 : v));                           \
        case MRVL_SIN: MRVL_UNARY(T, sin##F(v));                                               \
        case MRVL_COS: MRVL_UNARY(T, cos##F(v));                                               \
        case MRVL_TAN: MRVL_UNARY(T, tan##F(v));                                               \
        case MRVL_ASIN: MRVL_UNARY(T, asin##F(v));                                             \
        case MRVL_ACOS: MRVL_UNARY(T, acos##F(v));                                             \
        case MRVL_ATAN: MRVL_UNARY(T, atan##F(v));                                             \
        case MRVL_SINH: MRVL_UNARY(T, sinh##F(v));                                             \
        case MRVL_COSH: MRVL_UNARY(T, cosh##F(v));                                             \
        case MRVL_ASINH: MRVL_UNARY(T, asinh##F(v));                                           \
        case MRVL_ACOSH: MRVL_UNARY(T, acosh##F(v));                                           \
        case MRVL_ATANH: MRVL_UNARY(T, atanh##F(v));                                           \
        case MRVL_IDENTITY: MRVL_UNARY(T, v);                                                  \
        case MRVL_SOFTPLUS: MRVL_UNARY(T, v > 20 ? v : log1p##F(exp##F(v)));                   \
        case MRVL_SOFTSIGN: MRVL_UNARY(T, v / (1 + fabs##F(v)));                               \
        case MRVL_GELU: GELU(count, x, y); break;                                              \
        case MRVL_GELU_TANH: GELU_TANH(count, x, y); break;                                    \
        case MRVL_MISH: MISH(count, x, y); break;                                              \
        default: break;                                                                        \
        }                                                                                      \
    }
#define MRVL_UNARY(T, EXPR) for (i = 0; i < count; i++) { T v = x[i]; y[i] = (T)(EXPR); } break

static void sigmoid_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = 1 / (1 + exp(-x[i]));
}

/* Gelu, x (1 + erf(x / sqrt(2))) / 2, with ERF T's erf. */
#define MRVL_GELU_ERF(T, ERF, v) ((v) * (T)0.5 * (1 + ERF((v) * (T)0.70710678118654752)))
/* Gelu with the tanh approximation: x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2. */
#define MRVL_GELU_TANH(T, TANH, v) ((v) * (T)0.5 * (1 + TANH((T)0.79788456080286536 * ((v) + (T)0.044715 * (v) * (v) * (v)))))

/* The loops over the vector functions (defined with the vectors): their signature for
 * map_vectors. */
static inline pool_vec tanh_lanes(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return tanh_vec(v);
}

static inline pool_vec erf_lanes(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return erf_vec(v);
}

static inline pool_vec gelu_lanes(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return MRVL_GELU_ERF(float, erf_vec, v);
}

static inline pool_vec gelu_tanh_lanes(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return MRVL_GELU_TANH(float, tanh_vec, v);
}

static inline pool_vec exp_lanes(pool_vec v, float alpha, float beta)
{
    (void)alpha, (void)beta;
    return exp_vec(v);
}

MRVL_NOINLINE static void tanh_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, tanh_lanes, 0.0f, 0.0f);
}

MRVL_NOINLINE static void erf_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, erf_lanes, 0.0f, 0.0f);
}

MRVL_NOINLINE static void gelu_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, gelu_lanes, 0.0f, 0.0f);
}

MRVL_NOINLINE static void gelu_tanh_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, gelu_tanh_lanes, 0.0f, 0.0f);
}

MRVL_NOINLINE static void exp_loop_f32(int64_t count, const float *x, float *y)
{
    map_vectors(count, x, y, exp_lanes, 0.0f, 0.0f);
}

static void tanh_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = tanh(x[i]);
}

static void erf_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = erf(x[i]);
}

static void gelu_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = MRVL_GELU_ERF(double, erf, x[i]);
}

static void gelu_tanh_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = MRVL_GELU_TANH(double, tanh, x[i]);
}

static void exp_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = exp(x[i]);
}

static void mish_loop_f64(int64_t count, const double *x, double *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = x[i] * tanh(x[i] > 20 ? x[i] : log1p(exp(x[i])));
}

/* float's erf, sigmoid, tanh, mish and exp are the kernels' own, in loops that vectorise. */
MRVL_DEFINE_UNARY_FLOAT(mrvl_unary_f32, float, f, erf_loop_f32, sigmoid_loop_f32, tanh_loop_f32, gelu_loop_f32,
                        gelu_tanh_loop_f32, mish_loop_f32, exp_loop_f32)
MRVL_DEFINE_UNARY_FLOAT(mrvl_unary_f64, double, , erf_loop_f64, sigmoid_loop_f64, tanh_loop_f64, gelu_loop_f64,
                        gelu_tanh_loop_f64, mish_loop_f64, exp_loop_f64)

/* The integer kinds (relu, neg, abs, sign) over elements of type T. */
#define MRVL_DEFINE_UNARY_INT(NAME, T)                                                          \
    static void NAME(int kind, int64_t count, const T *x, T *y)                               \
    {                                                                                          \
        int64_t i;                                                                             \
        switch (kind) {                                                                        \
        case MRVL_RELU: MRVL_UNARY(T, v > 0 ? v : 0);                                          \
        case MRVL_NEG: MRVL_UNARY(T, -v);                                                      \
        case MRVL_ABS: MRVL_UNARY(T, v < 0 ? -v : v);                                          \
        case MRVL_SIGN: MRVL_UNARY(T, v > 0 ? 1 : (v < 0 ? -1 : 0));                           \
        default: break; /* the emitter passes only the kinds above */                         \
        }                                                                                      \
    }

MRVL_DEFINE_UNARY_INT(mrvl_unary_i32, int32_t)
MRVL_DEFINE_UNARY_INT(mrvl_unary_i64, int64_t)
#undef MRVL_UNARY

static void mrvl_not(int64_t count, const uint8_t *x, uint8_t *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = !x[i];
}

static void mrvl_clip_f32(int64_t count, float low, float high, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = clamp_value(x[i], low, high);
}

/* Elu, Selu, Celu and ThresholdedRelu (`kind`: enum mrvl_activation_kind) with ONNX's
 * parameters; gamma is Selu's. e^x - 1 is expm1, exact near 0 where exp(x) - 1 cancels. */
#define MRVL_DEFINE_ACTIVATION(NAME, T, F)                                                        \
    static void NAME(int kind, int64_t count, T alpha, T gamma, const T *x, T *y)                  \
    {                                                                                              \
        for (int64_t i = 0; i < count; i++) {                                                      \
            T v = x[i];                                                                            \
            switch (kind) {                                                                        \
            case MRVL_ELU: y[i] = v < 0 ? alpha * expm1##F(v) : v; break;                          \
            case MRVL_SELU: y[i] = gamma * (v > 0 ? v : alpha * expm1##F(v)); break;               \
            case MRVL_CELU: y[i] = fmax##F(v, 0) + fmin##F(alpha * expm1##F(v / alpha), 0); break; \
            default: y[i] = v > alpha ? v : 0; break; /* MRVL_THRESHOLDED_RELU */                  \
            }                                                                                      \
        }                                                                                          \
    }

MRVL_DEFINE_ACTIVATION(mrvl_activation_f32, float, f)
MRVL_DEFINE_ACTIVATION(mrvl_activation_f64, double, )

/* IEEE half and bfloat16 <-> float, round to nearest even. */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    float f;
    if (exp == 0) {
        f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    bits = exp == 31 ? (sign | 0x7f800000u | (man << 13)) : (sign | ((exp + 112u) << 23) | (man << 13));
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* |v| (finite) rounded to nearest even in a binary format with `mant` stored mantissa bits
 * and normal exponents [emin, emax]: its bits without the sign, infinity past the largest.
 * Straight from double, so an f64 -> f16/bf16 cast rounds once. */
static uint32_t round_to_format(double v, int mant, int emin, int emax)
{
    uint32_t inf = (uint32_t)(emax - emin + 2) << mant;
    double a = fabs(v), q;
    int e;
    if (a == 0.0) return 0;
    if (isinf(a)) return inf;
    frexp(a, &e);
    e = e - 1 < emin ? emin : e - 1;            /* a = 1.f * 2^e, or a subnormal's quantum */
    q = nearbyint(ldexp(a, mant - e));           /* 2^mant <= q <= 2^(mant+1) for a normal */
    uint32_t bits = ((uint32_t)(e - emin) << mant) + (uint32_t)q; /* a carry moves to the exponent */
    return bits < inf ? bits : inf;
}

static uint16_t double_to_half(double v)
{
    uint16_t sign = signbit(v) ? 0x8000u : 0;
    if (v != v) return (uint16_t)(sign | 0x7e00u);
    return (uint16_t)(sign | round_to_format(v, 10, -14, 15));
}

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t double_to_bf16(double v)
{
    uint16_t sign = signbit(v) ? 0x8000u : 0;
    if (v != v) return (uint16_t)(sign | 0x7fc0u);
    return (uint16_t)(sign | round_to_format(v, 7, -126, 127));
}

static double load_element(int type, const void *x, int64_t i)
{
    switch (type) {
    case MRVL_F32: return ((const float *)x)[i];
    case MRVL_F64: return ((const double *)x)[i];
    case MRVL_F16: return half_to_float(((const uint16_t *)x)[i]);
    case MRVL_BF16: return bf16_to_float(((const uint16_t *)x)[i]);
    case MRVL_I8: return ((const int8_t *)x)[i];
    case MRVL_I16: return ((const int16_t *)x)[i];
    case MRVL_I32: return ((const int32_t *)x)[i];
    case MRVL_I64: return (double)((const int64_t *)x)[i];
    case MRVL_U8: return ((const uint8_t *)x)[i];
    case MRVL_U16: return ((const uint16_t *)x)[i];
    case MRVL_U32: return ((const uint32_t *)x)[i];
    case MRVL_U64: return (double)((const uint64_t *)x)[i];
    case MRVL_BOOL: return ((const uint8_t *)x)[i] != 0;
    default: return 0.0;
    }
}

static void store_element(int type, void *y, int64_t i, double v)
{
    switch (type) {
    case MRVL_F32: ((float *)y)[i] = (float)v; break;
    case MRVL_F64: ((double *)y)[i] = v; break;
    case MRVL_F16: ((uint16_t *)y)[i] = double_to_half(v); break;
    case MRVL_BF16: ((uint16_t *)y)[i] = double_to_bf16(v); break;
    case MRVL_I8: ((int8_t *)y)[i] = (int8_t)v; break;
    case MRVL_I16: ((int16_t *)y)[i] = (int16_t)v; break;
    case MRVL_I32: ((int32_t *)y)[i] = (int32_t)v; break;
    case MRVL_I64: ((int64_t *)y)[i] = (int64_t)v; break;
    case MRVL_U8: ((uint8_t *)y)[i] = (uint8_t)v; break;
    case MRVL_U16: ((uint16_t *)y)[i] = (uint16_t)v; break;
    case MRVL_U32: ((uint32_t *)y)[i] = (uint32_t)v; break;
    case MRVL_U64: ((uint64_t *)y)[i] = (uint64_t)v; break;
    case MRVL_BOOL: ((uint8_t *)y)[i] = v != 0.0; break;
    default: break;
    }
}

static void mrvl_cast(int64_t count, int from, const void *x, int to, void *y)
{
    /* Through double: exact for every type but 64-bit integers beyond 2^53. */
    if (from == MRVL_I64 && to == MRVL_I32) {
        for (int64_t i = 0; i < count; i++) ((int32_t *)y)[i] = (int32_t)((const int64_t *)x)[i];
        return;
    }
    if (from == MRVL_I32 && to == MRVL_I64) {
        for (int64_t i = 0; i < count; i++) ((int64_t *)y)[i] = ((const int32_t *)x)[i];
        return;
    }
    for (int64_t i = 0; i < count; i++) store_element(to, y, i, load_element(from, x, i));
}

/* --- Normalisation ---------------------------------------------------------------- */

/* e^x lane by lane for x <= 0 as exp_nonpositive_f32: below -87 0, NaN stays NaN. */
static inline pool_vec exp_nonpositive_vec(pool_vec x)
{
    pool_vec e = exp_normal_vec(pool_min(pool_max(x, (pool_vec){0} - 87.0f), (pool_vec){0}));
    return pool_select(x != x, x, pool_select(x >= -87.0f, e, (pool_vec){0}));
}

/* Softmax of one contiguous row of n floats, in vectors: the maximum (NaN never wins), then
 * e^(x - max) stored and summed, then times 1 / sum. A row's last vector goes through a
 * buffer (its lanes past the row -inf: e^-inf adds 0). The lanes are combined in a fixed
 * order: the same bits however rows are split. */
static void softmax_row_f32(int64_t n, const float *in, float *out)
{
    int64_t whole = n - n % MRVL_POOL_VF, rest = n - whole;
    float tail[MRVL_POOL_VF], lanes[MRVL_POOL_VF];
    for (int l = 0; l < MRVL_POOL_VF; l++) tail[l] = -INFINITY;
    memcpy(tail, in + whole, (size_t)rest * sizeof(float));
    pool_vec acc = pool_load(tail);
    for (int64_t a = 0; a < whole; a += MRVL_POOL_VF) acc = pool_max(pool_load(in + a), acc);
    pool_store(lanes, acc);
    float max = lanes[0];
    for (int l = 1; l < MRVL_POOL_VF; l++) max = lanes[l] > max ? lanes[l] : max;
    pool_vec sum = exp_nonpositive_vec(pool_load(tail) - max);
    pool_store(tail, sum);
    memcpy(out + whole, tail, (size_t)rest * sizeof(float));
    for (int64_t a = 0; a < whole; a += MRVL_POOL_VF) {
        pool_vec e = exp_nonpositive_vec(pool_load(in + a) - max);
        pool_store(out + a, e);
        sum += e;
    }
    pool_store(lanes, sum);
    float total = 0.0f;
    for (int l = 0; l < MRVL_POOL_VF; l++) total += lanes[l];
    float scale = 1.0f / total;
    for (int64_t a = 0; a < n; a++) out[a] *= scale;
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
static void mrvl_softmax_f32(int64_t outer, int64_t axis, int64_t inner, const float *x, float *y)
{
    if (inner == 1) {
        for (int64_t o = 0; o < outer; o++) softmax_row_f32(axis, x + o * axis, y + o * axis);
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

/* --- Data movement ---------------------------------------------------------------- */

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

/* mrvl_copy_nd of floats whose source is contiguous along dim `inner`, not along the last
 * (a transpose): the other dims by an odometer, then (inner, last) in square blocks, read
 * along inner and written along the last, so that both sides of a block stay in a few cache
 * lines (copied row by row, every read would touch a line of its own). Not inlined: with the
 * shapes constant, gcc warns of loop bounds it cannot prove safe. */
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
                for (int64_t j = j0; j < j1; j++)
                    for (int64_t i = i0; i < i1; i++) dst[to + i * ti + j * ts] = src[so + i + j * ss];
            }
        next_row(rank, inner, shape, src_stride, dst_stride, idx, &so, &to);
    }
}

/* dst[i] = src[i] over `shape`, each side with its own strides (elements); a transpose of
 * floats in blocks (copy_transposed_f32). */
static void mrvl_copy_nd(int rank, const int64_t *shape, const void *src, const int64_t *src_stride, void *dst,
                  const int64_t *dst_stride, size_t elem)
{
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
    if (last == 0) return;
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

/* ONNX Resize's coordinate transformation: the input coordinate of output index o. */
static float resize_coordinate(int mode, int64_t o, float scale, int64_t in, int64_t out)
{
    float x = (float)o;
    switch (mode) {
    case MRVL_HALF_PIXEL: return (x + 0.5f) / scale - 0.5f;
    case MRVL_HALF_PIXEL_SYMMETRIC: {
        float adjustment = (float)out / (scale * (float)in);
        float center = (float)in / 2.0f;
        return center * (1.0f - adjustment) + (x + 0.5f) / scale - 0.5f;
    }
    case MRVL_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case MRVL_ALIGN_CORNERS: {
        /* ONNX's resized length is scale * in, not the output's integer size. */
        float length = scale * (float)in;
        return length == 1.0f ? 0.0f : x * (float)(in - 1) / (length - 1.0f);
    }
    default: return x / scale;
    }
}

static int64_t nearest_index(int mode, float x, int64_t in)
{
    int64_t i;
    switch (mode) {
    case MRVL_ROUND_PREFER_FLOOR: i = x == floorf(x) + 0.5f ? (int64_t)floorf(x) : (int64_t)roundf(x); break;
    case MRVL_ROUND_PREFER_CEIL: i = (int64_t)roundf(x); break;
    case MRVL_NEAREST_FLOOR: i = (int64_t)floorf(x); break;
    default: i = (int64_t)ceilf(x); break;
    }
    return i < 0 ? 0 : (i >= in ? in - 1 : i);
}

/* Source index of output index o along dim d of a nearest resize. */
static int64_t nearest_source(const mrvl_resize_params *p, int d, int64_t o)
{
    float c = resize_coordinate(p->coordinate_mode, o, p->scale[d], p->in_shape[d], p->out_shape[d]);
    return nearest_index(p->nearest_mode, c, p->in_shape[d]);
}

/* Row by row of the last dim: the source columns are worked out once per block of
 * MRVL_RESIZE_COLUMNS and serve every row, the outer dims' source once per row, so the
 * float coordinate arithmetic is not repeated for every element. */
#define MRVL_RESIZE_COLUMNS 256
static void mrvl_resize_nearest(const mrvl_resize_params *p, const void *x, void *y, size_t elem)
{
    const char *in = (const char *)x;
    char *out = (char *)y;
    int r = p->rank;
    int64_t stride[MRVL_MAX_RANK], rows = 1, s = 1;
    if (r == 0) {
        memcpy(out, in, elem);
        return;
    }
    for (int d = r - 1; d >= 0; d--) {
        stride[d] = s;
        s *= p->in_shape[d];
    }
    for (int d = 0; d + 1 < r; d++) rows *= p->out_shape[d];
    int64_t last = p->out_shape[r - 1];
    for (int64_t j0 = 0; j0 < last; j0 += MRVL_RESIZE_COLUMNS) {
        int64_t cols = min_i64(MRVL_RESIZE_COLUMNS, last - j0), column[MRVL_RESIZE_COLUMNS];
        int64_t idx[MRVL_MAX_RANK] = {0};
        for (int64_t j = 0; j < cols; j++) column[j] = nearest_source(p, r - 1, j0 + j);
        for (int64_t row = 0; row < rows; row++) {
            int64_t src = 0;
            for (int d = 0; d + 1 < r; d++) src += nearest_source(p, d, idx[d]) * stride[d];
            char *o = out + (row * last + j0) * (int64_t)elem;
            if (elem == 4) {
                const float *f = (const float *)(const void *)(in + src * 4);
                for (int64_t j = 0; j < cols; j++) ((float *)(void *)o)[j] = f[column[j]];
            } else {
                for (int64_t j = 0; j < cols; j++)
                    memcpy(o + j * (int64_t)elem, in + (src + column[j]) * (int64_t)elem, elem);
            }
            for (int d = r - 2; d >= 0; d--) {
                if (++idx[d] < p->out_shape[d]) break;
                idx[d] = 0;
            }
        }
    }
}

/* Linear weights along one dim: input indices i0, i1 and the weight of i1. */
static void linear_taps(int mode, int64_t o, float scale, int64_t in, int64_t out, int64_t *i0, int64_t *i1,
                        float *t)
{
    float c = resize_coordinate(mode, o, scale, in, out);
    if (c < 0.0f) c = 0.0f;
    if (c > (float)(in - 1)) c = (float)(in - 1);
    *i0 = (int64_t)floorf(c);
    *i1 = *i0 + 1 < in ? *i0 + 1 : in - 1;
    *t = c - (float)*i0;
}

/* Cubic weights along one dim (ONNX Resize with coefficient a): the 4 input indices around
 * output index o (clamped to the edge, as ONNX pads with edge values) and their weights; with
 * exclude_outside, taps outside the input weigh 0 and the others are renormalised. */
static void cubic_taps(const mrvl_resize_params *p, int d, int64_t o, int64_t idx[4], float w[4])
{
    int64_t in = p->in_shape[d];
    float x = resize_coordinate(p->coordinate_mode, o, p->scale[d], in, p->out_shape[d]);
    float x0 = floorf(x), t = x - x0, a = p->cubic_coeff_a, sum = 0.0f;
    const float distance[4] = {t + 1.0f, t, 1.0f - t, 2.0f - t};
    for (int i = 0; i < 4; i++) {
        float u = distance[i];
        int64_t j = (int64_t)x0 - 1 + i;
        w[i] = u <= 1.0f ? ((a + 2.0f) * u - (a + 3.0f)) * u * u + 1.0f
                         : ((a * u - 5.0f * a) * u + 8.0f * a) * u - 4.0f * a;
        if (p->exclude_outside && (j < 0 || j >= in)) w[i] = 0.0f;
        idx[i] = j < 0 ? 0 : (j >= in ? in - 1 : j);
        sum += w[i];
    }
    if (p->exclude_outside && sum != 0.0f)
        for (int i = 0; i < 4; i++) w[i] /= sum;
}

/* Cubic over the last two dims (rank >= 2); the other dims keep their size, and so their
 * elements (a cubic tap at an unchanged coordinate is the identity). */
static void resize_cubic_f32(const mrvl_resize_params *p, const float *x, float *y)
{
    int r = p->rank;
    int64_t h = p->in_shape[r - 2], w = p->in_shape[r - 1], oh = p->out_shape[r - 2], ow = p->out_shape[r - 1];
    int64_t planes = 1;
    for (int d = 0; d + 2 < r; d++) planes *= p->in_shape[d];
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *in = x + pl * h * w;
        float *out = y + pl * oh * ow;
        for (int64_t i = 0; i < oh; i++) {
            int64_t hi[4], wi[4];
            float hw[4], ww[4];
            cubic_taps(p, r - 2, i, hi, hw);
            for (int64_t j = 0; j < ow; j++) {
                float acc = 0.0f;
                cubic_taps(p, r - 1, j, wi, ww);
                for (int a = 0; a < 4; a++) {
                    float row = 0.0f;
                    for (int b = 0; b < 4; b++) row += ww[b] * in[hi[a] * w + wi[b]];
                    acc += hw[a] * row;
                }
                out[i * ow + j] = acc;
            }
        }
    }
}

/* Output columns a linear resize interpolates at once: their taps computed once per call, and
 * each input row's interpolated along them once per plane (rows 0 and 1 of an output row's
 * pair kept for the next output rows, which mostly share them when upsampling). */
#define MRVL_RESIZE_COLUMNS 256

/* Linear over the last two dims of planes of h x w (rank >= 1), output columns [j0, j0 + n). */
static void resize_linear_columns(const mrvl_resize_params *p, int64_t planes, int64_t j0, int64_t n,
                                  const float *x, float *y)
{
    int r = p->rank;
    int64_t h = r >= 2 ? p->in_shape[r - 2] : 1, w = p->in_shape[r - 1];
    int64_t oh = r >= 2 ? p->out_shape[r - 2] : 1, ow = p->out_shape[r - 1];
    float sh = r >= 2 ? p->scale[r - 2] : 1.0f, sw = p->scale[r - 1];
    int64_t w0[MRVL_RESIZE_COLUMNS], w1[MRVL_RESIZE_COLUMNS];
    float tw[MRVL_RESIZE_COLUMNS], rows[2][MRVL_RESIZE_COLUMNS];
    for (int64_t j = 0; j < n; j++) linear_taps(p->coordinate_mode, j0 + j, sw, w, ow, &w0[j], &w1[j], &tw[j]);
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *in = x + pl * h * w;
        float *out = y + pl * oh * ow + j0;
        int64_t held[2] = {-1, -1}; /* the input row each of `rows` holds interpolated */
        for (int64_t i = 0; i < oh; i++) {
            int64_t h0, h1;
            float th;
            linear_taps(p->coordinate_mode, i, sh, h, oh, &h0, &h1, &th);
            const float *pair[2];
            for (int k = 0; k < 2; k++) {
                int64_t row = k ? h1 : h0;
                int slot = held[0] == row ? 0 : held[1] == row ? 1 : -1;
                if (slot < 0) { /* into the slot the other row of the pair does not hold */
                    slot = held[0] == (k ? h0 : h1) ? 1 : 0;
                    const float *src = in + row * w;
                    for (int64_t j = 0; j < n; j++) rows[slot][j] = src[w0[j]] * (1.0f - tw[j]) + src[w1[j]] * tw[j];
                    held[slot] = row;
                }
                pair[k] = rows[slot];
            }
            for (int64_t j = 0; j < n; j++) out[i * ow + j] = pair[0][j] * (1.0f - th) + pair[1][j] * th;
        }
    }
}

/* Nearest: any dims; linear and cubic: only the last two dims may change size. */
static void mrvl_resize_f32(const mrvl_resize_params *p, const float *x, float *y)
{
    if (p->mode == MRVL_RESIZE_NEAREST) {
        mrvl_resize_nearest(p, x, y, sizeof(float));
        return;
    }
    if (p->mode == MRVL_RESIZE_CUBIC) {
        resize_cubic_f32(p, x, y);
        return;
    }
    int64_t planes = 1, ow = p->out_shape[p->rank - 1];
    for (int d = 0; d + 2 < p->rank; d++) planes *= p->in_shape[d];
    for (int64_t j0 = 0; j0 < ow; j0 += MRVL_RESIZE_COLUMNS)
        resize_linear_columns(p, planes, j0, min_i64(MRVL_RESIZE_COLUMNS, ow - j0), x, y);
}

/* --- Filtered resize: antialias and tf_crop_and_resize ------------------------------------ */

/* The filter's scale along dim d: a linear or cubic filter is stretched by 1/scale when
 * antialiasing a shrinking dim, so that every input element contributes. */
static double resize_filter_scale(const mrvl_resize_params *p, int d)
{
    return p->antialias && p->scale[d] < 1.0f ? (double)p->scale[d] : 1.0;
}

/* The first tap's offset from an output element's left neighbour along dim d: the taps are
 * offsets start .. 1 - start, 2 - 2 * start of them, covering the filter's support (1 linear,
 * 2 cubic) stretched by 1/filter scale (the C emitter reserves scratch by the same rule:
 * mrvl_dialect/host_kernels.py resize_filter_taps). */
static int64_t resize_filter_start(const mrvl_resize_params *p, int d)
{
    double support = p->mode == MRVL_RESIZE_CUBIC ? 2.0 : 1.0;
    return (int64_t)floor(-support / resize_filter_scale(p, d)) + 1;
}

/* The source coordinate of output index o along dim d, in double, into *x; 0 when it falls
 * outside the input under tf_crop_and_resize (the result is then extrapolation_value). As in
 * ONNX's reference, the crop's resized length is scale * in, and a length of 1 samples the
 * middle of the region of interest. */
static int resize_filter_coordinate(const mrvl_resize_params *p, int d, int64_t o, double *x)
{
    int64_t in = p->in_shape[d];
    if (p->coordinate_mode != MRVL_TF_CROP_AND_RESIZE) {
        *x = resize_coordinate(p->coordinate_mode, o, p->scale[d], in, p->out_shape[d]);
        return 1;
    }
    double start = p->roi_start[d], span = ((double)p->roi_end[d] - start) * (double)(in - 1);
    float length = p->scale[d] * (float)in;
    *x = start * (double)(in - 1) + (length == 1.0f ? span / 2.0 : (double)o * span / ((double)length - 1.0));
    return *x >= 0.0 && *x <= (double)(in - 1);
}

/* The `taps` source indices of output index o along dim d (clamped to the input: ONNX pads
 * with edge values) into idx and their weights into w, the first tap `start` from the left
 * neighbour of the source coordinate (the nearest index below it, or the one below an integer
 * coordinate, which so sits at offset 1); 0 when o is extrapolated. Weights are the linear or
 * cubic filter at each tap's distance times the filter scale; antialias renormalises them to
 * sum 1, exclude_outside drops the taps outside the input and renormalises the rest. */
static int resize_filter_taps(const mrvl_resize_params *p, int d, int64_t o, int64_t start, int64_t taps,
                              int64_t *idx, float *w)
{
    double x, s = resize_filter_scale(p, d), a = p->cubic_coeff_a, sum = 0.0, inside = 0.0;
    int64_t in = p->in_shape[d];
    if (!resize_filter_coordinate(p, d, o, &x)) return 0;
    double left = ceil(x) - 1.0, ratio = x - left;
    for (int64_t i = 0; i < taps; i++) {
        double u = fabs(((double)(start + i) - ratio) * s), v;
        if (p->mode == MRVL_RESIZE_CUBIC)
            v = u <= 1.0 ? ((a + 2.0) * u - (a + 3.0)) * u * u + 1.0
                         : (u < 2.0 ? ((a * u - 5.0 * a) * u + 8.0 * a) * u - 4.0 * a : 0.0);
        else
            v = u < 1.0 ? 1.0 - u : 0.0;
        int64_t j = (int64_t)left + start + i;
        int outside = j < 0 || j >= in;
        if (p->exclude_outside && outside) v = 0.0;
        idx[i] = j < 0 ? 0 : (j >= in ? in - 1 : j);
        w[i] = (float)v;
        sum += v;
        inside += outside ? 0.0 : v;
    }
    double norm = p->exclude_outside ? inside : (p->antialias ? sum : 1.0);
    if (norm != 0.0 && norm != 1.0)
        for (int64_t i = 0; i < taps; i++) w[i] = (float)((double)w[i] / norm);
    return 1;
}

/* Linear or cubic over the last two dims (rank >= 2) as a separable filter, for what the
 * fixed 2- and 4-tap kernels do not do: antialias (taps over the whole stretched support)
 * and tf_crop_and_resize (a region of interest, extrapolation_value outside the input). Each
 * dim's taps are tabulated once into `scratch`, then per plane the rows are filtered into a
 * scratch plane (out-height x width) and its columns into the result. `scratch`: 3 * (oh *
 * taps_h + ow * taps_w) + oh * w floats (two per int64 index). */
static void mrvl_resize_filtered_f32(const mrvl_resize_params *p, const float *x, float *y, float *scratch)
{
    int r = p->rank;
    int64_t h = p->in_shape[r - 2], w = p->in_shape[r - 1], oh = p->out_shape[r - 2], ow = p->out_shape[r - 1];
    int64_t start_h = resize_filter_start(p, r - 2), start_w = resize_filter_start(p, r - 1);
    int64_t taps_h = 2 - 2 * start_h, taps_w = 2 - 2 * start_w, planes = 1;
    int64_t *idx_h = (int64_t *)(void *)scratch, *idx_w = idx_h + oh * taps_h;
    float *w_h = (float *)(void *)(idx_w + ow * taps_w), *w_w = w_h + oh * taps_h, *rows = w_w + ow * taps_w;
    float fill = p->extrapolation_value;
    if (oh == 0 || ow == 0) return;
    for (int d = 0; d + 2 < r; d++) planes *= p->in_shape[d];
    /* An extrapolated output index is marked by a first source index of -1. */
    for (int64_t i = 0; i < oh; i++)
        if (!resize_filter_taps(p, r - 2, i, start_h, taps_h, idx_h + i * taps_h, w_h + i * taps_h))
            idx_h[i * taps_h] = -1;
    for (int64_t j = 0; j < ow; j++)
        if (!resize_filter_taps(p, r - 1, j, start_w, taps_w, idx_w + j * taps_w, w_w + j * taps_w))
            idx_w[j * taps_w] = -1;
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *in = x + pl * h * w;
        float *out = y + pl * oh * ow;
        for (int64_t i = 0; i < oh; i++) {
            const int64_t *src = idx_h + i * taps_h;
            const float *weight = w_h + i * taps_h;
            float *row = rows + i * w;
            if (src[0] < 0) continue;
            for (int64_t c = 0; c < w; c++) row[c] = 0.0f;
            for (int64_t a = 0; a < taps_h; a++) {
                const float *line = in + src[a] * w;
                float wa = weight[a];
                for (int64_t c = 0; c < w; c++) row[c] += wa * line[c];
            }
        }
        for (int64_t i = 0; i < oh; i++) {
            const float *row = rows + i * w;
            for (int64_t j = 0; j < ow; j++) {
                const int64_t *src = idx_w + j * taps_w;
                const float *weight = w_w + j * taps_w;
                float acc = 0.0f;
                if (idx_h[i * taps_h] < 0 || src[0] < 0) {
                    out[i * ow + j] = fill;
                    continue;
                }
                for (int64_t b = 0; b < taps_w; b++) acc += weight[b] * row[src[b]];
                out[i * ow + j] = acc;
            }
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

/* --- Recurrent layers: LSTM, GRU, RNN ------------------------------------------------------ */

static int64_t recurrent_gates(int kind) { return kind == MRVL_LSTM ? 4 : kind == MRVL_GRU ? 3 : 1; }

static int64_t round_up_i64(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/* Columns of R^T packed per step product: all gates, or for a GRU z and r (then h alone, as
 * its product reads r). */
static int64_t recurrent_packed_columns(const mrvl_recurrent_params *p)
{
    return p->kind == MRVL_GRU ? 2 * p->hidden : recurrent_gates(p->kind) * p->hidden;
}

/* Scratch floats of mrvl_recurrent_f32 (plan-host-memory reserves the same for the widest
 * tile: mrvl_dialect/host_kernels.py recurrent_scratch_floats): one direction's input
 * projection (seq * batch rows of all gates), R^T packed once per direction, the gates of a
 * step, the hidden and cell states and one more row of hidden values per sample, then the
 * GEMM's packing for the input projection. */
static int64_t recurrent_scratch_floats(const mrvl_recurrent_params *p, int64_t *packed, int64_t *gates)
{
    int64_t g = recurrent_gates(p->kind) * p->hidden, h = p->hidden;
    int64_t extra = p->kind == MRVL_GRU ? round_up_i64(h, MRVL_GEMM_NR) : 0;
    *packed = p->seq * p->batch * g;
    *gates = *packed + h * (round_up_i64(recurrent_packed_columns(p), MRVL_GEMM_NR) + extra);
    return *gates + p->batch * (g + 3 * h);
}

/* v[0..n) clamped to [-clip, clip] when `clip` (a gate's input, when the layer clips), then
 * through activation `f`. */
static void recurrent_activate(int clip, const mrvl_recurrent_params *p, int f, float alpha, float beta, float *v,
                               int64_t n)
{
    int64_t i;
    if (clip && p->has_clip) {
        float c = p->clip;
        for (i = 0; i < n; i++) v[i] = v[i] < -c ? -c : (v[i] > c ? c : v[i]);
    }
    switch (f) {
    case MRVL_RNN_SIGMOID: sigmoid_loop_f32(n, v, v); break;
    case MRVL_RNN_TANH: tanh_loop_f32(n, v, v); break;
    case MRVL_RNN_RELU: for (i = 0; i < n; i++) v[i] = v[i] > 0.0f ? v[i] : 0.0f; break;
    case MRVL_RNN_AFFINE: for (i = 0; i < n; i++) v[i] = alpha * v[i] + beta; break;
    case MRVL_RNN_LEAKY_RELU: for (i = 0; i < n; i++) v[i] = v[i] < 0.0f ? alpha * v[i] : v[i]; break;
    case MRVL_RNN_THRESHOLDED_RELU: for (i = 0; i < n; i++) v[i] = v[i] > alpha ? v[i] : 0.0f; break;
    case MRVL_RNN_SCALED_TANH:
        for (i = 0; i < n; i++) v[i] *= beta;
        tanh_loop_f32(n, v, v);
        for (i = 0; i < n; i++) v[i] *= alpha;
        break;
    case MRVL_RNN_HARD_SIGMOID:
        for (i = 0; i < n; i++) {
            float s = alpha * v[i] + beta;
            v[i] = s < 0.0f ? 0.0f : (s > 1.0f ? 1.0f : s);
        }
        break;
    case MRVL_RNN_ELU: for (i = 0; i < n; i++) v[i] = v[i] < 0.0f ? alpha * expm1f(v[i]) : v[i]; break;
    case MRVL_RNN_SOFTSIGN: for (i = 0; i < n; i++) v[i] = v[i] / (1.0f + fabsf(v[i])); break;
    default: /* MRVL_RNN_SOFTPLUS: log(1 + e^x) without overflow for large x */
        for (i = 0; i < n; i++) v[i] = v[i] > 0.0f ? v[i] + log1pf(expf(-v[i])) : log1pf(expf(v[i]));
        break;
    }
}

/* Offset (in hidden-size rows) of sample b's state of direction d in initial_h, Y_h, Y_c. */
static int64_t recurrent_state_row(const mrvl_recurrent_params *p, int64_t d, int64_t b)
{
    return p->batch_major ? b * p->directions + d : d * p->batch + b;
}

/* One ONNX LSTM, GRU or RNN (mrvl_recurrent_params). w (directions, gates * hidden, input),
 * r (directions, gates * hidden, hidden); b (directions, 2 * gates * hidden: Wb then Rb),
 * lens (batch), h0 and c0 (as Y_h), peep (directions, 3 * hidden: i, o, f) may be NULL, and so
 * may y, yh and yc, the results the model does not read. The input projection X·W^T of every
 * step is one GEMM per direction (seq * batch rows, biases folded in); each step adds H·R^T
 * through the GEMM on R^T packed once. A sample past its sequence_lens keeps its state and
 * writes zeros to Y; the reverse direction of a shorter sample starts at its last step. */
static int mrvl_recurrent_f32(const mrvl_recurrent_params *p, const float *x, const float *w, const float *r,
                              const float *b, const int32_t *lens, const float *h0, const float *c0,
                              const float *peep, float *y, float *yh, float *yc, float *scratch)
{
    int64_t seq = p->seq, batch = p->batch, in = p->input, h = p->hidden, gh = recurrent_gates(p->kind) * h;
    int64_t packed_at, gates_at, ncols = recurrent_packed_columns(p);
    int64_t total = recurrent_scratch_floats(p, &packed_at, &gates_at);
    float *xw = scratch, *rpack = scratch + packed_at, *gates = scratch + gates_at;
    float *hs = gates + batch * gh, *cs = hs + batch * h, *extra = cs + batch * h, *pack = scratch + total;
    float *rpack_h = rpack + h * round_up_i64(ncols, MRVL_GEMM_NR);
    int gru = p->kind == MRVL_GRU, lstm = p->kind == MRVL_LSTM, lbr = gru && p->linear_before_reset;
    if (lens) {
        for (int64_t i = 0; i < batch; i++)
            if (lens[i] < 0 || lens[i] > seq) return MRVL_ERR_SEQUENCE_LENS;
    }
    for (int64_t d = 0; d < p->directions; d++) {
        int reverse = p->directions == 2 ? d == 1 : p->reverse;
        const float *wd = w + d * gh * in, *rd = r + d * gh * h, *bd = b ? b + d * 2 * gh : NULL;
        const float *pd = peep ? peep + d * 3 * h : NULL;
        const int *f = p->activation[d];
        const float *alpha = p->alpha[d], *beta = p->beta[d];
        /* Every row of the projection starts as Wb + Rb; a GRU's Rbh waits for r when
         * linear_before_reset (added to H·Rh^T below). */
        for (int64_t i = 0; i < seq * batch; i++) {
            for (int64_t j = 0; j < gh; j++) {
                float v = 0.0f;
                if (bd) v = bd[j] + (lbr && j >= 2 * h ? 0.0f : bd[gh + j]);
                xw[i * gh + j] = v;
            }
        }
        /* X's rows are contiguous in either layout: row t * batch + b, or b * seq + t. */
        gemm_acc_f32(seq * batch, gh, in, x, in, 1, wd, 1, in, xw, gh, pack);
        /* R^T (element (p, j) at rd[j * h + p]) in the GEMM's panels, once for all steps. */
        gemm_pack(h, ncols, MRVL_GEMM_NR, rd, 1, h, rpack);
        if (gru) gemm_pack(h, h, MRVL_GEMM_NR, rd + 2 * h * h, 1, h, rpack_h);
        for (int64_t i = 0; i < batch; i++) {
            int64_t row = recurrent_state_row(p, d, i);
            for (int64_t j = 0; j < h; j++) {
                hs[i * h + j] = h0 ? h0[row * h + j] : 0.0f;
                cs[i * h + j] = c0 ? c0[row * h + j] : 0.0f;
            }
        }
        for (int64_t s = 0; s < seq; s++) {
            int64_t t = reverse ? seq - 1 - s : s;
            for (int64_t i = 0; i < batch; i++)
                memcpy(gates + i * gh, xw + (p->batch_major ? i * seq + t : t * batch + i) * gh, (size_t)gh * 4);
            gemm_packed_b(batch, ncols, h, hs, h, 1, rpack, h * MRVL_GEMM_NR, MRVL_GEMM_NR, gates, gh, NULL);
            if (gru) {
                /* z and r for every sample, then the h gate's product, which reads r. */
                for (int64_t i = 0; i < batch; i++) recurrent_activate(1, p, f[0], alpha[0], beta[0], gates + i * gh, 2 * h);
                if (lbr) {
                    for (int64_t i = 0; i < batch; i++)
                        for (int64_t j = 0; j < h; j++) extra[i * h + j] = bd ? bd[gh + 2 * h + j] : 0.0f;
                    gemm_packed_b(batch, h, h, hs, h, 1, rpack_h, h * MRVL_GEMM_NR, MRVL_GEMM_NR, extra, h, NULL);
                    for (int64_t i = 0; i < batch; i++)
                        for (int64_t j = 0; j < h; j++) gates[i * gh + 2 * h + j] += gates[i * gh + h + j] * extra[i * h + j];
                } else {
                    for (int64_t i = 0; i < batch; i++)
                        for (int64_t j = 0; j < h; j++) extra[i * h + j] = gates[i * gh + h + j] * hs[i * h + j];
                    gemm_packed_b(batch, h, h, extra, h, 1, rpack_h, h * MRVL_GEMM_NR, MRVL_GEMM_NR, gates + 2 * h, gh, NULL);
                }
            }
            for (int64_t i = 0; i < batch; i++) {
                float *g = gates + i * gh, *hi = hs + i * h, *ci = cs + i * h;
                float *out = y ? y + (p->batch_major ? (i * seq + t) * p->directions + d
                                                     : (t * p->directions + d) * batch + i) * h
                               : NULL;
                if (lens && t >= lens[i]) {
                    if (out) memset(out, 0, (size_t)h * 4);
                    continue;
                }
                if (lstm) {
                    float *gi = g, *go = g + h, *gf = g + 2 * h, *gc = g + 3 * h;
                    if (pd) {
                        for (int64_t j = 0; j < h; j++) {
                            gi[j] += pd[j] * ci[j];
                            gf[j] += pd[2 * h + j] * ci[j];
                        }
                    }
                    recurrent_activate(1, p, f[0], alpha[0], beta[0], gi, h);
                    if (p->input_forget) {
                        for (int64_t j = 0; j < h; j++) gf[j] = 1.0f - gi[j];
                    } else {
                        recurrent_activate(1, p, f[0], alpha[0], beta[0], gf, h);
                    }
                    recurrent_activate(1, p, f[1], alpha[1], beta[1], gc, h);
                    for (int64_t j = 0; j < h; j++) ci[j] = gf[j] * ci[j] + gi[j] * gc[j];
                    if (pd) {
                        for (int64_t j = 0; j < h; j++) go[j] += pd[h + j] * ci[j];
                    }
                    recurrent_activate(1, p, f[0], alpha[0], beta[0], go, h);
                    /* h(Ct) takes the cell state unclipped, as onnxruntime's LSTM. */
                    memcpy(gc, ci, (size_t)h * 4);
                    recurrent_activate(0, p, f[2], alpha[2], beta[2], gc, h);
                    for (int64_t j = 0; j < h; j++) hi[j] = go[j] * gc[j];
                } else if (gru) {
                    float *gz = g, *gn = g + 2 * h;
                    recurrent_activate(1, p, f[1], alpha[1], beta[1], gn, h);
                    for (int64_t j = 0; j < h; j++) hi[j] = (1.0f - gz[j]) * gn[j] + gz[j] * hi[j];
                } else {
                    recurrent_activate(1, p, f[0], alpha[0], beta[0], g, h);
                    memcpy(hi, g, (size_t)h * 4);
                }
                if (out) memcpy(out, hi, (size_t)h * 4);
            }
        }
        /* A sample of no steps has zero states, as onnxruntime gives, not its initial ones. */
        for (int64_t i = 0; i < batch; i++) {
            int64_t row = recurrent_state_row(p, d, i);
            if (lens && lens[i] == 0) {
                if (yh) memset(yh + row * h, 0, (size_t)h * 4);
                if (yc) memset(yc + row * h, 0, (size_t)h * 4);
            } else {
                if (yh) memcpy(yh + row * h, hs + i * h, (size_t)h * 4);
                if (yc) memcpy(yc + row * h, cs + i * h, (size_t)h * 4);
            }
        }
    }
    return MRVL_OK;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
