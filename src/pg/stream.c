/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet-generator streams: the definition grammar (VPP's packet-generator new { ... }) and
 * the building of each packet from the stream's template. No DPDK state: unit-tested and
 * fuzzed on its own. */
#include "pg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_thash.h>

#define NOFF UINT16_MAX
#define PCAP_MAX_PKTS 65536

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end || x > max)
		return -1;
	*v = x;
	return 0;
}

/* "A-B", "A" or "A - B" (three tokens); returns tokens used or -1 */
static int num_range(char **argv, int argc, int i, uint64_t max, uint64_t *a, uint64_t *b)
{
	char tmp[64];
	if (i >= argc || strlen(argv[i]) >= sizeof(tmp))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s", argv[i]);
	char *dash = strchr(tmp, '-');
	if (dash && dash != tmp) {
		*dash = 0;
		if (num(tmp, max, a) || num(dash + 1, max, b) || *b < *a)
			return -1;
		return 1;
	}
	if (num(tmp, max, a))
		return -1;
	*b = *a;
	if (i + 2 < argc && !strcmp(argv[i + 1], "-")) {
		if (num(argv[i + 2], max, b) || *b < *a)
			return -1;
		return 3;
	}
	return 1;
}

/* an IPv4 or IPv6 address, optionally "- END", or a prefix "ADDR/LEN" (every address in it);
 * then optionally "random". start and span (the last address's offset from the first) as
 * 128-bit numbers: an IPv6 range may cross /64s. */
typedef unsigned __int128 u128;
struct addr_range {
	int family;
	uint8_t a[16];
	u128 start, span;
	bool random;
};

static u128 addr_num(const uint8_t *a, int family)
{
	u128 v = 0;
	for (int i = 0; i < (family == AF_INET ? 4 : 16); i++)
		v = v << 8 | a[i];
	return v;
}

/* "random" after a range: returns 1 and marks it, else 0 */
static int opt_random(char **argv, int argc, int i, bool *random)
{
	*random = i < argc && !strcmp(argv[i], "random");
	return *random;
}

static int addr_prefix(const char *tok, struct addr_range *r)
{
	char tmp[64];
	uint64_t len;
	if (strlen(tok) >= sizeof(tmp))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s", tok);
	char *sl = strchr(tmp, '/');
	*sl = 0;
	int bits = r->family == AF_INET ? 32 : 128;
	if (num(sl + 1, (uint64_t)bits, &len) || inet_pton(r->family, tmp, r->a) != 1)
		return -1;
	unsigned host = (unsigned)(bits - (int)len); /* 0..128 */
	r->span = host >= 128 ? ~(u128)0 : ((u128)1 << host) - 1;
	r->start = addr_num(r->a, r->family) & ~r->span;
	for (int k = 0, n = bits / 8; k < n; k++) /* the first address */
		r->a[k] = (uint8_t)(r->start >> (8 * (n - 1 - k)));
	return 0;
}

static int addr_range(char **argv, int argc, int i, struct addr_range *r)
{
	uint8_t b[16];
	if (i >= argc)
		return -1;
	r->family = strchr(argv[i], ':') ? AF_INET6 : AF_INET;
	r->random = false;
	if (strchr(argv[i], '/')) {
		if (addr_prefix(argv[i], r) < 0)
			return -1;
		return 1 + opt_random(argv, argc, i + 1, &r->random);
	}
	if (inet_pton(r->family, argv[i], r->a) != 1)
		return -1;
	r->start = addr_num(r->a, r->family);
	r->span = 0;
	if (i + 2 < argc && !strcmp(argv[i + 1], "-")) {
		if (inet_pton(r->family, argv[i + 2], b) != 1)
			return -1;
		u128 end = addr_num(b, r->family);
		if (end < r->start)
			return -1;
		r->span = end - r->start;
		return 3 + opt_random(argv, argc, i + 3, &r->random);
	}
	return 1;
}

static inline void put_be(uint8_t *p, uint64_t v, int width)
{
	if (width == 2) {
		uint16_t x = rte_cpu_to_be_16((uint16_t)v);
		memcpy(p, &x, 2);
	} else if (width == 4) {
		uint32_t x = rte_cpu_to_be_32((uint32_t)v);
		memcpy(p, &x, 4);
	} else {
		uint64_t x = rte_cpu_to_be_64(v);
		memcpy(p, &x, 8);
	}
}

static int add_field(struct sl_pg_stream *s, uint16_t off, int width, uint64_t start, uint64_t count,
		     bool random, char *err, size_t el)
{
	if (count <= 1)
		return 0;
	if (s->nfields == SL_PG_MAX_FIELDS)
		return fail(err, el, "at most %d ranges in a stream", SL_PG_MAX_FIELDS);
	s->f[s->nfields++] = (struct sl_pg_field){.off = off, .width = (uint8_t)width,
						   .random = random, .start = start,
						   .count = count};
	return 0;
}

