/* SPDX-License-Identifier: BSD-3-Clause */
/* PPPoE's data path. pppoed-input (ethertype 0x8863): discovery punted to the main lcore on an
 * access interface. pppoe-input (0x8864): the session by its id, checked against the access
 * interface and the client's MAC; IPv4 (PPP 0x0021) or IPv6 (0x0057, once IPv6CP is open)
 * stripped of its 8 bytes of PPPoE and PPP and handed to ip4-input or ip6-input as received
 * on the session's interface (or, when the session has
 * device-input features, an ACL or a policer, made an Ethernet frame again and given to
 * them, as a sub-interface's frames are); PPP's control protocols punted. pppoe-output, the session type's output node: what ip4-rewrite sent (an Ethernet
 * header it wrote from the session's point-to-point adjacency) gets the client's Ethernet
 * header, PPPoE and PPP instead, out of the access interface. */
#include "pppoe.h"
#include "../ethernet/ethernet.h"
#include <rte_cycles.h>
#include "../runtime/feature.h"

#define PI_ERRORS(X)                                                         \
	X(PI_ERR_OFF, "PPPoE not enabled on the interface")                  \
	X(PI_ERR_SHORT, "PPPoE frame truncated (length beyond the frame)")  \
	X(PI_ERR_VER, "PPPoE version/type not 1/1 or code not 0")          \
	X(PI_ERR_SESSION, "no such PPPoE session (id, interface, client MAC)") \
	X(PI_ERR_DOWN, "PPP protocol not up on the session (IPCP or IPv6CP)") \
	X(PI_ERR_RATE, "control packets over the rate (set pppoe control-rate)")
enum { PI_ERRORS(SL_ERR_ENUM) PI_NB_ERR };
static const char *const pi_reasons[] = {PI_ERRORS(SL_ERR_STR)};
static uint16_t pi_err, pd_err;

enum { PI_NEXT_DROP, PI_NEXT_IP4, PI_NEXT_PUNT, PI_NEXT_IP6, PI_NB_NEXT };
static uint16_t pi_arc[SL_ARC_MAX_FEATS]; /* the device-input features */

uint32_t sl_pppoe_ctl_rate = 1000;

struct sl_ctl_rate sl_ctl_rates[SL_MAX_WORKERS + 1][SL_PPPOE_NB_CL];

/* The client's MAC: the frame's source, in the 14 bytes before the data (ethernet-input
 * strips the header, and a sub-interface's tags after moving the MACs up to them). */
static inline const uint8_t *src_mac(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const uint8_t *) - RTE_ETHER_HDR_LEN + RTE_ETHER_ADDR_LEN;
}

/* The PPPoE session id of a frame (pppoe-input's packets start at the PPPoE header; a frame
 * too short to hold one reads bytes of its buffer's headroom, harmless for a prefetch). */
static inline uint16_t pi_sid(void *obj)
{
	const uint8_t *h = rte_pktmbuf_mtod((struct rte_mbuf *)obj, const uint8_t *);
	return (uint16_t)(h[2] << 8 | h[3]);
}

/* The session of the vector's last packet: runs of one session are the rule. With runs
 * (a vector of one session, mostly), its packets and bytes are counted in run
 * (sl_if_run_flush). */
struct pi_cache {
	uint16_t sid, ifx;
	const struct sl_if_fast *f;     /* its interface's line (NULL: no session) */
	struct sl_if_counters *ctr;     /* and counters */
	struct sl_if_run run;           /* with runs: the run's, not yet in ctr */
};

/* IPv4, or IPv6 when v6 (a constant at each call, so each path is its own), of c's session
 * (its state, interface c->ifx; len bytes of PPPoE payload): stripped of PPPoE and PPP for
 * ip4-input or ip6-input as received on c->ifx; or, when it has device-input features, the MACs moved 8
 * bytes on and the protocol's ethertype written over PPP's: an Ethernet frame for the first
 * feature, whose arc ends in the session's mode. Dropped while its NCP is not open. */
