/*
 * StateSaveLocation's capacity for writes (statedir.h): the pure verdict,
 * the look (statvfs and the probe's pwrite) and the log line of each
 * change of verdict.
 */
#include "ctld/core/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/persist.h"

struct statedir {
    char *dir;
    char *probe_path;
    int probe_fd; /* -1 until it could be opened */
    uint64_t min_free;
    struct statedir_figures last;
    int verdict; /* 0, ENOSPC or EROFS */
    char why[ERR_TEXT_MAX];
    time_t since;
    uint64_t refused;      /* since the start */
    uint64_t refused_then; /* when the verdict last changed */
};

/* "12 MiB", "3 GiB", "512 KiB": rounded down, so that "free" is never
 * more than there is. */
static const char *size_text(uint64_t b, char *buf, size_t len)
{
    if (b >= (uint64_t)10 << 30)
        snprintf(buf, len, "%" PRIu64 " GiB", b >> 30);
    else if (b >= (uint64_t)1 << 20)
        snprintf(buf, len, "%" PRIu64 " MiB", b >> 20);
    else
        snprintf(buf, len, "%" PRIu64 " KiB", b >> 10);
    return buf;
}

int statedir_judge(const char *dir, const struct statedir_figures *f,
                   uint64_t min_free_bytes, char *why, size_t len)
{
    static const char refused[] = "submissions and other changes are refused";
    char have[32], need[32];

    if (f->stat_errno != 0) {
        snprintf(why, len,
                 "StateSaveLocation %s cannot be examined (%s): %s "
                 "until it can",
                 dir, strerror(f->stat_errno), refused);
        return EROFS;
    }
    if (f->rdonly || f->write_errno == EROFS) {
        snprintf(why, len,
                 "StateSaveLocation %s is on a read-only file "
                 "system: %s until it is writable again",
                 dir, refused);
        return EROFS;
    }
    if (f->write_errno == ENOSPC || f->write_errno == EDQUOT) {
        snprintf(why, len,
                 "StateSaveLocation %s is full (a write failed: %s): "
                 "%s until space is freed",
                 dir, strerror(f->write_errno), refused);
        return ENOSPC;
    }
    if (f->write_errno != 0) {
        snprintf(why, len,
                 "StateSaveLocation %s cannot be written (%s): %s "
                 "until it can",
                 dir, strerror(f->write_errno), refused);
        return EROFS;
    }
    if (f->free_bytes < min_free_bytes) {
        snprintf(why, len,
                 "StateSaveLocation %s is full (%s free, %s "
                 "needed): %s until space is freed",
                 dir, size_text(f->free_bytes, have, sizeof(have)),
                 size_text(min_free_bytes, need, sizeof(need)), refused);
        return ENOSPC;
    }
    if (len > 0)
        why[0] = '\0';
    return 0;
}

/* One byte rewritten in place: no space is taken, so only a file system
 * that refuses writes altogether (read-only, shut down) makes it fail;
 * space is statvfs's business.  The file is made afresh (O_EXCL), so that
 * whatever was left under its name (a link to another file) is never
 * written through.  0 or the errno of the failure. */
