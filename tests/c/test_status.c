#include <string.h>

#include "check.h"
#include "posenc.h"

void test_status(void)
{
    CHECK(strcmp(posenc_strerror(POSENC_OK), "ok") == 0);
    CHECK(strstr(posenc_strerror(POSENC_ERR_SIZE_OVERFLOW), "overflow") != NULL);
    CHECK(strstr(posenc_strerror(POSENC_ERR_BUFFER_TOO_SMALL), "buffer") != NULL);
    CHECK(strstr(posenc_strerror(POSENC_ERR_NULL_POINTER), "NULL") != NULL);
    CHECK(strstr(posenc_strerror(POSENC_ERR_INVALID_ARGUMENT), "range") != NULL);
    CHECK(strcmp(posenc_strerror(12345), "unknown status") == 0);
}
