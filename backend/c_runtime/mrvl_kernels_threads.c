/* mrvl_kernels_threads.c: the thread pool the large kernels split their work over.
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

/* Threads the large kernels split their work over (the bundle's Makefile passes HOST_THREADS,
 * mrvl-compile --host-threads): the calling thread and MRVL_HOST_THREADS - 1 workers. */
#ifndef MRVL_HOST_THREADS
#define MRVL_HOST_THREADS 1
#endif
#if MRVL_HOST_THREADS > 1
#include <pthread.h>
#endif

/* A share of a kernel's work: the items [begin, end) of the `count` it splits. */
typedef void (*mrvl_task)(const void *ctx, int64_t begin, int64_t end);

#if MRVL_HOST_THREADS > 1
/* Chunks of a parallel call per thread. The threads claim the chunks in turn, so a thread that
 * starts late (woken from sleep, or waiting for a core another runs on) leaves its share to the
 * ones running instead of holding them up; the call's end waits only for chunks begun. More
 * chunks cost each task's set-up again (ResNet-50 on 2 threads, Zen 4, x86-64-v3: 45.7-46.1 ms
 * with 2 a thread, 46.2-47.0 with 4, 46.8-47.5 with 8). */
#ifndef MRVL_POOL_CHUNKS
#define MRVL_POOL_CHUNKS 2
#endif
#if MRVL_HOST_THREADS * MRVL_POOL_CHUNKS >= 0x10000
#error "a parallel call's chunks are counted in 16 bits"
#endif

/* Chunk `chunk` of `chunks` equal, contiguous parts of [0, count). Which items a chunk holds
 * depends on nothing but count, and each item is computed the same way wherever it runs, so
 * the output bits are the same for any thread count. */
static void mrvl_chunk(int64_t count, int64_t chunks, int64_t chunk, int64_t *begin, int64_t *end)
{
    *begin = count * chunk / chunks;
    *end = count * (chunk + 1) / chunks;
}

/* The pool: MRVL_HOST_THREADS - 1 workers, started once by the first parallel call and
 * spinning a little, then waiting on a condition variable between calls; static storage,
 * nothing allocated. One call at a time (`busy`), so two threads may run the model.
 *
 * `job` holds the call's generation (high 32 bits), its number of chunks (16) and its next
 * unclaimed chunk (low 16): a thread claims a chunk by one compare-and-swap of all three, so it
 * never runs a chunk of a call that has ended, whose fields the next call may be overwriting. */
