/* mrvl_kernels_depthwise.c: depthwise convolution: the flat (rows and phases layouts) and
 * the channel-blocked kernels.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

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
 *   of padding, so each kernel column that shifts its phase's columns reads a copy of the
 *   phase with the columns it would read across an edge zeroed (depthwise_copy_columns), the
 *   layouts of the task's next channels, one per distinct shift: the multiply-adds then need
 *   no masks. A task with fewer channels than copies (a conv of a few channels) masks those
 *   lanes per kernel column instead (bitwise, so that an infinity there cannot make a NaN).
 *   The grid holds s - 1 junk rows' worth per output row.
 * - phases (any other): the plane zero-padded to the extent the windows read and split into
 *   stride phases row by row: phase (py, px) holds padded rows py, py + stride, ... and
 *   columns px, px + stride, ..., each phase row `w` wide. Output (oy, ox) under tap (ky, kx)
 *   reads phase ((ky d) % stride, (kx d) % stride) at row oy + ky d / stride, column ox +
 *   kx d / stride: flat index oy w + ox plus the tap's offset; the pitch is w, a few columns
 *   more than the output's. The depth dim, if any, indexes slices of each phase. */


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

/* A small plane's layout (depthwise_small_channels), for 3x3 kernels padded by 1 at stride 1
 * (output as large as the input) or 2 (half of it, even sides): each output vector is a run
 * of contiguous output positions (flat, no junk columns), and each tap reads a run as long
 * at a fixed offset from a copy of the plane, whole (stride 1) or split into its four
 * row-and-column parity phases (stride 2: the phase holding the tap's parities is one
 * output-sized plane, pitch the output's width). A zero row and one float before each (and
 * after the whole plane at stride 1) stand for the padding above and below; the lanes a tap
 * of the left or right kernel column reads across an edge are masked, once per column sum.
 * `phase`: floats from one phase's data to the next (a vector's gap after each, which the
 * copy's vectors may run into); `channel`: the floats of one copy (at stride 2 and the two
 * vectors of depthwise_small_copy_in's `last`). */
static int depthwise_small_shape(const mrvl_conv_params *p)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    return k[0] == 1 && k[1] == 3 && k[2] == 3 && in[0] == 1 && out[0] == 1 && d[1] == 1 && d[2] == 1 &&
           p->pad[1] == 1 && p->pad[2] == 1 && s[1] == s[2] && p->m == p->c &&
           ((s[1] == 1 && out[1] == in[1] && out[2] == in[2]) ||
            (s[1] == 2 && 2 * out[1] == in[1] && 2 * out[2] == in[2]));
}

static int64_t depthwise_small_phase(const mrvl_conv_params *p)
{
    return p->stride[1] == 1 ? 0 : p->out[2] + 1 + p->out[1] * p->out[2] + MRVL_GEMM_VECTOR_FLOATS;
}

static int64_t depthwise_small_channel(const mrvl_conv_params *p)
{
    int64_t plane = p->in[1] * p->in[2];
    return p->stride[1] == 1 ? plane + 2 * (p->in[2] + 1) : 4 * depthwise_small_phase(p) + 2 * MRVL_GEMM_VECTOR_FLOATS;
}

/* Floats of scratch the small planes' path needs, where it may run (0 elsewhere): two column
 * masks per output vector and a layout per channel. Both depthwise kernels, which hand such
 * convs to it, reserve at least this much. */
static int64_t depthwise_small_scratch_floats(const mrvl_conv_params *p)
{
    if (!depthwise_small_shape(p)) return 0;
    int64_t vectors = (p->out[1] * p->out[2] + MRVL_DEPTHWISE_SMALL_FLOATS - 1) / MRVL_DEPTHWISE_SMALL_FLOATS;
    return 2 * vectors * MRVL_DEPTHWISE_SMALL_FLOATS + p->c * depthwise_small_channel(p);
}

/* Floats of scratch mrvl_depthwise_conv_f32 needs: a layout per input channel (each task uses
 * the one of its first channel, so that the threads share none), the rows layout's column
 * masks, and the tap offsets; or, if more, the small planes' (target/host_kernels.py
 * depthwise_scratch_floats). */
static int64_t depthwise_scratch_floats(const mrvl_conv_params *p)
{
    depthwise_geometry g = depthwise_layout(p);
    int64_t floats = p->c * g.channel + (g.rows ? p->kernel[2] * g.flat : 0) + volume3(p->kernel);
    return max_i64(floats, depthwise_small_scratch_floats(p));
}

/* out[i] = bias + the sum over the taps t = (kz, ky, kx) of w[t] * base[offset[t] + i] (lanes
 * whose mask of the tap's kernel column, mask[kx * flat + i], is 0 left out where `masked`, a
 * constant once inlined: mask NULL otherwise),
 * for i < count (a multiple of MRVL_DEPTHWISE_TILE): a tile of MRVL_DEPTHWISE_VECTORS vectors
 * in registers, the taps in order. Always inlined with a constant kernel where it is 3x3 or 5x5,
 * so that the tap loops unroll around the vectors. */
static MRVL_ALWAYS_INLINE void depthwise_flat(int64_t kd, int64_t kh, int64_t kw, const float *base,
                                              const int32_t *offset, const int masked, const int32_t *mask,
                                              int64_t flat, const float *restrict w, float bias, int64_t count,
                                              float *restrict out)
{
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    typedef int32_t ivec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    /* (with column copies the masked loop serves convs of a few channels only: not a hot loop) */
    if (!masked) MRVL_MCA_BEGIN("depthwise_flat", kh, kw, kd * kh * kw * MRVL_DEPTHWISE_TILE);
    else if (!MRVL_DEPTHWISE_COLUMN_COPIES) MRVL_MCA_BEGIN("depthwise_rows", kh, kw, kd * kh * kw * MRVL_DEPTHWISE_TILE);
    for (int64_t i = 0; i < count; i += MRVL_DEPTHWISE_TILE) {
        vec a[MRVL_DEPTHWISE_VECTORS];
        MRVL_UNROLL for (int v = 0; v < MRVL_DEPTHWISE_VECTORS; v++) a[v] = (vec){0} + bias;
        for (int64_t kz = 0, t = 0; kz < kd; kz++) {
            for (int64_t ky = 0; ky < kh; ky++) {
                for (int64_t kx = 0; kx < kw; kx++, t++) {
                    const float *src = base + offset[t] + i;
                    float wt = w[t];
                    MRVL_UNROLL for (int v = 0; v < MRVL_DEPTHWISE_VECTORS; v++) {
                        vec x = *(const vec *)(const void *)(src + v * MRVL_GEMM_VECTOR_FLOATS);
                        if (masked)
                            x = (vec)((ivec)x & *(const ivec *)(const void *)(mask + kx * flat + i +
                                                                              v * MRVL_GEMM_VECTOR_FLOATS));
                        a[v] += x * wt;
                    }
                }
            }
        }
        MRVL_UNROLL for (int v = 0; v < MRVL_DEPTHWISE_VECTORS; v++)
            *(vec *)(void *)(out + i + v * MRVL_GEMM_VECTOR_FLOATS) = a[v];
    }
    if (!masked) MRVL_MCA_END("depthwise_flat", kh, kw, kd * kh * kw * MRVL_DEPTHWISE_TILE);
    else if (!MRVL_DEPTHWISE_COLUMN_COPIES) MRVL_MCA_END("depthwise_rows", kh, kw, kd * kh * kw * MRVL_DEPTHWISE_TILE);
#else
    (void)masked;
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
        if (mask) depthwise_flat(1, 3, 3, base, offset, 1, mask, flat, w, bias, count, out);
        else depthwise_flat(1, 3, 3, base, offset, 0, NULL, flat, w, bias, count, out);
    } else if (k[0] == 1 && k[1] == 5 && k[2] == 5) {
        if (mask) depthwise_flat(1, 5, 5, base, offset, 1, mask, flat, w, bias, count, out);
        else depthwise_flat(1, 5, 5, base, offset, 0, NULL, flat, w, bias, count, out);
    } else {
        depthwise_flat(k[0], k[1], k[2], base, offset, mask != NULL, mask, flat, w, bias, count, out);
    }
}

