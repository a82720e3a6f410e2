/* SPDX-License-Identifier: BSD-3-Clause */
/* Unix-socket CLI server: non-blocking, run on the main lcore so commands never race. */
#define _GNU_SOURCE
#include "server.h"
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CLIENTS 16
#define MAX_LINE (1 << 20) /* an ACL of thousands of rules is one line */

struct client {
	int fd;
	size_t len;
	char buf[MAX_LINE];
};

static int lfd = -1;
static char lpath[108];
static struct client *clients[MAX_CLIENTS];

int sl_cli_server_open(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	char dir[sizeof(sa.sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
	}
	strcpy(sa.sun_path, path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	unlink(path);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 8)) {
		int e = errno;
		close(lfd);
		lfd = -1;
		return -e;
	}
	chmod(path, 0660);
	snprintf(lpath, sizeof(lpath), "%s", path);
	return 0;
}

static void drop_client(int i)
{
	close(clients[i]->fd);
	free(clients[i]);
	clients[i] = NULL;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pf = {.fd = fd, .events = POLLOUT};
				if (poll(&pf, 1, 1000) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int run_line(struct client *c, char *line)
{
	struct sl_out o = {0};
	const char *cmd = line;
	if ((line[0] == 'J' || line[0] == 'T') && line[1] == ' ') {
		o.json = line[0] == 'J';
		cmd = line + 2;
	}
	int rc = sl_cli_exec(&o, cmd);
	size_t len;
	char *out = sl_out_finish(&o, &len);
	char tail[2] = {0, rc ? '1' : '0'};
	int w = (out ? write_all(c->fd, out, len) : 0) || write_all(c->fd, tail, 2);
	free(out);
	return w;
}

static void client_read(int i)
{
	struct client *c = clients[i];
	ssize_t r = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (r <= 0) {
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		drop_client(i);
		return;
	}
	c->len += (size_t)r;
	c->buf[c->len] = 0;
	char *nl;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		*nl = 0;
		if (run_line(c, c->buf)) {
			drop_client(i);
			return;
		}
		size_t used = (size_t)(nl + 1 - c->buf);
		memmove(c->buf, nl + 1, c->len - used);
		c->len -= used;
		c->buf[c->len] = 0;
	}
	if (c->len >= sizeof(c->buf) - 1) {
		const char msg[] = "error: line too long\n\0" "1";
		write_all(c->fd, msg, sizeof(msg) - 1);
		drop_client(i);
	}
}

void sl_cli_server_poll(int timeout_ms, int wake_fd)
{
	struct pollfd pf[MAX_CLIENTS + 2];
	int idx[MAX_CLIENTS + 2], n = 0;
	if (lfd < 0)
		return;
	pf[n].fd = lfd;
	pf[n].events = POLLIN;
	idx[n++] = -1;
	pf[n].fd = wake_fd; /* a negative fd is left out by poll() */
	pf[n].events = POLLIN;
	idx[n++] = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (clients[i]) {
			pf[n].fd = clients[i]->fd;
			pf[n].events = POLLIN;
			idx[n++] = i;
		}
	if (poll(pf, n, timeout_ms) <= 0)
		return;
	if (pf[1].revents & POLLIN) {
		uint64_t v;
		ssize_t r = read(wake_fd, &v, sizeof(v));
		(void)r; /* the counter is reset; nothing else to read */
	}
	for (int k = 2; k < n; k++)
		if (pf[k].revents && clients[idx[k]])
			client_read(idx[k]);
	if (pf[0].revents & POLLIN) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		for (int i = 0; i < MAX_CLIENTS; i++)
			if (!clients[i]) {
				clients[i] = calloc(1, sizeof(struct client));
				if (!clients[i])
					break;
				clients[i]->fd = fd;
				return;
			}
		close(fd);
	}
}

void sl_cli_server_close(void)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (clients[i])
			drop_client(i);
	if (lfd >= 0) {
		close(lfd);
		unlink(lpath);
		lfd = -1;
	}
}
