/* SPDX-License-Identifier: BSD-3-Clause */
/* The unit tests' one assertion: counts, reports file:line, and lets the test go on. */
#ifndef SL_CHECK_H
#define SL_CHECK_H

#include <stdio.h>

static int fails, runs;
#define CHECK(c)                                                                  \
	do {                                                                      \
		runs++;                                                           \
		if (!(c)) {                                                       \
			fails++;                                                  \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
		}                                                                 \
	} while (0)
/* The closing line CI reads: "N passed, N failed". */
#define CHECK_REPORT() (printf("%d passed, %d failed\n", runs - fails, fails), fails != 0)

#endif
