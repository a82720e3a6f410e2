/* SPDX-License-Identifier: BSD-3-Clause */
/* IPoE's data path. ipoe-input, a device-input feature of an access interface (set ipoe
 * access IFACE): DHCP to a server (UDP 67) punted to the main lcore within its rate; IPv4 from
 * a client with a session (its MAC, its leased source address) goes to ethernet-input as
 * received on the session's interface; IPv4 from anyone else is dropped by name (no session,
 * or a source that is not its lease: anti-spoofing); ARP and the rest go on as the access
 * interface's frames. ipoe-output, the session type's output node: the client's MAC over
 * what ip4-rewrite wrote, out of the access interface. */
#include "ipoe.h"
#include "pppoe.h"
#include "../ip4/ip4.h"
#include "../runtime/feature.h"
#include <rte_cycles.h>
#include <rte_udp.h>

#define II_ERRORS(X)                                                            \
	X(II_ERR_NO_SESSION, "IPv4 from a MAC without an IPoE session")       \
	X(II_ERR_SPOOF, "IPv4 source not the session's lease")                 \
	X(II_ERR_RATE, "DHCP over the control rate (set pppoe control-rate)")
enum { II_ERRORS(SL_ERR_ENUM) II_NB_ERR };
static const char *const ii_reasons[] = {II_ERRORS(SL_ERR_STR)};
static uint16_t ii_err;
static uint8_t ii_feat;

enum { II_NEXT_DROP, II_NEXT_ETH, II_NEXT_PUNT, II_NEXT_FEAT, II_NB_NEXT };

static inline uint16_t ii_one(struct sl_worker *w, struct rte_mbuf *m)
{
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t access = m->port, e;
	uint16_t next = sl_feature_next(SL_ARC_DEVICE_INPUT, ii_feat, access,
					sl_ifaces[access].mode);
	if (m->data_len < RTE_ETHER_HDR_LEN + 20 || fr[12] != 0x08 || fr[13] != 0x00)
		return next; /* ARP and the rest: the access interface's */
	const uint8_t *ip = fr + RTE_ETHER_HDR_LEN;
	uint32_t ihl = (ip[0] & 0xf) * 4u;
	/* UDP to port 67, an unfragmented (or first) datagram: DHCP for our server */
	if (ip[9] == IPPROTO_UDP && ihl >= 20 && m->data_len >= RTE_ETHER_HDR_LEN + ihl + 8 &&
	    (ip[6] & 0x1f) == 0 && ip[7] == 0 && ip[ihl + 2] == 0 && ip[ihl + 3] == 67) {
		if (unlikely(!sl_ctl_allow(w, SL_PPPOE_CL_DHCP))) {
			e = II_ERR_RATE;
			goto drop;
		}
		sl_meta2(m)->punt = SL_PUNT_DHCP;
		return II_NEXT_PUNT;
	}
	uint16_t ifx = sl_ipoe_find(access, fr + RTE_ETHER_ADDR_LEN);
	const struct sl_ipoe_dp *s = ifx ? sl_ipoe_dp(ifx) : NULL;
	if (unlikely(!s || !__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))) {
		e = II_ERR_NO_SESSION;
		goto drop;
	}
	uint32_t src;
	memcpy(&src, ip + 12, 4);
	if (unlikely(src != s->ip)) {
		e = II_ERR_SPOOF;
		goto drop;
	}
	m->port = ifx;
	w->ifc[ifx].rx_pkts++;
	w->ifc[ifx].rx_bytes += m->pkt_len - RTE_ETHER_HDR_LEN;
	/* the session's own device-input features (its RADIUS Filter-Id's ACL) first, if any */
	return likely(!sl_if_features(ifx, SL_ARC_DEVICE_INPUT)) ? II_NEXT_ETH : II_NEXT_FEAT;
drop:
	sl_set_error(m, ii_err + e);
	return II_NEXT_DROP;
}

SL_NODE_EACH(ipoe_in_process, ii_one)

