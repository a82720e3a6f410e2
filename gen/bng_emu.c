/* SPDX-License-Identifier: BSD-3-Clause */
/* The subscriber emulator (gen/bng_emu.h). Client i has MAC 02:5e:0i (its index in the low
 * 24 bits), so every frame the BNG sends names its client by its destination (or, a DHCP
 * broadcast, by its chaddr). Clients 0 to sessions-1 are PPPoE, the next ipoe_sessions IPoE
 * (DHCPv4, tagged when ipoe_vlan is set). One loop on the main lcore: clients started at the
 * rate, the two kinds in turn, each answered as its frames come (RFC 2516, 1661, 1334, 1994,
 * 1332; RFC 2131), phases timed out; then traffic; then PADT or DHCPRELEASE. */
#include "bng_emu.h"
#include "hist.h"
#include "../src/bng/pppoe_wire.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <openssl/evp.h>
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

/* P_IP6: IPCP done, IPv6CP or the router advertisement awaited (with opts ipv6) */
enum phase { P_IDLE, P_DISC, P_LCP, P_AUTH, P_IPCP, P_IP6, P_OFFER, P_ACK, P_UP, P_FAILED, P_DOWN };

struct esess {
	uint8_t phase, failed_in;
	bool ipoe;
	uint32_t server; /* IPoE: the DHCP server's identifier (host order) */
	bool padr_sent, lcp_ours, lcp_theirs, ipcp_ours, ipcp_theirs;
	uint16_t sid, auth;
	uint8_t lcp_id, ipcp_id;
	struct rte_ether_addr ac; /* the access concentrator's MAC, or the IPoE router's */
	uint32_t ip, magic;
	bool ip6cp_ours, ip6cp_theirs, ip6_ready; /* ip6_ready: the advertised /64 known */
	uint8_t ip6cp_id;
	uint8_t ip6[16];   /* the SLAAC address: the /64 and the MAC's EUI-64 */
	uint64_t t_phase, t_up;
	uint64_t t_sent;   /* the phase's request last sent */
	uint8_t tries;     /* sent again so far in this phase */
	int16_t cookie_len; /* the PADO's AC-Cookie, for a PADR sent again: -1 none, over 64
			     * not kept (that PADR is not sent again) */
	uint8_t cookie[64];
	uint32_t up_tx, up_rx, down_tx, down_rx;
	uint64_t up_lat, down_lat, up_max, down_max; /* TSC */
	uint8_t ready;     /* the warm-ups back: W_UP4, W_DOWN4, W_UP6, W_DOWN6 */
	uint8_t warm_sent; /* rounds of warm-ups sent */
};

static struct esess *ss;
static uint64_t up_hist[HIST_BUCKETS], down_hist[HIST_BUCKETS]; /* every session's latency */
static const struct bng_emu_opts *opt;
static uint16_t acc_port, peer_port;
static struct rte_mempool *pool;
static struct rte_ether_addr peer_mac;
static unsigned nclients; /* PPPoE and IPoE */

#define SIG 0x45424c53u /* "SLBE" */
#define WARM 0x80000000u /* a warm-up packet's index: client i | WARM, not counted */
enum { W_UP4 = 1, W_DOWN4 = 2, W_UP6 = 4, W_DOWN6 = 8 };


static uint32_t sl_get32(const uint8_t *p)
{
	return (uint32_t)sl_get16(p) << 16 | sl_get16(p + 2);
}

static void client_mac(unsigned i, struct rte_ether_addr *m)
{
	*m = (struct rte_ether_addr){{0x02, 0x5e, 0x00, (uint8_t)(i >> 16), (uint8_t)(i >> 8),
				      (uint8_t)i}};
}

