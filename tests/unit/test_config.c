/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the startup.conf parser: bad input first, then the full grammar. */
#include "../common/check.h"
#include "../../src/config/config.h"

#include <stdio.h>
#include <string.h>


static int parse(const char *text, struct sl_config *c, char *err)
{
	sl_config_defaults(c);
	return sl_config_parse(c, text, "t.conf", err, 256);
}

static void expect_error(const char *text, const char *msg)
{
	struct sl_config c;
	char err[256] = "";
	int rc = parse(text, &c, err);
	CHECK(rc != 0);
	CHECK(strstr(err, msg) != NULL);
	if (!strstr(err, msg))
		fprintf(stderr, "  text: %s\n  got: %s\n  want: %s\n", text, err, msg);
}

int main(void)
{
	expect_error("bogus { }", "t.conf:1: unknown section 'bogus'");
	expect_error("unix {\n cli-listen\n}", "t.conf:3: 'cli-listen' needs a value");
	expect_error("cpu { main-core x }", "wants a number from 0 to 1023, not 'x'");
	expect_error("cpu { main-core -1 }", "not '-1'");
	expect_error("cpu {\n\n workers 2 corelist-workers 1-2 }", "t.conf:3: give 'workers'");
	expect_error("cpu { corelist-workers 3-1 }", "bad core list '3-1'");
	expect_error("dpdk { dev 0000:00:08.0 { num-rx-queues 0 } }", "from 1 to 16");
	expect_error("dpdk { dev 0000:00:08.0 { name } }", "'name' needs a value");
	expect_error("dpdk { vdev net_tap0 { colour red } }", "unknown device option 'colour'");
	expect_error("dpdk { vdev net_tap0 { mac-address 1:2 } }", "not a MAC address");
	expect_error("dpdk { socket-mem abc }", "wants megabytes");
	expect_error("dpdk {\n no-huge\n", "missing '}' for section 'dpdk'");
	expect_error("unix cli-listen /x", "'unix' must be followed by '{'");
	expect_error("unix { exec \"unterminated }", "unterminated string");
	expect_error("buffers { buffers-per-numa 10 }", "from 1024 to");
	expect_error("unix { poll-sleep-usec 2000000 }", "wants a number from 0 to 1000000");

	struct sl_config c;
	char err[256] = "";
	const char *good =
		"# comment\n"
		"unix { cli-listen /run/x.sock exec /etc/setup.cli log /tmp/l poll-sleep-usec 50 poll-yield }\n"
		"cpu { main-core 1 corelist-workers 2-3,5 }\n"
		"dpdk {\n"
		"  dev 0000:00:08.0 { name eth0 num-rx-queues 2 num-tx-queues 4 num-rx-desc 512 }\n"
		"  vdev net_memif0,role=server,socket=/tmp/m.sock { name memif0 }\n"
		"  vdev net_null0\n"
		"  socket-mem 256 no-huge eal-args \"--log-level=8 -d x\"\n"
		"}\n"
		"buffers { buffers-per-numa 32768 }\n"
		"ip4 { max-routes 1048576 tbl8s 4096 }\n";
	CHECK(parse(good, &c, err) == 0);
	CHECK(!strcmp(c.cli_listen, "/run/x.sock"));
	CHECK(!strcmp(c.exec, "/etc/setup.cli"));
	CHECK(c.poll_sleep_us == 50 && c.poll_yield);
	CHECK(c.main_core == 1);
	int cores[8];
	CHECK(sl_parse_corelist(c.corelist_workers, cores, 8) == 3 && cores[2] == 5);
	CHECK(c.nb_devs == 3);
	CHECK(!c.devs[0].vdev && c.devs[0].nb_rxq == 2 && c.devs[0].nb_txq == 4);
	CHECK(c.devs[0].nb_rxd == 512 && !strcmp(c.devs[0].name, "eth0"));
	CHECK(c.devs[1].vdev && !strcmp(c.devs[1].name, "memif0"));
	CHECK(!strcmp(c.devs[1].devargs, "net_memif0,role=server,socket=/tmp/m.sock"));
	CHECK(c.devs[2].vdev && c.devs[2].name[0] == 0);
	CHECK(c.socket_mem == 256 && c.no_huge);
	CHECK(!strcmp(c.eal_args, "--log-level=8 -d x"));
	CHECK(c.buffers_per_numa == 32768);
	CHECK(c.ip4_max_routes == 1048576 && c.ip4_tbl8s == 4096);
	CHECK(parse("unix { poll-sleep-usec 5 }\n", &c, err) == 0 && !c.poll_yield); /* off by default */
	CHECK(sl_config_load(&c, "/nonexistent/startup.conf", err, sizeof(err)) != 0);
	CHECK(strstr(err, "/nonexistent/startup.conf") != NULL);
	return CHECK_REPORT();
}