static __rte_always_inline uint16_t pi_ip(struct rte_mbuf *m, struct pi_cache *c,
					  uint8_t state, uint16_t len, bool v6, bool runs)
{
	const struct sl_if_fast *f = c->f;
	if (unlikely(!(state & (v6 ? SL_PPPOE_IP6 : SL_PPPOE_IP4)) || !f->up)) {
		sl_set_error(m, pi_err + PI_ERR_DOWN);
		return PI_NEXT_DROP;
	}
	if (unlikely(m->pkt_len != (uint32_t)SL_PPPOE_HDR + len)) /* padding after PPPoE's length */
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - SL_PPPOE_HDR - len));
	m->port = c->ifx;
	if (runs) {
		c->run.pkts++;
		c->run.bytes += len - 2u;
	} else {
		c->ctr->rx_pkts++;
		c->ctr->rx_bytes += len - 2u;
	}
	uint8_t feats = __atomic_load_n(&f->features[SL_ARC_DEVICE_INPUT], __ATOMIC_RELAXED);
	if (likely(!feats)) { /* the 8 bytes of PPPoE and PPP off (all in this segment) */
		m->data_off += SL_PPPOE_HDR + 2;
		m->data_len -= SL_PPPOE_HDR + 2;
		m->pkt_len -= SL_PPPOE_HDR + 2;
		return v6 ? PI_NEXT_IP6 : PI_NEXT_IP4;
	}
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t et = v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
	memmove(d + 8 - RTE_ETHER_HDR_LEN, d - RTE_ETHER_HDR_LEN, 2 * RTE_ETHER_ADDR_LEN);
	d[6] = (uint8_t)(et >> 8);
	d[7] = (uint8_t)et;
	rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN - 8); /* data_off >= 14: checked */
	return pi_arc[__builtin_ctz(feats)];
}

static __rte_always_inline uint16_t pi_one(struct sl_worker *w, struct rte_mbuf *m,
					   struct pi_cache *c, bool runs)
{
	uint16_t e;
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	if (unlikely(!sl_pppoe_access[m->port])) {
		e = PI_ERR_OFF;
		goto drop;
	}
	if (unlikely(m->data_len < SL_PPPOE_HDR + 2 || m->data_off < RTE_ETHER_HDR_LEN)) {
		e = PI_ERR_SHORT;
		goto drop;
	}
	uint16_t len = (uint16_t)(h[4] << 8 | h[5]);
	if (unlikely(h[0] != 0x11 || h[1] != 0)) {
		e = PI_ERR_VER;
		goto drop;
	}
	if (unlikely(len < 2 || len > m->data_len - SL_PPPOE_HDR)) {
		e = PI_ERR_SHORT;
		goto drop;
	}
	uint16_t sid = (uint16_t)(h[2] << 8 | h[3]);
	if (unlikely(sid != c->sid || !c->f)) {
		if (runs)
			sl_if_run_flush(c->ctr, &c->run, false);
		c->sid = sid;
		c->ifx = __atomic_load_n(&sl_pppoe_sid_if[sid], __ATOMIC_ACQUIRE);
		c->f = c->ifx ? &sl_if_fast[c->ifx] : NULL;
		c->ctr = &w->ifc[c->ifx];
	}
	const struct sl_pppoe_dp *s = c->f ? sl_pppoe_dp_in(c->f) : NULL;
	uint64_t mac;
	memcpy(&mac, src_mac(m), 8); /* the source MAC and the ethertype after it */
	uint8_t state = s ? __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) : 0;
	if (unlikely(!(state & SL_PPPOE_LIVE) || s->access != m->port ||
		     (mac & RTE_LEN2MASK(48, uint64_t)) != s->mac48)) {
		e = PI_ERR_SESSION;
		goto drop;
	}
	uint16_t proto = (uint16_t)(h[6] << 8 | h[7]);
	if (likely(proto == SL_PPP_IP4))
		return pi_ip(m, c, state, len, false, runs);
	if (proto == SL_PPP_IP6)
		return pi_ip(m, c, state, len, true, runs);
	/* LCP, authentication, NCPs and anything else (answered with a protocol reject), each
	 * class within its rate */
	unsigned cl = proto == SL_PPP_LCP				? SL_PPPOE_CL_LCP
		      : proto == SL_PPP_PAP || proto == SL_PPP_CHAP ? SL_PPPOE_CL_AUTH
								    : SL_PPPOE_CL_NCP;
	if (unlikely(!sl_ctl_allow(w, cl))) {
		e = PI_ERR_RATE;
		goto drop;
	}
	sl_meta2(m)->punt = SL_PUNT_PPP;
	return PI_NEXT_PUNT;
drop:
	sl_set_error(m, pi_err + e);
	return PI_NEXT_DROP;
}

/* A vector from many sessions: each one's id slot, then its interface's line (its data and
 * features) and counters fetched a few packets ahead (kept out of line, so that the loop for
 * one session's vector stays as it was). */
