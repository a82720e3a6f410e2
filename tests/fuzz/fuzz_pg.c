/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: arbitrary packet-generator stream definitions; whatever parses must build
 * packets inside their bounds (ASan watches the template and the frame buffer), whose RSS
 * hash reads only their bytes. */
#include "fuzz.h"
#include "../../src/cli/cli.h"
#include "../../src/pg/pg.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1024)
		return 0;
	char line[1030], *argv[SL_CLI_MAX_ARGS], err[256];
	memcpy(line, data, size);
	line[size] = 0;
	if (strstr(line, "pcap")) /* no files */
		return 0;
	int argc = sl_cli_tokenize(line, argv, SL_CLI_MAX_ARGS);
	if (argc < 0)
		return 0;
	struct sl_pg_stream s;
	if (sl_pg_parse(&s, argc, argv, err, sizeof(err)) == 0) {
		uint8_t *buf = malloc(SL_PG_MAX_FRAME);
		for (uint64_t seq = 0; seq < 4; seq++) {
			uint16_t len = sl_pg_build(&s, seq * 7919, buf);
			if (len < s.size_min || len > s.size_max)
				abort();
			/* the RSS hash over the frame, in a copy of its exact length (ASan: no
			 * read past it), as from ethernet-input and as from ip4-input */
			uint8_t *f = malloc(len ? len : 1);
			memcpy(f, buf, len);
			uint32_t h;
			(void)sl_pg_rss(f, len, true, &h);
			(void)sl_pg_rss(f, len, false, &h);
			free(f);
		}
		free(buf);
	}
	sl_pg_free(&s);
	return 0;
}