static void tx(uint16_t port, struct rte_mbuf *m)
{
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* An IPv4 frame from IPoE client i to dst (tagged with ipoe_vlan if set), its IPv4 header
 * (ipl bytes in all, from src to dst, UDP) written but for the checksum: *ip. */
static struct rte_mbuf *ipoe_frame(unsigned i, const struct rte_ether_addr *dst, uint16_t ipl,
				   uint32_t src, uint32_t to, uint8_t **ip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t l2 = opt->ipoe_vlan ? 18 : 14, len = (uint16_t)(l2 + ipl);
	uint8_t *h = m ? (uint8_t *)rte_pktmbuf_append(m, len < 60 ? 60 : len) : NULL;
	if (!h) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(h, 0, len < 60 ? 60 : len);
	memcpy(h, dst, 6);
	client_mac(i, (struct rte_ether_addr *)(h + 6));
	if (opt->ipoe_vlan) {
		sl_put16(h + 12, RTE_ETHER_TYPE_VLAN);
		sl_put16(h + 14, opt->ipoe_vlan);
	}
	sl_put16(h + l2 - 2, RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *iph = (struct rte_ipv4_hdr *)(h + l2);
	iph->version_ihl = 0x45;
	iph->total_length = htons(ipl);
	iph->time_to_live = 64;
	iph->next_proto_id = IPPROTO_UDP;
	iph->src_addr = htonl(src);
	iph->dst_addr = htonl(to);
	*ip = h + l2;
	return m;
}

enum { DISCOVER = 1, OFFER, REQUEST, ACK = 5, NAK, RELEASE };

/* A DHCP message of type from IPoE client i (RFC 2131): DISCOVER and REQUEST broadcast,
 * RELEASE to the server; xid the index. */
static void dhcp_send(unsigned i, uint8_t type)
{
	static const struct rte_ether_addr bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	struct esess *s = &ss[i];
	bool rel = type == RELEASE;
	uint16_t ipl = 20 + 8 + 236 + 4 + 3 + 6 + 6 + 5 + 1;
	uint8_t *ip;
	struct rte_mbuf *m = ipoe_frame(i, rel ? &s->ac : &bcast, ipl, rel ? s->ip : 0,
					rel ? s->server : 0xffffffffu, &ip);
	if (!m)
		return;
	uint8_t *u = ip + 20, *b = u + 8, *o = b + 240;
	sl_put16(u, 68);
	sl_put16(u + 2, 67);
	sl_put16(u + 4, (uint16_t)(ipl - 20));
	b[0] = 1; /* BOOTREQUEST, Ethernet, 6 */
	b[1] = 1;
	b[2] = 6;
	uint32_t xid = htonl(i), ci = htonl(rel ? s->ip : 0);
	memcpy(b + 4, &xid, 4);
	memcpy(b + 12, &ci, 4);
	client_mac(i, (struct rte_ether_addr *)(b + 28));
	static const uint8_t cookie[4] = {99, 130, 83, 99};
	memcpy(b + 236, cookie, 4);
	*o++ = 53, *o++ = 1, *o++ = type;
	if (type == REQUEST) {
		uint32_t a = htonl(s->ip);
		*o++ = 50, *o++ = 4;
		memcpy(o, &a, 4);
		o += 4;
	}
	if (type != DISCOVER) {
		uint32_t a = htonl(s->server);
		*o++ = 54, *o++ = 4;
		memcpy(o, &a, 4);
		o += 4;
	}
	if (type != RELEASE)
		*o++ = 55, *o++ = 3, *o++ = 1, *o++ = 3, *o++ = 6; /* mask, router, DNS */
	*o = 255; /* the rest: pad */
	struct rte_ipv4_hdr *iph = (struct rte_ipv4_hdr *)ip;
	iph->hdr_checksum = rte_ipv4_cksum(iph);
	tx(acc_port, m);
}

/* A frame from client i: Ethernet to dst of type (on the client's VLAN when PPPoE clients
 * have VLANs), PPPoE (code, sid), plen bytes at *pl. */
static struct rte_mbuf *frame(unsigned i, const struct rte_ether_addr *dst, uint16_t type,
			      uint8_t code, uint16_t sid, uint16_t plen, uint8_t **pl)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t tag = opt->pppoe_vlans ? (opt->pppoe_svlan ? 8 : 4) : 0;
	uint16_t len = (uint16_t)(RTE_ETHER_HDR_LEN + tag + 6 + plen);
	uint8_t *h = m ? (uint8_t *)rte_pktmbuf_append(m, len < 60 ? 60 : len) : NULL;
	if (!h) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(h, 0, len < 60 ? 60 : len);
	struct rte_ether_addr me;
	client_mac(i, &me);
	*pl = sl_pppoe_hdr_write(h + tag, dst, &me, type, code, sid, plen);
	if (tag) { /* the MACs in front, then the 802.1ad S-tag and the 802.1Q tag */
		memmove(h, h + tag, 12);
		uint8_t *t = h + 12;
		if (opt->pppoe_svlan) {
			sl_put16(t, RTE_ETHER_TYPE_QINQ);
			sl_put16(t + 2, opt->pppoe_svlan);
			t += 4;
		}
		sl_put16(t, RTE_ETHER_TYPE_VLAN);
		sl_put16(t + 2, (uint16_t)(opt->pppoe_vlan + i % opt->pppoe_vlans));
	}
	return m;
}

static void ppp_send(unsigned i, uint16_t proto, uint8_t code, uint8_t id, const uint8_t *d,
		     uint16_t dl)
{
	uint8_t *p;
	struct rte_mbuf *m = frame(i, &ss[i].ac, 0x8864, 0, ss[i].sid, (uint16_t)(6 + dl), &p);
	if (!m)
		return;
	sl_put16(p, proto);
	p[2] = code;
	p[3] = id;
	sl_put16(p + 4, (uint16_t)(4 + dl));
	if (dl)
		memcpy(p + 6, d, dl);
	tx(acc_port, m);
}

/* A request of s's just sent for the first time: its wait for an answer starts now. */
static void request_sent(struct esess *s)
{
	s->t_sent = rte_rdtsc();
	s->tries = 0;
}

/* A new phase: its timeout and its request's wait start now. */
static void set_phase(struct esess *s, uint8_t p)
{
	s->phase = p;
	request_sent(s);
	s->t_phase = s->t_sent;
}

static void fail(struct esess *s)
{
	s->failed_in = s->phase;
	set_phase(s, P_FAILED);
}

/* Client i's first message: a PADI, or a DHCPDISCOVER. */
static void client_hello(unsigned i)
{
	if (ss[i].ipoe) {
		dhcp_send(i, DISCOVER);
		return;
	}
	static const struct rte_ether_addr bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	uint8_t *p;
	struct rte_mbuf *m = frame(i, &bcast, 0x8863, 0x09, 0, 4 + 4 + 4, &p);
	if (!m)
		return;
	sl_put16(p, 0x0101); /* Service-Name: any */
	sl_put16(p + 4, 0x0103); /* Host-Uniq: the index */
	sl_put16(p + 6, 4);
	uint32_t v = htonl(i);
	memcpy(p + 8, &v, 4);
	tx(acc_port, m);
}

/* Client i starts. */
static void client_start(unsigned i)
{
	client_hello(i);
	set_phase(&ss[i], ss[i].ipoe ? P_OFFER : P_DISC);
}

static void lcp_request(unsigned i)
{
	uint8_t o[10] = {1, 4, 0x05, 0xd4, 5, 6};
	uint32_t mg = htonl(ss[i].magic);
	memcpy(o + 6, &mg, 4);
	ppp_send(i, 0xc021, 1, ++ss[i].lcp_id, o, sizeof(o));
}

static void ipcp_request(unsigned i)
{
	uint8_t o[6] = {3, 6};
	uint32_t a = htonl(ss[i].ip);
	memcpy(o + 2, &a, 4);
	ppp_send(i, 0x8021, 1, ++ss[i].ipcp_id, o, sizeof(o));
}

/* Client i's modified EUI-64 interface identifier (RFC 4291 appendix A). */
static void client_iid(unsigned i, uint8_t iid[8])
{
	struct rte_ether_addr m;
	client_mac(i, &m);
	const uint8_t *b = m.addr_bytes;
	uint8_t v[8] = {(uint8_t)(b[0] ^ 2), b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]};
	memcpy(iid, v, 8);
}

static void ipv6cp_request(unsigned i)
{
	uint8_t o[10] = {1, 10}; /* RFC 5072 4.1: Interface-Identifier */
	client_iid(i, o + 2);
	ppp_send(i, 0x8057, 1, ++ss[i].ip6cp_id, o, sizeof(o));
}

/* PAP's Authenticate-Request (RFC 1334 2.2.1): the user and password. */
static void pap_request(unsigned i)
{
	size_t ul = strlen(opt->user), pl = strlen(opt->password);
	uint8_t d[2 + 255 + 255];
	d[0] = (uint8_t)ul;
	memcpy(d + 1, opt->user, ul);
	d[1 + ul] = (uint8_t)pl;
	memcpy(d + 2 + ul, opt->password, pl);
	ppp_send(i, 0xc023, 1, 1, d, (uint16_t)(2 + ul + pl));
}

