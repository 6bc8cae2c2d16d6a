/* mrvl_kernels_recurrent.c: recurrent layers: LSTM, GRU and RNN.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

static int64_t recurrent_gates(int kind) { return kind == MRVL_LSTM ? 4 : kind == MRVL_GRU ? 3 : 1; }

static int64_t round_up_i64(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/* Columns of R^T packed per step product: all gates, or for a GRU z and r (then h alone, as
 * its product reads r). */
static int64_t recurrent_packed_columns(const mrvl_recurrent_params *p)
{
    return p->kind == MRVL_GRU ? 2 * p->hidden : recurrent_gates(p->kind) * p->hidden;
}

/* Scratch floats of mrvl_recurrent_f32 (plan-host-memory reserves the same for the widest
 * tile: target/host_kernels.py recurrent_scratch_floats): one direction's input
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

/* x[0..n) rounded to the uint8 grid of its range (quantized as QuantizeLinear does, then
 * dequantized) into y: the hidden state onnxruntime's DynamicQuantizeLSTM multiplies. */
static void round_to_dynamic_u8_grid(int64_t n, const float *x, float *y)
{
    float s;
    uint8_t zp;
    dynamic_u8_grid(n, x, &s, &zp);
    const float z = (float)zp;
    for (int64_t i = 0; i < n; i++) {
        float q = rintf(x[i] / s) + z;
        q = q < 0.0f ? 0.0f : (q > 255.0f ? 255.0f : q);
        y[i] = (q - z) * s;
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
            const float *product_h = hs;
            if (lstm && p->quantized_hidden) {
                /* Each sample on its own grid, as onnxruntime with a thread per sample (it
                 * takes the range over ceil(batch / threads) samples at a time). */
                for (int64_t i = 0; i < batch; i++) round_to_dynamic_u8_grid(h, hs + i * h, extra + i * h);
                product_h = extra;
            }
            gemm_packed_b(batch, ncols, h, product_h, h, 1, rpack, h * MRVL_GEMM_NR, MRVL_GEMM_NR, gates, gh, NULL);
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
