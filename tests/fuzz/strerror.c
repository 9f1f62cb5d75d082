/* Fuzz target: posenc_strerror names every documented status and no other. */
#include <string.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    int status = (int)take_i32(&in);
    const char *text = posenc_strerror(status);
    int documented = status <= POSENC_OK && status >= POSENC_ERR_OUT_OF_MEMORY;
    FUZZ_ASSERT(text != NULL && text[0] != '\0');
    FUZZ_ASSERT(documented == (strcmp(text, "unknown status") != 0));
    return 0;
}