static struct rte_node_register ii_node = {
	.name = "ipoe-input",
	.process = ipoe_in_process,
	.init = sl_node_init,
	.nb_edges = II_NB_NEXT,
	.next_nodes = {[II_NEXT_DROP] = "error-drop", [II_NEXT_ETH] = "ethernet-input",
		       [II_NEXT_PUNT] = "punt", [II_NEXT_FEAT] = "device-input-features"},
};
SL_NODE_REGISTER(ii_node)

/* ---- dhcp-relay-input: a DHCP server's answers to us as relay (UDP 67 on ip4-udp-local) ---- */

static uint16_t dr_err;

static inline uint16_t dr_one(struct sl_worker *w, struct rte_mbuf *m)
{
	if (unlikely(!sl_ctl_allow(w, SL_PPPOE_CL_DHCP))) {
		sl_set_error(m, dr_err + II_ERR_RATE);
		return II_NEXT_DROP;
	}
	sl_meta2(m)->punt = SL_PUNT_DHCP_RELAY;
	return II_NEXT_PUNT;
}

SL_NODE_EACH(dhcp_relay_process, dr_one)

static struct rte_node_register dr_node = {
	.name = "dhcp-relay-input",
	.process = dhcp_relay_process,
	.init = sl_node_init,
	.nb_edges = II_NEXT_FEAT, /* ipoe-input's first three */
	.next_nodes = {[II_NEXT_DROP] = "error-drop", [II_NEXT_ETH] = "ethernet-input",
		       [II_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(dr_node)

/* ---- ipoe-output ---- */

#define IO_ERRORS(X) X(IO_ERR_DOWN, "session down")
enum { IO_ERRORS(SL_ERR_ENUM) IO_NB_ERR };
static const char *const io_reasons[] = {IO_ERRORS(SL_ERR_STR)};
static uint16_t io_err;
enum { IO_NEXT_DROP, IO_NB_STATIC };
static rte_edge_t io_tx0;

static inline uint16_t io_one(struct sl_worker *w, struct rte_mbuf *m)
{
	uint16_t ifx = sl_meta(m)->tx_if;
	const struct sl_ipoe_dp *s = sl_ipoe_dp(ifx);
	if (unlikely(!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) || !sl_if_fast[ifx].up ||
		     m->data_len < RTE_ETHER_HDR_LEN)) {
		w->ifc[ifx].drops++;
		sl_set_error(m, io_err + IO_ERR_DOWN);
		return IO_NEXT_DROP;
	}
	w->ifc[ifx].tx_pkts++;
	w->ifc[ifx].tx_bytes += m->pkt_len - RTE_ETHER_HDR_LEN;
	uint8_t *h = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(h, &s->mac, 6);
	memcpy(h + 6, &sl_ifaces[s->access].mac, 6);
	uint16_t pipe = __atomic_load_n(&s->qos_pipe, __ATOMIC_RELAXED);
	if (pipe) { /* the subscriber's pipe for qos-output on the access interface */
		sl_meta2(m)->qos_subport = 0;
		sl_meta2(m)->qos_pipe = pipe;
		m->ol_flags |= sl_flag_qos;
	}
	sl_meta(m)->tx_if = s->access;
	return sl_iface_tx_edge(io_tx0, s->access);
}

SL_NODE_EACH(ipoe_out_process, io_one)

static struct rte_node_register io_node = {
	.name = "ipoe-output",
	.process = ipoe_out_process,
	.init = sl_node_init,
	.nb_edges = IO_NB_STATIC,
	.next_nodes = {[IO_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(io_node)

RTE_INIT(ipoe_nodes_init)
{
	ii_err = sl_error_register("ipoe-input", ii_reasons, II_NB_ERR);
	io_err = sl_error_register("ipoe-output", io_reasons, IO_NB_ERR);
	dr_err = sl_error_register("dhcp-relay-input", ii_reasons, II_NB_ERR);
	sl_udp_port_register(67, "dhcp-relay-input");
	ii_feat = sl_feature_register(SL_ARC_DEVICE_INPUT, "ipoe-input", "ipoe-input");
	sl_feature_hook(SL_ARC_DEVICE_INPUT, ii_feat, sl_ipoe_hook);
	sl_iface_output_register(SL_IF_IPOE, "ipoe-output");
	sl_iface_tx_user("ipoe-output", &io_tx0);
}
