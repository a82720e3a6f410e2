/* SPDX-License-Identifier: BSD-3-Clause */
/* PPPoE access concentrator, control plane (main lcore): discovery (RFC 2516: PADI -> PADO
 * with an AC-Cookie, PADR -> PADS, PADT), then per session PPP: LCP (RFC 1661: MRU, magic
 * number, echo, terminate; our request asks for PAP or CHAP with MD5 and takes the other
 * when the client's Nak suggests it), PAP (RFC 1334) or CHAP-MD5 (RFC 1994) against local users,
 * or a RADIUS server (src/bng/radius.c: Access-Accept's Framed-IP-Address, Session-Timeout,
 * Idle-Timeout,
 * Filter-Id (the ACL on the session's input) and ERX-Qos-Profile-Name (the session's own QoS
 * pipe); accounting Start, Interim-Update and Stop with the session's counters; CoA and
 * Disconnect), IPCP (RFC 1332: the address from a pool or RADIUS, DNS by RFC 1877),
 * keepalive echoes. A session is a logical interface pppoeN (N its session id, point to
 * point, MTU 1492) in its access interface's table; once IPCP is open a /32 route to the
 * client's address goes through it.
 *   set pppoe access IFACE [disable]         set pppoe ac-name NAME
 *   set pppoe service-name NAME              set pppoe address A (ours, in IPCP)
 *   set pppoe pool FIRST LAST                set pppoe dns A [B]
 *   set pppoe user NAME password P [qos-profile Q] | del
 *   set pppoe auth pap|chap                  set pppoe acct-interim S
 *   set pppoe control-rate PPS               show pppoe sessions
 *   show subscribers [detail]                clear pppoe session N
 *   clear subscriber session N | user NAME | address A
 * Not built yet (issue 17): IPv6CP. */
#include "pppoe.h"
#include "pppoe_wire.h"
#include "../cli/cli.h"
#include "pool.h"
#include "radius.h"
#include "ipoe.h"
#include "../acl/acl.h"
#include "../qos/hqos.h"
#include "../ip4/ip4.h"
#include "../ip6/ip6.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_random.h>
#include <openssl/evp.h>

uint16_t sl_pppoe_sid_if[65536];
bool sl_pppoe_access[SL_IF_MAX];

/* discovery codes and tags (RFC 2516 5, A) */
enum { PADI = 0x09, PADO = 0x07, PADR = 0x19, PADS = 0x65, PADT = 0xa7 };
enum { TAG_END = 0, TAG_SERVICE = 0x0101, TAG_AC_NAME = 0x0102, TAG_HOST_UNIQ = 0x0103,
       TAG_COOKIE = 0x0104, TAG_RELAY = 0x0110, TAG_SYS_ERR = 0x0202 };
/* PPP control codes (RFC 1661 5) */
enum { CONF_REQ = 1, CONF_ACK, CONF_NAK, CONF_REJ, TERM_REQ, TERM_ACK, CODE_REJ, PROTO_REJ,
       ECHO_REQ, ECHO_REP, DISCARD_REQ };
enum { LCP_MRU = 1, LCP_AUTH = 3, LCP_MAGIC = 5 };
enum { IPCP_ADDR = 3, IPCP_DNS1 = 129, IPCP_DNS2 = 131 };
enum { IPV6CP_IID = 1 }; /* RFC 5072 4.1: Interface-Identifier */

#define RETRY_S 3      /* a Configure-Request unanswered is sent again (RFC 1661 4.6) */
#define RETRIES 10     /* Max-Configure */
#define ECHO_S 30      /* keepalive: an LCP echo every 30 s, the peer dead after 3 missed */
#define SETUP_S 60     /* a session not up within a minute is ended */

struct sess {
	uint16_t ifx, access, sid;
	struct rte_ether_addr mac;
	uint32_t magic;
	uint16_t mru;
	uint8_t lcp_id, ipcp_id, echo_id, chap_id;
	uint16_t auth;             /* what our LCP asks for: SL_PPP_PAP or SL_PPP_CHAP (MD5) */
	uint8_t challenge[16];     /* CHAP: the last challenge sent */
	uint8_t chap_tries;
	uint64_t chap_sent;
	bool lcp_ours, lcp_theirs, authed, ipcp_ours, ipcp_theirs, up;
	/* IPv6CP (RFC 5072), with set pppoe ipv6 prefix: our interface identifier and the
	 * client's; when both are acked the session's /64 goes through it and it is advertised */
	bool ip6cp_ours, ip6cp_theirs, ip6cp_off, up6;
	uint8_t ip6cp_id, ip6cp_tries;
	uint64_t ip6cp_sent;
	uint8_t iid[8], peer_iid[8];
	bool rad_v6;               /* RADIUS gave its /64 (Framed-IPv6-Prefix, RFC 3162) */
	uint8_t rad_pfx6[16];
	uint8_t lcp_tries, ipcp_tries, echo_missed;
	uint64_t lcp_sent, ipcp_sent, echo_sent, created;
	uint32_t ip; /* host order; 0 until authenticated */
	char user[64];
	uint64_t rx_ctrl, tx_ctrl;
	/* RADIUS */
	uint32_t rad_token;        /* the answer awaited carries it; 0: none awaited */
	uint8_t auth_msg_id;       /* the PAP request's or CHAP response's id, to answer */
	uint32_t session_timeout;  /* s, 0: none */
	uint64_t timeout_base;     /* when it started counting (IPCP up, or a CoA's change) */
	uint32_t idle_timeout;     /* s without a packet either way before it ends; 0: none */
	struct sl_bng_idle idle;
	char filter[64];           /* Filter-Id: the ACL on its input */
	char qos[32];              /* its QoS profile (RADIUS ERX-Qos-Profile-Name, or the user's) */
	uint16_t qos_pipe;         /* its pipe in subport 0 of the access interface's QoS */
	bool acct;                 /* accounting Start sent */
	char acct_id[24];
	uint64_t up_since, acct_last;
	uint32_t term_cause;       /* RFC 2866 5.10, for the Stop */
	bool fixed;                /* made by create pppoe session: no PPP, no timers */
};

struct user {
	char name[64], pass[64];
	char qos[32]; /* a QoS profile for its sessions, or empty */
};

#define USERS 256
static struct sess *sessions[65536];
static uint32_t nsess;
static struct user users[USERS];
static char ac_name[64] = "sluice", service[64];
static uint16_t auth_default = SL_PPP_PAP;
static uint32_t interim_s;     /* accounting Interim-Update every this many seconds; 0: none */
static uint32_t ac_ip, dns[2];
static uint8_t v6_prefix[16], v6_plen; /* set pppoe ipv6 prefix: session N's /64 in it */
static struct sl_pools pools; /* the default and those RADIUS's Framed-Pool names */
/* per access interface, the QoS pipes (of subport 0) its sessions hold, a byte each */
static uint8_t *pipe_used[SL_IF_MAX];
static uint32_t pipe_n[SL_IF_MAX];
static uint64_t cookie_key;

/* errors counted on the main lcore */
#define PM_ERRORS(X)                                                        \
	X(PM_BAD_DISC, "PPPoE discovery malformed or unexpected (dropped)") \
	X(PM_BAD_COOKIE, "PADR without our AC-Cookie (dropped)")            \
	X(PM_NO_SESSION, "PADR refused: no session id or address left")     \
	X(PM_BAD_PPP, "PPP control packet malformed or for no session")      \
	X(PM_AUTH_FAIL, "PAP or CHAP authentication failed")                 \
	X(PM_V6_TAKEN, "IPv6 not brought up: the session's /64 is routed already") \
	X(PM_V6_FAIL, "IPv6 not brought up: its /64 refused by the IPv6 FIB (full? ip6 { tbl8s })") \
	X(PM_NOBUF, "no mbuf for a PPPoE control frame")
enum { PM_ERRORS(SL_ERR_ENUM) PM_NB };
static const char *const pm_reasons[] = {PM_ERRORS(SL_ERR_STR)};
static uint16_t pm_err;

static void count(int e)
{
	sl_main_ctx->errors[pm_err + e]++;
}

uint32_t sl_pppoe_interim_s(void)
{
	return interim_s;
}

uint32_t sl_pppoe_count(void)
{
	return nsess;
}

/* ---- frames ---- */


/* TSC cycles from t to now; 0 for a t after now (set since the tick took its time) */
static inline uint64_t since(uint64_t now, uint64_t t)
{
	return now > t ? now - t : 0;
}

/* A frame to dmac out of access: Ethernet, PPPoE (code, sid) and plen bytes of payload for
 * the caller to write at *pl; NULL when no mbuf. */
static struct rte_mbuf *frame(uint16_t access, const struct rte_ether_addr *dmac, uint16_t type,
			      uint8_t code, uint16_t sid, uint16_t plen, uint8_t **pl)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	if (!m) {
		count(PM_NOBUF);
		return NULL;
	}
	uint16_t len = RTE_ETHER_HDR_LEN + SL_PPPOE_HDR + plen;
	uint8_t *h = (uint8_t *)rte_pktmbuf_append(m, len < 60 ? 60 : len);
	if (!h) {
		rte_pktmbuf_free(m);
		count(PM_NOBUF);
		return NULL;
	}
	memset(h, 0, len < 60 ? 60 : len);
	*pl = sl_pppoe_hdr_write(h, dmac, &sl_ifaces[access].mac, type, code, sid, plen);
	return m;
}

/* A PPP control packet (protocol, code, id, data) to session s. */
static void ppp_send(struct sess *s, uint16_t proto, uint8_t code, uint8_t id, const uint8_t *data,
		     uint16_t dlen)
{
	uint8_t *p;
	struct rte_mbuf *m = frame(s->access, &s->mac, SL_PPPOE_SESS, 0, s->sid, 2 + 4 + dlen, &p);
	if (!m)
		return;
	sl_put16(p, proto);
	p[2] = code;
	p[3] = id;
	sl_put16(p + 4, 4 + dlen);
	if (dlen)
		memcpy(p + 6, data, dlen);
	s->tx_ctrl++;
	sl_iface_inject(m, s->access);
}

/* Sessions by address (main lcore only): whether a fixed address is another session's costs
 * one lookup, not a walk of the 65,535 session slots (20,000 made by create pppoe session
 * took 1.3 billion steps). */