/* What the channels of one image of mrvl_depthwise_conv_f32 read and write. */
typedef struct {
    const mrvl_conv_params *p;
    const float *x, *w, *b, *r; /* the image's input, the weights, bias and the image's residual (b, r may be NULL) */
    float *y, *scratch;         /* the image's output; the channels' layouts, the masks, the tap offsets */
    const int32_t *mask, *offset;
    int64_t layouts; /* the layouts a task uses, its first channel's and those of the column copies */
    depthwise_geometry g;
    const float *x_end; /* the end of the whole input (depthwise_small_channels' reads stop there) */
} depthwise_args;

/* The rows layout's phase columns by which kernel column kx shifts its reads:
 * floor((kx d - pad) / s), of phase (kx d - pad) mod s. */
static int64_t depthwise_column_shift(const mrvl_conv_params *p, int64_t kx)
{
    int64_t s = p->stride[2], pad = p->pad[2];
    return (kx * p->dilation[2] - pad + s * pad) / s - pad;
}

/* The copies that kernel columns 0 .. kx read: one per run of columns of the same nonzero
 * shift (shifts grow with kx; the columns of one shift read different phases). Kernel column
 * kx, if it shifts, reads copy depthwise_column_copies(p, kx), the layout that many channels
 * on. */
static int64_t depthwise_column_copies(const mrvl_conv_params *p, int64_t kx)
{
    int64_t copies = 0;
    for (int64_t j = 0; j <= kx; j++) {
        int64_t shift = depthwise_column_shift(p, j);
        copies += shift != 0 && (j == 0 || shift != depthwise_column_shift(p, j - 1));
    }
    return copies;
}

/* dst[j] = src[j] for j < count: rows of a depthwise conv, often a few floats long (a 7x7
 * plane's), too short for a call to memcpy to pay (the call costs more than the copy).
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
 * phase, at c / 2 (a pass per phase would read each row twice, in 4 runs of rows). */
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

/* The rows layout at `data` (its input rows written) into the copies of the kernel columns
 * that shift: each one's phase rows, with the columns that it reads across an edge (the last
 * -shift of each row, or the first shift) zeroed; the padding around them is left as it is.
 * Per channel: the shifts and phases are stepped along the kernel's columns, not divided out. */
static void depthwise_copy_columns(const mrvl_conv_params *p, const depthwise_geometry *g, float *data)
{
    int64_t rows = p->in[1], w = g->w, s = p->stride[2];
    int64_t shift = depthwise_column_shift(p, 0), phase = -p->pad[2] - shift * s, copies = 0;
    for (int64_t kx = 0; kx < p->kernel[2]; kx++) {
        int64_t before = shift;
        if (kx > 0)
            for (phase += p->dilation[2]; phase >= s; phase -= s) shift++;
        copies += shift != 0 && (kx == 0 || shift != before);
        if (shift == 0) continue;
        float *row0 = data + phase * g->phase + p->pad[1] * w;
        float *copy = row0 + copies * g->channel;
        copy_row_f32(copy, row0, rows * w);
        int64_t lo = shift < 0 ? (w + shift > 0 ? w + shift : 0) : 0, hi = shift < 0 ? w : min_i64(shift, w);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t j = lo; j < hi; j++) copy[r * w + j] = 0.0f;
    }
}

/* dst[j] = src[j] clamped to [low, high] for j < count (at least 16): copy_row_f32 and
 * clamp_f32 in one pass, in runs of 16 floats, each vectors of a max and a min (as
 * clamp_value: a NaN stays), the last run overlapping the one before. A run written as a loop
 * over its floats vectorised only with AVX-512 (16 lanes); with AVX2 it ran a float at a time. */
static MRVL_ALWAYS_INLINE void copy_clamped_row_f32(float *restrict dst, const float *restrict src, int64_t count,
                                                    float low, float high)
{
    int64_t last = count - 16;
    pool_vec lower = (pool_vec){0} + low, upper = (pool_vec){0} + high;
    for (int64_t j = 0; j < count; j += 16) {
        int64_t at = j < last ? j : last;
        for (int v = 0; v < 16; v += MRVL_POOL_VF)
            pool_store(dst + at + v, pool_min(upper, pool_max(lower, pool_load(src + at + v))));
    }
}

/* Output floats a depthwise conv's epilogue takes at a time: planes computed lately, in L1. */
#define MRVL_DEPTHWISE_EPILOGUE_FLOATS 2048

/* The epilogue over output planes [pending, next), computed since the last, once they fill the
 * caches' share or the task's planes end (`last`): a call per plane costs much of a small
 * plane's conv (MobileNet's 7x7). None where a clamp alone was applied as the planes were
 * stored (`clamped`). Returns the first plane still pending. */
static int64_t depthwise_epilogue_due(const depthwise_args *a, int clamped, int64_t pending, int64_t next, int last)
{
    int64_t positions = volume3(a->p->out);
    if (clamped || ((next - pending) * positions < MRVL_DEPTHWISE_EPILOGUE_FLOATS && !last)) return pending;
    conv_epilogue(a->p, (next - pending) * positions, positions, pending, a->r ? a->r + pending * positions : NULL,
                  a->y + pending * positions);
    return next;
}

