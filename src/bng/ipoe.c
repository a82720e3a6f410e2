/* SPDX-License-Identifier: BSD-3-Clause */
/* IPoE subscribers, control plane (main lcore): a DHCPv4 server (RFC 2131, 2132) on access
 * interfaces, its leases from a pool on the access interface's subnet; an ACK creates the
 * client's session (a logical interface ipoeN, point to point, in the access interface's
 * table, with a /32 route to the lease through it), a RELEASE or the lease's expiry ends it.
 *   set ipoe access IFACE [disable]    set ipoe pool FIRST LAST
 *   set ipoe lease SECONDS             set ipoe dns A [B]
 *   set ipoe auth radius password P    set ipoe dhcp-relay server A
 *   show ipoe leases                   clear ipoe lease A
 * The access interface needs an address on the pool's subnet: the clients' router and the
 * server's identifier. With RADIUS, a new client is authorized before its OFFER, and the
 * Accept's address, ACL, QoS profile and Session-Timeout apply to its lease and session. */
#include "ipoe.h"
#include "pool.h"
#include "pppoe.h"
#include "radius.h"
#include "../acl/acl.h"
#include "../qos/hqos.h"
#include "../cli/cli.h"
#include "../ip4/ip4.h"
#include "../ip4/route.h"
#include "../runtime/feature.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

static struct rte_hash *by_mac; /* (access << 48 | MAC) -> session interface */

enum { DISCOVER = 1, OFFER, REQUEST, DECLINE, ACK, NAK, RELEASE, INFORM };
enum { O_PAD = 0, O_MASK = 1, O_ROUTER = 3, O_DNS = 6, O_HOSTNAME = 12, O_REQ_IP = 50,
       O_LEASE = 51, O_TYPE = 53, O_SERVER = 54, O_T1 = 58, O_T2 = 59, O_END = 255 };
#define BOOTP_LEN 236
#define OFFER_S 10 /* an offer not requested within this is forgotten */
#define RELAY_WAIT_S 60 /* relaying, an accepted client's lease waits this for the server's ACK */

struct lease {
	uint32_t slot;                /* its index in leases[]: the session is ipoe<slot> */
	uint16_t access, ifx;         /* ifx: the session's interface once bound */
	struct rte_ether_addr mac;
	uint32_t ip;                  /* host order */
	bool bound;
	uint64_t expires, bound_at;   /* TSC */
	char hostname[64];
	/* RADIUS (set ipoe auth radius) */
	uint32_t rad_token;           /* the Access-Request awaited; 0: none */
	uint8_t *req;                 /* meanwhile, the client's last DISCOVER (BOOTP on) */
	uint16_t req_len;
	bool authed;                  /* accepted: what follows applies */
	uint32_t session_timeout;     /* s from binding, 0: none */
	uint32_t idle_timeout;        /* s without a packet either way before it ends; 0: none */
	struct sl_bng_idle idle;
	char filter[64];              /* Filter-Id: the ACL on the session's input */
	char qos[32];                 /* ERX-Qos-Profile-Name: a pipe of the access scheduler */
	uint16_t qos_pipe;
	char acct_id[20];             /* Acct-Session-Id once accounting started */
	uint64_t acct_last;           /* TSC of the last Accounting-Request */
	uint64_t timeout_base;        /* TSC the Session-Timeout counts from (binding, a CoA) */
	uint8_t term_cause;           /* RFC 2866 5.10 for the Stop; 0: User-Request */
};

#define LEASES 65536
static struct lease *leases[LEASES];
static uint32_t nleases, nbound;
/* main lcore only, so that a DHCP packet costs the same with 20,000 leases as with one: the
 * lease of a client (mkey) and of an address, as slots; the free slots, a stack */
static struct rte_hash *lease_mac, *lease_ip;
static uint32_t free_slots[LEASES], nfree;
static struct sl_pools pools; /* the default, and those RADIUS's Framed-Pool names */
static uint32_t lease_s = 3600, dns[2];
static uint32_t relay_server; /* host order; 0: sluiced answers itself */
static bool auth_radius;       /* set ipoe auth radius: each new client asked for first */
static char auth_password[64];
static uint32_t rad_seq, acct_seq;
static uint8_t feat_on[SL_IF_MAX]; /* set ipoe access */

#define IM_ERRORS(X)                                                                \
	X(IM_BAD, "DHCP malformed (dropped)")                                       \
	X(IM_NO_GW, "DHCP on an interface without an address on the pool's subnet") \
	X(IM_POOL, "DHCP DISCOVER with the pool exhausted (no offer)")              \
	X(IM_NOBUF, "no mbuf for a DHCP reply")                                   \
	X(IM_AUTH_WAIT, "DHCP from a client whose RADIUS answer is awaited")       \
	X(IM_AUTH_FAIL, "DHCP client refused by RADIUS (reject, no answer, or an " \
			"attribute it cannot have)")                                \
	X(IM_RELAY_UNAUTHED, "relayed DHCP ACK for a client RADIUS has not accepted " \
			     "(dropped)")
enum { IM_ERRORS(SL_ERR_ENUM) IM_NB };
static const char *const im_reasons[] = {IM_ERRORS(SL_ERR_STR)};
static uint16_t im_err;

static void count(int e)
{
	sl_main_ctx->errors[im_err + e]++;
}

static inline uint64_t mkey(uint16_t access, const uint8_t mac[6])
{
	uint64_t k = 0;
	memcpy(&k, mac, 6);
	return k | (uint64_t)access << 48;
}

uint16_t sl_ipoe_find(uint16_t access, const uint8_t mac[6])
{
	uint64_t k = mkey(access, mac);
	void *d;
	return rte_hash_lookup_data(by_mac, &k, &d) < 0 ? 0 : (uint16_t)(uintptr_t)d;
}

uint32_t sl_ipoe_count(void)
{
	return nbound;
}

static struct lease *lease_at(const struct rte_hash *h, uint64_t k)
{
	void *d;
	return rte_hash_lookup_data(h, &k, &d) < 0 ? NULL : leases[(uintptr_t)d];
}

static struct lease *lease_of(uint16_t access, const struct rte_ether_addr *mac)
{
	return lease_at(lease_mac, mkey(access, mac->addr_bytes));
}

static struct lease *lease_by_ip(uint32_t ip)
{
	return lease_at(lease_ip, ip);
}

/* A new lease of ip (0: none yet, RADIUS asked) to the client (access, mac), neither of
 * which has one; NULL when the table is full. */