static struct rte_hash *by_ip;

static bool ip_taken(const struct sess *me, uint32_t a)
{
	void *d;
	return rte_hash_lookup_data(by_ip, &a, &d) >= 0 && (!me || (uintptr_t)d != me->sid);
}

/* Session s's address is a now (0: none). */
static void ip_set(struct sess *s, uint32_t a)
{
	if (s->ip)
		rte_hash_del_key(by_ip, &s->ip);
	s->ip = a;
	if (a && rte_hash_add_key_data(by_ip, &a, (void *)(uintptr_t)s->sid))
		RTE_LOG(WARNING, USER1, "pppoe%u: address table full\n", s->sid);
}

/* ---- sessions ---- */

/* What the workers read of s, in place (struct sl_pppoe_dp): the header, access interface
 * and MAC before the session is first marked there (those never change while it is; the
 * access interface's MAC is written again if it changed: a frame in flight may then leave with
 * a mix of the two as its source), then the pipe and the state. */
static void dp_publish(struct sess *s)
{
	struct sl_pppoe_dp *d = sl_pppoe_dp(s->ifx);
	if (!(d->state & SL_PPPOE_LIVE)) {
		d->access = s->access;
		d->mac48 = 0;
		memcpy(&d->mac48, &s->mac, 6);
		memcpy(d->hdr, &s->mac, 6);
		sl_put16(d->hdr + 12, SL_PPPOE_SESS);
		d->hdr[14] = 0x11;
		d->hdr[15] = 0;
		sl_put16(d->hdr + 16, s->sid);
	}
	if (memcmp(d->hdr + 6, &sl_ifaces[s->access].mac, 6))
		memcpy(d->hdr + 6, &sl_ifaces[s->access].mac, 6);
	__atomic_store_n(&d->qos_pipe, s->qos_pipe, __ATOMIC_RELAXED);
	uint8_t st = SL_PPPOE_LIVE | (s->up ? SL_PPPOE_IP4 : 0) | (s->up6 ? SL_PPPOE_IP6 : 0);
	__atomic_store_n(&d->state, st, __ATOMIC_RELEASE);
}

/* Session s's /64: RADIUS's Framed-IPv6-Prefix, else the configured prefix with the session
 * id in bits 48-63. */
static void v6_session_prefix(const struct sess *s, uint8_t p[16])
{
	if (s->rad_v6) {
		memcpy(p, s->rad_pfx6, 16);
		return;
	}
	memcpy(p, v6_prefix, 16);
	memset(p + 8, 0, 8);
	sl_put16(p + 6, s->sid);
}

/* IPv6CP for s: a prefix configured, or one from RADIUS */
static bool v6_on(const struct sess *s)
{
	return v6_plen || s->rad_v6;
}

/* IPv6 of s down (IPv6CP's Terminate-Request, or the session's end): unpublished first. */
static void ip6_down(struct sess *s)
{
	if (!s->up6)
		return;
	s->up6 = false;
	dp_publish(s);
	uint8_t p[16];
	v6_session_prefix(s, p);
	sl_ip6_route_del(sl_ifaces[s->ifx].fib, p, 64);
	sl_ifaces[s->ifx].ra_max_s = 0;
}

/* An Accounting-Request for s (RFC 2866): the session's counters as its interface has them
 * (input: what the client sent). */
static void acct_send(struct sess *s, uint8_t status)
{
	struct sl_if_counters c = sl_iface_counters(s->ifx);
	uint64_t now = rte_rdtsc();
	uint8_t p6[16];
	v6_session_prefix(s, p6);
	struct sl_radius_acct a = {
		.status = status, .session_id = s->acct_id, .user = s->user, .mac = &s->mac,
		.framed_ip6_prefix = p6, .framed_ip6_plen = s->up6 ? 64 : 0,
		.nas_port = s->sid, .framed_ip = s->ip, .nas_port_id = sl_ifaces[s->access].name,
		.session_time = (uint32_t)((since(now, s->up_since)) / rte_get_tsc_hz()),
		.in_octets = c.rx_bytes, .out_octets = c.tx_bytes, .in_packets = c.rx_pkts,
		.out_packets = c.tx_pkts, .terminate_cause = s->term_cause ? s->term_cause : 1,
	};
	s->acct_last = now;
	if (sl_radius_acct(&a))
		RTE_LOG(WARNING, USER1, "pppoe%u: accounting request not sent\n", s->sid);
}

/* Ends s: PADT to the client when asked, its route, interface and id gone. */
static void sess_end(struct sess *s, bool padt)
{
	if (s->acct)
		acct_send(s, 2); /* Stop, before the interface and its counters go */
	if (s->rad_token)
		sl_radius_forget((uint64_t)s->sid << 32 | s->rad_token);
	if (padt) {
		uint8_t *p;
		struct rte_mbuf *m = frame(s->access, &s->mac, SL_PPPOE_DISC, PADT, s->sid, 0, &p);
		if (m)
			sl_iface_inject(m, s->access);
	}
	uint16_t fib = sl_ifaces[s->ifx].fib;
	ip6_down(s);
	if (s->up)
		sl_ip4_route_del(fib, s->ip, 32);
	sl_bng_pipe_give(s->access, s->qos_pipe);
	s->up = false;
	__atomic_store_n(&sl_pppoe_sid_if[s->sid], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sl_pppoe_dp(s->ifx)->state, 0, __ATOMIC_RELEASE);
	char why[160];
	if (sl_iface_delete(&sl_ifaces[s->ifx], why, sizeof(why)))
		RTE_LOG(WARNING, USER1, "pppoe%u: interface not deleted: %s\n", s->sid, why);
	sl_pool_give(&pools, s->ip);
	ip_set(s, 0);
	sessions[s->sid] = NULL;
	nsess--;
	free(s);
}

static void lcp_request(struct sess *s)
{
	uint8_t o[15];
	bool chap = s->auth == SL_PPP_CHAP;
	o[0] = LCP_MRU;
	o[1] = 4;
	sl_put16(o + 2, SL_PPPOE_MTU);
	o[4] = LCP_AUTH;
	o[5] = chap ? 5 : 4;
	sl_put16(o + 6, s->auth);
	uint8_t *mo = o + 8;
	if (chap)
		*mo++ = 5; /* MD5 (RFC 1994 2) */
	mo[0] = LCP_MAGIC;
	mo[1] = 6;
	uint32_t mg = rte_cpu_to_be_32(s->magic);
	memcpy(mo + 2, &mg, 4);
	s->lcp_id++;
	s->lcp_sent = rte_rdtsc();
	s->lcp_tries++;
	ppp_send(s, SL_PPP_LCP, CONF_REQ, s->lcp_id, o, (uint16_t)(mo + 6 - o));
}

/* CHAP (RFC 1994 4.1): a challenge of 16 random bytes, with our name. */
static void chap_challenge(struct sess *s)
{
	uint8_t d[1 + 16 + sizeof(ac_name)];
	d[0] = 16;
	for (int i = 0; i < 16; i += 8) {
		uint64_t r = rte_rand();
		memcpy(s->challenge + i, &r, 8);
	}
	memcpy(d + 1, s->challenge, 16);
	size_t nl = strlen(ac_name);
	memcpy(d + 17, ac_name, nl);
	s->chap_id++;
	s->chap_sent = rte_rdtsc();
	s->chap_tries++;
	ppp_send(s, SL_PPP_CHAP, 1, s->chap_id, d, (uint16_t)(17 + nl));
}

/* Both LCP requests acked: authentication starts (the client sends PAP; we challenge). */
static void lcp_opened(struct sess *s)
{
	if (s->lcp_ours && s->lcp_theirs && s->auth == SL_PPP_CHAP && !s->chap_id)
		chap_challenge(s);
}

static void ipcp_request(struct sess *s)
{
	uint8_t o[6] = {IPCP_ADDR, 6};
	uint32_t a = rte_cpu_to_be_32(ac_ip);
	memcpy(o + 2, &a, 4);
	s->ipcp_id++;
	s->ipcp_sent = rte_rdtsc();
	s->ipcp_tries++;
	ppp_send(s, SL_PPP_IPCP, CONF_REQ, s->ipcp_id, o, sizeof(o));
}


/* A modified EUI-64 interface identifier from a MAC (RFC 4291 appendix A). */
static void eui64(const struct rte_ether_addr *mac, uint8_t iid[8])
{
	const uint8_t *m = mac->addr_bytes;
	const uint8_t e[8] = {m[0] ^ 2, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]};
	memcpy(iid, e, 8);
}

static void ipv6cp_request(struct sess *s)
{
	uint8_t o[10] = {IPV6CP_IID, 10};
	memcpy(o + 2, s->iid, 8);
	s->ip6cp_id++;
	s->ip6cp_sent = rte_rdtsc();
	s->ip6cp_tries++;
	ppp_send(s, SL_PPP_IPV6CP, CONF_REQ, s->ip6cp_id, o, sizeof(o));
}

/* A session on access for mac: id want (free), or a random free one when want is 0. */
static struct sess *sess_new(uint16_t access, const struct rte_ether_addr *mac, uint16_t want)
{
	uint16_t sid = want && !sessions[want] ? want : 0;
	for (uint32_t i = 0; !want && i < 65534; i++) { /* random ids: not guessable */
		uint16_t c = (uint16_t)(1 + (rte_rand() % 65534));
		if (!sessions[c]) {
			sid = c;
			break;
		}
	}
	struct sess *s = sid ? calloc(1, sizeof(*s)) : NULL;
	if (!s)
		return NULL;
	char name[32];
	snprintf(name, sizeof(name), "pppoe%u", sid);
	struct sl_iface *f;
	char why[160];
	if (sl_iface_create(SL_IF_PPPOE, name, &sl_ifaces[access].mac, &f)) {
		free(s);
		return NULL;
	}
	f->p2p = true;
	sl_iface_set_mtu(f->port, SL_PPPOE_MTU);
	if (sl_ifaces[access].fib && sl_ip4_table_set(f->port, sl_ifaces[access].fib, why, sizeof(why))) {
		sl_iface_delete(f, why, sizeof(why));
		free(s);
		return NULL;
	}
	s->ifx = f->port;
	s->access = access;
	s->sid = sid;
	s->mac = *mac;
	s->magic = (uint32_t)rte_rand() | 1;
	s->auth = auth_default;
	s->mru = SL_PPPOE_MTU;
	s->created = rte_rdtsc();
	sessions[sid] = s;
	nsess++;
	dp_publish(s);
	__atomic_store_n(&sl_pppoe_sid_if[sid], s->ifx, __ATOMIC_RELEASE);
	sl_iface_set_up(s->ifx, true);
	return s;
}

