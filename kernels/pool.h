/* Internal: running the tasks of one call on the caller's thread pool (sk_threadpool). */
#ifndef SK_POOL_H
#define SK_POOL_H

#include <stddef.h>
#include "simdkern.h"

/* 1 when tp is acceptable: NULL, or a parallel_for and n_threads >= 1. */
static inline int sk_tp_ok(const sk_threadpool *tp)
{
    return !tp || (tp->parallel_for && tp->n_threads);
}

/* How many tasks may run at once (1 for NULL). */
static inline size_t sk_tp_threads(const sk_threadpool *tp)
{
    return tp && tp->n_threads > 1 ? tp->n_threads : 1;
}

/* fn(arg, t) for every t < n: on the pool when it has more than one thread and n > 1, else in
   order on the calling thread. */
static inline void sk_tp_run(const sk_threadpool *tp, size_t n, sk_task_fn fn, void *arg)
{
    if (n > 1 && sk_tp_threads(tp) > 1) {
        tp->parallel_for(tp->pool, n, fn, arg);
        return;
    }
    for (size_t t = 0; t < n; t++) fn(arg, t);
}

/* Most tasks one call is split into (a pool may claim any n_threads). */
#define SK_TASKS_MAX 1024

/* Scale of every family's smallest task (1 by default). Tests set it to 0 before their first call
   so that small shapes split too (every task boundary gets exercised); nothing else writes it. */
extern double sk_tp_min_work_scale;
void sk_tp_set_min_work_scale(double s);

/* Tasks per thread of a large call: a pool that hands tasks to the threads as they free up
   (pthreadpool's work stealing, OpenMP's dynamic schedule) then evens out threads that run at
   different speeds (a core loaded by another process, or shared with another VM), where one task
   per thread waits for the slowest. */
#define SK_TP_SPLIT 4

/* How many tasks of at least `min_work` work a call of `work` splits into on tp (>= 1): up to
   SK_TP_SPLIT per thread, a multiple of the threads when there are more tasks than threads (equal
   tasks then keep every thread busy to the end), fewer than the threads only when the work is
   too small to feed them all. */
static inline size_t sk_tp_tasks(const sk_threadpool *tp, double work, double min_work)
{
    const size_t nt = sk_tp_threads(tp), t = nt < SK_TASKS_MAX ? nt : SK_TASKS_MAX;
    const double mw = min_work * sk_tp_min_work_scale;
    const double by_work = mw > 0. ? work / mw : (double)t * SK_TP_SPLIT;
    size_t n;
    if (by_work < (double)t) {
        n = (size_t)by_work;
    } else {
        const double per = by_work / (double)t;
        n = t * (per < SK_TP_SPLIT ? (size_t)per : SK_TP_SPLIT);
    }
    n = n < SK_TASKS_MAX ? n : SK_TASKS_MAX;
    return n ? n : 1;
}

/* Boundary i (0 <= i <= parts <= SK_TASKS_MAX) of `units` units split into `parts` near-equal
   runs (no overflow: the remainder term stays below parts^2). */
static inline size_t sk_part_bound(size_t units, size_t parts, size_t i)
{
    return units / parts * i + units % parts * i / parts;
}

#endif