/* A PADR to the access concentrator that offered (RFC 2516 5.3): Service-Name, Host-Uniq,
 * and its AC-Cookie (cl bytes) back. */
static void padr_send(unsigned i, const uint8_t *cookie, uint16_t cl)
{
	struct esess *s = &ss[i];
	uint8_t *p;
	struct rte_mbuf *m = frame(i, &s->ac, 0x8863, 0x19, 0, (uint16_t)(4 + 8 + (cookie ? 4 + cl : 0)),
				   &p);
	if (!m)
		return;
	sl_put16(p, 0x0101);
	sl_put16(p + 4, 0x0103);
	sl_put16(p + 6, 4);
	uint32_t v = htonl(i);
	memcpy(p + 8, &v, 4);
	if (cookie) {
		sl_put16(p + 12, 0x0104);
		sl_put16(p + 14, cl);
		memcpy(p + 16, cookie, cl);
	}
	tx(acc_port, m);
}

/* After authentication: IPCP, and IPv6CP for a dual-stack client. */
static void ncp_start(unsigned i)
{
	set_phase(&ss[i], P_IPCP);
	ipcp_request(i);
	if (opt->ipv6)
		ipv6cp_request(i);
}

/* IPCP open (and with ipv6 the advertised prefix known): up. */
static void maybe_up(struct esess *s, uint64_t now)
{
	if (!s->ipcp_ours || !s->ipcp_theirs || (s->phase != P_IPCP && s->phase != P_IP6))
		return;
	if (opt->ipv6 && !s->ip6_ready) {
		if (s->phase == P_IPCP)
			set_phase(s, P_IP6);
		return;
	}
	set_phase(s, P_UP);
	s->t_up = now;
}

static void authenticate(unsigned i)
{
	struct esess *s = &ss[i];
	set_phase(s, P_AUTH);
	if (s->auth == 0xc023) /* PAP; with CHAP the server challenges */
		pap_request(i);
}

/* A client whose request has no answer sends it again after 1 and 2 s, then every 4 s
 * while its phase lasts (RFC 2516 5.1's doubled wait for PADI and PADR, RFC 1661 4.6's
 * restart timer for Configure-Requests, RFC 1334 2.2.1 for PAP, RFC 2131 4.1 for DHCP): its
 * PADI or PADR, its LCP, IPCP and IPv6CP Configure-Requests not yet acked, its PAP
 * Authenticate-Request, its DHCPDISCOVER or DHCPREQUEST. What the server asks (its
 * Configure-Requests, CHAP's challenge) the server sends again. Counted. */
static unsigned retransmits;
static void client_again(unsigned i, uint64_t now, uint64_t hz)
{
	struct esess *s = &ss[i];
	if (now < s->t_sent || now - s->t_sent <= hz << RTE_MIN(s->tries, 2))
		return; /* (now was read before this poll's answers set t_sent) */
	bool sent = true;
	switch (s->phase) {
	case P_OFFER:
		dhcp_send(i, DISCOVER);
		break;
	case P_ACK:
		dhcp_send(i, REQUEST);
		break;
	case P_DISC:
		if (!s->padr_sent)
			client_hello(i);
		else if ((sent = s->cookie_len <= (int)sizeof(s->cookie)))
			padr_send(i, s->cookie_len < 0 ? NULL : s->cookie, (uint16_t)RTE_MAX(s->cookie_len, 0));
		break;
	case P_LCP:
		if ((sent = !s->lcp_ours))
			lcp_request(i);
		break;
	case P_AUTH:
		if ((sent = s->auth == 0xc023))
			pap_request(i);
		break;
	case P_IPCP:
	case P_IP6:
		sent = false;
		if (s->phase == P_IPCP && !s->ipcp_ours)
			ipcp_request(i), sent = true;
		if (opt->ipv6 && !s->ip6cp_ours)
			ipv6cp_request(i), sent = true;
		break;
	default:
		sent = false;
	}
	if (sent) {
		s->tries += s->tries < UINT8_MAX; /* the wait stays at 4 s however long */
		retransmits++;
	}
	s->t_sent = now; /* waiting on the server alone: looked at again after the same wait */
}

static void disc_in(unsigned i, const uint8_t *h, uint16_t len, const uint8_t *src)
{
	struct esess *s = &ss[i];
	if (h[1] == 0x07 && s->phase == P_DISC && !s->padr_sent) { /* PADO: PADR with its cookie */
		const uint8_t *cookie = NULL;
		uint16_t cl = 0;
		for (uint16_t off = 6; off + 4 <= 6 + len;) {
			uint16_t t = sl_get16(h + off), l = sl_get16(h + off + 2);
			if (off + 4 + l > 6 + len)
				break;
			if (t == 0x0104)
				cookie = h + off + 4, cl = l;
			off = (uint16_t)(off + 4 + l);
		}
		memcpy(&s->ac, src, 6);
		s->cookie_len = cookie ? (int16_t)RTE_MIN(cl, sizeof(s->cookie) + 1) : -1;
		if (cookie && cl <= sizeof(s->cookie))
			memcpy(s->cookie, cookie, cl);
		padr_send(i, cookie, cl);
		request_sent(s); /* the PADR's own wait */
		s->padr_sent = true;
	} else if (h[1] == 0x65 && s->phase == P_DISC) { /* PADS */
		s->sid = sl_get16(h + 2);
		if (!s->sid) {
			fail(s);
			return;
		}
		set_phase(s, P_LCP);
		lcp_request(i);
	} else if (h[1] == 0xa7 && s->sid == sl_get16(h + 2)) { /* PADT */
		set_phase(s, P_DOWN);
	}
}

static void md5(const void *d, size_t l, uint8_t out[16])
{
	unsigned n = 16;
	if (EVP_Digest(d, l, out, &n, EVP_md5(), NULL) != 1)
		memset(out, 0, 16);
}

static void down_in(unsigned i, const uint8_t *u, uint32_t len, uint64_t now, bool v6);
static void ppp_ip6_in(unsigned i, const uint8_t *ip, uint32_t len, uint64_t now);