/* An address range's field at addr (4 or 16 bytes): an IPv4 range, or an IPv6 one within
 * one /64, on the fast 4- or 8-byte path; an IPv6 range across /64s on 16 bytes. */
static int add_addr_field(struct sl_pg_stream *s, uint16_t addr, const struct addr_range *r,
			  char *err, size_t el)
{
	if (r->family == AF_INET)
		return add_field(s, addr, 4, (uint64_t)r->start, (uint64_t)r->span + 1, r->random,
				 err, el);
	if (r->start >> 64 == (r->start + r->span) >> 64) /* a whole /64: all but its last */
		return add_field(s, (uint16_t)(addr + 8), 8, (uint64_t)r->start,
				 r->span >= UINT64_MAX ? UINT64_MAX : (uint64_t)r->span + 1,
				 r->random, err, el);
	int rc = add_field(s, addr, 16, 0, 2, r->random, err, el);
	if (rc == 0) {
		s->f[s->nfields - 1].start128 = r->start;
		s->f[s->nfields - 1].span128 = r->span;
		s->wide = true;
	}
	return rc;
}

/* Lengths and checksums of a built packet. */
static void fix(const struct sl_pg_stream *s, uint8_t *p, uint16_t len)
{
	if (s->l3_off == NOFF)
		return;
	void *ip = p + s->l3_off, *l4 = s->l4_off == NOFF ? NULL : p + s->l4_off;
	if (s->ip_version == 4) {
		struct rte_ipv4_hdr *h = ip;
		h->total_length = rte_cpu_to_be_16((uint16_t)(len - s->l3_off));
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		struct rte_ipv6_hdr *h = ip;
		h->payload_len = rte_cpu_to_be_16((uint16_t)(len - s->l3_off - sizeof(*h)));
	}
	if (s->l4_proto != IPPROTO_UDP && s->l4_proto != IPPROTO_TCP)
		return;
	if (s->l4_proto == IPPROTO_UDP)
		((struct rte_udp_hdr *)l4)->dgram_len = rte_cpu_to_be_16((uint16_t)(len - s->l4_off));
	uint8_t *ck = (uint8_t *)l4 + (s->l4_proto == IPPROTO_UDP
					       ? offsetof(struct rte_udp_hdr, dgram_cksum)
					       : offsetof(struct rte_tcp_hdr, cksum));
	uint16_t c = 0;
	memcpy(ck, &c, 2);
	c = s->ip_version == 4 ? rte_ipv4_udptcp_cksum(ip, l4) : rte_ipv6_udptcp_cksum(ip, l4);
	memcpy(ck, &c, 2);
}

/* What replacing the 16-bit word was by now (both as memory holds them) adds to a checksum. */
static inline uint32_t word_diff(uint16_t now, uint16_t was)
{
	return (uint32_t)now + (uint16_t)~was;
}

/* The same for a field of width bytes going to value now, from the one's complement sum of
 * the old value's 16-bit pieces (not_was), computed from the values: reading back the bytes
 * just stored would stall store-to-load forwarding. */
static inline uint32_t value_diff(uint64_t now, uint32_t not_was, int width)
{
	uint64_t d = not_was + (now & 0xffff);
	if (width >= 4)
		d += now >> 16 & 0xffff;
	if (width == 8)
		d += (now >> 32 & 0xffff) + (now >> 48);
	d = (d & 0xffff) + (d >> 16);
	d = (d & 0xffff) + (d >> 16);
	d = (d & 0xffff) + (d >> 16);
	return rte_bswap16((uint16_t)d); /* a big-endian field: its words as memory holds them */
}

/* A packet shorter than the template (which is size_max long): its IP and UDP lengths, and
 * what they change in the checksums (the payload is zeros: its length alone does not). */
static void set_lengths(const struct sl_pg_stream *s, uint8_t *p, uint16_t len, uint32_t *d_ip,
			uint32_t *d_l4)
{
	uint8_t *ip = p + s->l3_off;
	uint16_t was, now;
	if (s->ip_version == 4) {
		uint8_t *tl = ip + offsetof(struct rte_ipv4_hdr, total_length);
		memcpy(&was, tl, 2);
		now = rte_cpu_to_be_16((uint16_t)(len - s->l3_off));
		memcpy(tl, &now, 2);
		*d_ip += word_diff(now, was);
	} else {
		now = rte_cpu_to_be_16((uint16_t)(len - s->l3_off - sizeof(struct rte_ipv6_hdr)));
		memcpy(ip + offsetof(struct rte_ipv6_hdr, payload_len), &now, 2);
	}
	if (s->l4_off == NOFF)
		return;
	/* the pseudo-header's upper-layer length, and UDP's own length field */
	uint16_t l4was = rte_cpu_to_be_16((uint16_t)(s->size_max - s->l4_off));
	uint16_t l4now = rte_cpu_to_be_16((uint16_t)(len - s->l4_off));
	uint32_t d = word_diff(l4now, l4was);
	*d_l4 += d;
	if (s->l4_proto == IPPROTO_UDP) {
		memcpy(p + s->l4_off + offsetof(struct rte_udp_hdr, dgram_len), &l4now, 2);
		*d_l4 += d;
	}
}