/* ---- discovery ---- */

struct tags {
	const uint8_t *service, *host_uniq, *cookie, *relay;
	uint16_t service_len, host_uniq_len, cookie_len, relay_len;
	int services;
};

static int tags_parse(const uint8_t *p, uint16_t len, struct tags *t)
{
	memset(t, 0, sizeof(*t));
	for (uint16_t off = 0; off + 4 <= len;) {
		uint16_t type = sl_get16(p + off), l = sl_get16(p + off + 2);
		if (off + 4 + l > len)
			return -1;
		const uint8_t *v = p + off + 4;
		switch (type) {
		case TAG_END:
			return 0;
		case TAG_SERVICE:
			t->service = v, t->service_len = l, t->services++;
			break;
		case TAG_HOST_UNIQ:
			t->host_uniq = v, t->host_uniq_len = l;
			break;
		case TAG_COOKIE:
			t->cookie = v, t->cookie_len = l;
			break;
		case TAG_RELAY:
			t->relay = v, t->relay_len = l;
			break;
		default:
			break;
		}
		off = (uint16_t)(off + 4 + l);
	}
	return 0;
}

static uint8_t *tag_put(uint8_t *p, uint16_t type, const void *v, uint16_t len)
{
	sl_put16(p, type);
	sl_put16(p + 2, len);
	if (len)
		memcpy(p + 4, v, len);
	return p + 4 + len;
}

/* The AC-Cookie for a client MAC on an access interface: 8 bytes keyed by a secret. */
static uint64_t cookie_of(uint16_t access, const struct rte_ether_addr *mac)
{
	uint64_t v = 0;
	memcpy(&v, mac, 6);
	v |= (uint64_t)access << 48;
	return (uint64_t)rte_hash_crc_8byte(v, (uint32_t)cookie_key) << 32 |
	       rte_hash_crc_8byte(v ^ cookie_key, (uint32_t)(cookie_key >> 32));
}

/* The reply tags: service name, ours for PADO (AC-Name and cookie), Host-Uniq and
 * Relay-Session-Id echoed (RFC 2516 5.2, A). */
static uint16_t reply_tags(uint8_t *buf, const struct tags *t, uint16_t access,
			   const struct rte_ether_addr *mac, bool offer)
{
	uint8_t *p = buf;
	p = tag_put(p, TAG_SERVICE, t->service, t->service_len);
	if (offer) {
		p = tag_put(p, TAG_AC_NAME, ac_name, (uint16_t)strlen(ac_name));
		uint64_t c = cookie_of(access, mac);
		p = tag_put(p, TAG_COOKIE, &c, sizeof(c));
	}
	if (t->host_uniq)
		p = tag_put(p, TAG_HOST_UNIQ, t->host_uniq, t->host_uniq_len);
	if (t->relay)
		p = tag_put(p, TAG_RELAY, t->relay, t->relay_len);
	return (uint16_t)(p - buf);
}

static void disc_send(uint16_t access, const struct rte_ether_addr *mac, uint8_t code, uint16_t sid,
		      const uint8_t *tags, uint16_t len)
{
	uint8_t *p;
	struct rte_mbuf *m = frame(access, mac, SL_PPPOE_DISC, code, sid, len, &p);
	if (!m)
		return;
	memcpy(p, tags, len);
	sl_iface_inject(m, access);
}

static void disc_input(struct rte_mbuf *m)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	struct rte_ether_addr mac;
	memcpy(&mac, h - RTE_ETHER_HDR_LEN + RTE_ETHER_ADDR_LEN, 6);
	uint16_t access = m->port, sid = sl_get16(h + 2), len = sl_get16(h + 4);
	struct tags t;
	if (h[0] != 0x11 || len > m->data_len - SL_PPPOE_HDR || rte_is_multicast_ether_addr(&mac) ||
	    tags_parse(h + SL_PPPOE_HDR, len, &t)) {
		count(PM_BAD_DISC);
		return;
	}
	uint8_t buf[1500];
	/* the service asked for: any (empty) or ours when we have one (RFC 2516 5.1) */
	bool service_ok = t.services == 1 &&
			  (t.service_len == 0 || (service[0] && t.service_len == strlen(service) &&
						  !memcmp(t.service, service, t.service_len)));
	if (t.service_len > 255 || t.host_uniq_len > 512 || t.relay_len > 512) {
		count(PM_BAD_DISC);
		return;
	}
	switch (h[1]) {
	case PADI:
		if (sid || !service_ok) {
			count(PM_BAD_DISC);
			return;
		}
		disc_send(access, &mac, PADO, 0, buf, reply_tags(buf, &t, access, &mac, true));
		return;
	case PADR: {
		uint64_t c = cookie_of(access, &mac);
		if (sid || !service_ok) {
			count(PM_BAD_DISC);
			return;
		}
		if (t.cookie_len != sizeof(c) || memcmp(t.cookie, &c, sizeof(c))) {
			count(PM_BAD_COOKIE);
			return;
		}
		struct sess *s = ac_ip && sl_pools_any(&pools) ? sess_new(access, &mac, 0) : NULL;
		uint16_t n = reply_tags(buf, &t, access, &mac, false);
		if (!s) {
			static const char err[] = "no session available";
			n = (uint16_t)(tag_put(buf + n, TAG_SYS_ERR, err, sizeof(err) - 1) - buf);
			count(PM_NO_SESSION);
			disc_send(access, &mac, PADS, 0, buf, n);
			return;
		}
		disc_send(access, &mac, PADS, s->sid, buf, n);
		lcp_request(s);
		return;
	}
	case PADT: {
		struct sess *s = sessions[sid];
		if (s && s->access == access && rte_is_same_ether_addr(&s->mac, &mac))
			sess_end(s, false);
		else
			count(PM_BAD_DISC);
		return;
	}
	default:
		count(PM_BAD_DISC);
	}
}

static void disc_punt(struct rte_mbuf *m)
{
	disc_input(m);
	rte_pktmbuf_free(m);
}

/* ---- PPP ---- */

/* Options of a Configure-Request (RFC 1661 5.1): each checked by fn, which returns CONF_ACK,
 * CONF_NAK (writing its value into nak) or CONF_REJ; the answer is a Reject of every rejected
 * option, else a Nak of every nak'd one, else an Ack of them all. */
typedef int (*opt_fn)(struct sess *s, const uint8_t *o, uint8_t *nak);

static int conf_answer(struct sess *s, uint16_t proto, uint8_t id, const uint8_t *d, uint16_t len,
		       opt_fn fn, const uint8_t *must, uint8_t must_len)
{
	uint8_t rej[1500], nak[1500], tmp[16];
	uint16_t nrej = 0, nnak = 0;
	bool had_must = must == NULL;
	for (uint16_t off = 0; off < len;) {
		if (off + 2 > len || d[off + 1] < 2 || off + d[off + 1] > len) {
			count(PM_BAD_PPP);
			return -1;
		}
		const uint8_t *o = d + off;
		uint8_t ol = o[1];
		if (must && o[0] == must[0])
			had_must = true;
		int r = ol <= sizeof(tmp) ? fn(s, o, tmp) : CONF_REJ;
		if (r == CONF_REJ) {
			memcpy(rej + nrej, o, ol);
			nrej = (uint16_t)(nrej + ol);
		} else if (r == CONF_NAK) {
			memcpy(nak + nnak, tmp, ol);
			nnak = (uint16_t)(nnak + ol);
		}
		off = (uint16_t)(off + ol);
	}
	if (!had_must) { /* RFC 1332 3.3: a Nak may suggest an option the peer left out */
		memcpy(nak + nnak, must, must_len);
		nnak = (uint16_t)(nnak + must_len);
	}
	if (nrej)
		ppp_send(s, proto, CONF_REJ, id, rej, nrej);
	else if (nnak)
		ppp_send(s, proto, CONF_NAK, id, nak, nnak);
	else
		ppp_send(s, proto, CONF_ACK, id, d, len);
	return !nrej && !nnak;
}

static int lcp_opt(struct sess *s, const uint8_t *o, uint8_t *nak)
{
	if (o[0] == LCP_MRU && o[1] == 4) {
		uint16_t mru = sl_get16(o + 2);
		if (mru > SL_PPPOE_MTU || mru < 576) { /* RFC 2516 7: at most 1492 */
			memcpy(nak, o, 4);
			sl_put16(nak + 2, SL_PPPOE_MTU);
			return CONF_NAK;
		}
		s->mru = mru;
		return CONF_ACK;
	}
	if (o[0] == LCP_MAGIC && o[1] == 6) {
		uint32_t mg;
		memcpy(&mg, o + 2, 4);
		if (mg == 0 || rte_be_to_cpu_32(mg) == s->magic) { /* looped back, or none */
			memcpy(nak, o, 6);
			mg = rte_cpu_to_be_32((uint32_t)rte_rand() | 1);
			memcpy(nak + 2, &mg, 4);
			return CONF_NAK;
		}
		return CONF_ACK;
	}
	return CONF_REJ; /* ACCM, PFC, ACFC (RFC 2516 7), an authentication asked of us, ... */
}

static int ipcp_opt(struct sess *s, const uint8_t *o, uint8_t *nak)
{
	uint32_t want;
	if (o[0] == IPCP_ADDR && o[1] == 6)
		want = s->ip;
	else if ((o[0] == IPCP_DNS1 || o[0] == IPCP_DNS2) && o[1] == 6 && dns[o[0] == IPCP_DNS2])
		want = dns[o[0] == IPCP_DNS2];
	else
		return CONF_REJ;
	uint32_t v;
	memcpy(&v, o + 2, 4);
	if (rte_be_to_cpu_32(v) == want)
		return CONF_ACK;
	memcpy(nak, o, 2);
	v = rte_cpu_to_be_32(want);
	memcpy(nak + 2, &v, 4);
	return CONF_NAK;
}

