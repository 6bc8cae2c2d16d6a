/* mrvl_kernels_elementwise.c: elementwise kernels and activations: binary and unary ops over
 * broadcast shapes, the fused activations of the conv and GEMM epilogues, Clip, Cast.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

MRVL_NOINLINE static void mrvl_leaky_relu_f32(int64_t count, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = prelu_value(x[i], alpha);
}

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