static struct {
    pthread_once_t once;
    pthread_mutex_t busy, lock;
    pthread_cond_t start, done;
    pthread_t workers[MRVL_HOST_THREADS - 1];
    uint64_t job;
    int64_t finished; /* chunks of the current call run to their end */
    mrvl_task fn;
    const void *ctx;
    int64_t count;
} mrvl_pool = {.once = PTHREAD_ONCE_INIT, .busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER,
               .start = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

/* Spins (each a pause) a thread waits before it sleeps on a condition variable: a kernel
 * follows the last within microseconds, and waking a sleeping thread costs tens of them. */
#ifndef MRVL_POOL_SPINS
#define MRVL_POOL_SPINS 20000
#endif

static inline void mrvl_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline uint32_t mrvl_pool_generation(void)
{
    return (uint32_t)(__atomic_load_n(&mrvl_pool.job, __ATOMIC_ACQUIRE) >> 32);
}

/* Runs chunks of the call of `generation` until none is left to claim. A claim that succeeds
 * holds the call open until its chunk is done, so the fields read after it are the call's. */
static void mrvl_pool_claim(uint32_t generation, int caller)
{
    uint64_t job = __atomic_load_n(&mrvl_pool.job, __ATOMIC_ACQUIRE);
    while ((uint32_t)(job >> 32) == generation) {
        int64_t chunk = (int64_t)(job & 0xffff), chunks = (int64_t)(job >> 16 & 0xffff);
        if (chunk >= chunks) return;
        if (!__atomic_compare_exchange_n(&mrvl_pool.job, &job, job + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
            continue;
        int64_t begin, end;
        mrvl_chunk(__atomic_load_n(&mrvl_pool.count, __ATOMIC_RELAXED), chunks, chunk, &begin, &end);
        __atomic_load_n(&mrvl_pool.fn, __ATOMIC_RELAXED)(__atomic_load_n(&mrvl_pool.ctx, __ATOMIC_RELAXED), begin, end);
        if (__atomic_add_fetch(&mrvl_pool.finished, 1, __ATOMIC_ACQ_REL) == chunks && !caller) {
            pthread_mutex_lock(&mrvl_pool.lock);
            pthread_cond_signal(&mrvl_pool.done);
            pthread_mutex_unlock(&mrvl_pool.lock);
        }
        job = __atomic_load_n(&mrvl_pool.job, __ATOMIC_ACQUIRE);
    }
}

static void *mrvl_worker(void *arg)
{
    (void)arg;
    uint32_t seen = 0, generation = 0;
    for (;;) {
        for (int spin = 0; spin < MRVL_POOL_SPINS && (generation = mrvl_pool_generation()) == seen; spin++)
            mrvl_pause();
        if (generation == seen) {
            pthread_mutex_lock(&mrvl_pool.lock);
            while ((generation = mrvl_pool_generation()) == seen) pthread_cond_wait(&mrvl_pool.start, &mrvl_pool.lock);
            pthread_mutex_unlock(&mrvl_pool.lock);
        }
        seen = generation;
        mrvl_pool_claim(generation, 0);
    }
    return NULL;
}

static void mrvl_pool_start(void)
{
    for (int t = 1; t < MRVL_HOST_THREADS; t++)
        pthread_create(&mrvl_pool.workers[t - 1], NULL, mrvl_worker, NULL);
}
#endif

/* fn(ctx, begin, end) over [0, count) in chunks the calling thread and the pool's workers run
 * at once; returns when all are done. */
static void mrvl_parallel(int64_t count, mrvl_task fn, const void *ctx)
{
#if MRVL_HOST_THREADS > 1
    if (count > 1) {
        pthread_once(&mrvl_pool.once, mrvl_pool_start);
        pthread_mutex_lock(&mrvl_pool.busy);
        int64_t chunks = count < MRVL_HOST_THREADS * MRVL_POOL_CHUNKS ? count : MRVL_HOST_THREADS * MRVL_POOL_CHUNKS;
        uint32_t generation = mrvl_pool_generation() + 1;
        __atomic_store_n(&mrvl_pool.fn, fn, __ATOMIC_RELAXED);
        __atomic_store_n(&mrvl_pool.ctx, ctx, __ATOMIC_RELAXED);
        __atomic_store_n(&mrvl_pool.count, count, __ATOMIC_RELAXED);
        __atomic_store_n(&mrvl_pool.finished, 0, __ATOMIC_RELAXED);
        pthread_mutex_lock(&mrvl_pool.lock);
        __atomic_store_n(&mrvl_pool.job, (uint64_t)generation << 32 | (uint64_t)chunks << 16, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&mrvl_pool.start);
        pthread_mutex_unlock(&mrvl_pool.lock);
        mrvl_pool_claim(generation, 1);
        for (int spin = 0; spin < MRVL_POOL_SPINS && __atomic_load_n(&mrvl_pool.finished, __ATOMIC_ACQUIRE) < chunks;
             spin++)
            mrvl_pause();
        pthread_mutex_lock(&mrvl_pool.lock);
        while (__atomic_load_n(&mrvl_pool.finished, __ATOMIC_ACQUIRE) < chunks)
            pthread_cond_wait(&mrvl_pool.done, &mrvl_pool.lock);
        pthread_mutex_unlock(&mrvl_pool.lock);
        pthread_mutex_unlock(&mrvl_pool.busy);
        return;
    }
#endif
    if (count > 0) fn(ctx, 0, count);
}

/* Below this many multiply-adds a product is not split over threads: waking them costs more. */
#define MRVL_PARALLEL_MACS 200000
