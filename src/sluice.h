/* SPDX-License-Identifier: BSD-3-Clause */
/* Sluice: shared definitions for the data plane (packet metadata, workers, errors). */
#ifndef SLUICE_H
#define SLUICE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_rcu_qsbr.h>

#define SL_VERSION "0.1.0"
#define SL_MAX_PORTS 32      /* DPDK ports */
#define SL_IF_MAX 65536      /* interfaces of every type: indexes fit mbuf->port */
#define SL_MAX_WORKERS 32
#define SL_MAX_ERRORS 512
#define SL_MAX_RXQ 16
#define SL_PUNT_RING_SIZE 1024

/* ---- per-packet metadata: every field a node passes to the next, in one place ----
 *
 * First cache line (every node reads it anyway):
 *   m->data_off      the L3 offset once ethernet-input has run: the data is the L3 header,
 *                    and the Ethernet header (its tags popped) lies just before it
 *   m->port          ingress interface (port-rx/pg-input set the port, ethernet-input a
 *                    sub-interface's index, loop-output/bvi-output the interface's own)
 *   m->hash.rss      flow hash: the port's RSS hash when RTE_MBUF_F_RX_RSS_HASH is set;
 *                    nothing overwrites it (ECMP and tunnels' source ports read it; ECMP
 *                    only while sl_flow_rss says that some port was set up to give it)
 *   struct sl_meta   over hash.fdir.hi and vlan_tci_outer, written per packet on the path:
 *                    the adjacency and the egress interface
 * Second cache line, DPDK's dynamic field area (rte_pktmbuf_free reads this line anyway):
 *   struct sl_meta2  what only exceptional packets or later features need: the drop reason,
 *                    ICMP requests, the punt reason, a FIB table chosen ahead of ip4-lookup,
 *                    a traced packet's number, and spare bytes for the next features
 * Flags, in ol_flags (dynamic flags, so every receive clears them):
 *   sl_flag_trace    the packet is traced (show trace)
 *   sl_flag_fib      sl_meta2.fib chose the table, not the ingress interface
 *   sl_flag_qos      sl_meta2.qos_subport/qos_pipe chose the packet's QoS pipe
 * In the private area (after struct rte_mbuf) the metadata was a third line per packet and
 * a vector of 256 no longer fitted in L1 (make bench-graph: BENCHMARKS.md). */
struct sl_meta {
	uint32_t adj;     /* adjacency (next hop and rewrite) chosen by ip4-lookup */
	uint16_t tx_if;   /* egress interface, for output nodes that serve several */
} __attribute__((packed));
_Static_assert(offsetof(struct rte_mbuf, hash) + 4 + sizeof(struct sl_meta) <=
		       offsetof(struct rte_mbuf, buf_len),
	       "sl_meta spans hash.fdir.hi and vlan_tci_outer only");
_Static_assert(offsetof(struct rte_mbuf, buf_len) < RTE_CACHE_LINE_MIN_SIZE,
	       "sl_meta is in the first cache line");
#define SL_MBUF_PRIV 0

static inline struct sl_meta *sl_meta(struct rte_mbuf *m)
{
	return (struct sl_meta *)((uint8_t *)&m->hash + 4);
}

struct sl_meta2 {
	uint16_t error;   /* error id for error-drop */
	uint16_t icmp;    /* ICMP type << 8 | code requested from icmp4-error */
	uint16_t mtu;     /* the egress MTU, for ICMP fragmentation needed */
	uint16_t punt;    /* why the packet goes to the main lcore (SL_PUNT_*) */
	uint16_t fib;     /* FIB table index, when sl_flag_fib is set */
	uint16_t qos_subport, qos_pipe; /* hierarchical QoS: the packet's subport and pipe,
					 * when sl_flag_qos is set (a subscriber, a VLAN) */
	uint16_t trace;   /* a traced packet's number (with sl_flag_trace) */
};
/* Registered at this offset (sl_meta_register), the end of the dynamic field area, so that
 * the compiler knows it: PMDs' own fields (the Rx timestamp) take the first free bytes. */
