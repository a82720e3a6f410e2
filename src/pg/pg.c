/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet generator, data-plane side: pg interfaces (logical interfaces whose output,
 * pg-output, counts and frees or writes a pcap file), the pg-input source node, and the CLI
 * in VPP's grammar. */
#include "pg.h"
#include "rearm.h"
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"
#include "../runtime/feature.h"
#include "../runtime/pcap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_malloc.h>


static struct sl_pg_stream *streams[SL_PG_MAX_STREAMS]; /* read by workers */
static uint16_t nb_on_worker[SL_MAX_WORKERS + 1];       /* streams per worker, for a fast exit */

/* edges: the modes (ethernet-input, l2-*), ip4-input, then the device-input arc's */
enum { PG_NEXT_ETH = SL_MODE_L3, PG_NEXT_IP4 = SL_NB_MODES, PG_NB_NEXT };
static const char *const pg_nexts[PG_NB_NEXT] = {SL_MODE_NODES, "ip4-input"};
static uint16_t pg_arc[SL_ARC_MAX_FEATS];

static const char *const pg_reasons[] = {"no buffers for a stream's packets"};
static uint16_t pg_err;
RTE_INIT(pg_errors)
{
	pg_err = sl_error_register("pg-input", pg_reasons, 1);
}

/* How many packets the stream may send now: its limit, and its rate's credit. */
static inline uint16_t stream_quota(struct sl_pg_stream *s, uint16_t room)
{
	uint64_t n = room;
	if (s->limit && s->limit - s->sent < n)
		n = s->limit - s->sent;
	if (s->rate) {
		uint64_t now = rte_rdtsc();
		if (!s->last_tsc)
			s->last_tsc = now;
		s->credit += (double)(now - s->last_tsc) * (double)s->rate / (double)rte_get_tsc_hz();
		s->last_tsc = now;
		if (s->credit > RTE_GRAPH_BURST_SIZE)
			s->credit = RTE_GRAPH_BURST_SIZE; /* no catching up in bursts */
		if ((double)n > s->credit)
			n = (uint64_t)s->credit;
		s->credit -= (double)n;
	}
	return (uint16_t)n;
}

/* not inlined: make bench-graph counts its instructions under callgrind */
static __rte_noinline uint16_t pg_stream_run(struct rte_graph *g, struct rte_node *node, struct sl_worker *w,
			      struct sl_pg_stream *s)
{
	uint16_t n = stream_quota(s, RTE_GRAPH_BURST_SIZE);
	if (!n)
		goto done;
	/* a stream that starts at ethernet-input enters like a received frame: through the
	 * interface's device-input features and its L2 mode when it has them */
	uint16_t next = s->next == PG_NEXT_ETH
				? sl_feature_first(SL_ARC_DEVICE_INPUT, s->port, pg_arc,
						   sl_ifaces[s->port].mode)
				: s->next;
	struct rte_mbuf **m = (struct rte_mbuf **)rte_node_next_stream_get(g, node, next, n);
	/* like a PMD's rx: only the first cache line is written (rte_pktmbuf_alloc_bulk also
	 * writes the second) */
	uint8_t *bufs[RTE_GRAPH_BURST_SIZE];
	if (sl_mbuf_get_rearm(sl_pool, m, bufs, n, s->port)) {
		s->no_buffers += n;
		w->errors[pg_err] += n;
		return 0;
	}
	uint16_t lens[RTE_GRAPH_BURST_SIZE];
	uint64_t bytes = 0;
	sl_pg_build_burst(s, s->sent, bufs, lens, n);
	for (uint16_t i = 0; i < n; i++) {
		m[i]->data_len = lens[i];
		m[i]->pkt_len = lens[i];
		bytes += lens[i];
	}
	if (unlikely(sl_ifaces[s->port].pg_rss)) /* the NIC's work: not the data plane's */
		for (uint16_t i = 0; i < n; i++)
			if (sl_pg_rss(bufs[i], lens[i], s->next == PG_NEXT_ETH, &m[i]->hash.rss))
				m[i]->ol_flags = RTE_MBUF_F_RX_RSS_HASH;
	rte_node_next_stream_put(g, node, next, n);
	s->sent += n;
	s->bytes += bytes;
	w->ifc[s->port].rx_pkts += n;
	w->ifc[s->port].rx_bytes += bytes;
done:
	if (s->limit && s->sent >= s->limit)
		__atomic_store_n(&s->enabled, false, __ATOMIC_RELEASE);
	return n;
}

