/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_eal_cleanup(), with the EAL's interrupt thread parked first, then the removal of the
 * process's DPDK runtime folder (/run/dpdk/PREFIX: config, fbarray files of several MB with
 * --no-huge), which DPDK 22.11 leaves behind in RAM-backed /run after every run. Each Sluice
 * program runs under a --file-prefix of its own, as a primary process: nothing else uses that
 * folder then. */
#ifndef SL_EAL_EXIT_H
#define SL_EAL_EXIT_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_interrupts.h>

/* The runtime folder DIR and the files in it. */
static inline void sl_remove_runtime_dir(const char *dir)
{
	DIR *d = dir[0] ? opendir(dir) : NULL;
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

/* The interrupt thread, once parked: in sl_intr_park_cb until the process exits. State of
 * this header's includer: one translation unit per program parks (sluiced.c, sluice_gen.c,
 * test_nodes.c); a second one's sl_intr_park would register again and wait its second out. */
static int sl_intr_parked;
static struct rte_intr_handle *sl_intr_park_handle; /* kept: reachable for LeakSanitizer */

static void sl_intr_park_cb(void *arg)
{
	(void)arg;
	__atomic_store_n(&sl_intr_parked, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
}

/* DPDK 22.11's rte_eal_cleanup unmaps the EAL's memory with the interrupt thread still
 * running, and that thread walks its interrupt sources (some of them, memif's, in that
 * memory) whenever something wakes it: a callback unregistered as a port closes, a memif
 * peer hanging up after our disconnect. A SIGSEGV at exit in rte_intr_fd_get, in the test
 * suite under load (6 of 10 runs of the emulator tests with a busy loop on the second CPU).
 * So the thread is handed an event of ours whose callback never returns: parked there (in
 * pause()), it touches nothing until exit() ends it. Waits for it at most a second (a thread
 * stuck in another callback: cleaned up as before). The programs park it once their
 * forwarding has stopped, before they close their ports: a memif port's close and the
 * interrupt thread's handling of its peer's hang-up (sluice-gen's two memif ends in one
 * process) then cannot race in the PMD; nothing of Sluice's own uses the thread. */
static inline void sl_intr_park(void)
{
	if (sl_intr_park_handle)
		return;
	int fd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK); /* readable at once */
	struct rte_intr_handle *h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (fd < 0 || !h || rte_intr_fd_set(h, fd) || rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) ||
	    rte_intr_callback_register(h, sl_intr_park_cb, NULL) < 0) {
		rte_intr_instance_free(h);
		if (fd >= 0)
			close(fd);
		return;
	}
	sl_intr_park_handle = h;
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();
	while (!__atomic_load_n(&sl_intr_parked, __ATOMIC_ACQUIRE) && rte_get_timer_cycles() < end)
		usleep(100);
}

static inline int sl_eal_cleanup(void)
{
	sl_intr_park();
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	int rc = rte_eal_cleanup();
	if (primary)
		sl_remove_runtime_dir(dir);
	return rc;
}

#endif
