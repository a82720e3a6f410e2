/* SPDX-License-Identifier: BSD-3-Clause */
/* startup.conf parser: unix, cpu, dpdk, buffers, ip4 and ip6 sections in VPP's grammar. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lexer {
	const char *p;
	int line;
	const char *name;
	char *err;
	size_t errlen;
};

void sl_config_defaults(struct sl_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->cli_listen, sizeof(c->cli_listen), "/run/sluice/cli.sock");
	c->main_core = -1;
	c->workers = -1;
	c->buffers_per_numa = 16384;
	c->rx_vector = 256;
	c->ip4_max_routes = 1 << 20;
	c->ip4_tbl8s = 1 << 14;
	c->ip6_max_routes = 1 << 16;
	c->ip6_tbl8s = 1 << 14;
}

static int fail(struct lexer *lx, const char *fmt, ...)
{
	int n = snprintf(lx->err, lx->errlen, "%s:%d: ", lx->name, lx->line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < lx->errlen)
		vsnprintf(lx->err + n, lx->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Next token: a word, a quoted string, "{" or "}". Returns 0 at end, 1 otherwise, <0 on error. */
static int next_tok(struct lexer *lx, char *tok, size_t len)
{
	for (;;) {
		while (*lx->p && isspace((unsigned char)*lx->p)) {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (*lx->p == '#' || (lx->p[0] == '/' && lx->p[1] == '/')) {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
			continue;
		}
		break;
	}
	if (*lx->p == 0)
		return 0;
	size_t n = 0;
	if (*lx->p == '{' || *lx->p == '}') {
		tok[0] = *lx->p++;
		tok[1] = 0;
		return 1;
	}
	if (*lx->p == '"') {
		lx->p++;
		while (*lx->p && *lx->p != '"' && *lx->p != '\n') {
			if (n + 1 >= len)
				return fail(lx, "string too long");
			tok[n++] = *lx->p++;
		}
		if (*lx->p != '"')
			return fail(lx, "unterminated string");
		lx->p++;
		tok[n] = 0;
		return 1;
	}
	while (*lx->p && !isspace((unsigned char)*lx->p) && *lx->p != '{' && *lx->p != '}') {
		if (n + 1 >= len)
			return fail(lx, "word too long");
		tok[n++] = *lx->p++;
	}
	tok[n] = 0;
	return 1;
}

static int expect_word(struct lexer *lx, const char *key, char *val, size_t len)
{
	int rc = next_tok(lx, val, len);
	if (rc < 0)
		return rc;
	if (rc == 0 || !strcmp(val, "{") || !strcmp(val, "}"))
		return fail(lx, "'%s' needs a value", key);
	return 0;
}

static int expect_uint(struct lexer *lx, const char *key, uint32_t min, uint32_t max,
		       uint32_t *out)
{
	char v[64], *end;
	int rc = expect_word(lx, key, v, sizeof(v));
	if (rc)
		return rc;
	errno = 0;
	unsigned long x = strtoul(v, &end, 0);
	if (errno || *end || v[0] == '-' || x < min || x > max)
		return fail(lx, "'%s' wants a number from %u to %u, not '%s'", key, min, max, v);
	*out = (uint32_t)x;
	return 0;
}

static int expect_open(struct lexer *lx, const char *what)
{
	char t[SL_CFG_STR];
	int rc = next_tok(lx, t, sizeof(t));
	if (rc < 0)
		return rc;
	if (rc == 0 || strcmp(t, "{"))
		return fail(lx, "'%s' must be followed by '{'", what);
	return 0;
}

static int copy_str(struct lexer *lx, const char *key, char *dst, size_t len)
{
	char v[SL_CFG_STR * 4];
	int rc = expect_word(lx, key, v, sizeof(v));
	if (rc)
		return rc;
	if (strlen(v) >= len)
		return fail(lx, "value of '%s' too long", key);
	strcpy(dst, v);
	return 0;
}

int sl_parse_corelist(const char *s, int *cores, int max)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > 1023)
			return -1;
		long b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 1023)
				return -1;
			p = end;
		}
		for (long i = a; i <= b; i++) {
			if (n >= max)
				return -1;
			cores[n++] = (int)i;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n;
}

typedef int (*section_fn)(struct lexer *lx, struct sl_config *c, const char *key);

