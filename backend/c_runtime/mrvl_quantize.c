/* mrvl_quantize.c: ONNX QuantizeLinear and DequantizeLinear on the host (cpu.quantize,
 * cpu.dequantize), float32 against int8, uint8, int16, uint16 and int32.
 *
 * Included by the generated `<model>.c` after mrvl_kernels.c (internal linkage, as there).
 * The tensor is viewed as (outer, axis, inner) around the quantization axis; element
 * (o, a, i) takes scale and zero point number
 *     o * scale_outer + (a / block) * scale_axis + i * scale_inner,
 * so one struct covers a scale per tensor (all strides 0), per axis (scale_axis 1) and per
 * block of `block` elements along the axis (the scale tensor's own strides).
 */
#include <math.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* a model calls only some kernels */
#endif

typedef struct {
    int64_t outer, axis, inner, block;
    int64_t scale_outer, scale_axis, scale_inner;
} mrvl_quant_params;

/* Runs BODY (a statement) on every element, `e` its index and `k` that of its scale and
 * zero point; with one scale (every stride 0), in one flat loop the compiler vectorises. */
#define MRVL_FOR_EACH_QUANTIZED(p, BODY)                                                         \
    do {                                                                                         \
        if (!(p)->scale_outer && !(p)->scale_axis && !(p)->scale_inner) {                        \
            const int64_t k = 0, count = (p)->outer * (p)->axis * (p)->inner;                    \
            for (int64_t e = 0; e < count; e++) BODY;                                            \
            break;                                                                               \
        }                                                                                        \
        for (int64_t o = 0; o < (p)->outer; o++)                                                 \
            for (int64_t a = 0; a < (p)->axis; a++) {                                            \
                const int64_t row = (o * (p)->axis + a) * (p)->inner;                            \
                const int64_t first = o * (p)->scale_outer + a / (p)->block * (p)->scale_axis;   \
                for (int64_t i = 0; i < (p)->inner; i++) {                                       \
                    const int64_t e = row + i, k = first + i * (p)->scale_inner;                 \
                    BODY;                                                                        \
                }                                                                                \
            }                                                                                    \
    } while (0)

/* round(x / scale) + zero_point, saturated to [LO, HI]: the division in float32 and halves
 * to even (rintf, in the default rounding mode), as ONNX's reference computes it; the sum
 * in double, exact for every int32. NaN quantizes to the zero point. */
#define MRVL_DEFINE_QUANTIZE(SUFFIX, T, LO, HI)                                                  \
    static T quantize_one_##SUFFIX(float x, float s, T z)                                        \
    {                                                                                            \
        double v = (double)rintf(x / s) + (double)z;                                             \
        return (T)(v != v ? (double)z : v < (LO) ? (LO) : v > (HI) ? (HI) : v);                  \
    }                                                                                            \
    static void mrvl_quantize_##SUFFIX(const mrvl_quant_params *p, const float *x,               \
                                       const float *scale, const T *zero_point, T *y)            \
    {                                                                                            \
        MRVL_FOR_EACH_QUANTIZED(p, y[e] = quantize_one_##SUFFIX(x[e], scale[k],                  \
                                                                zero_point ? zero_point[k] : 0)); \
    }

/* (x - zero_point) * scale, each of x and the zero point converted to float32 first, as
 * ONNX's reference computes it (exact for every 8- and 16-bit value). */
#define MRVL_DEFINE_DEQUANTIZE(SUFFIX, T)                                                        \
    static void mrvl_dequantize_##SUFFIX(const mrvl_quant_params *p, const T *x,                 \
                                         const float *scale, const T *zero_point, float *y)      \
    {                                                                                            \
        MRVL_FOR_EACH_QUANTIZED(p, y[e] = ((float)x[e] - (zero_point ? (float)zero_point[k] : 0.0f)) \
                                          * scale[k]);                                           \
    }

MRVL_DEFINE_QUANTIZE(i8, int8_t, -128.0, 127.0)
MRVL_DEFINE_QUANTIZE(u8, uint8_t, 0.0, 255.0)
MRVL_DEFINE_QUANTIZE(i16, int16_t, -32768.0, 32767.0)
MRVL_DEFINE_QUANTIZE(u16, uint16_t, 0.0, 65535.0)
MRVL_DEFINE_QUANTIZE(i32, int32_t, -2147483648.0, 2147483647.0)
MRVL_DEFINE_DEQUANTIZE(i8, int8_t)
MRVL_DEFINE_DEQUANTIZE(u8, uint8_t)
MRVL_DEFINE_DEQUANTIZE(i16, int16_t)
MRVL_DEFINE_DEQUANTIZE(u16, uint16_t)
MRVL_DEFINE_DEQUANTIZE(i32, int32_t)

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
