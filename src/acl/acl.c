/* SPDX-License-Identifier: BSD-3-Clause */
/* ACLs: stateless access lists over IPv4 and IPv6 5-tuples on DPDK's rte_acl, in VPP's
 * acl-plugin grammar:
 *   set acl-plugin acl [index N] RULE, RULE, ... [tag T]
 *     RULE: permit|deny [src PREFIX] [dst PREFIX] [proto P] [sport A[-B]] [dport A[-B]]
 *           [tcpflags V mask M]
 *   delete acl-plugin acl index N
 *   set acl-plugin linear-max N
 *   set acl-plugin flow-cache on|off
 *   set acl-plugin interface IFACE input|output acl N [del]
 *   show acl-plugin acl [index N]
 *   show acl-plugin interface [IFACE]
 *   show acl-plugin flow-cache
 * A rule's family is its addresses' (a rule with neither src nor dst matches both); for ICMP
 * and ICMPv6 sport and dport are the type and the code, as in VPP; a non-first fragment has
 * ports, type, code and flags 0; tcpflags match (flags & M) == V on TCP only.
 *
 * An interface direction's ACLs, in the order applied, are one classifier (struct acl_cls):
 * every rule of every ACL in one rte_acl context per family, each rule's priority its place,
 * so the first match wins across the ACLs, or, for a family of few rules (linear_max), those
 * rules in order, matched one by one; a packet that matches no rule is denied. The
 * classifier is built on the main lcore and published with one pointer store; replacing an
 * ACL builds every classifier that uses it anew and retires the old ones by RCU, so a
 * worker classifies a whole vector with one classifier, old or new, never a mix.
 *
 * acl-input is a feature of the device-input arc (frames as received, before the
 * interface's mode: routed and L2 interfaces alike), acl-output of interface-output (frames
 * as sent). Frames that are not IP (ARP), and ICMPv6 neighbour discovery, pass: in VPP the
 * ACLs sit on the IP unicast arcs, where neither goes. Hit counters are per rule and per
 * worker (no atomics); replacing an ACL starts its counters again. */
#include "acl.h"
#include "../cli/cli.h"
#include "../runtime/crc.h"
#include "../runtime/feature.h"
#include "../runtime/runtime.h"
#include "../interface/iface.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_acl.h>
#include <rte_errno.h>
#include <rte_malloc.h>
/* Every x86 build has SSE4.1 (DPDK's own flags ask for corei7); others keep the scalar
 * linear match (lin_match). */
#ifdef __SSE4_1__
#include <smmintrin.h>
#define SL_ACL_LIN4 1 /* the linear rules as 16-byte masks and ranges (lin4_match, lin6_match) */
#endif

#define SL_ACLS 1024         /* ACL indexes 0..1023 */
#define SL_ACL_RULES 65536   /* rules of one ACL, and of one interface direction's ACLs */
#define SL_ACL_PER_IF 8      /* ACLs on one interface direction */

struct acl_rule {
	uint8_t permit;
	uint8_t family;          /* 4, 6, or 0: no address given, both */
	uint8_t proto;           /* 0: any */
	uint8_t src_len, dst_len;
	uint8_t flags, fmask;
	uint8_t src[16], dst[16]; /* network order, host bits clear; IPv4 in the first 4 */
	uint16_t sport[2], dport[2];
};

struct acl {
	uint32_t n;
	char tag[64];
	uint64_t *hits;          /* [SL_MAX_WORKERS][hits_row(n)]: row w is worker w's */
	struct acl_rule r[];
};

/* A worker's row of hit counters: whole cache lines, so that no two workers write one. */
static inline uint32_t hits_row(uint32_t n)
{
	return RTE_ALIGN_CEIL(n, RTE_CACHE_LINE_SIZE / sizeof(uint64_t));
}

static struct acl *acls[SL_ACLS];
static uint32_t acl_users[SL_ACLS]; /* interface directions it is applied to */

struct acl_ent {
	uint8_t permit;
	uint32_t stride;         /* hits_row of its ACL: worker w's counter is hits[w * stride] */
	uint64_t *hits;
};

/* A rule as the linear matcher reads it: the key's address words masked and compared, in
 * network order (IPv4's in word 0), the ports as ranges, the protocol and the TCP flags as
 * rte_acl's bitmasks. */
struct acl_lin {
	uint32_t src[4], smask[4], dst[4], dmask[4];
	uint16_t sport[2], dport[2];
	uint8_t proto, pmask, flags, fmask;
	uint32_t res;            /* the classifier's result for it: its place + 1 */
};

/* An IPv4 rule of struct acl_lin as lin4_match compares it with the key's bytes in one
 * 16-byte register (lin4_key): the source and destination (bytes 0-7) and the protocol and
 * TCP flags (12, 13) as (key ^ v) & m, the ports (16-bit lanes 4 and 5, host order) as
 * ranges lo..hi, which are 0..65535 in the other lanes so that they never fail there. */
#ifdef SL_ACL_LIN4
struct lin_x {
	__m128i v, m, lo, hi;
};
#endif

struct acl_lin4 {
#ifdef SL_ACL_LIN4
	struct lin_x x;
#endif
	uint32_t res;
};

/* An IPv6 rule the same way (lin6_match): the source and the destination each a vector of
 * their own compared as (key ^ v) & m, and the rest (lin6_match's third vector: the ports in
 * lanes 4 and 5, the protocol in byte 12, the TCP flags in 13) as struct acl_lin4's. */
struct acl_lin6 {
#ifdef SL_ACL_LIN4
	__m128i sv, sm, dv, dm;
	struct lin_x x;
#endif
	uint32_t res;
};

/* A classifier of a list of ACLs, shared by every interface direction with that list (20,000
 * subscribers with one Filter-Id: one classifier, built once, and a vector of packets to
 * them classified in one call). */
struct acl_cls {
	struct acl_cls *next;    /* the live classifiers (main lcore) */
	uint32_t refs;           /* interface directions that point to it */
	struct rte_acl_ctx *ctx[2]; /* IPv4, IPv6; NULL when no rule is of that family, or
				     * when its rules are few (lin) */
	struct acl_lin *lin[2];  /* a family's rules, in order, when linear_max or fewer */
	struct acl_lin4 *lin4;   /* lin[0]'s rules as lin4_match reads them (SL_ACL_LIN4) */
	struct acl_lin6 *lin6;   /* lin[1]'s, as lin6_match reads them */
	uint32_t nlin[2];
	uint64_t gen;            /* unique: the flow cache's entries of it are its own */
	bool fl;                 /* a rule has tcpflags: the contexts read the flags */
	uint8_t nacl;
	uint16_t acl[SL_ACL_PER_IF]; /* the ACLs, in the order applied */
	uint32_t n;
	struct acl_ent ent[];    /* rule i of the whole list: result i + 1 */
};

/* Each interface's classifier per direction (0 input, 1 output): a pointer slot of its
 * sl_if_fast each, in the line the output path reads for its tx slot and features anyway. */
static unsigned cls_slot[2];

static inline struct acl_cls *if_cls(uint16_t ifx, int dir)
{
	return __atomic_load_n(&sl_if_fast[ifx].slot[cls_slot[dir]], __ATOMIC_ACQUIRE);
}
static struct acl_cls *cls_live; /* each once, whatever number of interfaces use it */
/* A family's rules on one interface direction are matched one after the other, in C, up to
 * this many (set acl-plugin linear-max N; 0: rte_acl always): rte_acl_classify's fixed cost
 * (its tries' set-up and transitions, some 175 instructions a packet for two rules) is many
 * rules' worth of compares. */
#define SL_ACL_LINEAR_MAX 64
static uint32_t linear_max = 8;
static uint8_t feat_in, feat_out;
static rte_edge_t out_tx0; /* acl-output's first tx edge (sl_feature_next_out) */
static uint32_t ctx_gen; /* rte_acl context names are unique */

/* The classifier's key: what rte_acl reads (addresses and ports in network order). */
union acl_key {
	/* IPv4: laid out as the IPv4 header from its protocol byte on (the TCP flags the last
	 * byte of a 32-bit word), so that rte_acl reads an option-less first fragment of TCP,
	 * UDP or SCTP in place, and builds a key only for the others */
	struct __rte_packed {
		uint8_t proto, cksum[2];
		uint8_t src[4], dst[4];
		uint8_t ports[4];
		uint8_t tcp[6];    /* TCP's bytes 4-9 */
		uint8_t flags[4];  /* TCP's bytes 10-13 */
	} v4;
	/* IPv6: laid out as the IPv6 header from its next header byte on, for the same reason
	 * (read in place when TCP, UDP or SCTP follows the header itself) */
	struct __rte_packed {
		uint8_t proto, hlim;
		uint8_t src[16], dst[16];
		uint8_t ports[4];
		uint8_t tcp[6];    /* TCP's bytes 4-9 */
		uint8_t flags[4];  /* TCP's bytes 10-13 */
	} v6;
};
_Static_assert(offsetof(union acl_key, v4.ports) == 20 - 9, "the IPv4 header's layout");
_Static_assert(offsetof(union acl_key, v4.flags) + 3 == 20 + 13 - 9, "TCP's flags byte");
_Static_assert(offsetof(union acl_key, v6.src) == 8 - 6 &&
	       offsetof(union acl_key, v6.ports) == 40 - 6, "the IPv6 header's layout");
_Static_assert(offsetof(union acl_key, v6.flags) + 3 == 40 + 13 - 6 && sizeof(union acl_key) == 48,
	       "TCP's flags byte, the key's last");

/* rte_acl's fields. rte_acl reads its input 4 bytes at a time, but for the first field (one
 * byte): proto alone, then the addresses, the ports together, and the TCP flags as a 32-bit
 * field, last, so that a classifier without a tcpflags rule leaves it out (4 transitions
 * fewer a packet). */
enum { F4_PROTO, F4_SRC, F4_DST, F4_SPORT, F4_DPORT, F4_FLAGS, F4_NB };
enum { F6_PROTO, F6_SRC, F6_DST = F6_SRC + 4, F6_SPORT = F6_DST + 4, F6_DPORT, F6_FLAGS,
       F6_NB };
_Static_assert(F4_FLAGS == 3 + 2 * 1 && F6_FLAGS == 3 + 2 * 4, "rule_fill's order");
RTE_ACL_RULE_DEF(acl6_rule, F6_NB);

#define KOFF(f) ((uint32_t)offsetof(union acl_key, f))
static const struct rte_acl_field_def defs4[F4_NB] = {
	{RTE_ACL_FIELD_TYPE_BITMASK, 1, F4_PROTO, 0, KOFF(v4.proto)},
	{RTE_ACL_FIELD_TYPE_MASK, 4, F4_SRC, 1, KOFF(v4.src)},
	{RTE_ACL_FIELD_TYPE_MASK, 4, F4_DST, 2, KOFF(v4.dst)},
	{RTE_ACL_FIELD_TYPE_RANGE, 2, F4_SPORT, 3, KOFF(v4.ports)},
	{RTE_ACL_FIELD_TYPE_RANGE, 2, F4_DPORT, 3, KOFF(v4.ports) + 2},
	{RTE_ACL_FIELD_TYPE_BITMASK, 4, F4_FLAGS, 4, KOFF(v4.flags)},
};
#define D6(k, f, i, off) {RTE_ACL_FIELD_TYPE_MASK, 4, f + k, i + k, off + 4 * k}
static const struct rte_acl_field_def defs6[F6_NB] = {
	{RTE_ACL_FIELD_TYPE_BITMASK, 1, F6_PROTO, 0, KOFF(v6.proto)},
	D6(0, F6_SRC, 1, KOFF(v6.src)), D6(1, F6_SRC, 1, KOFF(v6.src)),
	D6(2, F6_SRC, 1, KOFF(v6.src)), D6(3, F6_SRC, 1, KOFF(v6.src)),
	D6(0, F6_DST, 5, KOFF(v6.dst)), D6(1, F6_DST, 5, KOFF(v6.dst)),
	D6(2, F6_DST, 5, KOFF(v6.dst)), D6(3, F6_DST, 5, KOFF(v6.dst)),
	{RTE_ACL_FIELD_TYPE_RANGE, 2, F6_SPORT, 9, KOFF(v6.ports)},
	{RTE_ACL_FIELD_TYPE_RANGE, 2, F6_DPORT, 9, KOFF(v6.ports) + 2},
	{RTE_ACL_FIELD_TYPE_BITMASK, 4, F6_FLAGS, 10, KOFF(v6.flags)},
};