static int sec_unix(struct lexer *lx, struct sl_config *c, const char *key)
{
	if (!strcmp(key, "cli-listen"))
		return copy_str(lx, key, c->cli_listen, sizeof(c->cli_listen));
	if (!strcmp(key, "exec") || !strcmp(key, "startup-config"))
		return copy_str(lx, key, c->exec, sizeof(c->exec));
	if (!strcmp(key, "log"))
		return copy_str(lx, key, c->log, sizeof(c->log));
	if (!strcmp(key, "nodaemon") || !strcmp(key, "interactive"))
		return 0;
	if (!strcmp(key, "poll-sleep-usec"))
		return expect_uint(lx, key, 0, 1000000, &c->poll_sleep_us);
	if (!strcmp(key, "poll-yield")) {
		c->poll_yield = true;
		return 0;
	}
	return fail(lx, "unknown 'unix' option '%s'", key);
}

static int sec_cpu(struct lexer *lx, struct sl_config *c, const char *key)
{
	uint32_t v;
	int rc, cores[64];
	if (!strcmp(key, "main-core")) {
		if ((rc = expect_uint(lx, key, 0, 1023, &v)))
			return rc;
		c->main_core = (int)v;
		return 0;
	}
	if (!strcmp(key, "corelist-workers")) {
		if ((rc = copy_str(lx, key, c->corelist_workers, sizeof(c->corelist_workers))))
			return rc;
		if (sl_parse_corelist(c->corelist_workers, cores, 64) <= 0)
			return fail(lx, "bad core list '%s'", c->corelist_workers);
		return 0;
	}
	if (!strcmp(key, "workers")) {
		if ((rc = expect_uint(lx, key, 0, 31, &v)))
			return rc;
		c->workers = (int)v;
		return 0;
	}
	return fail(lx, "unknown 'cpu' option '%s'", key);
}

static int dev_body(struct lexer *lx, struct sl_cfg_dev *d)
{
	char t[SL_CFG_STR];
	uint32_t v;
	int rc;
	for (;;) {
		rc = next_tok(lx, t, sizeof(t));
		if (rc < 0)
			return rc;
		if (rc == 0)
			return fail(lx, "missing '}' for device '%s'", d->devargs);
		if (!strcmp(t, "}"))
			return 0;
		if (!strcmp(t, "name")) {
			if ((rc = copy_str(lx, t, d->name, sizeof(d->name))))
				return rc;
		} else if (!strcmp(t, "mac-address")) {
			unsigned v[6];
			char c;
			if ((rc = copy_str(lx, t, d->mac, sizeof(d->mac))))
				return rc;
			if (sscanf(d->mac, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
				   &v[4], &v[5], &c) != 6)
				return fail(lx, "'%s' is not a MAC address", d->mac);
		} else if (!strcmp(t, "num-rx-queues")) {
			if ((rc = expect_uint(lx, t, 1, 16, &v)))
				return rc;
			d->nb_rxq = (uint16_t)v;
		} else if (!strcmp(t, "num-tx-queues")) {
			if ((rc = expect_uint(lx, t, 1, 64, &v)))
				return rc;
			d->nb_txq = (uint16_t)v;
		} else if (!strcmp(t, "num-rx-desc")) {
			if ((rc = expect_uint(lx, t, 32, 32768, &v)))
				return rc;
			d->nb_rxd = (uint16_t)v;
		} else if (!strcmp(t, "num-tx-desc")) {
			if ((rc = expect_uint(lx, t, 32, 32768, &v)))
				return rc;
			d->nb_txd = (uint16_t)v;
		} else {
			return fail(lx, "unknown device option '%s'", t);
		}
	}
}

