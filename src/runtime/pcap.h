/* SPDX-License-Identifier: BSD-3-Clause */
/* A pcap file that workers append frames to (the classic format: microseconds, Ethernet,
 * whole frames up to 64 KiB): a pg interface's output, and pcap trace's capture. Writers take
 * a spinlock per frame; this is for tests and troubleshooting, not for line rate. */
#ifndef SL_PCAP_H
#define SL_PCAP_H

#include "../sluice.h"
#include <stdio.h>
#include <rte_spinlock.h>

struct sl_pcap {
	rte_spinlock_t lock;
	FILE *file;      /* NULL once closed */
	uint64_t count;  /* frames written */
	uint64_t max;    /* 0: no limit */
};

/* Creates path with the pcap header; 0 or -errno. */
int sl_pcap_open(struct sl_pcap *p, const char *path, uint64_t max);
/* Appends m unless the file is closed or holds max frames; false then. */
bool sl_pcap_write(struct sl_pcap *p, struct rte_mbuf *m);
/* No worker writes once it returns: the file is complete. Closing a closed one is a no-op. */
void sl_pcap_close(struct sl_pcap *p);

/* pcap trace (src/interface/pcap_trace.c), one capture at a time: starts capturing what
 * interface ifx receives (rx) and/or sends (tx) into path, up to max frames (0, or -errno with
 * the reason in why); stops it (both features off, the file complete) and returns the
 * frames written. */
int sl_pcap_trace_start(uint16_t ifx, bool rx, bool tx, const char *path, uint64_t max,
			char *why, size_t len);
uint64_t sl_pcap_trace_stop(void);

#endif