/* Input channels [begin, end) of one image: each channel's layout (and its column copies),
 * then each of its output channels, slice by slice, over the flat grid, then (every few
 * planes) their epilogue. The channels of one task take turns in the layout of the first,
 * `begin`, and the copies in the layouts of the next ones (at least a->layouts channels
 * a task), which no other task uses: their padding is zeroed once. */
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
    memset(layout, 0, (size_t)((a->layouts - 1) * g->channel + g->lead + g->data) * sizeof(float));
    for (int64_t ic = begin; ic < end; ic++) {
        depthwise_copy_in(p, g, a->x + ic * volume3(p->in), data);
        if (a->layouts > 1) depthwise_copy_columns(p, g, data);
        for (int64_t m = ic * mult; m < (ic + 1) * mult; m++) {
            const float *wm = a->w + m * taps;
            float bias = a->b ? a->b[m] : 0.0f, *o = a->y + m * positions;
            if (g->direct) { /* the grid is the output plane: whole tiles in place, the last through `tail` */
                int64_t whole = positions / MRVL_DEPTHWISE_TILE * MRVL_DEPTHWISE_TILE;
                float tail[64]; /* a tile on any target (<= 64 floats), as far as copy_row_f32 can tell */
                depthwise_flat_kernel(k, data, a->offset, a->mask, g->flat, wm, bias, whole, o);
                if (whole < positions) {
                    depthwise_flat_kernel(k, data + whole, a->offset, a->mask ? a->mask + whole : NULL, g->flat,
                                          wm, bias, MRVL_DEPTHWISE_TILE, tail);
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
        pending = depthwise_epilogue_due(a, clamped, pending, (ic + 1) * mult, ic + 1 == end);
    }
}

/* A depthwise conv at stride 2 reads its input planes where they are when its output rows
 * are at least a vector wide (depthwise_pairs_fits): each vector of MRVL_GEMM_VECTOR_FLOATS
 * outputs of a row takes, per kernel column, the even or the odd floats of the 2 vectors of
 * input row from the pair of columns its first output's window reaches there, de-interleaved
 * in registers by one shuffle. No copy of the plane is made (splitting a 112-wide plane into
 * column phases took longer than the multiply-adds), and no lane is junk. The shuffle is the
 * one x86's shufps does, which keeps each 128-bit lane's floats in it: the outputs come out
 * in an order of their own (MRVL_PAIRS_EVENS' lanes hold outputs 0, 1, VF / 2, VF / 2 + 1, 2,
 * ...), the same for every tap, so each vector of sums is put in order once, as it is stored
 * (MRVL_PAIRS_ORDER); on AArch64 (4 floats) the order is the plain one (uzp1, uzp2). Vectors
 * whose pairs reach across the row's left or right end read them through depthwise_pairs_edge,
 * which reads inside the row only and zeroes the padding's lanes. */
#if defined(__GNUC__)
#if MRVL_GEMM_VECTOR_FLOATS == 16
#define MRVL_PAIRS_EVENS 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30
#define MRVL_PAIRS_ODDS 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31
#define MRVL_PAIRS_ORDER 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15
#elif MRVL_GEMM_VECTOR_FLOATS == 8
#define MRVL_PAIRS_EVENS 0, 2, 8, 10, 4, 6, 12, 14
#define MRVL_PAIRS_ODDS 1, 3, 9, 11, 5, 7, 13, 15
#define MRVL_PAIRS_ORDER 0, 1, 4, 5, 2, 3, 6, 7
#else
#define MRVL_PAIRS_EVENS 0, 2, 4, 6
#define MRVL_PAIRS_ODDS 1, 3, 5, 7
#define MRVL_PAIRS_ORDER 0, 1, 2, 3
#endif
enum { PAIRS_VF = MRVL_GEMM_VECTOR_FLOATS };
/* Kernel rows the in-place stride-2 conv takes (its row pointers). */
#define MRVL_DEPTHWISE_PAIRS_ROWS 16
typedef float pairs_vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
typedef int32_t pairs_ivec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4)));

/* The lanes of a vector moved by s (0 < s < VF) toward lane 0 (`down`, lanes s .. VF - 1 to
 * 0 .. VF - s - 1) or away from it (`up`), the lanes left over zeroed: a permutation and a
 * mask each, made once per conv. */
typedef struct {
    pairs_ivec down[PAIRS_VF], down_keep[PAIRS_VF], up[PAIRS_VF], up_keep[PAIRS_VF];
} depthwise_pairs_shifts;

static void depthwise_pairs_shifts_init(depthwise_pairs_shifts *t)
{
    for (int s = 0; s < PAIRS_VF; s++)
        for (int j = 0; j < PAIRS_VF; j++) {
            t->down[s][j] = j + s < PAIRS_VF ? j + s : 0;
            t->down_keep[s][j] = j + s < PAIRS_VF ? -1 : 0;
            t->up[s][j] = j >= s ? j - s : 0;
            t->up_keep[s][j] = j >= s ? -1 : 0;
        }
}

/* row[at + j] for the lanes j whose column at + j is in [0, width), 0 in the others (bitwise:
 * no float from outside the row makes a NaN), reading the row's first or last vector only
 * (width >= VF). */
static inline pairs_vec depthwise_pairs_edge(const float *row, int64_t at, int64_t width,
                                             const depthwise_pairs_shifts *t)
{
    if (at >= 0 && at + PAIRS_VF <= width) return *(const pairs_vec *)(const void *)(row + at);
    if (at <= -PAIRS_VF || at >= width) return (pairs_vec){0};
    if (at < 0) {
        pairs_vec v = *(const pairs_vec *)(const void *)row;
        return (pairs_vec)((pairs_ivec)__builtin_shuffle(v, t->up[-at]) & t->up_keep[-at]);
    }
    int64_t s = at + PAIRS_VF - width;
    pairs_vec v = *(const pairs_vec *)(const void *)(row + width - PAIRS_VF);
    return (pairs_vec)((pairs_ivec)__builtin_shuffle(v, t->down[s]) & t->down_keep[s]);
}

/* floor(q / 2) */
static inline int64_t floor_half(int64_t q) { return (q - (q < 0)) / 2; }

/* Kernel row r's tap kx of depthwise_pairs_vectors (below), added into acc. */
static MRVL_ALWAYS_INLINE void depthwise_pairs_tap(int64_t r, int64_t kx, int64_t kh, int64_t kw, int64_t pad,
                                                   int edge, const float *row, int64_t width, int64_t ox,
                                                   const float *restrict w, const depthwise_pairs_shifts *t,
                                                   pairs_vec acc[2])
{
    int64_t q = kx - pad, at = 2 * ox + 2 * floor_half(q);
    pairs_vec lo, hi, x;
    if (edge) {
        lo = depthwise_pairs_edge(row, at, width, t);
        hi = depthwise_pairs_edge(row, at + PAIRS_VF, width, t);
    } else {
        lo = *(const pairs_vec *)(const void *)(row + at);
        hi = *(const pairs_vec *)(const void *)(row + at + PAIRS_VF);
    }
#if defined(__clang__)
    x = q & 1 ? __builtin_shufflevector(lo, hi, MRVL_PAIRS_ODDS) : __builtin_shufflevector(lo, hi, MRVL_PAIRS_EVENS);
#else
    x = q & 1 ? __builtin_shuffle(lo, hi, (pairs_ivec){MRVL_PAIRS_ODDS})
              : __builtin_shuffle(lo, hi, (pairs_ivec){MRVL_PAIRS_EVENS});
#endif
    if (r < kh) acc[0] += x * w[r * kw + kx];
    if (r >= 2) acc[1] += x * w[(r - 2) * kw + kx];
}