/* ---- the nodes ---- */

#define AC_ERRORS(X)                                            \
	X(AC_ERR_DENY, "acl deny")                              \
	X(AC_ERR_NOMATCH, "acl no rule matched (default deny)")
enum { AC_ERRORS(SL_ERR_ENUM) AC_NB_ERR };
static const char *const ac_reasons[] = {AC_ERRORS(SL_ERR_STR)};
static uint16_t ai_err, ao_err;

enum { AN_NEXT_DROP }; /* then the arc's edges, added by name */

/* The L4 part of the key (protocol proto) from the header at p, len bytes there. */
static inline void key_l4(uint8_t proto, const uint8_t *p, uint32_t len, uint8_t ports[4],
			  uint8_t flags[4])
{
	switch (proto) {
	case IPPROTO_TCP:
		if (len >= 14)
			flags[3] = p[13];
		/* fall through */
	case IPPROTO_UDP:
	case IPPROTO_SCTP:
		if (len >= 4)
			memcpy(ports, p, 4);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (len >= 2) { /* type and code, as 16-bit numbers in network order */
			ports[1] = p[0];
			ports[3] = p[1];
		}
		break;
	}
}

/* The protocols whose option-less first fragments acl_key reads in place: TCP, UDP and
 * SCTP (KEY_IN_PLACE), TCP alone when the classifier reads the flags (KEY_IN_PLACE_FL). */
enum { KEY_IN_PLACE = 1, KEY_IN_PLACE_FL = 2 };
static const uint8_t key_in_place[256] = {
	[IPPROTO_TCP] = KEY_IN_PLACE | KEY_IN_PLACE_FL,
	[IPPROTO_UDP] = KEY_IN_PLACE,
	[IPPROTO_SCTP] = KEY_IN_PLACE,
};

static inline uint8_t key_bit(bool fl)
{
	return fl ? KEY_IN_PLACE_FL : KEY_IN_PLACE;
}
/* The frame's length from which an IPv6 key is read in place without the TCP flags: up to
 * the ports' end, and with the linear match's 16-byte load of them 8 bytes past (14 + 6 +
 * 42: a UDP header's 8 bytes); lin_match, the other architectures', reads the whole key. */
#ifdef SL_ACL_LIN4
#define KEY6_IN_PLACE_LEN (14 + 6 + 42)
#else
#define KEY6_IN_PLACE_LEN (14 + 6 + 48)
#endif

/* The bytes an IPv6 frame read in place must hold (in_place: key_bit's) */
static inline uint32_t key6_min(uint8_t in_place)
{
	return in_place == KEY_IN_PLACE_FL ? 14 + 6 + 48 : KEY6_IN_PLACE_LEN;
}

/* Whether the frame at p (len bytes, its ethertype type; at least 14 bytes) is an untagged,
 * option-less first fragment of IPv4 whose key acl_key reads in place (in_place: key_bit's),
 * then in *d. */
static __rte_always_inline bool key4_in_place(const uint8_t *p, uint32_t len, uint16_t type,
					      uint8_t in_place, const uint8_t **d)
{
	if (type != RTE_ETHER_TYPE_IPV4 || len < 14 + 34)
		return false;
	const uint8_t *ip = p + 14;
	uint64_t first; /* version and IHL 0x45 (byte 0), fragment offset 0 (6-7) */
	memcpy(&first, ip, 8);
	if ((first & RTE_BE64(0xff00000000001fffull)) != RTE_BE64(0x45ull << 56) ||
	    !(key_in_place[ip[9]] & in_place))
		return false;
	*d = ip + 9;
	return true;
}

/* Whether the frame at p (len bytes, its ethertype type; at least 14 bytes) is an untagged IPv6
 * header followed by TCP, UDP or SCTP, whole up to what is read of it (min6, key6_min's:
 * rte_acl and the flow cache read the ports, lin6_match 8 bytes past them, and the TCP flags
 * when the classifier reads them), its key read in place (in_place: key_bit's), then in *d. */
static __rte_always_inline bool key6_in_place(const uint8_t *p, uint32_t len, uint16_t type,
					      uint8_t in_place, uint32_t min6, const uint8_t **d)
{
	if (type != RTE_ETHER_TYPE_IPV6 || len < min6 || !(key_in_place[p[14 + 6]] & in_place))
		return false;
	*d = p + 14 + 6;
	return true;
}

/* Frame m's classifier input in *d: 4 or 6 by its IP version, or 0 when it passes
 * unclassified (not IP, or neighbour discovery). An option-less, untagged first fragment of
 * TCP, UDP or SCTP (of TCP only when the classifier reads the flags: in_place is
 * key_in_place's bit for the classifier, key_bit), and an untagged IPv6 header that they
 * follow, are read in place (from the protocol, or the next header, on: union acl_key's
 * layouts); the others get their key built in k (what the frame is too short to hold left
 * 0). */
static __rte_always_inline int acl_key(const struct rte_mbuf *m, union acl_key *k,
			  uint8_t in_place, const uint8_t **d)
{
	/* the bytes an IPv6 frame read in place must hold (constant over a vector) */
	const uint32_t min6 = key6_min(in_place);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, off = 12;
	if (unlikely(len < 14))
		return 0;
	uint16_t type = (uint16_t)(p[12] << 8 | p[13]);
	if (likely(key4_in_place(p, len, type, in_place, d)))
		return 4;
	if (key6_in_place(p, len, type, in_place, min6, d))
		return 6;
	*d = (const uint8_t *)k;
	memset(k, 0, sizeof(*k));
	for (int tags = 0; (type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) &&
			   tags < 2 && off + 6 <= len; tags++) {
		off += 4;
		type = (uint16_t)(p[off] << 8 | p[off + 1]);
	}
	off += 2;
	if (type == RTE_ETHER_TYPE_IPV4) {
		if (unlikely(off + 20 > len))
			return 4;
		const uint8_t *ip = p + off;
		k->v4.proto = ip[9];
		memcpy(k->v4.src, ip + 12, 8);
		uint32_t l4 = off + (ip[0] & 0xf) * 4u;
		bool first = !((ip[6] & 0x1f) | ip[7]); /* fragment offset 0 */
		if (likely(first && l4 <= len))
			key_l4(ip[9], p + l4, len - l4, k->v4.ports, k->v4.flags);
		return 4;
	}
	if (type != RTE_ETHER_TYPE_IPV6)
		return 0;
	if (unlikely(off + 40 > len))
		return 6;
	const uint8_t *ip = p + off;
	uint8_t nh = ip[6];
	memcpy(k->v6.src, ip + 8, 32);
	uint32_t l4 = off + 40;
	bool first = true;
	/* hop-by-hop, routing, fragment and destination options: up to 4 walked */
	for (int h = 0; h < 4 && (nh == 0 || nh == 43 || nh == 44 || nh == 60); h++) {
		if (l4 + 8 > len) {
			nh = 59; /* the upper layer is not in the frame: no L4 fields */
			break;
		}
		if (nh == 44) {
			first = first && !((p[l4 + 2] << 8 | p[l4 + 3]) & 0xfff8);
			nh = p[l4];
			l4 += 8;
		} else {
			nh = p[l4];
			l4 += (p[l4 + 1] + 1u) * 8;
		}
	}
	k->v6.proto = nh;
	if (first && l4 <= len) {
		key_l4(nh, p + l4, len - l4, k->v6.ports, k->v6.flags);
		/* RS, RA, NS, NA and redirect */
		if (nh == IPPROTO_ICMPV6 && l4 < len && p[l4] >= 133 && p[l4] <= 137)
			return 0;
	}
	return 6;
}

static inline uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The first of the n rules at r that the key (or header) at d of family f (0 IPv4, 1 IPv6)
 * matches: its result, or 0; what rte_acl would answer with the same rules. */
static inline uint32_t lin_match(const struct acl_lin *r, uint32_t n, const uint8_t *d, int f)
{
	uint32_t s[4], t[4];
	uint16_t sp, dp;
	uint8_t fl;
	if (!f) {
		memcpy(s, d + KOFF(v4.src), 4);
		memcpy(t, d + KOFF(v4.dst), 4);
		sp = be16_at(d + KOFF(v4.ports));
		dp = be16_at(d + KOFF(v4.ports) + 2);
		fl = d[KOFF(v4.flags) + 3];
	} else {
		memcpy(s, d + KOFF(v6.src), 16);
		memcpy(t, d + KOFF(v6.dst), 16);
		sp = be16_at(d + KOFF(v6.ports));
		dp = be16_at(d + KOFF(v6.ports) + 2);
		fl = d[KOFF(v6.flags) + 3];
	}
	uint8_t pr = d[0];
	for (uint32_t i = 0; i < n; i++, r++) {
		if ((pr & r->pmask) != r->proto || sp < r->sport[0] || sp > r->sport[1] ||
		    dp < r->dport[0] || dp > r->dport[1] || (fl & r->fmask) != r->flags ||
		    ((s[0] ^ r->src[0]) & r->smask[0]) || ((t[0] ^ r->dst[0]) & r->dmask[0]))
			continue;
		if (!f || !(((s[1] ^ r->src[1]) & r->smask[1]) | ((s[2] ^ r->src[2]) & r->smask[2]) |
			    ((s[3] ^ r->src[3]) & r->smask[3]) | ((t[1] ^ r->dst[1]) & r->dmask[1]) |
			    ((t[2] ^ r->dst[2]) & r->dmask[2]) | ((t[3] ^ r->dst[3]) & r->dmask[3])))
			return r->res;
	}
	return 0;
}

#ifdef SL_ACL_LIN4
/* The IPv4 key at d (union acl_key's v4 layout, or the header from its protocol byte on)
 * as struct acl_lin4 compares it: bytes 3-10 (the addresses) to 0-7, the ports' bytes
 * swapped into host order in 8-11, the protocol in 12, and, when fl (a rule has tcpflags),
 * the TCP flags byte in 13; 0 elsewhere. Reads d[0..15], and d[24] when fl: inside the
 * frame for a header read in place (acl_key), inside the key for one built. */
static inline __m128i lin4_key(const uint8_t *d, bool fl)
{
	const __m128i shuf = _mm_setr_epi8(3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 14, 13, 0, -1, -1, -1);
	__m128i k = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)d), shuf);
	return fl ? _mm_insert_epi8(k, d[KOFF(v4.flags) + 3], 13) : k;
}