/* copies in whole 64-byte blocks: the template and the frame buffer are padded to them */
static inline void copy_blocks(uint8_t *dst, const uint8_t *src, uint16_t len)
{
	for (uint16_t o = 0; o < len; o += 64)
		memcpy(dst + o, src + o, 64);
}

/* A value in [0, count) from packet seq and field f: splitmix64, then scaled without a
 * division (Lemire). Deterministic, so a stream's packets can be checked. */
static inline uint64_t scaled_hash(uint64_t seq, int f, uint64_t count)
{
	uint64_t z = seq * 0x9e3779b97f4a7c15ull + (uint64_t)f * 0xd1b54a32d192ed03ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint64_t)(((unsigned __int128)z * count) >> 64);
}

/* A 16-byte field's value for packet seq (pos: its sequential offset, stepped here) and
 * what it adds to the checksums, from not_start as value_diff's. Out of the fast loop: only
 * streams with an IPv6 range across /64s come here. */
static uint32_t put_wide(const struct sl_pg_field *fl, uint64_t seq, int f, u128 *pos, uint32_t not_start,
			 uint8_t *p)
{
	u128 off;
	if (fl->random) {
		u128 z = (u128)scaled_hash(seq, f, UINT64_MAX) << 64 |
			 scaled_hash(seq, f + SL_PG_MAX_FIELDS, UINT64_MAX);
		off = fl->span128 == ~(u128)0 ? z : z % (fl->span128 + 1);
	} else {
		off = *pos;
		*pos = off == fl->span128 ? 0 : off + 1;
	}
	u128 v = fl->start128 + off;
	uint64_t d = not_start;
	for (int k = 0; k < 16; k += 2) {
		uint16_t w = (uint16_t)(v >> (8 * (14 - k)));
		p[k] = (uint8_t)(w >> 8);
		p[k + 1] = (uint8_t)w;
		d += w;
	}
	d = (d & 0xffff) + (d >> 16);
	d = (d & 0xffff) + (d >> 16);
	return rte_bswap16((uint16_t)d);
}

/* Packets whose fields or size vary; one_size (a constant where it is inlined) drops the
 * size logic for the common stream of one size. */
static inline __attribute__((always_inline)) void
build_vary(const struct sl_pg_stream *s, uint64_t seq, uint8_t *const *bufs, uint16_t *lens,
	   uint16_t n, const bool one_size, const bool wide)
{
	/* Everything the loop reads, in locals: the packet bytes it writes may alias any
	 * uint8_t, so fields read through s would be loaded again after every store. */
	const int nf = s->nfields;
	struct {
		uint64_t start, count, pos;
		u128 pos128;          /* width 16 */
		uint32_t not_start;   /* the one's complement of the start value's 16-bit pieces */
		uint16_t off;
		uint8_t width;
		bool random, in_ip;
	} fc[SL_PG_MAX_FIELDS];
	const bool ip4 = s->ip_version == 4 && s->l3_off != NOFF, l4 = s->l4_off != NOFF;
	const bool l4ck = l4 && (s->l4_proto == IPPROTO_UDP || s->l4_proto == IPPROTO_TCP);
	const bool udp = s->l4_proto == IPPROTO_UDP;
	const uint16_t *mix = s->mix, nmix = s->nmix;
	const uint16_t ip_ck = (uint16_t)(s->l3_off + offsetof(struct rte_ipv4_hdr, hdr_checksum));
	const uint16_t l4_ck = (uint16_t)(s->l4_off + (udp ? 6 : 16));
	const uint16_t size_min = s->size_min, size_max = s->size_max;
	const uint8_t *tmpl = s->tmpl;
	for (int f = 0; f < nf; f++) {
		const struct sl_pg_field *fl = &s->f[f];
		fc[f].start = fl->start;
		fc[f].count = fl->count;
		fc[f].pos = fl->random ? 0 : seq % fl->count; /* one division per field and burst */
		fc[f].off = fl->off;
		fc[f].width = fl->width;
		fc[f].random = fl->random;
		fc[f].in_ip = ip4 && (!l4 || fl->off < s->l4_off); /* else ports, or the pseudo-header */
		fc[f].not_start = 0;
		if (wide && fl->width == 16) {
			fc[f].pos128 = fl->random ? 0 : fl->span128 == ~(u128)0
								? seq
								: seq % (fl->span128 + 1);
			for (int k = 0; k < 16; k += 2)
				fc[f].not_start += (uint16_t)~(fl->start128 >> (8 * k));
			continue;
		}
		for (int k = 0; k < fl->width; k += 2)
			fc[f].not_start += (uint16_t)~(fl->start >> (8 * k));
	}
	uint32_t span = nmix ? nmix : (uint32_t)(size_max - size_min) + 1;
	uint32_t sz = (uint32_t)(seq % span);
	for (uint16_t i = 0; i < n; i++) {
		uint16_t len = size_max;
		if (!one_size) {
			len = nmix ? mix[sz] : (uint16_t)(size_min + sz);
			if (++sz == span)
				sz = 0;
		}
		uint8_t *p = bufs[i];
		copy_blocks(p, tmpl, len);
		/* the template's checksums, brought up to date (RFC 1624) */
		uint32_t d_ip = 0, d_l4 = 0;
		for (int f = 0; f < nf; f++) {
			uint64_t v;
			if (wide && fc[f].width == 16) {
				uint32_t d = put_wide(&s->f[f], seq + i, f, &fc[f].pos128,
						      fc[f].not_start, p + fc[f].off);
				d_l4 += d; /* an IPv6 address: in the pseudo-header only */
				continue;
			}
			if (fc[f].random) {
				v = fc[f].start + scaled_hash(seq + i, f, fc[f].count);
			} else {
				v = fc[f].start + fc[f].pos;
				if (++fc[f].pos == fc[f].count)
					fc[f].pos = 0;
			}
			put_be(p + fc[f].off, v, fc[f].width);
			uint32_t d = value_diff(v, fc[f].not_start, fc[f].width);
			d_l4 += d;
			if (fc[f].in_ip)
				d_ip += d;
		}
		if (!one_size && len != size_max && s->l3_off != NOFF)
			set_lengths(s, p, len, &d_ip, &d_l4);
		if (ip4)
			sl_pg_cksum_add(p + ip_ck, d_ip, false);
		if (l4ck)
			sl_pg_cksum_add(p + l4_ck, d_l4, udp);
		lens[i] = len;
	}
}

