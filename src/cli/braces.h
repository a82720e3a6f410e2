/* SPDX-License-Identifier: BSD-3-Clause */
/* A command may span lines while its braces are open (packet-generator new { ... }): the
 * exec reader and sluicectl's prompt join lines until this count is back to zero. */
#ifndef SL_BRACES_H
#define SL_BRACES_H

static inline int sl_cli_brace_depth(const char *s, int depth)
{
	for (int q = 0; *s; s++) {
		if (*s == '"')
			q = !q;
		else if (!q && *s == '{')
			depth++;
		else if (!q && *s == '}')
			depth--;
	}
	return depth;
}

#endif