/* Non-zero where key k misses x: (k ^ v) & m, and the ports below lo or above hi. */
static inline __m128i lin_x_miss(const struct lin_x *x, __m128i k)
{
	__m128i t = _mm_and_si128(_mm_xor_si128(k, x->v), x->m);
	t = _mm_or_si128(t, _mm_subs_epu16(x->lo, k));
	return _mm_or_si128(t, _mm_subs_epu16(k, x->hi));
}

/* lin_match for IPv4, the key at d, in a register: a rule in 8 instructions. */
static inline uint32_t lin4_match(const struct acl_lin4 *r, uint32_t n, const uint8_t *d, bool fl)
{
	const __m128i k = lin4_key(d, fl);
	for (uint32_t i = 0; i < n; i++, r++) {
		__m128i t = lin_x_miss(&r->x, k);
		if (_mm_testz_si128(t, t))
			return r->res;
	}
	return 0;
}

/* lin_match for IPv6, the key at d (union acl_key's v6, as the header from its next header
 * byte): its source, its destination, and its protocol, ports and flags in three registers;
 * a rule in 14 instructions. */
static inline uint32_t lin6_rules(const struct acl_lin6 *r, uint32_t n, __m128i s, __m128i t,
				  __m128i k)
{
	for (uint32_t i = 0; i < n; i++, r++) {
		__m128i x = _mm_and_si128(_mm_xor_si128(s, r->sv), r->sm);
		x = _mm_or_si128(x, _mm_and_si128(_mm_xor_si128(t, r->dv), r->dm));
		x = _mm_or_si128(x, lin_x_miss(&r->x, k));
		if (_mm_testz_si128(x, x))
			return r->res;
	}
	return 0;
}

/* 16 bytes whose 8-11 are the ports (network order) and 15 the TCP flags: lin6's third
 * vector, the ports in host order in 8-11, the flags in 13 */
#define LIN6_SHUF _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 9, 8, 11, 10, -1, 15, -1, -1)

/* The key at d as the IPv6 header from its next header byte on (built, or in place): its
 * addresses at 2 and 18, the ports at 34 (read from 26, with 8 bytes past them), the TCP
 * flags at 47, read when fl. */
static inline uint32_t lin6_match(const struct acl_lin6 *r, uint32_t n, const uint8_t *d,
				  bool fl)
{
	__m128i k = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(d + KOFF(v6.ports) - 8)),
				     LIN6_SHUF);
	k = _mm_insert_epi8(k, d[KOFF(v6.proto)], 12);
	if (fl)
		k = _mm_insert_epi8(k, d[KOFF(v6.flags) + 3], 13);
	return lin6_rules(r, n, _mm_loadu_si128((const __m128i *)(d + KOFF(v6.src))),
			  _mm_loadu_si128((const __m128i *)(d + KOFF(v6.dst))), k);
}
#endif

/* Classifier c's linear rules of family f (c->lin[f] is set) for the key at d. */
static inline uint32_t cls_lin(const struct acl_cls *c, int f, const uint8_t *d)
{
#ifdef SL_ACL_LIN4
	if (!f)
		return lin4_match(c->lin4, c->nlin[0], d, c->fl);
	return lin6_match(c->lin6, c->nlin[1], d, c->fl);
#endif
	return lin_match(c->lin[f], c->nlin[f], d, f);
}

/* Classifier c's results for cnt inputs of family f (0 IPv4, 1 IPv6): the rule that
 * decides each (its place + 1), 0 when none matches. */
static inline void cls_classify(const struct acl_cls *c, int f, const uint8_t **data,
				uint32_t *res, uint32_t cnt)
{
	if (c->lin[f]) {
		for (uint32_t j = 0; j < cnt; j++)
			res[j] = cls_lin(c, f, data[j]);
	} else if (c->ctx[f]) {
		rte_acl_classify(c->ctx[f], data, res, cnt, 1);
	} else {
		memset(res, 0, cnt * sizeof(res[0]));
	}
}

/* ---- the flow cache ----
 * A worker's exact-match cache in front of rte_acl, per direction and family (OVS-DPDK's EMC): the
 * bytes rte_acl reads (protocol, addresses, ports; the TCP flags byte where the classifier reads
 * it) and the classifier's generation -> the result rte_acl gave. A result depends on nothing else,
 * so a hit is the classifier's answer; a classifier built anew has a new generation and starts
 * cold, and a vector is still classified by one classifier. Sets of three ways, one generation for
 * the three: IPv4's one cache line, IPv6's two (each way's result in its key's spare bits): a
 * miss goes to rte_acl with the vector's other misses, then takes the first way (the others move
 * one on, the last out). 8 MB a family a worker and direction: 393,216 IPv4 entries and 196,608
 * IPv6 ones. A replay of flows in
 * one order misses every flow of a set that more flows than ways share, so a two-way cache holds
 * about 90% of as many flows as a quarter of its entries, a three-way one 98.6% of as many as a
 * sixth, and lookups that miss the L2 (more than some 16,384 flows' lines) still cost less than
 * rte_acl: at 512 KB a family, 16,384 IPv4 flows found 41% and cost a 1,000-rule ACL +54 to +84
 * clocks a packet; at 2 MB 91% and +24 to +40, and 32,768 flows rested (rte_acl alone); at 8 MB
 * 32,768 flows found 97% and cost +24, 65,536 91% and +39; four ways in two lines found more and
 * cost more; three in one line 99.4% and 98.0%, 65,536 flows +28 (session 36); IPv6 at 2 MB found
 * 97.3% of 4,096 flows and cost +39, at 4 MB 99.2% and +15 to +22, and 16,384 flows 90.9% and +36
 * to +63, at 8 MB 97.4% and +13 to +31, and in three ways 99.6%, 32,768 flows 98.4% where two
 * found 91.0% (docs/lab-notes.md, sessions 33 to 37). The key is compared
 * where rte_acl reads it (the packet's bytes, or the key acl_key built), not copied. Traffic of
 * more flows than it holds pays the lookup for more than it saves: a window of FC_WINDOW lookups
 * that found under three quarters turns the family's cache off for the next 15 windows' packets,
 * then it is tried again (a rest that follows a rest is twice as long, up to 255 windows: then 0.4%
 * of the packets pay the lookup for nothing, and a change of traffic is seen within a million). A
 * classifier newer than any it has seen starts cold and ends a rest: its first lookups, as many as
 * the family's cache holds, are not judged, since until then traffic of fewer flows than it holds
 * still misses each flow it has not seen. A direction's and family's cache is allocated by the main
 * lcore for every worker when a classifier of that family that uses rte_acl is first applied in
 * that direction. */
#define FC4_WAYS 3
#define FC6_WAYS 3
#define FC4_SETS 131072 /* x 64 bytes (3 ways): 8 MB */
#define FC6_SETS 65536  /* x 128 bytes (3 ways): 8 MB */
#define FC_WINDOW 4096
#define FC_REST_MAX 4 /* rests of 15, 31, 63, 127, then 255 windows' packets */

/* An IPv4 set: one line, one generation for its three ways (the ways of an older one are
 * empty), a result of 16 bits a way (rte_acl's 65,535th rule and later ones are not cached) */
struct fc_set4 {
	uint64_t gen;    /* the classifier's (acl_cls.gen) whose results its ways hold; 0: none */
	uint16_t res[FC4_WAYS];
	uint16_t pad;
	struct {
		uint64_t a;      /* source and destination, as in the packet */
		uint64_t pp;     /* ports, protocol << 32, TCP flags << 40; FC4_EMPTY: none */
	} way[FC4_WAYS];
};
#define FC4_EMPTY UINT64_MAX /* no key's pp: its top 16 bits are 0 */

/* An IPv6 set: two lines, one generation for its three ways (as IPv4's), each way's result in
 * the top 16 bits of its pp (a key's pp has 48); FC6_NONE there: an emptied way. The ways lie
 * at 8, 48 and 88 bytes: a hit in the first reads the first line alone. */
struct fc_way6 {
	uint64_t a[4];   /* source and destination, as in the packet */
	uint64_t pp;     /* the key's pp | its result << 48 */
};
struct fc_set6 {
	uint64_t gen;
	struct fc_way6 way[FC6_WAYS];
};
#define FC6_NONE UINT16_MAX
#define FC_PP_BITS 48 /* a key's pp: ports, protocol, flags */
_Static_assert(sizeof(struct fc_set4) == RTE_CACHE_LINE_SIZE &&
	       sizeof(struct fc_set6) == 2 * RTE_CACHE_LINE_SIZE, "sets in whole cache lines");

struct fc_stat { /* written by its worker only */
	uint64_t lookups, hits, bypassed;
	uint64_t newest;  /* the newest classifier's generation it has seen */
	uint32_t win_look, win_hit, skip;
	uint32_t warm;    /* lookups left before windows are judged (a classifier new to it) */
	uint8_t rests;    /* rests in a row, each twice the one before (to FC_REST_MAX) */
};

/* A worker's cache of one direction and family: its sets, then its counters (the sets at the
 * allocation's start: a set's address is one add from the hash, fc_classify) */
struct acl_fc4 {
	struct fc_set4 set[FC4_SETS];
	struct fc_stat st;
};
struct acl_fc6 {
	struct fc_set6 set[FC6_SETS];
	struct fc_stat st;
};

/* The counters of family f's cache fc */
static inline struct fc_stat *fc_stat_of(void *fc, int f)
{
	return f ? &((struct acl_fc6 *)fc)->st : &((struct acl_fc4 *)fc)->st;
}

static bool fc_on = true;                         /* set acl-plugin flow-cache on|off */
/* by worker id, direction and family: struct acl_fc4 (IPv4) or acl_fc6 (IPv6) */
static void *fc_of[SL_MAX_WORKERS][2][2];
static uint64_t cls_gens;                         /* the last generation given */

/* Every worker's cache of direction dir and family f (0 IPv4, 1 IPv6), once (main lcore): only
 * once a classifier of that family that uses rte_acl is applied in that direction; without it
 * a worker uses rte_acl alone. */
static void fc_alloc(int dir, int f)
{
	size_t sz = f ? sizeof(struct acl_fc6) : sizeof(struct acl_fc4);
	for (uint16_t w = 0; w < sl_nb_workers && w < SL_MAX_WORKERS; w++) {
		if (fc_of[w][dir][f])
			continue;
		void *fc = rte_zmalloc_socket("sl_acl_fc", sz, RTE_CACHE_LINE_SIZE,
					      (int)rte_lcore_to_socket_id(sl_workers[w].lcore));
		if (!fc) /* tried again at the next classifier applied */
			fprintf(stderr, "sluiced: no memory for worker %u's IPv%d %s ACL flow cache "
				"(%zu bytes): rte_acl alone\n", w, f ? 6 : 4, dir ? "output" : "input",
				sz);
		__atomic_store_n(&fc_of[w][dir][f], fc, __ATOMIC_RELEASE);
	}
}

static void fc_free(void)
{
	for (unsigned w = 0; w < SL_MAX_WORKERS; w++)
		for (int x = 0; x < 4; x++) {
			rte_free(fc_of[w][x / 2][x % 2]);
			fc_of[w][x / 2][x % 2] = NULL;
		}
}

/* The cache's key is read where rte_acl reads it (d: the packet's bytes from the protocol or
 * next header on, or an acl_key, the same layout): the addresses as they lie there, and pp,
 * the ports, protocol << 32 and, when fl (the classifier reads the TCP flags), the flags
 * byte << 40. Returns pp; *h the key's hash. */