static void ip_up(struct sess *s)
{
	if (s->up || !s->ipcp_ours || !s->ipcp_theirs)
		return;
	uint16_t fib = sl_ifaces[s->ifx].fib;
	if (sl_ip4_route_add(fib, s->ip, 32, s->ip, s->ifx)) {
		RTE_LOG(WARNING, USER1, "pppoe%u: route to the client not added\n", s->sid);
		return;
	}
	s->up = true;
	s->echo_sent = s->up_since = s->timeout_base = s->idle.since = rte_rdtsc();
	dp_publish(s);
	if (sl_radius_enabled() && !s->fixed) {
		snprintf(s->acct_id, sizeof(s->acct_id), "%08" PRIx64 "%04x",
			 (uint64_t)(s->created & 0xffffffff), s->sid);
		s->acct = true;
		acct_send(s, 1); /* Start */
	}
}

static void lcp_input(struct sess *s, uint8_t code, uint8_t id, const uint8_t *d, uint16_t len)
{
	switch (code) {
	case CONF_REQ:
		if (conf_answer(s, SL_PPP_LCP, id, d, len, lcp_opt, NULL, 0) == 1)
			s->lcp_theirs = true;
		lcp_opened(s);
		break;
	case CONF_ACK:
		if (id == s->lcp_id)
			s->lcp_ours = true;
		lcp_opened(s);
		break;
	case CONF_NAK: {
		/* a Nak of our authentication that suggests the other one we speak (RFC 1661
		 * 6.2): ask again with it; anything else (we ask for MRU 1492, authentication and
		 * a magic number, which a PPPoE client must take) ends the session */
		uint16_t alt = s->auth == SL_PPP_PAP ? SL_PPP_CHAP : SL_PPP_PAP;
		bool ok = id == s->lcp_id && len >= 4 && d[0] == LCP_AUTH && sl_get16(d + 2) == alt &&
			  (alt == SL_PPP_PAP ? d[1] == 4 : d[1] == 5 && len >= 5 && d[4] == 5) &&
			  len == d[1];
		if (ok && s->lcp_tries < RETRIES) {
			s->auth = alt;
			lcp_request(s);
			break;
		}
	}
		/* fall through */
	case CONF_REJ:
		ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
		sess_end(s, true);
		break;
	case TERM_REQ:
		ppp_send(s, SL_PPP_LCP, TERM_ACK, id, NULL, 0);
		sess_end(s, true);
		break;
	case ECHO_REQ:
		if (len >= 4 && s->lcp_ours && s->lcp_theirs) {
			uint8_t r[64];
			uint16_t n = len < sizeof(r) ? len : sizeof(r);
			memcpy(r, d, n);
			uint32_t mg = rte_cpu_to_be_32(s->magic);
			memcpy(r, &mg, 4);
			ppp_send(s, SL_PPP_LCP, ECHO_REP, id, r, n);
		}
		break;
	case ECHO_REP:
		s->echo_missed = 0;
		break;
	case TERM_ACK:
	case CODE_REJ:
	case PROTO_REJ:
	case DISCARD_REQ:
		break;
	default: { /* RFC 1661 5.6: the packet back in a Code-Reject */
		uint8_t r[128] = {code, id};
		size_t n = (size_t)len + 4 < sizeof(r) ? (size_t)len + 4 : sizeof(r);
		sl_put16(r + 2, (uint16_t)(len + 4));
		memcpy(r + 4, d, n - 4);
		ppp_send(s, SL_PPP_LCP, CODE_REJ, ++s->lcp_id, r, (uint16_t)n);
	}
	}
}

static const struct user *user_find(const char *name)
{
	for (int i = 0; i < USERS; i++)
		if (users[i].name[0] && !strcmp(users[i].name, name))
			return &users[i];
	return NULL;
}

/* A pipe of subport 0 of access's scheduler for a subscriber (PPPoE or IPoE: the first from
 * 1 that no subscriber holds) given profile: the pipe, or 0 (logged as who's). */
uint16_t sl_bng_pipe_profile(uint16_t access, uint16_t pipe, const char *profile, const char *who)
{
	if (!pipe)
		return sl_bng_pipe_take(access, profile, who);
	struct sl_out o = {0};
	int rc = sl_qos_pipe_set(&o, access, 0, pipe, profile);
	sl_buf_free(&o.text);
	sl_buf_free(&o.js);
	return rc ? 0 : pipe;
}

uint16_t sl_bng_pipe_take(uint16_t access, const char *profile, const char *who)
{
	uint32_t subports, pipes;
	if (sl_qos_pipes(access, &subports, &pipes)) {
		RTE_LOG(WARNING, USER1, "%s: QoS profile %s, but %s has no QoS\n", who, profile,
			sl_ifaces[access].name);
		return 0;
	}
	pipes = RTE_MIN(pipes, 65536u);
	if (pipe_n[access] != pipes) { /* the scheduler was made again: the map keeps what fits */
		uint8_t *u = calloc(pipes, 1);
		if (!u)
			return 0;
		if (pipe_used[access])
			memcpy(u, pipe_used[access], RTE_MIN(pipes, pipe_n[access]));
		free(pipe_used[access]);
		pipe_used[access] = u;
		pipe_n[access] = pipes;
	}
	for (uint32_t p = 1; p < pipes; p++) {
		if (pipe_used[access][p])
			continue;
		struct sl_out o = {0};
		int rc = sl_qos_pipe_set(&o, access, 0, p, profile);
		if (rc)
			RTE_LOG(WARNING, USER1, "%s: %.*s\n", who, (int)o.text.len,
				o.text.p ? o.text.p : "");
		sl_buf_free(&o.text);
		sl_buf_free(&o.js);
		if (rc)
			return 0;
		pipe_used[access][p] = 1;
		return (uint16_t)p;
	}
	RTE_LOG(WARNING, USER1, "%s: no QoS pipe left on %s\n", who, sl_ifaces[access].name);
	return 0;
}

void sl_bng_pipe_give(uint16_t access, uint16_t pipe)
{
	if (!pipe)
		return;
	if (pipe < pipe_n[access])
		pipe_used[access][pipe] = 0;
	struct sl_out o = {0}; /* the pipe back to the interface's own profile */
	sl_qos_pipe_set(&o, access, 0, pipe, NULL);
	sl_buf_free(&o.text);
	sl_buf_free(&o.js);
}

/* Session s's QoS profile on a pipe of its access interface's scheduler: 0, or -1 (logged). */
static int qos_assign(struct sess *s, const char *profile)
{
	char who[16];
	snprintf(who, sizeof(who), "pppoe%u", s->sid);
	uint16_t p = sl_bng_pipe_take(s->access, profile, who);
	if (!p)
		return -1;
	s->qos_pipe = p;
	snprintf(s->qos, sizeof(s->qos), "%s", profile);
	return 0;
}

/* Authenticated (or not) as name: an address (fixed, from RADIUS; else from the pool that
 * RADIUS named, or the default one), then IPCP; or the session ends. */
static void auth_done(struct sess *s, bool ok, const char *name, uint16_t proto, uint8_t id,
		      uint32_t fixed, const char *qos, const char *pool)
{
	if (ok && !s->authed && qos && qos[0] && qos_assign(s, qos))
		ok = false; /* a profile it cannot have: refused */
	if (ok && !s->authed) {
		struct sl_pool *p = sl_pool_find(&pools, pool);
		if (!fixed && !p)
			RTE_LOG(WARNING, USER1, "pppoe%u: no address pool '%s': refused\n", s->sid,
				pool ? pool : "");
		if (fixed && (ip_taken(s, fixed) || !sl_pool_claim(&pools, fixed)))
			fixed = 0, ok = false; /* another session has it */
		ip_set(s, ok ? (fixed ? fixed : sl_pool_take(p)) : 0);
		ok = s->ip != 0;
	}
	bool chap = proto == SL_PPP_CHAP;
	/* PAP's answers carry a message length byte (RFC 1334 2.2.2); CHAP's the message alone */
	static const char pap_ok[] = "\x08Login ok", pap_bad[] = "\x0fLogin incorrect";
	static const char chap_ok[] = "Welcome", chap_bad[] = "Authentication failed";
	const char *msg = ok ? (chap ? chap_ok : pap_ok) : (chap ? chap_bad : pap_bad);
	ppp_send(s, proto, ok ? (chap ? 3 : 2) : (chap ? 4 : 3), id, (const uint8_t *)msg,
		 (uint16_t)strlen(msg));
	if (!ok) {
		count(PM_AUTH_FAIL);
		ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
		sess_end(s, true);
		return;
	}
	if (!s->authed) {
		s->authed = true;
		if (name != s->user)
			snprintf(s->user, sizeof(s->user), "%.63s", name);
		ipcp_request(s);
		if (v6_on(s)) {
			eui64(&sl_ifaces[s->access].mac, s->iid); /* the session interface's MAC */
			ipv6cp_request(s);
		}
	}
}

/* The RADIUS server's answer for session ctx >> 32: Access-Accept's address, timeout and
 * Filter-Id (an ACL by tag or index, applied to the session's input; one that names none
 * refuses the session), Access-Reject or no answer ends it. */
static void radius_done(uint64_t ctx, const struct sl_radius_reply *r)
{
	struct sess *s = sessions[(uint16_t)(ctx >> 32)];
	if (!s || s->rad_token != (uint32_t)ctx)
		return;
	s->rad_token = 0;
	int acl = -1;
	bool ok = r && r->accept;
	if (ok && r->filter_id[0] && (acl = sl_acl_find(r->filter_id)) < 0) {
		RTE_LOG(WARNING, USER1, "pppoe%u: Filter-Id '%s' names no ACL: refused\n", s->sid,
			r->filter_id);
		ok = false;
	}
	if (ok && acl >= 0) {
		struct sl_out o = {0};
		if (sl_acl_if_apply(&o, s->ifx, 0, (uint32_t)acl, false)) {
			RTE_LOG(WARNING, USER1, "pppoe%u: %.*s\n", s->sid, (int)o.text.len,
				o.text.p ? o.text.p : "");
			ok = false;
		}
		sl_buf_free(&o.text);
		sl_buf_free(&o.js);
		snprintf(s->filter, sizeof(s->filter), "%s", r->filter_id);
	}
	if (ok && (r->framed_ip6_bad || (r->framed_ip6_plen && r->framed_ip6_plen != 64))) {
		RTE_LOG(WARNING, USER1, "pppoe%u: Framed-IPv6-Prefix %s: a session's prefix is a "
			"/64 (advertised for SLAAC): refused\n", s->sid,
			r->framed_ip6_bad ? "malformed" : "not a /64");
		ok = false;
	}
	if (ok) {
		s->session_timeout = r->session_timeout;
		s->idle_timeout = r->idle_timeout;
		s->rad_v6 = r->framed_ip6_plen == 64;
		memcpy(s->rad_pfx6, r->framed_ip6_prefix, 16);
	}
	auth_done(s, ok, s->user, s->auth, s->auth_msg_id, ok ? r->framed_ip : 0,
		  ok ? r->qos_profile : NULL, ok ? r->framed_pool : NULL);
}

