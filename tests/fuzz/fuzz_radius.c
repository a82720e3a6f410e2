/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: arbitrary bytes through the RADIUS decoders (an Access-Accept's attributes, a
 * Disconnect- or CoA-Request's), ASan watching every attribute's bounds. */
#include "fuzz.h"
#include "../../src/bng/radius.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_radius_decode(data, size);
	return 0;
}