static __rte_always_inline uint64_t fc_key(const uint8_t *d, int f, bool fl, uint64_t *h)
{
	/* the protocol byte is d[0] in both layouts, the flags byte 13 past the ports */
	const uint32_t src = f ? KOFF(v6.src) : KOFF(v4.src);
	const uint32_t ports_at = f ? KOFF(v6.ports) : KOFF(v4.ports);
	uint32_t ports;
	uint64_t a, x = 0;
	for (int k = 0; k < (f ? 4 : 1); k++) {
		memcpy(&a, d + src + 8 * k, 8);
		x = sl_crc8(a, x);
	}
	memcpy(&ports, d + ports_at, 4);
	uint64_t pp = ports | (uint64_t)d[0] << 32 | (fl ? (uint64_t)d[ports_at + 13] << 40 : 0);
	*h = sl_crc8(pp, x);
	return pp;
}
_Static_assert(KOFF(v4.flags) + 3 == KOFF(v4.ports) + 13 &&
	       KOFF(v6.flags) + 3 == KOFF(v6.ports) + 13, "fc_key: the TCP flags byte");

/* Whether way e holds the key at d (pp): the IPv6 addresses compared 16 bytes at a time where
 * SSE4.1 is (every x86 build), and pp's 48 bits. */
static inline bool fc_match6(const struct fc_way6 *e, const uint8_t *d, uint64_t pp)
{
	const uint8_t *a = d + KOFF(v6.src);
#ifdef SL_ACL_LIN4
	__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)a),
				  _mm_loadu_si128((const __m128i *)&e->a[0]));
	__m128i y = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + 16)),
				  _mm_loadu_si128((const __m128i *)&e->a[2]));
	x = _mm_or_si128(x, y);
	return _mm_testz_si128(x, x) && !((e->pp ^ pp) << (64 - FC_PP_BITS));
#else
	uint64_t k[4];
	memcpy(k, a, 32);
	return !((e->a[0] ^ k[0]) | (e->a[1] ^ k[1]) | (e->a[2] ^ k[2]) | (e->a[3] ^ k[3]) |
		 ((e->pp ^ pp) << (64 - FC_PP_BITS)));
#endif
}

/* The result that set (of family f) holds for the key at d (pp), in *r: whether it holds
 * one. */
static __rte_always_inline bool fc_find(const void *set, int f, const uint8_t *d, uint64_t pp,
					uint64_t gen, uint32_t *r)
{
	if (!f) {
		const struct fc_set4 *e = set;
		uint64_t a;
		memcpy(&a, d + KOFF(v4.src), 8);
		if (unlikely(e->gen != gen))
			return false;
		for (int w = 0; w < FC4_WAYS; w++)
			if (!((e->way[w].a ^ a) | (e->way[w].pp ^ pp)))
				return *r = e->res[w], true;
		return false;
	}
	const struct fc_set6 *e = set;
	if (unlikely(e->gen != gen))
		return false;
	for (int w = 0; w < FC6_WAYS; w++)
		if (fc_match6(&e->way[w], d, pp)) {
			/* an emptied way's old key matches nothing: it follows the ways in use */
			uint32_t x = (uint32_t)(e->way[w].pp >> FC_PP_BITS);
			return x != FC6_NONE && (*r = x, true);
		}
	return false;
}

/* The key's result r into set's first way, each way moving one on (the last out); not when
 * the set holds it already (a flow's second miss in one vector). An IPv4 set of an older
 * classifier is emptied first. */
static __rte_always_inline void fc_insert(void *set, int f, const uint8_t *d, uint64_t pp,
					  uint64_t gen, uint32_t r)
{
	uint32_t had;
	if (r >= UINT16_MAX /* a result beyond 16 bits: rte_acl each time */ ||
	    fc_find(set, f, d, pp, gen, &had))
		return;
	if (!f) {
		struct fc_set4 *e = set;
		if (e->gen != gen) {
			e->gen = gen;
			for (int w = 1; w < FC4_WAYS; w++)
				e->way[w].pp = FC4_EMPTY;
		} else {
			memmove(&e->way[1], &e->way[0], (FC4_WAYS - 1) * sizeof(e->way[0]));
			memmove(&e->res[1], &e->res[0], (FC4_WAYS - 1) * sizeof(e->res[0]));
		}
		memcpy(&e->way[0].a, d + KOFF(v4.src), 8);
		e->way[0].pp = pp;
		e->res[0] = (uint16_t)r;
	} else {
		struct fc_set6 *e = set;
		if (e->gen != gen) {
			e->gen = gen;
			for (int w = 1; w < FC6_WAYS; w++)
				e->way[w].pp = (uint64_t)FC6_NONE << FC_PP_BITS;
		} else {
			memmove(&e->way[1], &e->way[0], (FC6_WAYS - 1) * sizeof(e->way[0]));
		}
		memcpy(e->way[0].a, d + KOFF(v6.src), 32);
		e->way[0].pp = pp | (uint64_t)r << FC_PP_BITS;
	}
}

/* Family f's cache statistics st told of classifier c: one built since it last looked (an ACL
 * replaced) makes its first lookups all miss, which says nothing of the traffic: no rest,
 * and no window judged until it has made as many lookups as the cache holds. */
static inline void fc_newest(struct fc_stat *st, const struct acl_cls *c, int f)
{
	if (unlikely(c->gen > st->newest)) {
		st->newest = c->gen;
		st->win_look = st->win_hit = st->skip = st->rests = 0;
		st->warm = f ? FC6_WAYS * FC6_SETS : FC4_WAYS * FC4_SETS;
	}
}

/* The cache's key of the input at d (its pp in *kp) and the set of fc it falls in, fetched. */
static __rte_always_inline void *fc_set_of(void *fc, int f, const uint8_t *d, bool fl, uint64_t *kp)
{
	uint64_t h;
	*kp = fc_key(d, f, fl, &h);
	void *set = f ? (void *)&((struct acl_fc6 *)fc)->set[h & (FC6_SETS - 1)]
		      : (void *)&((struct acl_fc4 *)fc)->set[h & (FC4_SETS - 1)];
	rte_prefetch0(set); /* IPv4's set, IPv6's first line (its first way) */
	return set;
}

/* rte_acl's results for cnt inputs of family f of classifier c through the cache fc (not
 * resting), input j's key's pp in kp[j] and its set in set[j] (fc_set_of's): what the sets
 * miss classified by rte_acl and put in; the lookups counted, the windows judged. */
static __rte_always_inline void fc_lookup(void *fc, const struct acl_cls *c, int f,
					  const uint8_t **data, uint32_t *res, uint32_t cnt,
					  const uint64_t *kp, void *const *set)
{
	struct fc_stat *st = fc_stat_of(fc, f);
	uint16_t at[cnt];
	const uint8_t *md[cnt];
	uint32_t mres[cnt], nm = 0;
	const uint64_t gen = c->gen;
	for (uint32_t j = 0; j < cnt; j++) {
		uint32_t r;
		if (likely(fc_find(set[j], f, data[j], kp[j], gen, &r))) {
			res[j] = r;
			continue;
		}
		md[nm] = data[j];
		at[nm++] = (uint16_t)j;
	}
	if (nm) {
		rte_acl_classify(c->ctx[f], md, mres, nm, 1);
		for (uint32_t m = 0; m < nm; m++) {
			res[at[m]] = mres[m];
			fc_insert(set[at[m]], f, md[m], kp[at[m]], gen, mres[m]);
		}
	}
	st->lookups += cnt;
	st->hits += cnt - nm;
	st->win_look += cnt;
	st->win_hit += cnt - nm;
	st->warm = st->warm > cnt ? st->warm - cnt : 0;
	if (st->win_look >= FC_WINDOW) {
		bool poor = st->win_hit * 4 < st->win_look * 3;
		if (poor && !st->warm) {
			st->skip = FC_WINDOW * ((16u << st->rests) - 1);
			st->rests += st->rests < FC_REST_MAX;
		} else if (!poor) {
			st->rests = 0;
		}
		st->win_look = st->win_hit = 0;
	}
}

/* rte_acl's results for cnt inputs of family f of classifier c, through the cache fc. */
static __rte_always_inline void fc_classify(void *fc, const struct acl_cls *c, int f,
					    const uint8_t **data, uint32_t *res, uint32_t cnt)
{
	struct fc_stat *st = fc_stat_of(fc, f);
	fc_newest(st, c, f);
	if (st->skip) {
		st->skip = st->skip > cnt ? st->skip - cnt : 0;
		st->bypassed += cnt;
		rte_acl_classify(c->ctx[f], data, res, cnt, 1);
		return;
	}
	uint64_t kp[cnt];
	void *set[cnt]; /* each input's set */
	const bool fl = c->fl;
	for (uint32_t j = 0; j < cnt; j++)
		set[j] = fc_set_of(fc, f, data[j], fl, &kp[j]);
	fc_lookup(fc, c, f, data, res, cnt, kp, set);
}

/* What the results of classifier c do to a vector's frames, one after the other: a hit
 * counted on worker wid's row, a denial or no match sent to the drop edge, named. The hits
 * of a run of one result (most frames, a rule that permits them) are counted in a register
 * and added once at the run's end (acl_verdicts_end). */
struct acl_verdicts {
	const struct acl_cls *c;
	uint32_t r;      /* the run's result */
	bool pass;       /* whether it permits */
	uint64_t n;      /* its frames so far */
	uint16_t err;
	unsigned wid;
};

static inline void acl_hits_add(const struct acl_verdicts *v)
{
	if (v->r && v->n) {
		const struct acl_ent *en = &v->c->ent[v->r - 1];
		en->hits[v->wid * en->stride] += v->n;
	}
}

static inline void acl_verdict(struct acl_verdicts *v, uint32_t r, struct rte_mbuf *m,
			       uint16_t *next)
{
	if (unlikely(r != v->r)) {
		acl_hits_add(v);
		v->r = r;
		v->n = 0;
		v->pass = r && v->c->ent[r - 1].permit;
	}
	v->n++;
	if (unlikely(!v->pass)) {
		sl_set_error(m, v->err + (r ? AC_ERR_DENY : AC_ERR_NOMATCH));
		*next = AN_NEXT_DROP;
	}
}

static inline void acl_verdicts_end(struct acl_verdicts *v)
{
	acl_hits_add(v);
	v->n = 0;
}

static inline uint16_t acl_ifx(struct rte_mbuf *m, int dir)
{
	return dir ? sl_meta(m)->tx_if : m->port;
}

/* Where a packet of interface ifx goes after the ACL feature in direction dir. */
static inline uint16_t acl_next(uint16_t ifx, int dir)
{
	return dir ? sl_feature_next_out(feat_out, ifx, out_tx0)
		   : sl_feature_next(SL_ARC_DEVICE_INPUT, feat_in, ifx, sl_ifaces[ifx].mode);
}

/* acl_vector's usual run: the frames of interface ifx from objs' first on (up to n), while
 * each is of family f (0 IPv4, 1 IPv6) with its key read in place (key4_in_place,
 * key6_in_place), classified by c (of rte_acl) through the worker's cache fc (not resting),
 * in two loops: the keys read and their sets fetched, then looked up; their nexts next, or
 * the drop edge (v's verdicts). Returns the frames it took (0 when the first is not such a
 * frame: acl_vector's general loop takes it). The run found, the keys read and the sets
 * fetched in one loop, without the general loop's list of each family's frames: an ACL of
 * 1,000 rules 111.7 -> 93.5 instructions a frame, IPv6 124.5 -> 100.3 (make bench-graph's
 * callgrind). f and fl (c->fl): constants. */
