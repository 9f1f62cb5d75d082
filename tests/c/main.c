/* main.c: runs every native test file and prints "c: N passed, N failed". */
#include <stdio.h>

#include "check.h"

int check_passed, check_failed;

void test_status(void);
void test_errors(void);
void test_sinusoidal(void);
void test_vision(void);
void test_relative(void);
void test_rope(void);
void test_rope_axes(void);
void test_rope_whole(void);
void test_biases(void);
void test_encoder(void);
void test_decoder(void);
void test_hardening(void);
void test_aliasing(void);
void test_anchors(void);
void test_kernels(void);
void test_block(void);
void test_half_weights(void);

int main(void)
{
    test_status();
    test_errors();
    test_sinusoidal();
    test_vision();
    test_relative();
    test_rope();
    test_rope_axes();
    test_rope_whole();
    test_biases();
    test_encoder();
    test_decoder();
    test_hardening();
    test_aliasing();
    test_anchors();
    test_kernels();
    test_block();
    test_half_weights();
    printf("c: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