static void ppp_in(unsigned i, const uint8_t *h, uint16_t len, uint64_t now)
{
	struct esess *s = &ss[i];
	if (sl_get16(h + 2) != s->sid || len < 2)
		return;
	uint16_t proto = sl_get16(h + 6);
	const uint8_t *p = h + 8;
	if (proto == 0x0021) { /* downstream traffic */
		uint32_t ihl = (p[0] & 0xf) * 4u;
		if (len >= 2 + ihl)
			down_in(i, p + ihl, len - 2 - ihl, now, false);
		return;
	}
	if (proto == 0x0057) {
		ppp_ip6_in(i, p, len - 2u, now);
		return;
	}
	if (len < 6)
		return;
	uint8_t code = p[0], id = p[1];
	uint16_t plen = sl_get16(p + 2);
	if (plen < 4 || plen > len - 2)
		return;
	const uint8_t *d = p + 4;
	uint16_t dl = (uint16_t)(plen - 4);
	if (proto == 0xc021) {
		if (code == 1) { /* the server's request: its authentication taken, all acked */
			for (uint16_t off = 0; off + 2 <= dl && d[off + 1] >= 2; off = (uint16_t)(off + d[off + 1]))
				if (d[off] == 3 && d[off + 1] >= 4)
					s->auth = sl_get16(d + off + 2);
			ppp_send(i, 0xc021, 2, id, d, dl);
			s->lcp_theirs = true;
		} else if (code == 2 && id == s->lcp_id) {
			s->lcp_ours = true;
		} else if (code == 3 || code == 4) {
			fail(s);
			return;
		} else if (code == 9) { /* echo */
			uint8_t r[4];
			uint32_t mg = htonl(s->magic);
			memcpy(r, &mg, 4);
			ppp_send(i, 0xc021, 10, id, r, 4);
		} else if (code == 5) {
			ppp_send(i, 0xc021, 6, id, NULL, 0);
			set_phase(s, P_DOWN);
			return;
		}
		if (s->phase == P_LCP && s->lcp_ours && s->lcp_theirs)
			authenticate(i);
	} else if (proto == 0xc023 && s->phase == P_AUTH) {
		if (code == 2) {
			ncp_start(i);
		} else {
			fail(s);
		}
	} else if (proto == 0xc223 && s->phase == P_AUTH) {
		if (code == 1 && dl >= 1 && d[0] + 1u <= dl) { /* challenge: MD5(id, secret, it) */
			uint8_t in[1 + 255 + 255], r[1 + 16 + 255];
			size_t pl = strlen(opt->password), ul = strlen(opt->user);
			in[0] = id;
			memcpy(in + 1, opt->password, pl);
			memcpy(in + 1 + pl, d + 1, d[0]);
			r[0] = 16;
			md5(in, 1 + pl + d[0], r + 1);
			memcpy(r + 17, opt->user, ul);
			ppp_send(i, 0xc223, 2, id, r, (uint16_t)(17 + ul));
		} else if (code == 3) {
			ncp_start(i);
		} else if (code == 4) {
			fail(s);
		}
	} else if (proto == 0x8021 && (s->phase == P_IPCP || s->phase == P_IP6 || s->phase == P_UP)) {
		/* the server's request acked in any phase from IPCP on: sent again when our Ack
		 * was lost, it is what opens IPCP on its side */
		if (code == 1) {
			ppp_send(i, 0x8021, 2, id, d, dl);
			s->ipcp_theirs = true;
		} else if (s->phase != P_IPCP) {
			return;
		} else if (code == 3 && dl >= 6 && d[0] == 3) { /* Nak: the address we get */
			uint32_t a;
			memcpy(&a, d + 2, 4);
			s->ip = ntohl(a);
			ipcp_request(i);
		} else if (code == 2 && id == s->ipcp_id) {
			s->ipcp_ours = true;
		} else if (code == 4) {
			fail(s);
			return;
		}
		maybe_up(s, now);
	} else if (proto == 0x8057 && opt->ipv6 &&
		   (s->phase == P_IPCP || s->phase == P_IP6 || s->phase == P_UP)) {
		if (code == 1) { /* the server's identifier: acked (again, once up, if it asks) */
			ppp_send(i, 0x8057, 2, id, d, dl);
			s->ip6cp_theirs = true;
		} else if (s->phase == P_UP) {
			return;
		} else if (code == 2 && id == s->ip6cp_id) {
			s->ip6cp_ours = true;
		} else if (code == 3 || code == 4) { /* ours is the MAC's EUI-64: never refused */
			fail(s);
		}
	}
}

/* IPv6 in PPP to client i (the header at ip, len bytes): a router advertisement's /64 gives
 * its address (SLAAC), downstream traffic is counted. */
static void ppp_ip6_in(unsigned i, const uint8_t *ip, uint32_t len, uint64_t now)
{
	struct esess *s = &ss[i];
	if (len < 40 + 8)
		return;
	if (ip[6] == IPPROTO_UDP) {
		down_in(i, ip + 40, len - 40, now, true);
		return;
	}
	if (ip[6] != IPPROTO_ICMPV6 || ip[40] != 134 || s->ip6_ready || len < 40 + 16)
		return;
	for (uint32_t off = 40 + 16; off + 8 <= len && ip[off + 1];) { /* options */
		uint32_t ol = ip[off + 1] * 8u;
		if (off + ol > len)
			break;
		if (ip[off] == 3 && ol == 32 && ip[off + 2] == 64) { /* prefix information, a /64 */
			memcpy(s->ip6, ip + off + 16, 8);
			client_iid(i, s->ip6 + 8);
			s->ip6_ready = s->ip6cp_ours && s->ip6cp_theirs;
			maybe_up(s, now);
			return;
		}
		off += ol;
	}
}

/* Signed traffic for client i at UDP header u, len bytes to its end: counted. */
static void down_in(unsigned i, const uint8_t *u, uint32_t len, uint64_t now, bool v6)
{
	uint32_t sig, idx;
	uint64_t t;
	if (len < 8 + 16)
		return;
	memcpy(&sig, u + 8, 4);
	memcpy(&idx, u + 12, 4);
	memcpy(&t, u + 16, 8);
	if (sig == SIG && idx == (i | WARM))
		ss[i].ready |= v6 ? W_DOWN6 : W_DOWN4;
	if (sig == SIG && idx == i) {
		ss[i].down_rx++;
		ss[i].down_lat += now - t;
		down_hist[hist_bucket(now - t)]++;
		ss[i].down_max = RTE_MAX(ss[i].down_max, now - t);
	}
}

