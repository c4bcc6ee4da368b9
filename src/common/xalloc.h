/*
 * Allocation that never returns NULL: out of memory aborts the process,
 * as in tmux and Redis.  Everything else in Sluice handles its errors.
 */
#ifndef SLUICE_XALLOC_H
#define SLUICE_XALLOC_H

#include <stddef.h>

/* All returned memory is owned by the caller and freed with free(). */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* xreallocarray: realloc for nmemb*size, aborting on overflow. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
