/* SPDX-License-Identifier: BSD-3-Clause */
/* Policers (VPP's grammar) on DPDK's rte_meter: srTCM (RFC 2697) for 1r2c and 1r3c, trTCM
 * (RFC 2698) for 2r3c-2698 and RFC 4115's for 2r3c-4115, colour-blind or colour-aware,
 * metering frames by their length as received or sent (or one unit per packet with
 * `rate pps`):
 *   policer add name N [type 1r2c|1r3c|2r3c-2698|2r3c-4115] cir R cb B [eir R] [eb B]
 *           [rate kbps|pps] [conform-action A] [exceed-action A] [violate-action A]
 *           [color-aware [yellow-dscp D[,D...]] [red-dscp D[,D...]]]
 *     A: transmit | drop | mark-and-transmit DSCP
 *   A colour-aware policer takes a frame's colour on arrival from its DSCP (IPv4 or IPv6,
 *   after up to two VLAN tags; anything else is green): RFC 2597's drop precedences (AFx2
 *   yellow, AFx3 red, every other DSCP green) unless yellow-dscp or red-dscp name the
 *   DSCPs, as a policer upstream marks them with mark-and-transmit.
 *   policer del name N
 *   policer input|output name N IFACE [unapply]
 *   show policer [name N]
 * A policer applied is a feature: policer-input on the device-input arc (frames as received,
 * before the interface's mode), policer-output on interface-output (frames as sent). Each
 * worker meters with its own state (no atomics on the path): a policer is exact while one
 * worker carries an interface's traffic; with its traffic spread over W workers up to W
 * times the rate and burst pass. */
#include "policer.h"
#include "meter.h"
#include "../cli/cli.h"
#include "../runtime/feature.h"
#include "../runtime/runtime.h"
#include "../interface/iface.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#define SL_POLICERS 256

enum pol_type {
	POL_1R2C = SL_METER_1R2C,
	POL_1R3C = SL_METER_1R3C,
	POL_2698 = SL_METER_2698,
	POL_4115 = SL_METER_4115,
	POL_NB_TYPES
};
static const char *const type_names[POL_NB_TYPES] = {"1r2c", "1r3c", "2r3c-2698", "2r3c-4115"};
enum pol_act { ACT_TRANSMIT, ACT_DROP, ACT_MARK };
static const char *const colour_names[3] = {"conform", "exceed", "violate"};

struct pol_worker {
	union sl_meter m;
	uint64_t refilled; /* the TSC reading of its last bucket update */
	uint64_t pkts[3], bytes[3];
} __rte_cache_aligned;

struct policer {
	char name[64];
	uint8_t type;
	bool pps;
	uint8_t act[3], dscp[3];  /* by colour: green (conform), yellow (exceed), red (violate) */
	uint64_t cir, cb, eir, eb; /* as given: kbps and bytes, or pps and packets */
	bool aware;                /* colour-aware: pre[DSCP] is the colour a frame comes with */
	uint8_t pre[64];
	uint32_t users;            /* interfaces and directions it is applied to */
	union sl_meter_profile prof;
	struct pol_worker w[SL_MAX_WORKERS];
};

static struct policer *policers[SL_POLICERS];
/* per interface and direction (0 input, 1 output): the policer's index + 1, or 0 */
static uint16_t if_policer[SL_IF_MAX][2];
static uint8_t feat_in, feat_out;
static rte_edge_t out_tx0; /* policer-output's first tx edge (sl_feature_next_out) */

/* ---- the nodes ---- */

#define PO_ERRORS(X)                                            \
	X(PO_ERR_EXCEED, "policer exceed-action drop")          \
	X(PO_ERR_VIOLATE, "policer violate-action drop")        \
	X(PO_ERR_CONFORM, "policer conform-action drop")
enum { PO_ERRORS(SL_ERR_ENUM) PO_NB_ERR };
static const char *const po_reasons[] = {PO_ERRORS(SL_ERR_STR)};
static uint16_t pi_err, po_err;

enum { PN_NEXT_DROP }; /* then the arc's edges, added by name */

