/*
 * Where srun puts its tasks' output: the terminal (or whatever its stdout
 * and stderr are) or the files of -o/-e patterns, whole lines at a time so
 * that two tasks' half lines never mix (Slurm's default), or bytes as they
 * come with -u; with -l each line starts with its task id.
 */
#include "cli/srun.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"

/* Queued output above this is written before more is taken. */
#define SRUN_OUT_HIGH (1u << 20)
/* A task's unfinished line is held up to this, then written as it is. */
#define SRUN_LINE_MAX (64u << 10)
/* Unlabelled output this large is written from where it lies. */
#define SRUN_OUT_DIRECT (64u << 10)

/* A file or fd output goes to, with what is queued for it. */
struct sr_dest {
    int fd;
    bool owned;  /* opened here: closed at the end */
    bool failed; /* a write failed: reported once, then dropped */
    char *path;  /* NULL for fds 1 and 2 */
    char *buf;
    size_t len, cap;
};

/* One stream of one task: its line not yet ended (line mode) or whether
 * the next byte starts a line (for -l). */
#define SR_DISCARD (-1)

struct sr_stream {
    int dest; /* index into dests, or SR_DISCARD */
    bool mid_line;
    char *part;
    size_t part_len, part_cap;
};

struct srun_out {
    uint32_t ntasks;
    bool label, unbuffered;
    bool append; /* files opened without truncating them */
    int width;
    struct sr_dest *dests;
    size_t n_dests;
    struct sr_stream *streams; /* [task * 2 + stream] */
};

int srun_label_width(uint32_t ntasks)
{
    int width = 1;

    for (uint32_t n = ntasks > 0 ? ntasks - 1 : 0; n >= 10; n /= 10)
        width++;
    return width;
}