static void radius_ask(struct sess *s, const struct sl_radius_auth_req *q, uint8_t id,
		       const char *name)
{
	static uint32_t tokens;
	snprintf(s->user, sizeof(s->user), "%.63s", name);
	s->auth_msg_id = id;
	s->rad_token = ++tokens ? tokens : ++tokens;
	if (sl_radius_auth(q, radius_done, (uint64_t)s->sid << 32 | s->rad_token)) {
		s->rad_token = 0;
		auth_done(s, false, name, s->auth, id, 0, NULL, NULL);
	}
}

/* CHAP-MD5 (RFC 1994 4.1): the response is MD5(id, secret, challenge). */
static void chap_input(struct sess *s, uint8_t code, uint8_t id, const uint8_t *d, uint16_t len)
{
	if (code != 2 || s->auth != SL_PPP_CHAP || !s->chap_id || id != s->chap_id)
		return;
	if (s->authed) { /* a response repeated after our Success was lost: answer again */
		auth_done(s, true, s->user, SL_PPP_CHAP, id, 0, NULL, NULL);
		return;
	}
	if (s->rad_token) /* the server has it already */
		return;
	if (len < 17 || d[0] != 16) {
		count(PM_BAD_PPP);
		return;
	}
	char name[256];
	uint16_t nl = (uint16_t)(len - 17 < 255 ? len - 17 : 255);
	memcpy(name, d + 17, nl);
	name[nl] = 0;
	if (sl_radius_enabled()) {
		struct sl_radius_auth_req q = {.user = name, .chap_id = id, .chap_response = d + 1,
					       .chap_challenge = s->challenge, .mac = &s->mac,
					       .nas_port = s->sid,
					       .nas_port_id = sl_ifaces[s->access].name};
		radius_ask(s, &q, id, name);
		return;
	}
	const struct user *u = user_find(name);
	uint8_t want[16];
	unsigned wl = 0;
	bool ok = false;
	if (u) {
		uint8_t in[1 + sizeof(u->pass) + 16];
		size_t pl = strlen(u->pass);
		in[0] = id;
		memcpy(in + 1, u->pass, pl);
		memcpy(in + 1 + pl, s->challenge, 16);
		ok = EVP_Digest(in, 1 + pl + 16, want, &wl, EVP_md5(), NULL) == 1 && wl == 16 &&
		     !memcmp(want, d + 1, 16);
	}
	auth_done(s, ok, name, SL_PPP_CHAP, id, 0, u ? u->qos : NULL, NULL);
}

static void pap_input(struct sess *s, uint8_t code, uint8_t id, const uint8_t *d, uint16_t len)
{
	if (code != 1 || !s->lcp_ours || !s->lcp_theirs || s->auth != SL_PPP_PAP)
		return;
	if (len < 1 || d[0] + 2 > len || d[0] + 1 + d[d[0] + 1] + 1 > len) {
		count(PM_BAD_PPP);
		return;
	}
	char name[256], pass[256];
	memcpy(name, d + 1, d[0]);
	name[d[0]] = 0;
	const uint8_t *pw = d + 1 + d[0];
	memcpy(pass, pw + 1, pw[0]);
	pass[pw[0]] = 0;
	if (sl_radius_enabled()) {
		if (s->rad_token || s->authed) {
			if (s->authed) /* our Ack was lost: again */
				auth_done(s, true, s->user, SL_PPP_PAP, id, 0, NULL, NULL);
			return;
		}
		struct sl_radius_auth_req q = {.user = name, .password = pass, .mac = &s->mac,
					       .nas_port = s->sid,
					       .nas_port_id = sl_ifaces[s->access].name};
		radius_ask(s, &q, id, name);
		return;
	}
	const struct user *u = user_find(name);
	auth_done(s, u && !strcmp(u->pass, pass), name, SL_PPP_PAP, id, 0, u ? u->qos : NULL,
		  NULL);
}

static void ipcp_input(struct sess *s, uint8_t code, uint8_t id, const uint8_t *d, uint16_t len)
{
	if (!s->authed)
		return;
	uint8_t must[6] = {IPCP_ADDR, 6};
	uint32_t a = rte_cpu_to_be_32(s->ip);
	memcpy(must + 2, &a, 4);
	switch (code) {
	case CONF_REQ:
		if (conf_answer(s, SL_PPP_IPCP, id, d, len, ipcp_opt, must, sizeof(must)) == 1)
			s->ipcp_theirs = true;
		break;
	case CONF_ACK:
		if (id == s->ipcp_id)
			s->ipcp_ours = true;
		break;
	case TERM_REQ:
		ppp_send(s, SL_PPP_IPCP, TERM_ACK, id, NULL, 0);
		sess_end(s, true);
		return;
	default:
		break;
	}
	ip_up(s);
}

/* The client's Interface-Identifier: acked unless zero or ours (RFC 5072 4.1), then Nak'd
 * with its MAC's modified EUI-64 (or that with a bit changed, should it be ours). */
static int ipv6cp_opt(struct sess *s, const uint8_t *o, uint8_t *nak)
{
	static const uint8_t zero[8];
	if (o[0] != IPV6CP_IID || o[1] != 10)
		return CONF_REJ;
	if (memcmp(o + 2, zero, 8) && memcmp(o + 2, s->iid, 8)) {
		memcpy(s->peer_iid, o + 2, 8);
		return CONF_ACK;
	}
	nak[0] = IPV6CP_IID;
	nak[1] = 10;
	eui64(&s->mac, nak + 2);
	if (!memcmp(nak + 2, s->iid, 8))
		nak[9] ^= 1;
	return CONF_NAK;
}

/* Both interface identifiers acked: IPv6 on the session's interface (link-local fe80::our
 * identifier), its /64 routed through it and advertised to the client (RFC 4861, every 200
 * to 600 s, the first at once, and in answer to its solicitations) for SLAAC. */
static void ip6_up(struct sess *s)
{
	if (s->up6 || !s->ip6cp_ours || !s->ip6cp_theirs)
		return;
	uint8_t ll[16] = {0xfe, 0x80}, p[16], zero[16] = {0};
	memcpy(ll + 8, s->iid, 8);
	v6_session_prefix(s, p);
	struct sl_iface *f = &sl_ifaces[s->ifx];
	if (sl_ip6_rib_find(f->fib, p, 64)) { /* another session's, or a route configured */
		char a[INET6_ADDRSTRLEN];
		sl_fmt_ip6(a, p);
		RTE_LOG(WARNING, USER1, "pppoe%u: %s/64 is routed already: IPv6 not brought up\n",
			s->sid, a);
		count(PM_V6_TAKEN);
		return;
	}
	int rc = sl_ip6_enable(s->ifx, ll);
	if (rc == 0)
		rc = sl_ip6_route_add_path(f->fib, p, 64, zero, s->ifx, 1);
	if (rc) {
		RTE_LOG(WARNING, USER1, "pppoe%u: IPv6 not brought up: %s\n", s->sid, strerror(-rc));
		count(PM_V6_FAIL);
		return;
	}
	memcpy(f->ra_prefix, p, 16);
	f->ra_prefix_len = 64;
	sl_ip6_ra_enable(f, 600, 200);
	s->up6 = true;
	dp_publish(s);
}


static void ipv6cp_input(struct sess *s, uint8_t code, uint8_t id, const uint8_t *d, uint16_t len)
{
	if (!s->authed)
		return;
	switch (code) {
	case CONF_REQ:
		if (conf_answer(s, SL_PPP_IPV6CP, id, d, len, ipv6cp_opt, NULL, 0) == 1)
			s->ip6cp_theirs = true;
		break;
	case CONF_ACK:
		if (id == s->ip6cp_id)
			s->ip6cp_ours = true;
		break;
	case CONF_NAK: /* another identifier for us: taken unless zero or the client's */
		if (id == s->ip6cp_id && len >= 10 && d[0] == IPV6CP_IID && d[1] == 10 &&
		    memcmp(d + 2, (const uint8_t[8]){0}, 8) && memcmp(d + 2, s->peer_iid, 8)) {
			memcpy(s->iid, d + 2, 8);
			ipv6cp_request(s);
		}
		break;
	case CONF_REJ: /* no IPv6 with this client; IPv4 goes on */
		if (id == s->ip6cp_id)
			s->ip6cp_off = true;
		break;
	case TERM_REQ:
		ppp_send(s, SL_PPP_IPV6CP, TERM_ACK, id, NULL, 0);
		ip6_down(s);
		s->ip6cp_ours = s->ip6cp_theirs = false;
		s->ip6cp_off = true;
		return;
	default:
		break;
	}
	ip6_up(s);
}

