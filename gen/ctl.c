/* SPDX-License-Identifier: BSD-3-Clause */
/* A flat JSON object parser for sluice-gen's control socket (see ctl.h). Nested objects and
 * arrays are refused: no request needs them. */
#include "ctl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cur {
	const char *p, *end;
};

static int fail(char *err, size_t el, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t el, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, el, fmt, ap);
	va_end(ap);
	return -1;
}

static void ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

/* A string into out (at most outlen - 1 bytes; longer is an error). Escapes: \" \\ \/ \n \t
 * \r \b \f, and \u00XX for ASCII. */
static int string(struct cur *c, char *out, size_t outlen, char *err, size_t el)
{
	size_t n = 0;
	if (c->p >= c->end || *c->p != '"')
		return fail(err, el, "a string was expected");
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;
		if ((unsigned char)ch < 0x20)
			return fail(err, el, "a control character in a string");
		if (ch == '\\') {
			if (c->p >= c->end)
				break;
			char e = *c->p++;
			static const char from[] = "\"\\/ntrbf", to[] = "\"\\/\n\t\r\b\f";
			const char *k = strchr(from, e);
			if (e && k) {
				ch = to[k - from];
			} else if (e == 'u' && c->end - c->p >= 4) {
				char hex[5] = {c->p[0], c->p[1], c->p[2], c->p[3], 0}, *endp;
				long v = strtol(hex, &endp, 16);
				if (*endp || v < 1 || v > 0x7f)
					return fail(err, el, "only \\u0001 to \\u007f are taken");
				ch = (char)v;
				c->p += 4;
			} else {
				return fail(err, el, "a bad escape in a string");
			}
		}
		if (n + 1 >= outlen)
			return fail(err, el, "a string longer than %zu bytes", outlen - 1);
		out[n++] = ch;
	}
	if (c->p >= c->end)
		return fail(err, el, "a string is not closed");
	c->p++;
	out[n] = 0;
	return 0;
}

static int word(struct cur *c, const char *w)
{
	size_t l = strlen(w);
	if ((size_t)(c->end - c->p) < l || memcmp(c->p, w, l))
		return 0;
	c->p += l;
	return 1;
}

int gen_ctl_parse(const char *text, size_t len, struct gen_ctl_req *r, char *err, size_t el)
{
	struct cur c = {text, text + len};
	memset(r, 0, sizeof(*r));
	ws(&c);
	if (c.p >= c.end || *c.p != '{')
		return fail(err, el, "a request is one JSON object, {...}");
	c.p++;
	ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
	} else {
		for (;;) {
			if (r->n == GEN_CTL_MAX_KEYS)
				return fail(err, el, "more than %d keys", GEN_CTL_MAX_KEYS);
			struct gen_ctl_kv *kv = &r->kv[r->n];
			ws(&c);
			if (string(&c, kv->key, sizeof(kv->key), err, el))
				return -1;
			for (int k = 0; k < r->n; k++)
				if (!strcmp(r->kv[k].key, kv->key))
					return fail(err, el, "key \"%s\" given twice", kv->key);
			ws(&c);
			if (c.p >= c.end || *c.p != ':')
				return fail(err, el, "':' was expected after \"%s\"", kv->key);
			c.p++;
			ws(&c);
			if (c.p < c.end && *c.p == '"') {
				kv->type = 's';
				if (string(&c, kv->str, sizeof(kv->str), err, el))
					return -1;
			} else if (word(&c, "true")) {
				kv->type = 'b';
				kv->num = 1;
			} else if (word(&c, "false")) {
				kv->type = 'b';
			} else if (word(&c, "null")) {
				kv->type = 'z';
			} else {
				char num[64];
				size_t n = 0;
				while (c.p < c.end && n + 1 < sizeof(num) && strchr("+-0123456789.eE", *c.p) && *c.p)
					num[n++] = *c.p++;
				num[n] = 0;
				char *endp;
				if (!n)
					return fail(err, el, "the value of \"%s\" must be a string, a number, "
						    "true, false or null", kv->key);
				kv->num = strtod(num, &endp);
				if (*endp)
					return fail(err, el, "\"%s\" is not a number", num);
				kv->type = 'n';
			}
			r->n++;
			ws(&c);
			if (c.p < c.end && *c.p == ',') {
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}') {
				c.p++;
				break;
			}
			return fail(err, el, "',' or '}' was expected");
		}
	}
	ws(&c);
	if (c.p != c.end)
		return fail(err, el, "text after the object");
	return 0;
}

const struct gen_ctl_kv *gen_ctl_get(const struct gen_ctl_req *r, const char *key)
{
	for (int k = 0; k < r->n; k++)
		if (!strcmp(r->kv[k].key, key))
			return &r->kv[k];
	return NULL;
}