/* The vectors of outputs ox .. ox + VF - 1 of two rows, oy and oy + 1, in MRVL_PAIRS_ORDER's
 * order (acc[0], acc[1]): the bias plus, over the kernel rows and columns, the tap's weight
 * times the even or odd floats of the pair at column 2 ox + 2 floor((kx - pad) / 2) of input
 * row ky (row oy) or ky + 2 (row oy + 1) of `rows` (each `width` floats; a row of zeros for
 * the padding), read through depthwise_pairs_edge where `edge`. Each input row is
 * de-interleaved once for both output rows (they share kh - 2 rows), and the two sums are
 * chains of multiply-adds of their own. Always inlined with a constant kernel and pad where
 * they are the usual ones, and a constant `edge`, so that the taps unroll and the kernel
 * columns that read one pair share its loads. */
static MRVL_ALWAYS_INLINE void depthwise_pairs_vectors(int64_t kh, int64_t kw, int64_t pad, int edge,
                                                       const float *const *rows, int64_t width, int64_t ox,
                                                       const float *restrict w, float bias,
                                                       const depthwise_pairs_shifts *t, pairs_vec acc[2])
{
    acc[0] = acc[1] = (pairs_vec){0} + bias;
    /* Unrolled only for a constant kernel: forced unrolling of loops of unknown count (the
     * generic call) made megabytes of code and most of a build's time. */
    if (__builtin_constant_p(kh) && __builtin_constant_p(kw)) {
        MRVL_UNROLL for (int64_t r = 0; r < kh + 2; r++)
            MRVL_UNROLL for (int64_t kx = 0; kx < kw; kx++)
                depthwise_pairs_tap(r, kx, kh, kw, pad, edge, rows[r], width, ox, w, t, acc);
    } else {
        for (int64_t r = 0; r < kh + 2; r++)
            for (int64_t kx = 0; kx < kw; kx++)
                depthwise_pairs_tap(r, kx, kh, kw, pad, edge, rows[r], width, ox, w, t, acc);
    }
}

/* The two rows' vectors at ox (depthwise_pairs_vectors) put in order, clamped to [lower, upper]
 * where `clamped`, and stored at out + ox (the second, if `two`, a row of out_w later). */
static MRVL_ALWAYS_INLINE void depthwise_pairs_store(const pairs_vec acc[2], int two, int clamped, pairs_vec lower,
                                                     pairs_vec upper, int64_t out_w, int64_t ox, float *out)
{
    for (int i = 0; i < 1 + two; i++) {
#if defined(__clang__)
        pairs_vec v = __builtin_shufflevector(acc[i], acc[i], MRVL_PAIRS_ORDER);
#else
        pairs_vec v = __builtin_shuffle(acc[i], (pairs_ivec){MRVL_PAIRS_ORDER});
#endif
        if (clamped) v = pool_min(upper, pool_max(lower, v));
        *(pairs_vec *)(void *)(out + i * out_w + ox) = v;
    }
}

/* Output rows oy and oy + 1 (if `two`) of one output channel (weights w) from its input plane,
 * into out and out + the output's width (clamped to [min, max] where `clamped`): the rows'
 * whole vectors, the last one overlapping the one before where the width is not a multiple of
 * VF; the first vector, if its pairs start left of the row, then those whose pairs lie inside
 * it, then the rest through depthwise_pairs_edge. The input rows above and below the plane
 * read `zeros` (a row of them). */
static MRVL_ALWAYS_INLINE void depthwise_pairs_rows(int64_t kh, int64_t kw, int64_t pad, const mrvl_conv_params *p,
                                                    const float *plane, const float *zeros, int64_t oy, int two,
                                                    const float *restrict w, float bias, int clamped,
                                                    const depthwise_pairs_shifts *t, float *restrict out)
{
    int64_t height = p->in[1], width = p->in[2], out_w = p->out[2], iy0 = 2 * oy - p->pad[1];
    int64_t reach_lo = 2 * floor_half(-pad), reach_hi = 2 * floor_half(kw - 1 - pad) + 2 * PAIRS_VF;
    const float *rows[MRVL_DEPTHWISE_PAIRS_ROWS + 2];
    for (int64_t r = 0; r < kh + 2; r++)
        rows[r] = iy0 + r >= 0 && iy0 + r < height ? plane + (iy0 + r) * width : zeros;
    pairs_vec lower = (pairs_vec){0} + p->min, upper = (pairs_vec){0} + p->max, acc[2];
    int64_t ox = 0;
    if (reach_lo < 0) {
        depthwise_pairs_vectors(kh, kw, pad, 1, rows, width, 0, w, bias, t, acc);
        depthwise_pairs_store(acc, two, clamped, lower, upper, out_w, 0, out);
        ox = PAIRS_VF;
    }
    /* (marked where the pad is a constant too: gcc also threads the generic call into a 3x3 copy) */
    if (__builtin_constant_p(pad)) MRVL_MCA_BEGIN("depthwise_pairs", kh, kw, 2 * kh * kw * PAIRS_VF);
    for (; ox + PAIRS_VF <= out_w && 2 * ox + reach_hi <= width; ox += PAIRS_VF) {
        depthwise_pairs_vectors(kh, kw, pad, 0, rows, width, ox, w, bias, t, acc);
        depthwise_pairs_store(acc, two, clamped, lower, upper, out_w, ox, out);
    }
    if (__builtin_constant_p(pad)) MRVL_MCA_END("depthwise_pairs", kh, kw, 2 * kh * kw * PAIRS_VF);
    for (; ox < out_w; ox += PAIRS_VF) {
        int64_t at = min_i64(ox, out_w - PAIRS_VF);
        depthwise_pairs_vectors(kh, kw, pad, 1, rows, width, at, w, bias, t, acc);
        depthwise_pairs_store(acc, two, clamped, lower, upper, out_w, at, out);
    }
}
#endif

/* Whether a depthwise conv reads its planes in place at stride 2 (depthwise_pairs_rows): 2D,
 * strides 2, no dilation, output rows at least a vector wide, of which the last vector's
 * overlap recomputes at most a quarter more (x86-64-v3: 10 outputs a row in 2 vectors took
 * 1.3x the rows layout's time, 14 in 2 0.9x). */
static int depthwise_pairs_fits(const mrvl_conv_params *p)
{
#if defined(__GNUC__) && MRVL_DEPTHWISE_PAIRS
    const int64_t *k = p->kernel, *s = p->stride, *d = p->dilation;
    return k[0] == 1 && p->in[0] == 1 && p->out[0] == 1 && s[1] == 2 && s[2] == 2 && d[1] == 1 && d[2] == 1 &&
           p->out[2] >= MRVL_GEMM_VECTOR_FLOATS && p->in[2] >= MRVL_GEMM_VECTOR_FLOATS && p->pad[2] < k[2] &&
           k[1] <= MRVL_DEPTHWISE_PAIRS_ROWS &&
           4 * ((p->out[2] + MRVL_GEMM_VECTOR_FLOATS - 1) / MRVL_GEMM_VECTOR_FLOATS * MRVL_GEMM_VECTOR_FLOATS) <=
               5 * p->out[2];
#else
    (void)p;
    return 0;
#endif
}

/* Input channels [begin, end) of one image (an mrvl_task) by depthwise_pairs_row, row after
 * row of each output plane, 3x3 and 5x5 kernels unrolled; the epilogue (unless a clamp alone,
 * applied as rows are stored) every few planes as depthwise_channels runs it. */