static struct lease *lease_new(uint16_t access, const struct rte_ether_addr *mac, uint32_t ip)
{
	uint64_t km = mkey(access, mac->addr_bytes), ki = ip;
	struct lease *l = nfree ? calloc(1, sizeof(*l)) : NULL;
	if (!l)
		return NULL;
	uint32_t slot = free_slots[nfree - 1];
	if (rte_hash_add_key_data(lease_mac, &km, (void *)(uintptr_t)slot)) {
		free(l);
		return NULL;
	}
	if (ip && rte_hash_add_key_data(lease_ip, &ki, (void *)(uintptr_t)slot)) {
		rte_hash_del_key(lease_mac, &km);
		free(l);
		return NULL;
	}
	nfree--;
	*l = (struct lease){.slot = slot, .access = access, .mac = *mac, .ip = ip};
	leases[slot] = l;
	nleases++;
	return l;
}

/* The access interface's address on the subnet of address ip (the client's router and
 * the server id), ip 0 meaning the default pool's (all of it); relaying, its first address
 * (giaddr); or 0. */
static uint32_t gateway(uint16_t access, uint32_t ip, uint8_t *plen)
{
	const struct sl_iface *f = &sl_ifaces[access];
	if (relay_server && f->naddr) {
		*plen = f->plens[0];
		return f->addrs[0];
	}
	uint32_t lo = ip, hi = ip;
	if (!ip) {
		const struct sl_pool *p = sl_pool_find(&pools, "");
		lo = p ? p->lo : 0;
		hi = p ? p->hi : 0;
	}
	for (int i = 0; lo && i < f->naddr; i++) {
		uint32_t m = f->plens[i] ? ~0u << (32 - f->plens[i]) : 0;
		if (((f->addrs[i] ^ lo) & m) == 0 && ((f->addrs[i] ^ hi) & m) == 0 &&
		    f->addrs[i] != ip) {
			*plen = f->plens[i];
			return f->addrs[i];
		}
	}
	return 0;
}

/* An Accounting-Request for the bound lease l: the session's counters as its interface has
 * them (input: what the client sent). */
static void acct_send(struct lease *l, uint8_t status)
{
	if (!sl_radius_enabled())
		return;
	if (status == 1)
		snprintf(l->acct_id, sizeof(l->acct_id), "ipoe-%08x", ++acct_seq);
	if (!l->acct_id[0])
		return;
	struct sl_if_counters c = sl_iface_counters(l->ifx);
	char user[20];
	sl_fmt_mac(user, l->mac.addr_bytes);
	struct sl_radius_acct a = {
		.status = status, .session_id = l->acct_id, .user = user, .mac = &l->mac,
		.nas_port = l->slot, .framed_ip = l->ip, .ipoe = true,
		.nas_port_id = sl_ifaces[l->access].name,
		.session_time = (uint32_t)((rte_rdtsc() - l->bound_at) / rte_get_tsc_hz()),
		.in_octets = c.rx_bytes, .out_octets = c.tx_bytes, .in_packets = c.rx_pkts,
		.out_packets = c.tx_pkts, .terminate_cause = l->term_cause ? l->term_cause : 1,
	};
	l->acct_last = rte_rdtsc();
	if (sl_radius_acct(&a))
		RTE_LOG(WARNING, USER1, "ipoe%u: accounting request not sent\n", l->slot);
}

/* The session of a lease being bound: interface, what the workers read, the /32 route. */
static int session_up(struct lease *l)
{
	char name[32], why[160];
	snprintf(name, sizeof(name), "ipoe%u", l->slot);
	struct sl_iface *f;
	if (sl_iface_create(SL_IF_IPOE, name, &sl_ifaces[l->access].mac, &f))
		return -1;
	f->p2p = true;
	sl_iface_set_mtu(f->port, sl_ifaces[l->access].mtu);
	uint16_t fib = sl_ifaces[l->access].fib;
	if (fib && sl_ip4_table_set(f->port, fib, why, sizeof(why))) {
		sl_iface_delete(f, why, sizeof(why));
		return -1;
	}
	struct sl_ipoe_dp *d = sl_ipoe_dp(f->port);
	uint64_t k = mkey(l->access, l->mac.addr_bytes);
	if (rte_hash_add_key_data(by_mac, &k, (void *)(uintptr_t)f->port)) {
		sl_iface_delete(f, why, sizeof(why));
		return -1;
	}
	if (l->filter[0]) { /* Filter-Id: checked when the answer came; applied now */
		struct sl_out o = {0};
		int acl = sl_acl_find(l->filter);
		int rc = acl < 0 || sl_acl_if_apply(&o, f->port, 0, (uint32_t)acl, false);
		if (rc)
			RTE_LOG(WARNING, USER1, "%s: ACL %s not applied: %.*s\n", name, l->filter,
				(int)o.text.len, o.text.p ? o.text.p : "");
		sl_buf_free(&o.text);
		sl_buf_free(&o.js);
		if (rc) {
			rte_hash_del_key(by_mac, &k);
			sl_iface_delete(f, why, sizeof(why));
			return -1;
		}
	}
	*d = (struct sl_ipoe_dp){.access = l->access, .mac = l->mac, .ip = rte_cpu_to_be_32(l->ip),
				 .qos_pipe = l->qos_pipe};
	__atomic_store_n(&d->live, 1, __ATOMIC_RELEASE);
	sl_iface_set_up(f->port, true);
	if (sl_ip4_route_add(fib, l->ip, 32, l->ip, f->port)) {
		RTE_LOG(WARNING, USER1, "%s: route to the client not added\n", name);
	}
	l->ifx = f->port;
	nbound++;
	if (l->authed)
		acct_send(l, 1); /* Start */
	return 0;
}

/* l's session is up (session_up): its Session-Timeout and Idle-Timeout count from now. */
static void lease_bound(struct lease *l, uint64_t now)
{
	l->bound = true;
	l->bound_at = l->timeout_base = l->idle.since = l->idle.checked = now;
}

static void lease_free(struct lease *l)
{
	if (l->ifx && l->acct_id[0])
		acct_send(l, 2); /* Stop, before the interface and its counters go */
	if (l->ifx) {
		uint16_t ifx = l->ifx;
		sl_ip4_route_del(sl_ifaces[ifx].fib, l->ip, 32);
		uint64_t k = mkey(l->access, l->mac.addr_bytes);
		int32_t pos = rte_hash_del_key(by_mac, &k);
		__atomic_store_n(&sl_ipoe_dp(ifx)->live, 0, __ATOMIC_RELEASE);
		char why[160];
		if (sl_iface_delete(&sl_ifaces[ifx], why, sizeof(why)))
			RTE_LOG(WARNING, USER1, "ipoe: interface not deleted: %s\n", why);
		/* sl_iface_delete waited for a grace period: no worker holds the slot */
		if (pos >= 0)
			rte_hash_free_key_with_position(by_mac, pos);
		nbound--;
	}
	uint64_t km = mkey(l->access, l->mac.addr_bytes), ki = l->ip;
	rte_hash_del_key(lease_mac, &km);
	if (l->ip)
		rte_hash_del_key(lease_ip, &ki);
	if (l->rad_token)
		sl_radius_forget((uint64_t)l->slot << 32 | l->rad_token);
	sl_bng_pipe_give(l->access, l->qos_pipe);
	free(l->req);
	leases[l->slot] = NULL;
	free_slots[nfree++] = l->slot;
	sl_pool_give(&pools, l->ip);
	nleases--;
	free(l);
}