/* An IPv4 frame on the access port (its tag taken off) to client i, or a DHCP broadcast:
 * the server's OFFER answered with a REQUEST, its ACK the client up, a NAK a failure;
 * downstream traffic counted. */
static void ipoe_in(unsigned i, const uint8_t *h, const uint8_t *ip, uint32_t len, uint64_t now)
{
	uint32_t ihl = (ip[0] & 0xf) * 4u;
	if (len < ihl + 8 || ip[9] != IPPROTO_UDP)
		return;
	const uint8_t *u = ip + ihl, *b = u + 8;
	if (sl_get16(u + 2) != 68) {
		if (i < nclients && ss[i].ipoe)
			down_in(i, u, len - ihl, now, false);
		return;
	}
	if (len < ihl + 8 + 240 || b[0] != 2)
		return;
	i = (unsigned)b[31] << 16 | (unsigned)b[32] << 8 | b[33]; /* chaddr: the client */
	uint32_t xid;
	memcpy(&xid, b + 4, 4);
	if (b[28] != 0x02 || b[29] != 0x5e || b[30] || i >= nclients || !ss[i].ipoe ||
	    ntohl(xid) != i)
		return;
	struct esess *s = &ss[i];
	uint8_t type = 0;
	uint32_t server = 0;
	for (uint32_t off = 240; off + 2 <= len - ihl - 8 && b[off] != 255;) {
		if (b[off] == 0) {
			off++;
			continue;
		}
		if (off + 2 + b[off + 1] > len - ihl - 8)
			break;
		if (b[off] == 53 && b[off + 1] == 1)
			type = b[off + 2];
		else if (b[off] == 54 && b[off + 1] == 4)
			server = sl_get32(b + off + 2);
		off += 2u + b[off + 1];
	}
	if (type == OFFER && s->phase == P_OFFER) {
		s->ip = sl_get32(b + 16);
		s->server = server;
		memcpy(&s->ac, h + 6, 6); /* the router */
		dhcp_send(i, REQUEST);
		set_phase(s, P_ACK);
	} else if (type == ACK && s->phase == P_ACK && sl_get32(b + 16) == s->ip) {
		set_phase(s, P_UP);
		s->t_up = now;
	} else if (type == NAK && (s->phase == P_ACK || s->phase == P_OFFER)) {
		fail(s);
	}
}

/* An upstream packet's signature, client index and TSC: counted. */
static void up_in(uint32_t sig, uint32_t idx, uint64_t t, uint64_t now, bool v6)
{
	if (sig == SIG && (idx & WARM) && (idx & ~WARM) < nclients)
		ss[idx & ~WARM].ready |= v6 ? W_UP6 : W_UP4;
	if (sig == SIG && idx < nclients) {
		ss[idx].up_rx++;
		ss[idx].up_lat += now - t;
		up_hist[hist_bucket(now - t)]++;
		ss[idx].up_max = RTE_MAX(ss[idx].up_max, now - t);
	}
}

/* IPv6 on the peer port (the frame at h, len bytes): a neighbour solicitation for the IPv6
 * target answered (RFC 4861 7.2.4: solicited, override, our MAC), upstream traffic counted. */
static void peer_ip6_in(const uint8_t *h, uint32_t len, uint64_t now)
{
	const uint8_t *ip = h + 14;
	if (ip[6] == IPPROTO_UDP && len >= 14 + 40 + 8 + 16) {
		uint32_t sig, idx;
		uint64_t t;
		memcpy(&sig, ip + 48, 4);
		memcpy(&idx, ip + 52, 4);
		memcpy(&t, ip + 56, 8);
		up_in(sig, idx, t, now, true);
		return;
	}
	if (ip[6] != IPPROTO_ICMPV6 || ip[40] != 135 || len < 14 + 40 + 24 ||
	    memcmp(ip + 48, opt->target6, 16))
		return;
	struct rte_mbuf *r = rte_pktmbuf_alloc(pool);
	uint8_t *a = r ? (uint8_t *)rte_pktmbuf_append(r, 14 + 40 + 32) : NULL;
	if (!a) {
		rte_pktmbuf_free(r);
		return;
	}
	memset(a, 0, 14 + 40 + 32);
	memcpy(a, h + 6, 6);
	memcpy(a + 6, &peer_mac, 6);
	sl_put16(a + 12, RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *rip = (struct rte_ipv6_hdr *)(a + 14);
	rip->vtc_flow = RTE_BE32(0x60000000);
	rip->payload_len = htons(32);
	rip->proto = IPPROTO_ICMPV6;
	rip->hop_limits = 255;
	memcpy(rip->src_addr, opt->target6, 16);
	memcpy(rip->dst_addr, ip + 8, 16); /* the solicitor (never :: from a router resolving) */
	uint8_t *na = a + 14 + 40;
	na[0] = 136;
	na[4] = 0x60; /* solicited, override */
	memcpy(na + 8, opt->target6, 16);
	na[24] = 2; /* target link-layer address */
	na[25] = 1;
	memcpy(na + 26, &peer_mac, 6);
	uint16_t ck = rte_ipv6_udptcp_cksum(rip, na);
	memcpy(na + 2, &ck, 2);
	tx(peer_port, r);
}

/* What the peer port receives: ARP for the target answered, upstream traffic counted. */
static void peer_in(struct rte_mbuf *m, uint64_t now)
{
	uint8_t *h = rte_pktmbuf_mtod(m, uint8_t *);
	if (m->data_len >= 42 && sl_get16(h + 12) == RTE_ETHER_TYPE_ARP && sl_get16(h + 20) == 1) {
		uint32_t tip;
		memcpy(&tip, h + 38, 4);
		if (ntohl(tip) != opt->target)
			return;
		struct rte_mbuf *r = rte_pktmbuf_alloc(pool);
		uint8_t *a = r ? (uint8_t *)rte_pktmbuf_append(r, 60) : NULL;
		if (!a) {
			rte_pktmbuf_free(r);
			return;
		}
		memset(a, 0, 60);
		memcpy(a, h + 6, 6);
		memcpy(a + 6, &peer_mac, 6);
		sl_put16(a + 12, RTE_ETHER_TYPE_ARP);
		memcpy(a + 14, h + 14, 6); /* hardware, protocol, sizes */
		sl_put16(a + 20, 2);
		memcpy(a + 22, &peer_mac, 6);
		memcpy(a + 28, h + 38, 4);
		memcpy(a + 32, h + 22, 10); /* the asker's MAC and address */
		tx(peer_port, r);
		return;
	}
	if (opt->ipv6 && m->data_len >= 14 + 40 + 8 && sl_get16(h + 12) == RTE_ETHER_TYPE_IPV6) {
		peer_ip6_in(h, m->data_len, now);
		return;
	}
	if (m->data_len < 14 + 20 + 8 + 16 || sl_get16(h + 12) != RTE_ETHER_TYPE_IPV4)
		return;
	const uint8_t *ip = h + 14;
	uint32_t ihl = (ip[0] & 0xf) * 4u, sig, idx;
	uint64_t t;
	if (m->data_len < 14 + ihl + 8 + 16)
		return;
	memcpy(&sig, ip + ihl + 8, 4);
	memcpy(&idx, ip + ihl + 12, 4);
	memcpy(&t, ip + ihl + 16, 8);
	up_in(sig, idx, t, now, false);
}

/* Both ports' receive queues once; how many frames they held. */
static unsigned poll_ports(void)
{
	struct rte_mbuf *b[32];
	uint64_t now = rte_rdtsc();
	unsigned got = 0;
	uint16_t n = rte_eth_rx_burst(acc_port, 0, b, 32);
	got += n;
	for (uint16_t k = 0; k < n; k++) {
		const uint8_t *h = rte_pktmbuf_mtod(b[k], const uint8_t *);
		unsigned i = (unsigned)h[3] << 16 | (unsigned)h[4] << 8 | h[5];
		uint16_t type = b[k]->data_len >= 20 ? sl_get16(h + 12) : 0;
		bool ours = h[0] == 0x02 && h[1] == 0x5e && h[2] == 0 && i < nclients;
		uint16_t l2 = 14;
		while ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) && l2 < 22 &&
		       b[k]->data_len >= l2 + 10u) { /* one or two tags */
			type = sl_get16(h + l2 + 2);
			l2 += 4;
		}
		uint16_t len = sl_get16(h + l2 + 4); /* PPPoE's length (PPPoE frames only) */
		if (type == RTE_ETHER_TYPE_IPV4 && (ours || h[0] == 0xff) &&
		    b[k]->data_len >= l2 + 20u) {
			ipoe_in(ours ? i : UINT32_MAX, h, h + l2, b[k]->data_len - l2, now);
		} else if (ours && !ss[i].ipoe && (type == 0x8863 || type == 0x8864) &&
			   len <= b[k]->data_len - l2 - 6) {
			if (type == 0x8863)
				disc_in(i, h + l2, len, h + 6);
			else
				ppp_in(i, h + l2, len, now);
		}
		rte_pktmbuf_free(b[k]);
	}
	n = peer_port != acc_port ? rte_eth_rx_burst(peer_port, 0, b, 32) : 0;
	got += n;
	for (uint16_t k = 0; k < n; k++) {
		peer_in(b[k], now);
		rte_pktmbuf_free(b[k]);
	}
	return got;
}

