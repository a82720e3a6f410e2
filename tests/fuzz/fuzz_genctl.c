/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: sluice-gen's control-socket parser on arbitrary bytes. A parse that succeeds
 * must give keys and strings that are terminated and within bounds, and no duplicate key. */
#include "fuzz.h"
#include "../../gen/ctl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gen_ctl_req r;
	char err[128];
	char *copy = malloc(size ? size : 1); /* exact size: ASan sees any read past the end */
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (gen_ctl_parse(copy, size, &r, err, sizeof(err)) == 0) {
		if (r.n < 0 || r.n > GEN_CTL_MAX_KEYS)
			abort();
		for (int k = 0; k < r.n; k++) {
			if (strnlen(r.kv[k].key, sizeof(r.kv[k].key)) == sizeof(r.kv[k].key) ||
			    strnlen(r.kv[k].str, sizeof(r.kv[k].str)) == sizeof(r.kv[k].str) ||
			    !strchr("snbz", r.kv[k].type) || gen_ctl_get(&r, r.kv[k].key) != &r.kv[k])
				abort();
		}
	} else if (!err[0]) {
		abort(); /* a refusal always says why */
	}
	free(copy);
	return 0;
}