/* ---- DHCP ---- */

struct dhcp_in {
	uint8_t type;
	uint32_t req_ip, server; /* host order; 0: not given */
	char hostname[64];
};

static int options_parse(const uint8_t *o, uint32_t len, struct dhcp_in *in)
{
	memset(in, 0, sizeof(*in));
	for (uint32_t i = 0; i < len;) {
		uint8_t t = o[i];
		if (t == O_END)
			break;
		if (t == O_PAD) {
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + o[i + 1] > len)
			return -1;
		const uint8_t *v = o + i + 2;
		uint8_t l = o[i + 1];
		if (t == O_TYPE && l == 1)
			in->type = v[0];
		else if (t == O_REQ_IP && l == 4)
			in->req_ip = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
		else if (t == O_SERVER && l == 4)
			in->server = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
		else if (t == O_HOSTNAME)
			snprintf(in->hostname, sizeof(in->hostname), "%.*s", l, (const char *)v);
		i += 2u + l;
	}
	return in->type ? 0 : -1;
}

static uint8_t *opt_u32(uint8_t *p, uint8_t t, uint32_t v)
{
	p[0] = t;
	p[1] = 4;
	v = rte_cpu_to_be_32(v);
	memcpy(p + 2, &v, 4);
	return p + 6;
}

/* A BOOTP message (blen bytes: the fixed part, the cookie and options) to the client on
 * access from gw: to its MAC and yiaddr, or broadcast when it asked (flags) or for a NAK
 * (RFC 2131 4.1). */
static void to_client(uint16_t access, const uint8_t *bootp, uint16_t blen, uint8_t type,
		      uint32_t yiaddr, uint32_t gw)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	uint16_t len = (uint16_t)(RTE_ETHER_HDR_LEN + 20 + 8 + blen);
	uint8_t *h = m ? (uint8_t *)rte_pktmbuf_append(m, len) : NULL;
	if (!h) {
		rte_pktmbuf_free(m);
		count(IM_NOBUF);
		return;
	}
	memset(h, 0, RTE_ETHER_HDR_LEN + 28);
	bool bcast = type == NAK || (bootp[10] & 0x80) || !yiaddr;
	static const uint8_t all[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	memcpy(h, bcast ? all : bootp + 28, 6); /* chaddr */
	memcpy(h + 6, &sl_ifaces[access].mac, 6);
	h[12] = 0x08;
	uint8_t *ip = h + RTE_ETHER_HDR_LEN, *udp = ip + 20;
	memcpy(udp + 8, bootp, blen);
	uint16_t ulen = (uint16_t)(8 + blen);
	udp[1] = 67;
	udp[3] = 68;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen; /* checksum 0: none (RFC 768) */
	struct rte_ipv4_hdr *iph = (struct rte_ipv4_hdr *)ip;
	iph->version_ihl = 0x45;
	iph->total_length = rte_cpu_to_be_16((uint16_t)(20 + ulen));
	iph->time_to_live = 64;
	iph->next_proto_id = IPPROTO_UDP;
	iph->src_addr = rte_cpu_to_be_32(gw);
	iph->dst_addr = bcast ? 0xffffffff : rte_cpu_to_be_32(yiaddr);
	iph->hdr_checksum = rte_ipv4_cksum(iph);
	sl_iface_inject(m, access);
}

/* Our own answer of type to the request req (its BOOTP part), from the gateway gw: yiaddr and
 * the options of a lease. */
static void reply(uint16_t access, const uint8_t *req, uint8_t type, uint32_t yiaddr, uint32_t gw,
		  uint8_t plen, uint32_t secs)
{
	uint8_t b[BOOTP_LEN + 4 + 64] = {0};
	b[0] = 2; /* BOOTREPLY */
	b[1] = 1;
	b[2] = 6;
	memcpy(b + 4, req + 4, 4);   /* xid */
	memcpy(b + 10, req + 10, 2); /* flags */
	if (type == ACK)
		memcpy(b + 12, req + 12, 4); /* ciaddr */
	uint32_t v = rte_cpu_to_be_32(yiaddr);
	memcpy(b + 16, &v, 4);
	memcpy(b + 24, req + 24, 4);  /* giaddr */
	memcpy(b + 28, req + 28, 16); /* chaddr */
	uint8_t *o = b + BOOTP_LEN;
	o[0] = 99, o[1] = 130, o[2] = 83, o[3] = 99;
	o += 4;
	*o++ = O_TYPE, *o++ = 1, *o++ = type;
	o = opt_u32(o, O_SERVER, gw);
	if (type != NAK) {
		o = opt_u32(o, O_LEASE, secs);
		o = opt_u32(o, O_T1, secs / 2);
		o = opt_u32(o, O_T2, secs / 8 * 7);
		o = opt_u32(o, O_MASK, plen ? ~0u << (32 - plen) : 0);
		o = opt_u32(o, O_ROUTER, gw);
		if (dns[0]) {
			*o++ = O_DNS;
			*o++ = dns[1] ? 8 : 4;
			for (int i = 0; i < (dns[1] ? 2 : 1); i++) {
				uint32_t d = rte_cpu_to_be_32(dns[i]);
				memcpy(o, &d, 4);
				o += 4;
			}
		}
	}
	*o++ = O_END;
	to_client(access, b, (uint16_t)(o - b), type, type == NAK ? 0 : yiaddr, gw);
}

/* ---- relay (RFC 3046: option 82) ---- */

static struct {
	uint64_t up, down, dropped;
} rst;

/* The end of options o[0, len) (its END, or len), -1 when malformed; *has82 when option 82
 * is there. */
static int options_end(const uint8_t *o, uint32_t len, bool *has82)
{
	*has82 = false;
	for (uint32_t i = 0; i < len;) {
		if (o[i] == O_END)
			return (int)i;
		if (o[i] == O_PAD) {
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + o[i + 1] > len)
			return -1;
		*has82 |= o[i] == 82;
		i += 2u + o[i + 1];
	}
	return (int)len;
}

/* A client's message to the server: giaddr ours, hops one more, option 82 with the access
 * interface's name (circuit id) and the client's MAC (remote id) at the end. */
