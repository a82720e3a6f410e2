/* SPDX-License-Identifier: BSD-3-Clause */
/* pcap trace (VPP's grammar): what one interface receives (pcap-rx, a feature of the
 * device-input arc: frames as they came in, before any other input feature) and/or sends
 * (pcap-tx, on the interface-output arc: frames as they leave) into one pcap file, up to a
 * number of frames. One capture at a time, as in VPP:
 *   pcap trace [rx] [tx] intfc IFACE file PATH [max N]
 *   pcap trace off
 *   pcap trace status */
#include "iface.h"
#include "../cli/cli.h"
#include "../runtime/feature.h"
#include "../runtime/pcap.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PCAP_DEFAULT_MAX 1000
#define PCAP_MAX_MAX 10000000

static struct sl_pcap cap;           /* written by workers while a feature is on */
static struct {
	bool on;
	uint16_t ifx;
	bool rx, tx;
	char path[256];
} trace;
static uint8_t feat_rx, feat_tx;
static rte_edge_t tx_tx0; /* pcap-tx's first tx edge (sl_feature_next_out) */

static inline uint16_t pcap_rx_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	sl_pcap_write(&cap, m);
	return sl_feature_next(SL_ARC_DEVICE_INPUT, feat_rx, m->port, sl_ifaces[m->port].mode);
}

static inline uint16_t pcap_tx_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	sl_pcap_write(&cap, m);
	return sl_feature_next_out(feat_tx, sl_meta(m)->tx_if, tx_tx0);
}

SL_NODE_EACH(pcap_rx_process, pcap_rx_one)

SL_NODE_EACH(pcap_tx_process, pcap_tx_one)

static struct rte_node_register pcap_rx_node = {
	.name = "pcap-rx",
	.process = pcap_rx_process,
	.init = sl_node_init,
	.nb_edges = SL_NB_MODES,
	.next_nodes = {SL_MODE_NODES},
};
SL_NODE_REGISTER(pcap_rx_node)

static struct rte_node_register pcap_tx_node = {
	.name = "pcap-tx",
	.process = pcap_tx_process,
	.init = sl_node_init,
};
SL_NODE_REGISTER(pcap_tx_node)

/* ---------------- control ---------------- */

uint64_t sl_pcap_trace_stop(void)
{
	if (!trace.on)
		return 0;
	char why[8];
	trace.on = false; /* the hooks below see it off */
	sl_feature_set(trace.ifx, SL_ARC_DEVICE_INPUT, "pcap-rx", false, why, sizeof(why));
	sl_feature_set(trace.ifx, SL_ARC_INTERFACE_OUTPUT, "pcap-tx", false, why, sizeof(why));
	sl_pcap_close(&cap);
	return cap.count;
}

int sl_pcap_trace_start(uint16_t ifx, bool rx, bool tx, const char *path, uint64_t max,
			char *why, size_t len)
{
	if (trace.on) {
		snprintf(why, len, "a capture is on (%s): pcap trace off first", trace.path);
		return -EBUSY;
	}
	if (strlen(path) >= sizeof(trace.path)) {
		snprintf(why, len, "file name too long");
		return -EINVAL;
	}
	int rc = sl_pcap_open(&cap, path, max);
	if (rc) {
		snprintf(why, len, "cannot create %s: %s", path, strerror(-rc));
		return rc;
	}
	trace.on = true;
	trace.ifx = ifx;
	trace.rx = rx;
	trace.tx = tx;
	snprintf(trace.path, sizeof(trace.path), "%s", path);
	if (rx)
		sl_feature_set(ifx, SL_ARC_DEVICE_INPUT, "pcap-rx", true, why, len);
	if (tx)
		sl_feature_set(ifx, SL_ARC_INTERFACE_OUTPUT, "pcap-tx", true, why, len);
	return 0;
}

/* The features' hook: on only for the interface of the capture (pcap trace starts it);
 * the capture ends when neither is left on. */
