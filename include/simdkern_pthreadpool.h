/* simdkern on a pthreadpool (https://github.com/google/pthreadpool, Debian: libpthreadpool-dev).
 *
 * Header-only: libsimdkern.a itself does not depend on pthreadpool; include this header (after
 * <pthreadpool.h> is reachable) and link -lpthreadpool in the program that uses it.
 *
 *     pthreadpool_t p = pthreadpool_create(0);               // 0: one thread per core
 *     sk_threadpool tp = sk_threadpool_from_pthreadpool(p);
 *     sk_sgemm_tp(&tp, SK_NOTRANS, SK_NOTRANS, m, n, k, 1.f, a, k, b, n, 0.f, c, n);
 *     pthreadpool_destroy(p);
 *
 * pthreadpool_parallelize_1d already takes tasks of the sk_task_fn signature. A NULL pthreadpool_t
 * is pthreadpool's "run on the calling thread": it gives a pool of one thread. */
#ifndef SIMDKERN_PTHREADPOOL_H
#define SIMDKERN_PTHREADPOOL_H

#include <pthreadpool.h>
#include "simdkern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The parallel_for of sk_threadpool on pthreadpool_parallelize_1d. */
static inline void sk_pthreadpool_parallel_for(void *pool, size_t n_tasks, sk_task_fn task,
                                               void *arg)
{
    pthreadpool_parallelize_1d((pthreadpool_t)pool, task, arg, n_tasks, 0);
}

/* An sk_threadpool that runs simdkern's tasks on p (n_threads: pthreadpool_get_threads_count). */
static inline sk_threadpool sk_threadpool_from_pthreadpool(pthreadpool_t p)
{
    sk_threadpool tp;
    tp.parallel_for = sk_pthreadpool_parallel_for;
    tp.pool = (void *)p;
    tp.n_threads = p ? pthreadpool_get_threads_count(p) : 1;
    if (tp.n_threads == 0) tp.n_threads = 1;
    return tp;
}

#ifdef __cplusplus
}
#endif
#endif /* SIMDKERN_PTHREADPOOL_H */