static int sec_dpdk(struct lexer *lx, struct sl_config *c, const char *key)
{
	int rc;
	uint32_t v;
	if (!strcmp(key, "dev") || !strcmp(key, "vdev")) {
		if (c->nb_devs >= SL_CFG_MAX_DEVS)
			return fail(lx, "too many devices (at most %d)", SL_CFG_MAX_DEVS);
		struct sl_cfg_dev *d = &c->devs[c->nb_devs];
		memset(d, 0, sizeof(*d));
		d->vdev = key[0] == 'v';
		if ((rc = copy_str(lx, key, d->devargs, sizeof(d->devargs))))
			return rc;
		c->nb_devs++;
		/* optional { ... } body */
		const char *save = lx->p;
		int line = lx->line;
		char t[SL_CFG_STR];
		rc = next_tok(lx, t, sizeof(t));
		if (rc < 0)
			return rc;
		if (rc == 1 && !strcmp(t, "{"))
			return dev_body(lx, d);
		lx->p = save;
		lx->line = line;
		return 0;
	}
	if (!strcmp(key, "socket-mem")) {
		char s[64];
		if ((rc = expect_word(lx, key, s, sizeof(s))))
			return rc;
		char *end;
		unsigned long x = strtoul(s, &end, 10);
		if (end == s || (*end && *end != ',') || x == 0 || x > 1 << 20)
			return fail(lx, "'socket-mem' wants megabytes, not '%s'", s);
		c->socket_mem = (uint32_t)x;
		return 0;
	}
	if (!strcmp(key, "no-huge")) {
		c->no_huge = true;
		return 0;
	}
	if (!strcmp(key, "no-pci")) {
		c->no_pci = true;
		return 0;
	}
	if (!strcmp(key, "file-prefix"))
		return copy_str(lx, key, c->file_prefix, sizeof(c->file_prefix));
	if (!strcmp(key, "eal-args"))
		return copy_str(lx, key, c->eal_args, sizeof(c->eal_args));
	if (!strcmp(key, "rx-vector")) {
		if ((rc = expect_uint(lx, key, 1, 256, &v)))
			return rc;
		c->rx_vector = v;
		return 0;
	}
	if (!strcmp(key, "num-mbufs")) {
		if ((rc = expect_uint(lx, key, 1024, 1 << 24, &v)))
			return rc;
		c->buffers_per_numa = v;
		return 0;
	}
	return fail(lx, "unknown 'dpdk' option '%s'", key);
}

static int sec_buffers(struct lexer *lx, struct sl_config *c, const char *key)
{
	if (!strcmp(key, "buffers-per-numa"))
		return expect_uint(lx, key, 1024, 1 << 24, &c->buffers_per_numa);
	return fail(lx, "unknown 'buffers' option '%s'", key);
}

static int sec_ip4(struct lexer *lx, struct sl_config *c, const char *key)
{
	if (!strcmp(key, "max-routes"))
		return expect_uint(lx, key, 1024, 1 << 24, &c->ip4_max_routes);
	if (!strcmp(key, "tbl8s"))
		return expect_uint(lx, key, 256, 1 << 20, &c->ip4_tbl8s);
	return fail(lx, "unknown 'ip4' option '%s'", key);
}

static int sec_ip6(struct lexer *lx, struct sl_config *c, const char *key)
{
	if (!strcmp(key, "max-routes"))
		return expect_uint(lx, key, 1024, 1 << 24, &c->ip6_max_routes);
	if (!strcmp(key, "tbl8s"))
		return expect_uint(lx, key, 256, 1 << 22, &c->ip6_tbl8s);
	return fail(lx, "unknown 'ip6' option '%s'", key);
}

static const struct {
	const char *name;
	section_fn fn;
} sections[] = {
	{"unix", sec_unix}, {"cpu", sec_cpu}, {"dpdk", sec_dpdk},
	{"buffers", sec_buffers}, {"ip4", sec_ip4}, {"ip6", sec_ip6},
};

int sl_config_parse(struct sl_config *c, const char *text, const char *name, char *err,
		    size_t errlen)
{
	struct lexer lx = {.p = text, .line = 1, .name = name, .err = err, .errlen = errlen};
	char t[SL_CFG_STR];
	int rc;
	while ((rc = next_tok(&lx, t, sizeof(t))) == 1) {
		section_fn fn = NULL;
		for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
			if (!strcmp(t, sections[i].name))
				fn = sections[i].fn;
		if (!fn)
			return fail(&lx, "unknown section '%s'", t);
		char sec[SL_CFG_STR];
		snprintf(sec, sizeof(sec), "%s", t);
		if ((rc = expect_open(&lx, sec)))
			return rc;
		for (;;) {
			rc = next_tok(&lx, t, sizeof(t));
			if (rc < 0)
				return rc;
			if (rc == 0)
				return fail(&lx, "missing '}' for section '%s'", sec);
			if (!strcmp(t, "}"))
				break;
			if (!strcmp(t, "{"))
				return fail(&lx, "unexpected '{' in section '%s'", sec);
			if ((rc = fn(&lx, c, t)))
				return rc;
		}
	}
	if (rc < 0)
		return rc;
	if (c->workers >= 0 && c->corelist_workers[0])
		return fail(&lx, "give 'workers' or 'corelist-workers', not both");
	return 0;
}

int sl_config_load(struct sl_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		size_t r = fread(buf + len, 1, 4096, f);
		len += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[len] = 0;
	if (strlen(buf) != len) {
		free(buf);
		snprintf(err, errlen, "%s:1: file contains a NUL byte", path);
		return -EINVAL;
	}
	int rc = sl_config_parse(c, buf, path, err, errlen);
	free(buf);
	return rc;
}