static void relay_up(uint16_t access, const uint8_t *b, uint32_t blen, uint32_t gw)
{
	bool has82;
	int end = options_end(b + BOOTP_LEN + 4, blen - BOOTP_LEN - 4, &has82);
	const char *circ = sl_ifaces[access].name;
	size_t cl = strlen(circ);
	if (end < 0 || has82 || b[3] >= 16 || cl > 64) { /* RFC 3046 2.1: not from a client */
		count(IM_BAD);
		return;
	}
	uint32_t olen = 2 + 2 + (uint32_t)cl + 2 + 6;
	uint16_t plen = (uint16_t)(20 + 8 + BOOTP_LEN + 4 + (uint32_t)end + olen + 1);
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	uint8_t *ip = m ? (uint8_t *)rte_pktmbuf_append(m, plen) : NULL;
	if (!ip) {
		rte_pktmbuf_free(m);
		count(IM_NOBUF);
		return;
	}
	uint8_t *udp = ip + 20, *d = udp + 8;
	memcpy(d, b, BOOTP_LEN + 4 + (uint32_t)end);
	d[3]++; /* hops */
	uint32_t g = rte_cpu_to_be_32(gw);
	if (!(d[24] | d[25] | d[26] | d[27]))
		memcpy(d + 24, &g, 4);
	uint8_t *o = d + BOOTP_LEN + 4 + end;
	*o++ = 82;
	*o++ = (uint8_t)(olen - 2);
	*o++ = 1; /* Agent Circuit ID */
	*o++ = (uint8_t)cl;
	memcpy(o, circ, cl);
	o += cl;
	*o++ = 2; /* Agent Remote ID */
	*o++ = 6;
	memcpy(o, b + 28, 6);
	o += 6;
	*o++ = O_END;
	uint16_t ulen = (uint16_t)(plen - 20);
	memset(udp, 0, 8);
	udp[1] = 67;
	udp[3] = 67;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	struct rte_ipv4_hdr *iph = (struct rte_ipv4_hdr *)ip;
	memset(iph, 0, 20);
	iph->version_ihl = 0x45;
	iph->total_length = rte_cpu_to_be_16(plen);
	iph->time_to_live = 64;
	iph->next_proto_id = IPPROTO_UDP;
	iph->src_addr = g;
	iph->dst_addr = rte_cpu_to_be_32(relay_server);
	iph->hdr_checksum = rte_ipv4_cksum(iph);
	m->port = access; /* where a drop while it waits for ARP is counted */
	if (sl_ip4_send(sl_ifaces[access].fib, m, relay_server) == 0)
		rst.up++;
	else
		rst.dropped++;
}

/* An address of pool p for a client, now in use: the one it asked for if p's and free,
 * else p's lowest free one; 0 when none. Free is asked of both tables: a pool defined after
 * a lease outside every pool (a Framed-IP-Address, a relayed server's address) was made
 * covers that lease's address without having it claimed. */
static uint32_t pool_pick(struct sl_pool *p, uint32_t want)
{
	if (p && want >= p->lo && want <= p->hi && !lease_by_ip(want) && sl_pool_claim(&pools, want))
		return want;
	return sl_pool_take(p);
}

/* The lease time a client is given: the configured one, cut to what is left of its
 * Session-Timeout (at least a second). */
static uint32_t lease_time(const struct lease *l)
{
	if (!l->session_timeout)
		return lease_s;
	uint64_t used = l->bound ? (rte_rdtsc() - l->timeout_base) / rte_get_tsc_hz() : 0;
	uint32_t left = used >= l->session_timeout ? 1 : l->session_timeout - (uint32_t)used;
	return RTE_MIN(lease_s, left);
}

static void keep_request(struct lease *l, const uint8_t *b, uint32_t len)
{
	uint8_t *c = len <= 1500 ? malloc(len) : NULL;
	if (!c)
		return;
	memcpy(c, b, len);
	free(l->req);
	l->req = c;
	l->req_len = (uint16_t)len;
}

/* RADIUS's answer for the client of lease slot ctx >> 32 (set ipoe auth radius): on an
 * Access-Accept, its address (Framed-IP-Address if free and on the access interface's
 * subnet, else the pool's), Filter-Id (an ACL that must exist), QoS profile (a pipe of the
 * access interface's scheduler) and Session-Timeout, then the OFFER to the DISCOVER it
 * answered; a reject, no answer or an attribute it cannot have ends the lease (counted). */
static void radius_done(uint64_t ctx, const struct sl_radius_reply *r)
{
	struct lease *l = leases[(uint32_t)(ctx >> 32) & (LEASES - 1)];
	if (!l || l->rad_token != (uint32_t)ctx)
		return;
	l->rad_token = 0;
	uint8_t plen = 0;
	uint32_t gw = 0, ip = 0;
	bool ok = r && r->accept && l->req;
	if (ok && r->filter_id[0] && sl_acl_find(r->filter_id) < 0) {
		RTE_LOG(WARNING, USER1, "ipoe%u: Filter-Id '%s' names no ACL: refused\n", l->slot,
			r->filter_id);
		ok = false;
	}
	if (relay_server) {
		/* the relayed server gives the address: Framed-IP-Address and Framed-Pool are not
		 * for this mode */
	} else if (ok && r->framed_ip) { /* on the access interface's subnets, and no one else's */
		ip = gateway(l->access, r->framed_ip, &plen) && !lease_by_ip(r->framed_ip) &&
		     sl_pool_claim(&pools, r->framed_ip) ? r->framed_ip : 0;
		if (!ip)
			RTE_LOG(WARNING, USER1, "ipoe%u: Framed-IP-Address taken or not on %s's "
				"subnets: refused\n", l->slot, sl_ifaces[l->access].name);
	} else if (ok) { /* Framed-Pool's, or the default pool's */
		struct sl_pool *p = sl_pool_find(&pools, r->framed_pool);
		if (!p)
			RTE_LOG(WARNING, USER1, "ipoe%u: no address pool '%s': refused\n", l->slot,
				r->framed_pool);
		ip = pool_pick(p, 0);
	}
	uint64_t ki = ip;
	if (ok && ip && rte_hash_add_key_data(lease_ip, &ki, (void *)(uintptr_t)l->slot) == 0)
		l->ip = ip; /* lease_free gives it back */
	else if (ip)
		sl_pool_give(&pools, ip);
	ok = ok && (l->ip || relay_server) && (gw = gateway(l->access, l->ip, &plen)) != 0;
	if (ok && r->qos_profile[0]) {
		char who[16];
		snprintf(who, sizeof(who), "ipoe%u", l->slot);
		l->qos_pipe = sl_bng_pipe_take(l->access, r->qos_profile, who);
		ok = l->qos_pipe != 0;
		snprintf(l->qos, sizeof(l->qos), "%s", ok ? r->qos_profile : "");
	}
	if (!ok) {
		count(IM_AUTH_FAIL);
		lease_free(l);
		return;
	}
	l->authed = true;
	l->session_timeout = r->session_timeout;
	l->idle_timeout = r->idle_timeout;
	snprintf(l->filter, sizeof(l->filter), "%s", r->filter_id);
	if (relay_server) { /* on to the server; its ACK binds the lease (relay_down) */
		l->expires = rte_rdtsc() + RELAY_WAIT_S * rte_get_tsc_hz();
		relay_up(l->access, l->req, l->req_len, gw);
	} else {
		l->expires = rte_rdtsc() + OFFER_S * rte_get_tsc_hz();
		reply(l->access, l->req, OFFER, l->ip, gw, plen, lease_time(l));
	}
	free(l->req);
	l->req = NULL;
}

