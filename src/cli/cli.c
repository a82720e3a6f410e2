/* SPDX-License-Identifier: BSD-3-Clause */
/* CLI registry, tokenizer, dispatch with help at every level, and text/JSON output. */
#include "cli.h"
#include "braces.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sl_cli_cmd *cmds;

void sl_cli_register(struct sl_cli_cmd *c)
{
	/* keep sorted by path for help */
	struct sl_cli_cmd **pp = &cmds;
	while (*pp && strcmp((*pp)->path, c->path) < 0)
		pp = &(*pp)->next;
	c->next = *pp;
	*pp = c;
}

void sl_buf_printf(struct sl_buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = b->p ? vsnprintf(b->p + b->len, room, fmt, ap) : -2;
		va_end(ap);
		if (n >= 0 && (size_t)n < room) {
			b->len += n;
			return;
		}
		size_t need = b->len + (n > 0 ? (size_t)n : 0) + 256;
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < need)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			abort();
		b->p = p;
		b->cap = cap;
	}
}

void sl_buf_free(struct sl_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void json_str(struct sl_buf *b, const char *s)
{
	sl_buf_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sl_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			sl_buf_printf(b, "\\u%04x", c);
		else
			sl_buf_printf(b, "%c", c);
	}
	sl_buf_printf(b, "\"");
}

static void js_member(struct sl_out *o, const char *key)
{
	if (o->js.len)
		sl_buf_printf(&o->js, ", ");
	json_str(&o->js, key);
	sl_buf_printf(&o->js, ": ");
}

void sl_out_msg(struct sl_out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (o->json) {
		js_member(o, "message");
		json_str(&o->js, tmp);
	} else {
		sl_buf_printf(&o->text, "%s\n", tmp);
	}
}

int sl_out_error(struct sl_out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	o->err = true;
	if (o->json) {
		js_member(o, "error");
		json_str(&o->js, tmp);
	} else {
		sl_buf_printf(&o->text, "error: %s\n", tmp);
	}
	return -1;
}

void sl_tbl_begin(struct sl_out *o, const char *name, int ncols, const char *const *specs)
{
	if (ncols > SL_TBL_MAX_COLS) /* a command with more columns is a bug: stop at once */
		abort();
	o->tname = name;
	o->ncols = ncols;
	o->nrows = 0;
	for (int i = 0; i < ncols; i++) {
		const char *c = strchr(specs[i], ':');
		o->cols[i] = specs[i];
		o->types[i] = c ? c[1] : 's';
	}
}

void sl_tbl_rowv(struct sl_out *o, char **vals)
{
	if ((o->nrows + 1) * o->ncols > o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64 * SL_TBL_MAX_COLS;
		o->cells = realloc(o->cells, o->cap * sizeof(char *));
		if (!o->cells)
			abort();
	}
	for (int i = 0; i < o->ncols; i++)
		o->cells[o->nrows * o->ncols + i] = strdup(vals[i] ? vals[i] : "");
	o->nrows++;
}

void sl_tbl_row(struct sl_out *o, ...)
{
	char *vals[SL_TBL_MAX_COLS];
	va_list ap;
	va_start(ap, o);
	for (int i = 0; i < o->ncols; i++)
		vals[i] = va_arg(ap, char *);
	va_end(ap);
	sl_tbl_rowv(o, vals);
}

static size_t col_name_len(const char *spec)
{
	const char *c = strchr(spec, ':');
	return c ? (size_t)(c - spec) : strlen(spec);
}

void sl_tbl_end(struct sl_out *o)
{
	if (o->json) {
		js_member(o, o->tname);
		sl_buf_printf(&o->js, "[");
		for (size_t r = 0; r < o->nrows; r++) {
			sl_buf_printf(&o->js, "%s{", r ? ", " : "");
			for (int i = 0; i < o->ncols; i++) {
				char key[64];
				snprintf(key, sizeof(key), "%.*s", (int)col_name_len(o->cols[i]),
					 o->cols[i]);
				const char *v = o->cells[r * o->ncols + i];
				sl_buf_printf(&o->js, "%s", i ? ", " : "");
				json_str(&o->js, key);
				sl_buf_printf(&o->js, ": ");
				if (o->types[i] == 'u' && v[0])
					sl_buf_printf(&o->js, "%s", v);
				else
					json_str(&o->js, v);
			}
			sl_buf_printf(&o->js, "}");
		}
		sl_buf_printf(&o->js, "]");
	} else {
		size_t w[SL_TBL_MAX_COLS];
		for (int i = 0; i < o->ncols; i++) {
			w[i] = col_name_len(o->cols[i]);
			for (size_t r = 0; r < o->nrows; r++) {
				size_t l = strlen(o->cells[r * o->ncols + i]);
				if (l > w[i])
					w[i] = l;
			}
		}
		for (int i = 0; i < o->ncols; i++)
			sl_buf_printf(&o->text, "%-*.*s%s", (int)w[i], (int)col_name_len(o->cols[i]),
				      o->cols[i], i + 1 < o->ncols ? "  " : "\n");
		for (size_t r = 0; r < o->nrows; r++)
			for (int i = 0; i < o->ncols; i++) {
				const char *v = o->cells[r * o->ncols + i];
				if (o->types[i] == 'u')
					sl_buf_printf(&o->text, "%*s", (int)w[i], v);
				else
					sl_buf_printf(&o->text, "%-*s", (int)w[i], v);
				sl_buf_printf(&o->text, "%s", i + 1 < o->ncols ? "  " : "\n");
			}
	}
	for (size_t k = 0; k < o->nrows * o->ncols; k++)
		free(o->cells[k]);
	o->nrows = 0;
}

