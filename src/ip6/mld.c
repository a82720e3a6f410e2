/* SPDX-License-Identifier: BSD-3-Clause */
/* Multicast listener discovery, the listener's side (RFC 3810 MLDv2; RFC 2710 MLDv1 while a
 * querier of that version is heard). Every up interface with IPv6 that is not point to
 * point listens to all-routers (ff02::2) and to the solicited-node group of each of its
 * addresses (RFC 4861 7.2.1), and says so, so that switches snooping MLD send it the
 * neighbour solicitations for its addresses. All-nodes (ff02::1) is never reported (RFC 3810
 * 6).
 *
 * The main lcore, every 100 ms (its tick), compares each interface's groups with those it
 * last reported. Groups joined go out as CHANGE_TO_EXCLUDE({}) records, groups left as
 * CHANGE_TO_INCLUDE({}), in a report sent at once and repeated after a random delay of up
 * to [Unsolicited Report Interval] (1 s), [Robustness Variable] (2) times in all (6.1).
 * Queries, punted by ip6-icmp-input and checked here (5.1.14: a link-local source, hop limit
 * 1), are answered after a random delay up to their Maximum Response Delay (6.2): a general
 * query with every group (MODE_IS_EXCLUDE({})), a group-specific one, or a group-and-source
 * one, with that group's record when it is ours (we exclude no source, so every source
 * asked for is listened to). A version 1 query (24 bytes) sets the interface's MLDv1 mode
 * for the Older Version Querier Present Timeout (260 s, 9.12): reports are then MLDv1
 * reports (one per group, to the group) and leaves MLDv1 dones (to all-routers). Reports go
 * from the link-local address to ff02::16 (v1: see above) with hop limit 1 and a router
 * alert (RFC 2711). A report heard from another listener is dropped by ip6-icmp-input
 * (no multicast routing: nothing is suppressed, as MLDv2 does not suppress). */
#include "ip6.h"
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_random.h>

/* reports sent and queries answered are counted per interface, in show ip6 mld: show
 * errors stays empty on a healthy IPv6 link */
#define MLD_ERRORS(X)                                                                     \
	X(MLD_QUERY_BAD, "invalid query (RFC 3810 5.1.14: a source not link-local, a hop limit not 1, a length not 24 or 28 + 16 per source)") \
	X(MLD_QUERY_OFF, "query on an interface that listens to no group")                \
	X(MLD_QUERY_OTHER, "query for a group we do not listen to")                       \
	X(MLD_NOBUF, "no buffer for a report")
enum { MLD_ERRORS(SL_ERR_ENUM) MLD_NB };
static const char *const mld_reasons[] = {MLD_ERRORS(SL_ERR_STR)};
static uint16_t mld_err;

#define MLD_GROUPS (2 + SL_IF_MAX_ADDRS) /* all-routers, the link-local's group, addresses' */
#define MLD_ROBUSTNESS 2                 /* RFC 3810 9.1 */
#define MLD_UNSOL_MS 1000                /* 9.11 */
#define MLD_V1_PRESENT_MS 260000         /* 9.12: 2 x 125 s + 10 s */

/* record types (RFC 3810 5.2.12) */
enum { MODE_IS_EXCLUDE = 2, CHANGE_TO_INCLUDE = 3, CHANGE_TO_EXCLUDE = 4 };

struct mld_change {
	uint8_t grp[16];
	uint8_t type; /* CHANGE_TO_EXCLUDE: joined; CHANGE_TO_INCLUDE: left */
	uint8_t left; /* transmissions still due */
};

struct mld_if {
	uint8_t ngroups;
	uint8_t groups[MLD_GROUPS][16];          /* as last reported */
	uint8_t nchg;
	struct mld_change chg[2 * MLD_GROUPS];   /* state changes being reported */
	uint64_t chg_at;                         /* TSC of their next report */
	uint64_t resp_at;                        /* a query's answer due (0: none) */
	uint16_t resp_mask;                      /* its groups (bits of groups[]) */
	uint64_t v1_until;                       /* MLDv1 mode until then (TSC) */
	uint64_t sent, queries;
};
static struct mld_if *mld[SL_IF_MAX];

static const uint8_t all_routers[16] = {0xff, 2, [15] = 2};
static const uint8_t mld2_routers[16] = {0xff, 2, [15] = 0x16};

static inline void mld_count(unsigned e)
{
	sl_main_ctx->errors[mld_err + e]++;
}

