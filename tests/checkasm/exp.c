/* checkasm: the exp family. (Placeholder: its issue fills it in.) */
#include "checkasm.h"

void ck_test_exp(void)
{
}