/* A new client's DISCOVER (BOOTP b, len bytes) with set ipoe auth radius: a lease without an
 * address yet, and an Access-Request with its MAC as User-Name (and Calling-Station-Id), the
 * configured password, and the access interface as NAS-Port-Id. */
static void radius_ask(uint16_t access, const struct rte_ether_addr *mac, const uint8_t *b,
		       uint32_t len)
{
	struct lease *l = lease_new(access, mac, 0);
	if (!l) {
		count(IM_POOL);
		return;
	}
	l->expires = rte_rdtsc() + 60 * rte_get_tsc_hz(); /* past RADIUS's retries */
	keep_request(l, b, len);
	char user[20];
	sl_fmt_mac(user, mac->addr_bytes);
	struct sl_radius_auth_req q = {.user = user, .password = auth_password, .mac = mac,
				       .nas_port = l->slot, .ipoe = true,
				       .nas_port_id = sl_ifaces[access].name};
	uint32_t tok = ++rad_seq ? rad_seq : ++rad_seq;
	if (!l->req || sl_radius_auth(&q, radius_done, (uint64_t)l->slot << 32 | tok)) {
		count(IM_AUTH_FAIL);
		lease_free(l);
		return;
	}
	l->rad_token = tok;
}

static void dhcp_input(struct rte_mbuf *m)
{
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t access = m->port;
	uint32_t ihl = (fr[RTE_ETHER_HDR_LEN] & 0xf) * 4u, off = RTE_ETHER_HDR_LEN + ihl + 8;
	struct dhcp_in in;
	const uint8_t *b = fr + off;
	static const uint8_t cookie[4] = {99, 130, 83, 99};
	if (m->data_len < off + BOOTP_LEN + 4 || b[0] != 1 || b[1] != 1 || b[2] != 6 ||
	    memcmp(b + BOOTP_LEN, cookie, 4) ||
	    options_parse(b + BOOTP_LEN + 4, m->data_len - off - BOOTP_LEN - 4, &in) ||
	    memcmp(b + 28, fr + RTE_ETHER_ADDR_LEN, 6)) { /* chaddr: the sender */
		count(IM_BAD);
		return;
	}
	struct rte_ether_addr mac;
	memcpy(&mac, b + 28, 6);
	struct lease *l = lease_of(access, &mac);
	uint8_t plen = 0;
	uint32_t gw = gateway(access, l ? l->ip : 0, &plen); /* the lease's router, or the pool's */
	if (!gw) {
		count(IM_NO_GW);
		return;
	}
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	uint32_t ciaddr = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
	if (relay_server) { /* the server decides; its ACK makes the session (relay_down) */
		if (l && (in.type == DECLINE || (in.type == RELEASE && l->ip == ciaddr)))
			lease_free(l), l = NULL;
		/* with set ipoe auth radius, a client RADIUS has not accepted is asked for first:
		 * its DISCOVER or REQUEST is relayed once the Access-Accept comes */
		if (auth_radius && (in.type == DISCOVER || in.type == REQUEST) && !(l && l->authed)) {
			if (!l) {
				radius_ask(access, &mac, b, m->data_len - off);
				return;
			}
			if (l->rad_token) {
				keep_request(l, b, m->data_len - off);
				count(IM_AUTH_WAIT);
				return;
			}
		}
		relay_up(access, b, m->data_len - off, gw);
		return;
	}
	switch (in.type) {
	case DISCOVER: {
		if (!l && auth_radius) {
			radius_ask(access, &mac, b, m->data_len - off);
			return;
		}
		if (l && l->rad_token) { /* asked already: the newest DISCOVER answered */
			keep_request(l, b, m->data_len - off);
			count(IM_AUTH_WAIT);
			return;
		}
		if (!l) {
			uint32_t ip = pool_pick(sl_pool_find(&pools, ""), in.req_ip);
			if (!ip || !(l = lease_new(access, &mac, ip))) {
				sl_pool_give(&pools, ip);
				count(IM_POOL);
				return;
			}
		}
		if (!l->bound)
			l->expires = now + OFFER_S * hz;
		snprintf(l->hostname, sizeof(l->hostname), "%s", in.hostname);
		reply(access, b, OFFER, l->ip, gw, plen, lease_time(l));
		return;
	}
	case REQUEST: {
		/* SELECTING: our server id; INIT-REBOOT: a requested address; RENEWING or
		 * REBINDING: ciaddr (RFC 2131 4.3.2) */
		if (in.server && in.server != gw) { /* it took another server's offer */
			if (l && !l->bound)
				lease_free(l);
			return;
		}
		uint32_t want = in.req_ip ? in.req_ip : ciaddr;
		if (l && l->bound && l->session_timeout &&
		    now - l->timeout_base >= (uint64_t)l->session_timeout * hz) {
			reply(access, b, NAK, 0, gw, plen, 0); /* its Session-Timeout is over */
			lease_free(l);
			return;
		}
		if (!l || l->ip != want) {
			if (in.server || ciaddr || sl_pool_of(&pools, want))
				reply(access, b, NAK, 0, gw, plen, 0);
			return;
		}
		if (!l->bound) {
			if (session_up(l)) {
				reply(access, b, NAK, 0, gw, plen, 0);
				lease_free(l);
				return;
			}
			lease_bound(l, now);
		}
		l->expires = now + (uint64_t)lease_time(l) * hz;
		reply(access, b, ACK, l->ip, gw, plen, lease_time(l));
		return;
	}
	case RELEASE:
	case DECLINE:
		if (l && (in.type == DECLINE || l->ip == ciaddr))
			lease_free(l);
		return;
	default:
		return; /* INFORM and the server's own types: nothing */
	}
}

/* A server's answer to us as relay: the access interface by its option 82 (circuit id, and
 * the remote id the client's MAC), giaddr that interface's gateway; the option taken out, an
 * ACK binds the lease (the server's address and lease time), a NAK ends it; then on to the
 * client. */
