/* SPDX-License-Identifier: BSD-3-Clause */
/* Appending frames to a pcap file from the workers (see pcap.h). */
#include "pcap.h"

#include <errno.h>
#include <sys/time.h>

int sl_pcap_open(struct sl_pcap *p, const char *path, uint64_t max)
{
	FILE *file = fopen(path, "wb");
	if (!file)
		return -errno;
	/* magic, version 2.4, zone, accuracy, snaplen, link type Ethernet */
	const uint32_t hdr[6] = {0xa1b2c3d4, 2 | 4u << 16, 0, 0, UINT16_MAX, 1};
	if (fwrite(hdr, sizeof(hdr), 1, file) != 1) {
		fclose(file);
		return -EIO;
	}
	rte_spinlock_init(&p->lock);
	p->count = 0;
	p->max = max;
	__atomic_store_n(&p->file, file, __ATOMIC_RELEASE);
	return 0;
}

bool sl_pcap_write(struct sl_pcap *p, struct rte_mbuf *m)
{
	uint8_t buf[UINT16_MAX];
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
	const void *d = rte_pktmbuf_read(m, 0, len, buf);
	struct timeval tv;
	gettimeofday(&tv, NULL);
	uint32_t hdr[4] = {(uint32_t)tv.tv_sec, (uint32_t)tv.tv_usec, len, m->pkt_len};
	bool done = false;
	rte_spinlock_lock(&p->lock);
	if (p->file && d && (!p->max || p->count < p->max)) {
		fwrite(hdr, sizeof(hdr), 1, p->file);
		fwrite(d, len, 1, p->file);
		p->count++;
		done = true;
	}
	rte_spinlock_unlock(&p->lock);
	return done;
}

void sl_pcap_close(struct sl_pcap *p)
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
