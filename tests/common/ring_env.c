/* SPDX-License-Identifier: BSD-3-Clause */
/* A test router on two ring-backed ports, for node tests and fuzzers: EAL with --no-huge
 * --no-pci, the real graph and tables, set up through the CLI. */
#include "ring_env.h"
#include "../../src/cli/cli.h"
#include "../../src/interface/iface.h"
#include "../../src/ip4/ip4.h"
#include "../../src/runtime/eal_exit.h"
#include "../../src/runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>


struct rte_ring *env_rx[2], *env_tx[2], *env_rx0_q1;
uint32_t env_max_routes = 1 << 18;
uint16_t env_graphs = 1;
const char *env_mem_mb = "512";


int env_cli(const char *line, bool quiet)
{
	struct sl_out o = {0};
	size_t len;
	int rc = sl_cli_exec(&o, line);
	char *t = sl_out_finish(&o, &len);
	if (rc && !quiet)
		fprintf(stderr, "cli '%s': %s", line, t);
	free(t);
	return rc;
}

static char env_runtime_dir[PATH_MAX];

static void env_remove_runtime_dir(void)
{
	sl_remove_runtime_dir(env_runtime_dir);
}

int env_init(const char *prog, const char *prefix)
{
	/* the process id in the prefix: two runs at once (two checkouts, a build and a
	 * sanitizer build) must not share DPDK's runtime files */
	static char unique[64];
	snprintf(unique, sizeof(unique), "%s-%d", prefix, (int)getpid());
	char *eal[] = {(char *)prog, "--no-huge", "--no-pci", "-m", (char *)env_mem_mb, "-l", "0",
		       "--file-prefix", unique, "--log-level", "5", NULL};
	if (rte_eal_init(11, eal) < 0)
		return -1;
	/* the runtime folder goes at exit (the fuzz harnesses exit without env_fini) */
	snprintf(env_runtime_dir, sizeof(env_runtime_dir), "%s", rte_eal_get_runtime_dir());
	atexit(env_remove_runtime_dir);
	sl_pool = rte_pktmbuf_pool_create("sl_pool", 8192, 0, SL_MBUF_PRIV,
					  RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	sl_indirect_pool = rte_pktmbuf_pool_create("sl_ind", 1024, 0, SL_MBUF_PRIV, 0, 0);
	if (!sl_pool || !sl_indirect_pool)
		return -1;
	static struct sl_config cfg;
	const char *failed;
	sl_config_defaults(&cfg);
	cfg.ip4_max_routes = env_max_routes;
	cfg.ip4_tbl8s = 4096;
	for (int p = 0; p < 2; p++) {
		char name[16];
		snprintf(name, sizeof(name), "r%d", p);
		env_rx[p] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "t%d", p);
		env_tx[p] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ring%d", p);
		/* port0 has two rx queues (as RSS would fill them), port1 one */
		struct rte_ring *rxs[2] = {env_rx[p], NULL};
		if (p == 0) {
			env_rx0_q1 = rte_ring_create("r0q1", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
			rxs[1] = env_rx0_q1;
		}
		if (rte_eth_from_rings(name, rxs, p == 0 ? 2 : 1, &env_tx[p], 1, 0) != p)
			return -1;
		snprintf(cfg.devs[p].devargs, sizeof(cfg.devs[p].devargs), "net_ring_%s", name);
		snprintf(cfg.devs[p].name, sizeof(cfg.devs[p].name), "port%d", p);
	}
	snprintf(cfg.devs[0].mac, sizeof(cfg.devs[0].mac), "02:00:00:00:00:10");
	cfg.devs[0].nb_rxq = 2;
	cfg.nb_devs = 2;
	uint16_t lc[SL_MAX_WORKERS];
	for (int i = 0; i < env_graphs; i++)
		lc[i] = (uint16_t)rte_lcore_id(); /* all graphs are walked by this thread */
	if (sl_runtime_init(env_graphs, lc) || sl_iface_init(&cfg, sl_pool, env_graphs) ||
	    sl_modules_init(&cfg, &failed) || sl_runtime_clone_tx())
		return -1;
	if (sl_runtime_create_graphs())
		return -1;
	/* the same router the end-to-end tests use */
	return env_cli("exec " SL_TEST_ROUTER_CLI, false) ? -1 : 0;
}

void env_walk_worker(int w, int n)
{
	for (int i = 0; i < n; i++)
		rte_graph_walk(sl_workers[w].graph);
}

void env_walk(int n)
{
	env_walk_worker(0, n);
}

void env_fini(void)
{
	sl_runtime_fini();
	sl_modules_fini();
	sl_iface_fini();
	rte_eal_cleanup();
}
