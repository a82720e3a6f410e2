/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet trace (see trace.h): the wrapper, the per-worker records, the CLI. */
#include "trace.h"
#include "runtime.h"
#include "../cli/cli.h"
#include "../interface/iface.h"

#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#define MAX_NODES 512

struct trace_buf {
	uint32_t n; /* records written (release store after each) */
	struct sl_trace_rec rec[SL_TRACE_RECS];
};

static struct trace_buf *bufs[SL_MAX_WORKERS];
static rte_node_process_t real[MAX_NODES];   /* each node's own process function */
static sl_trace_fmt_t fmts[MAX_NODES];
static struct {
	const char *node;
	sl_trace_fmt_t fn;
} fmt_regs[64];
static unsigned nb_fmt_regs;
static bool source[MAX_NODES];               /* trace add may name it */
static int64_t budget[MAX_NODES];            /* packets still to mark, per source node */
static uint32_t next_pkt;                    /* numbers handed out */
static bool tracing;

void sl_trace_format_register(const char *node_name, sl_trace_fmt_t fn)
{
	RTE_VERIFY(nb_fmt_regs < RTE_DIM(fmt_regs));
	fmt_regs[nb_fmt_regs].node = node_name;
	fmt_regs[nb_fmt_regs++].fn = fn;
}

static struct sl_worker *graph_worker(const struct rte_graph *g)
{
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		if (sl_workers[w].graph == g)
			return &sl_workers[w];
	return NULL;
}

static struct sl_trace_rec *rec_new(struct sl_worker *w)
{
	struct trace_buf *b = w ? bufs[w->id] : NULL;
	if (!b || b->n >= SL_TRACE_RECS)
		return NULL;
	return &b->rec[b->n];
}

static void rec_commit(struct sl_worker *w)
{
	struct trace_buf *b = bufs[w->id];
	__atomic_store_n(&b->n, b->n + 1, __ATOMIC_RELEASE);
}

/* What the node found: the packet as it came in. */
static void rec_entry(struct sl_trace_rec *r, struct rte_mbuf *m, rte_node_t node)
{
	r->tsc = rte_rdtsc();
	r->pkt = sl_meta2(m)->trace;
	r->node = node;
	r->next = RTE_NODE_ID_INVALID;
	r->rx_if = m->port;
	r->tx_if = UINT16_MAX;
	r->adj = UINT32_MAX;
	r->error = sl_meta2(m)->error;
	r->len = m->pkt_len;
	r->ndata = (uint8_t)RTE_MIN((uint32_t)SL_TRACE_DATA, (uint32_t)m->data_len);
	memcpy(r->data, rte_pktmbuf_mtod(m, void *), r->ndata);
}

/* What the node did: the mbuf is in next node nx's stream, not yet freed. */
static void rec_exit(struct sl_trace_rec *r, struct rte_mbuf *m, rte_node_t nx)
{
	r->next = nx;
	r->tx_if = sl_meta(m)->tx_if;
	r->adj = sl_meta(m)->adj;
}

/* A source node: marks its new packets while the budget lasts. */
static void trace_source(struct sl_worker *w, struct rte_node *node, const uint16_t *before)
{
	for (rte_edge_t e = 0; e < node->nb_edges; e++) {
		struct rte_node *nx = node->nodes[e];
		for (uint16_t k = before[e]; k < nx->idx; k++) {
			if (__atomic_load_n(&budget[node->id], __ATOMIC_RELAXED) <= 0)
				return;
			if (__atomic_sub_fetch(&budget[node->id], 1, __ATOMIC_RELAXED) < 0)
				return;
			struct rte_mbuf *m = nx->objs[k];
			m->ol_flags |= sl_flag_trace;
			sl_meta2(m)->trace =
				(uint16_t)__atomic_add_fetch(&next_pkt, 1, __ATOMIC_RELAXED);
			struct sl_trace_rec *r = rec_new(w);
			if (!r)
				continue;
			rec_entry(r, m, node->id);
			rec_exit(r, m, nx->id);
			rec_commit(w);
		}
	}
}

