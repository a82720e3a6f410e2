/* SPDX-License-Identifier: BSD-3-Clause */
/* Router advertisements (RFC 4861 6.2), off by default: `ip6 nd IFACE ra-interval MAX [MIN]`
 * turns them on for one interface. The main lcore sends them to all-nodes from the link-local
 * address, at a random interval in [MIN, MAX] (the first three at most 16 s apart), with the
 * source link-layer address, the MTU and a prefix information option per global prefix
 * (on-link; autonomous for a /64, so hosts configure an address by SLAAC). Router
 * solicitations on such an interface are punted by ip6-icmp-input and answered by the next
 * multicast advertisement, brought forward to within 0.5 s but never closer than 3 s to the
 * last (6.2.6). */
#include "ip6.h"
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_random.h>

#define RA_ERRORS(X)                                                                      \
	X(RA_SENT, "router advertisements sent")                                          \
	X(RA_RS, "router solicitations answered")                                         \
	X(RA_RS_BAD, "invalid router solicitation (RFC 4861 6.1.1)")                      \
	X(RA_RS_OFF, "router solicitation on an interface without advertisements")        \
	X(RA_NOBUF, "no buffer for a router advertisement")
enum { RA_ERRORS(SL_ERR_ENUM) RA_NB };
static const char *const ra_reasons[] = {RA_ERRORS(SL_ERR_STR)};
static uint16_t ra_err;

/* RFC 4861 10 and 6.2.1 */
#define MAX_INITIAL_RTR_ADVERT_INTERVAL 16
#define MAX_INITIAL_RTR_ADVERTISEMENTS 3
#define MIN_DELAY_BETWEEN_RAS_MS 3000
#define MAX_RA_DELAY_TIME_MS 500
#define ADV_VALID_LIFETIME 2592000u   /* 30 days */
#define ADV_PREFERRED_LIFETIME 604800u /* 7 days */

static inline void ra_count(unsigned e)
{
	sl_main_ctx->errors[ra_err + e]++;
}

static uint64_t ms_tsc(uint64_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

/* When the next unsolicited advertisement goes: uniformly in [min, max] seconds, at most
 * 16 s while initial ones remain. */
static uint64_t next_interval(struct sl_iface *f)
{
	uint64_t lo = f->ra_min_s * 1000ull, hi = f->ra_max_s * 1000ull;
	if (f->ra_initial) {
		f->ra_initial--;
		hi = RTE_MIN(hi, MAX_INITIAL_RTR_ADVERT_INTERVAL * 1000ull);
		lo = RTE_MIN(lo, hi);
	}
	return ms_tsc(lo + rte_rand_max(hi - lo + 1));
}

static void put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
}

/* One advertisement out of f to all-nodes. */
static void ra_send(struct sl_iface *f)
{
	/* the prefixes, each once (several addresses may share one) */
	uint8_t pfx[SL_IF_MAX_ADDRS][16], plen[SL_IF_MAX_ADDRS];
	int np = 0;
	for (int i = 0; i < f->naddr6; i++) {
		uint8_t p[16];
		sl_ip6_pfx_mask(p, f->addrs6[i], f->plens6[i]);
		int k = 0;
		while (k < np && !(plen[k] == f->plens6[i] && !memcmp(pfx[k], p, 16)))
			k++;
		if (k == np) {
			memcpy(pfx[np], p, 16);
			plen[np++] = f->plens6[i];
		}
	}
	if (f->ra_prefix_len && np < SL_IF_MAX_ADDRS) {
		memcpy(pfx[np], f->ra_prefix, 16);
		plen[np++] = f->ra_prefix_len;
	}
	static const uint8_t all_nodes[16] = {0xff, 2, [15] = 1};
	uint8_t *ic;
	/* a point-to-point link (PPP) has no link-layer address to give */
	uint16_t sll = f->p2p ? 0 : 8;
	struct rte_mbuf *m = sl_ip6_nd_frame(f->port, NULL, f->ip6_ll, all_nodes,
					     (uint16_t)(16 + sll + 8 + 32 * np), &ic);
	if (!m) {
		ra_count(RA_NOBUF);
		return;
	}
	uint8_t *o = ic + 16;
	ic[0] = SL_ICMP6_RA;
	ic[4] = 64; /* cur hop limit */
	uint16_t life = rte_cpu_to_be_16(f->ra_lifetime_s);
	memcpy(ic + 6, &life, 2); /* reachable time and retrans timer 0: unspecified */
	if (sll) {
		o[0] = 1; /* source link-layer address */
		o[1] = 1;
		memcpy(o + 2, &f->mac, 6);
		o += 8;
	}
	o[0] = 5; /* MTU */
	o[1] = 1;
	put32(o + 4, f->mtu);
	o += 8;
	for (int k = 0; k < np; k++, o += 32) {
		o[0] = 3; /* prefix information */
		o[1] = 4;
		o[2] = plen[k];
		o[3] = 0x80 | (plen[k] == 64 ? 0x40 : 0); /* on-link; autonomous for SLAAC */
		put32(o + 4, ADV_VALID_LIFETIME);
		put32(o + 8, ADV_PREFERRED_LIFETIME);
		memcpy(o + 16, pfx[k], 16);
	}
	ra_count(RA_SENT);
	f->ra_sent++;
	sl_ip6_nd_send(m, f->port);
}

