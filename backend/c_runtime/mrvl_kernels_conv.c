/* mrvl_kernels_conv.c: convolution: the implicit-GEMM conv, the flat conv, the pointwise
 * conv and the transposed conv, with their fused epilogues.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

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

/* Packed weights of one group: mg output channels rounded up to MRVL_CONV_CHANNEL_ALIGN, in
 * panels of MRVL_CONV_PANEL channels, each panel depth rows of MRVL_CONV_PANEL floats. */
static int64_t conv_packed_group_floats(int64_t mg, int64_t depth)
{
    return (mg + MRVL_CONV_CHANNEL_ALIGN - 1) / MRVL_CONV_CHANNEL_ALIGN * MRVL_CONV_CHANNEL_ALIGN * depth;
}

/* w (m, c/group, kernel) into the packed layout, group after group (the C emitter packs
 * constant weights the same way at compile time: target/host_kernels.py pack_conv_weights). */
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
 * Each row asks the caches for a line of each panel at ahead[v], `step` bytes further on
 * every row (conv_next_block_step). Always inlined with constant mr and vecs (conv_tiles_wide,
 * conv_tiles_narrow), so that the sums stay in registers. */
static MRVL_ALWAYS_INLINE void conv_micro(int mr, int vecs, int64_t depth, const float *const *row,
                                          const int32_t *tap, const float *const *b, const char *const *ahead,
                                          int64_t step, float *out)
{
    int width = vecs * MRVL_GEMM_VECTOR_FLOATS;
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    vec acc[MRVL_CONV_NARROW_MR + MRVL_CONV_LONG_TILES][MRVL_GEMM_VECTORS];
    const char *line[MRVL_GEMM_VECTORS];
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < vecs; v++) acc[i][v] = (vec){0};
    for (int v = 0; v < vecs; v++) line[v] = ahead[v];
    MRVL_MCA_BEGIN("conv_direct", mr, width, mr * width);
    for (int64_t r = 0; r < depth; r++) {
        int32_t t = tap[r];
        vec bv[MRVL_GEMM_VECTORS];
        for (int v = 0; v < vecs; v++) bv[v] = *(const vec *)(const void *)(b[v] + r * MRVL_CONV_PANEL);
        for (int v = 0; v < vecs; v += MRVL_CONV_PANEL / MRVL_GEMM_VECTOR_FLOATS) { /* a line per panel */
            __builtin_prefetch(line[v]);
            line[v] += step;
        }
        for (int i = 0; i < mr; i++) {
            float x = row[i][t];
            for (int v = 0; v < vecs; v++) acc[i][v] += bv[v] * x;
        }
    }
    MRVL_MCA_END("conv_direct", mr, width, mr * width);
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < vecs; v++)
            for (int j = 0; j < MRVL_GEMM_VECTOR_FLOATS; j++)
                out[i * width + v * MRVL_GEMM_VECTOR_FLOATS + j] = acc[i][v][j];
