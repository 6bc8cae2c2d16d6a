/* mrvl_kernels_resize.c: Resize: nearest, linear and cubic, and the filtered resize
 * (antialias, tf_crop_and_resize).
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

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
 * float coordinate arithmetic is not repeated for every element. A block whose columns are
 * the source's own (channels last: the last dim is not resized) is one copy per row, and so
 * is a row with the same source row as the one before (an upsampled plane's repeated rows).
 * Float columns that take each source column twice in turn (a 2x upsample) are doubled four
 * at a time by shuffles (resize_double_columns), not gathered one by one. Rows lie p->out_row
 * elements apart (a slice of a concat's output), or follow each other. */
#define MRVL_RESIZE_COLUMNS 256

/* y[j] = x[j / 2] for j < n. */
static void resize_double_columns(float *restrict y, const float *restrict x, int64_t n)
{
    int64_t j = 0;
#if defined(__GNUC__)
    typedef float vec4 __attribute__((vector_size(16), aligned(4)));
    typedef int32_t ivec4 __attribute__((vector_size(16)));
    for (; j + 8 <= n; j += 8) {
        vec4 v = *(const vec4 *)(const void *)(x + j / 2);
        *(vec4 *)(void *)(y + j) = __builtin_shuffle(v, (ivec4){0, 0, 1, 1});
        *(vec4 *)(void *)(y + j + 4) = __builtin_shuffle(v, (ivec4){2, 2, 3, 3});
    }
#endif
    for (; j < n; j++) y[j] = x[j / 2];
}
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
    int64_t last = p->out_shape[r - 1], out_row = p->out_row ? p->out_row : last;
    for (int64_t j0 = 0; j0 < last; j0 += MRVL_RESIZE_COLUMNS) {
        int64_t cols = min_i64(MRVL_RESIZE_COLUMNS, last - j0), column[MRVL_RESIZE_COLUMNS];
        int64_t idx[MRVL_MAX_RANK] = {0};
        int own = 1, doubled = elem == 4;
        for (int64_t j = 0; j < cols; j++) {
            column[j] = nearest_source(p, r - 1, j0 + j);
            own &= column[j] == j0 + j;
            doubled &= column[j] == column[0] + j / 2;
        }
        int64_t part[MRVL_MAX_RANK] = {0}; /* each outer dim's share of the source offset, kept as idx moves */
        for (int d = 0; d + 1 < r; d++) part[d] = nearest_source(p, d, 0) * stride[d];
        for (int64_t row = 0, previous = -1; row < rows; row++) {
            int64_t src = 0;
            for (int d = 0; d + 1 < r; d++) src += part[d];
            char *o = out + (row * out_row + j0) * (int64_t)elem;
            if (src == previous) {
                memcpy(o, o - out_row * (int64_t)elem, (size_t)cols * elem);
            } else if (own) {
                memcpy(o, in + (src + j0) * (int64_t)elem, (size_t)cols * elem);
            } else if (doubled) {
                resize_double_columns((float *)(void *)o, (const float *)(const void *)in + src + column[0], cols);
            } else if (elem == 4) {
                const float *f = (const float *)(const void *)(in + src * 4);
                for (int64_t j = 0; j < cols; j++) ((float *)(void *)o)[j] = f[column[j]];
            } else {
                for (int64_t j = 0; j < cols; j++)
                    memcpy(o + j * (int64_t)elem, in + (src + column[j]) * (int64_t)elem, elem);
            }
            previous = src;
            for (int d = r - 2; d >= 0; d--) {
                int done = ++idx[d] < p->out_shape[d];
                if (!done) idx[d] = 0;
                part[d] = nearest_source(p, d, idx[d]) * stride[d];
                if (done) break;
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
 * target/host_kernels.py resize_filter_taps). */
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