#define SL_META2_OFF (sizeof(struct rte_mbuf) - 16)
_Static_assert(sizeof(struct sl_meta2) == 16, "sl_meta2 is 16 bytes");
_Static_assert(SL_META2_OFF >= offsetof(struct rte_mbuf, dynfield1), "in the dynfield area");

static inline struct sl_meta2 *sl_meta2(struct rte_mbuf *m)
{
	return (struct sl_meta2 *)((uint8_t *)m + SL_META2_OFF);
}

extern uint64_t sl_flag_trace, sl_flag_fib, sl_flag_qos; /* ol_flags masks */

/* Some port was set up to give the RSS hash (a port with several receive queues whose
 * device hashes some of IP, UDP and TCP; a pg interface with rss): set before that port's
 * first packet, never cleared. Until then the lookups' ECMP computes every packet's flow
 * hash without testing the packet for one (a driver that gives a hash unasked has its
 * packets hashed as every other port's, each flow alike); from then on, a packet's RSS hash
 * when it has one. */
extern bool sl_flow_rss;

/* Why a packet goes to the main lcore (sl_meta2.punt); each reason's handler registers from
 * a constructor (sl_punt_register) and the main lcore calls sl_punt on what it drains. */
enum { SL_PUNT_ARP = 1, SL_PUNT_GLEAN, SL_PUNT_ND6, SL_PUNT_GLEAN6, SL_PUNT_LL6, SL_PUNT_RS6,
       SL_PUNT_MLD6, SL_PUNT_PPPOE_DISC, SL_PUNT_PPP, SL_PUNT_DHCP, SL_PUNT_DHCP_RELAY,
       SL_PUNT_PING, SL_PUNT_NB };
void sl_punt_register(uint16_t reason, void (*fn)(struct rte_mbuf *m));
/* Hands a punted packet to its reason's handler, which frees it. */
void sl_punt(struct rte_mbuf *m);
/* Reserves sl_meta2 and the flags with DPDK's dynamic mbuf fields; after rte_eal_init. */
int sl_meta_register(void);

/* The packet pool, and the pool of indirect mbufs for fragments (sluiced.c). */
extern struct rte_mempool *sl_pool, *sl_indirect_pool;

/* ---- errors: every drop has a named reason, counted per worker ---- */
struct sl_error_desc {
	const char *node;
	const char *reason;
};
extern struct sl_error_desc sl_errors[SL_MAX_ERRORS];
extern uint16_t sl_nb_errors;
/* Registers the reasons of one node; returns the id of the first one. */
uint16_t sl_error_register(const char *node, const char *const *reasons, uint16_t n);

/* Declare a node's errors with an X-macro list: X(ENUM, "reason"). */
#define SL_ERR_ENUM(e, s) e,
#define SL_ERR_STR(e, s) s,

/* ---- workers ---- */
struct sl_rxq {
	uint16_t port;
	uint16_t queue;
	/* written by the polling worker only: when port-rx last polled the queue, and the
	 * longest time between two of its polls (TSC cycles; show interface rx-placement) */
	uint64_t last, max_gap;
};
struct sl_rxq_list {
	uint16_t n;
	struct sl_rxq q[SL_MAX_PORTS * SL_MAX_RXQ];
};

/* What the nodes read of an interface, one cache line an interface (seed 003's read-mostly
 * line; its written counterpart, per worker, is struct sl_if_counters): a packet to a
 * subscriber session reads its tx slot and MTU, its features, the classifier an ACL put
 * there and the session's own data in this one line, where each was a table of its own (a
 * line each to fetch out of 20,000 sessions', docs/lab-notes.md, session 29).
 *   tx_slot, mtu, up, out_slot  copies of struct sl_iface's fields of the same names,
 *                    written only with them (iface.c)
 *   features         per arc: bit f = feature f on (feature.c)
 *   slot             a pointer for each feature that keeps one per interface (an ACL's
 *                    classifier in each direction: sl_if_slot_register)
 *   type             the interface type's own data (a PPPoE session's header and state,
 *                    an IPoE session's address), zeroed when the interface is made and
 *                    when it goes; written by its type's module only, read after the
 *                    interface was made, so a worker never sees another type's */
