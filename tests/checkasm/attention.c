/* checkasm: the attention family. (Placeholder: its issue fills it in.) */
#include "checkasm.h"

void ck_test_attention(void)
{
}
