/* mrvl_kernels_math.c: exp, and the vector math of the activations (sigmoid, SiLU, hard
 * sigmoid and swish, tanh, erf, Mish), written without libm calls so that their loops vectorise.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

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

#if MRVL_EXP_TABLE_BITS
/* 1 + e^-v for -88 <= v <= 87 from a table of 2^(k/K), K = 2^MRVL_EXP_TABLE_BITS lanes (one
 * register, looked up by a permute): -v = n ln2 / K + r, |r| <= ln2 / 2K, and e^r to r^3
 * (relative error below 3e-8; K = 8, |r| <= 0.043), three multiply-adds where exp_reduced takes
 * seven. n = mK + k; the bits of big = n + 1.5 * 2^23 shifted left put m into the exponent and k
 * below it, which the table's entries take off again. ln2 / K in two parts, the first of 12
 * bits, so that n ln2 / K is exact for |n| < 2^11. The sum is (1 + s) + s (e^r - 1) for the
 * scale s = 2^(n / K): its add runs beside the polynomial, not after it (0.97x the time). */
static inline pool_vec one_plus_exp_minus_clamped(pool_vec v)
{
    typedef uint32_t bits_vec __attribute__((vector_size(MRVL_POOL_VF * 4)));
    enum { K = 1 << MRVL_EXP_TABLE_BITS, SHIFT = 23 - MRVL_EXP_TABLE_BITS };
#if MRVL_EXP_TABLE_BITS == 4
    const pool_vec powers = {1.0f, 1.04427373f, 1.09050775f, 1.13878858f, 1.18920708f, 1.24185777f,
                             1.29683959f, 1.35425556f, 1.41421354f, 1.47682619f, 1.54221082f, 1.61049032f,
                             1.68179286f, 1.75625217f, 1.8340081f, 1.91520655f};
    const float c2 = 0.500016153f, c3 = 0.166666016f;
#else
    const pool_vec powers = {1.0f, 1.09050775f, 1.18920708f, 1.29683959f, 1.41421354f, 1.54221082f,
                             1.68179286f, 1.8340081f};
    const float c2 = 0.500064552f, c3 = 0.166664034f;
#endif
    bits_vec table, big_bits;
    memcpy(&table, &powers, sizeof table);
    table -= (bits_vec){MRVL_POOL_IOTA} << SHIFT;
    pool_vec big = v * (-1.44269504f * K) + 12582912.0f;
    pool_vec n = big - 12582912.0f;
    pool_vec r = (-v - n * (0.693115234f / K)) - n * (3.19461833e-5f / K);
    pool_vec p = (c3 * r + c2) * r + 1.0f;
    memcpy(&big_bits, &big, sizeof big_bits);
#if MRVL_EXP_TABLE_BITS == 4
    bits_vec power = (bits_vec)_mm512_permutexvar_epi32((__m512i)big_bits, (__m512i)table);
#else
    bits_vec power = (bits_vec)_mm256_permutevar8x32_epi32((__m256i)table, (__m256i)big_bits);
#endif
    bits_vec scale_bits = (big_bits << SHIFT) + power;
    pool_vec scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    return p * r * scale + (scale + 1.0f);
}
#else
/* 1 + e^-v for -88 <= v <= 87. */
static inline pool_vec one_plus_exp_minus_clamped(pool_vec v) { return 1.0f + exp_normal_vec(-v); }
#endif

/* 1 + e^-v, with v clamped to [-88, 87] where e^-v is a normal float (the result moves by
 * less than float's resolution; NaN becomes -88: the caller passes it through). */
static inline pool_vec one_plus_exp_minus(pool_vec v)
{
    return one_plus_exp_minus_clamped(pool_min(pool_max(v, (pool_vec){0} - 88.0f), (pool_vec){0} + 87.0f));
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

/* The uint8 grid DynamicQuantizeLinear picks for x[0..count), as onnxruntime computes it: the
 * range of the values not NaN widened to hold 0, scale = range / 255 (1 for a range of 0), the zero point -min /
 * scale rounded (halves to even) and saturated. */
static void dynamic_u8_grid(int64_t count, const float *x, float *scale, uint8_t *zero_point)
{
    float lo = 0.0f, hi = 0.0f;
    for (int64_t e = 0; e < count; e++) {
        lo = x[e] < lo ? x[e] : lo;
        hi = x[e] > hi ? x[e] : hi;
    }
    const float s = hi == lo ? 1.0f : (hi - lo) / 255.0f, z = -lo / s;
    /* clamped as std::max(0, std::min(255, z)): a NaN z (an infinite range) gives 255 */
    const float below = z < 255.0f ? z : 255.0f;
    *scale = s;
    *zero_point = (uint8_t)rintf(0.0f < below ? below : 0.0f);
}
