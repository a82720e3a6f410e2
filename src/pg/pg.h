/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet generator: pg interfaces and the streams pg-input injects into a worker's graph. */
#ifndef SL_PG_H
#define SL_PG_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define SL_PG_MAX_STREAMS 64
#define SL_PG_MAX_FIELDS 8
#define SL_PG_MAX_FRAME 2048 /* one mbuf */
#define SL_PG_MAX_MIX 1024  /* sizes in one cycle of a mix (the sum of its weights) */

/* A field that runs over a range: value = start + seq % count, one step per packet, or
 * (random) start + a hash of seq scaled to count: the same packets for the same seq. */
struct sl_pg_field {
	uint16_t off;    /* where the big-endian value ends minus width */
	uint8_t width;   /* 2, 4, 8 (an IPv6 range within one /64: the low half) or 16 */
	bool random;
	uint64_t start, count;
	/* width 16 (an IPv6 range across /64s): the first value and the last one's offset
	 * from it (a /0 spans all 2^128) */
	unsigned __int128 start128, span128;
};

struct sl_pg_stream {
	/* set by the main lcore while the stream is disabled */
	char name[32];
	bool used;
	uint16_t worker;
	uint16_t port;            /* the interface the packets appear to arrive on */
	uint16_t next;            /* pg-input edge: ethernet-input or ip4-input */
	uint64_t limit;           /* packets per enable; 0 = no limit */
	uint64_t rate;            /* packets/s; 0 = as fast as the worker can */
	uint16_t size_min, size_max;
	uint16_t *mix;            /* size imix (7:4:1 of 64, 570 and 1518-byte frames, FCS */
	uint16_t nmix;            /* included: 60, 566, 1514 here) or size mix S:W,...: the
				   * sizes of one cycle, interleaved (0: no mix) */
	uint8_t *tmpl;            /* size_max bytes */
	uint16_t l3_off, l4_off;  /* UINT16_MAX: absent */
	uint8_t ip_version;       /* 4, 6 or 0 */
	uint8_t l4_proto;         /* IPPROTO_UDP, IPPROTO_TCP or 0 */
	bool vary;                /* fields or sizes change per packet: fix lengths, checksums */
	bool wide;                /* a field of 16 bytes */
	uint8_t nfields;
	struct sl_pg_field f[SL_PG_MAX_FIELDS];
	uint32_t npcap;           /* a stream read from a pcap file: its packets in turn */
	uint8_t **pcap_pkts;
	uint16_t *pcap_lens;
	char source[64];          /* "data" or the pcap file, for show */
	char ifname[64];          /* as parsed; the CLI resolves port, worker and next */
	char node[32];
	/* enabled by main, disabled by main or by the worker at the limit */
	volatile bool enabled;
	/* written by the worker */
	uint64_t sent, bytes, no_buffers;
	uint64_t last_tsc;
	double credit;
};

/* Adds d (a one's complement sum of 16-bit words as memory holds them) to the checksum at
 * ck: HC' = ~(~HC + d), RFC 1624 eqn. 3. UDP sends a computed 0 as 0xffff. d < 2^24. */
static inline void sl_pg_cksum_add(uint8_t *ck, uint32_t d, bool udp)
{
	uint16_t c;
	memcpy(&c, ck, 2);
	uint32_t x = (uint32_t)(uint16_t)~c + d;
	x = (x & 0xffff) + (x >> 16);
	x = (x & 0xffff) + (x >> 16);
	c = (uint16_t)~x;
	if (udp && c == 0)
		c = 0xffff;
	memcpy(ck, &c, 2);
}

/* Parses the block after "packet-generator new" (tokens, braces included) into s.
 * Returns 0, or -1 with a message in err. */
int sl_pg_parse(struct sl_pg_stream *s, int argc, char **argv, char *err, size_t errlen);
/* Builds packets seq .. seq + n - 1 of the stream into bufs, their lengths into lens. Each
 * buffer must hold the length rounded up to 64 bytes (an mbuf's data room does). */
void sl_pg_build_burst(const struct sl_pg_stream *s, uint64_t seq, uint8_t *const *bufs,
		       uint16_t *lens, uint16_t n);
/* One packet; returns its length. */
uint16_t sl_pg_build(const struct sl_pg_stream *s, uint64_t seq, uint8_t *buf);
void sl_pg_free(struct sl_pg_stream *s);

/* The hash a NIC with RSS gives a received frame (p, len bytes; eth: it starts with an
 * Ethernet header, up to two VLAN tags, else with the IP header): Toeplitz with the 40-byte
 * key of Microsoft's verification suite (the 82599 datasheet's too) over the IPv4 or
 * IPv6 addresses and, for TCP and UDP that is not an IPv4 fragment (IPv6: the upper layer
 * right after the fixed header), the ports. false for a frame that is not IP (a NIC gives
 * it no hash). */
bool sl_pg_rss(const uint8_t *p, uint16_t len, bool eth, uint32_t *hash);

/* Control (main lcore): adds a parsed stream (disabled), taking it (freed on failure: 0 or
 * -EINVAL with the reason in err); enables or disables a stream by name (NULL: all; its
 * count starts again when enabled); deletes one. -ENOENT: no such stream. */
int sl_pg_stream_add(struct sl_pg_stream *s, char *err, size_t len);
int sl_pg_stream_enable(const char *name, bool on);
int sl_pg_stream_delete(const char *name);

/* A pg interface's pcap file (output_node.c): opened for interface ifx (the file starts
 * with the pcap header), written by pg-output, closed (sl_pcap_close) when the interface goes or at exit. */
struct sl_pcap;
struct sl_pcap *sl_pg_pcap_open(uint16_t ifx, const char *path);

#endif
