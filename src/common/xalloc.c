/*
 * Allocation wrappers: abort on out-of-memory so callers need no checks.
 */
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t size)
{
    fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        oom(size);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        oom(nmemb * size);
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p == NULL)
        oom(size);
    return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
    if (size != 0 && nmemb > (size_t)-1 / size)
        oom((size_t)-1);
    return xrealloc(ptr, nmemb * size);
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (p == NULL)
        oom(n);
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        oom(0);
    va_end(ap);
    return s;
}
