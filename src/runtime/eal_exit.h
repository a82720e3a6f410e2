/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_eal_cleanup(), then the removal of the process's DPDK runtime folder
 * (/run/dpdk/PREFIX: config, fbarray files of several MB with --no-huge), which DPDK 22.11
 * leaves behind in RAM-backed /run after every run. Each Sluice program runs under a
 * --file-prefix of its own, as a primary process: nothing else uses that folder then. */
#ifndef SL_EAL_EXIT_H
#define SL_EAL_EXIT_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <rte_eal.h>

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

static inline int sl_eal_cleanup(void)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	int rc = rte_eal_cleanup();
	if (primary)
		sl_remove_runtime_dir(dir);
	return rc;
}

#endif