static int pcap_hook(uint16_t ifx, bool on, char *why, size_t len)
{
	if (on) {
		if (trace.on && trace.ifx == ifx)
			return 0;
		snprintf(why, len, "pcap-rx and pcap-tx are turned on by pcap trace ... intfc %s",
			 sl_ifaces[ifx].name);
		return -1;
	}
	if (trace.on && trace.ifx == ifx &&
	    !(sl_if_features(ifx, SL_ARC_DEVICE_INPUT) & (1u << feat_rx)) &&
	    !(sl_if_features(ifx, SL_ARC_INTERFACE_OUTPUT) & (1u << feat_tx))) {
		trace.on = false;
		sl_pcap_close(&cap);
	}
	return 0;
}

/* An interface being deleted ends its capture (the file is complete). */
static int pcap_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	(void)why;
	(void)len;
	if (commit && trace.on && trace.ifx == f->port)
		sl_pcap_trace_stop();
	return 0;
}

RTE_INIT(pcap_trace_init)
{
	feat_rx = sl_feature_register(SL_ARC_DEVICE_INPUT, "pcap-rx", "pcap-rx");
	feat_tx = sl_feature_register(SL_ARC_INTERFACE_OUTPUT, "pcap-tx", "pcap-tx");
	sl_iface_tx_user("pcap-tx", &tx_tx0);
	sl_feature_hook(SL_ARC_DEVICE_INPUT, feat_rx, pcap_hook);
	sl_feature_hook(SL_ARC_INTERFACE_OUTPUT, feat_tx, pcap_hook);
	sl_iface_busy_register(pcap_busy);
}

static void pcap_trace_fini(void)
{
	sl_pcap_trace_stop();
}
SL_MODULE_REGISTER(pcap_trace_module, .name = "pcap-trace", .fini = pcap_trace_fini)

static int cmd_pcap_trace(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: pcap trace [rx] [tx] intfc IFACE file PATH [max N] | off | "
			    "status";
	if (argc == 1 && !strcmp(argv[0], "off")) {
		if (!trace.on)
			return sl_out_error(o, "no capture is on");
		char path[sizeof(trace.path)];
		snprintf(path, sizeof(path), "%s", trace.path);
		uint64_t n = sl_pcap_trace_stop();
		sl_out_msg(o, "wrote %" PRIu64 " packets to %s", n, path);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "status")) {
		sl_tbl_begin(o, "pcap", 6, (const char *[]){"interface", "rx", "tx", "file",
							    "packets:u", "max:u"});
		if (trace.on) {
			char n[24], mx[24];
			snprintf(n, sizeof(n), "%" PRIu64, __atomic_load_n(&cap.count,
									  __ATOMIC_RELAXED));
			snprintf(mx, sizeof(mx), "%" PRIu64, cap.max);
			sl_tbl_row(o, sl_ifaces[trace.ifx].name, trace.rx ? "yes" : "no",
				   trace.tx ? "yes" : "no", trace.path, n, mx);
		}
		sl_tbl_end(o);
		return 0;
	}
	bool rx = false, tx = false;
	const char *ifname = NULL, *path = NULL;
	uint32_t max = PCAP_DEFAULT_MAX;
	for (int i = 0; i < argc; i++) {
		const char *a = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "rx"))
			rx = true;
		else if (!strcmp(argv[i], "tx"))
			tx = true;
		else if (!strcmp(argv[i], "intfc") && a)
			ifname = argv[++i];
		else if (!strcmp(argv[i], "file") && a)
			path = argv[++i];
		else if (!strcmp(argv[i], "max") && a) {
			if (sl_arg_u32(o, "max", a, 1, PCAP_MAX_MAX, &max))
				return -1;
			i++;
		} else
			return sl_out_error(o, "%s", usage);
	}
	if (!(rx || tx) || !ifname || !path)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(ifname);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", ifname);
	char why[320];
	if (sl_pcap_trace_start(f->port, rx, tx, path, max, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}
SL_CLI_COMMAND(pcap_trace, .path = "pcap trace",
	       .usage = "[rx] [tx] intfc IFACE file PATH [max N] | off | status",
	       .help = "capture what IFACE receives and/or sends into a pcap file (max N frames, "
		       "1000 unless given)",
	       .fn = cmd_pcap_trace)
