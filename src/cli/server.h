/* SPDX-License-Identifier: BSD-3-Clause */
/* Unix-socket CLI server polled by the main lcore. */
#ifndef SL_CLI_SERVER_H
#define SL_CLI_SERVER_H

/* Wire format: the client writes "T <line>\n" (text) or "J <line>\n" (JSON); the server
 * answers the output, then a NUL byte and '0' (success) or '1' (error). */
int sl_cli_server_open(const char *path);
/* Waits up to timeout_ms for requests and runs them; a readable wake_fd (an eventfd, or -1
 * for none) ends the wait too, and is read. */
void sl_cli_server_poll(int timeout_ms, int wake_fd);
void sl_cli_server_close(void);

#endif
