/* SPDX-License-Identifier: BSD-3-Clause */
/* sluice-gen's control socket speaks one JSON object per line, flat: {"cmd": "start",
 * "rate": 1000000, "duration": 2}. This is its parser: strings, numbers, true, false, null. */
#ifndef SL_GEN_CTL_H
#define SL_GEN_CTL_H

#include <stddef.h>

#define GEN_CTL_MAX_KEYS 16

struct gen_ctl_kv {
	char key[32];
	char str[128]; /* strings; empty for the others */
	double num;    /* numbers; 1 or 0 for true and false */
	char type;     /* 's' string, 'n' number, 'b' true or false, 'z' null */
};

struct gen_ctl_req {
	int n;
	struct gen_ctl_kv kv[GEN_CTL_MAX_KEYS];
};

/* Parses one object from text[0..len); returns 0, or -1 with the reason in err. */
int gen_ctl_parse(const char *text, size_t len, struct gen_ctl_req *r, char *err, size_t el);
/* The value of key, or NULL. */
const struct gen_ctl_kv *gen_ctl_get(const struct gen_ctl_req *r, const char *key);

#endif