static void depthwise_pairs_channels(const void *ctx, int64_t begin, int64_t end)
{
#if defined(__GNUC__)
    const depthwise_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const int64_t *k = p->kernel;
    int64_t mult = p->m / p->c, taps = k[1] * k[2], positions = p->out[1] * p->out[2], pad = p->pad[2];
    int64_t pending = begin * mult;
    int clamped = p->clamp && !a->r && p->activation == MRVL_EPILOGUE_NONE && !p->scale && !p->shift && !p->slope;
    depthwise_pairs_shifts t;
    depthwise_pairs_shifts_init(&t);
    float *zeros = a->scratch + begin * a->g.channel; /* this task's: a channel's layout is longer than a row */
    memset(zeros, 0, (size_t)p->in[2] * sizeof(float));
    for (int64_t ic = begin; ic < end; ic++) {
        const float *plane = a->x + ic * p->in[1] * p->in[2];
        for (int64_t m = ic * mult; m < (ic + 1) * mult; m++) {
            const float *wm = a->w + m * taps;
            float bias = a->b ? a->b[m] : 0.0f, *o = a->y + m * positions;
            for (int64_t oy = 0; oy < p->out[1]; oy += 2) {
                float *rows = o + oy * p->out[2];
                int two = oy + 1 < p->out[1];
                if (k[1] == 3 && k[2] == 3 && pad == 1)
                    depthwise_pairs_rows(3, 3, 1, p, plane, zeros, oy, two, wm, bias, clamped, &t, rows);
                else if (k[1] == 5 && k[2] == 5 && pad == 2)
                    depthwise_pairs_rows(5, 5, 2, p, plane, zeros, oy, two, wm, bias, clamped, &t, rows);
                else depthwise_pairs_rows(k[1], k[2], pad, p, plane, zeros, oy, two, wm, bias, clamped, &t, rows);
            }
        }
        pending = depthwise_epilogue_due(a, clamped, pending, (ic + 1) * mult, ic + 1 == end);
    }
#else
    (void)ctx, (void)begin, (void)end;
#endif
}

/* depthwise_channels of groups [begin, end) of a->layouts channels (an mrvl_task), the last
 * group with the channels left over. */
static void depthwise_groups(const void *ctx, int64_t begin, int64_t end)
{
    const depthwise_args *a = ctx;
    int64_t groups = a->p->c / a->layouts;
    depthwise_channels(ctx, begin * a->layouts, end == groups ? a->p->c : end * a->layouts);
}

/* Whether a depthwise conv runs on small planes (depthwise_small_conv_f32), whichever of the
 * two depthwise kernels it was given to: on targets that take the path (MRVL_DEPTHWISE_SMALL),
 * the shape depthwise_small_shape takes, output planes at least a vector (the last vector
 * overlaps the one before) and, at stride 2, at most MRVL_DEPTHWISE_SMALL_POSITIONS positions. */
static int depthwise_small_fits(const mrvl_conv_params *p)
{
#if defined(__GNUC__)
    int64_t positions = p->out[1] * p->out[2];
    return MRVL_DEPTHWISE_SMALL && depthwise_small_shape(p) && positions >= MRVL_DEPTHWISE_SMALL_FLOATS &&
           (p->stride[1] == 1 || positions <= MRVL_DEPTHWISE_SMALL_POSITIONS);
#else
    (void)p;
    return 0;
#endif
}

#if defined(__GNUC__)
typedef float small_vec __attribute__((vector_size(MRVL_DEPTHWISE_SMALL_FLOATS * 4), aligned(4)));
typedef int32_t small_ivec __attribute__((vector_size(MRVL_DEPTHWISE_SMALL_FLOATS * 4), aligned(4)));

/* v clamped to [lower, upper] as clamp_value (a NaN stays): pool_max and pool_min, on AVX-512's
 * half vectors too. */
static inline small_vec small_clamp(small_vec v, small_vec lower, small_vec upper)
{
#if MRVL_DEPTHWISE_SMALL_FLOATS == 8 && MRVL_POOL_VF == 16
    return (small_vec)_mm256_min_ps((__m256)upper, _mm256_max_ps((__m256)lower, (__m256)v));
#else
    return pool_min(upper, pool_max(lower, v));
#endif
}

/* One output plane of a small conv at stride s (1 or 2) from the plane's copy at `data`
 * (depthwise_small_shape): vectors of `positions` contiguous outputs, the last overlapping the
 * one before; each three column sums of the kernel's rows (the middle one from the bias), the
 * left one (and at stride 1 the right one) and-ed with its mask of the vector (masks: left and
 * right per vector), clamped to [low, high] where `clamped`. Three chains of multiply-adds,
 * two masks a vector rather than one per tap. Always inlined with a constant stride and
 * `clamped`: the tap rows' pointers and the loads' offsets within them constants. */
static MRVL_ALWAYS_INLINE void depthwise_small_plane(int s, int clamped, const float *data, int64_t phase,
                                                     int64_t width, int64_t positions, const int32_t *masks,
                                                     const float *restrict w, float bias, float low, float high,
                                                     float *restrict out)
{
    enum { VF = MRVL_DEPTHWISE_SMALL_FLOATS };
    /* Kernel row ky's input for output 0, its taps kx at run[ky][kx] + at[ky][kx]: at stride 1
     * one row, columns -1, 0, 1; at stride 2 the even columns' phase (kx 1) and the odd ones'
     * (kx 0 one column left of kx 2) of the rows' phases (ky 1 even rows, 0 and 2 odd ones,
     * 0 a row up). */
    const float *run[3][2];
    int at[3][3];
    for (int ky = 0; ky < 3; ky++) {
        if (s == 1) {
            run[ky][0] = run[ky][1] = data + (ky - 1) * width - 1;
            at[ky][0] = 0, at[ky][1] = 1, at[ky][2] = 2;
        } else {
            const float *row = data + (ky != 1) * 2 * phase - (ky == 0) * width;
            run[ky][0] = row - 1 + phase, run[ky][1] = row;
            at[ky][0] = 0, at[ky][1] = 0, at[ky][2] = 1;
        }
    }
    small_vec wt[3][3], lower = (small_vec){0} + low, upper = (small_vec){0} + high;
    for (int ky = 0; ky < 3; ky++)
        for (int kx = 0; kx < 3; kx++) wt[ky][kx] = (small_vec){0} + w[ky * 3 + kx];
#define MRVL_TAP(ky, kx) (*(const small_vec *)(const void *)(run[ky][(kx) == 1] + at[ky][kx] + i) * wt[ky][kx])
    if (clamped) MRVL_MCA_BEGIN("depthwise_small_clamped", 3, s, 9 * VF);
    else MRVL_MCA_BEGIN("depthwise_small", 3, s, 9 * VF);
    for (int64_t v = 0; v < positions; v += VF, masks += 2 * VF) {
        int64_t i = v + VF <= positions ? v : positions - VF;
        small_vec left = MRVL_TAP(0, 0) + MRVL_TAP(1, 0) + MRVL_TAP(2, 0);
        small_vec middle = bias + MRVL_TAP(0, 1) + MRVL_TAP(1, 1) + MRVL_TAP(2, 1);
        small_vec right = MRVL_TAP(0, 2) + MRVL_TAP(1, 2) + MRVL_TAP(2, 2);
        small_vec sum = middle + (small_vec)((small_ivec)left & *(const small_ivec *)(const void *)masks);
        sum += s == 1 ? (small_vec)((small_ivec)right & *(const small_ivec *)(const void *)(masks + VF)) : right;
        if (clamped) sum = small_clamp(sum, lower, upper);
        *(small_vec *)(void *)(out + i) = sum;
    }
    if (clamped) MRVL_MCA_END("depthwise_small_clamped", 3, s, 9 * VF);
    else MRVL_MCA_END("depthwise_small", 3, s, 9 * VF);
#undef MRVL_TAP
}

