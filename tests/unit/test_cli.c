/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the CLI: tokenizer, dispatch, help, errors, argument parsers, JSON output. */
#include "../common/check.h"
#include "../../src/cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int got_argc;
static char got_last[64];
static int fn_test(struct sl_out *o, int argc, char **argv)
{
	got_argc = argc;
	snprintf(got_last, sizeof(got_last), "%s", argc ? argv[argc - 1] : "");
	sl_tbl_begin(o, "rows", 2, (const char *[]){"name", "n:u"});
	sl_tbl_row(o, "a\"b", "42");
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(t1, .path = "test widget show", .usage = "[X]", .help = "h", .fn = fn_test)
SL_CLI_COMMAND(t2, .path = "test widget", .usage = "", .help = "h2", .fn = fn_test)

static char *run(const char *line, bool json, int *rc)
{
	struct sl_out o = {.json = json};
	size_t len;
	*rc = sl_cli_exec(&o, line);
	return sl_out_finish(&o, &len);
}

int main(void)
{
	char line[] = "  set  \"a b\"\tc # comment", *argv[8];
	CHECK(sl_cli_tokenize(line, argv, 8) == 3);
	CHECK(!strcmp(argv[1], "a b") && !strcmp(argv[2], "c"));
	char bad[] = "x \"unterminated";
	CHECK(sl_cli_tokenize(bad, argv, 8) == -1);
	char many[] = "a b c d e";
	CHECK(sl_cli_tokenize(many, argv, 4) == -1);

	int rc;
	char *out = run("test widget show 1 2", false, &rc);
	CHECK(rc == 0 && got_argc == 2 && !strcmp(got_last, "2"));
	CHECK(strstr(out, "name") && strstr(out, "42"));
	free(out);
	out = run("test widget", false, &rc);
	CHECK(rc == 0 && got_argc == 0);
	free(out);
	out = run("test widget show", true, &rc);
	CHECK(rc == 0 && !strcmp(out, "{\"ok\": true, \"rows\": [{\"name\": \"a\\\"b\", \"n\": 42}]}\n"));
	free(out);
	out = run("nonsense here", false, &rc);
	CHECK(rc == -1 && strstr(out, "unknown command 'nonsense here'"));
	free(out);
	out = run("test", false, &rc);
	CHECK(rc == -1 && strstr(out, "incomplete command") && strstr(out, "test widget show"));
	free(out);
	out = run("test help", false, &rc);
	CHECK(rc == 0 && strstr(out, "test widget show [X]"));
	free(out);
	out = run("nonsense", true, &rc);
	CHECK(rc == -1 && strstr(out, "\"ok\": false") && strstr(out, "\"error\""));
	free(out);

	struct sl_out o = {0};
	uint32_t ip, v;
	uint8_t len, mac[6];
	CHECK(sl_arg_prefix4(&o, "48.0.0.0/8", &ip, &len) == 0 && ip == 0x30000000 && len == 8);
	CHECK(sl_arg_prefix4(&o, "48.0.0.0/33", &ip, &len) == -1);
	CHECK(sl_arg_prefix4(&o, "48.0.0/8", &ip, &len) == -1);
	CHECK(sl_arg_prefix4(&o, "48.0.0.0/", &ip, &len) == -1);
	CHECK(sl_arg_prefix4(&o, "48.0.0.0", &ip, &len) == -1);
	CHECK(sl_arg_ip4(&o, "10.10.2.1", &ip) == 0 && ip == 0x0a0a0201);
	CHECK(sl_arg_ip4(&o, "10.10.2.256", &ip) == -1);
	CHECK(sl_arg_mac(&o, "42:01:0a:0a:02:01", mac) == 0 && mac[0] == 0x42 && mac[5] == 1);
	CHECK(sl_arg_mac(&o, "42:01:0a:0a:02", mac) == -1);
	CHECK(sl_arg_mac(&o, "42:01:0a:0a:02:01:00", mac) == -1);
	CHECK(sl_arg_u32(&o, "n", "5", 1, 10, &v) == 0 && v == 5);
	CHECK(sl_arg_u32(&o, "n", "11", 1, 10, &v) == -1);
	CHECK(sl_arg_u32(&o, "n", "-1", 0, 10, &v) == -1);
	CHECK(sl_arg_u32(&o, "n", "", 0, 10, &v) == -1);
	size_t l;
	free(sl_out_finish(&o, &l));
	return CHECK_REPORT();
}