static void ra_tick(uint64_t now)
{
	for (uint32_t p = 0; p < sl_if_hwm; p++) {
		struct sl_iface *f = &sl_ifaces[p];
		if (!f->used || !f->ra_max_s || !f->up || sl_ip6_is_zero(f->ip6_ll) || now < f->ra_next)
			continue;
		ra_send(f);
		f->ra_last = now;
		f->ra_next = now + next_interval(f);
	}
}

/* A router solicitation punted by ip6-icmp-input (hop limit 255, code 0, checksum checked;
 * the IPv6 header at the data, no extension headers). */
static void rs_input(struct rte_mbuf *m)
{
	struct sl_iface *f = &sl_ifaces[m->port];
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	const uint8_t *o = (const uint8_t *)(ip + 1) + 8, *slla = NULL;
	bool ok = len >= 8 && len + 40u <= m->data_len;
	/* options of non-zero length, within the message; none with the unspecified source */
	for (uint32_t left = ok ? len - 8 : 0; ok && left >= 2;) {
		uint32_t ol = o[1] * 8u;
		ok = ol && ol <= left;
		if (ok && o[0] == 1 && ol == 8)
			slla = o + 2;
		o += ol;
		left -= ol;
	}
	if (!ok || (slla && sl_ip6_is_zero(ip->src_addr))) {
		ra_count(RA_RS_BAD);
	} else if (!f->ra_max_s) { /* turned off since the worker looked */
		ra_count(RA_RS_OFF);
	} else {
		ra_count(RA_RS);
		f->rs_rx++;
		if (slla) /* RFC 4861 6.2.6: the soliciting host's address, STALE */
			sl_ip6_neigh_learn(m->port, ip->src_addr, slla);
		uint64_t now = rte_rdtsc(),
			 at = now + ms_tsc(rte_rand_max(MAX_RA_DELAY_TIME_MS + 1)),
			 earliest = f->ra_last + ms_tsc(MIN_DELAY_BETWEEN_RAS_MS);
		at = RTE_MAX(at, f->ra_last ? earliest : 0);
		f->ra_next = RTE_MIN(f->ra_next, at);
	}
	rte_pktmbuf_free(m);
}

