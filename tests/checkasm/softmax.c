/* checkasm: the softmax family. (Placeholder: its issue fills it in.) */
#include "checkasm.h"

void ck_test_softmax(void)
{
}