/* DSCP into an IPv4 or IPv6 header at l3 (the checksum kept right). */
static inline void mark(uint8_t *l3, uint16_t type, uint8_t dscp)
{
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint16_t old = rte_be_to_cpu_16(*(uint16_t *)ip); /* version, IHL and TOS */
		ip->type_of_service = (uint8_t)(dscp << 2 | (ip->type_of_service & 3));
		uint16_t new = rte_be_to_cpu_16(*(uint16_t *)ip);
		/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
		uint32_t s = (uint16_t)~rte_be_to_cpu_16(ip->hdr_checksum) + (uint16_t)~old + new;
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ip->hdr_checksum = rte_cpu_to_be_16((uint16_t)~s);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		uint32_t v;
		memcpy(&v, l3, 4);
		v = rte_be_to_cpu_32(v);
		v = (v & ~(0x3fu << 22)) | (uint32_t)dscp << 22;
		v = rte_cpu_to_be_32(v);
		memcpy(l3, &v, 4);
	}
}

/* The colour m comes with under colour-aware policer p: its DSCP's in p's map (IPv4 or IPv6
 * after at most two VLAN tags); green for anything else. */
static inline enum rte_color pre_colour(const struct policer *p, const struct rte_mbuf *m)
{
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = 2 * RTE_ETHER_ADDR_LEN; /* the ethertype, then the first bytes after it */
	for (int tags = 0; off + 4 <= m->data_len; tags++) {
		uint16_t type = (uint16_t)(fr[off] << 8 | fr[off + 1]);
		const uint8_t *l3 = fr + off + 2;
		if (type == RTE_ETHER_TYPE_IPV4 && l3[0] >> 4 == 4)
			return (enum rte_color)p->pre[l3[1] >> 2];
		if (type == RTE_ETHER_TYPE_IPV6 && l3[0] >> 4 == 6)
			return (enum rte_color)p->pre[(l3[0] & 0xf) << 2 | l3[1] >> 6];
		if ((type != RTE_ETHER_TYPE_VLAN && type != RTE_ETHER_TYPE_QINQ) || tags == 2)
			break;
		off += 4;
	}
	return RTE_COLOR_GREEN;
}

/* What a run of packets of one interface shares: its policer, the worker's buckets
 * (refilled once per vector: its packets share one TSC reading) and the next feature; while
 * the run lasts, the buckets and the green packets' counters in the run's own values (kept in
 * registers: in memory, each packet's debit and count would wait for the packet before's,
 * sl_meter_tok), written back as it ends (run_end). */
struct run {
	uint16_t ifx, next;
	const struct policer *p;
	struct pol_worker *w;
	struct sl_meter_tok t;
	uint64_t green, green_bytes;
};

static inline void run_start(struct run *r, uint16_t ifx, int dir, unsigned wid, uint64_t now)
{
	r->ifx = ifx;
	uint16_t idx = __atomic_load_n(&if_policer[ifx][dir], __ATOMIC_ACQUIRE);
	r->p = idx ? policers[idx - 1] : NULL;
	r->next = dir ? sl_feature_next_out(feat_out, ifx, out_tx0)
		      : sl_feature_next(SL_ARC_DEVICE_INPUT, feat_in, ifx, sl_ifaces[ifx].mode);
	if (!r->p)
		return;
	r->w = &((struct policer *)r->p)->w[wid];
	if (r->w->refilled != now) {
		r->w->refilled = now;
		sl_meter_refill(r->p->type, &r->p->prof, &r->w->m, now);
	}
	r->t = sl_meter_tok_get(r->p->type, &r->w->m);
	r->green = r->green_bytes = 0;
}

static inline void run_end(struct run *r)
{
	if (!r->p)
		return;
	sl_meter_tok_put(r->p->type, &r->w->m, r->t);
	r->w->pkts[RTE_COLOR_GREEN] += r->green;
	r->w->bytes[RTE_COLOR_GREEN] += r->green_bytes;
}

/* m's colour by the run's policer, its counters and action: the edge to take (the run's next
 * unless it drops; the error set then). */
