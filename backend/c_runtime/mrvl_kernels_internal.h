/* mrvl_kernels_internal.h: what the host kernel families share: the headers they use, the
 * tile sizes, inlining attributes, clamp helpers, index helpers and the vector type (GCC's
 * vector extension) of the vectorised loops.
 *
 * Included once by mrvl_kernels.c, ahead of the family files: not a public header. */
#ifndef MRVL_KERNELS_INTERNAL_H
#define MRVL_KERNELS_INTERNAL_H

#include "mrvl_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__SSE__)
#include <immintrin.h>
#endif

#include "mrvl_kernels_tiles.h"

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max_i64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Before a loop over a register tile's rows or vectors: unrolled completely before gcc's
 * scalar replacement, so that the tile's array of vector sums becomes registers. Left to the
 * later unrolling, gcc keeps the array in memory until loop-invariant motion moves it into
 * registers with a copy of each sum to another register and back in every iteration (the
 * N2's GEMM tile at 37% of the multiply-add peak in llvm-mca; unrolled, 100%). */
#if defined(__GNUC__) && !defined(__clang__)
#define MRVL_UNROLL _Pragma("GCC unroll 32")
#else
#define MRVL_UNROLL
#endif

/* The body of a hot kernel's inner loop, between MRVL_MCA_BEGIN and MRVL_MCA_END, marked for
 * llvm-mca (benchmarks/n2_mca.py) with assembly comments when MRVL_MCA is defined (no code
 * either way): the region's name is the kernel's, its tile's shape (rows x cols) and the fp32
 * operations of one pass (macs), all constants once inlined; a copy whose shape is not
 * constant (a kernel of any size) is left unmarked. */
#if defined(MRVL_MCA) && defined(__GNUC__)
#if defined(__aarch64__)
#define MRVL_MCA_COMMENT "//"
#else
#define MRVL_MCA_COMMENT "#"
#endif
#define MRVL_MCA_BEGIN(name, rows, cols, macs)                                                              \
    do {                                                                                                  \
        if (__builtin_constant_p(rows) && __builtin_constant_p(cols) && __builtin_constant_p(macs))         \
            __asm__ volatile(MRVL_MCA_COMMENT " LLVM-MCA-BEGIN " name "_%c0x%c1 macs=%c2" ::"i"(rows),     \
                             "i"(cols), "i"(macs));                                                       \
    } while (0)
/* Named as its BEGIN, so that gcc does not merge the ENDs of different loops into one. */
#define MRVL_MCA_END(name, rows, cols, macs)                                                                \
    do {                                                                                                  \
        if (__builtin_constant_p(rows) && __builtin_constant_p(cols) && __builtin_constant_p(macs))         \
            __asm__ volatile(MRVL_MCA_COMMENT " LLVM-MCA-END " name "_%c0x%c1" ::"i"(rows), "i"(cols));     \
    } while (0)
#else
#define MRVL_MCA_BEGIN(name, rows, cols, macs) ((void)0)
#define MRVL_MCA_END(name, rows, cols, macs) ((void)0)
#endif

#if defined(__GNUC__)
#define MRVL_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define MRVL_ALWAYS_INLINE
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)
/* 64 int32 lanes (q0 elements 0-15, ..., q3 48-63) narrowed to their 64 bytes in order: to
 * int16 with signed saturation, plus zp16 (saturating), then to int8 (`is_signed`) or uint8
 * with saturation. Each pack works within 128-bit lanes, leaving lane L's dwords q0..q3's
 * elements 4L to 4L + 3; one permutation of dwords puts them in order. Four instructions and
 * a permutation for 64 results, where a vpmovdb per 16 (to memory, masked) is several uops on
 * Zen 4 each. */
static MRVL_ALWAYS_INLINE __m512i mrvl_narrow64(__m512i q0, __m512i q1, __m512i q2, __m512i q3, __m512i zp16,
                                               int is_signed)
{
    const __m512i low = _mm512_adds_epi16(_mm512_packs_epi32(q0, q1), zp16);
    const __m512i high = _mm512_adds_epi16(_mm512_packs_epi32(q2, q3), zp16);
    const __m512i bytes = is_signed ? _mm512_packs_epi16(low, high) : _mm512_packus_epi16(low, high);
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), bytes);
}
#endif

/* The activation loops (activate_f32's too) are functions of their own, not inlined: inlined
 * into a caller (a conv's tile store, activate_f32's switch) GCC vectorises none of them (its
 * if-conversion gives up), and they would run a float at a time. */
#if defined(__GNUC__)
#define MRVL_NOINLINE __attribute__((noinline))
#else
#define MRVL_NOINLINE
#endif

/* v clamped to [low, high]: a max, then a min (in vector loops each x86's instruction, whose
 * rule keeps a NaN; GCC makes the nested conditional a compare and a blend, a large share of
 * a depthwise conv's time, or where the loop does not vectorise a branch on the value). */
static inline float clamp_value(float v, float low, float high)
{
    v = v < low ? low : v;
    return v > high ? high : v;
}