#define SL_IF_FAST_ARCS 4
#define SL_IF_SLOTS 2
#define SL_IF_TYPE_DATA 32
struct sl_if_fast {
	uint16_t tx_slot;
	uint16_t mtu;
	uint8_t up;
	uint8_t pad;
	uint16_t out_slot;  /* its own output (set once, when it is made) */
	uint8_t features[SL_IF_FAST_ARCS];
	uint8_t pad2[4];
	void *slot[SL_IF_SLOTS];
	uint8_t type[SL_IF_TYPE_DATA] __rte_aligned(8);
} __rte_cache_aligned;
_Static_assert(sizeof(struct sl_if_fast) == 64, "one cache line an interface");
extern struct sl_if_fast sl_if_fast[SL_IF_MAX];
/* From a constructor: a pointer slot of sl_if_fast for the caller's own use (owner names it
 * in the panic when none is left); returns its index. */
unsigned sl_if_slot_register(const char *owner);

/* One cache line each (the seven counters would otherwise straddle two for most
 * interfaces: a packet to each of 20,000 sessions then misses twice). */
struct sl_if_counters {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
	uint64_t drops;
	uint64_t tx_error;
	uint64_t punts;
} __rte_cache_aligned;

/* A run of one interface's packets counted by a node in its own values (registers) and added
 * to the interface's counters c (received, or sent when tx) as the run ends: added to the
 * counters packet by packet, each add would wait for the one before's store. */
struct sl_if_run {
	uint64_t pkts, bytes;
};

static inline void sl_if_run_flush(struct sl_if_counters *c, struct sl_if_run *r, bool tx)
{
	if (r->pkts) {
		*(tx ? &c->tx_pkts : &c->rx_pkts) += r->pkts;
		*(tx ? &c->tx_bytes : &c->rx_bytes) += r->bytes;
		r->pkts = r->bytes = 0;
	}
}

/* Source nodes, which time their own busy calls (sl_source_busy). */
enum sl_source { SL_SRC_PORT_RX, SL_SRC_PG, SL_SRC_NOISY_FIFO, SL_SRC_QOS, SL_NB_SOURCES };
#define SL_SOURCE_NAMES "port-rx", "pg-input", "noisy-fifo", "qos-sched"

/* Turns timed by port-rx: how many, the longest, and how many fell in each bucket: bucket
 * 0 under 2^SL_TURN_SHIFT0 cycles, bucket b in [2^(SHIFT0+b-1), 2^(SHIFT0+b)), the last
 * everything longer. clear is set by the main lcore (clear runtime) and acted on by the
 * worker, the only writer of the rest. */
#define SL_TURN_SHIFT0 8
#define SL_TURN_BUCKETS 24
#define SL_NODE_IDS 256 /* node ids the walk times (rte_node_max_count() is checked) */
struct sl_turns {
	uint64_t last, n, max;
	uint64_t hist[SL_TURN_BUCKETS];
	uint64_t node_max[SL_NODE_IDS]; /* each node's longest call, by node id (the walk's) */
	volatile bool clear;
};

static inline unsigned sl_turn_bucket(uint64_t cycles)
{
	uint64_t k = cycles >> SL_TURN_SHIFT0;
	unsigned b = k ? 64 - (unsigned)__builtin_clzll(k) : 0;
	return b < SL_TURN_BUCKETS ? b : SL_TURN_BUCKETS - 1;
}

/* One turn ended at now (called once per port-rx call). */
static inline void sl_turn_note(struct sl_turns *t, uint64_t now)
{
	if (unlikely(t->clear)) {
		memset(t->hist, 0, sizeof(t->hist));
		memset(t->node_max, 0, sizeof(t->node_max));
		t->n = t->max = 0;
		t->clear = false;
	} else if (likely(t->last)) {
		uint64_t d = now - t->last;
		t->n++;
		t->hist[sl_turn_bucket(d)]++;
		if (unlikely(d > t->max))
			t->max = d;
	}
	t->last = now;
}