#else
    (void)ahead, (void)step;
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
 * on that pass's clamp, and a Relu's sign is a coin toss (mispredicted half the time). */
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
    const float *base;            /* the input of the group (a padded, transposed or subsampled copy) */
    int64_t dims[MRVL_SPATIAL];   /* its extent */
    int64_t stride[MRVL_SPATIAL]; /* the windows' strides in it (1 in a subsampled copy) */
    const int32_t *tap;           /* the tap table */
    int64_t pitch;                /* floats from an input position to the next: 1, or the channels' */
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
                                         const float *const *bv, const char *const *ahead, int64_t step,
                                         int64_t o0, int64_t j0, int64_t rows)
{
    int width = vecs * MRVL_GEMM_VECTOR_FLOATS;
    int64_t positions = a->positions;
    float acc[(MRVL_CONV_NARROW_MR + MRVL_CONV_LONG_TILES) * MRVL_GEMM_NR];
    int64_t cols = min_i64(width, a->mg - j0);
    float *y = a->y + j0 * positions + o0;
    conv_micro(mr, vecs, a->depth, row, a->tap, bv, ahead, step, acc);
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

/* Bytes of a row of a weight panel. */
#define MRVL_CONV_ROW_BYTES ((int64_t)(MRVL_CONV_PANEL * sizeof(float)))

/* How far the line conv_micro asks the caches for moves on per row, in bytes, when position
 * tile t of `tiles` fetches its part of the next channel block's panels (that block from
 * channel `next` on), else 0: channel-major, where there is a next block, tiles 1... of a
 * block each fetch a share of its lines, at most one a row. A deep conv on a small plane
 * reads its weights from memory once, a block at a time: a block's first tile fetching them
 * alone (its own lines, MRVL_CONV_PREFETCH_ROWS ahead) waits on memory, which delivers them
 * several times slower than it multiplies them; fetched by the tiles of the block before,
 * they arrive while those compute. */
static int64_t conv_next_block_step(const conv_tiles_args *a, int64_t t, int64_t tiles, int64_t next)
{
    if (!a->channel_major || t == 0 || next >= a->mg) return 0;
    return (MRVL_CONV_ROW_BYTES + tiles - 2) / (tiles - 1);
}

/* Items [begin, end) of a group: tiles of mr positions (the last ones long, or the last
 * short: conv_tile_count) by blocks of vecs vectors of channels, position tile after position
 * tile, or with channel_major block after block. */
static MRVL_ALWAYS_INLINE void conv_tiles(int mr, int vecs, const conv_tiles_args *a, int64_t begin, int64_t end)
{
    const mrvl_conv_params *p = a->p;
    const int64_t *out = p->out, *s = a->stride, *dims = a->dims;
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
        /* The last whole tile and the one position past it, as tiles of 3/4 of mr and the rest. */
        int split = MRVL_CONV_SPLIT_LAST && positions % mr == 1 && tiles > 2 && t >= tiles - 2;
        if (split) o0 = (tiles - 2) * mr + (t == tiles - 1) * (3 * mr / 4);
        if (t != tile) {
            /* The window corner of each row, its output position counted, not divided, per row. */
            int64_t at[MRVL_SPATIAL] = {o0 / (out[1] * out[2]), o0 / out[2] % out[1], o0 % out[2]};
            const float *corner = a->base;
            tile = t;
            rows = split ? (t == tiles - 1 ? mr + 1 - 3 * mr / 4 : 3 * mr / 4)
                   : t < whole ? min_i64(mr, positions - o0) : mr + 1;
            for (int i = 0; i < mr + MRVL_CONV_LONG_TILES; i++) {
                if (i < rows) {
                    corner = a->base + ((at[0] * s[0] * dims[1] + at[1] * s[1]) * dims[2] + at[2] * s[2]) * a->pitch;
                    if (++at[2] == out[2]) {
                        at[2] = 0;
                        if (++at[1] == out[1]) at[1] = 0, at[0]++;
                    }
                }
                row[i] = corner;
            }
        }
        const float *bv[MRVL_GEMM_VECTORS];
        const char *ahead[MRVL_GEMM_VECTORS];
        /* A narrow tile's group is one block of channels. */
        int64_t step = MRVL_CONV_NEXT_BLOCK_PREFETCH && vecs == MRVL_GEMM_VECTORS
                           ? conv_next_block_step(a, t, tiles, j0 + width)
                           : 0;
        for (int v = 0; v < vecs; v++) {
            int64_t ch = j0 + v * MRVL_GEMM_VECTOR_FLOATS, next = ch + width;
            bv[v] = a->w + ch / MRVL_CONV_PANEL * depth * MRVL_CONV_PANEL + ch % MRVL_CONV_PANEL;
            ahead[v] = step ? (const char *)(a->w + next / MRVL_CONV_PANEL * depth * MRVL_CONV_PANEL) +
                                  (t - 1) * step * depth
                            : (const char *)(bv[v] + MRVL_CONV_PREFETCH_ROWS * MRVL_CONV_PANEL);
        }
        if (!step) step = MRVL_CONV_ROW_BYTES;
        /* A short tile is computed by the shortest of a quarter, half and three quarters of
         * the tile that holds it (its rows past the end repeat the last position, their sums
         * dropped), not by a whole one (a 4 x 5 plane is a tile of 12 positions and 8). Single
         * rows read each weight vector for two multiply-adds: that costs more than the few
         * rows dropped. */
        if (rows > mr) conv_tile(mr + MRVL_CONV_LONG_TILES, vecs, a, row, bv, ahead, step, o0, j0, rows);
        else if (rows <= mr / 4) conv_tile(mr / 4, vecs, a, row, bv, ahead, step, o0, j0, rows);
        else if (rows <= mr / 2) conv_tile(mr / 2, vecs, a, row, bv, ahead, step, o0, j0, rows);
        else if (rows <= 3 * mr / 4) conv_tile(3 * mr / 4, vecs, a, row, bv, ahead, step, o0, j0, rows);
        else conv_tile(mr, vecs, a, row, bv, ahead, step, o0, j0, rows);
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
 * fewer rows computed, each dearer (a 4 x 4 plane is 2 tiles of 8 rows, not 12 and 6). */
static int conv_short_tiles_pay(int64_t positions)
{
    return MRVL_CONV_SHORT_MR < MRVL_CONV_MR &&
           conv_tile_rows(positions, MRVL_CONV_SHORT_MR) * 108 < conv_tile_rows(positions, MRVL_CONV_MR) * 100;
}

/* Whether mrvl_conv_f32 reads a group's input transposed, position-major (channels
 * contiguous): a 1x1 conv that does not pad, on an output plane of at most
 * MRVL_CONV_TRANSPOSED_PLANE positions, or of MRVL_CONV_TRANSPOSED_DEEP_PLANE with at least
 * MRVL_CONV_TRANSPOSED_DEEP_WEIGHTS weights a group. Read in place, each row of a tile
 * broadcasts one float a channel, from a line of its own per channel (a plane apart), and a
 * deep input outgrows L1 before its lines are used again; transposed, the rows of a tile are
 * runs of the channels, each line read once for several. */
static int conv_transposes_input(const mrvl_conv_params *p)
{
    int64_t dims[MRVL_SPATIAL], positions = volume3(p->out), weights = p->c / p->group * (p->m / p->group);
    return volume3(p->kernel) == 1 && !conv_read_extent(p, dims) &&
           (positions <= MRVL_CONV_TRANSPOSED_PLANE ||
            (positions <= MRVL_CONV_TRANSPOSED_DEEP_PLANE && weights >= MRVL_CONV_TRANSPOSED_DEEP_WEIGHTS));
}

/* Whether mrvl_conv_f32 copies a group's input subsampled first: on targets that do
 * (MRVL_CONV_SUBSAMPLED), a strided 1x1 conv that does not pad and is not read transposed
 * (ResNet's downsampling convs). Read in place, a tile's rows broadcast floats `stride` apart
 * from lines of which they use a half or less, and every channel block reads all of the
 * input's lines again; subsampled, the conv is a 1x1 conv of stride 1 on the output's plane. */
static int conv_subsamples_input(const mrvl_conv_params *p)
{
    int64_t dims[MRVL_SPATIAL];
    return MRVL_CONV_SUBSAMPLED && volume3(p->kernel) == 1 && volume3(p->out) < volume3(p->in) &&
           !conv_read_extent(p, dims) && !conv_transposes_input(p);
}

/* The offset in an input plane of each output position of a 1x1 conv (its strides), into at. */
static void conv_strided_positions(const mrvl_conv_params *p, int64_t *at)
{
    const int64_t *in = p->in, *out = p->out, *s = p->stride;
    for (int64_t z = 0; z < out[0]; z++)
        for (int64_t yy = 0; yy < out[1]; yy++)
            for (int64_t xx = 0; xx < out[2]; xx++) *at++ = (z * s[0] * in[1] + yy * s[1]) * in[2] + xx * s[2];
}

/* The cg planes of x (in) at the conv's strides into planes of its output's extent, xs. */
static void conv_subsample_input(const mrvl_conv_params *p, int64_t cg, const float *x, float *restrict xs)
{
    const int64_t *in = p->in, *out = p->out, *s = p->stride;
    for (int64_t c = 0; c < cg; c++, x += volume3(in))
        for (int64_t z = 0; z < out[0]; z++)
            for (int64_t yy = 0; yy < out[1]; yy++, xs += out[2]) {
                const float *src = x + (z * s[0] * in[1] + yy * s[1]) * in[2];
                for (int64_t xx = 0; xx < out[2]; xx++) xs[xx] = src[xx * s[2]];
            }
}

/* Floats from a position to the next in a transposed input of cg channels: cg and
 * MRVL_CONV_TRANSPOSED_SKEW more, so that the rows a tile reads at once do not fall in the same
 * L1 sets (rows of 1024 or 2048 channels are a multiple of 4 KiB apart). */
static int64_t conv_transposed_pitch(int64_t cg)
{
    return cg + MRVL_CONV_TRANSPOSED_SKEW;
}

/* The cg planes of x (in) at the conv's output positions (conv_strided_positions) into xt
 * position-major (xt[o * conv_transposed_pitch(cg) + c]), 8 channels at a time: each
 * position's 8 floats one contiguous write, from 8 planes read in order. */
static void conv_transpose_input(const mrvl_conv_params *p, int64_t cg, const float *x, float *restrict xt)
{
    int64_t at[MRVL_CONV_TRANSPOSED_DEEP_PLANE > 0 ? MRVL_CONV_TRANSPOSED_DEEP_PLANE : 1], plane = volume3(p->in);
    int64_t positions = volume3(p->out), pitch = conv_transposed_pitch(cg), c0 = 0;
    conv_strided_positions(p, at);
    for (; c0 + 8 <= cg; c0 += 8)
        for (int64_t o = 0; o < positions; o++)
            for (int c = 0; c < 8; c++) xt[o * pitch + c0 + c] = x[(c0 + c) * plane + at[o]];
    for (; c0 < cg; c0++)
        for (int64_t o = 0; o < positions; o++) xt[o * pitch + c0] = x[c0 * plane + at[o]];
}

/* Floats of scratch mrvl_conv_f32 needs: the padded input of a group (when it pads), its
 * transposed input (conv_transposes_input) or its subsampled input (conv_subsamples_input),
 * and the tap table (plan-host-memory reserves the same: target/host_kernels.py
 * conv_scratch_floats). */
static int64_t conv_scratch_floats(const mrvl_conv_params *p)
{
    int64_t dims[MRVL_SPATIAL];
    int padded = conv_read_extent(p, dims);
    int64_t cg = p->c / p->group;
    int64_t copy = padded                     ? cg * volume3(dims)
                   : conv_transposes_input(p) ? conv_transposed_pitch(cg) * volume3(p->out)
                   : conv_subsamples_input(p) ? cg * volume3(p->out)
                                              : 0;
    return copy + cg * volume3(p->kernel);
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
    int padded = conv_read_extent(p, dims), transposed = conv_transposes_input(p);
    int subsampled = conv_subsamples_input(p);
    int64_t stride[MRVL_SPATIAL] = {p->stride[0], p->stride[1], p->stride[2]};
    if (transposed || subsampled) /* copied at the output's positions */
        for (int i = 0; i < MRVL_SPATIAL; i++) dims[i] = p->out[i], stride[i] = 1;
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
    int64_t copy = padded || subsampled ? cg * pplane : transposed ? conv_transposed_pitch(cg) * pplane : 0;
    int32_t *tap = (int32_t *)(void *)(scratch + copy);
    int64_t row = 0;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t kz = 0; kz < k[0]; kz++)
            for (int64_t ky = 0; ky < k[1]; ky++)
                for (int64_t kx = 0; kx < k[2]; kx++)
                    tap[row++] = (int32_t)(transposed ? c : c * pplane + (kz * d[0] * dims[1] + ky * d[1]) * dims[2] +
                                                                kx * d[2]);
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            const float *base = x + (n * p->c + g * cg) * plane;
            const float *wg = packed + g * conv_packed_group_floats(mg, depth);
            float *yg = y + n * conv_y_batch(p) + g * mg * positions;
            if (padded) {
                conv_pad_input(p, cg, base, dims, xpad);
                base = xpad;
            } else if (transposed) {
                conv_transpose_input(p, cg, base, xpad);
                base = xpad;
            } else if (subsampled) {
                conv_subsample_input(p, cg, base, xpad);
                base = xpad;
            }
            conv_tiles_args args = {p, base, {dims[0], dims[1], dims[2]}, {stride[0], stride[1], stride[2]}, tap,
                                    transposed ? conv_transposed_pitch(cg) : 1, depth, mg, positions, channel_major,
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
 * them.
 *
 * A 1x1 conv of stride 1 reads its input in place: it is its own flat layout. So does a padded
 * conv of stride 1 whose output is its input's size, when its input is too large for its copy
 * to stay in the caches (flat_rows_in_place): its flat rows are the input's own (no junk
 * columns), the tiles that would read before the plane or past it read copies of its first and
 * last rows with zeros around, and a tile with lanes whose kernel columns reach across a row's
 * left or right end (into the row before or after) zeros those lanes by a mask per kernel
 * column, as the padding would: the same sums in the same order as from the copy. */

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

/* The flat offsets of a conv read in place by rows (flat_rows_in_place) from an output
 * position to the inputs its window reads: from *nearest (the first tap's, <= 0) to
 * *farthest (the last one's, >= 0). */
static void flat_rows_reach(const mrvl_conv_params *p, int64_t *nearest, int64_t *farthest)
{
    const int64_t *k = p->kernel, *d = p->dilation, *pad = p->pad, w = p->in[2];
    *nearest = -pad[1] * w - pad[2];
    *farthest = ((k[1] - 1) * d[1] - pad[1]) * w + (k[2] - 1) * d[2] - pad[2];
}

/* Whether the flat conv can read a padded conv's input in place, with the input's rows as
 * the flat rows (no junk columns, no copy): a 2-d conv of stride 1 whose output is its input's
 * size (padded as far as its kernel reaches), its group's input more than
 * MRVL_FLAT_ROWS_FLOATS, on a plane that the tiles reading its first and last rows (from
 * copies, zeros around) do not overlap on. A tile's lanes whose kernel columns reach across
 * the plane's left or right edge (into the row before or after) are masked to zeros per kernel
 * column, as the padding would be. */
static int flat_rows_fit(const mrvl_conv_params *p)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride;
    int64_t nearest, farthest;
    if (in[0] != 1 || out[0] != 1 || k[0] != 1 || s[1] != 1 || s[2] != 1 || out[1] != in[1] || out[2] != in[2] ||
        (p->pad[1] == 0 && p->pad[2] == 0) || p->c / p->group * volume3(in) <= MRVL_FLAT_ROWS_FLOATS)
        return 0;
    flat_rows_reach(p, &nearest, &farthest);
    return volume3(in) >= farthest - nearest + 2 * MRVL_FLAT_WIDEST_TILE;
}

/* Whether the flat conv reads a conv's input in place by rows: where it fits and the target
 * reads so (MRVL_FLAT_ROWS). */
static int flat_rows_in_place(const mrvl_conv_params *p)
{
    return MRVL_FLAT_ROWS && flat_rows_fit(p);
}

/* Floats per input channel of each of the two copies a conv read in place by rows takes
 * (its first and its last tiles' floats, zeros around): enough for any tile up to
 * MRVL_FLAT_TILE. */
static int64_t flat_rows_edge_floats(const mrvl_conv_params *p)
{
    int64_t nearest, farthest;
    flat_rows_reach(p, &nearest, &farthest);
    return 2 * (farthest - nearest) + 2 * MRVL_FLAT_TILE;
}

/* Floats of scratch mrvl_flat_conv_f32 needs (target/host_kernels.py
 * flat_scratch_floats): a group's input in the flat layout, a tile of zeros after it (the
 * last tile's dropped positions read that far), and the tap table; in place, the tail of each
 * input channel (flat_tail_floats) and two tap tables, the input's and the tail's. Where it
 * can read in place by rows (flat_rows_fit), as much more for that, whether the target does or
 * not: the head and the tail of each input channel (flat_rows_edge_floats), three tap tables
 * (the input's, the copies' and the masks') and the masks of a row and a tile per kernel
 * column. */
static int64_t flat_scratch_floats(const mrvl_conv_params *p)
{
    int64_t q[MRVL_SPATIAL], phases, channel_floats, cg = p->c / p->group;
    flat_layout(p, q, &phases, &channel_floats);
    int64_t rows = flat_rows_fit(p) ? 2 * cg * flat_rows_edge_floats(p) + 3 * cg * volume3(p->kernel) +
                                          p->kernel[2] * (p->in[2] + MRVL_FLAT_WIDEST_TILE)
                                    : 0;
    if (flat_in_place(p, q)) return cg * flat_tail_floats(p, q) + 2 * cg * volume3(p->kernel);
    return rows + cg * channel_floats + MRVL_FLAT_TILE + cg * volume3(p->kernel);
}

/* What the parts of one image and group of mrvl_flat_conv_f32 read and write. */
typedef struct {
    const mrvl_conv_params *p;
    const float *x;               /* the group's input */
    float *flat;                  /* it in the flat layout (flat_copy) */
    const float *src;             /* what the tiles read: flat, or x in place */
    int64_t q[MRVL_SPATIAL], channel_floats;
    const int32_t *tap;           /* the tap table */
    const float *tail;            /* in place: the last tiles' floats of each channel (else NULL) */
    const int32_t *tail_tap;      /* and their tap table */
    int64_t depth, mg, blocks, count; /* blocks of MRVL_FLAT_MR channels; flat positions */
    int channel_major;            /* the items channel block after channel block (flat_tiles) */
    int chunked;                  /* whole tiles summed in depth chunks over groups of blocks (flat_tiles) */
    const float *w, *b, *r;       /* the group's packed weights, bias, residual (b, r may be NULL) */
    const float *slope;           /* the group's PRelu slopes (may be NULL) */
    const float *scale, *shift;   /* the group's per-channel scale and shift (may be NULL) */
    float *y;                     /* the group's output */
    int64_t tail_start;           /* the flat position the tail copy starts at (tiles from there read it) */
    const float *head;            /* in place by rows: the first tiles' floats of each channel (else NULL), */
    int64_t head_end;             /* for the tiles before this flat position, read by tail_tap too */
    const int32_t *mask_tap;      /* in place by rows: each tap's masks (its kernel column's) in masks */
    const int32_t *masks;         /* per kernel column, the masks of lanes from output column 0 on
                                     (flat_rows_conv), those of a tile from its first lane's column on */
} flat_args;

/* An expanding in-place flat conv of more output planes and floats a group than these takes
 * its items channel-major (mrvl_flat_conv_f32); the floats are the L2 cache of the cores it was
 * timed on (fewer planes or a smaller output ran faster position-major). */
#define MRVL_FLAT_CHANNEL_MAJOR_PLANES 64
#define MRVL_FLAT_CHANNEL_MAJOR_FLOATS (1 << 19)

/* Column phases whose valid columns flat_copy works out once (more: per row). */
#define MRVL_FLAT_COPY_PHASES 8

/* Input channels [c0, c1) of the group into the flat layout, zeros where the phases reach
 * past the input (the padding); along a dim the kernel is 1 wide, phase 0 only (no tap reads
 * the others, whose floats only dropped positions read: a strided 1x1 conv copies one phase of
 * s0 s1 s2). Row by padded row, each input row read once for all its column phases; the rows'
 * phases and the columns each phase takes are counted, not divided out per row (small planes
 * have many short rows). */
static void flat_copy(const void *ctx, int64_t c0, int64_t c1)
{
    const flat_args *a = ctx;
    const int64_t *in = a->p->in, *s = a->p->stride, *pad = a->p->pad, *q = a->q, *k = a->p->kernel;
    int64_t phase_floats = volume3(q), columns = k[2] == 1 ? 1 : s[2]; /* the column phases read */
    /* Column j of phase px reads input column j * s2 + px - pad2: those in [lo, hi). */
    int64_t lo[MRVL_FLAT_COPY_PHASES], hi[MRVL_FLAT_COPY_PHASES];
    for (int64_t px = 0; px < s[2] && px < MRVL_FLAT_COPY_PHASES; px++)
        valid_range(q[2], in[2], s[2], px - pad[2], &lo[px], &hi[px]);
    for (int64_t c = c0; c < c1; c++) {
        const float *plane = a->x + c * volume3(in);
        float *flat = a->flat + c * a->channel_floats;
        for (int64_t z = 0; z < q[0] * s[0]; z++) {
            int64_t iz = z - pad[0], yp = 0, yq = 0; /* y = yq * s1 + yp */
            if (k[0] == 1 && z % s[0]) continue;
            for (int64_t y = 0; y < q[1] * s[1]; y++) {
                int64_t iy = y - pad[1];
                if (k[1] == 1 && yp) {
                    if (++yp == s[1]) yp = 0, yq++;
                    continue;
                }
                int inside = iz >= 0 && iz < in[0] && iy >= 0 && iy < in[1];
                const float *src = inside ? plane + (iz * in[1] + iy) * in[2] : plane;
                float *row = flat + (z % s[0] * s[1] + yp) * s[2] * phase_floats + (z / s[0] * q[1] + yq) * q[2];
                for (int64_t px = 0; px < columns; px++, row += phase_floats) {
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

/* sum[i][v] += in[v] * w[i] for the MRVL_FLAT_MR rows of a flat tile (vecs vectors each), in
 * order; vec is the caller's vector type. The weights broadcast from memory on x86; on AArch64
 * (MRVL_FLAT_WEIGHT_LANES) loaded as vectors and multiplied by their lanes (fmla by element).
 * A macro, so that in, sum and the weights stay the caller's registers. */
#if MRVL_FLAT_WEIGHT_LANES
#define MRVL_FLAT_ROWS_FMA(vecs, in, w, sum)                                                              \
    do {                                                                                                  \
        vec wv_[MRVL_FLAT_MR / MRVL_GEMM_VECTOR_FLOATS];                                                  \
        MRVL_UNROLL for (int q_ = 0; q_ < MRVL_FLAT_MR / MRVL_GEMM_VECTOR_FLOATS; q_++)                   \
            wv_[q_] = *(const vec *)(const void *)((w) + q_ * MRVL_GEMM_VECTOR_FLOATS);                   \
        MRVL_UNROLL for (int i_ = 0; i_ < MRVL_FLAT_MR; i_++) {                                          \
            float wt_ = wv_[i_ / MRVL_GEMM_VECTOR_FLOATS][i_ % MRVL_GEMM_VECTOR_FLOATS];                  \
            for (int v_ = 0; v_ < (vecs); v_++) (sum)[i_][v_] += (in)[v_] * wt_;                          \
        }                                                                                                 \
    } while (0)
#else
#define MRVL_FLAT_ROWS_FMA(vecs, in, w, sum)                                                              \
    do {                                                                                                  \
        MRVL_UNROLL for (int i_ = 0; i_ < MRVL_FLAT_MR; i_++) {                                          \
            float wt_ = (w)[i_];                                                                          \
            for (int v_ = 0; v_ < (vecs); v_++) (sum)[i_][v_] += (in)[v_] * wt_;                          \
        }                                                                                                 \
    } while (0)
#endif

/* acc[i][j] = bias[i] + the sum over r < depth of x[tap[r] + j] * w[r * MRVL_CONV_PANEL + i]
 * for the MRVL_FLAT_MR x MRVL_FLAT_TILE tile, in registers (from init[i][j] instead of the
 * bias when init is not NULL: the sums of the depth before, flat_depth_chunks; when masked,
 * x[tap[r] + j] read as 0 where mask[mask_tap[r] + j] is 0): each input vector feeds
 * MRVL_FLAT_MR multiply-adds and each broadcast weight `vecs` (of MRVL_FLAT_VECTORS; a last
 * tile of fewer positions sums fewer vectors, bias in the rest), summed in order. With y (a
 * tile of MRVL_FLAT_VECTORS vectors that is one run of output positions), its first `channels`
 * rows are stored from the registers instead, to y (rows `positions` apart) plus the residual r
 * (laid out as y; may be NULL), then p's clamp and LeakyRelu (as conv_epilogue).
 * Always inlined with constant vecs and masked. */
static MRVL_ALWAYS_INLINE void flat_micro(int vecs, int masked, int64_t depth, const float *x, const int32_t *tap,
                                          const int32_t *mask_tap, const int32_t *mask, const float *w,
                                          const float *bias, const float *init,
                                          float acc[MRVL_FLAT_MR][MRVL_FLAT_TILE], float *y, const float *r,
                                          int64_t positions, int channels, const mrvl_conv_params *p)
{
    float low = y && p->clamp ? p->min : -INFINITY, high = y && p->clamp ? p->max : INFINITY;
    int leaky = y && p->activation == MRVL_EPILOGUE_LEAKY_RELU;
#if defined(__GNUC__)
    typedef float vec __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    typedef int32_t lanes __attribute__((vector_size(MRVL_GEMM_VECTOR_FLOATS * 4), aligned(4)));
    vec sum[MRVL_FLAT_MR][MRVL_FLAT_VECTORS];
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int v = 0; v < MRVL_FLAT_VECTORS; v++)
            sum[i][v] = init ? *(const pool_vec *)(const void *)(init + i * MRVL_FLAT_TILE +
                                                                 v * MRVL_GEMM_VECTOR_FLOATS)
                             : (vec){0} + bias[i];
    /* The loop's llvm-mca region, masked or not (benchmarks/n2_mca.py). */
#define MRVL_FLAT_MCA(MARK)                                                                                   \
    do {                                                                                                      \
        if (masked) MARK("conv_flat_masked", MRVL_FLAT_MR, vecs * MRVL_GEMM_VECTOR_FLOATS,                    \
                         MRVL_FLAT_MR * vecs * MRVL_GEMM_VECTOR_FLOATS);                                      \
        else MARK("conv_flat", MRVL_FLAT_MR, vecs * MRVL_GEMM_VECTOR_FLOATS,                                 \
                  MRVL_FLAT_MR * vecs * MRVL_GEMM_VECTOR_FLOATS);                                             \
    } while (0)
    MRVL_FLAT_MCA(MRVL_MCA_BEGIN);
    for (int64_t r = 0; r < depth; r++, w += MRVL_CONV_PANEL) {
        const float *xr = x + tap[r];
        vec in[MRVL_FLAT_VECTORS];
        const int32_t *mr = masked ? mask + mask_tap[r] : NULL;
        for (int v = 0; v < vecs; v++)
            in[v] = masked ? (vec)(*(const lanes *)(const void *)(mr + v * MRVL_GEMM_VECTOR_FLOATS) &
                                     *(const lanes *)(const void *)(xr + v * MRVL_GEMM_VECTOR_FLOATS))
                             : *(const vec *)(const void *)(xr + v * MRVL_GEMM_VECTOR_FLOATS);
        MRVL_FLAT_ROWS_FMA(vecs, in, w, sum);
    }
    MRVL_FLAT_MCA(MRVL_MCA_END);
#undef MRVL_FLAT_MCA
    if (y) {
        pool_vec lower = (pool_vec){0} + low, upper = (pool_vec){0} + high, zero = {0};
        /* Without a residual or a LeakyRelu (a stem's ReLU), a loop that tests neither per
         * vector: a shallow tile (a stem's 27 rows) feels its epilogue. */
        if (!r && !leaky) {
            MRVL_UNROLL for (int i = 0; i < MRVL_FLAT_MR; i++)
                if (i < channels)
                    for (int v = 0; v < MRVL_FLAT_VECTORS; v++)
                        *(vec *)(void *)(y + i * positions + v * MRVL_GEMM_VECTOR_FLOATS) =
                            pool_min(upper, pool_max(lower, sum[i][v]));
            return;
        }
        MRVL_UNROLL for (int i = 0; i < MRVL_FLAT_MR; i++)
            if (i < channels)
                for (int v = 0; v < MRVL_FLAT_VECTORS; v++) {
                    int64_t at = i * positions + v * MRVL_GEMM_VECTOR_FLOATS;
                    pool_vec o = sum[i][v];
                    if (r) o += *(const vec *)(const void *)(r + at);
                    o = pool_min(upper, pool_max(lower, o));
                    if (leaky) { /* prelu_value's parts, lane by lane */
                        pool_mask negative = (pool_mask)(o < zero);
                        o = pool_select(negative, zero, o) + p->alpha * pool_select(negative, o, zero);
                    }
                    *(vec *)(void *)(y + at) = o;
                }
        return;
    }
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int v = 0; v < MRVL_FLAT_VECTORS; v++)
            *(pool_vec *)(void *)(acc[i] + v * MRVL_GEMM_VECTOR_FLOATS) = sum[i][v];
#else
    (void)vecs;
    for (int i = 0; i < MRVL_FLAT_MR; i++)
        for (int j = 0; j < MRVL_FLAT_TILE; j++) acc[i][j] = init ? init[i * MRVL_FLAT_TILE + j] : bias[i];
    for (int64_t r = 0; r < depth; r++, w += MRVL_CONV_PANEL)
        for (int i = 0; i < MRVL_FLAT_MR; i++)
            for (int j = 0; j < MRVL_FLAT_TILE; j++)
                acc[i][j] += (masked && !mask[mask_tap[r] + j] ? 0.0f : x[tap[r] + j]) * w[i];
    if (y)
        for (int i = 0; i < channels; i++)
            for (int j = 0; j < MRVL_FLAT_TILE; j++) {
                float o = clamp_value(acc[i][j] + (r ? r[i * positions + j] : 0.0f), low, high);
                y[i * positions + j] = leaky ? prelu_value(o, p->alpha) : o;
            }
#endif
}

/* p's HardSwish or SiLU over `channels` rows of MRVL_FLAT_TILE floats at y (`positions`
 * apart), in place: inlined, where a call per row would cost as much as the rows. */
static void flat_activate_rows(const mrvl_conv_params *p, int channels, int64_t positions, float *y)
{
    for (int i = 0; i < channels; i++) {
        float *row = y + i * positions;
        if (p->activation == MRVL_EPILOGUE_HARD_SWISH)
            map_vectors(MRVL_FLAT_TILE, row, row, hard_swish_vec, 1.0f / 6.0f, 0.5f);
        else
            map_vectors(MRVL_FLAT_TILE, row, row, silu_vec, 0.0f, 0.0f);
    }
}

/* flat_micro with masks, of the vectors that hold the tile's `count` positions (stored from
 * the registers with y, as flat_tiles decides): a function of its own, so that its loops'
 * registers are allocated apart from flat_tiles' (in there, GCC kept a sum of the loop without
 * masks in memory). */
static MRVL_NOINLINE void flat_masked_micro(int64_t count, int64_t depth, const float *x, const int32_t *tap,
                                            const int32_t *mask_tap, const int32_t *mask, const float *w,
                                            const float *bias, float acc[MRVL_FLAT_MR][MRVL_FLAT_TILE], float *y,
                                            const float *r, int64_t positions, int channels,
                                            const mrvl_conv_params *p)
{
    if (y)
        flat_micro(MRVL_FLAT_VECTORS, 1, depth, x, tap, mask_tap, mask, w, bias, NULL, acc, y, r, positions, channels,
                   p);
    else if (count <= MRVL_GEMM_VECTOR_FLOATS)
        flat_micro(1, 1, depth, x, tap, mask_tap, mask, w, bias, NULL, acc, NULL, NULL, 0, 0, p);
    else if (count <= 2 * MRVL_GEMM_VECTOR_FLOATS)
        flat_micro(2, 1, depth, x, tap, mask_tap, mask, w, bias, NULL, acc, NULL, NULL, 0, 0, p);
    else flat_micro(MRVL_FLAT_VECTORS, 1, depth, x, tap, mask_tap, mask, w, bias, NULL, acc, NULL, NULL, 0, 0, p);
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

/* The first input channel of the last depth chunk of MRVL_FLAT_DEPTH_CHUNK (0 without them). */
static int64_t flat_last_chunk(int64_t depth)
{
#if MRVL_FLAT_DEPTH_CHUNK
    return (depth - 1) / MRVL_FLAT_DEPTH_CHUNK * MRVL_FLAT_DEPTH_CHUNK;
#else
    (void)depth;
    return 0;
#endif
}

/* The packed weights of the block of MRVL_FLAT_MR output channels from j0 (within its panel). */
static inline const float *flat_block_weights(const flat_args *a, int64_t j0)
{
    return a->w + j0 / MRVL_CONV_PANEL * a->depth * MRVL_CONV_PANEL + j0 % MRVL_CONV_PANEL;
}

/* For a whole tile (at src, its taps a->tap) of a conv in depth chunks (flat_args chunked),
 * channel blocks [start, end): part[jb - start] = the bias plus the sums over the depth
 * chunks of MRVL_FLAT_DEPTH_CHUNK before the last, chunk after chunk over the blocks, so that
 * a chunk's input lines stay in L1 while every block's weights pass over them. */
static void flat_depth_chunks(const flat_args *a, const float *src, int64_t start, int64_t end,
                              float part[][MRVL_FLAT_MR][MRVL_FLAT_TILE])
{
    int64_t last = flat_last_chunk(a->depth);
    for (int64_t k0 = 0; k0 < last; k0 += MRVL_FLAT_DEPTH_CHUNK) {
        for (int64_t jb = start; jb < end; jb++) {
            int64_t j0 = jb * MRVL_FLAT_MR;
            float bias[MRVL_FLAT_MR] = {0};
            if (a->b && k0 == 0)
                for (int i = 0; i < MRVL_FLAT_MR; i++) bias[i] = j0 + i < a->mg ? a->b[j0 + i] : 0.0f;
            const float *w = flat_block_weights(a, j0);
            flat_micro(MRVL_FLAT_VECTORS, 0, MRVL_FLAT_DEPTH_CHUNK, src, a->tap + k0, NULL, NULL,
                       w + k0 * MRVL_CONV_PANEL, bias, k0 ? part[jb - start][0] : NULL, part[jb - start], NULL, NULL,
                       0, 0, a->p);
        }
    }
}

/* Items [begin, end) of a group of mrvl_flat_conv_f32: item t * blocks + jb is flat tile t
 * (positions [t, t + 1) * MRVL_FLAT_TILE) of channel block jb, or with channel_major item
 * jb * tiles + t. With rows (a constant), of a conv read in place by rows (flat_rows_conv):
 * its first tiles read the head copy, its tiles whose lanes reach across a row's end are
 * masked. Always inlined, each way a loop of its own (flat_tiles, flat_rows_tiles): the tests
 * of the rows layout cost the copied convs' tiles 2% (x86-64-v3, stems of 3 channels). */
static MRVL_ALWAYS_INLINE void flat_items(int rows, const void *ctx, int64_t begin, int64_t end)
{
    const flat_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const int64_t *out = p->out, *q = a->q;
    int64_t positions = volume3(out), tile = -1, tiles = (a->count + MRVL_FLAT_TILE - 1) / MRVL_FLAT_TILE;
    /* The tile's runs of output positions: run k is acc[.][at[k]...] to output position
     * first[k] on, len[k] long (a run ends with its output row or the tile; rows without
     * junk columns after them, a kernel 1 wide, run on into the next). */
    int64_t row_junk = q[2] - out[2];
    int no_junk = !row_junk && q[1] == out[1]; /* flat positions are output positions (1x1 in place) */
    int64_t at[MRVL_FLAT_TILE], first[MRVL_FLAT_TILE], len[MRVL_FLAT_TILE];
    int runs = 0;
    /* In place by rows, the lanes of output columns [left, right) read inside the row with
     * every kernel column: a tile of only those needs no masks. */
    int64_t width = p->in[2], left = p->pad[2], right = width - ((p->kernel[2] - 1) * p->dilation[2] - p->pad[2]);
    const int32_t *mask_tap = NULL, *mask = NULL;
    /* The sums of a group of blocks of one tile over the depth chunks before the last. */
    float part[MRVL_FLAT_DEPTH_CHUNK ? MRVL_FLAT_CHUNK_BLOCKS : 1][MRVL_FLAT_MR][MRVL_FLAT_TILE] MRVL_POOL_ALIGNED;
    int64_t group_tile = -1, group_start = 0, group_end = 0;
    for (int64_t item = begin; item < end; item++) {
        int64_t t = a->channel_major ? item % tiles : item / a->blocks;
        int64_t j0 = (a->channel_major ? item / tiles : item % a->blocks) * MRVL_FLAT_MR;
        int64_t i0 = t * MRVL_FLAT_TILE, i1 = min_i64(i0 + MRVL_FLAT_TILE, a->count);
        if (t != tile) {
            tile = t;
            runs = 0;
            mask_tap = NULL;
            int64_t column = rows ? i0 % width : 0;
            if (rows && (column < left || column + MRVL_FLAT_TILE > right))
                mask_tap = a->mask_tap, mask = a->masks + column;
            if (no_junk) at[0] = 0, first[0] = i0, len[0] = i1 - i0, runs = 1;
            for (int64_t i = no_junk ? i1 : i0; i < i1;) {
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
        float bias[MRVL_FLAT_MR] = {0}, acc[MRVL_FLAT_MR][MRVL_FLAT_TILE] MRVL_POOL_ALIGNED;
        if (a->b)
            for (int i = 0; i < MRVL_FLAT_MR; i++) bias[i] = i < channels ? a->b[j0 + i] : 0.0f;
        /* In place, the tiles that would read before or past the input read copies. */
        const float *src = a->src + i0, *w;
        const int32_t *tap = a->tap;
        if (rows && i0 < a->head_end) src = a->head + i0, tap = a->tail_tap;
        else if (a->tail && i0 >= a->tail_start) src = a->tail + (i0 - a->tail_start), tap = a->tail_tap;
        w = flat_block_weights(a, j0);
        /* A whole tile of a conv in depth chunks: the group of blocks from this one on summed over
         * the chunks before the last, when the group starts here; this block's last chunk below. */
        int64_t k0 = 0;
        const float *init = NULL;
        if (MRVL_FLAT_DEPTH_CHUNK && a->chunked && tap == a->tap && !mask_tap && i1 - i0 == MRVL_FLAT_TILE) {
            int64_t jb = j0 / MRVL_FLAT_MR;
            if (t != group_tile || jb >= group_end) {
                group_tile = t, group_start = jb;
                group_end = min_i64(min_i64(jb + MRVL_FLAT_CHUNK_BLOCKS, a->blocks), jb + end - item);
                flat_depth_chunks(a, src, group_start, group_end, part);
            }
            k0 = flat_last_chunk(a->depth);
            init = part[jb - group_start][0];
        }
        /* The last tile sums only the vectors that hold positions (a 14 x 14 plane is 4 tiles
         * of 48 and 4 positions: 1 vector, not 3). One run of output positions needing at most
         * a residual, a clamp (a Relu, a Clip) and a LeakyRelu is stored from the registers; a
         * HardSwish or SiLU then runs over the rows stored, in L1. */
        int activated = p->activation == MRVL_EPILOGUE_HARD_SWISH || p->activation == MRVL_EPILOGUE_SILU;
        int stored = runs == 1 && len[0] == MRVL_FLAT_TILE && !a->scale && !a->shift &&
                     (p->activation == MRVL_EPILOGUE_NONE || p->activation == MRVL_EPILOGUE_LEAKY_RELU || activated);
        int64_t at0 = j0 * positions + first[0];
        if (mask_tap) {
            flat_masked_micro(i1 - i0, a->depth, src, tap, mask_tap, mask, w, bias, acc, stored ? a->y + at0 : NULL,
                              stored && a->r ? a->r + at0 : NULL, positions, channels, p);
            if (stored && activated) flat_activate_rows(p, channels, positions, a->y + at0);
            if (stored) continue;
        } else if (i1 - i0 <= MRVL_GEMM_VECTOR_FLOATS) {
            flat_micro(1, 0, a->depth, src, tap, NULL, NULL, w, bias, NULL, acc, NULL, NULL, 0, 0, p);
        } else if (i1 - i0 <= 2 * MRVL_GEMM_VECTOR_FLOATS) {
            flat_micro(2, 0, a->depth, src, tap, NULL, NULL, w, bias, NULL, acc, NULL, NULL, 0, 0, p);
        } else if (stored) {
            /* This task's items of the tile's later channel blocks follow in this loop, without
             * each item's setup above, which a shallow tile (a stem's 27 rows) feels; with
             * partial sums (init), this block only. */
            int64_t last = init || a->channel_major ? item : min_i64(end, item + a->blocks - j0 / MRVL_FLAT_MR) - 1;
            for (;;) {
                /* Position-major, the block's rows of the next tile: the residual's lines to read
                 * and the output's to write, asked for a tile ahead (a row per plane of every
                 * block: more streams than the hardware prefetchers follow). */
                if (MRVL_FLAT_PREFETCH_NEXT_TILE && !a->channel_major && first[0] + 2 * MRVL_FLAT_TILE <= positions)
                    for (int i = 0; i < channels; i++) {
                        int64_t next = at0 + i * positions + MRVL_FLAT_TILE;
                        if (a->r) {
                            __builtin_prefetch(a->r + next);
                            __builtin_prefetch(a->r + next + MRVL_FLAT_TILE - 1);
                        }
                        __builtin_prefetch(a->y + next, 1);
                        __builtin_prefetch(a->y + next + MRVL_FLAT_TILE - 1, 1);
                    }
                /* Apart from the calls without partial sums, whose loop keeps its 12 sums in
                 * registers only so (AVX2: one more pointer live across it spilled a sum to the
                 * stack). */
                if (init)
                    flat_micro(MRVL_FLAT_VECTORS, 0, a->depth - k0, src, tap + k0, NULL, NULL,
                               w + k0 * MRVL_CONV_PANEL, bias, init, acc, a->y + at0, a->r ? a->r + at0 : NULL,
                               positions, channels, p);
                else
                    flat_micro(MRVL_FLAT_VECTORS, 0, a->depth, src, tap, NULL, NULL, w, bias, NULL, acc, a->y + at0,
                               a->r ? a->r + at0 : NULL, positions, channels, p);
                if (activated) flat_activate_rows(p, channels, positions, a->y + at0);
                if (item == last) break;
                item++, j0 += MRVL_FLAT_MR, at0 += MRVL_FLAT_MR * positions;
                channels = (int)min_i64(MRVL_FLAT_MR, a->mg - j0);
                for (int i = 0; i < MRVL_FLAT_MR; i++) bias[i] = a->b && i < channels ? a->b[j0 + i] : 0.0f;
                w = flat_block_weights(a, j0);
            }
            continue;
        } else if (init) {
            flat_micro(MRVL_FLAT_VECTORS, 0, a->depth - k0, src, tap + k0, NULL, NULL, w + k0 * MRVL_CONV_PANEL, bias,
                       init, acc, NULL, NULL, 0, 0, p);
        } else {
            flat_micro(MRVL_FLAT_VECTORS, 0, a->depth, src, tap, NULL, NULL, w, bias, NULL, acc, NULL, NULL, 0, 0, p);
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

static void flat_tiles(const void *ctx, int64_t begin, int64_t end)
{
    flat_items(0, ctx, begin, end);
}

static void flat_rows_tiles(const void *ctx, int64_t begin, int64_t end)
{
    flat_items(MRVL_FLAT_ROWS, ctx, begin, end);
}

/* mrvl_flat_conv_f32 of a conv it reads in place by rows (flat_rows_in_place): its flat
 * positions are its output positions. Per image and group, the head and the tail of each input
 * channel are copied (its floats that the first tiles and the last ones read, zeros before and
 * after the plane), then the tiles computed over the threads. */
static void flat_rows_conv(const mrvl_conv_params *p, const float *x, const float *packed, const float *b,
                           const float *r, float *y, float *scratch)
{
    const int64_t *k = p->kernel, *d = p->dilation, *in = p->in;
    int64_t cg = p->c / p->group, mg = p->m / p->group, plane = volume3(in), depth = cg * volume3(k);
    int64_t edge = flat_rows_edge_floats(p), nearest, farthest;
    flat_rows_reach(p, &nearest, &farthest);
    /* The tiles from head_end on read no float before the plane, those before tail_start none
     * past it. */
    int64_t head_end = (-nearest + MRVL_FLAT_TILE - 1) / MRVL_FLAT_TILE * MRVL_FLAT_TILE;
    int64_t tail_start = ((plane - MRVL_FLAT_TILE - farthest) / MRVL_FLAT_TILE + 1) * MRVL_FLAT_TILE;
    float *head = scratch, *tail = scratch + cg * edge;
    int32_t *tap = (int32_t *)(void *)(scratch + 2 * cg * edge), *edge_tap = tap + depth, *mask_tap = edge_tap + depth;
    /* Per kernel column, whether the lanes of output columns 0, 1, ... (over a row's end into
     * the next) read inside the row: a tile's masks from its first lane's column on. */
    int64_t period = in[2] + MRVL_FLAT_WIDEST_TILE;
    int32_t *masks = mask_tap + depth;
    for (int64_t kx = 0; kx < k[2]; kx++)
        for (int64_t j = 0, column = 0; j < period; j++, column = column + 1 == in[2] ? 0 : column + 1) {
            int64_t ix = column + kx * d[2] - p->pad[2];
            masks[kx * period + j] = ix >= 0 && ix < in[2] ? -1 : 0;
        }
    int64_t row = 0;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t ky = 0; ky < k[1]; ky++)
            for (int64_t kx = 0; kx < k[2]; kx++, row++) {
                int64_t offset = (ky * d[1] - p->pad[1]) * in[2] + kx * d[2] - p->pad[2];
                tap[row] = (int32_t)(c * plane + offset);
                edge_tap[row] = (int32_t)(c * edge + offset - nearest);
                mask_tap[row] = (int32_t)(kx * period);
            }
    int64_t blocks = (mg + MRVL_FLAT_MR - 1) / MRVL_FLAT_MR;
    int64_t items = (plane + MRVL_FLAT_TILE - 1) / MRVL_FLAT_TILE * blocks;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            float *yg = y + n * conv_y_batch(p) + g * mg * plane;
            const float *xg = x + (n * p->c + g * cg) * plane;
            for (int64_t c = 0; c < cg; c++)
                for (int64_t j = 0; j < edge; j++) {
                    int64_t from_head = j + nearest, from_tail = j + tail_start + nearest;
                    head[c * edge + j] = from_head >= 0 && from_head < plane ? xg[c * plane + from_head] : 0.0f;
                    tail[c * edge + j] = from_tail >= 0 && from_tail < plane ? xg[c * plane + from_tail] : 0.0f;
                }
            flat_args args = {p, xg, NULL, xg, {1, in[1], in[2]}, plane, tap, tail, edge_tap, depth, mg, blocks,
                              plane, 0, 0, packed + g * conv_packed_group_floats(mg, depth), b ? b + g * mg : NULL,
                              r ? r + (n * p->m + g * mg) * plane : NULL, p->slope ? p->slope + g * mg : NULL,
                              p->scale ? p->scale + g * mg : NULL, p->shift ? p->shift + g * mg : NULL, yg,
                              tail_start, head, head_end, mask_tap, masks};
            if (plane * mg * depth < MRVL_PARALLEL_MACS) flat_rows_tiles(&args, 0, items);
            else mrvl_parallel(items, flat_rows_tiles, &args);
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
    if (flat_rows_in_place(p)) {
        flat_rows_conv(p, x, packed, b, r, y, scratch);
        return;
    }
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
    /* Position-major, each tile writes a run into every one of the group's output planes;
     * channel-major, each block's planes are written in one sweep and the input is read again
     * per block. An expanding 1x1 conv read in place (few input channels: little to read
     * again, in few streams) of many planes whose output outgrows the caches goes
     * channel-major: all its planes written a run at a time cost it more than its
     * multiply-adds. So does a shallow stem (a copied conv whose flat input stays in L2 for
     * each block to read again, and whose tiles are too short to hide their stores' misses) of
     * at least as many planes whose output over its images outgrows the caches. */
    int64_t floats = mg * positions, most = MRVL_FLAT_CHANNEL_MAJOR_FLOATS, planes = MRVL_FLAT_CHANNEL_MAJOR_PLANES;
    int channel_major = in_place ? cg < mg && cg <= MRVL_FLAT_CHANNEL_MAJOR_DEPTH && mg > planes && floats > most
                                 : depth <= MRVL_FLAT_CHANNEL_MAJOR_STEM_DEPTH && mg >= planes && p->n * floats > most;
    /* Position-major, a deep 1x1 conv's tile (MRVL_FLAT_TILE positions of every input channel,
     * two lines a channel) outgrows L1 before the next channel block reads it again: the tiles
     * sum MRVL_FLAT_DEPTH_CHUNK channels at a time over groups of blocks. From 4 chunks on (128
     * channels, 16 KB a tile on AVX2): MobileNetV2's 64 -> 384 and 96 -> 576 at 14x14, whose
     * tiles stay in L1, ran 1.10-1.15x slower in chunks. */
    int chunked = MRVL_FLAT_DEPTH_CHUNK && volume3(k) == 1 && !channel_major &&
                  depth >= 4 * MRVL_FLAT_DEPTH_CHUNK && blocks > 1;
    int serial = positions * mg * depth < MRVL_PARALLEL_MACS;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            float *yg = y + n * conv_y_batch(p) + g * mg * positions;
            const float *xg = x + (n * p->c + g * cg) * plane;
            flat_args args = {p, xg, scratch, in_place ? xg : scratch, {q[0], q[1], q[2]}, channel_floats, tap,
                              tail, tail_tap, depth, mg, blocks, count, channel_major, chunked,
                              packed + g * conv_packed_group_floats(mg, depth), b ? b + g * mg : NULL,
                              r ? r + (n * p->m + g * mg) * positions : NULL, p->slope ? p->slope + g * mg : NULL,
                              p->scale ? p->scale + g * mg : NULL, p->shift ? p->shift + g * mg : NULL, yg,
                              last, NULL, 0, NULL, NULL};
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