static uint16_t traced_process(struct rte_graph *g, struct rte_node *node, void **objs,
			       uint16_t n)
{
	struct sl_worker *w = graph_worker(g);
	rte_node_process_t fn = real[node->id];
	uint16_t before[node->nb_edges ? node->nb_edges : 1];
	for (rte_edge_t e = 0; e < node->nb_edges; e++)
		before[e] = node->nodes[e]->idx;
	/* the traced packets among those coming in, with their records */
	struct rte_mbuf *tm[n ? n : 1];
	struct sl_trace_rec *tr[n ? n : 1];
	uint16_t nt = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		if (!(m->ol_flags & sl_flag_trace))
			continue;
		struct sl_trace_rec *r = rec_new(w);
		if (!r)
			break;
		rec_entry(r, m, node->id);
		tm[nt] = m;
		tr[nt++] = r;
		rec_commit(w); /* written again below: show trace may see next unset */
	}
	uint16_t rc = fn(g, node, objs, n);
	if (source[node->id] && w) {
		trace_source(w, node, before);
		return rc;
	}
	/* where each went: the new part of a next node's stream (from 0 if it was moved) */
	for (rte_edge_t e = 0; e < node->nb_edges && nt; e++) {
		struct rte_node *nx = node->nodes[e];
		uint16_t from = nx->idx >= before[e] ? before[e] : 0;
		for (uint16_t k = from; k < nx->idx; k++)
			for (uint16_t t = 0; t < nt; t++)
				if (nx->objs[k] == tm[t]) {
					rec_exit(tr[t], tm[t], nx->id);
					break;
				}
	}
	return rc;
}

/* Puts the wrapper in front of (or takes it from) every node of every graph. */
static void wrap(bool on)
{
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		if (!sl_workers[w].graph)
			continue;
		for (rte_node_t id = 0; id < rte_node_max_count() && id < MAX_NODES; id++) {
			struct rte_node *node = rte_graph_node_get(sl_workers[w].graph_id, id);
			if (!node)
				continue;
			if (node->process != traced_process)
				real[id] = node->process;
			rte_node_process_t fn = on ? traced_process : real[id];
			__atomic_store_n(&node->process, fn, __ATOMIC_RELEASE);
		}
	}
}

void sl_trace_graphs_rebuilt(void)
{
	if (tracing)
		wrap(true);
}

static int trace_start(void)
{
	if (!fmts[0] && nb_fmt_regs) { /* formatters by node id, once */
		for (unsigned i = 0; i < nb_fmt_regs; i++) {
			rte_node_t id = rte_node_from_name(fmt_regs[i].node);
			if (id != RTE_NODE_ID_INVALID && id < MAX_NODES)
				fmts[id] = fmt_regs[i].fn;
		}
	}
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		if (!bufs[w] && !(bufs[w] = rte_zmalloc("sl_trace", sizeof(*bufs[w]), 0)))
			return -1;
	tracing = true;
	wrap(true);
	return 0;
}

static void trace_clear(void)
{
	if (tracing) {
		wrap(false);
		tracing = false;
	}
	for (int i = 0; i < MAX_NODES; i++)
		__atomic_store_n(&budget[i], 0, __ATOMIC_RELAXED);
	/* no worker is still inside the wrapper, or writing a record, after this */
	sl_rcu_sync();
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		if (bufs[w])
			bufs[w]->n = 0;
	next_pkt = 0;
}

void sl_trace_fini(void)
{
	for (uint16_t w = 0; w < SL_MAX_WORKERS; w++) {
		rte_free(bufs[w]);
		bufs[w] = NULL;
	}
	tracing = false;
}

/* ---- formatting ---- */

static const char *if_name(uint16_t i)
{
	return sl_ifaces[i].used ? sl_ifaces[i].name : "-";
}

void sl_trace_fmt_eth(char *buf, size_t len, const struct sl_trace_rec *r)
{
	const uint8_t *d = r->data;
	if (r->ndata < RTE_ETHER_HDR_LEN) {
		snprintf(buf, len, "%u bytes", r->len);
		return;
	}
	snprintf(buf, len,
		 "%02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x type 0x%04x, "
		 "%u bytes",
		 d[6], d[7], d[8], d[9], d[10], d[11], d[0], d[1], d[2], d[3], d[4], d[5],
		 d[12] << 8 | d[13], r->len);
}

static void fmt_drop(char *buf, size_t len, const struct sl_trace_rec *r)
{
	uint16_t e = r->error < sl_nb_errors ? r->error : 0;
	snprintf(buf, len, "%s: %s", sl_errors[e].node, sl_errors[e].reason);
}

static void fmt_punt(char *buf, size_t len, const struct sl_trace_rec *r)
{
	(void)r;
	snprintf(buf, len, "to the main lcore");
}

RTE_INIT(trace_fmt_init)
{
	sl_trace_format_register("error-drop", fmt_drop);
	sl_trace_format_register("punt", fmt_punt);
}

/* ---- CLI ---- */

int sl_trace_add(const char *input, uint32_t n, char *why, size_t len)
{
	rte_node_t id = rte_node_from_name(input);
	if (strcmp(input, "port-rx") && strcmp(input, "pg-input")) {
		snprintf(why, len, "'%s' is not an input node (port-rx, pg-input)", input);
		return -EINVAL;
	}
	if (id == RTE_NODE_ID_INVALID || id >= MAX_NODES) {
		snprintf(why, len, "no node %s", input);
		return -ENOENT;
	}
	source[id] = true;
	if (!tracing && trace_start()) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	__atomic_add_fetch(&budget[id], (int64_t)n, __ATOMIC_RELAXED);
	return 0;
}