struct sl_worker {
	uint16_t id;       /* worker index; also its TX queue on every port */
	uint16_t lcore;
	uint32_t rcu_id;
	struct rte_graph *graph;
	rte_graph_t graph_id;
	struct sl_rxq_list *rxqs;     /* swapped by main with a release store */
	struct rte_ring *punt;        /* SP/SC ring to the main lcore */
	uint64_t icmp_tokens;         /* ICMP error rate limiter */
	uint64_t icmp_last;
	/* source nodes' calls that produced packets, and their cycles: show runtime reports
	 * these, not the empty polls */
	struct {
		uint64_t calls, cycles;
	} busy[SL_NB_SOURCES];
	/* the loop's turns as port-rx sees them, from one of its calls to the next: what the
	 * RX queues wait between two polls (show runtime's stall fields) */
	struct sl_turns turns;
	volatile bool quit;
	uint64_t errors[SL_MAX_ERRORS] __rte_cache_aligned;
	/* per interface; pages of indexes never used are never touched */
	struct sl_if_counters ifc[SL_IF_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

extern struct sl_worker sl_workers[SL_MAX_WORKERS + 1]; /* last one: main lcore */
#define sl_main_ctx (&sl_workers[SL_MAX_WORKERS])
extern struct sl_worker *sl_graph_creating; /* set while a graph is built */
extern uint16_t sl_nb_workers;   /* graphs; the main lcore is graph 0 when no workers */
extern struct rte_rcu_qsbr *sl_rcu;


/* ---- registration: what a node handles, and which nodes a graph holds ----
 * A node joins every worker's graph by registering with SL_NODE_REGISTER (clones such as
 * port-tx-P are added by their owner). A dispatching node keeps a table key -> edge that
 * other files fill from their constructors (sl_dispatch_register): ethertype ->
 * node (ethernet-input), IP protocol -> node (ip4-local), UDP port -> node (ip4-udp-local),
 * adjacency type -> node (ip4-lookup). The edges are added before the first graph is made;
 * an unregistered key keeps edge 0, the dispatcher's own "not handled" edge. */
void sl_graph_member(const char *node_name);
#define SL_NODE_REGISTER(node)                                                            \
	RTE_NODE_REGISTER(node);                                                          \
	RTE_INIT(sl_member_##node)                                                        \
	{                                                                                 \
		sl_graph_member(node.name);                                               \
	}

#define SL_DISPATCH_MAX 32
struct sl_dispatch {
	const char *from;   /* the dispatching node */
	uint16_t *next;     /* next[key] */
	uint32_t nkeys;
	bool key_be16;                 /* keys are 16-bit values in network order */
	bool key_hex;                  /* shown in hex (ethertypes) */
	const char *const *key_names;  /* or names for show graph */
	uint16_t n;
	struct {
		uint32_t key;
		const char *to;
	} reg[SL_DISPATCH_MAX];
	struct sl_dispatch *link;
};
/* From a constructor: packets with this key go to node `to`. */
void sl_dispatch_register(struct sl_dispatch *d, uint32_t key, const char *to);
/* Main lcore, graphs made: packets with key go where those with `like` (registered) go, until
 * sl_dispatch_unalias; -EEXIST when key is registered or aliased already (a tunnel's own UDP
 * port). Workers see the change at once (one 16-bit store). */
int sl_dispatch_alias(struct sl_dispatch *d, uint32_t key, uint32_t like);
void sl_dispatch_unalias(struct sl_dispatch *d, uint32_t key);
/* The registered node of a key, or NULL (show graph, tests). */
const char *sl_dispatch_name(const struct sl_dispatch *d, uint32_t key);

/* *a += x and *b += y as two scalar adds. A loop's two sums (packets, bytes) added to two
 * adjacent counters at its end: gcc pairs them in a vector register, and then keeps the sums
 * in one through the loop (a move in and out every iteration). */
static inline void sl_add2(uint64_t *a, uint64_t x, uint64_t *b, uint64_t y)
{
	__asm__("" : "+r"(x), "+r"(y));
	*a += x;
	*b += y;
}

/* Every node keeps its worker in the first word of its context (set by sl_node_init). */
static inline struct sl_worker *sl_node_worker(const struct rte_node *node)
{
	return *(struct sl_worker *const *)node->ctx;
}
int sl_node_init(const struct rte_graph *graph, struct rte_node *node);

/* The bytes of n packets, for the interface counters: four at a time (6 -> about 4
 * instructions a packet under callgrind). */
static inline uint64_t sl_sum_pkt_len(struct rte_mbuf *const *m, uint16_t n)
{
	uint64_t a = 0, b = 0;
	uint32_t i = 0;
	for (; i + 4 <= n; i += 4) {
		a += m[i]->pkt_len + m[i + 1]->pkt_len;
		b += m[i + 2]->pkt_len + m[i + 3]->pkt_len;
	}
	for (; i < n; i++)
		a += m[i]->pkt_len;
	return a + b;
}

/* Send the whole vector to edge nx: moved in one step when it is the node's own stream. */
static inline void sl_enqueue_all(struct rte_graph *g, struct rte_node *node, void **objs,
				  uint16_t n, uint16_t nx)
{
	if (likely(objs == node->objs && n == node->idx))
		rte_node_next_stream_move(g, node, nx);
	else
		rte_node_enqueue(g, node, nx, objs, n);
}

/* Send the vector to per-packet next edges, moving runs in bulk. */
static inline void sl_enqueue_nexts(struct rte_graph *g, struct rte_node *node, void **objs,
				    const uint16_t *nexts, uint16_t n)
{
	uint16_t i = 0;
	if (n == 0)
		return;
	uint16_t first = nexts[0];
	/* the usual vector takes one edge: compare four nexts at a time */
	uint64_t pat = first * 0x0001000100010001ull, v;
	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(&v, nexts + i, 8);
		if (v != pat)
			break;
	}
	for (; i < n && nexts[i] == first; i++)
		;
	/* sl_enqueue_all's test written out: through the call, ip4-rewrite's loop took one
	 * instruction a packet more (registers) */
	if (i == n && objs == node->objs && n == node->idx) {
		rte_node_next_stream_move(g, node, first);
		return;
	}
	uint16_t start = 0;
	while (start < n) {
		uint16_t nx = nexts[start], end = start + 1;
		while (end < n && nexts[end] == nx)
			end++;
		rte_node_enqueue(g, node, nx, objs + start, end - start);
		start = end;
	}
}

/* The usual node: each packet's next edge from one(), then the vector out by sl_enqueue_nexts
 * (one() is inlined: the function is always inlined with a constant pointer). */
static __rte_always_inline uint16_t
sl_node_each(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n,
	     uint16_t (*one)(struct sl_worker *w, struct rte_mbuf *m))
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n ? n : 1]; /* a stream can outgrow a burst */
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = one(w, objs[i]);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}
/* A node's process function `name` that is sl_node_each over one(). */
#define SL_NODE_EACH(name, one)                                                           \
	static uint16_t name(struct rte_graph *g, struct rte_node *node, void **objs,     \
			     uint16_t n)                                                   \
	{                                                                                 \
		return sl_node_each(g, node, objs, n, one);                               \
	}

