/* SPDX-License-Identifier: BSD-3-Clause */
/* MPLS (RFC 3032): local labels (table 0) read by mpls-input (ethertype 0x8847 on interfaces
 * with MPLS enabled) and mpls4-udp-input (MPLS over UDP, RFC 7510, port 6635); MPLS-over-UDP
 * tunnels push a label (src/mpls/mpls.c, node.c). */
#ifndef SL_MPLS_H
#define SL_MPLS_H

#include "../tunnel/tunnel.h"

#define SL_MPLS_UDP_PORT 6635
#define SL_MPLS_LABEL_MAX ((1u << 20) - 1)
#define SL_MPLSUDP_ENCAP_LEN 32 /* outer IPv4, UDP and one label */
#define SL_MPLSGRE_ENCAP_LEN 28 /* outer IPv4, GRE and one label */

/* A local label's action, the data of its entry (the key: label << 1 | eos). */
enum sl_mpls_action {
	SL_MPLS_POP_LOOKUP = 1, /* eos: pop, look the inner IP packet up in a table */
	SL_MPLS_POP_MPLS,       /* non-eos: pop, look the next label up */
};
static inline uint64_t sl_mpls_data(enum sl_mpls_action a, uint16_t fib)
{
	return (uint64_t)a << 32 | fib;
}

/* The entry of (label, eos), or 0. */
uint64_t sl_mpls_find(uint32_t label, bool eos);
uint32_t sl_mpls_count(void);

#endif