static __rte_always_inline uint16_t acl_fast(void **objs, uint16_t n, uint16_t ifx, int dir,
					     const struct acl_cls *c, void *fc,
					     struct acl_verdicts *v, uint16_t *nexts,
					     uint16_t next, const int f, const bool fl)
{
	const uint8_t in_place = key_bit(fl);
	const uint32_t min6 = key6_min(in_place);
	uint64_t kp[n];
	void *set[n];
	const uint8_t *data[n];
	uint32_t res[n], j = 0;
	for (; j < n; j++) {
		const struct rte_mbuf *m = objs[j];
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t len = m->data_len;
		if (acl_ifx((struct rte_mbuf *)m, dir) != ifx || len < 14)
			break;
		uint16_t type = (uint16_t)(p[12] << 8 | p[13]);
		if (!(f ? key6_in_place(p, len, type, in_place, min6, &data[j])
			: key4_in_place(p, len, type, in_place, &data[j])))
			break;
		set[j] = fc_set_of(fc, f, data[j], fl, &kp[j]);
	}
	if (!j)
		return 0;
	fc_newest(fc_stat_of(fc, f), c, f);
	fc_lookup(fc, c, f, data, res, j, kp, set);
	for (uint32_t i = 0; i < j; i++) {
		nexts[i] = next;
		acl_verdict(v, res[i], objs[i], &nexts[i]);
	}
	return (uint16_t)j;
}

/* acl_fast of family f when c has rte_acl's context for it and the worker's cache fc is on and
 * not resting; 0 otherwise. */
static __rte_always_inline uint16_t acl_fast_of(void **objs, uint16_t n, uint16_t ifx, int dir,
						const struct acl_cls *c, void *fc,
						struct acl_verdicts *v, uint16_t *nexts,
						uint16_t next, const int f)
{
	if (!c->ctx[f] || !fc || fc_stat_of(fc, f)->skip ||
	    !__atomic_load_n(&fc_on, __ATOMIC_RELAXED))
		return 0;
	return c->fl ? acl_fast(objs, n, ifx, dir, c, fc, v, nexts, next, f, true)
		     : acl_fast(objs, n, ifx, dir, c, fc, v, nexts, next, f, false);
}

static __rte_always_inline uint16_t acl_vector(struct rte_graph *g, struct rte_node *node, void **objs,
				  uint16_t n, int dir)
{
	unsigned wid = sl_node_worker(node)->id;
	void *fc[2] = {NULL, NULL};
	if (wid < SL_MAX_WORKERS)
		for (int f = 0; f < 2; f++)
			fc[f] = __atomic_load_n(&fc_of[wid][dir][f], __ATOMIC_ACQUIRE);
	uint16_t nexts[n ? n : 1], err = dir ? ao_err : ai_err;
	union acl_key keys[n ? n : 1];
	const uint8_t *data4[n ? n : 1], *data6[n ? n : 1];
	uint32_t res4[n ? n : 1], res6[n ? n : 1];
	uint16_t at4[n ? n : 1], at6[n ? n : 1];
	bool fast = true;
	for (uint16_t s = 0; s < n;) {
		/* a run of packets with one classifier and one next node (one interface's, or
		 * those of interfaces that share their ACLs and features): one call per family */
		uint16_t ifx = acl_ifx(objs[s], dir), e = s + 1, x = ifx;
		uint16_t next = acl_next(ifx, dir);
		const struct acl_cls *c = if_cls(ifx, dir);
		struct acl_verdicts v = {.c = c, .r = UINT32_MAX, .err = err, .wid = wid};
		const uint8_t in_place = c ? key_bit(c->fl) : 0;
		if (c && !c->ctx[0] && !c->ctx[1]) {
			/* linear: each packet matched as read, the run found on the way */
			for (uint16_t i = s; i < n; i++) {
				uint16_t y = acl_ifx(objs[i], dir);
				if (y != x && (if_cls(y, dir) != c ||
					       acl_next(y, dir) != next))
					break;
				x = y;
				e = i + 1;
				const uint8_t *d;
				int k = acl_key(objs[i], &keys[i], in_place, &d);
				nexts[i] = next;
				uint32_t r = 0;
				if (likely(k == 4)) {
					if (c->lin[0])
						r = cls_lin(c, 0, d);
				} else if (!k) {
					continue;
				} else if (c->lin[1]) {
					r = cls_lin(c, 1, d);
				}
				acl_verdict(&v, r, objs[i], &nexts[i]);
			}
			acl_verdicts_end(&v);
			s = e;
			continue;
		}
		/* IPv4, then IPv6, through the cache: the usual run, first (not again in a vector
		 * once a run has ended at another interface's frame: interfaces that share the
		 * classifier and next node, a run of the general loop) */
		if (c && fast) {
			uint16_t k = acl_fast_of(objs + s, n - s, ifx, dir, c, fc[0], &v, nexts + s,
						 next, 0);
			if (!k)
				k = acl_fast_of(objs + s, n - s, ifx, dir, c, fc[1], &v, nexts + s,
						next, 1);
			if (k) {
				acl_verdicts_end(&v);
				s += k;
				fast = s == n || acl_ifx(objs[s], dir) == ifx;
				continue;
			}
		}
		for (; e < n; e++) {
			uint16_t y = acl_ifx(objs[e], dir);
			if (y != x && (if_cls(y, dir) != c ||
				       acl_next(y, dir) != next))
				break;
			x = y;
		}
		uint32_t cnt4 = 0, cnt6 = 0;
		for (unsigned i = s; i < e; i++) {
			nexts[i] = next;
			const uint8_t *d;
			int f = c ? acl_key(objs[i], &keys[i], in_place, &d) : 0;
			if (f == 4) {
				data4[cnt4] = d;
				at4[cnt4++] = (uint16_t)i;
			} else if (f) {
				data6[cnt6] = d;
				at6[cnt6++] = (uint16_t)i;
			}
		}
		for (int f = 0; f < 2; f++) {
			const uint8_t **data = f ? data6 : data4;
			uint32_t *res = f ? res6 : res4, cnt = f ? cnt6 : cnt4;
			const uint16_t *at = f ? at6 : at4;
			if (!cnt)
				continue;
			if (c->ctx[f] && fc[f] && __atomic_load_n(&fc_on, __ATOMIC_RELAXED)) {
				if (!f)
					fc_classify(fc[0], c, 0, data, res, cnt);
				else
					fc_classify(fc[1], c, 1, data, res, cnt);
			} else {
				cls_classify(c, f, data, res, cnt);
			}
			for (unsigned j = 0; j < cnt; j++) {
				unsigned i = at[j];
				acl_verdict(&v, res[j], objs[i], &nexts[i]);
			}
			acl_verdicts_end(&v);
		}
		s = e;
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static uint16_t ai_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return acl_vector(g, node, objs, n, 0);
}

static uint16_t ao_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return acl_vector(g, node, objs, n, 1);
}

