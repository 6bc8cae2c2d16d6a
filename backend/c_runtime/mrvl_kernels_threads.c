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

/* Part `part` of MRVL_HOST_THREADS equal, contiguous parts of [0, count). Which thread takes
 * an item depends on nothing but count, and each item is computed the same way wherever it
 * runs, so the output bits are the same for any thread count. */
static void mrvl_part(int64_t count, int part, int64_t *begin, int64_t *end)
{
    *begin = count * part / MRVL_HOST_THREADS;
    *end = count * (part + 1) / MRVL_HOST_THREADS;
}

#if MRVL_HOST_THREADS > 1
/* The pool: MRVL_HOST_THREADS - 1 workers, started once by the first parallel call and
 * spinning a little, then waiting on a condition variable between calls; static storage,
 * nothing allocated. `generation` and `pending` are also read without the lock while
 * spinning (atomically; written under it). One call
 * at a time (`busy`), so two threads may run the model. */
static struct {
    pthread_once_t once;
    pthread_mutex_t busy, lock;
    pthread_cond_t start, done;
    pthread_t workers[MRVL_HOST_THREADS - 1];
    unsigned long generation; /* bumped by each call: a worker's signal to go */
    int pending;              /* workers still running the current call */
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

static void *mrvl_worker(void *arg)
{
    int part = (int)(intptr_t)arg;
    unsigned long seen = 0;
    for (;;) {
        for (int spin = 0; spin < MRVL_POOL_SPINS && __atomic_load_n(&mrvl_pool.generation, __ATOMIC_ACQUIRE) == seen;
             spin++)
            mrvl_pause();
        pthread_mutex_lock(&mrvl_pool.lock);
        while (mrvl_pool.generation == seen) pthread_cond_wait(&mrvl_pool.start, &mrvl_pool.lock);
        seen = mrvl_pool.generation;
        mrvl_task fn = mrvl_pool.fn;
        const void *ctx = mrvl_pool.ctx;
        int64_t begin, end;
        mrvl_part(mrvl_pool.count, part, &begin, &end);
        pthread_mutex_unlock(&mrvl_pool.lock);
        if (begin < end) fn(ctx, begin, end);
        pthread_mutex_lock(&mrvl_pool.lock);
        if (__atomic_sub_fetch(&mrvl_pool.pending, 1, __ATOMIC_RELEASE) == 0) pthread_cond_signal(&mrvl_pool.done);
        pthread_mutex_unlock(&mrvl_pool.lock);
    }
    return NULL;
}

static void mrvl_pool_start(void)
{
    for (int t = 1; t < MRVL_HOST_THREADS; t++)
        pthread_create(&mrvl_pool.workers[t - 1], NULL, mrvl_worker, (void *)(intptr_t)t);
}
#endif

/* fn(ctx, begin, end) over [0, count), split into MRVL_HOST_THREADS parts run at once (the
 * calling thread takes part 0); returns when all are done. */
static void mrvl_parallel(int64_t count, mrvl_task fn, const void *ctx)
{
#if MRVL_HOST_THREADS > 1
    if (count > 1) {
        pthread_once(&mrvl_pool.once, mrvl_pool_start);
        pthread_mutex_lock(&mrvl_pool.busy);
        pthread_mutex_lock(&mrvl_pool.lock);
        mrvl_pool.fn = fn;
        mrvl_pool.ctx = ctx;
        mrvl_pool.count = count;
        __atomic_store_n(&mrvl_pool.pending, MRVL_HOST_THREADS - 1, __ATOMIC_RELAXED);
        __atomic_store_n(&mrvl_pool.generation, mrvl_pool.generation + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&mrvl_pool.start);
        pthread_mutex_unlock(&mrvl_pool.lock);
        int64_t begin, end;
        mrvl_part(count, 0, &begin, &end);
        if (begin < end) fn(ctx, begin, end);
        for (int spin = 0; spin < MRVL_POOL_SPINS && __atomic_load_n(&mrvl_pool.pending, __ATOMIC_ACQUIRE); spin++)
            mrvl_pause();
        pthread_mutex_lock(&mrvl_pool.lock);
        while (mrvl_pool.pending) pthread_cond_wait(&mrvl_pool.done, &mrvl_pool.lock);
        pthread_mutex_unlock(&mrvl_pool.lock);
        pthread_mutex_unlock(&mrvl_pool.busy);
        return;
    }
#endif
    if (count > 0) fn(ctx, 0, count);
}

/* Below this many multiply-adds a product is not split over threads: waking them costs more. */
#define MRVL_PARALLEL_MACS 200000
