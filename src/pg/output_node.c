/* SPDX-License-Identifier: BSD-3-Clause */
/* pg-output: what the graph sends out of a packet-generator interface (a logical interface,
 * like VPP's pg) is counted and freed, or first appended to the interface's pcap file. */
#include "pg.h"
#include "../interface/iface.h"

#include <stdio.h>
#include <sys/time.h>

#define PO_ERRORS(X) X(PO_ERR_DOWN, "interface down")
enum { PO_ERRORS(SL_ERR_ENUM) PO_NB_ERR };
static const char *const po_reasons[] = {PO_ERRORS(SL_ERR_STR)};
static uint16_t po_err;

struct sl_pg_pcap {
	rte_spinlock_t lock;
	FILE *file; /* NULL once closed */
};

/* Frees the leading packets that go out of interface ifx, like a PMD with MBUF_FAST_FREE:
 * direct, single-segment mbufs of one pool with no other reference go back in bulk without
 * reading their second cache line; the rest take the full path. Returns how many, and their
 * bytes in *bytes. */
static inline uint16_t free_run(struct rte_mbuf **m, uint16_t n, uint16_t ifx, uint64_t *bytes)
{
	void *fast[n];
	uint16_t nf = 0, i;
	uint64_t b = 0;
	struct rte_mempool *mp = m[0]->pool;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *x = m[i];
		if (unlikely(sl_meta(x)->tx_if != ifx))
			break;
		b += x->pkt_len;
		if (likely(x->pool == mp && x->nb_segs == 1 && rte_mbuf_refcnt_read(x) == 1 &&
			   RTE_MBUF_DIRECT(x) && !RTE_MBUF_HAS_EXTBUF(x)))
			fast[nf++] = x;
		else
			rte_pktmbuf_free(x);
	}
	if (nf)
		rte_mempool_put_bulk(mp, fast, nf);
	*bytes = b;
	return i;
}

/* One record of the classic pcap format (microseconds, the whole frame up to 64 KiB). */
static void pcap_write(struct sl_pg_pcap *p, struct rte_mbuf *m)
{
	uint8_t buf[UINT16_MAX];
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
	const void *d = rte_pktmbuf_read(m, 0, len, buf);
	struct timeval tv;
	gettimeofday(&tv, NULL);
	uint32_t hdr[4] = {(uint32_t)tv.tv_sec, (uint32_t)tv.tv_usec, len, m->pkt_len};
	rte_spinlock_lock(&p->lock);
	if (p->file && d) {
		fwrite(hdr, sizeof(hdr), 1, p->file);
		fwrite(d, len, 1, p->file);
	}
	rte_spinlock_unlock(&p->lock);
}

static uint16_t po_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	struct rte_mbuf **m = (struct rte_mbuf **)objs;
	(void)g;
	/* runs of packets for one interface (a whole vector, usually) */
	for (uint16_t i = 0; i < n;) {
		uint16_t ifx = sl_meta(m[i])->tx_if, k;
		const struct sl_iface *f = &sl_ifaces[ifx];
		struct sl_if_counters *c = &w->ifc[ifx];
		struct sl_pg_pcap *p = __atomic_load_n(&f->pcap, __ATOMIC_ACQUIRE);
		if (likely(f->up && !p)) {
			uint64_t bytes;
			k = free_run(m + i, n - i, ifx, &bytes);
			c->tx_pkts += k;
			c->tx_bytes += bytes;
			i += k;
			continue;
		}
		for (k = 1; i + k < n && sl_meta(m[i + k])->tx_if == ifx; k++)
			;
		if (!f->up) {
			c->drops += k;
			w->errors[po_err + PO_ERR_DOWN] += k;
		} else {
			c->tx_pkts += k;
			for (uint16_t j = i; j < i + k; j++) {
				c->tx_bytes += m[j]->pkt_len;
				pcap_write(p, m[j]);
			}
		}
		rte_pktmbuf_free_bulk(m + i, k);
		i += k;
	}
	return n;
}

static struct rte_node_register po_node = {
	.name = "pg-output",
	.process = po_process,
	.init = sl_node_init,
	.nb_edges = 0,
};
SL_NODE_REGISTER(po_node)

RTE_INIT(po_init)
{
	po_err = sl_error_register("pg-output", po_reasons, PO_NB_ERR);
	sl_iface_output_register(SL_IF_PG, "pg-output");
}

static struct sl_pg_pcap pcaps[SL_IF_MAX]; /* by interface index; never freed */

struct sl_pg_pcap *sl_pg_pcap_open(uint16_t ifx, const char *path)
{
	struct sl_pg_pcap *p = &pcaps[ifx];
	FILE *file = fopen(path, "wb");
	if (!file)
		return NULL;
	/* the classic pcap header: magic, version 2.4, zone, accuracy, snaplen, Ethernet */
	const uint32_t hdr[6] = {0xa1b2c3d4, 2 | 4u << 16, 0, 0, UINT16_MAX, 1};
	if (fwrite(hdr, sizeof(hdr), 1, file) != 1) {
		fclose(file);
		return NULL;
	}
	rte_spinlock_init(&p->lock);
	p->file = file;
	return p;
}

/* No worker writes to it once the lock is released; the file is complete. */
void sl_pg_pcap_close(struct sl_pg_pcap *p)
{
	if (!p)
		return;
	rte_spinlock_lock(&p->lock);
	FILE *file = p->file;
	p->file = NULL;
	rte_spinlock_unlock(&p->lock);
	if (file)
		fclose(file);
}