/* A PRelu's v < 0 ? slope * v : v, as its positive part plus slope times its negative part:
 * two selects of v or 0 and a multiply-add, which vectorise to compares, blends and an FMA on
 * any x86 level. Written as the conditional multiply, GCC keeps the multiply under the branch
 * (it could trap) and vectorises the loop only with AVX-512's masked multiply: on AVX2 the
 * loop ran a float at a time, with a branch on the sign. A NaN stays a NaN (as onnxruntime's
 * PRelu keeps it). */
static inline float prelu_value(float v, float slope)
{
    float positive = v < 0.0f ? 0.0f : v, negative = v < 0.0f ? v : 0.0f;
    return positive + slope * negative;
}

/* y[i] clamped to [low, high] for i < count, in place. */
static void clamp_f32(int64_t count, float low, float high, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = clamp_value(y[i], low, high);
}

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
#define MRVL_POOL_LANE_EVENS 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30
#define MRVL_POOL_LANE_ODDS 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31
#define MRVL_POOL_PAIRS_IN_ORDER 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15
#elif MRVL_POOL_VF == 8
#define MRVL_POOL_EVENS 0, 2, 4, 6, 8, 10, 12, 14
#define MRVL_POOL_ODDS 1, 3, 5, 7, 9, 11, 13, 15
#define MRVL_POOL_NEXT 1, 2, 3, 4, 5, 6, 7, 8
#define MRVL_POOL_UPPER 4, 5, 6, 7, 4, 5, 6, 7
#define MRVL_POOL_IOTA 0, 1, 2, 3, 4, 5, 6, 7
#define MRVL_POOL_LANE_EVENS 0, 2, 8, 10, 4, 6, 12, 14
#define MRVL_POOL_LANE_ODDS 1, 3, 9, 11, 5, 7, 13, 15
#define MRVL_POOL_PAIRS_IN_ORDER 0, 1, 4, 5, 2, 3, 6, 7
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
 * does not fuse them, and the pools are bound by them); elsewhere the compare and the select. */
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
/* Lane j: the max (is_max) or the sum of elements 2j and 2j + 1 of the 2 * MRVL_POOL_VF floats
 * a, b, as pool_deinterleave's odd and even vectors reduce (the same result, bit for bit). On
 * x86, the evens and the odds of each 128-bit lane (shufps) reduced, then one permute of
 * 64-bit pairs puts them in order: 4 instructions where the ordered evens and odds take 7
 * (AVX2: 4 vpermps and 2 blends). Elsewhere (NEON's uzp1 and uzp2 are in order) through
 * pool_deinterleave. */
static inline pool_vec pool_pairs(pool_vec a, pool_vec b, int is_max)
{
#if (defined(__x86_64__) || defined(__i386__)) && MRVL_POOL_VF > 4
#if defined(__clang__)
    pool_vec even = __builtin_shufflevector(a, b, MRVL_POOL_LANE_EVENS);
    pool_vec odd = __builtin_shufflevector(a, b, MRVL_POOL_LANE_ODDS);
#else
    pool_vec even = __builtin_shuffle(a, b, (pool_mask){MRVL_POOL_LANE_EVENS});
    pool_vec odd = __builtin_shuffle(a, b, (pool_mask){MRVL_POOL_LANE_ODDS});
#endif
    pool_vec pairs = is_max ? pool_max(odd, even) : even + odd;
#if defined(__clang__)
    return __builtin_shufflevector(pairs, pairs, MRVL_POOL_PAIRS_IN_ORDER);
#else
    return __builtin_shuffle(pairs, (pool_mask){MRVL_POOL_PAIRS_IN_ORDER});
#endif
#else
    pool_vec even, odd;
    pool_deinterleave(a, b, &even, &odd);
    return is_max ? pool_max(odd, even) : even + odd;
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
static inline pool_vec pool_pairs(pool_vec a, pool_vec b, int is_max) { return is_max ? pool_max(b, a) : a + b; }
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
/* The first n floats at p (0 < n < MRVL_POOL_VF), the other lanes 0, and their store: a row
 * shorter than a vector (a channel slice of a few floats) in one masked load and store where
 * x86 has them, through a buffer elsewhere. */
static inline pool_vec pool_load_part(const float *p, int64_t n)
{
#if MRVL_POOL_VF == 16 && defined(__AVX512F__)
    return (pool_vec)_mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), p);
#elif MRVL_POOL_VF == 8 && defined(__AVX2__)
    return (pool_vec)_mm256_maskload_ps(p, (__m256i)((pool_mask){MRVL_POOL_IOTA} < (int32_t)n));
#else
    float b[MRVL_POOL_VF] = {0};
    memcpy(b, p, (size_t)n * sizeof(float));
    return pool_load(b);
#endif
}
static inline void pool_store_part(float *p, pool_vec v, int64_t n)
{
#if MRVL_POOL_VF == 16 && defined(__AVX512F__)
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1), (__m512)v);
#elif MRVL_POOL_VF == 8 && defined(__AVX2__)
    _mm256_maskstore_ps(p, (__m256i)((pool_mask){MRVL_POOL_IOTA} < (int32_t)n), (__m256)v);
#else
    float b[MRVL_POOL_VF];
    pool_store(b, v);
    memcpy(p, b, (size_t)n * sizeof(float));
#endif
}


#endif