static void sb_add(char **buf, size_t *len, size_t *cap, const void *s,
                   size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = 2 * (*len + n + 1);
        *buf = xrealloc(*buf, *cap);
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void sb_num(char **buf, size_t *len, size_t *cap, uint64_t v, int width)
{
    char num[48];
    int n = snprintf(num, sizeof(num), "%0*" PRIu64, width, v);

    sb_add(buf, len, cap, num, (size_t)n);
}

/* One %-letter of a pattern; 0 when the letter is not one. */
static int expand_one(char **b, size_t *len, size_t *cap, char c, int width,
                      const struct srun_step *s, uint32_t task)
{
    uint32_t node = task < s->ntasks ? s->task_node[task] : 0;
    const char *name = node < s->n_nodes ? s->nodes[node] : "";

    switch (c) {
    case 'j':
        sb_num(b, len, cap, s->job_id, width);
        return 1;
    case 's':
        sb_num(b, len, cap, s->step_id, width);
        return 1;
    case 't':
        sb_num(b, len, cap, task, width);
        return 1;
    case 'n':
        sb_num(b, len, cap, node, width);
        return 1;
    case 'A':
        sb_num(b, len, cap, s->array_job_id, width);
        return 1;
    case 'a':
        sb_num(b, len, cap, s->array_task_id, width);
        return 1;
    case 'N':
        sb_add(b, len, cap, name, strcspn(name, "."));
        return 1;
    case 'x':
        sb_add(b, len, cap, s->job_name, strlen(s->job_name));
        return 1;
    case 'u':
        sb_add(b, len, cap, s->user, strlen(s->user));
        return 1;
    default:
        return 0;
    }
}

/* Slurm's rule, as for sbatch's patterns: a pattern with a backslash is
 * taken literally, without its backslashes. */
char *srun_expand(const char *pattern, const struct srun_step *s, uint32_t task)
{
    char *b = NULL;
    size_t len = 0, cap = 0;

    sb_add(&b, &len, &cap, "", 0);
    if (strchr(pattern, '\\') != NULL) {
        for (const char *p = pattern; *p != '\0'; p++)
            if (*p != '\\')
                sb_add(&b, &len, &cap, p, 1);
        return b;
    }
    for (const char *p = pattern; *p != '\0'; p++) {
        const char *q = p + 1;
        int width = 0;
        if (*p != '%') {
            sb_add(&b, &len, &cap, p, 1);
            continue;
        }
        if (*q == '%') {
            sb_add(&b, &len, &cap, "%", 1);
            p = q;
            continue;
        }
        while (*q >= '0' && *q <= '9' && width < 100)
            width = width * 10 + (*q++ - '0');
        if (width > 10)
            width = 10;
        if (*q != '\0' && expand_one(&b, &len, &cap, *q, width, s, task)) {
            p = q;
            continue;
        }
        sb_add(&b, &len, &cap, p, 1); /* not a letter we know: as written */
    }
    return b;
}

static struct srun_out *out_new(uint32_t ntasks, bool label, bool unbuffered)
{
    struct srun_out *o = xcalloc(1, sizeof(*o));

    o->ntasks = ntasks;
    o->label = label;
    o->unbuffered = unbuffered;
    o->width = srun_label_width(ntasks);
    o->streams = xcalloc((size_t)ntasks * 2, sizeof(*o->streams));
    return o;
}

static int out_add_dest(struct srun_out *o, int fd, bool owned,
                        const char *path)
{
    o->dests = xreallocarray(o->dests, o->n_dests + 1, sizeof(*o->dests));
    o->dests[o->n_dests] = (struct sr_dest){
        .fd = fd, .owned = owned, .path = path ? xstrdup(path) : NULL};
    return (int)o->n_dests++;
}

struct srun_out *srun_out_fds(uint32_t ntasks, int out_fd, int err_fd,
                              bool label, bool unbuffered)
{
    struct srun_out *o = out_new(ntasks, label, unbuffered);
    int d_out = out_add_dest(o, out_fd, false, NULL);
    int d_err = err_fd == out_fd ? d_out : out_add_dest(o, err_fd, false, NULL);

    for (uint32_t t = 0; t < ntasks; t++) {
        o->streams[2 * t + SRUN_STDOUT].dest = d_out;
        o->streams[2 * t + SRUN_STDERR].dest = d_err;
    }
    return o;
}

/* The destination of path, opened (truncated) on first use; tasks whose
 * patterns expand alike share one file. */
static int out_file(struct srun_out *o, const char *path, struct err *e)
{
    int fd;

    for (size_t i = 0; i < o->n_dests; i++)
        if (o->dests[i].path != NULL && strcmp(o->dests[i].path, path) == 0)
            return (int)i;
    fd = open(path,
              O_WRONLY | O_CREAT | O_CLOEXEC | (o->append ? O_APPEND : O_TRUNC),
              0666);
    if (fd < 0)
        return err_set(e, "cannot open %s: %s", path, strerror(errno));
    return out_add_dest(o, fd, true, path);
}

/* The destination of one task's stream under pattern (NULL: the fd,
 * "none": SR_DISCARD); -2 with e when its file cannot be opened. */
static int out_dest(struct srun_out *o, const struct srun_step *s,
                    const char *pattern, uint32_t task, int fd, int *fd_dest,
                    struct err *e)
{
    char *path;
    int d;

    if (pattern == NULL) {
        if (*fd_dest < 0)
            *fd_dest = out_add_dest(o, fd, false, NULL);
        return *fd_dest;
    }
    if (strcmp(pattern, "none") == 0)
        return SR_DISCARD;
    path = srun_expand(pattern, s, task);
    d = out_file(o, path, e);
    free(path);
    return d < 0 ? -2 : d;
}

struct srun_out *srun_out_create(const struct srun_step *s,
                                 const char *out_pattern,
                                 const char *err_pattern, bool label,
                                 bool unbuffered, bool append, struct err *e)
{
    struct srun_out *o = out_new(s->ntasks, label, unbuffered);
    const char *errp = err_pattern != NULL ? err_pattern : out_pattern;
    int fd1 = -1, fd2 = -1;

    o->append = append;
    for (uint32_t t = 0; t < s->ntasks; t++) {
        struct sr_stream *st = &o->streams[2 * t];
        st[SRUN_STDOUT].dest =
            out_dest(o, s, out_pattern, t, STDOUT_FILENO, &fd1, e);
        st[SRUN_STDERR].dest = out_dest(o, s, errp, t, STDERR_FILENO, &fd2, e);
        if (st[SRUN_STDOUT].dest == -2 || st[SRUN_STDERR].dest == -2) {
            st[SRUN_STDOUT].dest = st[SRUN_STDERR].dest = SR_DISCARD;
            srun_out_destroy(o);
            return NULL;
        }
    }
    return o;
}

/* Write data[0..len) to d, all of it (blocking); a failure is reported
 * once and d dropped. */
static void dest_put(struct sr_dest *d, const char *data, size_t len)
{
    size_t off = 0;

    while (off < len && !d->failed) {
        ssize_t n = write(d->fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            d->failed = true;
            /* stderr itself may be what failed: best effort. */
            dprintf(STDERR_FILENO, "srun: error: cannot write %s: %s\n",
                    d->path                  ? d->path
                    : d->fd == STDOUT_FILENO ? "to standard output"
                                             : "to standard error",
                    strerror(saved));
            break;
        }
        off += (size_t)n;
    }
}

static void dest_write(struct sr_dest *d)
{
    dest_put(d, d->buf, d->len);
    d->len = 0;
}

/* Queue data[0..n) of task to d, a label at every line start. */
static void emit(struct srun_out *o, struct sr_stream *st, uint32_t task,
                 const char *data, size_t n)
{
    struct sr_dest *d = &o->dests[st->dest];
    char label[32];
    int label_len = 0;

    if (d->failed || n == 0)
        return;
    if (!o->label && n >= SRUN_OUT_DIRECT) {
        /* Bulk output without labels: no copy. */
        dest_write(d);
        dest_put(d, data, n);
        st->mid_line = data[n - 1] != '\n';
        return;
    }
    if (o->label)
        label_len =
            snprintf(label, sizeof(label), "%*" PRIu32 ": ", o->width, task);
    while (n > 0) {
        const char *nl = o->label ? memchr(data, '\n', n) : NULL;
        size_t k = nl ? (size_t)(nl - data) + 1 : n;
        if (o->label && !st->mid_line)
            sb_add(&d->buf, &d->len, &d->cap, label, (size_t)label_len);
        sb_add(&d->buf, &d->len, &d->cap, data, k);
        st->mid_line = data[k - 1] != '\n';
        data += k;
        n -= k;
    }
    if (d->len >= SRUN_OUT_HIGH)
        dest_write(d);
}

void srun_out_data(struct srun_out *o, uint32_t task, enum srun_stream stream,
                   const void *data, size_t len)
{
    struct sr_stream *st;
    const char *p = data, *last;

    if (task >= o->ntasks || len == 0)
        return;
    st = &o->streams[2 * task + stream];
    if (st->dest < 0)
        return;
    if (o->unbuffered) {
        emit(o, st, task, p, len);
        return;
    }
    last = memrchr(p, '\n', len);
    if (last == NULL && st->part_len + len <= SRUN_LINE_MAX) {
        sb_add(&st->part, &st->part_len, &st->part_cap, p, len);
        return;
    }
    /* A line longer than SRUN_LINE_MAX (or data without newlines) goes
     * out in pieces rather than piling up in memory. */
    if (last == NULL)
        last = p + len - 1;
    if (st->part_len > 0) {
        emit(o, st, task, st->part, st->part_len);
        st->part_len = 0;
    }
    emit(o, st, task, p, (size_t)(last - p) + 1);
    if (last + 1 < p + len)
        sb_add(&st->part, &st->part_len, &st->part_cap, last + 1,
               (size_t)(p + len - last - 1));
}

void srun_out_eof(struct srun_out *o, uint32_t task)
{
    if (task >= o->ntasks)
        return;
    for (int i = 0; i < 2; i++) {
        struct sr_stream *st = &o->streams[2 * task + i];
        if (st->dest >= 0 && st->part_len > 0)
            emit(o, st, task, st->part, st->part_len);
        st->part_len = 0;
    }
}

size_t srun_out_pending(const struct srun_out *o)
{
    size_t n = 0;

    for (size_t i = 0; i < o->n_dests; i++)
        n += o->dests[i].len;
    return n;
}

void srun_out_flush(struct srun_out *o)
{
    for (size_t i = 0; i < o->n_dests; i++)
        if (o->dests[i].len > 0)
            dest_write(&o->dests[i]);
}

void srun_out_destroy(struct srun_out *o)
{
    if (o == NULL)
        return;
    /* A task whose end never came (its node was lost) keeps its last
     * line: better cut than lost. */
    for (uint32_t t = 0; t < o->ntasks; t++)
        srun_out_eof(o, t);
    srun_out_flush(o);
    for (size_t i = 0; i < o->n_dests; i++) {
        if (o->dests[i].owned)
            close(o->dests[i].fd);
        free(o->dests[i].path);
        free(o->dests[i].buf);
    }
    for (size_t i = 0; i < (size_t)o->ntasks * 2; i++)
        free(o->streams[i].part);
    free(o->dests);
    free(o->streams);
    free(o);
}
