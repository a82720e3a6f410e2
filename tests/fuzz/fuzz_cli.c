/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: arbitrary CLI lines against a live router; a failed command must change
 * nothing (the IPv4 and IPv6 route counts, the tunnel, MPLS label, policer, ACL and QoS profile
 * counts, the ACLs' interface directions, the interfaces with QoS and the tables' flow-hash
 * fields are the witnesses). */
#include "fuzz.h"
#include "../common/ring_env.h"
#include "../../src/ip4/ip4.h"
#include "../../src/ip6/ip6.h"
#include "../../src/tunnel/tunnel.h"
#include "../../src/mpls/mpls.h"
#include "../../src/qos/policer.h"
#include "../../src/acl/acl.h"
#include "../../src/qos/hqos.h"
#include "../../src/bng/pppoe.h"
#include "../../src/bng/ipoe.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	if (env_init((*argv)[0], "sl-fuzz-cli"))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256)
		return 0;
	char line[260];
	memcpy(line, data, size);
	line[size] = 0;
	/* bounded work per input: no files read or written, no huge counts */
	if (strstr(line, "exec") || strstr(line, "count") || strstr(line, "pcap"))
		return 0;
	uint32_t before = sl_ip4_route_count(), before6 = sl_ip6_route_count(),
		 tunnels = sl_tun_total(), labels = sl_mpls_count(), pols = sl_policer_count(),
		 outs = sl_mpls_out_count(), pppoe = sl_pppoe_count(), ipoe = sl_ipoe_count(),
		 acls = sl_acl_count(), applied = sl_acl_applied(),
		 qprof = sl_qos_profile_count(), qos = sl_qos_applied(), seed = sl_fh_seed;
	uint16_t fh4[SL_FIB_MAX], fh6[SL_FIB_MAX];
	memcpy(fh4, sl_fh4, sizeof(fh4));
	memcpy(fh6, sl_fh6, sizeof(fh6));
	if (env_cli(line, true) != 0 &&
	    (sl_ip4_route_count() != before || sl_ip6_route_count() != before6 ||
	     sl_tun_total() != tunnels || sl_mpls_count() != labels ||
	     sl_mpls_out_count() != outs || sl_pppoe_count() != pppoe || sl_ipoe_count() != ipoe ||
	     sl_policer_count() != pols || sl_acl_count() != acls || sl_acl_applied() != applied ||
	     sl_qos_profile_count() != qprof || sl_qos_applied() != qos || sl_fh_seed != seed ||
	     memcmp(fh4, sl_fh4, sizeof(fh4)) || memcmp(fh6, sl_fh6, sizeof(fh6))))
		abort();
	return 0;
}