void sl_trace_clear(void)
{
	trace_clear();
}

static int cmd_trace_add(struct sl_out *o, int argc, char **argv)
{
	uint32_t n;
	char why[128];
	if (argc != 2)
		return sl_out_error(o, "usage: trace add port-rx|pg-input N");
	if (strcmp(argv[0], "port-rx") && strcmp(argv[0], "pg-input"))
		return sl_out_error(o, "trace add: '%s' is not an input node (port-rx, pg-input)",
				    argv[0]);
	if (sl_arg_u32(o, "count", argv[1], 1, 10000, &n))
		return -1;
	if (sl_trace_add(argv[0], n, why, sizeof(why)))
		return sl_out_error(o, "trace add: %s", why);
	return 0;
}
SL_CLI_COMMAND(trace_add, .path = "trace add", .usage = "port-rx|pg-input N",
	       .help = "trace the next N packets from an input node through every node",
	       .fn = cmd_trace_add)

struct row {
	const struct sl_trace_rec *r;
	uint16_t w;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->r->pkt != y->r->pkt)
		return x->r->pkt < y->r->pkt ? -1 : 1;
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return x->r < y->r ? -1 : x->r > y->r; /* a worker's records are in order */
}

static int cmd_show_trace(struct sl_out *o, int argc, char **argv)
{
	uint32_t max = UINT32_MAX;
	if (argc == 2 && !strcmp(argv[0], "max")) {
		if (sl_arg_u32(o, "max", argv[1], 1, UINT32_MAX, &max))
			return -1;
	} else if (argc) {
		return sl_out_error(o, "usage: show trace [max N]");
	}
	size_t total = 0;
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		total += bufs[w] ? __atomic_load_n(&bufs[w]->n, __ATOMIC_ACQUIRE) : 0;
	struct row *rows = malloc(sizeof(*rows) * (total + 1));
	if (!rows)
		return sl_out_error(o, "out of memory");
	size_t nr = 0;
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		uint32_t n = bufs[w] ? __atomic_load_n(&bufs[w]->n, __ATOMIC_ACQUIRE) : 0;
		for (uint32_t i = 0; i < n && nr < total; i++)
			rows[nr++] = (struct row){&bufs[w]->rec[i], w};
	}
	qsort(rows, nr, sizeof(*rows), cmp_row);
	sl_tbl_begin(o, "trace", 8,
		     (const char *[]){"packet:u", "worker:u", "us:u", "node", "next", "rx-if",
				      "tx-if", "detail"});
	uint64_t t0 = nr ? rows[0].r->tsc : 0, hz = rte_get_tsc_hz();
	for (size_t i = 0; i < nr && rows[i].r->pkt <= max; i++) {
		const struct sl_trace_rec *r = rows[i].r;
		char pk[12], wk[8], us[24], detail[256];
		const char *nn = rte_node_id_to_name(r->node);
		const char *nx = r->next == RTE_NODE_ID_INVALID ? "-" : rte_node_id_to_name(r->next);
		snprintf(pk, sizeof(pk), "%u", r->pkt);
		snprintf(wk, sizeof(wk), "%u", rows[i].w);
		snprintf(us, sizeof(us), "%.1f", r->tsc >= t0 ? (double)(r->tsc - t0) * 1e6 / (double)hz : 0.0);
		sl_trace_fmt_t fn = r->node < MAX_NODES ? fmts[r->node] : NULL;
		(fn ? fn : sl_trace_fmt_eth)(detail, sizeof(detail), r);
		/* the interface it leaves by: port-tx-P's port, or the one a packet handed to
		 * an output node carries */
		const char *txn = "";
		if (!strncmp(nx, "port-tx-", 8))
			txn = if_name((uint16_t)atoi(nx + 8));
		else if (strstr(nx, "-output"))
			txn = if_name(r->tx_if);
		sl_tbl_row(o, pk, wk, us, nn, nx, if_name(r->rx_if), txn, detail);
	}
	sl_tbl_end(o);
	free(rows);
	return 0;
}
SL_CLI_COMMAND(show_trace, .path = "show trace", .usage = "[max N]",
	       .help = "the traced packets, node by node (max N: the first N packets)",
	       .fn = cmd_show_trace)

static int cmd_clear_trace(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: clear trace");
	sl_trace_clear();
	return 0;
}
SL_CLI_COMMAND(clear_trace, .path = "clear trace", .usage = "",
	       .help = "stop tracing and forget the traced packets", .fn = cmd_clear_trace)
