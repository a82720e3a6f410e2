/* SPDX-License-Identifier: BSD-3-Clause */
/* PPPoE access concentrator (RFC 2516) with PPP (RFC 1661 LCP, RFC 1334 PAP, RFC 1332
 * IPCP) on the main lcore, sessions as logical interfaces (type pppoe, point to point) whose
 * data the workers decapsulate (pppoe-input) and encapsulate (pppoe-output). */
#ifndef SL_PPPOE_H
#define SL_PPPOE_H

#include "../interface/iface.h"
#include <rte_cycles.h>

#define SL_PPPOE_DISC 0x8863
#define SL_PPPOE_SESS 0x8864
#define SL_PPP_IP4 0x0021
#define SL_PPP_IP6 0x0057
#define SL_PPP_LCP 0xc021
#define SL_PPP_PAP 0xc023
#define SL_PPP_CHAP 0xc223
#define SL_PPP_IPCP 0x8021
#define SL_PPP_IPV6CP 0x8057
#define SL_PPPOE_HDR 6  /* ver/type, code, session id, length */
#define SL_PPPOE_MTU 1492

/* What the workers read of a session, in its interface's sl_if_fast line (the type's own
 * data: the line pppoe-output reads for the interface's tx slot anyway): the header its frames
 * get (the client's MAC, the session id), its access interface and QoS pipe, and its state.
 * Written in place by the main lcore: the header, access and MAC once, before the state
 * says the session is there (a release store); the pipe and the NCPs' bits by single stores
 * after (a frame in flight may take the old pipe or the new). */
#define SL_PPPOE_LIVE 1   /* the session is there: its header, access and MAC are set */
#define SL_PPPOE_IP4 2    /* IPCP open: IPv4 flows */
#define SL_PPPOE_IP6 4    /* IPv6CP open: IPv6 flows */
struct sl_pppoe_dp {
	uint8_t hdr[18];    /* what pppoe-output writes first: the client's MAC, the access
			     * interface's, 0x8864, version/type, code, the session id */
	uint16_t access;
	uint16_t qos_pipe;  /* its pipe in subport 0 of the access interface's QoS; 0: none */
	uint8_t state;      /* SL_PPPOE_* */
	uint8_t pad;
	uint64_t mac48;     /* the client's MAC in a word's low 48 bits (as loaded from a frame) */
};
_Static_assert(sizeof(struct sl_pppoe_dp) <= SL_IF_TYPE_DATA, "in the interface's line");

/* The session data in interface line f, and interface ifx's (meaningful on a PPPoE
 * session's interface only). */
static inline struct sl_pppoe_dp *sl_pppoe_dp_in(const struct sl_if_fast *f)
{
	return (struct sl_pppoe_dp *)(uintptr_t)f->type;
}

static inline struct sl_pppoe_dp *sl_pppoe_dp(uint16_t ifx)
{
	return sl_pppoe_dp_in(&sl_if_fast[ifx]);
}

/* Session id -> the session's interface (0: none). */
extern uint16_t sl_pppoe_sid_if[65536];
/* Interfaces that terminate PPPoE (set pppoe access IFACE). */
extern bool sl_pppoe_access[SL_IF_MAX];

/* Control packets each worker hands the main lcore, per class (discovery, LCP,
 * authentication, other NCPs, IPoE's DHCP): a token bucket of this many a second (burst: a tenth of a
 * second's, at least 10); set pppoe control-rate. */
enum { SL_PPPOE_CL_DISC, SL_PPPOE_CL_LCP, SL_PPPOE_CL_AUTH, SL_PPPOE_CL_NCP, SL_PPPOE_CL_DHCP,
       SL_PPPOE_NB_CL };
extern uint32_t sl_pppoe_ctl_rate;
struct sl_ctl_rate {
	uint64_t tokens, last;
} __rte_cache_aligned;
extern struct sl_ctl_rate sl_ctl_rates[SL_MAX_WORKERS + 1][SL_PPPOE_NB_CL];

/* Whether worker w may punt one more control packet of class c now. */
static inline bool sl_ctl_allow(const struct sl_worker *w, unsigned c)
{
	struct sl_ctl_rate *r = &sl_ctl_rates[w->id][c];
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc(), rate = sl_pppoe_ctl_rate;
	if (!rate)
		return false;
	uint64_t per = hz / rate ? hz / rate : 1, burst = RTE_MAX(rate / 10, 10u);
	if (now - r->last >= per) {
		uint64_t add = (now - r->last) / per;
		r->tokens = RTE_MIN(burst, r->tokens + add);
		r->last += add * per;
	}
	if (!r->tokens)
		return false;
	r->tokens--;
	return true;
}

/* Subscribers' QoS pipes (PPPoE's and IPoE's): a pipe of subport 0 of access's scheduler,
 * the first no subscriber holds, given profile (0: none, logged as who's), and given back to
 * the interface's own profile. */
uint16_t sl_bng_pipe_take(uint16_t access, const char *profile, const char *who);
void sl_bng_pipe_give(uint16_t access, uint16_t pipe);
/* A CoA's QoS profile for a subscriber: its pipe (when it has one) given the profile, else a
 * pipe taken with it; the pipe, or 0 when refused. */
uint16_t sl_bng_pipe_profile(uint16_t access, uint16_t pipe, const char *profile, const char *who);
/* A subscriber session's Idle-Timeout clock (PPPoE's or IPoE's), started at since: whether its
 * interface ifx has seen no packet either way for timeout_s seconds, looked at once a second
 * (a packet since the last look resets the clock). */
struct sl_bng_idle {
	uint64_t pkts, since, checked;
};
bool sl_bng_idle_over(struct sl_bng_idle *c, uint16_t ifx, uint32_t timeout_s, uint64_t now);
/* A subscriber session's input ACL (RADIUS's Filter-Id, filter) swapped for the ACL named
 * name ("": none), the old one kept on failure: 0, or -1 (no such ACL; or refused, logged as
 * who's). */
int sl_bng_acl_swap(uint16_t ifx, char filter[64], const char *name, const char *who);

/* set pppoe acct-interim: seconds between Interim-Updates (PPPoE's and IPoE's); 0: none. */
uint32_t sl_pppoe_interim_s(void);
/* How many sessions exist (the CLI fuzzer's witness). */
uint32_t sl_pppoe_count(void);

#endif