static uint16_t pg_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t nb)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t total = 0;
	(void)objs;
	(void)nb;
	if (likely(!nb_on_worker[w->id]))
		return 0;
	uint64_t t0 = rte_rdtsc();
	for (int i = 0; i < SL_PG_MAX_STREAMS; i++) {
		struct sl_pg_stream *s = __atomic_load_n(&streams[i], __ATOMIC_ACQUIRE);
		if (s && s->worker == w->id && __atomic_load_n(&s->enabled, __ATOMIC_ACQUIRE))
			total += pg_stream_run(g, node, w, s);
	}
	sl_source_busy(w, SL_SRC_PG, total, t0);
	return total;
}

static struct rte_node_register pg_node = {
	.name = "pg-input",
	.flags = RTE_NODE_SOURCE_F,
	.process = pg_process,
	.init = sl_node_init,
	.nb_edges = PG_NB_NEXT,
	.next_nodes = {SL_MODE_NODES, "ip4-input"},
};
SL_NODE_REGISTER(pg_node)

RTE_INIT(pg_arc_init)
{
	sl_feature_start(SL_ARC_DEVICE_INPUT, "pg-input", pg_arc);
}

/* ---------------- CLI ---------------- */

static int cmd_create_pg(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: create packet-generator interface pgN [mac-address MAC] "
			    "[pcap FILE] [rss]";
	if (argc < 2 || strcmp(argv[0], "interface"))
		return sl_out_error(o, "%s", usage);
	const char *name = argv[1], *pcap = NULL;
	char *end;
	if (strncmp(name, "pg", 2) || !name[2] || (strtoul(name + 2, &end, 10), *end))
		return sl_out_error(o, "a packet-generator interface is named pgN, not '%s'", name);
	if (sl_iface_by_name(name))
		return sl_out_error(o, "interface '%s' exists", name);
	struct rte_ether_addr mac = {{0x02, 0xfe, 0, 0, 0, (uint8_t)strtoul(name + 2, NULL, 10)}};
	bool rss = false;
	for (int i = 2; i < argc; i += 2) {
		if (!strcmp(argv[i], "rss")) {
			rss = true;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			return sl_out_error(o, "%s", usage);
		if (!strcmp(argv[i], "mac-address")) {
			if (sl_arg_mac(o, argv[i + 1], mac.addr_bytes))
				return -1;
		} else if (!strcmp(argv[i], "pcap")) {
			pcap = argv[i + 1];
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", argv[i], usage);
		}
	}
	struct sl_iface *f;
	int rc = sl_iface_create(SL_IF_PG, name, &mac, &f);
	if (rc)
		return sl_out_error(o, "cannot create %s: %s", name, strerror(-rc));
	f->pg_rss = rss;
	if (rss)
		__atomic_store_n(&sl_flow_rss, true, __ATOMIC_RELEASE); /* before its first frame */
	if (pcap) {
		struct sl_pcap *p = sl_pg_pcap_open(f->port, pcap);
		if (!p) {
			int e = errno;
			char why[8];
			sl_iface_delete(f, why, sizeof(why));
			return sl_out_error(o, "cannot create %s: pcap %s: %s", name, pcap,
					    strerror(e));
		}
		__atomic_store_n(&f->pcap, p, __ATOMIC_RELEASE);
	}
	sl_out_msg(o, "%s", f->name);
	return 0;
}

static int cmd_delete_pg(struct sl_out *o, int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[0], "interface"))
		return sl_out_error(o, "usage: delete packet-generator interface pgN");
	return sl_iface_delete_named(o, SL_IF_PG, argv[1]);
}
SL_CLI_COMMAND(delete_pg, .path = "delete packet-generator", .usage = "interface pgN",
	       .help = "delete a pg interface that nothing refers to (its pcap is complete)",
	       .fn = cmd_delete_pg)
SL_CLI_COMMAND(create_pg, .path = "create packet-generator", .usage = "interface pgN "
	       "[mac-address MAC] [pcap FILE]",
	       .help = "an interface that counts (or writes to a pcap) what the graph sends it",
	       .fn = cmd_create_pg)

static int find_stream(const char *name)
{
	for (int i = 0; i < SL_PG_MAX_STREAMS; i++)
		if (streams[i] && !strcmp(streams[i]->name, name))
			return i;
	return -1;
}