static void relay_down(struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t ihl = (ip[0] & 0xf) * 4u, off = ihl + 8;
	static const uint8_t cookie[4] = {99, 130, 83, 99};
	const uint8_t *b = ip + off;
	bool has82;
	int end;
	if (!relay_server || m->data_len < off + BOOTP_LEN + 4 || b[0] != 2 ||
	    memcmp(b + BOOTP_LEN, cookie, 4) ||
	    (end = options_end(b + BOOTP_LEN + 4, m->data_len - off - BOOTP_LEN - 4, &has82)) < 0 ||
	    !has82) {
		rst.dropped++;
		return;
	}
	/* option 82's sub-options; the rest copied without it */
	uint8_t out[1500], *o = out + BOOTP_LEN + 4;
	char circ[65] = "";
	bool mac_ok = false;
	const uint8_t *opt = b + BOOTP_LEN + 4;
	memcpy(out, b, BOOTP_LEN + 4);
	for (int i = 0; i < end;) {
		if (opt[i] == O_PAD) {
			i++;
			continue;
		}
		uint8_t t = opt[i], l = opt[i + 1];
		if (t == 82) {
			for (int k = 0; k + 2 <= l && k + 2 + opt[i + 2 + k + 1] <= l;
			     k += 2 + opt[i + 2 + k + 1]) {
				const uint8_t *so = opt + i + 2 + k;
				if (so[0] == 1 && so[1] <= 64)
					snprintf(circ, sizeof(circ), "%.*s", so[1], (const char *)so + 2);
				else if (so[0] == 2 && so[1] == 6)
					mac_ok = !memcmp(so + 2, b + 28, 6);
			}
		} else if (o + 2 + l < out + sizeof(out) - 1) {
			memcpy(o, opt + i, 2u + l);
			o += 2u + l;
		}
		i += 2 + l;
	}
	*o++ = O_END;
	const struct sl_iface *f = sl_iface_by_name(circ);
	uint8_t plen;
	uint32_t giaddr = (uint32_t)b[24] << 24 | (uint32_t)b[25] << 16 | (uint32_t)b[26] << 8 | b[27];
	if (!f || !mac_ok || !feat_on[f->port] || gateway(f->port, 0, &plen) != giaddr) {
		rst.dropped++;
		return;
	}
	struct dhcp_in in;
	uint32_t lease = lease_s;
	if (options_parse(out + BOOTP_LEN + 4, (uint32_t)(o - out) - BOOTP_LEN - 4, &in)) {
		rst.dropped++;
		return;
	}
	for (const uint8_t *p = out + BOOTP_LEN + 4; p + 6 <= o && *p != O_END; p += 2 + p[1])
		if (p[0] == O_LEASE && p[1] == 4)
			lease = (uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 8 | p[5];
	uint16_t access = f->port;
	struct rte_ether_addr mac;
	memcpy(&mac, b + 28, 6);
	uint32_t yiaddr = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
	struct lease *l = lease_of(access, &mac);
	if (in.type == NAK && l)
		lease_free(l);
	if (in.type == ACK && yiaddr) {
		if (l && l->authed && !l->ip && !lease_by_ip(yiaddr)) {
			/* RADIUS accepted the client: the server's address is its lease's */
			uint64_t ki = yiaddr;
			if (rte_hash_add_key_data(lease_ip, &ki, (void *)(uintptr_t)l->slot) == 0) {
				l->ip = yiaddr;
				sl_pool_claim(&pools, yiaddr);
			}
		}
		if (l && l->ip != yiaddr)
			lease_free(l), l = NULL;
		if (!l && auth_radius) { /* no Access-Accept for it (or it ended since) */
			count(IM_RELAY_UNAUTHED);
			rst.dropped++;
			return;
		}
		if (!l && lease_by_ip(yiaddr)) { /* the server gave another client's address */
			rst.dropped++;
			return;
		}
		if (!l) {
			if (!(l = lease_new(access, &mac, yiaddr))) {
				count(IM_POOL);
				return;
			}
			sl_pool_claim(&pools, yiaddr); /* as every lease's: lease_free gives it back */
		}
		if (!l->bound) {
			if (session_up(l)) {
				lease_free(l);
				rst.dropped++;
				return;
			}
			lease_bound(l, rte_rdtsc());
		}
		l->expires = rte_rdtsc() + (uint64_t)lease * rte_get_tsc_hz();
	}
	to_client(access, out, (uint16_t)(o - out), in.type, in.type == NAK ? 0 : yiaddr, giaddr);
	rst.down++;
}

static void relay_punt(struct rte_mbuf *m)
{
	relay_down(m);
	rte_pktmbuf_free(m);
}

static void dhcp_punt(struct rte_mbuf *m)
{
	dhcp_input(m);
	rte_pktmbuf_free(m);
}

/* The tick: leases expired, Session-Timeouts (a CoA may have shortened one), Idle-Timeouts
 * and Interim-Updates (set pppoe acct-interim). */
static void ipoe_tick(uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz(), interim = (uint64_t)sl_pppoe_interim_s() * hz;
	for (uint32_t i = 0; nleases && i < LEASES; i++) {
		struct lease *l = leases[i];
		if (!l)
			continue;
		bool timed_out = l->bound && l->session_timeout &&
				 now - l->timeout_base >= (uint64_t)l->session_timeout * hz;
		if (now > l->expires || timed_out) {
			l->term_cause = timed_out ? 5 : 0; /* Session-Timeout */
			lease_free(l);
		} else if (l->bound && l->ifx && sl_bng_idle_over(&l->idle, l->ifx, l->idle_timeout, now)) {
			l->term_cause = 4; /* Idle-Timeout */
			lease_free(l);
		} else if (l->bound && l->acct_id[0] && interim && now - l->acct_last >= interim) {
			acct_send(l, 3); /* Interim-Update */
		}
	}
}

uint32_t sl_ipoe_das(const struct sl_radius_das_req *q)
{
	struct lease *l = NULL;
	char user[20];
	for (uint32_t i = 0; !l && nbound && i < LEASES; i++) {
		struct lease *c = leases[i];
		if (!c || !c->bound || !c->authed)
			continue;
		sl_fmt_mac(user, c->mac.addr_bytes);
		if ((!q->session_id || !strcmp(q->session_id, c->acct_id)) &&
		    (!q->user || !strcmp(q->user, user)) && (!q->framed_ip || q->framed_ip == c->ip) &&
		    !q->framed_ip6_plen) /* IPoE subscribers have no IPv6 */
			l = c;
	}
	if (!l)
		return 503; /* Session Context Not Found */
	if (q->code == 40) {
		l->term_cause = 6; /* Admin-Reset */
		lease_free(l);
		return 0;
	}
	char who[16];
	snprintf(who, sizeof(who), "ipoe%u", l->slot);
	if (q->filter_id && sl_bng_acl_swap(l->ifx, l->filter, q->filter_id, who))
		return 407; /* Invalid Attribute Value */
	if (q->qos_profile) {
		uint16_t pipe = sl_bng_pipe_profile(l->access, l->qos_pipe, q->qos_profile, who);
		if (!pipe)
			return 407;
		snprintf(l->qos, sizeof(l->qos), "%s", q->qos_profile);
		if (pipe != l->qos_pipe) { /* the workers' copy, its new pipe */
			l->qos_pipe = pipe;
			__atomic_store_n(&sl_ipoe_dp(l->ifx)->qos_pipe, pipe, __ATOMIC_RELAXED);
		}
	}
	if (q->has_timeout) {
		l->session_timeout = q->session_timeout;
		l->timeout_base = rte_rdtsc(); /* counts from now */
	}
	return 0;
}

void sl_ipoe_subscriber_rows(struct sl_out *o)
{
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	for (uint32_t i = 0; nbound && i < LEASES; i++) {
		const struct lease *l = leases[i];
		if (!l || !l->ifx)
			continue;
		struct sl_if_counters c = sl_iface_counters(l->ifx);
		char v[10][32];
		const uint8_t *b = l->mac.addr_bytes;
		snprintf(v[0], 32, "%u", i);
		sl_fmt_ip4(v[1], l->ip);
		snprintf(v[2], 32, "%" PRIu64, now > l->bound_at ? (now - l->bound_at) / hz : 0);
		snprintf(v[3], 32, "%" PRIu64, c.rx_pkts);
		snprintf(v[4], 32, "%" PRIu64, c.rx_bytes);
		snprintf(v[5], 32, "%" PRIu64, c.tx_pkts);
		snprintf(v[6], 32, "%" PRIu64, c.tx_bytes);
		sl_fmt_mac(v[7], b);
		snprintf(v[8], 32, "%u", l->session_timeout);
		char *row[17] = {"ipoe", v[0], sl_ifaces[l->ifx].name,
				 l->hostname[0] ? (char *)l->hostname : "-", v[1], "up", v[2], v[3],
				 v[4], v[5], v[6], sl_ifaces[l->access].name, v[7],
				 l->filter[0] ? (char *)l->filter : "-", l->qos[0] ? (char *)l->qos : "-",
				 v[8], l->acct_id[0] ? (char *)l->acct_id : "-"};
		sl_tbl_rowv(o, row);
	}
}

/* ---- CLI ---- */

static int cmd_access(struct sl_out *o, int argc, char **argv)
{
	if (argc < 1 || argc > 2 || (argc == 2 && strcmp(argv[1], "disable")))
		return sl_out_error(o, "usage: set ipoe access IFACE [disable]");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (f->type != SL_IF_PORT && f->type != SL_IF_SUB && f->type != SL_IF_PG)
		return sl_out_error(o, "%s is a %s: IPoE is served on a port, a VLAN "
				    "sub-interface or a pg interface", f->name, sl_if_type_names[f->type]);
	bool on = argc == 1;
	char why[160] = "";
	if (!on)
		for (uint32_t i = 0; nleases && i < LEASES; i++)
			if (leases[i] && leases[i]->access == f->port)
				lease_free(leases[i]);
	feat_on[f->port] = on;
	if (sl_feature_set(f->port, SL_ARC_DEVICE_INPUT, "ipoe-input", on, why, sizeof(why))) {
		feat_on[f->port] = 0;
		return sl_out_error(o, "cannot serve IPoE on %s: %s", f->name, why);
	}
	return 0;
}
SL_CLI_COMMAND(ipoe_access, .path = "set ipoe access", .usage = "IFACE [disable]",
	       .help = "serve IPoE subscribers (DHCPv4) on IFACE, a port or VLAN sub-interface with "
		       "an address on the pool's subnet; disable ends its sessions",
	       .fn = cmd_access)

static int cmd_pool(struct sl_out *o, int argc, char **argv)
{
	return sl_pool_cmd(o, &pools, "ipoe", argc, argv);
}
SL_CLI_COMMAND(ipoe_pool, .path = "set ipoe pool", .usage = "FIRST LAST [name NAME]",
	       .help = "the addresses DHCP leases to IPoE clients (on the access interface's "
		       "subnet); with a name, a pool that RADIUS's Framed-Pool names (up to 16, not "
		       "overlapping; one is redefined only while none of its addresses is leased)",
	       .fn = cmd_pool)

static int cmd_lease(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: set ipoe lease SECONDS");
	return sl_arg_u32(o, "lease", argv[0], 10, 86400 * 7, &lease_s);
}
SL_CLI_COMMAND(ipoe_lease, .path = "set ipoe lease", .usage = "SECONDS",
	       .help = "the lease time DHCP gives (default 3600; T1 half of it, T2 seven eighths)",
	       .fn = cmd_lease)

static int cmd_dns(struct sl_out *o, int argc, char **argv)
{
	uint32_t d[2] = {0, 0};
	if (argc < 1 || argc > 2)
		return sl_out_error(o, "usage: set ipoe dns A [B]");
	for (int i = 0; i < argc; i++)
		if (sl_arg_ip4(o, argv[i], &d[i]))
			return -1;
	memcpy(dns, d, sizeof(dns));
	return 0;
}
SL_CLI_COMMAND(ipoe_dns, .path = "set ipoe dns", .usage = "A [B]",
	       .help = "DNS servers DHCP gives IPoE clients", .fn = cmd_dns)

static int cmd_auth(struct sl_out *o, int argc, char **argv)
{
	if (argc == 1 && !strcmp(argv[0], "none")) {
		auth_radius = false;
		return 0;
	}
	if (argc != 3 || strcmp(argv[0], "radius") || strcmp(argv[1], "password"))
		return sl_out_error(o, "usage: set ipoe auth radius password P | set ipoe auth none");
	if (strlen(argv[2]) >= sizeof(auth_password))
		return sl_out_error(o, "the password is at most %zu characters",
				    sizeof(auth_password) - 1);
	if (!sl_radius_enabled())
		return sl_out_error(o, "no RADIUS server (set radius server ...)");
	snprintf(auth_password, sizeof(auth_password), "%s", argv[2]);
	auth_radius = true;
	return 0;
}
SL_CLI_COMMAND(ipoe_auth, .path = "set ipoe auth", .usage = "radius password P | none",
	       .help = "radius: each new IPoE client is authorized by the RADIUS server before "
		       "its OFFER, or in relay mode before its DHCP is relayed (User-Name its MAC, "
		       "User-Password P, NAS-Port-Id the access interface); an Access-Accept's "
		       "Framed-IP-Address and Framed-Pool (not in relay mode: the server gives the "
		       "address), Filter-Id, ERX-Qos-Profile-Name, Session-Timeout and "
		       "Idle-Timeout apply to its lease and session, and accounting Start and Stop "
		       "follow it. none (the default): no RADIUS",
	       .fn = cmd_auth)

static int cmd_relay(struct sl_out *o, int argc, char **argv)
{
	uint32_t a;
	if (argc == 1 && !strcmp(argv[0], "del")) {
		relay_server = 0;
		return 0;
	}
	if (argc != 2 || strcmp(argv[0], "server"))
		return sl_out_error(o, "usage: set ipoe dhcp-relay server A | set ipoe dhcp-relay del");
	if (sl_arg_ip4(o, argv[1], &a))
		return -1;
	relay_server = a;
	return 0;
}
SL_CLI_COMMAND(ipoe_relay, .path = "set ipoe dhcp-relay", .usage = "server A | del",
	       .help = "relay IPoE clients' DHCP to server A (RFC 3046: giaddr the access "
		       "interface's address, option 82 with its name as circuit id and the "
		       "client's MAC as remote id) instead of answering; its ACKs make the "
		       "sessions",
	       .fn = cmd_relay)

static int cmd_show_relay(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show ipoe dhcp-relay");
	sl_tbl_begin(o, "dhcp-relay", 4,
		     (const char *[]){"server", "to-server:u", "to-clients:u", "dropped:u"});
	if (relay_server) {
		char v[4][24];
		sl_fmt_ip4(v[0], relay_server);
		snprintf(v[1], 24, "%" PRIu64, rst.up);
		snprintf(v[2], 24, "%" PRIu64, rst.down);
		snprintf(v[3], 24, "%" PRIu64, rst.dropped);
		sl_tbl_row(o, v[0], v[1], v[2], v[3]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_ipoe_relay, .path = "show ipoe dhcp-relay", .usage = "",
	       .help = "the DHCP relay's server and counts: relayed to it, to clients, dropped "
		       "(answers without our option 82, no route to the server)",
	       .fn = cmd_show_relay)

static int cmd_show(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show ipoe leases");
	sl_tbl_begin(o, "ipoe-leases", 7,
		     (const char *[]){"address", "client-mac", "access", "state", "interface",
				      "expires-s:u", "hostname"});
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	for (uint32_t i = 0; nleases && i < LEASES; i++) {
		const struct lease *l = leases[i];
		if (!l)
			continue;
		char a[16] = "-", mac[20], ex[16];
		if (l->ip)
			sl_fmt_ip4(a, l->ip);
		sl_fmt_mac(mac, l->mac.addr_bytes);
		snprintf(ex, sizeof(ex), "%" PRIu64, l->expires > now ? (l->expires - now) / hz : 0);
		sl_tbl_row(o, a, mac, sl_ifaces[l->access].name,
			   l->bound ? "bound" : l->rad_token ? "authorizing" : "offered",
			   l->ifx ? sl_ifaces[l->ifx].name : "-", ex,
			   l->hostname[0] ? l->hostname : "-");
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_ipoe, .path = "show ipoe leases", .usage = "",
	       .help = "IPoE leases: address, client MAC, access interface, offered or bound, the "
		       "session's interface, seconds left, host name",
	       .fn = cmd_show)

static int cmd_clear(struct sl_out *o, int argc, char **argv)
{
	uint32_t a;
	if (argc != 1)
		return sl_out_error(o, "usage: clear ipoe lease A");
	if (sl_arg_ip4(o, argv[0], &a))
		return -1;
	struct lease *l = lease_by_ip(a);
	if (!l)
		return sl_out_error(o, "no IPoE lease of %s", argv[0]);
	lease_free(l);
	return 0;
}
SL_CLI_COMMAND(clear_ipoe, .path = "clear ipoe lease", .usage = "A",
	       .help = "ends the lease of address A and its session", .fn = cmd_clear)

/* The feature's hook: on only by set ipoe access (which ends the sessions when it goes). */
int sl_ipoe_hook(uint16_t ifx, bool on, char *why, size_t len)
{
	if (on && !feat_on[ifx]) {
		snprintf(why, len, "ipoe-input is turned on by set ipoe access %s",
			 sl_ifaces[ifx].name);
		return -1;
	}
	if (!on)
		feat_on[ifx] = 0;
	return 0;
}

/* An access interface with leases is not deleted. */
static int ipoe_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	if (commit)
		return 0;
	for (uint32_t i = 0; nleases && i < LEASES; i++)
		if (leases[i] && leases[i]->access == f->port) {
			snprintf(why, len, "%s has IPoE leases (set ipoe access %s disable)", f->name,
				 f->name);
			return 1;
		}
	return 0;
}

static int ipoe_init(const struct sl_config *c)
{
	(void)c;
	struct rte_hash_parameters hp = {
		.name = "sl_ipoe", .entries = LEASES, .key_len = sizeof(uint64_t),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_NO_FREE_ON_DEL,
	};
	if (!(by_mac = rte_hash_create(&hp)))
		return -ENOMEM;
	hp.extra_flag = 0;
	hp.name = "sl_ipoe_lm";
	lease_mac = rte_hash_create(&hp);
	hp.name = "sl_ipoe_li";
	lease_ip = rte_hash_create(&hp);
	if (!lease_mac || !lease_ip)
		return -ENOMEM;
	for (nfree = 0; nfree < LEASES; nfree++)
		free_slots[nfree] = LEASES - 1 - nfree; /* ipoe0 first */
	return 0;
}

static void ipoe_fini(void)
{
	for (uint32_t i = 0; i < LEASES; i++) {
		if (!leases[i])
			continue;
		if (leases[i]->ifx)
			sl_ipoe_dp(leases[i]->ifx)->live = 0;
		free(leases[i]);
		leases[i] = NULL;
	}
	rte_hash_free(by_mac);
	rte_hash_free(lease_mac);
	rte_hash_free(lease_ip);
	by_mac = lease_mac = lease_ip = NULL;
	nleases = nbound = nfree = 0;
	sl_pools_clear(&pools);
	lease_s = 3600;
	relay_server = 0;
	auth_radius = false;
	auth_password[0] = 0;
	memset(&rst, 0, sizeof(rst));
	memset(dns, 0, sizeof(dns));
	memset(feat_on, 0, sizeof(feat_on));
}

SL_MODULE_REGISTER(ipoe_module, .name = "ipoe", .init = ipoe_init, .tick = ipoe_tick,
		   .fini = ipoe_fini)

RTE_INIT(ipoe_ctl_init)
{
	im_err = sl_error_register("ipoe (main)", im_reasons, IM_NB);
	sl_punt_register(SL_PUNT_DHCP, dhcp_punt);
	sl_punt_register(SL_PUNT_DHCP_RELAY, relay_punt);
	sl_iface_busy_register(ipoe_busy);
}
