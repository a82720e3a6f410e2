/* SPDX-License-Identifier: BSD-3-Clause */
/* sluicectl: sends CLI commands to sluiced over its unix socket, like vppctl. */
#include <errno.h>
#include <stdio.h>
#include "../src/cli/braces.h"
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int conn(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "sluicectl: cannot connect to %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Sends one command, prints the answer; returns 0 on success, 1 on a command error,
 * 2 if the connection failed. */
static int run(int fd, const char *line, int json)
{
	size_t l = strlen(line);
	char *req = malloc(l + 4);
	if (!req)
		return 2;
	snprintf(req, l + 4, "%c %s\n", json ? 'J' : 'T', line);
	for (char *p = req + 2; *p && p < req + l + 2; p++)
		if (*p == '\n')
			*p = ' ';
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		free(req);
		return 2;
	}
	free(req);
	char buf[65536];
	int nul = 0;
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r <= 0)
			return 2;
		for (ssize_t i = 0; i < r; i++) {
			if (nul)
				return buf[i] == '0' ? 0 : 1;
			if (buf[i] == 0) {
				nul = 1;
				fwrite(buf, 1, (size_t)i, stdout);
				if (i + 1 < r)
					return buf[i + 1] == '0' ? 0 : 1;
				break;
			}
		}
		if (!nul)
			fwrite(buf, 1, (size_t)r, stdout);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	const char *sock = getenv("SLUICE_SOCKET");
	int json = 0, i;
	if (!sock)
		sock = "/run/sluice/cli.sock";
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			sock = argv[++i];
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: sluicectl [-s SOCKET] [--json] [COMMAND...]\n"
			       "With no command, reads commands at a prompt.\n");
			return 0;
		} else
			break;
	}
	int fd = conn(sock);
	if (fd < 0)
		return 2;
	if (i < argc) {
		size_t len = 1;
		for (int k = i; k < argc; k++)
			len += strlen(argv[k]) + 3;
		char *line = calloc(1, len);
		if (!line)
			return 2;
		/* like vppctl: the words are joined; "show version" as one word works too */
		for (int k = i; k < argc; k++) {
			strcat(line, k > i ? " " : "");
			strcat(line, argv[k]);
		}
		int rc = run(fd, line, json);
		free(line);
		close(fd);
		return rc;
	}
	int tty = isatty(0), rc = 0, depth = 0;
	char *line = NULL, *cmd = NULL;
	size_t cap = 0, clen = 0;
	for (;;) {
		if (tty) {
			printf(depth > 0 ? "...... " : "sluice# ");
			fflush(stdout);
		}
		if (getline(&line, &cap, stdin) < 0)
			break;
		line[strcspn(line, "\n")] = 0;
		if (depth == 0 && (!strcmp(line, "quit") || !strcmp(line, "exit")))
			break;
		/* a command whose braces are open goes on over the next lines */
		size_t l = strlen(line);
		char *nc = realloc(cmd, clen + l + 2);
		if (!nc)
			break;
		cmd = nc;
		memcpy(cmd + clen, line, l);
		clen += l;
		cmd[clen++] = ' ';
		cmd[clen] = 0;
		depth = sl_cli_brace_depth(line, depth);
		if (depth > 0)
			continue;
		clen = 0;
		depth = 0;
		if (!cmd[strspn(cmd, " ")])
			continue;
		rc = run(fd, cmd, json);
		if (rc == 2)
			break;
	}
	free(cmd);
	free(line);
	close(fd);
	return rc == 2 ? 2 : 0;
}