static __rte_noinline void pi_many(struct sl_worker *w, void **objs, uint16_t n, uint16_t *nexts)
{
	struct pi_cache c = {.sid = 0, .f = NULL};
	for (uint16_t i = 0; i < n; i++) {
		if (i + 8 < n)
			rte_prefetch0(&sl_pppoe_sid_if[pi_sid(objs[i + 8])]);
		if (i + 4 < n) {
			uint16_t x = sl_pppoe_sid_if[pi_sid(objs[i + 4])];
			rte_prefetch0(&sl_if_fast[x]);
			rte_prefetch0(&w->ifc[x]);
		}
		nexts[i] = pi_one(w, objs[i], &c, false);
	}
}

static uint16_t pppoe_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
				 uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	struct pi_cache c = {.sid = 0, .f = NULL};
	uint16_t nexts[n ? n : 1];
	if (n > 8 && pi_sid(objs[0]) != pi_sid(objs[n - 1])) {
		pi_many(w, objs, n, nexts);
	} else {
		for (uint16_t i = 0; i < n; i++)
			nexts[i] = pi_one(w, objs[i], &c, true);
		sl_if_run_flush(c.ctr, &c.run, false);
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register pi_node = {
	.name = "pppoe-input",
	.process = pppoe_in_process,
	.init = sl_node_init,
	.nb_edges = PI_NB_NEXT,
	.next_nodes = {[PI_NEXT_DROP] = "error-drop", [PI_NEXT_IP4] = "ip4-input",
		       [PI_NEXT_PUNT] = "punt", [PI_NEXT_IP6] = "ip6-input"},
};
SL_NODE_REGISTER(pi_node)

/* ---- pppoed-input: discovery to the main lcore ---- */

static inline uint16_t pd_one(struct sl_worker *w, struct rte_mbuf *m)
{
	uint16_t e = PI_ERR_OFF;
	if (likely(sl_pppoe_access[m->port])) {
		bool ok = m->data_len >= SL_PPPOE_HDR && m->data_off >= RTE_ETHER_HDR_LEN;
		if (likely(ok && sl_ctl_allow(w, SL_PPPOE_CL_DISC))) {
			sl_meta2(m)->punt = SL_PUNT_PPPOE_DISC;
			return PI_NEXT_PUNT;
		}
		e = ok ? PI_ERR_RATE : PI_ERR_SHORT;
	}
	sl_set_error(m, pd_err + e);
	return PI_NEXT_DROP;
}

SL_NODE_EACH(pppoe_disc_process, pd_one)

static struct rte_node_register pd_node = {
	.name = "pppoed-input",
	.process = pppoe_disc_process,
	.init = sl_node_init,
	.nb_edges = PI_NEXT_IP6, /* pppoe-input's first three */
	.next_nodes = {[PI_NEXT_DROP] = "error-drop", [PI_NEXT_IP4] = "ip4-input",
		       [PI_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(pd_node)

/* ---- pppoe-output ---- */

#define PO_ERRORS(X)                                                   \
	X(PO_ERR_DOWN, "session down, or not up for the protocol (IPCP, IPv6CP)") \
	X(PO_ERR_NOT_IP, "neither IPv4 nor IPv6")                      \
	X(PO_ERR_HEADROOM, "no headroom for PPPoE and PPP")
enum { PO_ERRORS(SL_ERR_ENUM) PO_NB_ERR };
static const char *const po_reasons[] = {PO_ERRORS(SL_ERR_STR)};
static uint16_t po_err;

enum { PO_NEXT_DROP, PO_NB_STATIC };
static rte_edge_t po_tx0;

/* The session of the vector's last packet, and the edge to its access interface; with runs,
 * the run's packets and bytes not yet in its counters (sl_if_run_flush). */
struct po_cache {
	uint16_t ifx, next;
	const struct sl_pppoe_dp *s;
	struct sl_if_counters *ctr;
	struct sl_if_run run;
};

static __rte_always_inline uint16_t po_one(struct sl_worker *w, struct rte_mbuf *m,
					   struct po_cache *c, bool runs)
{
	uint16_t ifx = sl_meta(m)->tx_if, e;
	if (unlikely(ifx != c->ifx)) {
		if (runs)
			sl_if_run_flush(c->ctr, &c->run, true);
		c->ifx = ifx;
		c->s = sl_pppoe_dp(ifx);
		if (!(__atomic_load_n(&c->s->state, __ATOMIC_ACQUIRE) & SL_PPPOE_LIVE) ||
		    !sl_if_fast[ifx].up)
			c->s = NULL;
		c->next = c->s ? sl_iface_tx_edge(po_tx0, c->s->access) : PO_NEXT_DROP;
		c->ctr = &w->ifc[ifx];
	}
	const struct sl_pppoe_dp *s = c->s;
	if (unlikely(!s)) {
		e = PO_ERR_DOWN;
		goto drop;
	}
	uint8_t *fr = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t et = m->data_len >= RTE_ETHER_HDR_LEN ? (uint16_t)(fr[12] << 8 | fr[13]) : 0;
	uint16_t proto = likely(et == RTE_ETHER_TYPE_IPV4) ? SL_PPP_IP4 : SL_PPP_IP6;
	uint8_t want = et == RTE_ETHER_TYPE_IPV4 ? SL_PPPOE_IP4 : et == RTE_ETHER_TYPE_IPV6 ? SL_PPPOE_IP6 : 0;
	if (unlikely(!(__atomic_load_n(&s->state, __ATOMIC_RELAXED) & want))) {
		e = et == RTE_ETHER_TYPE_IPV4 || et == RTE_ETHER_TYPE_IPV6 ? PO_ERR_DOWN : PO_ERR_NOT_IP;
		goto drop;
	}
	uint16_t ip_len = (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN);
	if (runs) {
		c->run.pkts++;
		c->run.bytes += ip_len;
	} else {
		c->ctr->tx_pkts++;
		c->ctr->tx_bytes += ip_len;
	}
	uint8_t *h = (uint8_t *)rte_pktmbuf_prepend(m, SL_PPPOE_HDR + 2);
	if (unlikely(!h)) {
		e = PO_ERR_HEADROOM;
		goto drop;
	}
	memcpy(h, s->hdr, sizeof(s->hdr));
	uint32_t tail = rte_cpu_to_be_32((uint32_t)(ip_len + 2) << 16 | proto);
	memcpy(h + sizeof(s->hdr), &tail, 4); /* PPPoE's length, PPP's protocol */
	uint16_t pipe = __atomic_load_n(&s->qos_pipe, __ATOMIC_RELAXED);
	if (pipe) { /* the subscriber's pipe for qos-output on the access interface */
		sl_meta2(m)->qos_subport = 0;
		sl_meta2(m)->qos_pipe = pipe;
		m->ol_flags |= sl_flag_qos;
	}
	sl_meta(m)->tx_if = s->access;
	return c->next;
drop:
	w->ifc[ifx].drops++;
	sl_set_error(m, po_err + e);
	return PO_NEXT_DROP;
}

static uint16_t pppoe_out_process(struct rte_graph *g, struct rte_node *node, void **objs,
				  uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	struct po_cache c = {.ifx = UINT16_MAX};
	uint16_t nexts[n ? n : 1];
	/* a vector to many sessions: each one's interface line (its data) and counters fetched
	 * a few packets ahead; one session's vector: no need */
	if (n > 8 && sl_meta(objs[0])->tx_if != sl_meta(objs[n - 1])->tx_if) {
		for (uint16_t i = 0; i < n; i++) {
			if (i + 4 < n) {
				uint16_t x = sl_meta(objs[i + 4])->tx_if;
				rte_prefetch0(&sl_if_fast[x]);
				rte_prefetch0(&w->ifc[x]);
			}
			nexts[i] = po_one(w, objs[i], &c, false);
		}
	} else {
		for (uint16_t i = 0; i < n; i++)
			nexts[i] = po_one(w, objs[i], &c, true);
		sl_if_run_flush(c.ctr, &c.run, true);
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register po_node = {
	.name = "pppoe-output",
	.process = pppoe_out_process,
	.init = sl_node_init,
	.nb_edges = PO_NB_STATIC,
	.next_nodes = {[PO_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(po_node)

RTE_INIT(pppoe_nodes_init)
{
	pi_err = sl_error_register("pppoe-input", pi_reasons, PI_NB_ERR);
	pd_err = sl_error_register("pppoed-input", pi_reasons, PI_NB_ERR);
	po_err = sl_error_register("pppoe-output", po_reasons, PO_NB_ERR);
	sl_eth_type_register(SL_PPPOE_SESS, "pppoe-input");
	sl_feature_start(SL_ARC_DEVICE_INPUT, "pppoe-input", pi_arc);
	sl_eth_type_register(SL_PPPOE_DISC, "pppoed-input");
	sl_iface_output_register(SL_IF_PPPOE, "pppoe-output");
	sl_iface_tx_user("pppoe-output", &po_tx0);
}
