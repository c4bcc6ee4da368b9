/*
 * struct err carries a message for people out of a failed call, in the
 * manner of flux_error_t: "sluice.conf:12: NodeName=node[01-4: unterminated
 * range".  It is a fixed buffer, so filling it never fails.
 */
#ifndef SLUICE_ERR_H
#define SLUICE_ERR_H

#include <stdarg.h>

#define ERR_TEXT_MAX 512

struct err {
    char text[ERR_TEXT_MAX];
};

/* err_set: format into e (e may be NULL); always returns -1, keeps errno. */
int err_set(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int err_vset(struct err *e, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* err_inval: format into e, set errno to EINVAL, return -1 (bad input). */
int err_inval(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* err_prefix: prepend "prefix: " to the existing message. */
int err_prefix(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void err_clear(struct err *e);

#endif
