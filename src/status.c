/* status.c: names for posenc_status codes. */
#include "posenc.h"

const char *posenc_strerror(int status)
{
    switch (status) {
    case POSENC_OK: return "ok";
    case POSENC_ERR_NULL_POINTER: return "a required pointer is NULL";
    case POSENC_ERR_INVALID_ARGUMENT: return "an argument is outside its documented range";
    case POSENC_ERR_SIZE_OVERFLOW: return "a size product overflows size_t";
    case POSENC_ERR_BUFFER_TOO_SMALL: return "the output buffer is smaller than required";
    case POSENC_ERR_OUT_OF_MEMORY: return "memory could not be allocated";
    default: return "unknown status";
    }
}