void sl_pg_build_burst(const struct sl_pg_stream *s, uint64_t seq, uint8_t *const *bufs,
		       uint16_t *lens, uint16_t n)
{
	if (s->npcap) {
		uint32_t k = (uint32_t)(seq % s->npcap);
		for (uint16_t i = 0; i < n; i++) {
			copy_blocks(bufs[i], s->pcap_pkts[k], s->pcap_lens[k]);
			lens[i] = s->pcap_lens[k];
			if (++k == s->npcap)
				k = 0;
		}
		return;
	}
	if (!s->vary) {
		for (uint16_t i = 0; i < n; i++) {
			copy_blocks(bufs[i], s->tmpl, s->size_min);
			lens[i] = s->size_min;
		}
		return;
	}
	if (s->wide) /* rare: no specialisation of its own for one size */
		build_vary(s, seq, bufs, lens, n, false, true);
	else if (s->size_min == s->size_max && !s->nmix)
		build_vary(s, seq, bufs, lens, n, true, false);
	else
		build_vary(s, seq, bufs, lens, n, false, false);
}

uint16_t sl_pg_build(const struct sl_pg_stream *s, uint64_t seq, uint8_t *buf)
{
	uint16_t len;
	sl_pg_build_burst(s, seq, &buf, &len, 1);
	return len;
}

/* rte_softrss reads the key as 32-bit words */
static const uint8_t rss_key[40] __attribute__((aligned(4))) = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static inline uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool sl_pg_rss(const uint8_t *p, uint16_t len, bool eth, uint32_t *hash)
{
	uint32_t off = 0, type = 0, t[9], nw;
	if (eth) {
		off = RTE_ETHER_HDR_LEN;
		if (len < off)
			return false;
		type = (uint32_t)p[12] << 8 | p[13];
		for (int tags = 0; tags < 2 && (type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ);
		     tags++) {
			if (len < off + 4)
				return false;
			type = (uint32_t)p[off + 2] << 8 | p[off + 3];
			off += 4;
		}
	} else if (len) {
		type = p[0] >> 4 == 6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
	}
	const uint8_t *ip = p + off;
	uint32_t room = len - off, l4;
	uint8_t proto;
	bool ports;
	if (type == RTE_ETHER_TYPE_IPV4) {
		if (room < sizeof(struct rte_ipv4_hdr) || ip[0] >> 4 != 4)
			return false;
		t[0] = be32_at(ip + 12);
		t[1] = be32_at(ip + 16);
		nw = 2;
		l4 = (ip[0] & 15u) * 4;
		proto = ip[9];
		ports = !((ip[6] & 0x3f) | ip[7]); /* neither MF nor an offset */
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		if (room < sizeof(struct rte_ipv6_hdr) || ip[0] >> 4 != 6)
			return false;
		for (int k = 0; k < 8; k++)
			t[k] = be32_at(ip + 8 + 4 * k);
		nw = 8;
		l4 = sizeof(struct rte_ipv6_hdr);
		proto = ip[6];
		ports = true;
	} else {
		return false;
	}
	if (ports && (proto == IPPROTO_TCP || proto == IPPROTO_UDP) && room >= l4 + 4)
		t[nw++] = be32_at(ip + l4);
	*hash = rte_softrss(t, nw, rss_key);
	return true;
}

