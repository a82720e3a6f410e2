/* SPDX-License-Identifier: BSD-3-Clause */
#include "slab.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int slab_grow(struct sl_slab *s)
{
	if (s->nchunks == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 8;
		void **c = realloc(s->chunks, cap * sizeof(*c));
		if (!c)
			return -1;
		s->chunks = c;
		s->cap = cap;
	}
	uint8_t *m = aligned_alloc(SL_SLAB_CHUNK, SL_SLAB_CHUNK);
	if (!m)
		return -1;
	/* where the kernel's transparent huge pages are "madvise" (Debian's default) */
	(void)madvise(m, SL_SLAB_CHUNK, MADV_HUGEPAGE);
	s->chunks[s->nchunks++] = m;
	s->cur = m;
	s->end = m + SL_SLAB_CHUNK;
	return 0;
}

void *sl_slab_get(struct sl_slab *s)
{
	void *p = s->free;
	if (p) {
		memcpy(&s->free, p, sizeof(void *));
	} else {
		if (s->cur == s->end && slab_grow(s))
			return NULL;
		p = s->cur;
		s->cur += s->size;
	}
	s->live++;
	memset(p, 0, s->size);
	return p;
}

void sl_slab_put(struct sl_slab *s, void *p)
{
	if (!p)
		return;
	memcpy(p, &s->free, sizeof(void *));
	s->free = p;
	s->live--;
}

void sl_slab_release(struct sl_slab *s)
{
	for (uint32_t i = 0; i < s->nchunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	s->chunks = NULL;
	s->nchunks = s->cap = 0;
	s->free = NULL;
	s->cur = s->end = NULL;
	s->live = 0;
}
