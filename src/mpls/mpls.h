/* SPDX-License-Identifier: BSD-3-Clause */
/* MPLS (RFC 3032): local labels (table 0) read by mpls-input (ethertype 0x8847 on interfaces
 * with MPLS enabled), mpls4-udp-input and mpls6-udp-input (MPLS over UDP, RFC 7510, port
 * 6635, over IPv4 and IPv6); MPLS-over-UDP and MPLS-over-GRE tunnels, over IPv4 or IPv6,
 * push a label (src/mpls/mpls.c, node.c). */
#ifndef SL_MPLS_H
#define SL_MPLS_H

#include "../tunnel/tunnel.h"

#define SL_MPLS_UDP_PORT 6635
#define SL_MPLS_LABEL_MAX ((1u << 20) - 1)
#define SL_MPLSUDP_ENCAP_LEN 32 /* outer IPv4, UDP and one label */
#define SL_MPLSGRE_ENCAP_LEN 28 /* outer IPv4, GRE and one label */
#define SL_MPLSUDP6_ENCAP_LEN 52 /* outer IPv6, UDP and one label */

/* A local label's action, the data of its entry (the key: label << 1 | eos). */
enum sl_mpls_action {
	SL_MPLS_POP_LOOKUP = 1, /* eos: pop, look the inner IP packet up in a table */
	SL_MPLS_POP_MPLS,       /* non-eos: pop, look the next label up */
	SL_MPLS_SWAP,           /* pop, push an out-path's labels, send to its next hop */
};
static inline uint64_t sl_mpls_data(enum sl_mpls_action a, uint16_t fib)
{
	return (uint64_t)a << 32 | fib;
}

/* An out-path (src/mpls/lsp.c): labels pushed, then the Ethernet header of an IPv4 next hop
 * on an interface (ethertype 0x8847); an MPLS tunnel's (mpls tunnel add) or a swapping local
 * label's; with no labels, a bottom local label's that pops and forwards the IP packet under
 * it to the next hop (the vRouter's label for a VM's interface). Immutable once published in sl_mpls_outs[id] (id 1 up), freed after a grace period;
 * the neighbour is held (resolved by ARP, again on the main lcore's tick while it is not). */
#define SL_MPLS_OUT_LABELS 8
#define SL_MPLS_OUTS 4096
struct sl_mpls_out {
	uint32_t adj;                         /* the next hop's adjacency */
	uint32_t nh;                          /* host order */
	uint16_t port;
	uint8_t n;                            /* labels, outermost first; 0: pop and forward */
	uint32_t words[SL_MPLS_OUT_LABELS];   /* label << 12, host order (S and TTL added) */
};
extern struct sl_mpls_out *sl_mpls_outs[SL_MPLS_OUTS];

/* Puts o's labels (each with ttl, the last with S when eos) and its next hop's Ethernet header
 * in front of m's data and returns the edge to the next hop's interface (tx0: the node's
 * first tx edge, sl_iface_tx_user); on failure returns UINT16_MAX, *unresolved telling the
 * next hop's MAC unknown from no headroom. With no labels the ethertype is the IP packet's
 * (by its version). */
static inline uint16_t sl_mpls_push(struct rte_mbuf *m, const struct sl_mpls_out *o, uint8_t ttl,
				    bool eos, rte_edge_t tx0, bool *unresolved)
{
	const struct sl_adj *a = sl_adj_get(o->adj);
	*unresolved = a->type != SL_ADJ_FORWARD;
	if (unlikely(*unresolved))
		return UINT16_MAX;
	uint16_t type = o->n ? RTE_ETHER_TYPE_MPLS
			: *rte_pktmbuf_mtod(m, const uint8_t *) >> 4 == 4 ? RTE_ETHER_TYPE_IPV4
									   : RTE_ETHER_TYPE_IPV6;
	uint8_t *h = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(RTE_ETHER_HDR_LEN + 4 * o->n));
	if (unlikely(!h))
		return UINT16_MAX;
	memcpy(h, a->rewrite, 12);
	h[12] = (uint8_t)(type >> 8);
	h[13] = (uint8_t)type;
	for (unsigned i = 0; i < o->n; i++) {
		uint32_t v = o->words[i] | ttl | (eos && i + 1 == o->n ? 1u << 8 : 0);
		v = rte_cpu_to_be_32(v);
		memcpy(h + RTE_ETHER_HDR_LEN + 4 * i, &v, 4);
	}
	sl_meta(m)->tx_if = a->port;
	return sl_iface_tx_edge(tx0, a->port);
}

/* Control (main lcore): an out-path to nh on port with n labels (0: pop and forward): its id,
 * or -errno; the neighbour is held and asked for. Released: the neighbour let go, the memory freed after a
 * grace period. */
int sl_mpls_out_add(uint16_t port, uint32_t nh, const uint32_t *labels, unsigned n);
void sl_mpls_out_release(uint16_t id);
/* How many out-paths exist (the CLI fuzzer's witness: a refused command leaves none). */
uint32_t sl_mpls_out_count(void);
/* "via NH IFACE out-labels L..." at argv (or "via NH IFACE" alone when pop is allowed): the
 * out-path's id, or -1 with the error said. */
struct sl_out;
int sl_mpls_out_parse(struct sl_out *o, int argc, char **argv, bool pop);
/* "10.0.0.2 port1 out-labels 33 34" */
void sl_mpls_out_fmt(char *buf, size_t len, uint16_t id);

/* The entry of (label, eos), or 0. */
uint64_t sl_mpls_find(uint32_t label, bool eos);
uint32_t sl_mpls_count(void);

#endif
