/* SPDX-License-Identifier: BSD-3-Clause */
/* CLI: a registry of VPP-style commands, a tokenizer, and text/JSON output. */
#ifndef SL_CLI_H
#define SL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SL_CLI_MAX_ARGS 512 /* words of a pg or generator stream (sl_cli_exec has no limit) */
#define SL_TBL_MAX_COLS 24

struct sl_buf {
	char *p;
	size_t len, cap;
};
void sl_buf_printf(struct sl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_buf_free(struct sl_buf *b);

/* Output of one command: text, or JSON when json is set. */
struct sl_out {
	bool json;
	bool err;
	struct sl_buf text;   /* messages and rendered tables */
	struct sl_buf js;     /* JSON members, comma separated */
	/* current table */
	int ncols;
	const char *cols[SL_TBL_MAX_COLS];
	char types[SL_TBL_MAX_COLS];   /* 's' string, 'u' number */
	char **cells;
	size_t nrows, cap;
	const char *tname;
};

void sl_out_msg(struct sl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error: clear text for people; {"error": ...} for machines. Returns -1. */
int sl_out_error(struct sl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A table: name (the JSON key), then "col:type" specs, e.g. "rx-packets:u". */
void sl_tbl_begin(struct sl_out *o, const char *name, int ncols, const char *const *specs);
void sl_tbl_row(struct sl_out *o, ...);   /* ncols strings */
void sl_tbl_rowv(struct sl_out *o, char **vals);
void sl_tbl_end(struct sl_out *o);
/* Final reply: text or a JSON object. Caller frees. */
char *sl_out_finish(struct sl_out *o, size_t *len);

typedef int (*sl_cli_fn)(struct sl_out *o, int argc, char **argv);

struct sl_cli_cmd {
	const char *path;   /* "show ip fib" */
	const char *usage;  /* arguments after the path */
	const char *help;
	sl_cli_fn fn;
	struct sl_cli_cmd *next;
};
void sl_cli_register(struct sl_cli_cmd *c);
#define SL_CLI_COMMAND(id, ...)                                              \
	static struct sl_cli_cmd sl_clicmd_##id = {__VA_ARGS__};                 \
	__attribute__((constructor)) static void sl_clicmd_reg_##id(void)         \
	{                                                                      \
		sl_cli_register(&sl_clicmd_##id);                                 \
	}

/* Splits a line into words; "quoted strings" are kept. Returns argc or -1. */
int sl_cli_tokenize(char *line, char **argv, int max);
/* Runs one command line. Returns 0 or -1 (the error is in o). */
int sl_cli_exec(struct sl_out *o, const char *line);
/* Runs a file of commands, stopping at the first error (reported with file:line). */
int sl_cli_exec_file(struct sl_out *o, const char *path);

/* Argument helpers: return 0 or -1 after writing an error naming the argument. */
int sl_arg_u32(struct sl_out *o, const char *what, const char *s, uint32_t min, uint32_t max,
	       uint32_t *v);
int sl_arg_ip4(struct sl_out *o, const char *s, uint32_t *ip);          /* host order */
int sl_arg_prefix4(struct sl_out *o, const char *s, uint32_t *ip, uint8_t *len);
int sl_arg_ip6(struct sl_out *o, const char *s, uint8_t ip[16]);
int sl_arg_prefix6(struct sl_out *o, const char *s, uint8_t ip[16], uint8_t *len);
int sl_arg_mac(struct sl_out *o, const char *s, uint8_t mac[6]);
void sl_fmt_ip4(char *buf, uint32_t ip);
/* aa:bb:cc:dd:ee:ff into buf (at least 18 bytes). */
void sl_fmt_mac(char *buf, const uint8_t mac[6]);

#endif
