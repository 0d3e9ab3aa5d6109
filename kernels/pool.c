/* The task-size knob of pool.h (tests only). */
#include "pool.h"

double sk_tp_min_work_scale = 1.0;

void sk_tp_set_min_work_scale(double s)
{
    sk_tp_min_work_scale = s;
}
