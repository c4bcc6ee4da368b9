/*
 * Error text for people, passed out of failing calls.
 */
#include "common/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"

int err_vset(struct err *e, const char *fmt, va_list ap)
{
    int saved = errno;

    /* a cut may split a character: keep the text valid UTF-8, or a JSON
     * reply carrying it could not be built */
    if (e != NULL) {
        vsnprintf(e->text, sizeof(e->text), fmt, ap);
        utf8_fix(e->text);
    }
    errno = saved;
    return -1;
}

int err_set(struct err *e, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(e, fmt, ap);
    va_end(ap);
    return -1;
}

int err_inval(struct err *e, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(e, fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
    char prefix[ERR_TEXT_MAX];
    char old[ERR_TEXT_MAX];
    va_list ap;
    int saved = errno;

    if (e == NULL)
        return -1;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, e->text, sizeof(old));
    /* Truncation is intended: the buffer is fixed so filling never fails. */
    size_t n = strnlen(prefix, sizeof(e->text) - 1);
    memcpy(e->text, prefix, n);
    size_t rest = sizeof(e->text) - n;
    if (rest > 2) {
        memcpy(e->text + n, ": ", 2);
        n += 2;
        size_t m = strnlen(old, sizeof(e->text) - n - 1);
        memcpy(e->text + n, old, m);
        n += m;
    }
    e->text[n] = '\0';
    utf8_fix(e->text);
    errno = saved;
    return -1;
}

void err_clear(struct err *e)
{
    if (e != NULL)
        e->text[0] = '\0';
}
