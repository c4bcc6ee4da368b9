/*
 * The parts of a JOBSPEC that need more than one option's value: the
 * --export environment, and the final assembly with defaults (name,
 * working directory, argv, script from --wrap).  --begin times are
 * when.c's.
 */
#include "cli/jobspec.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "common/xalloc.h"

static bool env_name_ok(const char *s, size_t len)
{
    if (len == 0 || isdigit((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

/* Add "NAME=value" (an environ entry) to env; false if not UTF-8. */
static bool env_add_entry(json_t *env, const char *entry)
{
    const char *eq = strchr(entry, '=');
    char *name;
    json_t *v;

    if (eq == NULL || eq == entry)
        return true;
    if ((v = json_string(eq + 1)) == NULL)
        return false;
    name = xstrndup(entry, (size_t)(eq - entry));
    json_object_set_new(env, name, v);
    free(name);
    return true;
}

/* envp's value of name[0..len), or NULL. */
static const char *env_lookup(char *const *envp, const char *name, size_t len)
{
    for (char *const *p = envp; *p != NULL; p++)
        if (strncmp(*p, name, len) == 0 && (*p)[len] == '=')
            return *p + len + 1;
    return NULL;
}

/* One item of --export other than ALL and NONE. */
static int env_item(json_t *env, const char *item, size_t len,
                    char *const *envp, struct err *e)
{
    const char *eq = memchr(item, '=', len);
    size_t nlen = eq ? (size_t)(eq - item) : len;
    char *name = xstrndup(item, nlen);
    const char *val;
    json_t *v = NULL;

    if (!env_name_ok(item, nlen)) {
        errno = EINVAL;
        err_set(e,
                "bad variable name \"%s\" (letters, digits and _, not "
                "starting with a digit)",
                name);
        free(name);
        return -1;
    }
    val = eq ? NULL : env_lookup(envp, item, nlen);
    if (eq != NULL)
        v = json_stringn(eq + 1, len - nlen - 1);
    else if (val != NULL)
        v = json_string(val);
    if (v == NULL && (eq != NULL || val != NULL)) {
        errno = EINVAL;
        err_set(e, "value of %s is not UTF-8", name);
        free(name);
        return -1;
    }
    if (v != NULL)
        json_object_set_new(env, name, v);
    free(name);
    return 0;
}

json_t *jobspec_export_env(const char *spec, char *const *envp, struct err *e)
{
    json_t *env = json_object(), *items = json_object();
    const char *p = spec;
    bool all = false;

    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len == 3 && strncasecmp(p, "ALL", 3) == 0)
            all = true;
        else if (len > 0 && !(len == 4 && strncasecmp(p, "NONE", 4) == 0) &&
                 env_item(items, p, len, envp, e) < 0)
            goto error;
        p += len;
        if (*p == ',')
            p++;
    }
    /* SLURM_* variables always travel, as in Slurm. */
    for (char *const *q = envp; *q != NULL; q++)
        if ((all || strncmp(*q, "SLURM_", 6) == 0) && !env_add_entry(env, *q))
            fprintf(stderr,
                    "sbatch: warning: not exporting %.*s: value is "
                    "not UTF-8\n",
                    (int)strcspn(*q, "="), *q);
    json_object_update(env, items);
    json_decref(items);
    return env;
error:
    json_decref(items);
    json_decref(env);
    return NULL;
}

/* path made absolute against cwd; caller frees. */
static char *abs_path(const char *path, const char *cwd)
{
    if (path[0] == '/')
        return xstrdup(path);
    if (strcmp(path, ".") == 0)
        return xstrdup(cwd);
    return xasprintf("%s/%s", cwd, path);
}

static json_t *finish_argv(const char *script_name, char **args, int nargs,
                           const char *cwd)
{
    json_t *argv = json_array();
    char *abs = abs_path(script_name, cwd);

    json_array_append_new(argv, json_string(abs));
    for (int i = 0; i < nargs; i++) {
        json_t *a = json_string(args[i]);
        json_array_append_new(argv, a != NULL ? a : json_string("?"));
    }
    free(abs);
    return argv;
}

static int finish_checks(const struct jobspec *js, const char *script_name,
                         int nargs, struct err *e)
{
    errno = EINVAL;
    if (js->wrap != NULL && (script_name != NULL || nargs > 0))
        return err_set(e, "Script arguments not permitted with --wrap option");
    if (json_object_get(js->job, "mem_mib") != NULL &&
        json_object_get(js->job, "mem_per_cpu_mib") != NULL)
        return err_set(e, "--mem and --mem-per-cpu are mutually exclusive.");
    if (json_object_get(js->job, "mem_per_gpu_mib") != NULL &&
        (json_object_get(js->job, "mem_mib") != NULL ||
         json_object_get(js->job, "mem_per_cpu_mib") != NULL))
        return err_set(e, "--mem, --mem-per-cpu, and --mem-per-gpu are "
                          "mutually exclusive.");
    if (json_object_get(js->job, "cpus_per_gpu") != NULL &&
        json_object_get(js->job, "cpus_per_task") != NULL)
        return err_set(e, "--cpus-per-gpu is mutually exclusive with "
                          "--cpus-per-task");
    if (json_object_get(js->job, "ntasks_per_gpu") != NULL &&
        json_object_get(js->job, "gpus_per_task") != NULL)
        return err_set(e, "--gpus-per-task is mutually exclusive with "
                          "--ntasks-per-gpu");
    return 0;
}

/* SLURM_UMASK: the submitter's umask, which the job's output files and
 * the job itself get (as in Slurm); one already set is kept. */
static void env_add_umask(json_t *env)
{
    mode_t m = umask(022);
    char buf[8];

    umask(m);
    if (json_object_get(env, "SLURM_UMASK") != NULL)
        return;
    snprintf(buf, sizeof(buf), "%04o", (unsigned)(m & 0777));
    json_object_set_new(env, "SLURM_UMASK", json_string(buf));
}

json_t *jobspec_finish(struct jobspec *js, const char *script,
                       const char *script_name, char **args, int nargs,
                       const char *cwd, char *const *envp, struct err *e)
{
    json_t *job = js->job, *env, *text;
    const char *base;
    char *wd;

    if (finish_checks(js, script_name, nargs, e) < 0)
        return NULL;
    env = jobspec_export_env(js->export ? js->export : "ALL", envp, e);
    if (env == NULL)
        return NULL;
    env_add_umask(env);
    if ((text = json_string(script)) == NULL) {
        json_decref(env);
        errno = EINVAL;
        err_set(e, "Batch script is not valid UTF-8 text");
        return NULL;
    }
    js->job = json_object();
    json_object_set_new(job, "script", text);
    json_object_set_new(job, "environment", env);
    if (script_name != NULL)
        json_object_set_new(job, "argv",
                            finish_argv(script_name, args, nargs, cwd));
    base = script_name ? strrchr(script_name, '/') : NULL;
    base = base ? base + 1 : script_name;
    if (json_object_get(job, "name") == NULL)
        json_object_set_new(job, "name",
                            json_string(js->wrap       ? "wrap"
                                        : base != NULL ? base
                                                       : "sbatch"));
    wd = abs_path(js->chdir ? js->chdir : ".", cwd);
    json_object_set_new(job, "work_dir", json_string(wd));
    free(wd);
    return job;
}

json_t *jobspec_finish_alloc(struct jobspec *js, const char *kind,
                             const char *name, const char *cwd, struct err *e)
{
    json_t *job = js->job;
    char *wd;

    if (finish_checks(js, NULL, 0, e) < 0)
        return NULL;
    js->job = json_object();
    json_object_set_new(job, "alloc", json_string(kind));
    if (json_object_get(job, "name") == NULL) {
        json_t *n = json_string(name); /* NULL when not UTF-8 */
        json_object_set_new(job, "name", n ? n : json_string(kind));
    }
    wd = abs_path(js->chdir ? js->chdir : ".", cwd);
    json_object_set_new(job, "work_dir", json_string(wd));
    free(wd);
    return job;
}

static int signal_number(const char *name, size_t len)
{
    static const struct {
        const char *name;
        int sig;
    } tab[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
               {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
               {"TERM", SIGTERM}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
               {"ALRM", SIGALRM}, {"URG", SIGURG},   {"XCPU", SIGXCPU}};
    char buf[16];
    unsigned long n;
    char *end;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, name, len);
    buf[len] = '\0';
    n = strtoul(buf, &end, 10);
    if (*end == '\0')
        return n >= 1 && n <= 64 ? (int)n : -1;
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strcasecmp(buf, tab[i].name) == 0 ||
            (strncasecmp(buf, "SIG", 3) == 0 &&
             strcasecmp(buf + 3, tab[i].name) == 0))
            return tab[i].sig;
    return -1;
}

int jobspec_signal_parse(const char *s, int *sig, unsigned *secs, bool *batch,
                         struct err *e)
{
    const char *p = s, *at;
    unsigned long n = 60;
    char *end;

    *batch = false;
    if ((p[0] == 'B' || p[0] == 'R') && p[1] == ':') {
        *batch = p[0] == 'B';
        p += 2;
    }
    at = strchr(p, '@');
    if (at != NULL) {
        n = strtoul(at + 1, &end, 10);
        if (at[1] == '\0' || *end != '\0' || n > 65535)
            goto bad;
    }
    *sig = signal_number(p, at ? (size_t)(at - p) : strlen(p));
    if (*sig < 0)
        goto bad;
    *secs = (unsigned)n;
    return 0;
bad:
    errno = EINVAL;
    return err_set(e,
                   "invalid signal specification \"%s\" (expected "
                   "[{R|B}:]SIG[@SECONDS], e.g. B:USR1@60)",
                   s);
}