static void count_on_workers(void)
{
	uint16_t n[SL_MAX_WORKERS + 1] = {0};
	for (int i = 0; i < SL_PG_MAX_STREAMS; i++)
		if (streams[i])
			n[streams[i]->worker]++;
	for (int w = 0; w <= SL_MAX_WORKERS; w++)
		__atomic_store_n(&nb_on_worker[w], n[w], __ATOMIC_RELEASE);
}

int sl_pg_stream_add(struct sl_pg_stream *s, char *err, size_t len)
{
	struct sl_iface *f = sl_iface_by_name(s->ifname);
	int slot = -1;
	if (!f) {
		snprintf(err, len, "unknown interface '%s'", s->ifname);
		goto bad;
	}
	s->port = f->port;
	if (s->worker >= sl_nb_workers) {
		snprintf(err, len, "worker %u does not exist (%u worker%s)", s->worker,
			 sl_nb_workers, sl_nb_workers == 1 ? "" : "s");
		goto bad;
	}
	s->next = strcmp(s->node, "ip4-input") ? PG_NEXT_ETH : PG_NEXT_IP4; /* parser checked */
	if (find_stream(s->name) >= 0) {
		snprintf(err, len, "stream '%s' exists", s->name);
		goto bad;
	}
	for (int i = 0; i < SL_PG_MAX_STREAMS && slot < 0; i++)
		if (!streams[i])
			slot = i;
	if (slot < 0) {
		snprintf(err, len, "at most %d streams", SL_PG_MAX_STREAMS);
		goto bad;
	}
	s->used = true;
	__atomic_store_n(&streams[slot], s, __ATOMIC_RELEASE);
	count_on_workers();
	return 0;
bad:
	sl_pg_free(s);
	rte_free(s);
	return -EINVAL;
}