void sl_pg_free(struct sl_pg_stream *s)
{
	free(s->tmpl);
	for (uint32_t i = 0; i < s->npcap; i++)
		free(s->pcap_pkts[i]);
	free(s->pcap_pkts);
	free(s->pcap_lens);
	free(s->mix);
	s->mix = NULL;
	s->nmix = 0;
	s->tmpl = NULL;
	s->pcap_pkts = NULL;
	s->pcap_lens = NULL;
	s->npcap = 0;
}

static uint32_t rd32(const uint8_t *b, bool swap)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static int load_pcap(struct sl_pg_stream *s, const char *path, char *err, size_t el)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, el, "pcap %s: %s", path, strerror(errno));
	uint8_t gh[24], rh[16];
	int rc = -1;
	if (fread(gh, 1, 24, f) != 24) {
		fail(err, el, "pcap %s: no pcap header", path);
		goto out;
	}
	uint32_t magic = rd32(gh, false);
	bool swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	if (!swap && magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
		fail(err, el, "pcap %s: not a pcap file (pcapng is not read)", path);
		goto out;
	}
	if (rd32(gh + 20, swap) != 1) {
		fail(err, el, "pcap %s: link type %u, not Ethernet", path, rd32(gh + 20, swap));
		goto out;
	}
	while (fread(rh, 1, 16, f) == 16) {
		uint32_t incl = rd32(rh + 8, swap);
		if (incl == 0 || incl > SL_PG_MAX_FRAME) {
			fail(err, el, "pcap %s: packet %u is %u bytes (1 to %u)", path, s->npcap + 1,
			     incl, SL_PG_MAX_FRAME);
			goto out;
		}
		if (s->npcap == PCAP_MAX_PKTS) {
			fail(err, el, "pcap %s: more than %u packets", path, PCAP_MAX_PKTS);
			goto out;
		}
		if ((s->npcap & (s->npcap - 1)) == 0) { /* grow at powers of two */
			uint32_t cap = s->npcap ? s->npcap * 2 : 1;
			uint8_t **pk = realloc(s->pcap_pkts, cap * sizeof(*pk));
			if (pk)
				s->pcap_pkts = pk;
			uint16_t *ln = realloc(s->pcap_lens, cap * sizeof(*ln));
			if (ln)
				s->pcap_lens = ln;
			if (!pk || !ln) {
				fail(err, el, "out of memory");
				goto out;
			}
		}
		uint8_t *pkt = calloc(1, RTE_ALIGN_CEIL(incl, 64));
		if (!pkt || fread(pkt, 1, incl, f) != incl) {
			free(pkt);
			fail(err, el, "pcap %s: packet %u is truncated", path, s->npcap + 1);
			goto out;
		}
		s->pcap_pkts[s->npcap] = pkt;
		s->pcap_lens[s->npcap++] = (uint16_t)incl;
	}
	if (s->npcap == 0)
		fail(err, el, "pcap %s: no packets", path);
	else
		rc = 0;
out:
	fclose(f);
	return rc;
}

