/* SPDX-License-Identifier: BSD-3-Clause */
/* startup.conf: VPP-style sections parsed into a plain struct, no DPDK needed. */
#ifndef SL_CONFIG_H
#define SL_CONFIG_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define SL_CFG_MAX_DEVS 32
#define SL_CFG_STR 256

struct sl_cfg_dev {
	bool vdev;                 /* vdev DEVARGS, else dev PCI */
	char devargs[SL_CFG_STR];
	char name[64];
	char mac[18];              /* "" = the driver's */
	uint16_t nb_rxq, nb_txq;   /* 0 = default */
	uint16_t nb_rxd, nb_txd;
};

struct sl_config {
	char cli_listen[SL_CFG_STR];
	char exec[SL_CFG_STR];
	char log[SL_CFG_STR];
	int main_core;             /* -1 = first allowed core */
	char corelist_workers[SL_CFG_STR];
	int workers;               /* -1 = unset */
	struct sl_cfg_dev devs[SL_CFG_MAX_DEVS];
	int nb_devs;
	uint32_t socket_mem;       /* MB, 0 = default */
	bool no_huge;
	bool no_pci;
	char file_prefix[64];
	char eal_args[1024];
	uint32_t buffers_per_numa;
	uint32_t rx_vector;        /* most packets port-rx takes per graph walk */
	uint32_t poll_sleep_us;    /* a worker sleeps this long after a walk with no packet */
	bool poll_yield;           /* a worker gives up its core (sched_yield) after each walk */
	uint32_t ip4_max_routes;
	uint32_t ip4_tbl8s;
	uint32_t ip6_max_routes; /* per IPv6 FIB (every table) */
	uint32_t ip6_tbl8s;
};

void sl_config_defaults(struct sl_config *c);
/* Parses text; on error writes "NAME:LINE: reason" into err and returns -EINVAL. */
int sl_config_parse(struct sl_config *c, const char *text, const char *name, char *err,
		    size_t errlen);
int sl_config_load(struct sl_config *c, const char *path, char *err, size_t errlen);
/* Expands a list like "1-3,5" into cores; returns the count or -1. */
int sl_parse_corelist(const char *s, int *cores, int max);

#endif
