/* Per-thread scratch buffers (tbuf.h): one pthread key per slot, whose destructor frees the
 * buffer at thread exit, and an atexit handler for the thread that calls exit(). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "tbuf.h"
#include "common.h"

static pthread_key_t g_key[SK_TBUF_SLOTS];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_key_ok[SK_TBUF_SLOTS];
static _Thread_local float *t_buf[SK_TBUF_SLOTS];
static _Thread_local size_t t_cap[SK_TBUF_SLOTS]; /* floats */

/* The key destructor, at thread exit: the buffer of one slot (forgotten too, in case a later
   destructor of the same thread calls into the library). */
static void buf_destroy(void *p)
{
    for (int s = 0; s < SK_TBUF_SLOTS; s++)
        if (t_buf[s] == p) t_buf[s] = NULL, t_cap[s] = 0;
    free(p);
}

/* Key destructors do not run for the thread that calls exit(): free its buffers at exit. */
static void buf_atexit(void)
{
    for (int s = 0; s < SK_TBUF_SLOTS; s++) {
        if (!t_buf[s]) continue;
        pthread_setspecific(g_key[s], NULL);
        free(t_buf[s]);
        t_buf[s] = NULL;
        t_cap[s] = 0;
    }
}

static void key_init(void)
{
    int any = 0;
    for (int s = 0; s < SK_TBUF_SLOTS; s++)
        any |= g_key_ok[s] = pthread_key_create(&g_key[s], buf_destroy) == 0;
    if (any) atexit(buf_atexit);
}

#define BUF_MIN_FLOATS (64u << 10) /* 256 KiB: every small call fits the first allocation */

static _Thread_local int t_denied;

void sk_tbuf_deny(int on)
{
    t_denied = on;
}

float *sk_tbuf_get(sk_tbuf_slot slot, size_t n)
{
    if (SK_UNLIKELY(t_denied)) return NULL;
    if (SK_LIKELY(n <= t_cap[slot])) return t_buf[slot];
    pthread_once(&g_once, key_init);
    if (!g_key_ok[slot]) return NULL;
    if (n < BUF_MIN_FLOATS) n = BUF_MIN_FLOATS;
    if (n > (SIZE_MAX - 15) / sizeof(float)) return NULL;
    n = (n + 15) & ~(size_t)15;
    float *p = aligned_alloc(64, n * sizeof(float));
    if (!p) return NULL;
    if (pthread_setspecific(g_key[slot], p)) {
        free(p);
        return NULL;
    }
    free(t_buf[slot]);
    t_buf[slot] = p;
    t_cap[slot] = n;
    return p;
}