/* The data { ... } block: argv[i..end) */
static int parse_data(struct sl_pg_stream *s, char **argv, int i, int end, uint8_t *hdr,
		      uint16_t *hlen, char *err, size_t el)
{
	int eth_type = 0;
	uint8_t ttl = 64, tcp_flags = RTE_TCP_ACK_FLAG;
	struct addr_range src = {0}, dst = {0};
	bool have_l3 = false, have_l4 = false;
	uint64_t sp0 = 0, sp1 = 0, dp0 = 0, dp1 = 0;
	bool sp_rand = false, dp_rand = false;
	uint16_t vlan = 0;
	bool have_vlan = false, have_eth = false;
	struct rte_ether_addr smac, dmac;
	uint8_t proto = 0;
	while (i < end) {
		const char *k = argv[i];
		if (!strcmp(k, "IP4:") || !strcmp(k, "IP6:")) {
			if (have_eth || have_l3)
				return fail(err, el, "'%s' must come first, once", k);
			if (i + 3 >= end + 0 || strcmp(argv[i + 2], "->") ||
			    rte_ether_unformat_addr(argv[i + 1], &smac) ||
			    rte_ether_unformat_addr(argv[i + 3], &dmac))
				return fail(err, el, "usage: %s SRC-MAC -> DST-MAC [vlan ID]", k);
			eth_type = k[2] == '4' ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
			have_eth = true;
			i += 4;
			if (i + 1 < end && !strcmp(argv[i], "vlan")) {
				uint64_t v;
				if (num(argv[i + 1], 4095, &v))
					return fail(err, el, "vlan must be 0 to 4095, not '%s'", argv[i + 1]);
				vlan = (uint16_t)v;
				have_vlan = true;
				i += 2;
			}
		} else if (!strcmp(k, "UDP:") || !strcmp(k, "TCP:")) {
			uint8_t p = k[0] == 'U' ? IPPROTO_UDP : IPPROTO_TCP;
			if (!have_l3) {
				int n = addr_range(argv, end, i + 1, &src), m;
				if (n < 0 || i + 1 + n >= end || strcmp(argv[i + 1 + n], "->") ||
				    (m = addr_range(argv, end, i + 2 + n, &dst)) < 0 ||
				    dst.family != src.family)
					return fail(err, el,
						    "usage: %s SRC-IP[/LEN] [- SRC-IP] [random] -> "
						    "DST-IP[/LEN] [- DST-IP] [random] [ttl N] (both "
						    "IPv4 or both IPv6)",
						    k);
				have_l3 = true;
				proto = p;
				i += 2 + n + m;
				if (i + 1 < end && !strcmp(argv[i], "ttl")) {
					uint64_t v;
					if (num(argv[i + 1], 255, &v))
						return fail(err, el, "ttl must be 0 to 255, not '%s'",
							    argv[i + 1]);
					ttl = (uint8_t)v;
					i += 2;
				}
			} else if (!have_l4) {
				if (p != proto)
					return fail(err, el, "the ports line says %s but the IP line said %s",
						    k, proto == IPPROTO_UDP ? "UDP:" : "TCP:");
				int n = num_range(argv, end, i + 1, 65535, &sp0, &sp1), m;
				if (n >= 0)
					n += opt_random(argv, end, i + 1 + n, &sp_rand);
				if (n < 0 || i + 1 + n >= end || strcmp(argv[i + 1 + n], "->") ||
				    (m = num_range(argv, end, i + 2 + n, 65535, &dp0, &dp1)) < 0)
					return fail(err, el,
						    "usage: %s SRC-PORT[-END] [random] -> DST-PORT[-END] "
						    "[random] (0 to 65535)",
						    k);
				m += opt_random(argv, end, i + 2 + n + m, &dp_rand);
				have_l4 = true;
				i += 2 + n + m;
				if (p == IPPROTO_TCP && i + 1 < end && !strcmp(argv[i], "flags")) {
					uint64_t v;
					if (num(argv[i + 1], 255, &v))
						return fail(err, el, "flags must be 0 to 255, not '%s'",
							    argv[i + 1]);
					tcp_flags = (uint8_t)v;
					i += 2;
				}
			} else {
				return fail(err, el, "one IP line and one ports line at most");
			}
		} else {
			return fail(err, el, "unknown data '%s' (IP4:, IP6:, UDP:, TCP:)", k);
		}
	}
	if (!have_l3)
		return fail(err, el, "data needs an IP line (UDP: SRC -> DST or TCP: SRC -> DST)");
	if (have_eth && (eth_type == RTE_ETHER_TYPE_IPV4) != (src.family == AF_INET))
		return fail(err, el, "the Ethernet line's IP4:/IP6: does not match the addresses");
	/* the headers, with every range at its start */
	uint16_t off = 0;
	s->ip_version = src.family == AF_INET ? 4 : 6;
	s->l4_proto = have_l4 ? proto : 0;
	if (have_eth) {
		struct rte_ether_hdr *eh = (struct rte_ether_hdr *)hdr;
		eh->dst_addr = dmac;
		eh->src_addr = smac;
		off = sizeof(*eh);
		if (have_vlan) {
			eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
			struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(hdr + off);
			vh->vlan_tci = rte_cpu_to_be_16(vlan);
			vh->eth_proto = rte_cpu_to_be_16((uint16_t)eth_type);
			off += sizeof(*vh);
		} else {
			eh->ether_type = rte_cpu_to_be_16((uint16_t)eth_type);
		}
	}
	s->l3_off = off;
	int alen = s->ip_version == 4 ? 4 : 16;
	uint16_t sa, da;
	if (s->ip_version == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(hdr + off);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->time_to_live = ttl;
		ip->next_proto_id = have_l4 ? proto : IPPROTO_UDP;
		if (!have_l4)
			ip->next_proto_id = 253; /* RFC 3692 experimental: no ports line */
		sa = (uint16_t)(off + offsetof(struct rte_ipv4_hdr, src_addr));
		da = (uint16_t)(off + offsetof(struct rte_ipv4_hdr, dst_addr));
		off += sizeof(*ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(hdr + off);
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->hop_limits = ttl;
		ip->proto = have_l4 ? proto : 253;
		sa = (uint16_t)(off + offsetof(struct rte_ipv6_hdr, src_addr));
		da = (uint16_t)(off + offsetof(struct rte_ipv6_hdr, dst_addr));
		off += sizeof(*ip);
	}
	memcpy(hdr + sa, src.a, alen);
	memcpy(hdr + da, dst.a, alen);
	if (add_addr_field(s, sa, &src, err, el) || add_addr_field(s, da, &dst, err, el))
		return -1;
	s->l4_off = NOFF;
	if (have_l4) {
		s->l4_off = off;
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(hdr + off);
		u->src_port = rte_cpu_to_be_16((uint16_t)sp0);
		u->dst_port = rte_cpu_to_be_16((uint16_t)dp0);
		if (add_field(s, off, 2, sp0, sp1 - sp0 + 1, sp_rand, err, el) ||
		    add_field(s, (uint16_t)(off + 2), 2, dp0, dp1 - dp0 + 1, dp_rand, err, el))
			return -1;
		if (proto == IPPROTO_TCP) {
			struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(hdr + off);
			t->data_off = 5 << 4;
			t->tcp_flags = tcp_flags;
			t->rx_win = rte_cpu_to_be_16(65535);
			off += sizeof(*t);
		} else {
			off += sizeof(*u);
		}
	}
	*hlen = off;
	return 0;
}

static int set_mix(struct sl_pg_stream *s, const uint16_t *sizes, unsigned n, char *err, size_t el)
{
	free(s->mix);
	s->mix = malloc(n * sizeof(*s->mix));
	if (!s->mix)
		return fail(err, el, "out of memory");
	memcpy(s->mix, sizes, n * sizeof(*s->mix));
	s->nmix = (uint16_t)n;
	return 0;
}

/* "S:W,S:W,...": up to 8 sizes with weights; one cycle is each size W times, interleaved by
 * smooth weighted round robin (every size as evenly spread as its weight allows). */
static int parse_mix(struct sl_pg_stream *s, const char *text, uint64_t *smin, uint64_t *smax,
		     char *err, size_t el)
{
	enum { MAX_SIZES = 8 };
	uint64_t size[MAX_SIZES], weight[MAX_SIZES], total = 0;
	unsigned n = 0;
	char tmp[256];
	if (strlen(text) >= sizeof(tmp))
		return fail(err, el, "size mix: too long");
	snprintf(tmp, sizeof(tmp), "%s", text);
	*smin = UINT64_MAX;
	*smax = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(t, ':');
		if (n == MAX_SIZES)
			return fail(err, el, "size mix: at most %d sizes", MAX_SIZES);
		if (!colon || (*colon = 0, num(t, SL_PG_MAX_FRAME, &size[n])) ||
		    num(colon + 1, SL_PG_MAX_MIX, &weight[n]) || !weight[n])
			return fail(err, el, "size mix takes SIZE:WEIGHT pairs (sizes up to %u bytes, "
				    "weights 1 to %u), not '%s'", SL_PG_MAX_FRAME, SL_PG_MAX_MIX, text);
		total += weight[n];
		*smin = RTE_MIN(*smin, size[n]);
		*smax = RTE_MAX(*smax, size[n]);
		n++;
	}
	if (!n || total > SL_PG_MAX_MIX)
		return fail(err, el, "size mix: %s", n ? "the weights add up to more than 1024"
							 : "no sizes");
	uint16_t cycle[SL_PG_MAX_MIX];
	int64_t cur[MAX_SIZES] = {0};
	for (uint64_t k = 0; k < total; k++) {
		unsigned best = 0;
		for (unsigned j = 0; j < n; j++) {
			cur[j] += (int64_t)weight[j];
			if (cur[j] > cur[best])
				best = j;
		}
		cur[best] -= (int64_t)total;
		cycle[k] = (uint16_t)size[best];
	}
	return set_mix(s, cycle, (unsigned)total, err, el);
}