/* The even and odd floats of 2 vectors at src (of which `count` are the row's) to evens and
 * odds, a vector each; read from `last` (its floats past `count` zero) where they would reach
 * past `end` (the copied vectors read back at once stall, but the input's last rows only). */
static MRVL_ALWAYS_INLINE void depthwise_small_split(const float *src, const float *end, float *last, int64_t count,
                                                     float *evens, float *odds)
{
    if (src + 2 * MRVL_POOL_VF > end) {
        copy_row_f32(last, src, min_i64(count, 2 * MRVL_POOL_VF));
        src = last;
    }
    pool_vec even, odd;
#if MRVL_POOL_VF == 8 && !defined(__clang__)
    /* AVX: shufps in each 128-bit lane, then one permutation a vector (MRVL_PAIRS_*), where
     * pool_deinterleave's shuffle took two permutations and a blend */
    pool_vec a = pool_load(src), b = pool_load(src + MRVL_POOL_VF);
    even = __builtin_shuffle(__builtin_shuffle(a, b, (pairs_ivec){MRVL_PAIRS_EVENS}), (pairs_ivec){MRVL_PAIRS_ORDER});
    odd = __builtin_shuffle(__builtin_shuffle(a, b, (pairs_ivec){MRVL_PAIRS_ODDS}), (pairs_ivec){MRVL_PAIRS_ORDER});
#else
    pool_deinterleave(pool_load(src), pool_load(src + MRVL_POOL_VF), &even, &odd);
#endif
    pool_store(evens, even);
    pool_store(odds, odd);
}

#if MRVL_DEPTHWISE_SMALL_FLOATS == 8 && MRVL_POOL_VF == 16 && !defined(__clang__)
/* depthwise_small_split on half vectors, as AVX's (AVX-512's rows of up to 16 floats: whole
 * vectors stored 16 floats a phase row of at most 8, and across cache lines every time). */
static MRVL_ALWAYS_INLINE void depthwise_small_split_half(const float *src, const float *end, float *last,
                                                          int64_t count, float *evens, float *odds)
{
    if (src + 16 > end) {
        copy_row_f32(last, src, min_i64(count, 16));
        src = last;
    }
    small_vec a = *(const small_vec *)(const void *)src, b = *(const small_vec *)(const void *)(src + 8);
    *(small_vec *)(void *)evens = __builtin_shuffle(__builtin_shuffle(a, b, (small_ivec){0, 2, 8, 10, 4, 6, 12, 14}),
                                                    (small_ivec){0, 1, 4, 5, 2, 3, 6, 7});
    *(small_vec *)(void *)odds = __builtin_shuffle(__builtin_shuffle(a, b, (small_ivec){1, 3, 9, 11, 5, 7, 13, 15}),
                                                   (small_ivec){0, 1, 4, 5, 2, 3, 6, 7});
}
#endif

/* Input plane `plane` into its small layout at `data` (depthwise_small_shape); the padding
 * around it is left as it is. At stride 2 each row is split by column parity into the phases
 * of its row's parity: in pairs of vectors, the last overlapping the one before, where rows
 * are a pair of vectors or more; else one pair a row, which reads on into the next rows (and
 * planes) and whose halves run past the row's (depthwise_small_phase's gap takes them, the
 * next row's overwrite them); rows whose pair would read past the input's `end` are read from
 * `last` (2 vectors, the rest of them zero). */
static void depthwise_small_copy_in(const mrvl_conv_params *p, const float *plane, const float *end, float *last,
                                    float *data)
{
    int64_t h = p->in[1], width = p->in[2], half = width / 2, phase = depthwise_small_phase(p);
    if (p->stride[1] == 1) {
        copy_row_f32(data, plane, h * width);
        return;
    }
    for (int64_t r = 0; r < h; r++) {
        float *even = data + (r & 1) * 2 * phase + r / 2 * half;
        const float *row = plane + r * width;
#if MRVL_DEPTHWISE_SMALL_FLOATS == 8 && MRVL_POOL_VF == 16 && !defined(__clang__)
        if (width <= 16) {
            depthwise_small_split_half(row, end, last, width, even, even + phase);
            continue;
        }
#endif
        if (width <= 2 * MRVL_POOL_VF) {
            depthwise_small_split(row, end, last, width, even, even + phase);
            continue;
        }
        for (int64_t t = 0; t < width; t += 2 * MRVL_POOL_VF)
            depthwise_small_split(row + t, end, last, width - t, even + t / 2, even + phase + t / 2);
    }
}
#endif

/* Channels [begin, end) of one image (an mrvl_task) on small planes: each plane copied into
 * the layout of channel `begin` (or by turns of `begin` and `begin` + 1), which no other task
 * uses (their padding zeroed once), its output plane computed (depthwise_small_plane) and,
 * every few planes, their epilogue (unless a clamp alone, applied as vectors are stored). */
static void depthwise_small_channels(const void *ctx, int64_t begin, int64_t end)
{
#if defined(__GNUC__)
    const depthwise_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    int64_t positions = p->out[1] * p->out[2], width = p->out[2], pending = begin, s = p->stride[1];
    int64_t channel = depthwise_small_channel(p), phase = depthwise_small_phase(p);
    int clamped = p->clamp && !a->r && p->activation == MRVL_EPILOGUE_NONE && !p->scale && !p->shift && !p->slope;
    int64_t plane = p->in[1] * p->in[2];
    /* Small planes are copied a channel ahead, into the next channel's layout: the conv's loads
     * from a copy just made waited on its stores (x86: 14x14 planes took 1.4x the time). */
    int ahead = end - begin > 1 && plane <= MRVL_DEPTHWISE_SMALL_AHEAD_FLOATS;
    float *layout[2] = {a->scratch + begin * channel, a->scratch + (begin + ahead) * channel};
    memset(layout[0], 0, (size_t)((1 + ahead) * channel) * sizeof(float));
    if (ahead) depthwise_small_copy_in(p, a->x + begin * plane, a->x_end, layout[0] + 4 * phase, layout[0] + width + 1);
    for (int64_t c = begin; c < end; c++) {
        const float *wc = a->w + c * 9;
        float bias = a->b ? a->b[c] : 0.0f, *o = a->y + c * positions, *data = layout[(c - begin) & ahead] + width + 1;
        float *next = layout[(c + ahead - begin) & ahead];
        if (!ahead || c + 1 < end)
            depthwise_small_copy_in(p, a->x + (c + ahead) * plane, a->x_end, next + 4 * phase, next + width + 1);
#define MRVL_PLANE(S, CLAMPED) \
    depthwise_small_plane(S, CLAMPED, data, phase, width, positions, a->mask, wc, bias, p->min, p->max, o)
        if (s == 1 && clamped) MRVL_PLANE(1, 1);
        else if (s == 1) MRVL_PLANE(1, 0);
        else if (clamped) MRVL_PLANE(2, 1);
        else MRVL_PLANE(2, 0);
#undef MRVL_PLANE
        pending = depthwise_epilogue_due(a, clamped, pending, c + 1, c + 1 == end);
    }
#else
    (void)ctx, (void)begin, (void)end;
#endif
}

