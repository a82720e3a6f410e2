/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer's entry points, declared for -Wmissing-prototypes. */
#ifndef SL_FUZZ_H
#define SL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