/* A UDP packet of session i's traffic: upstream (inside PPPoE, to the target) or downstream
 * (from the peer port to the session's address), over IPv4 or (v6) IPv6, its payload the
 * signature, i and the TSC. */
static void traffic_one(unsigned i, bool up, bool v6, uint64_t now, bool warm)
{
	struct esess *s = &ss[i];
	uint16_t l3 = v6 ? 40 : 20, ipl = (uint16_t)(l3 + 8 + 18);
	uint8_t *p;
	struct rte_mbuf *m;
	if (up && s->ipoe) {
		if (!(m = ipoe_frame(i, &s->ac, ipl, 0, 0, &p)))
			return;
	} else if (up) {
		m = frame(i, &s->ac, 0x8864, 0, s->sid, (uint16_t)(2 + ipl), &p);
		if (!m)
			return;
		sl_put16(p, v6 ? 0x0057 : 0x0021);
		p += 2;
	} else {
		m = rte_pktmbuf_alloc(pool);
		p = m ? (uint8_t *)rte_pktmbuf_append(m, 14 + ipl + 14) : NULL;
		if (!p) {
			rte_pktmbuf_free(m);
			return;
		}
		memset(p, 0, 14 + ipl + 14);
		memcpy(p, &opt->router_mac, 6);
		memcpy(p + 6, &peer_mac, 6);
		sl_put16(p + 12, v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
		p += 14;
	}
	uint8_t *u = p + l3;
	sl_put16(u, 4000);
	sl_put16(u + 2, 4001);
	sl_put16(u + 4, 8 + 18);
	sl_put16(u + 6, 0);
	uint32_t sig = SIG, idx = warm ? i | WARM : i; /* a warm-up packet is not counted */
	memcpy(u + 8, &sig, 4);
	memcpy(u + 12, &idx, 4);
	memcpy(u + 16, &now, 8);
	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;
		ip->vtc_flow = RTE_BE32(0x60000000);
		ip->payload_len = htons(8 + 18);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, up ? s->ip6 : opt->target6, 16);
		memcpy(ip->dst_addr, up ? opt->target6 : s->ip6, 16);
		uint16_t ck = rte_ipv6_udptcp_cksum(ip, u); /* not optional over IPv6 */
		memcpy(u + 6, &ck, 2);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
		memset(ip, 0, 20);
		ip->version_ihl = 0x45;
		ip->total_length = htons(ipl);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = htonl(up ? s->ip : opt->target);
		ip->dst_addr = htonl(up ? opt->target : s->ip);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	tx(up ? acc_port : peer_port, m);
	if (warm)
		return;
	if (up)
		s->up_tx++;
	else
		s->down_tx++;
}

/* What client i's warm-ups prove once back: each way over IPv4, and over IPv6 with its
 * address. */
static uint8_t warm_want(unsigned i)
{
	return W_UP4 | W_DOWN4 | (ss[i].ip6_ready ? W_UP6 | W_DOWN6 : 0);
}

/* Client i's warm-ups, each way over each family it has. */
static void warm_one(unsigned i)
{
	for (int v6 = 0; v6 <= ss[i].ip6_ready; v6++) {
		traffic_one(i, true, v6, rte_rdtsc(), true);
		traffic_one(i, false, v6, rte_rdtsc(), true);
	}
	ss[i].warm_sent += ss[i].warm_sent < UINT8_MAX;
}

