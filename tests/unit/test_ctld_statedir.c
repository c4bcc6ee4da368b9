/*
 * Whether StateSaveLocation takes writes (ctld/core/statedir.c) and the
 * admission of new work by it (ctld/core/loop.c): the verdict for every
 * cause (table-driven, pure), the look at a real directory with its log
 * lines (one when writes stop, one when they resume, none per refusal),
 * the probe never written through a link left under its name, and
 * loop_admit refusing before it opens anything while loop_write still
 * writes what is under way.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"
#include "ctld/core/loop.h"
#include "ctld/core/persist.h"
#include "ctld/core/statedir.h"

#define MIB ((uint64_t)1 << 20)

static const struct {
    const char *what;
    struct statedir_figures f;
    uint64_t min_free;
    int want;         /* 0, ENOSPC or EROFS */
    const char *text; /* in the sentence ("" when writable) */
} judge_cases[] = {
    {"room to spare", {0, 100 * MIB, false, 0}, 64 * MIB, 0, ""},
    {"exactly the minimum", {0, 64 * MIB, false, 0}, 64 * MIB, 0, ""},
    {"below the minimum",
     {0, 12 * MIB, false, 0},
     64 * MIB,
     ENOSPC,
     "StateSaveLocation /s is full (12 MiB free, 64 MiB needed): "
     "submissions and other changes are refused until space is freed"},
    {"nothing free",
     {0, 0, false, 0},
     8 * MIB,
     ENOSPC,
     "(0 KiB free, 8 MiB needed)"},
    {"small figures in KiB",
     {0, 512 * 1024, false, 0},
     MIB,
     ENOSPC,
     "(512 KiB free, 1 MiB needed)"},
    {"large figures in GiB",
     {0, 12 * 1024 * MIB, false, 0},
     20 * 1024 * MIB,
     ENOSPC,
     "(12 GiB free, 20 GiB needed)"},
    {"SluiceStateMinFree=0: space not checked", {0, 0, false, 0}, 0, 0, ""},
    {"read-only mount",
     {0, 100 * MIB, true, 0},
     64 * MIB,
     EROFS,
     "StateSaveLocation /s is on a read-only file system: submissions and "
     "other changes are refused until it is writable again"},
    {"read-only wins over little space",
     {0, 0, true, 0},
     64 * MIB,
     EROFS,
     "read-only file system"},
    {"the probe write: read-only (statvfs did not say)",
     {0, 100 * MIB, false, EROFS},
     64 * MIB,
     EROFS,
     "read-only file system"},
    {"the probe write: no space",
     {0, 100 * MIB, false, ENOSPC},
     64 * MIB,
     ENOSPC,
     "is full (a write failed: No space left on device): submissions and "
     "other changes are refused until space is freed"},
    {"the probe write: over quota",
     {0, 100 * MIB, false, EDQUOT},
     64 * MIB,
     ENOSPC,
     "is full (a write failed: Disk quota exceeded)"},
    {"the probe write: I/O error",
     {0, 100 * MIB, false, EIO},
     64 * MIB,
     EROFS,
     "StateSaveLocation /s cannot be written (Input/output error): "
     "submissions and other changes are refused until it can"},
    {"statvfs fails",
     {ENOENT, 0, false, ENOENT},
     64 * MIB,
     EROFS,
     "StateSaveLocation /s cannot be examined (No such file or directory)"},
};

static void test_judge(void **state)
{
    char why[ERR_TEXT_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(judge_cases) / sizeof(judge_cases[0]); i++) {
        int got = statedir_judge("/s", &judge_cases[i].f,
                                 judge_cases[i].min_free, why, sizeof(why));
        if (got != judge_cases[i].want ||
            (judge_cases[i].text[0] == '\0'
                 ? why[0] != '\0'
                 : strstr(why, judge_cases[i].text) == NULL))
            fail_msg("%s: got %d \"%s\", want %d \"%s\"", judge_cases[i].what,
                     got, why, judge_cases[i].want, judge_cases[i].text);
    }
}

