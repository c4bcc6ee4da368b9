/*
 * Output file patterns (stdpath.h).
 */
#include "common/stdpath.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct sbuf {
    char *s;
    size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_num(struct sbuf *b, uint64_t v, int width)
{
    char buf[48];
    int n = snprintf(buf, sizeof(buf), "%0*" PRIu64, width, v);

    sb_add(b, buf, (size_t)n);
}

/* One %-letter; 0 when the letter is unknown. */
static int expand_one(struct sbuf *b, char c, int width,
                      const struct stdpath_job *j)
{
    switch (c) {
    case 'j':
    case 'J': /* jobid.stepid; the batch script's is the job id alone */
        sb_num(b, j->job_id, width);
        return 1;
    case 'A':
        sb_num(b, j->is_array ? j->array_job_id : j->job_id, width);
        return 1;
    case 'a':
        sb_num(b, j->is_array ? j->array_task_id : STDPATH_NO_ARRAY_TASK,
               width);
        return 1;
    case 'n':
    case 't':
        sb_num(b, 0, width);
        return 1;
    case 'x':
        sb_add(b, j->name, strlen(j->name));
        return 1;
    case 'u':
        sb_add(b, j->user, strlen(j->user));
        return 1;
    case 'N':
        sb_add(b, j->node, strcspn(j->node, "."));
        return 1;
    case 's':
        sb_add(b, "batch", 5);
        return 1;
    default:
        return 0;
    }
}

char *stdpath_expand(const char *pattern, const struct stdpath_job *j)
{
    struct sbuf b = {0};

    sb_add(&b, "", 0);
    if (strchr(pattern, '\\') != NULL) {
        for (const char *p = pattern; *p != '\0'; p++)
            if (*p != '\\')
                sb_add(&b, p, 1);
        return b.s;
    }
    for (const char *p = pattern; *p != '\0'; p++) {
        const char *q = p + 1;
        int width = 0;
        if (*p != '%') {
            sb_add(&b, p, 1);
            continue;
        }
        if (*q == '%') {
            sb_add(&b, "%", 1);
            p = q;
            continue;
        }
        while (isdigit((unsigned char)*q) && width < 100)
            width = width * 10 + (*q++ - '0');
        if (width > 10)
            width = 10;
        if (*q != '\0' && expand_one(&b, *q, width, j)) {
            p = q;
            continue;
        }
        sb_add(&b, p, 1); /* unknown: keep the '%' and go on */
    }
    return b.s;
}

char *stdpath_resolve(const char *pattern, const struct stdpath_job *j,
                      const char *work_dir)
{
    char *name, *path;

    if (pattern == NULL || pattern[0] == '\0')
        pattern = STDPATH_DEFAULT;
    name = stdpath_expand(pattern, j);
    if (name[0] == '/')
        return name;
    path = xasprintf("%s/%s", work_dir, name);
    free(name);
    return path;
}