static inline uint16_t police(struct run *r, struct rte_mbuf *m, uint16_t err)
{
	const struct policer *p = r->p;
	uint32_t len = p->pps ? 1 : m->pkt_len;
	enum rte_color c = likely(!p->aware)
				   ? sl_meter_tok_colour(p->type, &r->t, len, RTE_COLOR_GREEN)
				   : sl_meter_tok_colour(p->type, &r->t, len, pre_colour(p, m));
	if (likely(c == RTE_COLOR_GREEN)) {
		r->green++;
		r->green_bytes += m->pkt_len;
	} else {
		r->w->pkts[c]++;
		r->w->bytes[c] += m->pkt_len;
	}
	uint8_t act = p->act[c];
	if (likely(act == ACT_TRANSMIT))
		return r->next;
	if (act == ACT_DROP) {
		sl_set_error(m, err + (c == RTE_COLOR_GREEN ? PO_ERR_CONFORM
				       : c == RTE_COLOR_YELLOW ? PO_ERR_EXCEED : PO_ERR_VIOLATE));
		return PN_NEXT_DROP;
	}
	if (m->data_len >= RTE_ETHER_HDR_LEN + 20) {
		uint8_t *fr = rte_pktmbuf_mtod(m, uint8_t *);
		uint16_t type;
		memcpy(&type, fr + 12, 2);
		mark(fr + RTE_ETHER_HDR_LEN, type, p->dscp[c]);
	}
	return r->next;
}

static inline uint16_t pol_vector(struct rte_graph *g, struct rte_node *node, void **objs,
				  uint16_t n, int dir)
{
	unsigned wid = sl_node_worker(node)->id;
	uint64_t now = rte_rdtsc();
	uint16_t nexts[n], err = dir ? po_err : pi_err;
	struct run r = {.ifx = UINT16_MAX};
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint16_t ifx = dir ? sl_meta(m)->tx_if : m->port;
		if (unlikely(ifx != r.ifx)) { /* runs of one interface are the rule */
			run_end(&r);
			run_start(&r, ifx, dir, wid, now);
		}
		nexts[i] = r.p ? police(&r, m, err) : r.next;
	}
	run_end(&r);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static uint16_t pi_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return pol_vector(g, node, objs, n, 0);
}

static uint16_t po_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return pol_vector(g, node, objs, n, 1);
}

