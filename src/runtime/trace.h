/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet trace, as VPP's: `trace add port-rx|pg-input N` marks the next N packets a source
 * node produces; every node they reach records what it did (the packet's first bytes as it
 * came in, the next node, interfaces, adjacency, drop reason), and `show trace` formats the
 * records per packet with each node's formatter. Tracing works by putting a wrapper in front
 * of every node's process function in the live graphs (and taking it away on clear trace),
 * so with tracing off no node runs a single extra instruction. */
#ifndef SL_TRACE_H
#define SL_TRACE_H

#include "../sluice.h"

#define SL_TRACE_DATA 64
#define SL_TRACE_RECS 4096 /* per worker */

struct sl_trace_rec {
	uint64_t tsc;
	uint32_t pkt;            /* the packet's number, from 1 */
	rte_node_t node, next;   /* next RTE_NODE_ID_INVALID: the packet ended in node */
	uint16_t rx_if, tx_if;   /* as the node left them (rx_if: as it found it) */
	uint32_t adj;
	uint16_t error;          /* sl_meta2.error as the node found it (error-drop) */
	uint32_t len;            /* pkt_len as the node found it */
	uint8_t ndata;
	uint8_t data[SL_TRACE_DATA]; /* the packet's first bytes as the node found them */
};

/* How a node shows its record: writes at most len bytes of text. */
typedef void (*sl_trace_fmt_t)(char *buf, size_t len, const struct sl_trace_rec *r);
/* From a constructor: records of node_name are shown by fn (default: the Ethernet header). */
void sl_trace_format_register(const char *node_name, sl_trace_fmt_t fn);
/* The default formatter, for formatters that add to it. */
void sl_trace_fmt_eth(char *buf, size_t len, const struct sl_trace_rec *r);
/* After graphs were (re)built: puts the wrappers back if tracing is on. Main lcore. */
void sl_trace_graphs_rebuilt(void);
void sl_trace_fini(void);
/* Control: trace the next n packets from input node `input` (port-rx, pg-input) through
 * every node (0, or -errno with the reason in why); stop and forget the records. */
int sl_trace_add(const char *input, uint32_t n, char *why, size_t len);
void sl_trace_clear(void);

#endif