static uint64_t ms_tsc(uint64_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

/* The groups interface f listens to, each once. */
static unsigned mld_groups(const struct sl_iface *f, uint8_t out[MLD_GROUPS][16])
{
	unsigned n = 0;
	memcpy(out[n++], all_routers, 16);
	sl_ip6_sol_node(out[n++], f->ip6_ll);
	for (int i = 0; i < f->naddr6; i++) {
		sl_ip6_sol_node(out[n], f->addrs6[i]);
		unsigned k = 1;
		while (k < n && memcmp(out[k], out[n], 16))
			k++;
		n += k == n;
	}
	return n;
}

/* g's index among the n groups of v, or -1. */
static int group_in(const uint8_t (*v)[16], unsigned n, const uint8_t g[16])
{
	for (unsigned k = 0; k < n; k++)
		if (!memcmp(v[k], g, 16))
			return (int)k;
	return -1;
}

static int group_index(const struct mld_if *s, const uint8_t g[16])
{
	return group_in((const uint8_t (*)[16])s->groups, s->ngroups, g);
}

/* A frame from port's link-local address to dst (its group MAC): hop limit 1, the router
 * alert, then icmp_len bytes of ICMPv6 (zeroed) at *ic. */
static struct rte_mbuf *mld_frame(uint16_t port, const uint8_t dst[16], uint16_t icmp_len,
				  uint8_t **ic)
{
	struct rte_mbuf *m = sl_ip6_ctl_frame(port, NULL, sl_ifaces[port].ip6_ll, dst, 1, true,
					      icmp_len, ic);
	if (!m)
		mld_count(MLD_NOBUF);
	return m;
}

/* MLDv1: a report of g to g, or a done for g to all-routers (RFC 2710 3). */
static void mld1_send(uint16_t port, struct mld_if *s, uint8_t type, const uint8_t g[16])
{
	uint8_t *ic;
	struct rte_mbuf *m = mld_frame(port, type == SL_ICMP6_MLD_DONE ? all_routers : g, 24, &ic);
	if (!m)
		return;
	ic[0] = type;
	memcpy(ic + 8, g, 16);
	s->sent++;
	sl_ip6_nd_send(m, port);
}

/* MLDv2: one report of n records (RFC 3810 5.2), each a type and a group with no source. */
static void mld2_send(uint16_t port, struct mld_if *s, unsigned n, const uint8_t *types,
		      uint8_t (*grps)[16])
{
	if (!n)
		return;
	uint8_t *ic;
	uint16_t len = (uint16_t)(8 + 20 * n);
	struct rte_mbuf *m = mld_frame(port, mld2_routers, len, &ic);
	if (!m)
		return;
	ic[0] = SL_ICMP6_MLD2_REPORT;
	ic[6] = (uint8_t)(n >> 8);
	ic[7] = (uint8_t)n;
	for (unsigned k = 0; k < n; k++) {
		uint8_t *r = ic + 8 + 20 * k;
		r[0] = types[k]; /* aux data length and number of sources 0 */
		memcpy(r + 4, grps[k], 16);
	}
	s->sent++;
	sl_ip6_nd_send(m, port);
}

static bool mld_v1(const struct mld_if *s, uint64_t now)
{
	return s->v1_until > now;
}

/* The pending state changes, once more each; the next time in up to 1 s while some remain. */
static void send_changes(uint16_t port, struct mld_if *s, uint64_t now)
{
	uint8_t types[2 * MLD_GROUPS], grps[2 * MLD_GROUPS][16];
	unsigned n = 0, keep = 0;
	bool v1 = mld_v1(s, now);
	for (unsigned k = 0; k < s->nchg; k++) {
		struct mld_change *c = &s->chg[k];
		if (v1)
			mld1_send(port, s, c->type == CHANGE_TO_EXCLUDE ? SL_ICMP6_MLD_REPORT
									 : SL_ICMP6_MLD_DONE,
				  c->grp);
		types[n] = c->type;
		memcpy(grps[n++], c->grp, 16);
		if (--c->left)
			s->chg[keep++] = *c;
	}
	if (!v1)
		mld2_send(port, s, n, types, grps);
	s->nchg = (uint8_t)keep;
	s->chg_at = now + ms_tsc(rte_rand_max(MLD_UNSOL_MS + 1));
}

/* A query's answer: the current state of the groups in resp_mask. */
static void send_current(uint16_t port, struct mld_if *s, uint64_t now)
{
	uint8_t types[MLD_GROUPS], grps[MLD_GROUPS][16];
	unsigned n = 0;
	bool v1 = mld_v1(s, now);
	for (unsigned k = 0; k < s->ngroups; k++) {
		if (!(s->resp_mask & (1u << k)))
			continue;
		if (v1)
			mld1_send(port, s, SL_ICMP6_MLD_REPORT, s->groups[k]);
		types[n] = MODE_IS_EXCLUDE;
		memcpy(grps[n++], s->groups[k], 16);
	}
	if (!v1)
		mld2_send(port, s, n, types, grps);
	s->resp_at = 0;
	s->resp_mask = 0;
}

/* g joined (CHANGE_TO_EXCLUDE) or left (CHANGE_TO_INCLUDE): reported Robustness times, a
 * change of the same group not yet fully reported replaced. Addresses changed faster than
 * the changes go out may fill the list: the oldest change is then forgotten (a query's
 * answer gives the state anyway). */
static void add_change(struct mld_if *s, const uint8_t g[16], uint8_t type)
{
	unsigned k = 0;
	while (k < s->nchg && memcmp(s->chg[k].grp, g, 16))
		k++;
	if (k == s->nchg && s->nchg == RTE_DIM(s->chg)) {
		memmove(&s->chg[0], &s->chg[1], sizeof(s->chg[0]) * (s->nchg - 1u));
		k = s->nchg - 1u;
	} else if (k == s->nchg) {
		s->nchg++;
	}
	memcpy(s->chg[k].grp, g, 16);
	s->chg[k].type = type;
	s->chg[k].left = MLD_ROBUSTNESS;
}

/* f's groups now against those reported: the differences become state changes, due now. */
static void mld_sync(const struct sl_iface *f, struct mld_if *s, uint64_t now)
{
	uint8_t want[MLD_GROUPS][16];
	unsigned n = mld_groups(f, want);
	bool changed = n != s->ngroups;
	for (unsigned k = 0; k < n && !changed; k++)
		changed = memcmp(want[k], s->groups[k], 16) != 0;
	if (!changed)
		return;
	for (unsigned k = 0; k < n; k++)
		if (group_index(s, want[k]) < 0)
			add_change(s, want[k], CHANGE_TO_EXCLUDE);
	for (unsigned k = 0; k < s->ngroups; k++)
		if (group_in((const uint8_t (*)[16])want, n, s->groups[k]) < 0)
			add_change(s, s->groups[k], CHANGE_TO_INCLUDE);
	memcpy(s->groups, want, sizeof(want[0]) * n);
	s->ngroups = (uint8_t)n;
	s->resp_mask = 0; /* indexes changed: a pending answer gives every group */
	if (s->resp_at)
		s->resp_mask = (uint16_t)((1u << n) - 1);
	s->chg_at = now;
}

static bool mld_on(const struct sl_iface *f)
{
	return f->used && f->up && !f->p2p && !sl_ip6_is_zero(f->ip6_ll);
}

/* Interface p's state, brought up to date with its groups (NULL: it listens to none). */
static struct mld_if *mld_state(uint32_t p, uint64_t now)
{
	struct mld_if *s = mld[p];
	if (!s && !(s = mld[p] = calloc(1, sizeof(*s))))
		return NULL;
	mld_sync(&sl_ifaces[p], s, now);
	return s;
}

static void mld_tick(uint64_t now)
{
	for (uint32_t p = 0; p < sl_if_hwm; p++) {
		const struct sl_iface *f = &sl_ifaces[p];
		struct mld_if *s = mld[p];
		if (!mld_on(f)) {
			/* nothing to say on a link that is down; forgotten, so that it reports
			 * its groups anew when it comes back (an interface gone: freed) */
			if (s && !f->used) {
				free(s);
				mld[p] = NULL;
			} else if (s) {
				s->ngroups = s->nchg = 0;
				s->resp_at = 0;
			}
			continue;
		}
		if (!(s = mld_state(p, now)))
			continue;
		if (s->nchg && now >= s->chg_at)
			send_changes((uint16_t)p, s, now);
		if (s->resp_at && now >= s->resp_at)
			send_current((uint16_t)p, s, now);
	}
}

/* RFC 3810 5.1.3: the Maximum Response Code in milliseconds. */
static uint32_t max_resp_ms(uint16_t code)
{
	if (code < 32768)
		return code;
	return (uint32_t)((code & 0xfff) | 0x1000) << (((code >> 12) & 7) + 3);
}

/* A query punted by ip6-icmp-input (checksum checked; the IPv6 header at the data). */
static void query_input(struct rte_mbuf *m)
{
	uint16_t port = m->port;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	struct sl_ip6_walk wk;
	sl_ip6_walk(p, m->data_len, &wk);
	uint32_t len = rte_pktmbuf_pkt_len(m) - wk.off;
	const uint8_t *ic = p + wk.off;
	bool v1 = len == 24;
	bool ok = sl_ip6_is_ll(ip->src_addr) && ip->hop_limits == 1 &&
		  (v1 || (len >= 28 && len >= 28u + 16u * (ic[26] << 8 | ic[27])));
	uint64_t now = rte_rdtsc();
	/* a query may come before the tick has seen the interface's addresses */
	struct mld_if *s = mld_on(&sl_ifaces[port]) ? mld_state(port, now) : NULL;
	if (!ok) {
		mld_count(MLD_QUERY_BAD);
	} else if (!s || !s->ngroups) {
		mld_count(MLD_QUERY_OFF);
	} else {
		if (v1)
			s->v1_until = now + ms_tsc(MLD_V1_PRESENT_MS);
		uint32_t ms = v1 ? (uint32_t)(ic[4] << 8 | ic[5]) : max_resp_ms((uint16_t)(ic[4] << 8 | ic[5]));
		uint64_t at = now + ms_tsc(rte_rand_max(ms + 1));
		uint16_t mask = (uint16_t)((1u << s->ngroups) - 1);
		if (!sl_ip6_is_zero(ic + 8)) { /* group-specific (and source-specific) */
			int k = group_index(s, ic + 8);
			mask = k < 0 ? 0 : (uint16_t)(1u << k);
		}
		if (!mask) {
			mld_count(MLD_QUERY_OTHER);
		} else {
			s->queries++;
			/* 6.2: an answer already due sooner covers this one too */
			if (!s->resp_at || at < s->resp_at)
				s->resp_at = at;
			s->resp_mask |= mask;
		}
	}
	rte_pktmbuf_free(m);
}

static int cmd_show_mld(struct sl_out *o, int argc, char **argv)
{
	struct sl_iface *only = NULL;
	if (argc > 1 || (argc == 1 && !(only = sl_iface_by_name(argv[0]))))
		return sl_out_error(o, argc > 1 ? "usage: show ip6 mld [IFACE]"
						: "unknown interface '%s'", argv[0]);
	uint64_t now = rte_rdtsc();
	sl_tbl_begin(o, "interfaces", 5,
		     (const char *[]){"name", "version", "groups", "reports-sent:u", "queries:u"});
	for (uint32_t p = 0; p < sl_if_hwm; p++) {
		const struct sl_iface *f = &sl_ifaces[p];
		const struct mld_if *s = mld[p];
		if (!f->used || (only && only != f) || !s)
			continue;
		char groups[MLD_GROUPS * 41] = "", sent[24], q[24];
		size_t k = 0;
		for (unsigned g = 0; g < s->ngroups && k < sizeof(groups); g++) {
			char a[INET6_ADDRSTRLEN];
			sl_fmt_ip6(a, s->groups[g]);
			k += (size_t)snprintf(groups + k, sizeof(groups) - k, "%s%s", g ? " " : "", a);
		}
		snprintf(sent, sizeof(sent), "%" PRIu64, s->sent);
		snprintf(q, sizeof(q), "%" PRIu64, s->queries);
		sl_tbl_row(o, f->name, mld_v1(s, now) ? "1" : "2", groups, sent, q);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_mld6, .path = "show ip6 mld", .usage = "[IFACE]",
	       .help = "multicast listener discovery per IPv6 interface: the version spoken (2, or "
		       "1 while an MLDv1 querier is heard), the groups reported, reports sent, "
		       "queries answered",
	       .fn = cmd_show_mld)

static void mld_fini(void)
{
	for (uint32_t p = 0; p < SL_IF_MAX; p++) {
		free(mld[p]);
		mld[p] = NULL;
	}
}

SL_MODULE_REGISTER(mld_module, .name = "ip6 multicast listener discovery", .tick = mld_tick,
		   .fini = mld_fini)

RTE_INIT(mld_init)
{
	mld_err = sl_error_register("ip6-mld (main)", mld_reasons, MLD_NB);
	sl_punt_register(SL_PUNT_MLD6, query_input);
}
