/* SPDX-License-Identifier: BSD-3-Clause */
/* PPPoE on the wire (RFC 2516), shared by sluiced's access concentrator and sluice-gen's
 * subscriber emulator. */
#ifndef SL_PPPOE_WIRE_H
#define SL_PPPOE_WIRE_H

#include <stdint.h>
#include <string.h>

static inline void sl_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t sl_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* An Ethernet header (dst, src, ethertype type: 0x8863 discovery or 0x8864 session) and a
 * PPPoE header (version and type 1, code, session id, payload length plen) at h; returns
 * where the payload goes (h + 20). */
static inline uint8_t *sl_pppoe_hdr_write(uint8_t *h, const void *dst, const void *src,
					  uint16_t type, uint8_t code, uint16_t sid, uint16_t plen)
{
	memcpy(h, dst, 6);
	memcpy(h + 6, src, 6);
	sl_put16(h + 12, type);
	h[14] = 0x11;
	h[15] = code;
	sl_put16(h + 16, sid);
	sl_put16(h + 18, plen);
	return h + 20;
}

#endif
