/* fake_mldpc.c: a stand-in for Marvell's libmldpc, with its nine functions, to test the board
 * runner (backend/c_runtime/mrvl_mlip_board.c) on a machine without MLIP.
 *
 * A model "binary" is the text `FAKEMLIP <symbol> <input floats> <output floats>`. The
 * "device format" is each float32 times 2, so a missed quantize or dequantize shows in the
 * results. A run dequantizes its input, calls the backend the test installs with
 * fake_mldpc_set_backend (which computes the subgraph), and quantizes the result. Every call
 * is appended to a log (fake_mldpc_log); fake_mldpc_fail(name) makes that call fail.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fake_backend)(const char *symbol, const float *input, float *output, int batches);

#define MAX_MODELS 64
typedef struct {
    char symbol[128];
    long inputs, outputs; /* floats */
    int loaded;
} fake_model;

static fake_model models[MAX_MODELS];
static int initialized;
static fake_backend backend;
static char log_text[1 << 16];
static char failing[64];

static void note(const char *format, ...)
{
    size_t used = strlen(log_text);
    va_list args;
    va_start(args, format);
    vsnprintf(log_text + used, sizeof log_text - used, format, args);
    va_end(args);
}

static int fails(const char *name) { return strcmp(failing, name) == 0; }

static fake_model *model(int id) { return id >= 0 && id < MAX_MODELS && models[id].loaded ? &models[id] : NULL; }

void fake_mldpc_set_backend(fake_backend fn) { backend = fn; }
const char *fake_mldpc_log(void) { return log_text; }
void fake_mldpc_reset(void)
{
    log_text[0] = '\0';
    failing[0] = '\0';
}
void fake_mldpc_fail(const char *name) { snprintf(failing, sizeof failing, "%s", name); }

int mrvl_ml_init(int argc, char *argv[])
{
    note("init %d %s\n", argc, argc > 0 ? argv[0] : "");
    if (initialized || fails("init")) return -1; /* once per process */
    initialized = 1;
    return 0;
}

int mrvl_ml_finish(void)
{
    note("finish\n");
    initialized = 0;
    return 0;
}

int mrvl_ml_model_load(char *buffer, int size)
{
    char text[256], symbol[128];
    long inputs, outputs;
    if (!initialized || size <= 0 || size >= (int)sizeof text) return -1;
    memcpy(text, buffer, (size_t)size);
    text[size] = '\0';
    if (sscanf(text, "FAKEMLIP %127s %ld %ld", symbol, &inputs, &outputs) != 3 || fails("load")) return -2;
    for (int id = 0; id < MAX_MODELS; id++) {
        if (!models[id].loaded) {
            snprintf(models[id].symbol, sizeof models[id].symbol, "%s", symbol);
            models[id].inputs = inputs, models[id].outputs = outputs, models[id].loaded = 1;
            note("load %s\n", symbol);
            return id;
        }
    }
    return -3;
}

int mrvl_ml_model_unload(int id)
{
    fake_model *m = model(id);
    if (!m) return -1;
    note("unload %s\n", m->symbol);
    m->loaded = 0;
    return 0;
}

void *mrvl_ml_io_alloc(int id, int which, uint64_t *size)
{
    fake_model *m = model(id);
    if (!m || which < 0 || which > 3 || fails("alloc")) return NULL;
    *size = 4 * (uint64_t)(which < 2 ? m->inputs : m->outputs);
    note("alloc %s %d\n", m->symbol, which);
    return calloc(1, (size_t)*size + 1);
}

void mrvl_ml_io_free(int id, int which, void *buffer)
{
    fake_model *m = model(id);
    note("free %s %d\n", m ? m->symbol : "?", which);
    free(buffer);
}

int mrvl_ml_model_quantize(int id, void *dequantized, void *quantized)
{
    fake_model *m = model(id);
    if (!m || fails("quantize")) return -1;
    for (long i = 0; i < m->inputs; i++) ((float *)quantized)[i] = 2.0f * ((const float *)dequantized)[i];
    note("quantize %s\n", m->symbol);
    return 0;
}

int mrvl_ml_model_dequantize(int id, void *quantized, void *dequantized)
{
    fake_model *m = model(id);
    if (!m || fails("dequantize")) return -1;
    for (long i = 0; i < m->outputs; i++) ((float *)dequantized)[i] = ((const float *)quantized)[i] / 2.0f;
    note("dequantize %s\n", m->symbol);
    return 0;
}

int mrvl_ml_model_run(int id, void *input, void *output, int batches)
{
    fake_model *m = model(id);
    if (!m || !backend || fails("run")) return -1;
    note("run %s %d\n", m->symbol, batches);
    float *in = (float *)malloc(4 * (size_t)m->inputs + 4), *out = (float *)calloc((size_t)m->outputs + 1, 4);
    for (long i = 0; i < m->inputs; i++) in[i] = ((const float *)input)[i] / 2.0f;
    int rc = backend(m->symbol, in, out, batches);
    for (long i = 0; i < m->outputs; i++) ((float *)output)[i] = 2.0f * out[i];
    free(in);
    free(out);
    return rc;
}
