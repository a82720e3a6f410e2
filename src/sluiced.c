/* SPDX-License-Identifier: BSD-3-Clause */
/* sluiced: reads startup.conf, starts DPDK, ports, tables and workers, then serves the CLI
 * on the main lcore until SIGINT or SIGTERM. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "cli/server.h"
#include "config/config.h"
#include "interface/iface.h"
#include "ip4/ip4.h"
#include "runtime/eal_exit.h"
#include "runtime/runtime.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>


static void on_signal(int sig)
{
	(void)sig;
	sl_quit = true;
}

static void usage(void)
{
	fprintf(stderr, "usage: sluiced [-c] STARTUP.CONF\n"
			"       sluiced --version\n");
}

static int first_allowed_core(void)
{
	cpu_set_t s;
	if (sched_getaffinity(0, sizeof(s), &s))
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &s))
			return i;
	return 0;
}

/* Builds argv for rte_eal_init from the config. */
static int eal_args(const struct sl_config *c, char **av, int max, char *store, size_t slen,
		    int *main_core, int *wcores, int *nw)
{
	int ac = 0;
	size_t used = 0;
#define ADD(...)                                                                   \
	do {                                                                       \
		if (ac >= max - 1 || used >= slen)                                 \
			return -E2BIG;                                             \
		int _n = snprintf(store + used, slen - used, __VA_ARGS__);         \
		if (_n < 0 || (size_t)_n >= slen - used)                           \
			return -E2BIG;                                             \
		av[ac++] = store + used;                                           \
		used += (size_t)_n + 1;                                            \
	} while (0)
	ADD("sluiced");
	*main_core = c->main_core >= 0 ? c->main_core : first_allowed_core();
	*nw = 0;
	if (c->corelist_workers[0]) {
		*nw = sl_parse_corelist(c->corelist_workers, wcores, SL_MAX_WORKERS);
		if (*nw < 0)
			return -EINVAL;
	} else if (c->workers > 0) {
		cpu_set_t s;
		sched_getaffinity(0, sizeof(s), &s);
		for (int i = 0; i < CPU_SETSIZE && *nw < c->workers; i++)
			if (CPU_ISSET(i, &s) && i != *main_core)
				wcores[(*nw)++] = i;
		if (*nw < c->workers) {
			fprintf(stderr, "sluiced: %d workers asked, %d cores free\n", c->workers,
				*nw);
			return -EINVAL;
		}
	}
	char lc[512];
	int n = snprintf(lc, sizeof(lc), "%d", *main_core);
	for (int i = 0; i < *nw; i++) {
		if (wcores[i] == *main_core) {
			fprintf(stderr, "sluiced: worker core %d is the main core\n", wcores[i]);
			return -EINVAL;
		}
		n += snprintf(lc + n, sizeof(lc) - (size_t)n, ",%d", wcores[i]);
	}
	ADD("-l");
	ADD("%s", lc);
	ADD("--main-lcore");
	ADD("%d", *main_core);
	ADD("--file-prefix");
	if (c->file_prefix[0])
		ADD("%s", c->file_prefix);
	else
		ADD("sluiced-%d", (int)getpid());
	if (c->no_huge) {
		ADD("--no-huge");
		ADD("-m");
		ADD("%u", c->socket_mem ? c->socket_mem : 1024); /* the default FIB needs ~600 MB */
	} else {
		ADD("--huge-unlink");
		if (c->socket_mem) {
			ADD("--socket-mem");
			ADD("%u", c->socket_mem);
		}
	}
	int npci = 0;
	for (int i = 0; i < c->nb_devs; i++) {
		ADD(c->devs[i].vdev ? "--vdev" : "-a");
		ADD("%s", c->devs[i].devargs);
		npci += !c->devs[i].vdev;
	}
	if (c->no_pci || npci == 0)
		ADD("--no-pci");
	if (c->eal_args[0]) {
		char tmp[sizeof(c->eal_args)];
		snprintf(tmp, sizeof(tmp), "%s", c->eal_args);
		for (char *tok = strtok(tmp, " \t"); tok; tok = strtok(NULL, " \t"))
			ADD("%s", tok);
	}
	av[ac] = NULL;
	return ac;
#undef ADD
}

/* The tables the workers index by interface, adjacency or session (sl_ifaces alone is 40 MB)
 * are static arrays: on 4 KB pages, a packet to another interface misses the TLB as well as
 * the cache. Transparent huge pages for the zero-filled data (the kernel's "madvise" mode asks
 * for it), asked before the arrays are first written. */