/* ip6 nd IFACE ra-interval MAX [MIN] | ra-lifetime SECS | ra-suppress */
static int cmd_nd(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: ip6 nd IFACE ra-interval MAX [MIN] | ra-lifetime SECS | "
				    "ra-suppress";
	if (argc < 2)
		return sl_out_error(o, usage);
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (!strcmp(argv[1], "ra-suppress") && argc == 2) {
		__atomic_store_n(&f->ra_max_s, 0, __ATOMIC_RELAXED);
		return 0;
	}
	if (sl_ip6_is_zero(f->ip6_ll))
		return sl_out_error(o, "%s: IPv6 is off (add an IPv6 address or enable ip6 interface)",
				    argv[0]);
	uint32_t max, min, life;
	if (!strcmp(argv[1], "ra-lifetime") && argc == 3) {
		if (sl_arg_u32(o, "ra-lifetime", argv[2], 0, 9000, &life))
			return -1;
		f->ra_lifetime_s = (uint16_t)life;
		f->ra_life_conf = true;
		return 0;
	}
	if (strcmp(argv[1], "ra-interval") || argc < 3 || argc > 4)
		return sl_out_error(o, usage);
	/* RFC 4861 6.2.1: MaxRtrAdvInterval 4-1800 s, MinRtrAdvInterval 3 s to 0.75 MAX
	 * (default 0.33 MAX, or MAX below 9 s) */
	if (sl_arg_u32(o, "ra-interval", argv[2], 4, 1800, &max))
		return -1;
	min = max >= 9 ? max / 3 : max;
	if (argc == 4 && sl_arg_u32(o, "ra-interval minimum", argv[3], 3, max * 3 / 4, &min))
		return -1;
	sl_ip6_ra_enable(f, (uint16_t)max, (uint16_t)min);
	return 0;
}

void sl_ip6_ra_enable(struct sl_iface *f, uint16_t max, uint16_t min)
{
	bool was_on = f->ra_max_s != 0;
	f->ra_min_s = min;
	if (!was_on) { /* 6.2.4: the first at once, then faster ones */
		f->ra_initial = MAX_INITIAL_RTR_ADVERTISEMENTS;
		f->ra_next = 0;
	}
	if (!f->ra_life_conf)
		f->ra_lifetime_s = (uint16_t)RTE_MIN(3u * max, 9000u);
	__atomic_store_n(&f->ra_max_s, max, __ATOMIC_RELAXED);
}
SL_CLI_COMMAND(nd6, .path = "ip6 nd", .usage = "IFACE ra-interval MAX [MIN] | ra-lifetime SECS | "
						"ra-suppress",
	       .help = "router advertisements on an interface (RFC 4861; off by default): every MIN "
		       "to MAX seconds (4-1800; MIN default MAX/3), router lifetime (default 3 MAX), "
		       "or off",
	       .fn = cmd_nd)

static int cmd_show_nd(struct sl_out *o, int argc, char **argv)
{
	struct sl_iface *only = NULL;
	if (argc > 1 || (argc == 1 && !(only = sl_iface_by_name(argv[0]))))
		return sl_out_error(o, argc > 1 ? "usage: show ip6 nd [IFACE]"
						: "unknown interface '%s'", argv[0]);
	sl_tbl_begin(o, "interfaces", 7,
		     (const char *[]){"name", "ra", "min-s:u", "max-s:u", "lifetime-s:u", "ra-sent:u",
				      "rs-answered:u"});
	for (uint32_t p = 0; p < sl_if_hwm; p++) {
		const struct sl_iface *f = &sl_ifaces[p];
		if (!f->used || (only && only != f) || sl_ip6_is_zero(f->ip6_ll))
			continue;
		char mn[8], mx[8], lt[8], sent[24], rs[24];
		snprintf(mn, sizeof(mn), "%u", f->ra_min_s);
		snprintf(mx, sizeof(mx), "%u", f->ra_max_s);
		snprintf(lt, sizeof(lt), "%u", f->ra_lifetime_s);
		snprintf(sent, sizeof(sent), "%" PRIu64, f->ra_sent);
		snprintf(rs, sizeof(rs), "%" PRIu64, f->rs_rx);
		sl_tbl_row(o, f->name, f->ra_max_s ? "on" : "off", mn, mx, lt, sent, rs);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_nd6, .path = "show ip6 nd", .usage = "[IFACE]",
	       .help = "router advertisements per IPv6 interface: on or off, interval, router "
		       "lifetime, advertisements sent, solicitations answered",
	       .fn = cmd_show_nd)

SL_MODULE_REGISTER(ra_module, .name = "ip6 router advertisements", .tick = ra_tick)

RTE_INIT(ra_init)
{
	ra_err = sl_error_register("ip6-ra (main)", ra_reasons, RA_NB);
	sl_punt_register(SL_PUNT_RS6, rs_input);
}