char *sl_out_finish(struct sl_out *o, size_t *len)
{
	struct sl_buf b = {0};
	if (o->json) {
		sl_buf_printf(&b, "{\"ok\": %s%s%s}\n", o->err ? "false" : "true",
			      o->js.len ? ", " : "", o->js.len ? o->js.p : "");
	} else {
		sl_buf_printf(&b, "%s", o->text.len ? o->text.p : "");
	}
	sl_buf_free(&o->text);
	sl_buf_free(&o->js);
	free(o->cells);
	o->cells = NULL;
	o->cap = 0;
	*len = b.len;
	return b.p;
}

int sl_cli_tokenize(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == 0 || *p == '#')
			return argc;
		if (argc >= max)
			return -1;
		if (*p == '"') {
			argv[argc++] = ++p;
			while (*p && *p != '"')
				p++;
			if (*p != '"')
				return -1;
			*p++ = 0;
			continue;
		}
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		if (*p)
			*p++ = 0;
	}
}

/* How many words of the command path match argv; -1 if they differ. */
static int path_match(const char *path, int argc, char **argv, bool *full)
{
	int i = 0;
	const char *p = path;
	*full = false;
	while (*p) {
		const char *e = strchr(p, ' ');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (i >= argc)
			return i;
		if (strlen(argv[i]) != l || strncmp(argv[i], p, l))
			return i ? -2 - i : -1;
		i++;
		p += l;
		while (*p == ' ')
			p++;
	}
	*full = true;
	return i;
}

static void help_under(struct sl_out *o, int argc, char **argv)
{
	sl_tbl_begin(o, "commands", 2, (const char *[]){"command", "help"});
	for (struct sl_cli_cmd *c = cmds; c; c = c->next) {
		bool full;
		int m = path_match(c->path, argc, argv, &full);
		if (m == argc || (full && m == argc)) {
			char line[256];
			snprintf(line, sizeof(line), "%s%s%s", c->path, c->usage[0] ? " " : "",
				 c->usage);
			sl_tbl_row(o, line, c->help);
		}
	}
	sl_tbl_end(o);
}

static int dispatch(struct sl_out *o, int argc, char **argv)
{
	if (argc == 0)
		return 0;
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "?")) {
		help_under(o, argc - 1, argv + 1);
		return 0;
	}
	if (!strcmp(argv[argc - 1], "help") || !strcmp(argv[argc - 1], "?")) {
		help_under(o, argc - 1, argv);
		return 0;
	}
	struct sl_cli_cmd *best = NULL;
	int best_n = 0, partial = 0;
	for (struct sl_cli_cmd *c = cmds; c; c = c->next) {
		bool full;
		int m = path_match(c->path, argc, argv, &full);
		if (full && m > best_n) {
			best = c;
			best_n = m;
		}
		if (!full && m == argc)
			partial = 1;
		if (m < -1 && -2 - m > partial)
			partial = -2 - m;
	}
	if (!best) {
		if (partial == 1 || (partial > 0 && partial >= argc)) {
			sl_out_error(o, "incomplete command '%s'; one of:", argv[0]);
			help_under(o, argc, argv);
			return -1;
		}
		char pre[256] = "";
		for (int i = 0; i < argc && i < 6; i++)
			snprintf(pre + strlen(pre), sizeof(pre) - strlen(pre), "%s%s", i ? " " : "",
				 argv[i]);
		return sl_out_error(o, "unknown command '%s' (try 'help')", pre);
	}
	return best->fn(o, argc - best_n, argv + best_n);
}