static struct rte_node_register pi_node = {
	.name = "policer-input",
	.process = pi_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {[PN_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(pi_node)

static struct rte_node_register po_node = {
	.name = "policer-output",
	.process = po_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {[PN_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(po_node)

/* ---- control ---- */

uint32_t sl_policer_count(void)
{
	uint32_t n = 0;
	for (int i = 0; i < SL_POLICERS; i++)
		n += policers[i] != NULL;
	return n;
}

static int find(const char *name)
{
	for (int i = 0; i < SL_POLICERS; i++)
		if (policers[i] && !strcmp(policers[i]->name, name))
			return i;
	return -1;
}

/* DSCP by number (0-63) or name: EF, CS0-CS7, AF11-AF43. */
static int parse_dscp(const char *s, uint8_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s && !*end && v < 64) {
		*out = (uint8_t)v;
		return 0;
	}
	if (!strcasecmp(s, "EF")) {
		*out = 46;
		return 0;
	}
	if (!strncasecmp(s, "CS", 2) && s[2] >= '0' && s[2] <= '7' && !s[3]) {
		*out = (uint8_t)((s[2] - '0') << 3);
		return 0;
	}
	if (!strncasecmp(s, "AF", 2) && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3' &&
	    !s[4]) {
		*out = (uint8_t)((s[2] - '0') << 3 | (s[3] - '0') << 1);
		return 0;
	}
	return -1;
}

/* A comma-separated list of DSCPs into p's colour-aware map as colour c. */
static int parse_dscp_list(struct sl_out *o, const char *opt, const char *list, struct policer *p,
			   enum rte_color c, uint64_t *seen)
{
	char buf[256], *save = NULL;
	if (strlen(list) >= sizeof(buf))
		return sl_out_error(o, "%s: list too long", opt);
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint8_t d;
		if (parse_dscp(t, &d))
			return sl_out_error(o, "%s '%s': DSCPs (0-63, EF, CSn, AFxy) separated by "
					    "commas", opt, t);
		if (*seen >> d & 1)
			return sl_out_error(o, "DSCP %u is given a colour twice", d);
		*seen |= 1ull << d;
		p->pre[d] = (uint8_t)c;
	}
	return 0;
}

/* ACTION at argv[*i] (and its DSCP) for colour c. */
static int parse_action(struct sl_out *o, int argc, char **argv, int *i, struct policer *p, int c)
{
	const char *a = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (!a)
		return sl_out_error(o, "%s-action wants transmit, drop or mark-and-transmit DSCP",
				    colour_names[c]);
	if (!strcmp(a, "transmit")) {
		p->act[c] = ACT_TRANSMIT;
	} else if (!strcmp(a, "drop")) {
		p->act[c] = ACT_DROP;
	} else if (!strcmp(a, "mark-and-transmit")) {
		if (*i + 2 >= argc || parse_dscp(argv[*i + 2], &p->dscp[c]))
			return sl_out_error(o, "mark-and-transmit wants a DSCP (0-63, EF, CSn, AFxy)");
		p->act[c] = ACT_MARK;
		(*i)++;
	} else {
		return sl_out_error(o, "%s-action '%s': transmit, drop or mark-and-transmit DSCP",
				    colour_names[c], a);
	}
	*i += 2; /* the keyword and the action (and the DSCP, counted above) */
	return 0;
}

/* The rte_meter profile of p and every worker's state (buckets full). */
static int configure(struct sl_out *o, struct policer *p)
{
	/* rte_meter counts bytes per second: kbps * 125, or one unit per packet */
	uint64_t cir = p->pps ? p->cir : p->cir * 125, eir = p->pps ? p->eir : p->eir * 125;
	int rc;
	switch (p->type) {
	case POL_2698: {
		struct rte_meter_trtcm_params pr = {.cir = cir, .pir = eir, .cbs = p->cb,
						    .pbs = p->eb};
		rc = rte_meter_trtcm_profile_config(&p->prof.tr, &pr);
		for (unsigned w = 0; !rc && w < SL_MAX_WORKERS; w++)
			rc = rte_meter_trtcm_config(&p->w[w].m.tr, &p->prof.tr);
		break;
	}
	case POL_4115: {
		struct rte_meter_trtcm_rfc4115_params pr = {.cir = cir, .eir = eir, .cbs = p->cb,
							    .ebs = p->eb};
		rc = rte_meter_trtcm_rfc4115_profile_config(&p->prof.t4, &pr);
		for (unsigned w = 0; !rc && w < SL_MAX_WORKERS; w++)
			rc = rte_meter_trtcm_rfc4115_config(&p->w[w].m.t4, &p->prof.t4);
		break;
	}
	default: {
		struct rte_meter_srtcm_params pr = {.cir = cir, .cbs = p->cb,
						    .ebs = p->type == POL_1R3C ? p->eb : 0};
		rc = rte_meter_srtcm_profile_config(&p->prof.sr, &pr);
		for (unsigned w = 0; !rc && w < SL_MAX_WORKERS; w++)
			rc = rte_meter_srtcm_config(&p->w[w].m.sr, &p->prof.sr);
	}
	}
	if (rc)
		return sl_out_error(o, "rte_meter refused the rates and bursts: %s", strerror(-rc));
	return 0;
}

static int cmd_add(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] =
		"usage: policer add name N [type 1r2c|1r3c|2r3c-2698|2r3c-4115] cir R cb B "
		"[eir R] [eb B] [rate kbps|pps] [conform-action A] [exceed-action A] "
		"[violate-action A] [color-aware [yellow-dscp D,...] [red-dscp D,...]]";
	struct policer *p = rte_zmalloc("sl_policer", sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (!p)
		return sl_out_error(o, "out of memory");
	p->act[RTE_COLOR_GREEN] = ACT_TRANSMIT;
	p->act[RTE_COLOR_YELLOW] = p->act[RTE_COLOR_RED] = ACT_DROP;
	bool has_cir = false, has_cb = false, has_eir = false, has_eb = false;
	uint64_t mapped = 0; /* DSCPs that yellow-dscp and red-dscp named */
	int rc = -1;
	for (int i = 0; i < argc;) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t v;
		if (!strcmp(a, "conform-action") || !strcmp(a, "exceed-action") ||
		    !strcmp(a, "violate-action")) {
			if (parse_action(o, argc, argv, &i, p, a[0] == 'c' ? 0 : a[0] == 'e' ? 1 : 2))
				goto out;
			continue;
		}
		if (!strcmp(a, "color-aware")) {
			p->aware = true;
			i++;
			continue;
		}
		if (!val) {
			sl_out_error(o, "'%s' needs a value; %s", a, usage);
			goto out;
		}
		if (!strcmp(a, "name")) {
			if (strlen(val) >= sizeof(p->name)) {
				sl_out_error(o, "policer name too long");
				goto out;
			}
			snprintf(p->name, sizeof(p->name), "%s", val);
		} else if (!strcmp(a, "type")) {
			int t = 0;
			while (t < POL_NB_TYPES && strcmp(val, type_names[t]))
				t++;
			if (t == POL_NB_TYPES) {
				sl_out_error(o, "type '%s': 1r2c, 1r3c, 2r3c-2698 or 2r3c-4115", val);
				goto out;
			}
			p->type = (uint8_t)t;
		} else if (!strcmp(a, "rate")) {
			if (strcmp(val, "kbps") && strcmp(val, "pps")) {
				sl_out_error(o, "rate '%s': kbps or pps", val);
				goto out;
			}
			p->pps = val[0] == 'p';
		} else if (!strcmp(a, "cir") || !strcmp(a, "cb") || !strcmp(a, "eir") ||
			   !strcmp(a, "eb")) {
			char *end;
			v = strtoull(val, &end, 10);
			if (*end || val[0] == '-' || v > (1ull << 40)) {
				sl_out_error(o, "%s must be a number from 0 to %llu, not '%s'", a,
					     1ull << 40, val);
				goto out;
			}
			if (!strcmp(a, "cir"))
				p->cir = v, has_cir = true;
			else if (!strcmp(a, "cb"))
				p->cb = v, has_cb = true;
			else if (!strcmp(a, "eir"))
				p->eir = v, has_eir = true;
			else
				p->eb = v, has_eb = true;
		} else if (!strcmp(a, "yellow-dscp") || !strcmp(a, "red-dscp")) {
			if (parse_dscp_list(o, a, val, p, a[0] == 'y' ? RTE_COLOR_YELLOW : RTE_COLOR_RED,
					    &mapped))
				goto out;
		} else {
			sl_out_error(o, "unknown option '%s'; %s", a, usage);
			goto out;
		}
		i += 2;
	}
	if (mapped && !p->aware) {
		sl_out_error(o, "yellow-dscp and red-dscp are for a color-aware policer");
		goto out;
	}
	if (p->aware && !mapped) /* RFC 2597: AFx2 medium drop precedence, AFx3 high */
		for (int x = 1; x <= 4; x++) {
			p->pre[x << 3 | 2 << 1] = RTE_COLOR_YELLOW;
			p->pre[x << 3 | 3 << 1] = RTE_COLOR_RED;
		}
	if (!p->name[0] || !has_cir || !has_cb) {
		sl_out_error(o, "name, cir and cb are required; %s", usage);
		goto out;
	}
	bool two_rate = p->type == POL_2698 || p->type == POL_4115;
	if (two_rate && (!has_eir || !has_eb)) {
		sl_out_error(o, "type %s needs eir and eb", type_names[p->type]);
		goto out;
	}
	if (!two_rate && has_eir) {
		sl_out_error(o, "type %s has one rate: eir is for 2r3c-2698 and 2r3c-4115",
			     type_names[p->type]);
		goto out;
	}
	if (p->type == POL_1R2C && has_eb) {
		sl_out_error(o, "type 1r2c has one bucket: eb is for 1r3c and the two-rate types");
		goto out;
	}
	if (p->type == POL_2698 && p->eir < p->cir) {
		sl_out_error(o, "2r3c-2698: eir (the peak rate) must be at least cir");
		goto out;
	}
	if (find(p->name) >= 0) {
		sl_out_error(o, "policer %s exists (policer del name %s first)", p->name, p->name);
		goto out;
	}
	if (configure(o, p))
		goto out;
	int slot = 0;
	while (slot < SL_POLICERS && policers[slot])
		slot++;
	if (slot == SL_POLICERS) {
		sl_out_error(o, "%d policers already, the most there are", SL_POLICERS);
		goto out;
	}
	__atomic_store_n(&policers[slot], p, __ATOMIC_RELEASE);
	return 0;
out:
	rte_free(p);
	return rc;
}
SL_CLI_COMMAND(policer_add, .path = "policer add",
	       .usage = "name N [type 1r2c|1r3c|2r3c-2698|2r3c-4115] cir R cb B [eir R] [eb B] "
			"[rate kbps|pps] [conform-action A] [exceed-action A] [violate-action A] "
			"[color-aware [yellow-dscp D,...] [red-dscp D,...]]",
	       .help = "a policer (rte_meter: RFC 2697, 2698, 4115); rates in kbps and bursts in "
		       "bytes, or packets per second and packets; A: transmit, drop or "
		       "mark-and-transmit DSCP (defaults: conform transmit, exceed and violate "
		       "drop); color-aware: a frame's colour on arrival from its DSCP (RFC 2597's "
		       "AFx2 yellow and AFx3 red unless yellow-dscp or red-dscp name them)",
	       .fn = cmd_add)

static int cmd_del(struct sl_out *o, int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[0], "name"))
		return sl_out_error(o, "usage: policer del name N");
	int i = find(argv[1]);
	if (i < 0)
		return sl_out_error(o, "no policer %s", argv[1]);
	if (policers[i]->users)
		return sl_out_error(o, "policer %s is applied to %u interface direction(s) "
				    "(policer input|output name %s IFACE unapply)", argv[1],
				    policers[i]->users, argv[1]);
	struct policer *p = policers[i];
	__atomic_store_n(&policers[i], NULL, __ATOMIC_RELEASE);
	sl_rcu_sync(); /* a walk that loaded it before its last unapply has ended */
	rte_free(p);
	return 0;
}
SL_CLI_COMMAND(policer_del, .path = "policer del", .usage = "name N",
	       .help = "deletes a policer that no interface uses", .fn = cmd_del)

static int apply(struct sl_out *o, int argc, char **argv, int dir)
{
	const char *usage = dir ? "usage: policer output name N IFACE [unapply]"
				: "usage: policer input name N IFACE [unapply]";
	if ((argc != 3 && argc != 4) || strcmp(argv[0], "name") ||
	    (argc == 4 && strcmp(argv[3], "unapply")))
		return sl_out_error(o, "%s", usage);
	int i = find(argv[1]);
	if (i < 0)
		return sl_out_error(o, "no policer %s", argv[1]);
	struct sl_iface *f = sl_iface_by_name(argv[2]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[2]);
	enum sl_arc_id arc = dir ? SL_ARC_INTERFACE_OUTPUT : SL_ARC_DEVICE_INPUT;
	const char *feat = dir ? "policer-output" : "policer-input";
	uint16_t *slot = &if_policer[f->port][dir];
	char why[160] = "";
	if (argc == 4) {
		if (*slot != i + 1)
			return sl_out_error(o, "policer %s is not applied to %s %s", argv[1], f->name,
					    dir ? "output" : "input");
		sl_feature_set(f->port, arc, feat, false, why, sizeof(why)); /* pol_hook lets go */
		return 0;
	}
	if (*slot) {
		if (*slot == i + 1)
			return 0;
		return sl_out_error(o, "%s has policer %s on %s (unapply it first)", f->name,
				    policers[*slot - 1]->name, dir ? "output" : "input");
	}
	__atomic_store_n(slot, (uint16_t)(i + 1), __ATOMIC_RELEASE);
	policers[i]->users++;
	if (sl_feature_set(f->port, arc, feat, true, why, sizeof(why))) {
		*slot = 0;
		policers[i]->users--;
		return sl_out_error(o, "cannot police %s: %s", f->name, why);
	}
	return 0;
}

static int cmd_input(struct sl_out *o, int argc, char **argv)
{
	return apply(o, argc, argv, 0);
}
SL_CLI_COMMAND(policer_input, .path = "policer input", .usage = "name N IFACE [unapply]",
	       .help = "police what IFACE receives (before its mode)", .fn = cmd_input)

static int cmd_output(struct sl_out *o, int argc, char **argv)
{
	return apply(o, argc, argv, 1);
}
SL_CLI_COMMAND(policer_output, .path = "policer output", .usage = "name N IFACE [unapply]",
	       .help = "police what IFACE sends", .fn = cmd_output)

static void action_str(const struct policer *p, int c, char *buf, size_t len)
{
	if (p->act[c] == ACT_MARK)
		snprintf(buf, len, "mark-and-transmit %u", p->dscp[c]);
	else
		snprintf(buf, len, "%s", p->act[c] == ACT_DROP ? "drop" : "transmit");
}

static int cmd_show(struct sl_out *o, int argc, char **argv)
{
	if (argc != 0 && (argc != 2 || strcmp(argv[0], "name")))
		return sl_out_error(o, "usage: show policer [name N]");
	if (argc == 2 && find(argv[1]) < 0)
		return sl_out_error(o, "no policer %s", argv[1]);
	sl_tbl_begin(o, "policers", 20,
		     (const char *[]){"name", "type", "rate", "color", "yellow-dscp", "red-dscp",
				      "cir:u", "cb:u", "eir:u", "eb:u",
				      "conform-action", "exceed-action", "violate-action",
				      "applied:u", "conform-packets:u", "conform-bytes:u",
				      "exceed-packets:u", "exceed-bytes:u", "violate-packets:u",
				      "violate-bytes:u"});
	for (int i = 0; i < SL_POLICERS; i++) {
		const struct policer *p = policers[i];
		if (!p || (argc == 2 && strcmp(p->name, argv[1])))
			continue;
		char v[16][32];
		snprintf(v[0], 32, "%" PRIu64, p->cir);
		snprintf(v[1], 32, "%" PRIu64, p->cb);
		snprintf(v[2], 32, "%" PRIu64, p->eir);
		snprintf(v[3], 32, "%" PRIu64, p->eb);
		for (int c = 0; c < 3; c++)
			action_str(p, c, v[4 + c], 32);
		snprintf(v[7], 32, "%u", p->users);
		for (int c = 0; c < 3; c++) {
			uint64_t pk = 0, by = 0;
			for (unsigned w = 0; w < SL_MAX_WORKERS; w++) {
				pk += p->w[w].pkts[c];
				by += p->w[w].bytes[c];
			}
			snprintf(v[8 + 2 * c], 32, "%" PRIu64, pk);
			snprintf(v[9 + 2 * c], 32, "%" PRIu64, by);
		}
		char map[2][192] = {"-", "-"};
		for (int c = 0; p->aware && c < 2; c++) {
			size_t at = 0;
			for (int d = 0; d < 64; d++)
				if (p->pre[d] == (c ? RTE_COLOR_RED : RTE_COLOR_YELLOW))
					at += (size_t)snprintf(map[c] + at, sizeof(map[c]) - at, "%s%d",
							       at ? "," : "", d);
		}
		sl_tbl_row(o, p->name, type_names[p->type], p->pps ? "pps" : "kbps",
			   p->aware ? "aware" : "blind", map[0], map[1], v[0], v[1], v[2],
			   v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_policer, .path = "show policer", .usage = "[name N]",
	       .help = "policers: settings, interfaces, packets and bytes per colour",
	       .fn = cmd_show)

/* The features' hook: on only through policer input|output (the slot is set first); off,
 * however it goes (unapply, set interface feature ... disable, the interface deleted), the
 * interface lets go of its policer. */
static int pol_hook(uint16_t ifx, bool on, char *why, size_t len, int dir)
{
	uint16_t *slot = &if_policer[ifx][dir];
	if (on) {
		if (*slot)
			return 0;
		snprintf(why, len, "policer-%s is turned on by policer %s name N %s",
			 dir ? "output" : "input", dir ? "output" : "input", sl_ifaces[ifx].name);
		return -1;
	}
	if (*slot) {
		if (policers[*slot - 1])
			policers[*slot - 1]->users--;
		__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
	}
	return 0;
}

static int hook_in(uint16_t ifx, bool on, char *why, size_t len)
{
	return pol_hook(ifx, on, why, len, 0);
}

static int hook_out(uint16_t ifx, bool on, char *why, size_t len)
{
	return pol_hook(ifx, on, why, len, 1);
}

static void pol_fini(void)
{
	for (int i = 0; i < SL_POLICERS; i++) {
		rte_free(policers[i]);
		policers[i] = NULL;
	}
	memset(if_policer, 0, sizeof(if_policer));
}

static int pol_init(const struct sl_config *c)
{
	(void)c;
	return 0;
}

SL_MODULE_REGISTER(policer_module, .name = "policer", .init = pol_init, .fini = pol_fini)

RTE_INIT(policer_ctor)
{
	pi_err = sl_error_register("policer-input", po_reasons, PO_NB_ERR);
	po_err = sl_error_register("policer-output", po_reasons, PO_NB_ERR);
	feat_in = sl_feature_register(SL_ARC_DEVICE_INPUT, "policer-input", "policer-input");
	feat_out = sl_feature_register(SL_ARC_INTERFACE_OUTPUT, "policer-output", "policer-output");
	sl_iface_tx_user("policer-output", &out_tx0);
	sl_feature_hook(SL_ARC_DEVICE_INPUT, feat_in, hook_in);
	sl_feature_hook(SL_ARC_INTERFACE_OUTPUT, feat_out, hook_out);
}