/* A depthwise conv on small planes (depthwise_small_fits) in `scratch`
 * (depthwise_small_scratch_floats(p) floats): the column masks (lane j of vector v's left
 * (right) mask: whether its column is not the first (last)), then the channels of each image
 * split over the threads. */
static void depthwise_small_conv_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                     const float *r, float *y, float *scratch)
{
    enum { VF = MRVL_DEPTHWISE_SMALL_FLOATS };
    int64_t positions = p->out[1] * p->out[2], vectors = (positions + VF - 1) / VF;
    int32_t *mask = (int32_t *)(void *)scratch;
    for (int64_t v = 0; v < vectors; v++)
        for (int64_t j = 0; j < VF; j++) {
            int64_t col = (min_i64(v * VF, positions - VF) + j) % p->out[2];
            mask[2 * v * VF + j] = col > 0 ? -1 : 0;
            mask[(2 * v + 1) * VF + j] = col < p->out[2] - 1 ? -1 : 0;
        }
    depthwise_args a = {p, x, w, b, r, y, scratch + 2 * vectors * VF, mask, NULL, 1, depthwise_layout(p),
                        x + p->n * p->c * volume3(p->in)};
    for (int64_t n = 0; n < p->n; n++, a.x += p->c * volume3(p->in), a.y += conv_y_batch(p)) {
        a.r = r ? r + n * p->m * positions : NULL;
        if (p->m * positions * 9 < MRVL_PARALLEL_MACS) depthwise_small_channels(&a, 0, p->c);
        else mrvl_parallel(p->c, depthwise_small_channels, &a);
    }
}

/* A grouped conv with one input channel per group (depthwise, channel multiplier m/c), on flat
 * planes (depthwise_layout) in `scratch` (depthwise_scratch_floats(p) floats); the input
 * channels of each image split over the threads, in groups of as many channels as a task
 * needs layouts. */
