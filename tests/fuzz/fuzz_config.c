/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: arbitrary startup.conf text must parse or fail with a file:line message. */
#include "fuzz.h"
#include "../../src/config/config.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	static struct sl_config c;
	memcpy(text, data, size);
	text[size] = 0;
	sl_config_defaults(&c);
	if (sl_config_parse(&c, text, "fuzz.conf", err, sizeof(err)) != 0 &&
	    strncmp(err, "fuzz.conf:", 10) != 0)
		abort(); /* every error names the file and line */
	free(text);
	return 0;
}