static double us(uint64_t tsc)
{
	return (double)tsc * 1e6 / (double)rte_get_tsc_hz();
}

int bng_emu_run(const struct bng_emu_opts *o, uint16_t access, uint16_t peer,
		struct rte_mempool *mp)
{
	opt = o;
	acc_port = access;
	peer_port = peer;
	pool = mp;
	rte_eth_macaddr_get(peer, &peer_mac);
	nclients = o->sessions + o->ipoe_sessions;
	ss = calloc(nclients, sizeof(*ss));
	memset(up_hist, 0, sizeof(up_hist));
	memset(down_hist, 0, sizeof(down_hist));
	if (!ss)
		return fprintf(stderr, "sluice-gen: no memory for %u clients\n", nclients), 1;
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), to = (uint64_t)(o->timeout * hz);
	for (unsigned i = 0; i < nclients; i++) {
		ss[i].magic = 0x51000000u | i;
		ss[i].ipoe = i >= o->sessions;
	}
	/* set-up: clients started at the rate (a PPPoE one and an IPoE one in turn while both
	 * kinds are left), every answer handled as it comes, phases timed out */
	unsigned started = 0, done = 0, both = 2 * RTE_MIN(o->sessions, o->ipoe_sessions);
	uint64_t last_scan = 0;
	while (done < nclients) {
		uint64_t now = rte_rdtsc();
		while (started < nclients &&
		       now >= start + (uint64_t)((double)started * (double)hz / o->rate)) {
			unsigned k = started++;
			client_start(k < both ? (k % 2 ? o->sessions : 0) + k / 2
				     : o->sessions > o->ipoe_sessions ? k - both / 2 : k);
		}
		poll_ports();
		if (now - last_scan < hz / 1000)
			continue; /* phases timed out each millisecond, not each poll */
		last_scan = now;
		done = 0;
		for (unsigned i = 0; i < nclients; i++) {
			struct esess *s = &ss[i];
			if (s->phase > P_IDLE && s->phase < P_UP && now - s->t_phase > to && now > s->t_phase)
				fail(s);
			else
				client_again(i, now, hz);
			done += s->phase >= P_UP;
		}
	}
	uint64_t setup_end = rte_rdtsc();
	unsigned up = 0, up_ipoe = 0, up6 = 0, failed[P_UP] = {0};
	uint64_t last_up = start;
	for (unsigned i = 0; i < nclients; i++) {
		if (ss[i].phase == P_UP) {
			up++;
			up_ipoe += ss[i].ipoe;
			up6 += ss[i].ip6_ready;
			last_up = RTE_MAX(last_up, ss[i].t_up);
		} else if (ss[i].phase == P_FAILED) {
			failed[ss[i].failed_in]++;
		}
	}
	/* the data path checked before it is measured: each up session's warm-up packets, one
	 * each way (over IPv6 too once it has its address), not counted; the first session's
	 * alone first (the router resolves the target, which the peer port answers), then every
	 * session's, sent again each second to a session whose warm-ups have not all come back,
	 * until all have or --pppoe-timeout. A BNG opens IPCP when it takes the client's last
	 * Ack, which its control-plane rate limit can drop; it asks again only seconds later
	 * (sluiced: 3), and until then it drops that session's traffic */
	uint64_t t_warm = rte_rdtsc(), t_ready = t_warm;
	unsigned late = 0, not_ready = 0;
	for (unsigned i = 0; o->traffic && i < nclients; i++)
		if (ss[i].phase == P_UP) {
			warm_one(i);
			for (uint64_t end = rte_rdtsc() + hz / 2; rte_rdtsc() < end && ss[i].ready != warm_want(i);)
				poll_ports();
			break;
		}
	for (unsigned left = 1; o->traffic && left && rte_rdtsc() - t_warm < to;) {
		for (unsigned i = 0, n = 0; i < nclients; i++)
			if (ss[i].phase == P_UP && ss[i].ready != warm_want(i)) {
				warm_one(i);
				if (++n % 32 == 0) /* no ring on the way holds more than a few bursts */
					poll_ports();
			}
		for (uint64_t end = rte_rdtsc() + hz, last = 0; left && rte_rdtsc() < end;) {
			poll_ports();
			uint64_t now = rte_rdtsc();
			if (now - last < hz / 1000)
				continue;
			last = now;
			left = 0;
			for (unsigned i = 0; i < nclients; i++)
				left += ss[i].phase == P_UP && ss[i].ready != warm_want(i);
			if (!left)
				t_ready = now;
		}
	}
	for (unsigned i = 0; o->traffic && i < nclients; i++) {
		if (ss[i].phase != P_UP)
			continue;
		not_ready += ss[i].ready != warm_want(i);
		late += ss[i].ready == warm_want(i) && ss[i].warm_sent > 1;
	}
	double ready_s = not_ready ? -1.0 : (double)(t_ready - t_warm) / (double)hz; /* -1: never */
	/* each round 32 sessions at a time, what came back taken in between, so that no ring
	 * on the way holds more than a few bursts; with a traffic rate, round k starts k / rate
	 * seconds after the first (late when a round takes longer: the report says the rate
	 * the rounds kept) */
	uint64_t t_rounds = rte_rdtsc(), t_last = t_rounds;
	for (unsigned k = 0; k < o->traffic; k++) {
		if (o->traffic_rate > 0)
			for (uint64_t at = t_rounds + (uint64_t)((double)k * (double)hz / o->traffic_rate);
			     rte_rdtsc() < at;)
				poll_ports();
		t_last = rte_rdtsc();
		for (unsigned i = 0; i < nclients; i++) {
			if (ss[i].phase == P_UP) {
				traffic_one(i, true, false, rte_rdtsc(), false);
				traffic_one(i, false, false, rte_rdtsc(), false);
			}
			if (ss[i].phase == P_UP && ss[i].ip6_ready) { /* each way over IPv6 too */
				traffic_one(i, true, true, rte_rdtsc(), false);
				traffic_one(i, false, true, rte_rdtsc(), false);
			}
			if (i % 32 == 31)
				for (uint64_t end = rte_rdtsc() + hz / 2000; rte_rdtsc() < end;)
					poll_ports();
		}
		for (uint64_t end = rte_rdtsc() + hz / 1000; rte_rdtsc() < end;)
			poll_ports();
	}
	for (uint64_t end = rte_rdtsc() + hz; rte_rdtsc() < end;)
		poll_ports();
	/* teardown: LCP Terminate-Request and PADT for each session still up, DHCPRELEASE for
	 * each lease */
	unsigned torn = 0;
	for (unsigned i = 0; i < nclients; i++) {
		if (ss[i].phase != P_UP)
			continue;
		if (ss[i].ipoe) {
			dhcp_send(i, RELEASE);
			torn++;
			if (torn % 32 == 0)
				poll_ports();
			continue;
		}
		ppp_send(i, 0xc021, 5, ++ss[i].lcp_id, NULL, 0);
		uint8_t *p;
		struct rte_mbuf *m = frame(i, &ss[i].ac, 0x8863, 0xa7, ss[i].sid, 0, &p);
		if (m)
			tx(acc_port, m);
		torn++;
	}
	for (uint64_t end = rte_rdtsc() + hz / 5; rte_rdtsc() < end;)
		poll_ports();
	/* the report */
	uint64_t ut = 0, ur = 0, dt = 0, dr = 0, ul = 0, dl = 0, um = 0, dm = 0;
	unsigned lossy = 0;
	for (unsigned i = 0; i < nclients; i++) {
		const struct esess *s = &ss[i];
		ut += s->up_tx, ur += s->up_rx, dt += s->down_tx, dr += s->down_rx;
		ul += s->up_lat, dl += s->down_lat;
		um = RTE_MAX(um, s->up_max), dm = RTE_MAX(dm, s->down_max);
		lossy += s->up_rx < s->up_tx || s->down_rx < s->down_tx;
	}
	double secs = (double)(last_up - start) / (double)hz;
	/* the rounds' rate: packets a second each way per session, first round to last */
	double rounds_s = (double)(t_last - t_rounds) / (double)hz;
	double round_rate = o->traffic > 1 && rounds_s > 0 ? (o->traffic - 1) / rounds_s : 0;
	/* percentiles of every packet's latency, each way: p50, p90, p99, p99.9 */
	static const double pcts[4] = {50, 90, 99, 99.9};
	double up_p[4], down_p[4];
	for (int k = 0; k < 4; k++) {
		up_p[k] = us((uint64_t)hist_pct_within(up_hist, ur, pcts[k], 0, (double)um));
		down_p[k] = us((uint64_t)hist_pct_within(down_hist, dr, pcts[k], 0, (double)dm));
	}
	if (o->json) {
		printf("{\"sessions\": %u, \"up\": %u, \"pppoe\": {\"sessions\": %u, \"up\": %u}, "
		       "\"ipoe\": {\"sessions\": %u, \"up\": %u}, \"setup_s\": %.3f, "
		       "\"setup_rate\": %.1f, \"failed\": {\"discovery\": %u, \"lcp\": %u, "
		       "\"auth\": %u, \"ipcp\": %u, \"ipv6\": %u, \"dhcp_offer\": %u, \"dhcp_ack\": %u}, "
		       "\"ipv6_up\": %u, \"traffic\": {\"up\": {\"sent\": %" PRIu64 ", \"received\": %" PRIu64
		       ", \"latency_us\": {\"mean\": %.1f, \"max\": %.1f, \"p50\": %.1f, \"p90\": %.1f, "
		       "\"p99\": %.1f, \"p99.9\": %.1f}}, \"down\": {\"sent\": %" PRIu64
		       ", \"received\": %" PRIu64 ", \"latency_us\": {\"mean\": %.1f, \"max\": %.1f, "
		       "\"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, \"p99.9\": %.1f}}, "
		       "\"sessions_with_loss\": %u, \"rounds_s\": %.3f, \"per_session_pps\": %.1f}, "
		       "\"torn_down\": %u, \"setup_wall_s\": %.3f, \"retransmits\": %u, "
		       "\"data_path\": {\"ready_s\": %.3f, \"late\": %u, \"not_ready\": %u}}\n",
		       nclients, up, o->sessions, up - up_ipoe, o->ipoe_sessions, up_ipoe, secs,
		       secs > 0 ? up / secs : 0.0, failed[P_DISC], failed[P_LCP], failed[P_AUTH],
		       failed[P_IPCP], failed[P_IP6], failed[P_OFFER], failed[P_ACK], up6, ut, ur,
		       ur ? us(ul) / (double)ur : 0.0, us(um),
		       up_p[0], up_p[1], up_p[2], up_p[3], dt, dr, dr ? us(dl) / (double)dr : 0.0, us(dm),
		       down_p[0], down_p[1], down_p[2], down_p[3], lossy, rounds_s, round_rate, torn,
		       (double)(setup_end - start) / (double)hz, retransmits,
		       ready_s, late, not_ready);
	} else {
		printf("sessions %u (PPPoE %u, IPoE %u): up %u (PPPoE %u, IPoE %u) in %.3f s (%.1f/s); "
		       "failed: discovery %u, lcp %u, auth %u, ipcp %u, ipv6 %u, dhcp offer %u, dhcp ack "
		       "%u; with IPv6 %u; requests sent again %u\n",
		       nclients, o->sessions, o->ipoe_sessions, up, up - up_ipoe, up_ipoe, secs,
		       secs > 0 ? up / secs : 0.0, failed[P_DISC], failed[P_LCP], failed[P_AUTH],
		       failed[P_IPCP], failed[P_IP6], failed[P_OFFER], failed[P_ACK], up6, retransmits);
		printf("traffic up: %" PRIu64 " sent, %" PRIu64 " received, latency us mean %.1f max "
		       "%.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f; down: %" PRIu64 " sent, %" PRIu64
		       " received, mean %.1f max %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f; "
		       "sessions with loss %u; %.1f packets a second each way per session over %.3f s; "
		       "torn down %u\n", ut, ur,
		       ur ? us(ul) / (double)ur : 0.0, us(um), up_p[0], up_p[1], up_p[2], up_p[3], dt, dr,
		       dr ? us(dl) / (double)dr : 0.0, us(dm), down_p[0], down_p[1], down_p[2], down_p[3],
		       lossy, round_rate, rounds_s, torn);
		printf("data path: warm-ups back from every session after %.3f s (-1: not all); %u "
		       "sessions after more than one try; %u never\n", ready_s, late, not_ready);
	}
	free(ss);
	return up == nclients && !lossy ? 0 : 1;
}