int sl_pg_parse(struct sl_pg_stream *s, int argc, char **argv, char *err, size_t el)
{
	uint8_t hdr[128] = {0};
	uint16_t hlen = 0;
	int data_from = -1, data_to = -1;
	bool have_size = false;
	uint64_t smin = 64, smax = 64, v;
	memset(s, 0, sizeof(*s));
	s->l3_off = s->l4_off = NOFF;
	snprintf(s->node, sizeof(s->node), "ethernet-input");
	if (argc < 2 || strcmp(argv[0], "{") || strcmp(argv[argc - 1], "}"))
		return fail(err, el, "usage: packet-generator new { name S [limit N] [rate PPS] "
				     "[size MIN[-MAX]] [worker W] interface IFACE [node NODE] "
				     "data { ... } | pcap FILE }");
	for (int i = 1; i < argc - 1;) {
		const char *k = argv[i], *a = i + 1 < argc - 1 ? argv[i + 1] : NULL;
		if (!strcmp(k, "data")) {
			if (!a || strcmp(a, "{"))
				return fail(err, el, "data must be followed by { ... }");
			int j = i + 2;
			while (j < argc - 1 && strcmp(argv[j], "}"))
				j++;
			if (j == argc - 1)
				return fail(err, el, "data { ... } is not closed");
			data_from = i + 2;
			data_to = j;
			i = j + 1;
			continue;
		}
		if (!a)
			return fail(err, el, "'%s' needs a value", k);
		if (!strcmp(k, "name")) {
			if (strlen(a) >= sizeof(s->name))
				return fail(err, el, "name is longer than %zu", sizeof(s->name) - 1);
			snprintf(s->name, sizeof(s->name), "%s", a);
		} else if (!strcmp(k, "limit")) {
			if (num(a, UINT64_MAX, &s->limit))
				return fail(err, el, "limit must be a packet count (0: no limit), not '%s'", a);
		} else if (!strcmp(k, "rate")) {
			char *end;
			double r = strtod(a, &end);
			if (*end || !(r >= 0) || r > 1e10)
				return fail(err, el, "rate must be packets/s from 0 (as fast as possible) "
						     "to 1e10, not '%s'", a);
			s->rate = (uint64_t)r;
		} else if (!strcmp(k, "size") && !strcmp(a, "imix")) {
			static const uint16_t imix[12] = {60, 60, 566, 60, 60, 566, 60, 1514, 60, 566, 60, 566};
			if (set_mix(s, imix, 12, err, el))
				return -1;
			smin = 60;
			smax = 1514;
			have_size = true;
		} else if (!strcmp(k, "size") && !strcmp(a, "mix")) {
			if (i + 2 >= argc || parse_mix(s, argv[i + 2], &smin, &smax, err, el))
				return i + 2 >= argc ? fail(err, el, "usage: size mix SIZE:WEIGHT[,SIZE:WEIGHT...]")
						     : -1;
			have_size = true;
			i += 3;
			continue;
		} else if (!strcmp(k, "size")) {
			int n = num_range(argv, argc - 1, i + 1, SL_PG_MAX_FRAME, &smin, &smax);
			free(s->mix); /* the last size setting holds */
			s->mix = NULL;
			s->nmix = 0;
			if (n < 0)
				return fail(err, el, "size must be MIN[-MAX] bytes up to %u, not '%s'",
					    SL_PG_MAX_FRAME, a);
			have_size = true;
			i += 1 + n;
			continue;
		} else if (!strcmp(k, "worker")) {
			if (num(a, 65535, &v))
				return fail(err, el, "worker must be a number, not '%s'", a);
			s->worker = (uint16_t)v;
		} else if (!strcmp(k, "interface")) {
			snprintf(s->ifname, sizeof(s->ifname), "%s", a);
		} else if (!strcmp(k, "node")) {
			snprintf(s->node, sizeof(s->node), "%s", a);
		} else if (!strcmp(k, "pcap")) {
			if (s->npcap)
				return fail(err, el, "one pcap per stream");
			if (load_pcap(s, a, err, el))
				return -1;
			snprintf(s->source, sizeof(s->source), "%s", a);
		} else {
			return fail(err, el, "unknown stream setting '%s'", k);
		}
		i += 2;
	}
	if (!s->name[0])
		return fail(err, el, "the stream needs a name");
	if (strcmp(s->node, "ethernet-input") && strcmp(s->node, "ip4-input"))
		return fail(err, el, "node '%s': a stream starts at ethernet-input or ip4-input",
			    s->node);
	if (!s->ifname[0])
		return fail(err, el, "the stream needs an interface (where its packets arrive)");
	if (s->npcap && data_from >= 0)
		return fail(err, el, "a stream has data { ... } or pcap FILE, not both");
	if (s->npcap) {
		if (have_size)
			return fail(err, el, "a pcap stream sends the file's own sizes");
		return 0;
	}
	if (data_from < 0)
		return fail(err, el, "the stream needs data { ... } or pcap FILE");
	if (parse_data(s, argv, data_from, data_to, hdr, &hlen, err, el))
		return -1;
	bool l2 = s->l3_off > 0;
	if (l2 != !strcmp(s->node, "ethernet-input"))
		return fail(err, el, "node %s wants data %s an Ethernet line (IP4: SRC-MAC -> DST-MAC)",
			    s->node, l2 ? "without" : "with");
	if (smin < hlen)
		return fail(err, el, "size %" PRIu64 " is below the headers (%u bytes)", smin, hlen);
	s->size_min = (uint16_t)smin;
	s->size_max = (uint16_t)smax;
	s->tmpl = calloc(1, RTE_ALIGN_CEIL(s->size_max, 64));
	if (!s->tmpl)
		return fail(err, el, "out of memory");
	memcpy(s->tmpl, hdr, hlen);
	snprintf(s->source, sizeof(s->source), "data");
	/* the template: the longest packet with every field at its start, lengths and checksums
	 * set; a fixed stream is copied, the others updated from it per packet */
	fix(s, s->tmpl, s->size_max);
	s->vary = s->nfields > 0 || smin != smax || s->nmix;
	return 0;
}