/* A directory of the test's own, and the log going to a file. */
struct fx {
    char dir[64];
    char sub[96];
    char logpath[96];
    FILE *log;
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return -1;
    strcpy(f->dir, "/tmp/sluice-test-statedir.XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    snprintf(f->sub, sizeof(f->sub), "%s/state", f->dir);
    snprintf(f->logpath, sizeof(f->logpath), "%s/log", f->dir);
    if (mkdir(f->sub, 0700) < 0 || (f->log = fopen(f->logpath, "w+")) == NULL)
        return -1;
    setvbuf(f->log, NULL, _IONBF, 0);
    log_init("test", LOG_LEVEL_INFO, f->log);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char cmd[128];

    log_init("test", LOG_LEVEL_INFO, NULL);
    fclose(f->log);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    free(f);
    return system(cmd) == 0 ? 0 : -1;
}

/* Lines of the log that contain s. */
static int log_lines(struct fx *f, const char *s)
{
    char line[1024];
    int n = 0;

    rewind(f->log);
    while (fgets(line, sizeof(line), f->log) != NULL)
        n += strstr(line, s) != NULL;
    fseek(f->log, 0, SEEK_END);
    return n;
}

static void test_real_directory(void **state)
{
    struct fx *f = *state;
    struct statedir *sd = statedir_create(f->sub, 0);
    struct statedir *full = statedir_create(f->sub, UINT64_MAX);
    struct statedir_status st;
    struct err e;
    char want[256];
    json_t *o;

    /* space not checked: writable, the probe made 0600 */
    assert_true(statedir_check(sd));
    assert_true(statedir_writable(sd));
    statedir_status(sd, &st);
    assert_true(st.writable);
    assert_true(st.free_known);
    assert_string_equal(st.why, "");
    {
        char probe[160];
        struct stat sb;
        snprintf(probe, sizeof(probe), "%s/%s", f->sub, STATEDIR_PROBE_NAME);
        assert_int_equal(stat(probe, &sb), 0);
        assert_int_equal(sb.st_mode & 0777, 0600);
    }
    /* no file system has 2^64 bytes free: refused, ENOSPC, the directory
     * named; said once in the log however often it is asked */
    assert_false(statedir_writable(full));
    for (int i = 0; i < 3; i++) {
        assert_false(statedir_check(full));
        errno = 0;
        assert_int_equal(statedir_refuse(full, &e), -1);
        assert_int_equal(errno, ENOSPC);
    }
    snprintf(want, sizeof(want), "StateSaveLocation %s is full (", f->sub);
    assert_non_null(strstr(e.text, want));
    assert_non_null(strstr(e.text, "refused until space is freed"));
    assert_int_equal(log_lines(f, "state_writable=0"), 1);
    statedir_status(full, &st);
    assert_false(st.writable);
    assert_int_equal(st.refused, 3);
    o = statedir_json(full);
    assert_false(json_is_true(json_object_get(o, "writable")));
    assert_int_equal(json_integer_value(json_object_get(o, "refused")), 3);
    assert_string_equal(json_string_value(json_object_get(o, "reason")),
                        st.why);
    /* the directory's mode and owner, looked at when asked; no database
     * here */
    assert_int_equal(chmod(f->sub, 0750), 0);
    json_decref(o);
    o = statedir_json(full);
    assert_string_equal(json_string_value(json_object_get(o, "mode")), "0750");
    assert_int_equal(json_integer_value(json_object_get(o, "owner_uid")),
                     (json_int_t)geteuid());
    assert_int_equal(json_integer_value(json_object_get(o, "controller_uid")),
                     (json_int_t)geteuid());
    assert_true(json_is_null(json_object_get(o, "db_mode")));
    json_decref(o);
    statedir_destroy(full);
    statedir_destroy(sd);
}

/* Whatever was left under the probe's name (a link to a file that is not
 * the controller's to write) is replaced, never written through. */
static void test_probe_not_through_links(void **state)
{
    struct fx *f = *state;
    char other[128], probe[160], buf[8] = "";
    struct statedir *sd;
    FILE *fp;

    snprintf(other, sizeof(other), "%s/other", f->dir);
    snprintf(probe, sizeof(probe), "%s/%s", f->sub, STATEDIR_PROBE_NAME);
    fp = fopen(other, "w");
    assert_non_null(fp);
    fputs("abc", fp);
    fclose(fp);
    assert_int_equal(link(other, probe), 0);
    sd = statedir_create(f->sub, 0);
    assert_true(statedir_writable(sd));
    fp = fopen(other, "r");
    assert_non_null(fp);
    assert_non_null(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    assert_string_equal(buf, "abc");
    statedir_destroy(sd);
    assert_int_equal(unlink(probe), 0);
    assert_int_equal(symlink(other, probe), 0);
    sd = statedir_create(f->sub, 0);
    assert_true(statedir_writable(sd));
    fp = fopen(other, "r");
    assert_non_null(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    assert_string_equal(buf, "abc");
    statedir_destroy(sd);
}

static void test_missing_directory(void **state)
{
    struct fx *f = *state;
    char gone[128];
    struct statedir *sd;
    struct err e;

    snprintf(gone, sizeof(gone), "%s/nothing-here", f->dir);
    sd = statedir_create(gone, 0);
    assert_false(statedir_writable(sd));
    assert_int_equal(statedir_refuse(sd, &e), -1);
    assert_int_equal(errno, EROFS);
    assert_non_null(strstr(e.text, "cannot be examined"));
    statedir_destroy(sd);
}

/* The root's flush: count the passes, commit. */
struct lfx {
    struct persist *persist;
    int passes;
};

static void flush(void *arg, bool pass)
{
    struct lfx *l = arg;
    struct err e;

    l->passes += pass;
    if (persist_commit(l->persist, &e) < 0)
        fail_msg("persist_commit: %s", e.text);
}

static void test_admission(void **state)
{
    struct fx *f = *state;
    struct event_base *base = event_base_new();
    struct lfx lf = {0};
    struct statedir *full, *sd;
    struct loop *l;
    struct err e;
    int stopped;

    event_base_priority_init(base, LOOP_NPRIO);
    lf.persist = persist_open(f->sub, &e);
    assert_non_null(lf.persist);

    /* refused: nothing is opened, and new work is told why */
    full = statedir_create(f->sub, UINT64_MAX);
    l = loop_create(base, lf.persist, full, flush, &lf);
    assert_false(loop_writable(l));
    errno = 0;
    assert_int_equal(loop_admit(l, &e), -1);
    assert_int_equal(errno, ENOSPC);
    assert_non_null(strstr(e.text, "is full"));
    assert_false(persist_in_txn(lf.persist));
    assert_false(loop_holding(l));
    /* what is under way is written all the same (into the room kept),
     * and the transaction it opened admits no new work */
    assert_int_equal(loop_write(l, &e), 0);
    assert_true(persist_in_txn(lf.persist));
    assert_int_equal(loop_admit(l, &e), -1);
    assert_int_equal(errno, ENOSPC);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_false(persist_in_txn(lf.persist));
    loop_destroy(l);
    statedir_destroy(full);

    /* writable: admitted, the transaction opened; when the directory
     * goes (statvfs fails) and comes back, writes stop and resume, each
     * logged once, and the return asks for a pass for what waited */
    sd = statedir_create(f->sub, 0);
    l = loop_create(base, lf.persist, sd, flush, &lf);
    assert_int_equal(loop_admit(l, &e), 0);
    assert_true(persist_in_txn(lf.persist));
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_false(persist_in_txn(lf.persist));
    {
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "mv '%s' '%s.away'", f->sub, f->sub);
        assert_int_equal(system(cmd), 0);
    }
    stopped = log_lines(f, "state_writable=0");
    assert_false(loop_writable(l));
    assert_int_equal(loop_admit(l, &e), -1);
    assert_int_equal(errno, EROFS);
    assert_int_equal(loop_admit(l, &e), -1);
    assert_int_equal(log_lines(f, "state_writable=0"), stopped + 1);
    {
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "mv '%s.away' '%s'", f->sub, f->sub);
        assert_int_equal(system(cmd), 0);
    }
    lf.passes = 0;
    assert_true(loop_writable(l));
    assert_int_equal(log_lines(f, "state_writable=1"), 1);
    assert_true(loop_writable(l));
    assert_int_equal(log_lines(f, "state_writable=1"), 1);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(lf.passes, 1);
    loop_destroy(l);
    statedir_destroy(sd);
    persist_close(lf.persist);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),
        cmocka_unit_test_setup_teardown(test_real_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe_not_through_links, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing_directory, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_admission, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
