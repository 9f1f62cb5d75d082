#include <stdint.h>

#include "check.h"
#include "posenc.h"

void test_relative(void)
{
    int32_t m[4 * 6];
    CHECK(posenc_relative_positions(m, 24, 4, 6, 50) == POSENC_OK);
    int ok = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            ok &= m[i * 6 + j] == j - i + 50;
    CHECK(ok);
    m[0] = 7;
    CHECK(posenc_relative_positions(m, 23, 4, 6, 0) == POSENC_ERR_BUFFER_TOO_SMALL);
    CHECK(posenc_relative_positions(m, 24, 4, 6, INT32_MAX) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_relative_positions(m, 24, 4, 6, INT32_MIN) == POSENC_ERR_INVALID_ARGUMENT);
    CHECK(posenc_relative_positions(m, 24, SIZE_MAX / 2, 6, 0) == POSENC_ERR_SIZE_OVERFLOW);
    CHECK(posenc_relative_positions(NULL, 24, 4, 6, 0) == POSENC_ERR_NULL_POINTER);
    CHECK(m[0] == 7);
    CHECK(posenc_relative_positions(m, 1, 1, 1, INT32_MIN) == POSENC_OK && m[0] == INT32_MIN);
    CHECK(posenc_relative_positions(m, 0, 0, 6, 0) == POSENC_OK);
}
