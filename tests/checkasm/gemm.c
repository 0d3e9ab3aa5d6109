/* checkasm: the gemm family. (Placeholder: its issue fills it in.) */
#include "checkasm.h"

void ck_test_gemm(void)
{
}