static void ppp_punt(struct rte_mbuf *m)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	struct rte_ether_addr mac;
	memcpy(&mac, h - RTE_ETHER_HDR_LEN + RTE_ETHER_ADDR_LEN, 6);
	uint16_t sid = sl_get16(h + 2), len = sl_get16(h + 4);
	struct sess *s = sessions[sid];
	/* pppoe-input checked the session and that len fits; the PPP packet's own length too */
	if (!s || s->access != m->port || !rte_is_same_ether_addr(&s->mac, &mac) || len < 6 ||
	    sl_get16(h + 10) < 4 || sl_get16(h + 10) > len - 2) {
		count(PM_BAD_PPP);
		rte_pktmbuf_free(m);
		return;
	}
	uint16_t proto = sl_get16(h + 6), plen = sl_get16(h + 10);
	const uint8_t *p = h + 8;
	s->rx_ctrl++;
	if (proto == SL_PPP_LCP)
		lcp_input(s, p[0], p[1], p + 4, plen - 4);
	else if (proto == SL_PPP_PAP)
		pap_input(s, p[0], p[1], p + 4, plen - 4);
	else if (proto == SL_PPP_CHAP)
		chap_input(s, p[0], p[1], p + 4, plen - 4);
	else if (proto == SL_PPP_IPCP)
		ipcp_input(s, p[0], p[1], p + 4, plen - 4);
	else if (proto == SL_PPP_IPV6CP && v6_on(s))
		ipv6cp_input(s, p[0], p[1], p + 4, plen - 4);
	else if (s->lcp_ours && s->lcp_theirs) { /* RFC 1661 5.7: Protocol-Reject */
		uint8_t r[128];
		uint16_t n = (uint16_t)(len < sizeof(r) ? len : sizeof(r));
		memcpy(r, h + 6, n); /* the protocol, then its packet */
		ppp_send(s, SL_PPP_LCP, PROTO_REJ, ++s->lcp_id, r, n);
	}
	rte_pktmbuf_free(m);
}

/* The main lcore's tick: Configure-Requests sent again, sessions that did not come up ended,
 * keepalive echoes and dead peers. */
static void pppoe_tick(uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz();
	for (uint32_t sid = 1; nsess && sid < 65535; sid++) {
		struct sess *s = sessions[sid];
		if (!s || s->fixed)
			continue;
		if (!s->up && since(now, s->created) > SETUP_S * hz) {
			sess_end(s, true);
			continue;
		}
		if (s->up && s->session_timeout &&
		    since(now, s->timeout_base) >= s->session_timeout * hz) {
			s->term_cause = 5; /* Session-Timeout */
			ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
			sess_end(s, true);
			continue;
		}
		if (s->acct && interim_s && since(now, s->acct_last) >= interim_s * hz)
			acct_send(s, 3); /* Interim-Update */
		if (s->up && sl_bng_idle_over(&s->idle, s->ifx, s->idle_timeout, now)) {
			s->term_cause = 4; /* Idle-Timeout */
			ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
			sess_end(s, true);
			continue;
		}
		if (!s->lcp_ours && since(now, s->lcp_sent) > RETRY_S * hz) {
			if (s->lcp_tries >= RETRIES) {
				sess_end(s, true);
				continue;
			}
			lcp_request(s);
		}
		if (s->auth == SL_PPP_CHAP && s->chap_id && !s->authed &&
		    since(now, s->chap_sent) > RETRY_S * hz && s->chap_tries < RETRIES)
			chap_challenge(s);
		if (s->authed && !s->ipcp_ours && since(now, s->ipcp_sent) > RETRY_S * hz &&
		    s->ipcp_tries < RETRIES)
			ipcp_request(s);
		if (s->authed && v6_on(s) && !s->ip6cp_ours && !s->ip6cp_off &&
		    since(now, s->ip6cp_sent) > RETRY_S * hz && s->ip6cp_tries < RETRIES)
			ipv6cp_request(s);
		if (s->up && since(now, s->echo_sent) > ECHO_S * hz) {
			if (s->echo_missed >= 3) {
				s->term_cause = 2; /* Lost-Carrier */
				sess_end(s, true);
				continue;
			}
			uint32_t mg = rte_cpu_to_be_32(s->magic);
			s->echo_missed++;
			s->echo_sent = now;
			ppp_send(s, SL_PPP_LCP, ECHO_REQ, ++s->echo_id, (const uint8_t *)&mg, 4);
		}
	}
}

/* ---- dynamic authorization (RFC 5176) ---- */

/* ACL acl (or none, -1) on s's input in place of the one it has; 0, or -1 (logged). */
/* A subscriber's input ACL swapped (PPPoE's or IPoE's session interface ifx, whose Filter-Id
 * is filter): acl (an index, or -1: none) named name instead, the old one back on failure;
 * 0, or -1 (logged as who's). */
bool sl_bng_idle_over(struct sl_bng_idle *c, uint16_t ifx, uint32_t timeout_s, uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz();
	if (!timeout_s || now - c->checked < hz)
		return false;
	c->checked = now;
	struct sl_if_counters k = sl_iface_counters(ifx);
	uint64_t pkts = k.rx_pkts + k.tx_pkts;
	if (pkts != c->pkts) {
		c->pkts = pkts;
		c->since = now;
		return false;
	}
	return now - c->since >= (uint64_t)timeout_s * hz;
}

int sl_bng_acl_swap(uint16_t ifx, char filter[64], const char *name, const char *who)
{
	int acl = name[0] ? sl_acl_find(name) : -1;
	if (name[0] && acl < 0)
		return -1;
	int old = filter[0] ? sl_acl_find(filter) : -1;
	if (old == acl)
		return 0;
	struct sl_out o = {0};
	int rc = 0;
	if (old >= 0)
		sl_acl_if_apply(&o, ifx, 0, (uint32_t)old, true);
	if (acl >= 0 && (rc = sl_acl_if_apply(&o, ifx, 0, (uint32_t)acl, false)) && old >= 0)
		sl_acl_if_apply(&o, ifx, 0, (uint32_t)old, false); /* as it was */
	if (rc)
		RTE_LOG(WARNING, USER1, "%s: %.*s\n", who, (int)o.text.len, o.text.p ? o.text.p : "");
	else
		snprintf(filter, 64, "%s", acl >= 0 ? name : "");
	sl_buf_free(&o.text);
	sl_buf_free(&o.js);
	return rc;
}

/* The session a Disconnect- or CoA-Request names (every identifier it gives must match; it
 * must give one), then the disconnection or the changes: an ACL (Filter-Id), a QoS profile,
 * a Session-Timeout. 0 (ACK), or RFC 5176 3.6's Error-Cause. */
static uint32_t das_request(const struct sl_radius_das_req *q)
{
	if (!q->session_id && !q->user && !q->framed_ip && !q->framed_ip6_plen)
		return 402; /* Missing Attribute */
	struct sess *s = NULL;
	for (uint32_t sid = 1; !s && sid < 65535; sid++) {
		struct sess *c = sessions[sid];
		uint8_t p6[16];
		if (c && q->framed_ip6_plen) /* the session's /64, while its IPv6 is up */
			v6_session_prefix(c, p6);
		if (c && c->up && (!q->session_id || !strcmp(q->session_id, c->acct_id)) &&
		    (!q->user || !strcmp(q->user, c->user)) && (!q->framed_ip || q->framed_ip == c->ip) &&
		    (!q->framed_ip6_plen || (c->up6 && q->framed_ip6_plen == 64 &&
					     !memcmp(q->framed_ip6_prefix, p6, 16))))
			s = c;
	}
	if (!s)
		return sl_ipoe_das(q); /* an IPoE session's, or 503 */
	if (q->code == 40) {
		s->term_cause = 6; /* Admin-Reset */
		ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
		sess_end(s, true);
		return 0;
	}
	char who[16];
	snprintf(who, sizeof(who), "pppoe%u", s->sid);
	if (q->filter_id && sl_bng_acl_swap(s->ifx, s->filter, q->filter_id, who))
		return 407; /* Invalid Attribute Value */
	if (q->qos_profile) {
		uint16_t pipe = sl_bng_pipe_profile(s->access, s->qos_pipe, q->qos_profile, who);
		if (!pipe)
			return 407;
		s->qos_pipe = pipe;
		snprintf(s->qos, sizeof(s->qos), "%s", q->qos_profile);
		dp_publish(s);
	}
	if (q->has_timeout) {
		s->session_timeout = q->session_timeout;
		s->timeout_base = rte_rdtsc(); /* the new timeout counts from now */
	}
	return 0;
}

/* ---- CLI ---- */

/* create pppoe session client-ip A session-id N client-mac M [access IFACE] [del] (VPP's, the
 * PPP control plane elsewhere): a session up at once, with no PPP and no timers. */
static int cmd_create(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: create pppoe session client-ip A session-id N "
				    "client-mac M [access IFACE] [qos-profile Q] [del]";
	uint32_t ip = 0, sid = 0;
	uint8_t mac[6];
	bool have_mac = false, del = false;
	int access = -1;
	const char *qos = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "del")) {
			del = true;
			continue;
		}
		if (!v)
			return sl_out_error(o, "%s", usage);
		i++;
		if (!strcmp(a, "client-ip")) {
			if (sl_arg_ip4(o, v, &ip))
				return -1;
		} else if (!strcmp(a, "session-id")) {
			if (sl_arg_u32(o, "session-id", v, 1, 65534, &sid))
				return -1;
		} else if (!strcmp(a, "client-mac")) {
			if (sl_arg_mac(o, v, mac))
				return -1;
			have_mac = true;
		} else if (!strcmp(a, "access")) {
			const struct sl_iface *f = sl_iface_by_name(v);
			if (!f)
				return sl_out_error(o, "unknown interface '%s'", v);
			access = f->port;
		} else if (!strcmp(a, "qos-profile")) {
			qos = v;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!ip || !sid || !have_mac)
		return sl_out_error(o, "client-ip, session-id and client-mac are required; %s", usage);
	struct sess *s = sessions[sid];
	if (del) {
		if (!s || !s->fixed || s->ip != ip || memcmp(&s->mac, mac, 6))
			return sl_out_error(o, "no such session made by create pppoe session");
		sess_end(s, false);
		return 0;
	}
	if (s)
		return sl_out_error(o, "session id %u is in use", sid);
	for (uint32_t i = 0; access < 0 && i < sl_if_hwm; i++)
		if (sl_pppoe_access[i])
			access = (int)i;
	if (access < 0 || !sl_pppoe_access[access])
		return sl_out_error(o, "no PPPoE access interface (set pppoe access IFACE, or access "
				    "IFACE here)");
	struct sl_pool *pl = sl_pool_of(&pools, ip);
	if (ip_taken(NULL, ip) || (pl && pl->used[ip - pl->lo]))
		return sl_out_error(o, "another session has that client-ip");
	if (!(s = sess_new((uint16_t)access, (const struct rte_ether_addr *)mac, (uint16_t)sid)))
		return sl_out_error(o, "cannot create the session (interfaces full?)");
	s->fixed = s->lcp_ours = s->lcp_theirs = s->authed = s->ipcp_ours = s->ipcp_theirs = true;
	ip_set(s, ip);
	if (qos && qos_assign(s, qos)) {
		sess_end(s, false);
		return sl_out_error(o, "QoS profile %s cannot be given (show the log; does the access "
				    "interface have QoS?)", qos);
	}
	sl_pool_claim(&pools, ip); /* given back when it ends, as a pool address */
	ip_up(s);
	if (!s->up) {
		sess_end(s, false);
		return sl_out_error(o, "cannot route the client-ip through the session");
	}
	sl_out_msg(o, "%s", sl_ifaces[s->ifx].name);
	return 0;
}
SL_CLI_COMMAND(create_pppoe, .path = "create pppoe session",
	       .usage = "client-ip A session-id N client-mac M [access IFACE] [qos-profile Q] [del]",
	       .help = "a PPPoE session up at once (VPP's grammar, for a PPP control plane "
		       "elsewhere): no LCP, authentication or timers; IPv4 to and from A through "
		       "pppoeN on the access interface (the first served, unless named)",
	       .fn = cmd_create)