/* In a node's loop over a vector: the mbuf 8 ahead, and the packet data 4 ahead (its address
 * comes from the mbuf fetched 4 iterations earlier). For the first node to read a packet
 * (ethernet-input, l2-bridge; the L2 modes do without, see src/l2/fwd_node.c); the nodes
 * after it on the routing path (ip4-input, ip4-lookup, ip4-rewrite) find both lines where
 * that node left them, and there the prefetch's instructions (about 9 a packet) cost more
 * than they save: without them the routing nodes went from about 36-37 to 32-33
 * clocks/packet at bench-graph's fast level. */
static inline void sl_prefetch_ahead(void **objs, uint16_t i, uint16_t n)
{
	if (i + 8 < n)
		rte_prefetch0(objs[i + 8]);
	if (i + 4 < n)
		rte_prefetch0(rte_pktmbuf_mtod((struct rte_mbuf *)objs[i + 4], void *));
}

/* A source node's call that produced n packets since t0 (rte_rdtsc) counts as busy. */
static inline void sl_source_busy(struct sl_worker *w, enum sl_source src, uint16_t n, uint64_t t0)
{
	if (n) {
		w->busy[src].calls++;
		w->busy[src].cycles += rte_rdtsc() - t0;
	}
}

/* Mark a packet dropped with an error id. */
static inline void sl_set_error(struct rte_mbuf *m, uint16_t err)
{
	sl_meta2(m)->error = err;
}

#endif