static struct rte_node_register ai_node = {
	.name = "acl-input",
	.process = ai_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {[AN_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(ai_node)

static struct rte_node_register ao_node = {
	.name = "acl-output",
	.process = ao_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {[AN_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(ao_node)

/* ---- classifiers ---- */

static void cls_free(struct acl_cls *c)
{
	if (!c)
		return;
	rte_acl_free(c->ctx[0]);
	rte_acl_free(c->ctx[1]);
	rte_free(c->lin[0]);
	rte_free(c->lin[1]);
	rte_free(c->lin4);
	rte_free(c->lin6);
	rte_free(c);
}

static void cls_retire(void *p, uintptr_t x)
{
	(void)x;
	cls_free(p);
}

static void acl_free(struct acl *a)
{
	if (!a)
		return;
	rte_free(a->hits);
	rte_free(a);
}

static void acl_retire(void *p, uintptr_t x)
{
	(void)x;
	acl_free(p);
}

static uint32_t mask_bits(int len)
{
	return (uint32_t)(len <= 0 ? 0 : len >= 32 ? 32 : len);
}

/* Rule r at place pos as rte_acl's rule of family fam, into d (an IPv4 rule is a prefix of
 * the IPv6 one: both are proto, the source's and the destination's 32-bit words, the ports
 * and the flags, in that order). */
static void rule_fill(struct acl6_rule *d, const struct acl_rule *r, uint32_t pos, int fam)
{
	int nw = fam == 4 ? 1 : 4;
	struct rte_acl_field *f = d->field;
	memset(d, 0, sizeof(*d));
	d->data.category_mask = 1;
	d->data.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - pos);
	d->data.userdata = pos + 1;
	f[0].value.u8 = r->proto;
	f[0].mask_range.u8 = r->proto ? 0xff : 0;
	for (int k = 0; k < nw; k++) {
		uint32_t a;
		memcpy(&a, r->src + 4 * k, 4);
		f[1 + k].value.u32 = ntohl(a);
		f[1 + k].mask_range.u32 = mask_bits(r->src_len - 32 * k);
		memcpy(&a, r->dst + 4 * k, 4);
		f[1 + nw + k].value.u32 = ntohl(a);
		f[1 + nw + k].mask_range.u32 = mask_bits(r->dst_len - 32 * k);
	}
	f[1 + 2 * nw].value.u16 = r->sport[0];
	f[1 + 2 * nw].mask_range.u16 = r->sport[1];
	f[2 + 2 * nw].value.u16 = r->dport[0];
	f[2 + 2 * nw].mask_range.u16 = r->dport[1];
	f[3 + 2 * nw].value.u32 = r->flags;
	f[3 + 2 * nw].mask_range.u32 = r->fmask;
}

/* Rule r at place pos as the linear matcher's rule of family fam, into d. */
static void lin_fill(struct acl_lin *d, const struct acl_rule *r, uint32_t pos, int fam)
{
	memset(d, 0, sizeof(*d));
	for (int k = 0; k < (fam == 4 ? 1 : 4); k++) {
		uint32_t sb = mask_bits(r->src_len - 32 * k), db = mask_bits(r->dst_len - 32 * k);
		d->smask[k] = htonl(sb ? ~0u << (32 - sb) : 0);
		d->dmask[k] = htonl(db ? ~0u << (32 - db) : 0);
		memcpy(&d->src[k], r->src + 4 * k, 4); /* host bits clear already */
		memcpy(&d->dst[k], r->dst + 4 * k, 4);
	}
	d->proto = r->proto;
	d->pmask = r->proto ? 0xff : 0;
	memcpy(d->sport, r->sport, sizeof(d->sport));
	memcpy(d->dport, r->dport, sizeof(d->dport));
	d->flags = r->flags;
	d->fmask = r->fmask;
	d->res = pos + 1;
}

#ifdef SL_ACL_LIN4
/* Rule l's protocol, flags and port ranges in bytes 12-13 and lanes 4-5 of x, with IPv4's
 * addresses in bytes 0-7 when v4. */
static void lin_x_fill(struct lin_x *x, const struct acl_lin *l, bool v4)
{
	uint8_t v[16] = {0}, m[16] = {0};
	uint16_t lo[8] = {0}, hi[8] = {0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff};
	if (v4) {
		memcpy(v, &l->src[0], 4);
		memcpy(m, &l->smask[0], 4);
		memcpy(v + 4, &l->dst[0], 4);
		memcpy(m + 4, &l->dmask[0], 4);
	}
	v[12] = l->proto; /* within its mask (0 or 0xff) */
	m[12] = l->pmask;
	v[13] = l->flags; /* within its mask: parse_rule refuses others */
	m[13] = l->fmask;
	lo[4] = l->sport[0], hi[4] = l->sport[1];
	lo[5] = l->dport[0], hi[5] = l->dport[1];
	x->v = _mm_loadu_si128((const __m128i *)v);
	x->m = _mm_loadu_si128((const __m128i *)m);
	x->lo = _mm_loadu_si128((const __m128i *)lo);
	x->hi = _mm_loadu_si128((const __m128i *)hi);
}
#endif

/* The IPv4 rule l (lin_fill's) as lin4_match reads it, into d. */
static void lin4_fill(struct acl_lin4 *d, const struct acl_lin *l)
{
	memset(d, 0, sizeof(*d));
	d->res = l->res;
#ifdef SL_ACL_LIN4
	lin_x_fill(&d->x, l, true);
#endif
}

/* The IPv6 rule l (lin_fill's) as lin6_match reads it, into d. */
static void lin6_fill(struct acl_lin6 *d, const struct acl_lin *l)
{
	memset(d, 0, sizeof(*d));
	d->res = l->res;
#ifdef SL_ACL_LIN4
	d->sv = _mm_loadu_si128((const __m128i *)l->src);
	d->sm = _mm_loadu_si128((const __m128i *)l->smask);
	d->dv = _mm_loadu_si128((const __m128i *)l->dst);
	d->dm = _mm_loadu_si128((const __m128i *)l->dmask);
	lin_x_fill(&d->x, l, false);
#endif
}

/* One family's rte_acl context over nr rules of nf fields at rules, or NULL (why set). */
static struct rte_acl_ctx *ctx_build(const void *rules, uint32_t nr, int fam, int nf,
				     char *why, size_t wlen)
{
	char name[RTE_ACL_NAMESIZE];
	snprintf(name, sizeof(name), "sl-acl%d-%u", fam, ctx_gen++);
	struct rte_acl_param prm = {.name = name, .socket_id = SOCKET_ID_ANY,
				    .rule_size = RTE_ACL_RULE_SZ(nf), .max_rule_num = nr};
	struct rte_acl_ctx *ctx = rte_acl_create(&prm);
	if (!ctx) {
		snprintf(why, wlen, "rte_acl_create: %s", rte_strerror(rte_errno));
		return NULL;
	}
	struct rte_acl_config cfg = {.num_categories = 1, .num_fields = (uint32_t)nf};
	memcpy(cfg.defs, fam == 4 ? defs4 : defs6, nf * sizeof(cfg.defs[0]));
	int rc = rte_acl_add_rules(ctx, rules, nr);
	if (!rc)
		rc = rte_acl_build(ctx, &cfg);
	if (rc) {
		snprintf(why, wlen, "rte_acl could not build the classifier: %s", strerror(-rc));
		rte_acl_free(ctx);
		return NULL;
	}
	return ctx;
}

/* The classifier of ACLs list[0..nacl) (each exists), or NULL with the reason in o. */
static struct acl_cls *cls_build(struct sl_out *o, const uint16_t *list, uint8_t nacl)
{
	uint32_t n = 0;
	for (int k = 0; k < nacl; k++)
		n += acls[list[k]]->n;
	if (n > SL_ACL_RULES) {
		sl_out_error(o, "%u rules on one interface direction: %u at most", n, SL_ACL_RULES);
		return NULL;
	}
	struct acl_cls *c = rte_zmalloc("sl_acl_cls", sizeof(*c) + n * sizeof(c->ent[0]),
					RTE_CACHE_LINE_SIZE);
	/* the flags field only where a rule has tcpflags: rules are then of nf fields */
	bool fl = false;
	for (int k = 0; k < nacl; k++)
		for (uint32_t i = 0; i < acls[list[k]]->n; i++)
			fl |= acls[list[k]]->r[i].fmask != 0;
	int nf4 = fl ? F4_NB : F4_NB - 1, nf6 = fl ? F6_NB : F6_NB - 1;
	size_t sz4 = RTE_ACL_RULE_SZ(nf4), sz6 = RTE_ACL_RULE_SZ(nf6);
	uint8_t *r4 = malloc(n * sz4 + 1), *r6 = malloc(n * sz6 + 1);
	struct acl6_rule t;
	uint32_t n4 = 0, n6 = 0, pos = 0;
	char why[160] = "out of memory";
	if (!c || !r4 || !r6)
		goto fail;
	c->fl = fl;
	c->gen = ++cls_gens;
	c->nacl = nacl;
	memcpy(c->acl, list, nacl * sizeof(list[0]));
	c->n = n;
	/* each family's rules: linear when few */
	uint32_t nf[2] = {0, 0};
	for (int k = 0; k < nacl; k++)
		for (uint32_t i = 0; i < acls[list[k]]->n; i++) {
			nf[0] += acls[list[k]]->r[i].family != 6;
			nf[1] += acls[list[k]]->r[i].family != 4;
		}
	for (int f = 0; f < 2; f++)
		if (nf[f] && nf[f] <= linear_max &&
		    !(c->lin[f] = rte_zmalloc("sl_acl_lin", nf[f] * sizeof(struct acl_lin),
					      RTE_CACHE_LINE_SIZE)))
			goto fail;
	if (c->lin[0] && !(c->lin4 = rte_zmalloc("sl_acl_lin4", nf[0] * sizeof(struct acl_lin4),
						  RTE_CACHE_LINE_SIZE)))
		goto fail;
	if (c->lin[1] && !(c->lin6 = rte_zmalloc("sl_acl_lin6", nf[1] * sizeof(struct acl_lin6),
						  RTE_CACHE_LINE_SIZE)))
		goto fail;
	for (int k = 0; k < nacl; k++) {
		struct acl *a = acls[list[k]];
		for (uint32_t i = 0; i < a->n; i++, pos++) {
			const struct acl_rule *r = &a->r[i];
			c->ent[pos] = (struct acl_ent){r->permit, hits_row(a->n), a->hits + i};
			if (r->family != 6 && c->lin[0]) {
				lin_fill(&c->lin[0][c->nlin[0]], r, pos, 4);
				lin4_fill(&c->lin4[c->nlin[0]], &c->lin[0][c->nlin[0]]);
				c->nlin[0]++;
			} else if (r->family != 6) {
				rule_fill(&t, r, pos, 4);
				memcpy(r4 + sz4 * n4++, &t, sz4);
			}
			if (r->family != 4 && c->lin[1]) {
				lin_fill(&c->lin[1][c->nlin[1]], r, pos, 6);
				lin6_fill(&c->lin6[c->nlin[1]], &c->lin[1][c->nlin[1]]);
				c->nlin[1]++;
			} else if (r->family != 4) {
				rule_fill(&t, r, pos, 6);
				memcpy(r6 + sz6 * n6++, &t, sz6);
			}
		}
	}
	if (n4 && !(c->ctx[0] = ctx_build(r4, n4, 4, nf4, why, sizeof(why))))
		goto fail;
	if (n6 && !(c->ctx[1] = ctx_build(r6, n6, 6, nf6, why, sizeof(why))))
		goto fail;
	free(r4);
	free(r6);
	return c;
fail:
	free(r4);
	free(r6);
	cls_free(c);
	sl_out_error(o, "%s", why);
	return NULL;
}

/* The live classifier of that list of ACLs, or one built (not yet counted as used); NULL
 * with the reason in o. */
static struct acl_cls *cls_get(struct sl_out *o, const uint16_t *list, uint8_t nacl)
{
	for (struct acl_cls *c = cls_live; c; c = c->next)
		if (c->nacl == nacl && !memcmp(c->acl, list, nacl * sizeof(list[0])))
			return c;
	struct acl_cls *c = cls_build(o, list, nacl);
	if (c) {
		c->next = cls_live;
		cls_live = c;
	}
	return c;
}

/* c used by one interface direction fewer: unlinked and retired with its last. */
static void cls_put(struct acl_cls *c)
{
	if (!c || --c->refs)
		return;
	for (struct acl_cls **p = &cls_live; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	sl_rcu_retire(cls_retire, c, 0);
}

/* Publishes c (from cls_get) for (ifx, dir) and lets go of what was there. */
static void cls_publish(uint16_t ifx, int dir, struct acl_cls *c)
{
	struct acl_cls *old = if_cls(ifx, dir);
	if (c)
		c->refs++;
	for (int f = 0; c && f < 2; f++)
		if (c->ctx[f])
			fc_alloc(dir, f);
	__atomic_store_n(&sl_if_fast[ifx].slot[cls_slot[dir]], c, __ATOMIC_RELEASE);
	cls_put(old);
}


/* ---- control ---- */

uint32_t sl_acl_count(void)
{
	uint32_t n = 0;
	for (int i = 0; i < SL_ACLS; i++)
		n += acls[i] != NULL;
	return n;
}

uint32_t sl_acl_applied(void)
{
	uint32_t n = 0;
	for (int i = 0; i < SL_ACLS; i++)
		n += acl_users[i];
	return n;
}

/* "A" or "A-B" into r[0..1] */
static int parse_range(struct sl_out *o, const char *what, const char *s, uint16_t r[2])
{
	char *end;
	if (!s)
		return sl_out_error(o, "%s needs a port (or ICMP type/code) or a range A-B", what);
	unsigned long a = strtoul(s, &end, 10), b = a;
	if (end != s && *end == '-') {
		const char *t = end + 1;
		b = strtoul(t, &end, 10);
		if (end == t)
			end = (char *)s; /* "A-" */
	}
	if (end == s || *end || s[0] == '-' || a > 65535 || b > 65535 || a > b)
		return sl_out_error(o, "%s '%s': a number 0-65535 or a range A-B with A <= B", what,
				    s);
	r[0] = (uint16_t)a;
	r[1] = (uint16_t)b;
	return 0;
}

static int parse_prefix(struct sl_out *o, const char *what, const char *s, uint8_t ip[16],
			uint8_t *len, uint8_t *fam)
{
	if (!s)
		return sl_out_error(o, "%s needs a prefix", what);
	memset(ip, 0, 16);
	if (strchr(s, ':')) {
		if (sl_arg_prefix6(o, s, ip, len))
			return -1;
		*fam = 6;
	} else {
		uint32_t a;
		if (sl_arg_prefix4(o, s, &a, len))
			return -1;
		a = *len ? a & (uint32_t)(~0ull << (32 - *len)) : 0;
		a = htonl(a);
		memcpy(ip, &a, 4);
		*fam = 4;
		return 0;
	}
	for (int b = *len; b < 128; b++) /* host bits clear */
		ip[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
	return 0;
}

/* One rule from argv[0..argc) (argv[0]: its action). */
static int parse_rule(struct sl_out *o, int argc, char **argv, struct acl_rule *r, int no)
{
	memset(r, 0, sizeof(*r));
	r->sport[1] = r->dport[1] = 65535;
	if (!argc)
		return sl_out_error(o, "rule %d is empty (rules are separated by commas)", no);
	const char *act = argv[0];
	int i = 1;
	if (!strcmp(act, "permit")) {
		r->permit = 1;
	} else if (!strcmp(act, "deny")) {
		r->permit = 0;
	} else if (!strcmp(act, "action") && argc > 1 &&
		   (!strcmp(argv[1], "0") || !strcmp(argv[1], "1"))) {
		r->permit = argv[1][0] == '1';
		i = 2;
	} else if (!strcmp(act, "permit+reflect") || !strcmp(act, "action")) {
		return sl_out_error(o, "rule %d: '%s%s%s': Sluice's ACLs are stateless: permit "
				    "(action 1) or deny (action 0)", no, act, argc > 1 ? " " : "",
				    argc > 1 && !strcmp(act, "action") ? argv[1] : "");
	} else {
		return sl_out_error(o, "rule %d starts with '%s': permit or deny first", no, act);
	}
	uint8_t sfam = 0, dfam = 0;
	bool has[6] = {0};
	for (; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		static const char *const keys[] = {"src", "dst", "proto", "sport", "dport",
						   "tcpflags"};
		int key = 0;
		while (key < 6 && strcmp(k, keys[key]))
			key++;
		if (key == 6)
			return sl_out_error(o, "rule %d: unknown word '%s' (src, dst, proto, sport, "
					    "dport, tcpflags V mask M)", no, k);
		if (has[key])
			return sl_out_error(o, "rule %d: %s given twice", no, k);
		has[key] = true;
		uint32_t u;
		switch (key) {
		case 0:
			if (parse_prefix(o, "src", v, r->src, &r->src_len, &sfam))
				return -1;
			break;
		case 1:
			if (parse_prefix(o, "dst", v, r->dst, &r->dst_len, &dfam))
				return -1;
			break;
		case 2:
			if (sl_arg_u32(o, "proto", v, 0, 255, &u))
				return -1;
			r->proto = (uint8_t)u;
			break;
		case 3:
			if (parse_range(o, "sport", v, r->sport))
				return -1;
			break;
		case 4:
			if (parse_range(o, "dport", v, r->dport))
				return -1;
			break;
		case 5:
			if (sl_arg_u32(o, "tcpflags", v, 0, 255, &u))
				return -1;
			r->flags = (uint8_t)u;
			if (i + 3 >= argc || strcmp(argv[i + 2], "mask"))
				return sl_out_error(o, "rule %d: tcpflags V mask M", no);
			if (sl_arg_u32(o, "tcpflags mask", argv[i + 3], 0, 255, &u))
				return -1;
			r->fmask = (uint8_t)u;
			if (r->flags & ~r->fmask)
				return sl_out_error(o, "rule %d: tcpflags %u has bits outside its mask "
						    "%u: no packet could match", no, r->flags,
						    r->fmask);
			i += 2;
			break;
		}
	}
	if (sfam && dfam && sfam != dfam)
		return sl_out_error(o, "rule %d: src and dst of different families", no);
	r->family = sfam ? sfam : dfam;
	return 0;
}

/* argv[0..argc) split at commas (a word of its own or the end of one) into rules. */
static struct acl *parse_acl(struct sl_out *o, int argc, char **argv)
{
	uint32_t cap = 1;
	for (int i = 0; i < argc; i++)
		cap += strchr(argv[i], ',') != NULL;
	if (cap > SL_ACL_RULES)
		return sl_out_error(o, "%u rules: %u at most", cap, SL_ACL_RULES), NULL;
	struct acl *a = rte_zmalloc("sl_acl", sizeof(*a) + cap * sizeof(a->r[0]),
				    RTE_CACHE_LINE_SIZE);
	if (!a)
		return sl_out_error(o, "out of memory"), NULL;
	int start = 0;
	for (int i = 0; i <= argc; i++) {
		bool end = i == argc;
		if (!end) {
			char *comma = strchr(argv[i], ',');
			if (!comma)
				continue;
			if (comma[1]) {
				sl_out_error(o, "'%s': a comma ends a rule (\"..., deny ...\")",
					     argv[i]);
				goto fail;
			}
			*comma = 0;
		}
		/* the rule is argv[start..i], argv[i] included unless it was only "," or the end */
		int len = i - start + (!end && argv[i][0] ? 1 : 0);
		if (end && len == 0 && a->n)
			break; /* a trailing comma */
		if (parse_rule(o, len, argv + start, &a->r[a->n], (int)a->n + 1))
			goto fail;
		a->n++;
		start = i + 1;
	}
	a->hits = rte_zmalloc("sl_acl_hits",
			      (size_t)SL_MAX_WORKERS * hits_row(a->n) * sizeof(uint64_t),
			      RTE_CACHE_LINE_SIZE);
	if (!a->hits) {
		sl_out_error(o, "out of memory");
		goto fail;
	}
	return a;
fail:
	acl_free(a);
	return NULL;
}

static bool cls_uses(const struct acl_cls *c, uint32_t idx)
{
	for (int k = 0; c && k < c->nacl; k++)
		if (c->acl[k] == idx)
			return true;
	return false;
}

/* Every live classifier that uses ACL idx (all of them: UINT32_MAX) built anew, each
 * published in place of the old one only once all are built: 0, or -1 with the reason in o
 * and nothing changed. */
static int cls_rebuild(struct sl_out *o, uint32_t idx)
{
	struct acl_cls **built = NULL, **was = NULL;
	uint32_t nb = 0, cap = 0;
	int rc = 0;
	for (struct acl_cls *c = cls_live; c; c = c->next) {
		if (idx != UINT32_MAX && !cls_uses(c, idx))
			continue;
		if (nb == cap) {
			cap = cap ? 2 * cap : 8;
			struct acl_cls **nb1 = realloc(built, cap * sizeof(*built));
			struct acl_cls **nb2 = nb1 ? realloc(was, cap * sizeof(*was)) : NULL;
			built = nb1 ? nb1 : built;
			was = nb2 ? nb2 : was;
			if (!nb1 || !nb2) {
				rc = sl_out_error(o, "out of memory");
				break;
			}
		}
		was[nb] = c;
		if (!(built[nb] = cls_build(o, c->acl, c->nacl))) {
			rc = -1;
			break;
		}
		nb++;
	}
	if (rc) {
		for (uint32_t k = 0; k < nb; k++)
			cls_free(built[k]);
	}
	for (uint32_t k = 0; !rc && k < nb; k++) { /* each user of the old one to the new one */
		built[k]->next = cls_live;
		cls_live = built[k];
		uint32_t users = was[k]->refs;
		for (uint32_t x = 0; users && x < sl_if_hwm * 2; x++) /* interfaces in use */
			if (if_cls((uint16_t)(x / 2), x % 2) == was[k]) {
				cls_publish((uint16_t)(x / 2), x % 2, built[k]);
				users--;
			}
	}
	free(built);
	free(was);
	return rc;
}

static int cmd_set_acl(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set acl-plugin acl [index N] permit|deny [src PREFIX] "
				    "[dst PREFIX] [proto P] [sport A-B] [dport A-B] [tcpflags V "
				    "mask M], ... [tag T]";
	uint32_t idx = UINT32_MAX;
	const char *tag = NULL;
	int first = 0;
	if (argc >= 2 && !strcmp(argv[0], "index")) {
		if (sl_arg_u32(o, "index", argv[1], 0, SL_ACLS - 1, &idx))
			return -1;
		first = 2;
	}
	/* tag T: last, as VPP prints it */
	if (argc - first >= 2 && !strcmp(argv[argc - 2], "tag")) {
		tag = argv[argc - 1];
		if (strlen(tag) >= sizeof(((struct acl *)0)->tag))
			return sl_out_error(o, "tag too long (63 characters at most)");
		argc -= 2;
	}
	if (argc == first)
		return sl_out_error(o, "%s", usage);
	struct acl *a = parse_acl(o, argc - first, argv + first);
	if (!a)
		return -1;
	if (tag)
		snprintf(a->tag, sizeof(a->tag), "%s", tag);
	if (idx == UINT32_MAX) { /* a new ACL: the lowest free index */
		for (idx = 0; idx < SL_ACLS && acls[idx]; idx++)
			;
		if (idx == SL_ACLS) {
			acl_free(a);
			return sl_out_error(o, "%d ACLs already, the most there are", SL_ACLS);
		}
	}
	struct acl *old = acls[idx];
	acls[idx] = a; /* workers read classifiers only: none sees it before they are built */
	if (old && acl_users[idx] && cls_rebuild(o, idx)) { /* nothing published */
		acls[idx] = old;
		acl_free(a);
		return -1;
	}
	if (old)
		sl_rcu_retire(acl_retire, old, 0); /* after the classifiers that counted into it */
	sl_out_msg(o, "ACL index: %u", idx);
	return 0;
}
SL_CLI_COMMAND(acl_set, .path = "set acl-plugin acl",
	       .usage = "[index N] permit|deny [src PREFIX] [dst PREFIX] [proto P] [sport A-B] "
			"[dport A-B] [tcpflags V mask M], ... [tag T]",
	       .help = "an ACL (stateless; rules separated by commas, the first match wins); "
		       "with the index of an ACL it replaces it (on every interface at once)",
	       .fn = cmd_set_acl)

static int cmd_linear(struct sl_out *o, int argc, char **argv)
{
	uint32_t v;
	if (argc != 1)
		return sl_out_error(o, "usage: set acl-plugin linear-max N (0-%d)", SL_ACL_LINEAR_MAX);
	if (sl_arg_u32(o, "linear-max", argv[0], 0, SL_ACL_LINEAR_MAX, &v))
		return -1;
	uint32_t was = linear_max;
	linear_max = v;
	if (v != was && cls_rebuild(o, UINT32_MAX)) {
		linear_max = was;
		return -1;
	}
	return 0;
}
SL_CLI_COMMAND(acl_linear, .path = "set acl-plugin linear-max", .usage = "N",
	       .help = "an interface direction's rules of one family are matched one by one when "
		       "N or fewer (8; up to 64), else by rte_acl's tries; 0: rte_acl always",
	       .fn = cmd_linear)

static int cmd_flow_cache(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "on") && strcmp(argv[0], "off")))
		return sl_out_error(o, "usage: set acl-plugin flow-cache on|off");
	/* a classifier's entries stay right while it is off: nothing to flush */
	__atomic_store_n(&fc_on, !strcmp(argv[0], "on"), __ATOMIC_RELAXED);
	return 0;
}
SL_CLI_COMMAND(acl_flow_cache, .path = "set acl-plugin flow-cache", .usage = "on|off",
	       .help = "each worker's cache of 5-tuple -> rule in front of rte_acl (on; rules "
		       "matched linearly do not use it)",
	       .fn = cmd_flow_cache)

static int cmd_show_fc(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show acl-plugin flow-cache");
	bool on = __atomic_load_n(&fc_on, __ATOMIC_RELAXED);
	sl_tbl_begin(o, "acl-flow-cache", 7,
		     (const char *[]){"worker:u", "direction", "family", "state", "lookups:u",
				      "hits:u", "bypassed:u"});
	for (unsigned w = 0; w < SL_MAX_WORKERS; w++)
		for (int x = 0; x < 4; x++) {
			void *fc = fc_of[w][x / 2][x % 2];
			if (!fc)
				continue;
			const struct fc_stat *st = fc_stat_of(fc, x % 2);
			char v[4][24];
			snprintf(v[0], sizeof(v[0]), "%u", w);
			snprintf(v[1], sizeof(v[1]), "%" PRIu64, st->lookups);
			snprintf(v[2], sizeof(v[2]), "%" PRIu64, st->hits);
			snprintf(v[3], sizeof(v[3]), "%" PRIu64, st->bypassed);
			/* resting: its last window found too little (rte_acl alone for a while) */
			sl_tbl_row(o, v[0], x / 2 ? "output" : "input", x % 2 ? "ipv6" : "ipv4",
				   !on ? "off" : st->skip ? "resting" : "on", v[1], v[2], v[3]);
		}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(acl_show_fc, .path = "show acl-plugin flow-cache", .usage = "",
	       .help = "the ACL flow cache of each worker, direction and family: packets "
		       "looked up, found, and classified by rte_acl alone while it rested (none "
		       "before a classifier uses rte_acl)",
	       .fn = cmd_show_fc)

static int cmd_delete_acl(struct sl_out *o, int argc, char **argv)
{
	uint32_t idx;
	if (argc != 2 || strcmp(argv[0], "index"))
		return sl_out_error(o, "usage: delete acl-plugin acl index N");
	if (sl_arg_u32(o, "index", argv[1], 0, SL_ACLS - 1, &idx))
		return -1;
	if (!acls[idx])
		return sl_out_error(o, "no ACL %u", idx);
	if (acl_users[idx])
		return sl_out_error(o, "ACL %u is applied to %u interface direction(s) (set "
				    "acl-plugin interface IFACE input|output acl %u del)", idx,
				    acl_users[idx], idx);
	struct acl *a = acls[idx];
	acls[idx] = NULL;
	sl_rcu_retire(acl_retire, a, 0); /* a classifier retired just now may still count */
	return 0;
}
SL_CLI_COMMAND(acl_delete, .path = "delete acl-plugin acl", .usage = "index N",
	       .help = "deletes an ACL that no interface uses", .fn = cmd_delete_acl)

int sl_acl_find(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s && !*end && v < SL_ACLS && acls[v])
		return (int)v;
	for (int i = 0; i < SL_ACLS; i++)
		if (acls[i] && acls[i]->tag[0] && !strcmp(acls[i]->tag, s))
			return i;
	return -1;
}

static int cmd_set_if(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set acl-plugin interface IFACE input|output acl N "
				    "[del]";
	if ((argc != 4 && argc != 5) || (strcmp(argv[1], "input") && strcmp(argv[1], "output")) ||
	    strcmp(argv[2], "acl") || (argc == 5 && strcmp(argv[4], "del")))
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	uint32_t idx;
	if (sl_arg_u32(o, "acl", argv[3], 0, SL_ACLS - 1, &idx))
		return -1;
	return sl_acl_if_apply(o, f->port, argv[1][0] == 'o', idx, argc == 5);
}

int sl_acl_if_apply(struct sl_out *o, uint16_t ifx, int dir, uint32_t idx, bool del)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	if (idx >= SL_ACLS || !acls[idx])
		return sl_out_error(o, "no ACL %u", idx);
	const char *dname = dir ? "output" : "input";
	enum sl_arc_id arc = dir ? SL_ARC_INTERFACE_OUTPUT : SL_ARC_DEVICE_INPUT;
	const char *feat = dir ? "acl-output" : "acl-input";
	uint16_t list[SL_ACL_PER_IF];
	const struct acl_cls *cur = if_cls(ifx, dir);
	uint8_t n = 0;
	bool there = cls_uses(cur, idx);
	for (int k = 0; cur && k < cur->nacl; k++)
		if (cur->acl[k] != idx)
			list[n++] = cur->acl[k];
	char why[160] = "";
	if (del) {
		if (!there)
			return sl_out_error(o, "ACL %u is not applied to %s %s", idx, f->name, dname);
		if (!n) { /* the last one: the feature goes off, and its hook lets go */
			sl_feature_set(ifx, arc, feat, false, why, sizeof(why));
			return 0;
		}
		struct acl_cls *c = cls_get(o, list, n);
		if (!c)
			return -1;
		cls_publish(ifx, dir, c);
		acl_users[idx]--;
		return 0;
	}
	if (there)
		return sl_out_error(o, "ACL %u is already applied to %s %s", idx, f->name, dname);
	if (n == SL_ACL_PER_IF)
		return sl_out_error(o, "%s %s has %d ACLs, the most there are", f->name, dname,
				    SL_ACL_PER_IF);
	list[n++] = (uint16_t)idx;
	struct acl_cls *c = cls_get(o, list, n);
	if (!c)
		return -1;
	bool was_on = cur != NULL;
	cls_publish(ifx, dir, c);
	acl_users[idx]++;
	if (!was_on && sl_feature_set(ifx, arc, feat, true, why, sizeof(why))) {
		acl_users[idx]--;
		cls_publish(ifx, dir, NULL);
		return sl_out_error(o, "cannot filter %s: %s", f->name, why);
	}
	return 0;
}
SL_CLI_COMMAND(acl_set_if, .path = "set acl-plugin interface",
	       .usage = "IFACE input|output acl N [del]",
	       .help = "applies an ACL to what IFACE receives (before its mode) or sends, after "
		       "the ACLs already there (first match wins; no match: denied)",
	       .fn = cmd_set_if)

static void fmt_prefix(char *buf, size_t len, const struct acl_rule *r, int dst)
{
	const uint8_t *ip = dst ? r->dst : r->src;
	uint8_t plen = dst ? r->dst_len : r->src_len;
	char a[INET6_ADDRSTRLEN];
	if (r->family == 0) {
		snprintf(buf, len, "any");
		return;
	}
	inet_ntop(r->family == 4 ? AF_INET : AF_INET6, ip, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, plen);
}

static int cmd_show_acl(struct sl_out *o, int argc, char **argv)
{
	uint32_t only = UINT32_MAX;
	if (argc != 0 && (argc != 2 || strcmp(argv[0], "index")))
		return sl_out_error(o, "usage: show acl-plugin acl [index N]");
	if (argc == 2) {
		if (sl_arg_u32(o, "index", argv[1], 0, SL_ACLS - 1, &only))
			return -1;
		if (!acls[only])
			return sl_out_error(o, "no ACL %u", only);
	}
	sl_tbl_begin(o, "acl-rules", 12,
		     (const char *[]){"acl:u", "tag", "rule:u", "action", "src", "dst", "proto:u",
				      "sport", "dport", "tcpflags:u", "tcpflags-mask:u", "hits:u"});
	for (uint32_t i = 0; i < SL_ACLS; i++) {
		const struct acl *a = acls[i];
		if (!a || (only != UINT32_MAX && i != only))
			continue;
		for (uint32_t j = 0; j < a->n; j++) {
			const struct acl_rule *r = &a->r[j];
			char v[10][64];
			uint64_t hits = 0;
			for (unsigned w = 0; w < SL_MAX_WORKERS; w++)
				hits += a->hits[(size_t)w * hits_row(a->n) + j];
			snprintf(v[0], 64, "%u", i);
			snprintf(v[1], 64, "%u", j);
			fmt_prefix(v[2], 64, r, 0);
			fmt_prefix(v[3], 64, r, 1);
			snprintf(v[4], 64, "%u", r->proto);
			snprintf(v[5], 64, "%u-%u", r->sport[0], r->sport[1]);
			snprintf(v[6], 64, "%u-%u", r->dport[0], r->dport[1]);
			snprintf(v[7], 64, "%u", r->flags);
			snprintf(v[8], 64, "%u", r->fmask);
			snprintf(v[9], 64, "%" PRIu64, hits);
			sl_tbl_row(o, v[0], a->tag, v[1], r->permit ? "permit" : "deny", v[2], v[3],
				   v[4], v[5], v[6], v[7], v[8], v[9]);
		}
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(acl_show, .path = "show acl-plugin acl", .usage = "[index N]",
	       .help = "ACLs: each rule and its hits (src/dst 'any': a rule of both families)",
	       .fn = cmd_show_acl)

static int cmd_show_if(struct sl_out *o, int argc, char **argv)
{
	const struct sl_iface *only = NULL;
	if (argc > 1)
		return sl_out_error(o, "usage: show acl-plugin interface [IFACE]");
	if (argc == 1 && !(only = sl_iface_by_name(argv[0])))
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	sl_tbl_begin(o, "acl-interfaces", 6,
		     (const char *[]){"interface", "direction", "acls", "rules:u", "ipv4", "ipv6"});
	for (uint32_t x = 0; x < sl_if_hwm * 2; x++) { /* interfaces ever used */
		const struct acl_cls *c = if_cls((uint16_t)(x / 2), x % 2);
		if (!c || (only && only->port != x / 2))
			continue;
		char list[SL_ACL_PER_IF * 6 + 1] = "", n[16];
		for (int k = 0; k < c->nacl; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u",
				 k ? "," : "", c->acl[k]);
		snprintf(n, sizeof(n), "%u", c->n);
		const char *how[2];
		for (int f = 0; f < 2; f++)
			how[f] = c->lin[f] ? "linear" : c->ctx[f] ? "rte_acl" : "-";
		sl_tbl_row(o, sl_ifaces[x / 2].name, x % 2 ? "output" : "input", list, n, how[0],
			   how[1]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(acl_show_if, .path = "show acl-plugin interface", .usage = "[IFACE]",
	       .help = "the ACLs applied to each interface direction, in order", .fn = cmd_show_if)

/* The features' hook: on only through set acl-plugin interface (the classifier is published
 * first); off, however it goes (the last ACL's del, set interface feature ... disable, the
 * interface deleted), the interface lets go of its ACLs. */
static int acl_hook(uint16_t ifx, bool on, char *why, size_t len, int dir)
{
	struct acl_cls *c = if_cls(ifx, dir);
	if (on) {
		if (c)
			return 0;
		snprintf(why, len, "acl-%s is turned on by set acl-plugin interface %s %s acl N",
			 dir ? "output" : "input", sl_ifaces[ifx].name, dir ? "output" : "input");
		return -1;
	}
	for (int k = 0; c && k < c->nacl; k++)
		acl_users[c->acl[k]]--;
	if (c)
		cls_publish(ifx, dir, NULL);
	return 0;
}

static int hook_in(uint16_t ifx, bool on, char *why, size_t len)
{
	return acl_hook(ifx, on, why, len, 0);
}

static int hook_out(uint16_t ifx, bool on, char *why, size_t len)
{
	return acl_hook(ifx, on, why, len, 1);
}

static void acl_fini(void)
{
	for (uint32_t i = 0; i < sl_if_hwm; i++) /* every index ever used */
		for (int d = 0; d < 2; d++)
			sl_if_fast[i].slot[cls_slot[d]] = NULL;
	fc_free();
	while (cls_live) {
		struct acl_cls *c = cls_live;
		cls_live = c->next;
		cls_free(c);
	}
	for (int i = 0; i < SL_ACLS; i++) {
		acl_free(acls[i]);
		acls[i] = NULL;
		acl_users[i] = 0;
	}
}

static int acl_init(const struct sl_config *c)
{
	(void)c;
	return 0;
}

SL_MODULE_REGISTER(acl_module, .name = "acl", .init = acl_init, .fini = acl_fini)

RTE_INIT(acl_ctor)
{
	ai_err = sl_error_register("acl-input", ac_reasons, AC_NB_ERR);
	ao_err = sl_error_register("acl-output", ac_reasons, AC_NB_ERR);
	feat_in = sl_feature_register(SL_ARC_DEVICE_INPUT, "acl-input", "acl-input");
	feat_out = sl_feature_register(SL_ARC_INTERFACE_OUTPUT, "acl-output", "acl-output");
	cls_slot[0] = sl_if_slot_register("acl-input");
	cls_slot[1] = sl_if_slot_register("acl-output");
	sl_iface_tx_user("acl-output", &out_tx0);
	sl_feature_hook(SL_ARC_DEVICE_INPUT, feat_in, hook_in);
	sl_feature_hook(SL_ARC_INTERFACE_OUTPUT, feat_out, hook_out);
}