static int cmd_access(struct sl_out *o, int argc, char **argv)
{
	if (argc < 1 || argc > 2 || (argc == 2 && strcmp(argv[1], "disable")))
		return sl_out_error(o, "usage: set pppoe access IFACE [disable]");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (f->type != SL_IF_PORT && f->type != SL_IF_SUB && f->type != SL_IF_PG)
		return sl_out_error(o, "%s is a %s: PPPoE is served on a port, a VLAN "
				    "sub-interface or a pg interface", f->name, sl_if_type_names[f->type]);
	bool on = argc == 1;
	if (!on)
		for (uint32_t sid = 1; nsess && sid < 65535; sid++)
			if (sessions[sid] && sessions[sid]->access == f->port)
				sess_end(sessions[sid], true);
	__atomic_store_n(&sl_pppoe_access[f->port], on, __ATOMIC_RELEASE);
	return 0;
}
SL_CLI_COMMAND(pppoe_access, .path = "set pppoe access", .usage = "IFACE [disable]",
	       .help = "serve PPPoE (RFC 2516) on IFACE, a port or VLAN sub-interface; disable ends "
		       "its sessions (PADT)",
	       .fn = cmd_access)

static int name_arg(struct sl_out *o, int argc, char **argv, char *dst, size_t len,
		    const char *usage)
{
	if (argc != 1 || strlen(argv[0]) >= len)
		return sl_out_error(o, "%s (at most %zu characters)", usage, len - 1);
	snprintf(dst, len, "%s", argv[0]);
	return 0;
}

static int cmd_ac_name(struct sl_out *o, int argc, char **argv)
{
	int rc = name_arg(o, argc, argv, ac_name, sizeof(ac_name), "usage: set pppoe ac-name NAME");
	sl_radius_nas(ac_name, ac_ip); /* RADIUS's NAS-Identifier */
	return rc;
}
SL_CLI_COMMAND(pppoe_ac_name, .path = "set pppoe ac-name", .usage = "NAME",
	       .help = "the AC-Name in PADOs (default sluice)", .fn = cmd_ac_name)

static int cmd_service(struct sl_out *o, int argc, char **argv)
{
	return name_arg(o, argc, argv, service, sizeof(service),
			"usage: set pppoe service-name NAME");
}
SL_CLI_COMMAND(pppoe_service, .path = "set pppoe service-name", .usage = "NAME",
	       .help = "a service name offered besides any (clients asking for another get no "
		       "PADO)",
	       .fn = cmd_service)

static int cmd_address(struct sl_out *o, int argc, char **argv)
{
	uint32_t a;
	if (argc != 1)
		return sl_out_error(o, "usage: set pppoe address A");
	if (sl_arg_ip4(o, argv[0], &a))
		return -1;
	ac_ip = a;
	sl_radius_nas(ac_name, ac_ip); /* RADIUS's NAS-IP-Address */
	return 0;
}
SL_CLI_COMMAND(pppoe_address, .path = "set pppoe address", .usage = "A",
	       .help = "our IPv4 address in IPCP (the clients' peer); needed before sessions",
	       .fn = cmd_address)

static int cmd_pool(struct sl_out *o, int argc, char **argv)
{
	return sl_pool_cmd(o, &pools, "pppoe", argc, argv);
}
SL_CLI_COMMAND(pppoe_pool, .path = "set pppoe pool", .usage = "FIRST LAST [name NAME]",
	       .help = "the clients' IPv4 addresses (IPCP), at most 65,536 a pool; with a name, a "
		       "pool that RADIUS's Framed-Pool names (up to 16 pools, not overlapping; "
		       "one is redefined only while none of its addresses is in use)",
	       .fn = cmd_pool)

static int cmd_ipv6(struct sl_out *o, int argc, char **argv)
{
	uint8_t p[16], len;
	if (argc == 1 && !strcmp(argv[0], "del")) {
		if (nsess)
			return sl_out_error(o, "%u sessions exist (clear pppoe session)", nsess);
		v6_plen = 0;
		return 0;
	}
	if (argc != 2 || strcmp(argv[0], "prefix"))
		return sl_out_error(o, "usage: set pppoe ipv6 prefix P/LEN | set pppoe ipv6 del");
	if (sl_arg_prefix6(o, argv[1], p, &len))
		return -1;
	if (len == 0 || len > 48)
		return sl_out_error(o, "the prefix is at most a /48 (each session's /64 is numbered "
				       "by its session id)");
	if (nsess)
		return sl_out_error(o, "%u sessions exist (clear pppoe session)", nsess);
	sl_ip6_pfx_mask(v6_prefix, p, len);
	v6_plen = len;
	return 0;
}
SL_CLI_COMMAND(pppoe_ipv6, .path = "set pppoe ipv6", .usage = "prefix P/LEN | del",
	       .help = "IPv6 for PPPoE sessions: IPv6CP (RFC 5072) negotiates interface "
		       "identifiers, then session N gets the /64 of P numbered N (P at most a /48), "
		       "routed through it and advertised to it for SLAAC",
	       .fn = cmd_ipv6)

static int cmd_dns(struct sl_out *o, int argc, char **argv)
{
	uint32_t d[2] = {0, 0};
	if (argc < 1 || argc > 2)
		return sl_out_error(o, "usage: set pppoe dns A [B]");
	for (int i = 0; i < argc; i++)
		if (sl_arg_ip4(o, argv[i], &d[i]))
			return -1;
	dns[0] = d[0];
	dns[1] = d[1];
	return 0;
}
SL_CLI_COMMAND(pppoe_dns, .path = "set pppoe dns", .usage = "A [B]",
	       .help = "DNS servers given in IPCP (RFC 1877)", .fn = cmd_dns)

static int cmd_user(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set pppoe user NAME password P [qos-profile Q] | "
				    "set pppoe user NAME del";
	if (argc == 2 && !strcmp(argv[1], "del")) {
		struct user *u = (struct user *)(uintptr_t)user_find(argv[0]);
		if (!u)
			return sl_out_error(o, "no user %s", argv[0]);
		memset(u, 0, sizeof(*u));
		return 0;
	}
	if ((argc != 3 && argc != 5) || strcmp(argv[1], "password") ||
	    (argc == 5 && strcmp(argv[3], "qos-profile")))
		return sl_out_error(o, "%s", usage);
	if (argc == 5 && strlen(argv[4]) >= sizeof(users[0].qos))
		return sl_out_error(o, "QoS profile names are at most %zu characters",
				    sizeof(users[0].qos) - 1);
	if (strlen(argv[0]) >= sizeof(users[0].name) || strlen(argv[2]) >= sizeof(users[0].pass) ||
	    !argv[0][0])
		return sl_out_error(o, "user names and passwords are 1 to 63 characters");
	struct user *u = (struct user *)(uintptr_t)user_find(argv[0]);
	for (int i = 0; !u && i < USERS; i++)
		if (!users[i].name[0])
			u = &users[i];
	if (!u)
		return sl_out_error(o, "%d users already, the most there are", USERS);
	snprintf(u->name, sizeof(u->name), "%s", argv[0]);
	snprintf(u->pass, sizeof(u->pass), "%s", argv[2]);
	snprintf(u->qos, sizeof(u->qos), "%s", argc == 5 ? argv[4] : "");
	return 0;
}
SL_CLI_COMMAND(pppoe_user, .path = "set pppoe user",
	       .usage = "NAME password P [qos-profile Q] | NAME del",
	       .help = "a local PAP or CHAP user (used while no RADIUS server is set); its sessions "
		       "get QoS profile Q on a pipe of the access interface's scheduler",
	       .fn = cmd_user)

static int cmd_interim(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: set pppoe acct-interim SECONDS (0: none)");
	return sl_arg_u32(o, "acct-interim", argv[0], 0, 86400, &interim_s);
}
SL_CLI_COMMAND(pppoe_interim, .path = "set pppoe acct-interim", .usage = "SECONDS",
	       .help = "RADIUS accounting Interim-Update every SECONDS for each session (0, the "
		       "default: none)",
	       .fn = cmd_interim)

static int cmd_rate(struct sl_out *o, int argc, char **argv)
{
	uint32_t r;
	if (argc != 1)
		return sl_out_error(o, "usage: set pppoe control-rate PPS");
	if (sl_arg_u32(o, "control-rate", argv[0], 1, 1000000, &r))
		return -1;
	__atomic_store_n(&sl_pppoe_ctl_rate, r, __ATOMIC_RELAXED);
	return 0;
}
SL_CLI_COMMAND(pppoe_rate, .path = "set pppoe control-rate", .usage = "PPS",
	       .help = "how many control packets a second each worker hands the main lcore per "
		       "class (discovery, LCP, authentication, other NCPs; default 1,000, bursts "
		       "of a tenth of a second's); more are dropped by name",
	       .fn = cmd_rate)

