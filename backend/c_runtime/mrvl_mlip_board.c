/* mrvl_mlip_board.c: the accelerator runner for the OCTEON 10 board (see mrvl_mlip_board.h).
 *
 * libmldpc's functions, as TVM's mrvl runtime resolved them (src/runtime/contrib/mrvl/mrvl_hw_runtime.cc):
 * init(argc, argv) once per process, finish() after the last model; model_load(buffer, size)
 * -> model id, model_unload(id); io_alloc(id, which, &size) of the four buffers of a model
 * (input quantized, input dequantized, output quantized, output dequantized), io_free;
 * quantize(id, float32 in, device out), dequantize(id, device in, float32 out);
 * run(id, input quantized, output quantized, batches).
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* dlopen, dlsym */
#endif

#include "mrvl_mlip_board.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrvl_kernels.h" /* MRVL_OK, MRVL_ERR_MLIP */

enum { IN_QUANTIZED, IN_DEQUANTIZED, OUT_QUANTIZED, OUT_DEQUANTIZED, BUFFERS };

typedef struct {
    void *handle;
    int (*init)(int argc, char *argv[]);
    int (*finish)(void);
    int (*model_load)(char *buffer, int size);
    int (*model_unload)(int model);
    void *(*io_alloc)(int model, int which, uint64_t *size);
    void (*io_free)(int model, int which, void *buffer);
    int (*quantize)(int model, void *dequantized, void *quantized);
    int (*dequantize)(int model, void *quantized, void *dequantized);
    int (*run)(int model, void *input, void *output, int batches);
} mldpc;

typedef struct {
    const mrvl_mlip_subgraph *subgraph;
    int model, loaded;
    void *buffer[BUFFERS];
    uint64_t size[BUFFERS];
} loaded_subgraph;

struct mrvl_mlip_board {
    int count;
    loaded_subgraph *subgraphs;
};

/* One library per process, shared by every board: opened and initialised by the first,
 * finished and closed by the last. */
static mldpc library;
static int boards_open;
static char last_error[512];

static int fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
    return MRVL_ERR_MLIP;
}

const char *mrvl_mlip_board_error(void) { return last_error; }

static int resolve(void *handle, const char *name, void *function_pointer)
{
    void *symbol = dlsym(handle, name);
    if (!symbol) return fail("libmldpc: no symbol %s", name);
    memcpy(function_pointer, &symbol, sizeof symbol); /* ISO C has no object-to-function cast */
    return MRVL_OK;
}

static int open_library(const char *path)
{
    mldpc lib;
    memset(&lib, 0, sizeof lib);
    lib.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) return fail("cannot open libmldpc %s: %s", path, dlerror());
    if (resolve(lib.handle, "mrvl_ml_init", &lib.init) || resolve(lib.handle, "mrvl_ml_finish", &lib.finish) ||
        resolve(lib.handle, "mrvl_ml_model_load", &lib.model_load) ||
        resolve(lib.handle, "mrvl_ml_model_unload", &lib.model_unload) ||
        resolve(lib.handle, "mrvl_ml_io_alloc", &lib.io_alloc) || resolve(lib.handle, "mrvl_ml_io_free", &lib.io_free) ||
        resolve(lib.handle, "mrvl_ml_model_quantize", &lib.quantize) ||
        resolve(lib.handle, "mrvl_ml_model_dequantize", &lib.dequantize) ||
        resolve(lib.handle, "mrvl_ml_model_run", &lib.run)) {
        dlclose(lib.handle);
        return MRVL_ERR_MLIP;
    }
    char name[] = "mrvl-xdsl";
    char *argv[] = {name, NULL};
    if (lib.init(1, argv) != 0) {
        dlclose(lib.handle);
        return fail("libmldpc %s: mrvl_ml_init failed", path);
    }
    library = lib;
    return MRVL_OK;
}

static int64_t total(const int64_t *counts, int n)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++) sum += counts[i];
    return sum;
}