int sl_cli_exec(struct sl_out *o, const char *line)
{
	/* as many words as the line can hold (an ACL's rules are one line): one and a space
	 * each */
	size_t max = strlen(line) / 2 + 2;
	char *copy = strdup(line);
	char **argv = malloc(max * sizeof(*argv));
	int rc;
	if (!copy || !argv) {
		rc = sl_out_error(o, "out of memory");
		goto out;
	}
	int argc = sl_cli_tokenize(copy, argv, (int)(max < INT32_MAX ? max : INT32_MAX));
	if (argc < 0)
		rc = sl_out_error(o, "cannot parse line (unbalanced quote)");
	else
		rc = dispatch(o, argc, argv);
out:
	free(argv);
	free(copy);
	return rc;
}

int sl_cli_exec_file(struct sl_out *o, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return sl_out_error(o, "%s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	struct sl_buf cmd = {0};
	int first = 0, depth = 0;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (depth == 0) {
			cmd.len = 0;
			first = lineno;
		}
		line[strcspn(line, "\r\n")] = 0;
		sl_buf_printf(&cmd, "%s ", line);
		depth = sl_cli_brace_depth(line, depth);
		if (depth > 0)
			continue; /* the command goes on until its braces close */
		rc = sl_cli_exec(o, cmd.p);
		if (rc) {
			sl_out_error(o, "%s:%d: command failed: %s", path, first, cmd.p);
			break;
		}
	}
	if (!rc && depth > 0)
		rc = sl_out_error(o, "%s:%d: '{' not closed by the end of the file", path, first);
	sl_buf_free(&cmd);
	free(line);
	fclose(f);
	return rc;
}

int sl_arg_u32(struct sl_out *o, const char *what, const char *s, uint32_t min, uint32_t max,
	       uint32_t *v)
{
	char *end;
	if (!s)
		return sl_out_error(o, "missing %s", what);
	errno = 0;
	unsigned long x = strtoul(s, &end, 0);
	if (errno || *end || !*s || s[0] == '-' || x < min || x > max)
		return sl_out_error(o, "%s must be a number from %u to %u, not '%s'", what, min, max,
				    s);
	*v = (uint32_t)x;
	return 0;
}

int sl_arg_ip4(struct sl_out *o, const char *s, uint32_t *ip)
{
	struct in_addr a;
	if (!s)
		return sl_out_error(o, "missing IPv4 address");
	if (inet_pton(AF_INET, s, &a) != 1)
		return sl_out_error(o, "'%s' is not an IPv4 address", s);
	*ip = ntohl(a.s_addr);
	return 0;
}

int sl_arg_prefix4(struct sl_out *o, const char *s, uint32_t *ip, uint8_t *len)
{
	char tmp[64];
	if (!s)
		return sl_out_error(o, "missing IPv4 prefix");
	const char *slash = strchr(s, '/');
	if (!slash || (size_t)(slash - s) >= sizeof(tmp))
		return sl_out_error(o, "'%s' is not a prefix (A.B.C.D/LEN)", s);
	memcpy(tmp, s, slash - s);
	tmp[slash - s] = 0;
	struct in_addr a;
	char *end;
	long l = strtol(slash + 1, &end, 10);
	if (inet_pton(AF_INET, tmp, &a) != 1 || *end || end == slash + 1 || l < 0 || l > 32)
		return sl_out_error(o, "'%s' is not a prefix (A.B.C.D/LEN)", s);
	*ip = ntohl(a.s_addr);
	*len = (uint8_t)l;
	return 0;
}

int sl_arg_ip6(struct sl_out *o, const char *s, uint8_t ip[16])
{
	if (!s)
		return sl_out_error(o, "missing IPv6 address");
	if (inet_pton(AF_INET6, s, ip) != 1)
		return sl_out_error(o, "'%s' is not an IPv6 address", s);
	return 0;
}

int sl_arg_prefix6(struct sl_out *o, const char *s, uint8_t ip[16], uint8_t *len)
{
	char tmp[64];
	if (!s)
		return sl_out_error(o, "missing IPv6 prefix");
	const char *slash = strchr(s, '/');
	if (!slash || (size_t)(slash - s) >= sizeof(tmp))
		return sl_out_error(o, "'%s' is not a prefix (X:X::X/LEN)", s);
	memcpy(tmp, s, slash - s);
	tmp[slash - s] = 0;
	char *end;
	long l = strtol(slash + 1, &end, 10);
	if (inet_pton(AF_INET6, tmp, ip) != 1 || *end || end == slash + 1 || l < 0 || l > 128)
		return sl_out_error(o, "'%s' is not a prefix (X:X::X/LEN)", s);
	*len = (uint8_t)l;
	return 0;
}

int sl_arg_mac(struct sl_out *o, const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char c;
	if (!s)
		return sl_out_error(o, "missing MAC address");
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &c) != 6 || strlen(s) != 17)
		return sl_out_error(o, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", s);
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

void sl_fmt_mac(char *buf, const uint8_t mac[6])
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		mac[5]);
}

void sl_fmt_ip4(char *buf, uint32_t ip)
{
	sprintf(buf, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}
