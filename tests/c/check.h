/* check.h: the smallest test harness that counts, for posenc's native tests. */
#ifndef POSENC_CHECK_H
#define POSENC_CHECK_H

#include <stdio.h>

extern int check_passed, check_failed;

/* Records one assertion; prints the failing expression with its location. */
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* Like CHECK, with a formatted explanation (values seen, index...). */
#define CHECKF(cond, ...)                                              \
    do {                                                               \
        if (cond) {                                                    \
            check_passed++;                                            \
        } else {                                                       \
            check_failed++;                                            \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                              \
            fputc('\n', stderr);                                       \
        }                                                              \
    } while (0)

#endif
