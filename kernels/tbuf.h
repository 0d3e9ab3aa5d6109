/* Internal: per-thread scratch buffers, one per user (slot). A buffer is allocated on a thread's
 * first call that needs it, grows when a call needs more, and is freed when the thread exits (the
 * thread that calls exit() included). Workers of the caller's pool get their own. */
#ifndef SK_TBUF_H
#define SK_TBUF_H

#include <stddef.h>

typedef enum {
    SK_TBUF_GEMM, /* GEMM's packing buffers */
    SK_TBUF_ATTN, /* the fused attention core's contiguous copy of one head's K and V */
    SK_TBUF_SLOTS
} sk_tbuf_slot;

/* The calling thread's buffer of `slot`, at least n floats, 64-byte aligned; NULL when it cannot
   be allocated (the caller then takes a path without it). Valid until the same thread's next call
   for the same slot. */
float *sk_tbuf_get(sk_tbuf_slot slot, size_t n);

/* Tests only: while on != 0, sk_tbuf_get returns NULL on the calling thread (the paths taken
   without memory). */
void sk_tbuf_deny(int on);

#endif