static int cmd_auth(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "pap") && strcmp(argv[0], "chap")))
		return sl_out_error(o, "usage: set pppoe auth pap|chap");
	auth_default = argv[0][0] == 'p' ? SL_PPP_PAP : SL_PPP_CHAP;
	return 0;
}
SL_CLI_COMMAND(pppoe_auth, .path = "set pppoe auth", .usage = "pap|chap",
	       .help = "what LCP asks new sessions for: PAP (the default) or CHAP with MD5; a "
		       "client whose Nak suggests the other gets it",
	       .fn = cmd_auth)

static const char *state_of(const struct sess *s)
{
	return s->up ? "up" : s->authed ? "ipcp" : s->lcp_ours && s->lcp_theirs ? "auth" : "lcp";
}

static int cmd_show(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show pppoe sessions");
	sl_tbl_begin(o, "pppoe-sessions", 15,
		     (const char *[]){"session:u", "interface", "access", "client-mac", "user",
				      "address", "state", "mru:u", "control-rx:u", "control-tx:u",
				      "acl", "session-timeout:u", "qos-profile", "qos-pipe:u",
				      "ipv6-prefix"});
	for (uint32_t sid = 1; nsess && sid < 65535; sid++) {
		const struct sess *s = sessions[sid];
		if (!s)
			continue;
		char v[8][32];
		snprintf(v[0], 32, "%u", s->sid);
		sl_fmt_mac(v[1], s->mac.addr_bytes);
		if (s->ip)
			sl_fmt_ip4(v[2], s->ip);
		else
			snprintf(v[2], 32, "-");
		snprintf(v[3], 32, "%u", s->mru);
		snprintf(v[4], 32, "%" PRIu64, s->rx_ctrl);
		snprintf(v[5], 32, "%" PRIu64, s->tx_ctrl);
		snprintf(v[6], 32, "%u", s->session_timeout);
		snprintf(v[7], 32, "%u", s->qos_pipe);
		char p6[52] = "-";
		if (s->up6) {
			uint8_t p[16];
			v6_session_prefix(s, p);
			sl_fmt_ip6(p6, p);
			strcat(p6, "/64");
		}
		sl_tbl_row(o, v[0], sl_ifaces[s->ifx].name, sl_ifaces[s->access].name, v[1],
			   s->user[0] ? s->user : "-", v[2], state_of(s), v[3], v[4], v[5],
			   s->filter[0] ? s->filter : "-", v[6], s->qos[0] ? s->qos : "-", v[7], p6);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_pppoe, .path = "show pppoe sessions", .usage = "",
	       .help = "PPPoE sessions: id, interface, access interface, client MAC, user, address, "
		       "state (lcp, auth, ipcp, up), MRU, control packets, ACL, Session-Timeout, "
		       "QoS profile and pipe, IPv6 prefix (once IPv6CP is open)",
	       .fn = cmd_show)

static int cmd_clear(struct sl_out *o, int argc, char **argv)
{
	uint32_t sid;
	if (argc != 2 || strcmp(argv[0], "session"))
		return sl_out_error(o, "usage: clear pppoe session N");
	if (sl_arg_u32(o, "session", argv[1], 1, 65534, &sid))
		return -1;
	struct sess *s = sessions[sid];
	if (!s)
		return sl_out_error(o, "no PPPoE session %u", sid);
	s->term_cause = 6; /* Admin-Reset */
	ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
	sess_end(s, true);
	return 0;
}
SL_CLI_COMMAND(clear_pppoe, .path = "clear pppoe", .usage = "session N",
	       .help = "ends a PPPoE session (LCP Terminate-Request, PADT)", .fn = cmd_clear)

/* show subscribers [detail]: every subscriber session (PPPoE's, then IPoE's) with its
 * interface, user, address, uptime and traffic; detail adds the access side and the policy. */
static int cmd_subscribers(struct sl_out *o, int argc, char **argv)
{
	bool detail = argc == 1 && !strcmp(argv[0], "detail");
	if (argc > 1 || (argc == 1 && !detail))
		return sl_out_error(o, "usage: show subscribers [detail]");
	static const char *cols[] = {"type", "session:u", "interface", "user", "address", "state",
				     "uptime-s:u", "rx-packets:u", "rx-bytes:u", "tx-packets:u",
				     "tx-bytes:u", "access", "client-mac", "acl", "qos-profile",
				     "session-timeout:u", "acct-session-id"};
	sl_tbl_begin(o, "subscribers", detail ? 17 : 11, cols);
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	for (uint32_t sid = 1; nsess && sid < 65535; sid++) {
		const struct sess *s = sessions[sid];
		if (!s)
			continue;
		struct sl_if_counters c = sl_iface_counters(s->ifx);
		char v[10][32];
		const uint8_t *b = s->mac.addr_bytes;
		snprintf(v[0], 32, "%u", s->sid);
		if (s->ip)
			sl_fmt_ip4(v[1], s->ip);
		else
			snprintf(v[1], 32, "-");
		snprintf(v[2], 32, "%" PRIu64, s->up ? since(now, s->up_since) / hz : 0);
		snprintf(v[3], 32, "%" PRIu64, c.rx_pkts);
		snprintf(v[4], 32, "%" PRIu64, c.rx_bytes);
		snprintf(v[5], 32, "%" PRIu64, c.tx_pkts);
		snprintf(v[6], 32, "%" PRIu64, c.tx_bytes);
		sl_fmt_mac(v[7], b);
		snprintf(v[8], 32, "%u", s->session_timeout);
		char *row[17] = {"pppoe", v[0], sl_ifaces[s->ifx].name, s->user[0] ? (char *)s->user : "-",
				 v[1], (char *)state_of(s), v[2], v[3], v[4], v[5], v[6],
				 sl_ifaces[s->access].name, v[7], s->filter[0] ? (char *)s->filter : "-",
				 s->qos[0] ? (char *)s->qos : "-", v[8],
				 s->acct_id[0] ? (char *)s->acct_id : "-"};
		sl_tbl_rowv(o, row);
	}
	sl_ipoe_subscriber_rows(o);
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_subscribers, .path = "show subscribers", .usage = "[detail]",
	       .help = "subscriber sessions: type, id, interface, user, address, state, uptime, "
		       "traffic each way; detail: access interface, client MAC, ACL, QoS profile, "
		       "Session-Timeout, accounting session id",
	       .fn = cmd_subscribers)

/* clear subscriber session N | user NAME | address A: ends the sessions it names. */
static int cmd_clear_sub(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: clear subscriber session N | user NAME | address A";
	uint32_t v = 0;
	if (argc != 2)
		return sl_out_error(o, "%s", usage);
	int by = !strcmp(argv[0], "session") ? 0 : !strcmp(argv[0], "user") ? 1
		 : !strcmp(argv[0], "address")	 ? 2 : -1;
	if (by < 0 || (by == 0 && sl_arg_u32(o, "session", argv[1], 1, 65534, &v)) ||
	    (by == 2 && sl_arg_ip4(o, argv[1], &v)))
		return by < 0 ? sl_out_error(o, "%s", usage) : -1;
	unsigned n = 0;
	for (uint32_t sid = 1; nsess && sid < 65535; sid++) {
		struct sess *s = sessions[sid];
		if (!s || (by == 0 && sid != v) || (by == 1 && strcmp(s->user, argv[1])) ||
		    (by == 2 && s->ip != v))
			continue;
		s->term_cause = 6; /* Admin-Reset */
		ppp_send(s, SL_PPP_LCP, TERM_REQ, ++s->lcp_id, NULL, 0);
		sess_end(s, true);
		n++;
	}
	if (!n)
		return sl_out_error(o, "no subscriber with %s %s", argv[0], argv[1]);
	sl_out_msg(o, "%u session(s) ended", n);
	return 0;
}
SL_CLI_COMMAND(clear_subscriber, .path = "clear subscriber",
	       .usage = "session N | user NAME | address A",
	       .help = "ends the subscriber sessions it names (LCP Terminate-Request, PADT; "
		       "accounting Stop with Admin-Reset)",
	       .fn = cmd_clear_sub)

/* An access interface is not deleted while it has sessions; a session's interface only by
 * its end. */
static int pppoe_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	if (commit) {
		sl_pppoe_access[f->port] = false;
		return 0;
	}
	for (uint32_t sid = 1; nsess && sid < 65535; sid++)
		if (sessions[sid] && sessions[sid]->access == f->port) {
			snprintf(why, len, "%s has PPPoE sessions (set pppoe access %s disable)",
				 f->name, f->name);
			return 1;
		}
	return 0;
}

static int pppoe_init(const struct sl_config *c)
{
	(void)c;
	cookie_key = rte_rand();
	struct rte_hash_parameters hp = {
		.name = "sl_pppoe_ip", .entries = 65536, .key_len = sizeof(uint32_t),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
	};
	return (by_ip = rte_hash_create(&hp)) ? 0 : -ENOMEM;
}

static void pppoe_fini(void)
{
	for (uint32_t sid = 1; sid < 65535; sid++) {
		if (sessions[sid]) {
			sl_pppoe_dp(sessions[sid]->ifx)->state = 0;
			free(sessions[sid]);
			sessions[sid] = NULL;
		}
	}
	memset(sl_pppoe_sid_if, 0, sizeof(sl_pppoe_sid_if));
	memset(sl_pppoe_access, 0, sizeof(sl_pppoe_access));
	memset(users, 0, sizeof(users));
	rte_hash_free(by_ip);
	by_ip = NULL;
	sl_pools_clear(&pools);
	v6_plen = 0;
	for (uint32_t i = 0; i < SL_IF_MAX; i++) {
		free(pipe_used[i]);
		pipe_used[i] = NULL;
		pipe_n[i] = 0;
	}
	nsess = 0;
	ac_ip = 0;
	auth_default = SL_PPP_PAP;
	interim_s = 0;
	sl_pppoe_ctl_rate = 1000;
}

SL_MODULE_REGISTER(pppoe_module, .name = "pppoe", .init = pppoe_init, .tick = pppoe_tick,
		   .fini = pppoe_fini)

RTE_INIT(pppoe_ctl_init)
{
	pm_err = sl_error_register("pppoe (main)", pm_reasons, PM_NB);
	sl_punt_register(SL_PUNT_PPPOE_DISC, disc_punt);
	sl_punt_register(SL_PUNT_PPP, ppp_punt);
	sl_radius_das_handler(das_request);
	sl_iface_busy_register(pppoe_busy);
}