static void mrvl_depthwise_conv_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                    const float *r, float *y, float *scratch)
{
    const int64_t *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    if (depthwise_small_fits(p)) {
        depthwise_small_conv_f32(p, x, w, b, r, y, scratch);
        return;
    }
    if (depthwise_pairs_fits(p)) {
        depthwise_args a = {p, x, w, b, r, y, scratch, NULL, NULL, 1, depthwise_layout(p), NULL};
        int64_t plane = volume3(p->in), positions = volume3(p->out);
        for (int64_t n = 0; n < p->n; n++, a.x += p->c * plane, a.y += p->m * positions) {
            a.r = r ? r + n * p->m * positions : NULL;
            if (p->m * positions * volume3(k) < MRVL_PARALLEL_MACS) depthwise_pairs_channels(&a, 0, p->c);
            else mrvl_parallel(p->c, depthwise_pairs_channels, &a);
        }
        return;
    }
    depthwise_geometry g = depthwise_layout(p);
    int32_t *mask = (int32_t *)(void *)(scratch + p->c * g.channel);
    int32_t *offset = mask + (g.rows ? k[2] * g.flat : 0);
    int64_t layouts = g.rows && MRVL_DEPTHWISE_COLUMN_COPIES ? 1 + depthwise_column_copies(p, k[2] - 1) : 1;
    int masked = g.rows && (!MRVL_DEPTHWISE_COLUMN_COPIES || layouts > p->c);
    if (masked) layouts = 1;
    for (int64_t kz = 0, t = 0; kz < k[0]; kz++)
        for (int64_t ky = 0; ky < k[1]; ky++)
            for (int64_t kx = 0; kx < k[2]; kx++, t++) {
                int64_t shift = depthwise_column_shift(p, kx);
                offset[t] = (int32_t)(g.rows ? (kx * d[2] - pad[2] - shift * s[2]) * g.phase + ky * d[1] * g.w + shift +
                                                   (masked || !shift ? 0 : depthwise_column_copies(p, kx) * g.channel)
                                             : ((ky * d[1] % s[1]) * s[2] + kx * d[2] % s[2]) * g.phase +
                                                   (kz * d[0] * g.h + ky * d[1] / s[1]) * g.w + kx * d[2] / s[2]);
            }
    if (masked) /* lane i of kernel column kx: whether input column s (i % pitch) + kx d - pad is inside */
        for (int64_t kx = 0; kx < k[2]; kx++)
            for (int64_t i = 0; i < g.flat; i++) {
                int64_t col = s[2] * (i % g.pitch) + kx * d[2] - pad[2];
                mask[kx * g.flat + i] = col >= 0 && col < p->in[2] ? -1 : 0;
            }
    depthwise_args a = {p, x, w, b, r, y, scratch, masked ? mask : NULL, offset, layouts, g, NULL};
    int64_t plane = volume3(p->in), positions = volume3(p->out);
    for (int64_t n = 0; n < p->n; n++, a.x += p->c * plane, a.y += p->m * positions) {
        a.r = r ? r + n * p->m * positions : NULL;
        if (p->m * g.flat * volume3(k) < MRVL_PARALLEL_MACS) depthwise_channels(&a, 0, p->c);
        else mrvl_parallel(p->c / layouts, depthwise_groups, &a);
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
 * (target/host_kernels.py depthwise_blocked_scratch_floats). */
static int64_t depthwise_blocked_scratch_floats(const mrvl_conv_params *p)
{
    int64_t blocks = (p->c + MRVL_DEPTHWISE_BLOCK - 1) / MRVL_DEPTHWISE_BLOCK;
    return max_i64(blocks * depthwise_blocked_layout(p).block + volume3(p->kernel), depthwise_small_scratch_floats(p));
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

/* depthwise_blocked_tile for a kernel kh x kw with its taps adjacent along the rows (no
 * dilation there), stride sx: each input position of a kernel row loaded once and used by every
 * window of the tile that reads it ((TILE - 1) * sx + kw loads a row for kw * TILE multiply-adds,
 * not one load each), the taps added in the same order. Always inlined with constants. */
static MRVL_ALWAYS_INLINE void depthwise_blocked_tile_rows(int kh, int kw, int sx, const float *in,
                                                           const int32_t *offset, const float *restrict w,
                                                           const float *restrict bias, float *restrict out)
{
#if defined(__GNUC__)
    enum { SPAN = (MRVL_DEPTHWISE_BLOCK_TILE - 1) * 2 + 5 };
    dw_vec acc[MRVL_DEPTHWISE_BLOCK_TILE][DW_VECS];
    for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++)
        for (int v = 0; v < DW_VECS; v++) acc[r][v] = *(const dw_vec *)(const void *)(bias + v * DW_VF);
    for (int ky = 0; ky < kh; ky++) {
        const float *row = in + offset[ky * kw];
        for (int v = 0; v < DW_VECS; v++) {
            dw_vec x[SPAN];
            for (int i = 0; i < (MRVL_DEPTHWISE_BLOCK_TILE - 1) * sx + kw; i++)
                x[i] = *(const dw_vec *)(const void *)(row + i * MRVL_DEPTHWISE_BLOCK + v * DW_VF);
            for (int kx = 0; kx < kw; kx++) {
                dw_vec wt = *(const dw_vec *)(const void *)(w + (ky * kw + kx) * MRVL_DEPTHWISE_BLOCK + v * DW_VF);
                for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++) acc[r][v] += x[r * sx + kx] * wt;
            }
        }
    }
    for (int r = 0; r < MRVL_DEPTHWISE_BLOCK_TILE; r++)
        for (int v = 0; v < DW_VECS; v++) *(dw_vec *)(void *)(out + r * MRVL_DEPTHWISE_BLOCK + v * DW_VF) = acc[r][v];
#else
    depthwise_blocked_tile(kh * kw, sx, in, offset, w, bias, out);
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
    /* The row's tiles, TILE(ARGS, input, offset, w, bias, output) each, its loop the llvm-mca
     * region NAME_LABELxSX. */
#define MRVL_ROW(NAME, LABEL, SX, TAPS, TILE, ...)                                                           \
    do {                                                                                                      \
        MRVL_MCA_BEGIN(NAME, LABEL, SX, (TAPS) * MRVL_DEPTHWISE_BLOCK_TILE * MRVL_DEPTHWISE_BLOCK);           \
        for (int64_t ox = 0; ox < g->pitch; ox += MRVL_DEPTHWISE_BLOCK_TILE)                                 \
            TILE(__VA_ARGS__, in + ox * (SX) * MRVL_DEPTHWISE_BLOCK, offset, w, bias,                         \
                 grid + ox * MRVL_DEPTHWISE_BLOCK);                                                           \
        MRVL_MCA_END(NAME, LABEL, SX, (TAPS) * MRVL_DEPTHWISE_BLOCK_TILE * MRVL_DEPTHWISE_BLOCK);             \
    } while (0)
#define MRVL_ROW_LOADS_SHARED(K, SX)                                                                          \
    MRVL_ROW("depthwise_blocked_rows", K, SX, (K) * (K), depthwise_blocked_tile_rows, K, K, SX)
#define MRVL_ROW_TAP_BY_TAP(TAPS, SX) MRVL_ROW("depthwise_blocked", TAPS, SX, TAPS, depthwise_blocked_tile, TAPS, SX)
    int shared = sx <= MRVL_DEPTHWISE_BLOCKED_SHARED_STRIDE && p->dilation[2] == 1;
    if (taps == 9 && k[1] == 3 && sx == 1 && shared) MRVL_ROW_LOADS_SHARED(3, 1);
    else if (taps == 9 && k[1] == 3 && sx == 2 && shared) MRVL_ROW_LOADS_SHARED(3, 2);
    else if (taps == 25 && k[1] == 5 && sx == 1 && shared) MRVL_ROW_LOADS_SHARED(5, 1);
    else if (taps == 25 && k[1] == 5 && sx == 2 && shared) MRVL_ROW_LOADS_SHARED(5, 2);
    else if (taps == 9 && k[1] == 3 && sx == 1) MRVL_ROW_TAP_BY_TAP(9, 1);
    else if (taps == 9 && k[1] == 3 && sx == 2) MRVL_ROW_TAP_BY_TAP(9, 2);
    else if (taps == 25 && k[1] == 5 && sx == 1) MRVL_ROW_TAP_BY_TAP(25, 1);
    else if (taps == 25 && k[1] == 5 && sx == 2) MRVL_ROW_TAP_BY_TAP(25, 2);
    else MRVL_ROW_TAP_BY_TAP(taps, sx);
#undef MRVL_ROW
#undef MRVL_ROW_LOADS_SHARED
#undef MRVL_ROW_TAP_BY_TAP
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
            /* A whole vector of each channel (the usual) in a loop gcc unrolls, t in registers: with
             * one vector a position (AVX-512) 0.92x the time of the loop below on a Zen 4 (a 5x5/2
             * on 144 x 56 x 56); with two (AVX2) 1.07x, where that loop stays. */
            if (DW_VECS == 1 && at + DW_VF <= end && count == DW_VF)
                for (int i = 0; i < DW_VF; i++) {
                    t[i] = *(const dw_vec *)(const void *)(x + i * plane + at);
                    if (MRVL_DEPTHWISE_BLOCKED_PREFETCH)
                        __builtin_prefetch(x + i * plane + at + MRVL_DEPTHWISE_BLOCKED_PREFETCH);
                }
            else
                for (int i = 0; i < DW_VF; i++) {
                    int64_t c = v * DW_VF + i;
                    if (c >= count) t[i] = (conv_vec){0};
                    else if (at + DW_VF <= end) t[i] = *(const dw_vec *)(const void *)(x + c * plane + at);
                    else t[i] = (conv_vec){0}, copy_row_f32((float *)&t[i], x + c * plane + f, n);
                    if (MRVL_DEPTHWISE_BLOCKED_PREFETCH && c < count && (at & 15) < DW_VF)
                        __builtin_prefetch(x + c * plane + at + MRVL_DEPTHWISE_BLOCKED_PREFETCH);
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
 * transposed in registers as depthwise_blocked_in does (one by one they cost much of a small
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

/* Zeros in the block's padded input where depthwise_blocked_in writes nothing (the padding
 * around the input positions the windows read, and the slack after them): once a task, not
 * the whole layout (a task may be one chunk of a few blocks). */
static void depthwise_blocked_zero_border(const mrvl_conv_params *p, const depthwise_blocked_geometry *g, float *input)
{
    const size_t position = MRVL_DEPTHWISE_BLOCK * sizeof(float);
    int64_t top = min_i64(p->pad[1], g->h), bottom = min_i64(p->pad[1] + p->in[1], g->h);
    int64_t left = min_i64(p->pad[2], g->w), right = min_i64(p->pad[2] + p->in[2], g->w);
    memset(input, 0, (size_t)(top * g->w) * position);
    for (int64_t row = top; row < bottom; row++) {
        float *at = input + row * g->w * MRVL_DEPTHWISE_BLOCK;
        memset(at, 0, (size_t)left * position);
        memset(at + right * MRVL_DEPTHWISE_BLOCK, 0, (size_t)(g->w - right) * position);
    }
    memset(input + bottom * g->w * MRVL_DEPTHWISE_BLOCK, 0, (size_t)(g->input - bottom * g->w) * position);
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
    depthwise_blocked_zero_border(p, g, input);
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
    if (depthwise_small_fits(p)) {
        depthwise_small_conv_f32(p, x, w, b, r, y, scratch);
        return;
    }
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
