/*
 * Log lines stay one line per event (audit finding 17): control
 * characters that a user put into a job name or a path are written
 * escaped, so a newline cannot forge a log line and a terminal escape
 * never reaches an administrator's `tail -f`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"

/* Everything logged by fn(arg) into a temporary file. */
static char *logged(void (*fn)(const char *), const char *arg)
{
    FILE *fp = tmpfile();
    char *text;
    long n;

    assert_non_null(fp);
    log_init("test", LOG_LEVEL_INFO, fp);
    fn(arg);
    n = ftell(fp);
    rewind(fp);
    text = calloc(1, (size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    log_init("test", LOG_LEVEL_INFO, NULL);
    return text;
}

static void info_name(const char *name)
{
    log_info("job=7 name=%s state=PENDING", name);
}

static void test_escaped_one_line(void **state)
{
    static const struct {
        const char *in, *want;
    } t[] = {
        {"plain", " test info: job=7 name=plain state=PENDING\n"},
        {"a\n2026-01-01T00:00:00.000 sluicectld info: forged",
         " test info: job=7 name=a^J2026-01-01T00:00:00.000 sluicectld "
         "info: forged state=PENDING\n"},
        {"x\033[2J\033]2;pwned\007",
         " test info: job=7 name=x^[[2J^[]2;pwned^G state=PENDING\n"},
        {"cr\rcsi\xc2\x9b", " test info: job=7 name=cr^Mcsi? state=PENDING\n"},
        {"caf\xc3\xa9", " test info: job=7 name=caf\xc3\xa9 state=PENDING\n"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *text = logged(info_name, t[i].in);
        /* after the 23-byte timestamp */
        assert_true(strlen(text) > 23);
        assert_string_equal(text + 23, t[i].want);
        assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);
        free(text);
    }
}

/* A line longer than the stack buffer is written whole, escaped. */
static void test_long_line(void **state)
{
    char *name = malloc(5001), *text;

    (void)state;
    memset(name, 'n', 5000);
    name[5000] = '\0';
    name[4000] = '\n';
    text = logged(info_name, name);
    assert_int_equal(strlen(text), 23 + strlen(" test info: job=7 name=") +
                                       5001 + strlen(" state=PENDING\n"));
    assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);
    free(text);
    free(name);
}

/* Under systemd, stderr is the journal: each line starts with its syslog
 * priority and no timestamp; elsewhere (a log file, or stderr that is not
 * the journal's stream) lines keep their timestamp. */
static void test_journal(void **state)
{
    FILE *fp = tmpfile();
    int saved = dup(STDERR_FILENO);
    char buf[512], env[64];
    struct stat st;
    size_t n;

    (void)state;
    assert_non_null(fp);
    assert_true(saved >= 0);
    assert_int_equal(fstat(fileno(fp), &st), 0);
    snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino + 1);
    dup2(fileno(fp), STDERR_FILENO);
    setenv("JOURNAL_STREAM", env, 1);
    assert_false(log_detect_journal()); /* another stream: a pipe, say */
    snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    setenv("JOURNAL_STREAM", env, 1);
    assert_true(log_detect_journal());
    log_init("test", LOG_LEVEL_DEBUG, NULL);
    log_info("job=7 state=running");
    log_warnx("node=n1 not responding");
    log_debug("x=%d", 1);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    unsetenv("JOURNAL_STREAM");
    assert_false(log_detect_journal());
    log_init("test", LOG_LEVEL_INFO, NULL);
    rewind(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    assert_string_equal(buf, "<6>info: job=7 state=running\n"
                             "<4>warn: node=n1 not responding\n"
                             "<7>debug: x=1\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaped_one_line),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_journal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
