/* SPDX-License-Identifier: BSD-3-Clause */
/* Lab (issue 16): what rte_acl's walk costs a packet alone, without sluiced, for the rule
 * shapes of scripts/bench_graph.py's acl_setup (IPv4: random sources /16-/32 in 10.11-249/16,
 * destinations /16 and /24 in 48/8, UDP or TCP, destination port ranges; then the rule that
 * permits the stream, 10.10.1.2 -> 48/8 UDP 2123 -> 10000), keys laid out as sluiced's (the
 * IPv4 header from its protocol byte on):
 *   cc -O2 -march=native -o /tmp/acl_walk scripts/lab/acl_walk.c $(pkg-config --cflags --libs libdpdk)
 *   /tmp/acl_walk --no-huge --no-pci -m 256 -l 1 --file-prefix aclwalk --log-level=1 -- RULES FLOWS [VARIANT]
 * VARIANT: full (the default); nodst (no rule constrains the destination); nodst-dropped (the
 * same, the destination left out of the classifier's fields). Prints the cycles a packet of
 * rte_acl_classify over 256-packet vectors (40,000 of them) and the packets it got wrong. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>

enum { P, S, SP, DP, D, NB }; /* the destination last, so that it can be left out */
RTE_ACL_RULE_DEF(rule4, NB);

static void set(struct rule4 *u, int pos, int nrules)
{
	u->data.category_mask = 1;
	u->data.priority = nrules - pos;
	u->data.userdata = (uint32_t)pos + 1;
	u->field[SP].mask_range.u16 = 65535;
}

int main(int argc, char **argv)
{
	int r = rte_eal_init(argc, argv);
	if (r < 0 || argc - r < 3)
		return fprintf(stderr, "usage: EAL args -- RULES FLOWS [full|nodst|nodst-dropped]\n"), 1;
	argv += r;
	int nrules = atoi(argv[1]), flows = atoi(argv[2]);
	const char *var = argc - r > 3 ? argv[3] : "full";
	bool nodst = strncmp(var, "nodst", 5) == 0, drop = strcmp(var, "nodst-dropped") == 0;
	srand(16);
	struct rte_acl_param prm = {.name = "walk", .socket_id = SOCKET_ID_ANY,
				    .rule_size = RTE_ACL_RULE_SZ(NB), .max_rule_num = (uint32_t)nrules};
	struct rte_acl_ctx *ctx = rte_acl_create(&prm);
	struct rule4 *rules = calloc((size_t)nrules, sizeof(*rules));
	for (int i = 0; i < nrules - 1; i++) {
		struct rule4 *u = &rules[i];
		static const int sl[] = {16, 24, 32}, dl[] = {16, 24}, w[] = {0, 0, 15, 1023};
		set(u, i, nrules);
		u->field[P].value.u8 = (rand() & 1) ? 6 : 17;
		u->field[P].mask_range.u8 = 0xff;
		u->field[S].value.u32 = 10u << 24 | (uint32_t)(11 + rand() % 239) << 16 |
					(uint32_t)(rand() & 0xffff);
		u->field[S].mask_range.u32 = (uint32_t)sl[rand() % 3];
		u->field[D].value.u32 = nodst ? 0 : 48u << 24 | (uint32_t)(rand() & 0xffff) << 8;
		u->field[D].mask_range.u32 = nodst ? 0 : (uint32_t)dl[rand() % 2];
		int lo = rand() % 65536, hi = lo + w[rand() % 4];
		u->field[DP].value.u16 = (uint16_t)lo;
		u->field[DP].mask_range.u16 = (uint16_t)(hi > 65535 ? 65535 : hi);
	}
	struct rule4 *u = &rules[nrules - 1];
	set(u, nrules - 1, nrules);
	u->field[P].value.u8 = 17;
	u->field[P].mask_range.u8 = 0xff;
	u->field[S].value.u32 = 0x0a0a0100;
	u->field[S].mask_range.u32 = 24;
	u->field[D].value.u32 = nodst ? 0 : 48u << 24;
	u->field[D].mask_range.u32 = nodst ? 0 : 8;
	u->field[DP].mask_range.u16 = 65535;
	/* offsets in the key: protocol 0, source 3, destination 7, ports 11 */
	struct rte_acl_config cfg = {.num_categories = 1, .num_fields = drop ? NB - 1 : NB};
	const struct rte_acl_field_def defs[NB] = {
		{RTE_ACL_FIELD_TYPE_BITMASK, 1, P, 0, 0},
		{RTE_ACL_FIELD_TYPE_MASK, 4, S, 1, 3},
		{RTE_ACL_FIELD_TYPE_RANGE, 2, SP, drop ? 2 : 3, 11},
		{RTE_ACL_FIELD_TYPE_RANGE, 2, DP, drop ? 2 : 3, 13},
		{RTE_ACL_FIELD_TYPE_MASK, 4, D, 2, 7},
	};
	memcpy(cfg.defs, defs, sizeof(defs));
	if (!ctx || rte_acl_add_rules(ctx, (void *)rules, (uint32_t)nrules) ||
	    rte_acl_build(ctx, &cfg))
		return fprintf(stderr, "rte_acl could not build the classifier\n"), 1;
	uint8_t(*keys)[20] = calloc((size_t)flows, 20);
	for (int i = 0; i < flows; i++) {
		uint32_t s = rte_cpu_to_be_32(0x0a0a0102),
			 d = rte_cpu_to_be_32(48u << 24 | (uint32_t)(rand() & 0xffffff));
		uint16_t sp = rte_cpu_to_be_16(2123), dp = rte_cpu_to_be_16(10000);
		keys[i][0] = 17;
		memcpy(keys[i] + 3, &s, 4);
		memcpy(keys[i] + 7, &d, 4);
		memcpy(keys[i] + 11, &sp, 2);
		memcpy(keys[i] + 13, &dp, 2);
	}
	const uint8_t *data[256];
	uint32_t res[256];
	uint64_t cycles = 0, n = 0, wrong = 0;
	for (int v = 0, at = 0; v < 40000; v++) {
		for (int j = 0; j < 256; j++, at = (at + 1) % flows)
			data[j] = keys[at];
		uint64_t t = rte_rdtsc();
		rte_acl_classify(ctx, data, res, 256, 1);
		cycles += rte_rdtsc() - t;
		n += 256;
		for (int j = 0; j < 256; j++)
			wrong += res[j] != (uint32_t)nrules;
	}
	printf("%d rules, %d flows, %s: %.1f cycles a packet, %lu wrong\n", nrules, flows, var,
	       (double)cycles / (double)n, (unsigned long)wrong);
	rte_acl_free(ctx);
	rte_eal_cleanup();
	return 0;
}