static int probe(struct statedir *sd)
{
    ssize_t n;

    if (sd->probe_fd < 0) {
        if (unlink(sd->probe_path) < 0 && errno != ENOENT)
            return errno;
        sd->probe_fd =
            open(sd->probe_path,
                 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (sd->probe_fd < 0)
            return errno;
    }
    n = pwrite(sd->probe_fd, "1", 1, 0);
    if (n == 1)
        return 0;
    return n < 0 ? errno : EIO;
}

static void look(struct statedir *sd, struct statedir_figures *f)
{
    struct statvfs v;

    *f = (struct statedir_figures){0};
    if (statvfs(sd->dir, &v) < 0) {
        f->stat_errno = errno;
    } else {
        f->free_bytes = (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
        f->rdonly = (v.f_flag & ST_RDONLY) != 0;
    }
    f->write_errno = probe(sd);
}

/* The log line of a change of verdict: one when writes stop (or stop
 * for another reason), one when they resume. */
static void log_change(const struct statedir *sd, time_t now)
{
    char have[32];

    if (sd->verdict != 0) {
        log_warnx("state_writable=0 %s", sd->why);
        return;
    }
    log_info("state_writable=1 StateSaveLocation %s takes writes again (%s "
             "free): changes are accepted; %" PRIu64 " refused in %llds",
             sd->dir, size_text(sd->last.free_bytes, have, sizeof(have)),
             sd->refused - sd->refused_then, (long long)(now - sd->since));
}

bool statedir_check(struct statedir *sd)
{
    int was = sd->verdict;
    time_t now;

    look(sd, &sd->last);
    sd->verdict = statedir_judge(sd->dir, &sd->last, sd->min_free, sd->why,
                                 sizeof(sd->why));
    if (sd->verdict != was) {
        now = time(NULL);
        log_change(sd, now);
        sd->since = now;
        sd->refused_then = sd->refused;
    }
    return sd->verdict == 0;
}

struct statedir *statedir_create(const char *dir, uint64_t min_free_bytes)
{
    struct statedir *sd = xcalloc(1, sizeof(*sd));

    sd->dir = xstrdup(dir);
    sd->probe_path = xasprintf("%s/%s", dir, STATEDIR_PROBE_NAME);
    sd->probe_fd = -1;
    sd->min_free = min_free_bytes;
    sd->since = time(NULL);
    statedir_check(sd);
    return sd;
}

void statedir_destroy(struct statedir *sd)
{
    int saved = errno;

    if (sd == NULL)
        return;
    if (sd->probe_fd >= 0)
        close(sd->probe_fd);
    free(sd->probe_path);
    free(sd->dir);
    free(sd);
    errno = saved;
}

bool statedir_writable(const struct statedir *sd)
{
    return sd->verdict == 0;
}

int statedir_refuse(struct statedir *sd, struct err *e)
{
    ASSERT(sd->verdict != 0);
    sd->refused++;
    errno = sd->verdict;
    return err_set(e, "%s", sd->why);
}

void statedir_status(const struct statedir *sd, struct statedir_status *st)
{
    *st = (struct statedir_status){
        .dir = sd->dir,
        .writable = sd->verdict == 0,
        .free_known = sd->last.stat_errno == 0,
        .free_bytes = sd->last.free_bytes,
        .min_free_bytes = sd->min_free,
        .refused = sd->refused,
        .since = sd->since,
        .why = sd->why,
    };
}

/* The permission bits of path ("0711") and its owner, or nulls when it
 * cannot be examined; looked at when asked, not on every check. */
static void mode_json(json_t *o, const char *path, const char *mode_key,
                      const char *uid_key)
{
    struct stat st;
    char buf[16];

    if (lstat(path, &st) < 0) {
        json_object_set_new(o, mode_key, json_null());
        json_object_set_new(o, uid_key, json_null());
        return;
    }
    snprintf(buf, sizeof(buf), "%04o", (unsigned)(st.st_mode & 07777));
    json_object_set_new(o, mode_key, json_string(buf));
    json_object_set_new(o, uid_key, json_integer((json_int_t)st.st_uid));
}

json_t *statedir_json(const struct statedir *sd)
{
    struct statedir_status st;
    char *db = xasprintf("%s/%s", sd->dir, PERSIST_DB_NAME);
    json_t *o;

    statedir_status(sd, &st);
    o = json_pack("{s:s, s:b, s:o, s:I, s:I, s:I, s:s, s:I}", "dir", st.dir,
                  "writable", st.writable, "free_bytes",
                  st.free_known ? json_integer((json_int_t)st.free_bytes)
                                : json_null(),
                  "min_free_bytes", (json_int_t)st.min_free_bytes, "refused",
                  (json_int_t)st.refused, "since", (json_int_t)st.since,
                  "reason", st.why, "controller_uid", (json_int_t)geteuid());
    mode_json(o, sd->dir, "mode", "owner_uid");
    mode_json(o, db, "db_mode", "db_owner_uid");
    free(db);
    return o;
}