/* The subgraph's binary, loaded, and its four buffers, checked against its interface. */
static int load_subgraph(loaded_subgraph *s, const char *bundle_dir)
{
    const char *symbol = s->subgraph->symbol;
    size_t length = strlen(bundle_dir) + 2 * strlen(symbol) + 16;
    char *path = (char *)malloc(length);
    if (!path) return fail("out of memory");
    snprintf(path, length, "%s/bin_%s/%s.bin", bundle_dir, symbol, symbol);
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (!f || size <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        fail("@%s: cannot read %s (run mrvl-tmlc on the bundle first: tmlc-commands.txt)", symbol, path);
        free(path);
        return MRVL_ERR_MLIP;
    }
    char *binary = (char *)malloc((size_t)size);
    int read_all = binary && fread(binary, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (!read_all || size > 0x7fffffffL) {
        free(binary);
        fail("@%s: cannot read %s", symbol, path);
        free(path);
        return MRVL_ERR_MLIP;
    }
    free(path);
    s->model = library.model_load(binary, (int)size);
    free(binary);
    if (s->model < 0) return fail("@%s: mrvl_ml_model_load failed (%d)", symbol, s->model);
    s->loaded = 1;
    uint64_t needed[BUFFERS] = {0, 4 * (uint64_t)total(s->subgraph->input_counts, s->subgraph->num_inputs), 0,
                                4 * (uint64_t)total(s->subgraph->output_counts, s->subgraph->num_outputs)};
    for (int which = 0; which < BUFFERS; which++) {
        s->buffer[which] = library.io_alloc(s->model, which, &s->size[which]);
        if (!s->buffer[which]) return fail("@%s: mrvl_ml_io_alloc of buffer %d failed", symbol, which);
        if (s->size[which] < needed[which])
            return fail("@%s: the model's buffer %d holds %llu bytes, its tensors %llu: a binary of another model?",
                        symbol, which, (unsigned long long)s->size[which], (unsigned long long)needed[which]);
    }
    return MRVL_OK;
}

void mrvl_mlip_board_close(mrvl_mlip_board *board)
{
    if (!board) return;
    for (int i = 0; i < board->count; i++) {
        loaded_subgraph *s = &board->subgraphs[i];
        for (int which = 0; which < BUFFERS; which++)
            if (s->buffer[which]) library.io_free(s->model, which, s->buffer[which]);
        if (s->loaded) library.model_unload(s->model);
    }
    free(board->subgraphs);
    free(board);
    if (--boards_open == 0) {
        library.finish();
        dlclose(library.handle);
        memset(&library, 0, sizeof library);
    }
}

int mrvl_mlip_board_open(mrvl_mlip_board **board, const char *bundle_dir, const char *library_path,
                         const mrvl_mlip_subgraph *subgraphs, int count)
{
    if (!board || !bundle_dir || count < 0 || (count > 0 && !subgraphs))
        return fail("mrvl_mlip_board_open: bad argument");
    *board = NULL;
    mrvl_mlip_board *b = (mrvl_mlip_board *)calloc(1, sizeof *b);
    loaded_subgraph *loaded = (loaded_subgraph *)calloc(count > 0 ? (size_t)count : 1, sizeof *loaded);
    if (!b || !loaded) {
        free(b);
        free(loaded);
        return fail("out of memory");
    }
    if (boards_open == 0) {
        const char *path = library_path ? library_path : getenv("MRVL_LIBMLDPC_PATH");
        if (open_library(path && *path ? path : MRVL_LIBMLDPC_DEFAULT) != MRVL_OK) {
            free(b);
            free(loaded);
            return MRVL_ERR_MLIP;
        }
    }
    boards_open++;
    b->subgraphs = loaded;
    for (int i = 0; i < count; i++) {
        b->count = i + 1;
        loaded[i].subgraph = &subgraphs[i];
        if (load_subgraph(&loaded[i], bundle_dir) != MRVL_OK) {
            char reason[sizeof last_error];
            memcpy(reason, last_error, sizeof reason);
            mrvl_mlip_board_close(b); /* what was loaded so far, and the library if it was the last */
            memcpy(last_error, reason, sizeof reason);
            return MRVL_ERR_MLIP;
        }
    }
    *board = b;
    return MRVL_OK;
}

int mrvl_mlip_board_run(void *ctx, const char *symbol, const void *const *inputs, void *const *outputs)
{
    mrvl_mlip_board *board = (mrvl_mlip_board *)ctx;
    loaded_subgraph *s = NULL;
    for (int i = 0; board && symbol && i < board->count; i++)
        if (strcmp(board->subgraphs[i].subgraph->symbol, symbol) == 0) s = &board->subgraphs[i];
    if (!s) return fail("@%s: not a subgraph of this board", symbol ? symbol : "(null)");
    const mrvl_mlip_subgraph *g = s->subgraph;
    /* One input is quantized where it is (libmldpc takes a non-const pointer and reads it). */
    void *dequantized = (void *)(uintptr_t)inputs[0];
    if (g->num_inputs > 1) {
        char *at = (char *)s->buffer[IN_DEQUANTIZED];
        for (int i = 0; i < g->num_inputs; i++) {
            memcpy(at, inputs[i], 4 * (size_t)g->input_counts[i]);
            at += 4 * g->input_counts[i];
        }
        dequantized = s->buffer[IN_DEQUANTIZED];
    }
    if (library.quantize(s->model, dequantized, s->buffer[IN_QUANTIZED]) != 0)
        return fail("@%s: mrvl_ml_model_quantize failed", g->symbol);
    if (library.run(s->model, s->buffer[IN_QUANTIZED], s->buffer[OUT_QUANTIZED], g->batch) != 0)
        return fail("@%s: mrvl_ml_model_run failed", g->symbol);
    void *out = g->num_outputs == 1 ? outputs[0] : s->buffer[OUT_DEQUANTIZED];
    if (library.dequantize(s->model, s->buffer[OUT_QUANTIZED], out) != 0)
        return fail("@%s: mrvl_ml_model_dequantize failed", g->symbol);
    if (g->num_outputs > 1) {
        const char *at = (const char *)s->buffer[OUT_DEQUANTIZED];
        for (int i = 0; i < g->num_outputs; i++) {
            memcpy(outputs[i], at, 4 * (size_t)g->output_counts[i]);
            at += 4 * g->output_counts[i];
        }
    }
    return 0;
}