static int cmd_pg_new(struct sl_out *o, int argc, char **argv)
{
	char err[256];
	struct sl_pg_stream *s = rte_zmalloc("pg_stream", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (!s)
		return sl_out_error(o, "out of memory");
	if (sl_pg_parse(s, argc, argv, err, sizeof(err))) {
		sl_pg_free(s);
		rte_free(s);
		return sl_out_error(o, "packet-generator new: %s", err);
	}
	if (sl_pg_stream_add(s, err, sizeof(err)))
		return sl_out_error(o, "packet-generator new: %s", err);
	return 0;
}
SL_CLI_COMMAND(pg_new, .path = "packet-generator new",
	       .usage = "{ name S [limit N] [rate PPS] [size MIN[-MAX]] [worker W] interface IFACE "
			"[node ethernet-input|ip4-input] data { IP4: SMAC -> DMAC [vlan ID] "
			"UDP: SRC [- END] -> DST [- END] [ttl N] UDP: SPORT[-END] -> DPORT[-END] } "
			"| pcap FILE }",
	       .help = "define a stream (disabled until enable-stream)", .fn = cmd_pg_new)

/* the worker may be inside the stream: wait until it has left every graph walk */
static void stream_quiesce(void)
{
	sl_rcu_sync();
}

static void do_disable(int i)
{
	__atomic_store_n(&streams[i]->enabled, false, __ATOMIC_RELEASE);
	stream_quiesce();
}

static void do_enable(int i)
{
	struct sl_pg_stream *s = streams[i];
	if (s->enabled)
		return;
	stream_quiesce(); /* a worker that just reached the limit has left */
	s->sent = 0;
	s->bytes = 0;
	s->last_tsc = 0;
	s->credit = 0;
	__atomic_store_n(&s->enabled, true, __ATOMIC_RELEASE);
}

static void do_delete(int i)
{
	struct sl_pg_stream *s = streams[i];
	__atomic_store_n(&s->enabled, false, __ATOMIC_RELEASE);
	__atomic_store_n(&streams[i], NULL, __ATOMIC_RELEASE);
	stream_quiesce();
	count_on_workers();
	sl_pg_free(s);
	rte_free(s);
}

/* Applies fn to the named stream, or to all when name is NULL; -ENOENT: no such stream. */
static int streams_do(const char *name, void (*fn)(int slot))
{
	if (name) {
		int i = find_stream(name);
		if (i < 0)
			return -ENOENT;
		fn(i);
		return 0;
	}
	for (int i = 0; i < SL_PG_MAX_STREAMS; i++)
		if (streams[i])
			fn(i);
	return 0;
}

int sl_pg_stream_enable(const char *name, bool on)
{
	return streams_do(name, on ? do_enable : do_disable);
}

int sl_pg_stream_delete(const char *name)
{
	return name ? streams_do(name, do_delete) : -EINVAL;
}

static int each_stream(struct sl_out *o, int argc, char **argv, const char *verb,
		       int (*fn)(const char *name, bool on), bool on)
{
	if (argc > 1)
		return sl_out_error(o, "usage: packet-generator %s [NAME]", verb);
	if (fn(argc == 1 ? argv[0] : NULL, on))
		return sl_out_error(o, "unknown stream '%s'", argv[0]);
	return 0;
}

static int stream_delete(const char *name, bool on)
{
	(void)on;
	return sl_pg_stream_delete(name);
}

static int cmd_pg_enable(struct sl_out *o, int argc, char **argv)
{
	return each_stream(o, argc, argv, "enable-stream", sl_pg_stream_enable, true);
}
SL_CLI_COMMAND(pg_enable, .path = "packet-generator enable-stream", .usage = "[NAME]",
	       .help = "start a stream (all without a name); its count starts again",
	       .fn = cmd_pg_enable)

static int cmd_pg_disable(struct sl_out *o, int argc, char **argv)
{
	return each_stream(o, argc, argv, "disable-stream", sl_pg_stream_enable, false);
}
SL_CLI_COMMAND(pg_disable, .path = "packet-generator disable-stream", .usage = "[NAME]",
	       .help = "stop a stream (all without a name)", .fn = cmd_pg_disable)

static int cmd_pg_delete(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: packet-generator delete NAME");
	return each_stream(o, argc, argv, "delete", stream_delete, false);
}
SL_CLI_COMMAND(pg_delete, .path = "packet-generator delete", .usage = "NAME",
	       .help = "remove a stream", .fn = cmd_pg_delete)

static int cmd_show_pg(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "streams", 11,
		     (const char *[]){"name", "state", "worker:u", "interface", "node", "source",
				      "size", "limit:u", "rate:u", "sent:u", "bytes:u"});
	for (int i = 0; i < SL_PG_MAX_STREAMS; i++) {
		const struct sl_pg_stream *s = streams[i];
		if (!s)
			continue;
		char v[6][32];
		snprintf(v[0], 32, "%u", s->worker);
		if (s->npcap)
			snprintf(v[1], 32, "pcap");
		else if (s->size_min == s->size_max)
			snprintf(v[1], 32, "%u", s->size_min);
		else
			snprintf(v[1], 32, "%u-%u", s->size_min, s->size_max);
		snprintf(v[2], 32, "%" PRIu64, s->limit);
		snprintf(v[3], 32, "%" PRIu64, s->rate);
		snprintf(v[4], 32, "%" PRIu64, s->sent);
		snprintf(v[5], 32, "%" PRIu64, s->bytes);
		sl_tbl_row(o, s->name, s->enabled ? "enabled" : "disabled", v[0],
			   sl_ifaces[s->port].name, pg_nexts[s->next], s->source, v[1], v[2], v[3],
			   v[4], v[5]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_pg, .path = "show packet-generator", .usage = "",
	       .help = "streams: state, worker, where they start, packets sent", .fn = cmd_show_pg)

static void pg_fini(void)
{
	for (uint32_t i = 0; i < sl_if_hwm; i++)
		if (sl_ifaces[i].used && sl_ifaces[i].pcap) {
			sl_pcap_close(sl_ifaces[i].pcap);
			sl_ifaces[i].pcap = NULL;
		}
	for (int i = 0; i < SL_PG_MAX_STREAMS; i++)
		if (streams[i]) {
			sl_pg_free(streams[i]);
			rte_free(streams[i]);
			streams[i] = NULL;
		}
}

/* An interface that a stream sends from is not deleted; a pg interface's pcap is completed
 * when it goes. */
static int pg_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	if (commit && f->pcap)
		sl_pcap_close(f->pcap);
	for (int i = 0; !commit && i < SL_PG_MAX_STREAMS; i++)
		if (streams[i] && streams[i]->port == f->port) {
			snprintf(why, len, "stream %s sends from %s (packet-generator delete %s)",
				 streams[i]->name, f->name, streams[i]->name);
			return 1;
		}
	return 0;
}

RTE_INIT(pg_busy_init)
{
	sl_iface_busy_register(pg_busy);
}

SL_MODULE_REGISTER(pg_module, .name = "packet generator", .fini = pg_fini)