extern char __bss_start[], _end[];
static void huge_bss(void)
{
	uintptr_t a = RTE_ALIGN_CEIL((uintptr_t)__bss_start, (uintptr_t)2 << 20);
	uintptr_t b = RTE_ALIGN_FLOOR((uintptr_t)_end, (uintptr_t)2 << 20);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

int main(int argc, char **argv)
{
	huge_bss();
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--version")) {
			printf("sluiced %s\n", SL_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			path = argv[++i];
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			usage();
			return 2;
		}
	}
	if (!path) {
		usage();
		return 2;
	}
	static struct sl_config cfg;
	char err[512];
	sl_config_defaults(&cfg);
	if (sl_config_load(&cfg, path, err, sizeof(err))) {
		fprintf(stderr, "sluiced: %s\n", err);
		return 1;
	}
	if (cfg.log[0]) {
		FILE *lf = fopen(cfg.log, "a");
		if (!lf) {
			fprintf(stderr, "sluiced: log %s: %s\n", cfg.log, strerror(errno));
			return 1;
		}
		rte_openlog_stream(lf);
	}
	char *av[256], store[16384];
	int main_core, wcores[SL_MAX_WORKERS], nw;
	int ac = eal_args(&cfg, av, 256, store, sizeof(store), &main_core, wcores, &nw);
	if (ac < 0) {
		fprintf(stderr, "sluiced: %s: bad cpu or dpdk settings\n", path);
		return 1;
	}
	if (rte_eal_init(ac, av) < 0) {
		fprintf(stderr, "sluiced: cannot start DPDK: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	int rc = 1;
	bool main_forwards = nw == 0;
	uint16_t lcores[SL_MAX_WORKERS], ng = main_forwards ? 1 : (uint16_t)nw;
	for (int i = 0; i < ng; i++)
		lcores[i] = main_forwards ? (uint16_t)main_core : (uint16_t)wcores[i];
	sl_pool = rte_pktmbuf_pool_create("sl_pool", cfg.buffers_per_numa, 256, SL_MBUF_PRIV,
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	sl_indirect_pool = rte_pktmbuf_pool_create("sl_indirect", 4096, 64, SL_MBUF_PRIV, 0,
						   (int)rte_socket_id());
	if (!sl_pool || !sl_indirect_pool) {
		fprintf(stderr, "sluiced: cannot allocate %u buffers: %s\n", cfg.buffers_per_numa,
			rte_strerror(rte_errno));
		goto out;
	}
	sl_rx_vector = (uint16_t)cfg.rx_vector;
	sl_poll_sleep_us = cfg.poll_sleep_us;
	sl_poll_yield = cfg.poll_yield;
	if (sl_runtime_init(ng, lcores) || sl_iface_init(&cfg, sl_pool, ng))
		goto out;
	const char *failed = "";
	if ((rc = sl_modules_init(&cfg, &failed))) {
		fprintf(stderr, "sluiced: cannot set up %s: %s\n", failed, strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = 1;
	if (sl_runtime_clone_tx())
		goto out;
	if (sl_runtime_create_graphs())
		goto out;
	if ((rc = sl_cli_server_open(cfg.cli_listen))) {
		fprintf(stderr, "sluiced: cli-listen %s: %s\n", cfg.cli_listen, strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = 1;
	if (cfg.exec[0]) {
		struct sl_out o = {0};
		int erc = sl_cli_exec_file(&o, cfg.exec);
		size_t len;
		char *text = sl_out_finish(&o, &len);
		if (erc) {
			fprintf(stderr, "sluiced: exec %s failed:\n%s", cfg.exec, text ? text : "");
			free(text);
			goto out_cli;
		}
		free(text);
	}
	if (sl_runtime_start(main_forwards)) {
		fprintf(stderr, "sluiced: cannot launch workers\n");
		goto out_cli;
	}
	printf("sluiced %s: %u interface(s), %u worker(s)%s, cli %s\n", SL_VERSION,
	       (unsigned)rte_eth_dev_count_avail(), ng, main_forwards ? " on the main lcore" : "",
	       cfg.cli_listen);
	fflush(stdout);
	while (!sl_quit) {
		if (main_forwards) {
			sl_main_service(); /* graph 0's walk, the punts, the ticks */
			sl_cli_server_poll(0, -1);
			continue;
		}
		/* sleep until the next tick, a CLI client or a worker's wake (runtime.h) */
		__atomic_store_n(&sl_main_asleep, 1, __ATOMIC_SEQ_CST);
		sl_runtime_drain_punts(sl_punt);
		uint64_t next_tick = sl_modules_poll(rte_rdtsc());
		uint64_t now = rte_rdtsc(), ms = rte_get_tsc_hz() / 1000;
		int wait = now >= next_tick ? 0 : (int)((next_tick - now + ms - 1) / ms);
		sl_cli_server_poll(wait, sl_main_efd);
		__atomic_store_n(&sl_main_asleep, 0, __ATOMIC_RELAXED);
		sl_runtime_drain_punts(sl_punt);
		sl_modules_poll(rte_rdtsc());
	}
	rc = 0;
	sl_runtime_stop();
out_cli:
	sl_cli_server_close();
out:
	sl_runtime_stop();
	sl_intr_park(); /* no PMD's interrupt work races the closes below (eal_exit.h) */
	sl_runtime_fini();
	sl_modules_fini();
	sl_iface_fini();
	sl_eal_cleanup();
	return rc;
}
