// Benchmarks: the attention family. (Placeholder: its issue fills it in.)
#include "bench_util.h"

void sk_register_attention_benchmarks() {}
