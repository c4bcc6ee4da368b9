/*
 * sluice down [--dir DIR] [--cancel]: stop the daemons sluice up started,
 * by their pid files only: SIGTERM, up to 10 s, then SIGKILL.  With
 * --cancel, first cancel every job of the cluster so that no job outlives
 * it (without it, running jobs finish on their own and are reported at the
 * next up, as after any restart of the daemons).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/local.h"
#include "cli/opt.h"
#include "common/proto.h"
#include "common/xalloc.h"

#define DOWN_WAIT_MS 10000

/* A daemon of the directory: its name (pid file stem) and pid. */
struct down_proc {
    char *name;
    pid_t pid;
};

/* Every pid file of d; stale ones (no such process of ours) are removed.
 * The controller comes last so that nodes report to it while stopping. */
static struct down_proc *down_list(const struct local_dir *d, size_t *n)
{
    DIR *dir = opendir(d->pids);
    struct down_proc *v = NULL, ctld = {0};
    struct dirent *de;

    *n = 0;
    while (dir != NULL && (de = readdir(dir)) != NULL) {
        size_t len = strlen(de->d_name);
        char *name, *path;
        pid_t pid;
        if (len < 5 || strcmp(de->d_name + len - 4, ".pid") != 0)
            continue;
        name = xstrndup(de->d_name, len - 4);
        if ((pid = local_running(d, name)) == 0) {
            path = local_pid_file(d, name);
            fprintf(stderr, "down: %s is not running (removing %s)\n", name,
                    path);
            unlink(path);
            free(path);
            free(name);
        } else if (strcmp(name, LOCAL_CTLD_NAME) == 0) {
            ctld = (struct down_proc){name, pid};
        } else {
            v = xreallocarray(v, *n + 2, sizeof(*v));
            v[(*n)++] = (struct down_proc){name, pid};
        }
    }
    if (dir != NULL)
        closedir(dir);
    if (ctld.name != NULL) {
        v = xreallocarray(v, *n + 1, sizeof(*v));
        v[(*n)++] = ctld;
    }
    return v;
}

/* Cancel every job the controller holds and give running ones a moment
 * to end. */
static void down_cancel(const struct local_dir *d)
{
    struct err e;
    struct cli_client *cl = cli_client_open(d->conf, 2000, &e);
    json_t *req, *reply = NULL;

    if (cl == NULL) {
        fprintf(stderr, "down: cannot cancel jobs: %s\n", e.text);
        return;
    }
    req = json_pack("{s:[ss]}", "states", "PENDING", "RUNNING");
    if (cli_client_call(cl, PROTO_MSG_JOB_CANCEL, req, &reply, NULL, &e) < 0)
        fprintf(stderr, "down: cannot cancel jobs: %s\n", e.text);
    else
        fprintf(stderr, "down: cancelled %zu job%s\n",
                json_array_size(json_object_get(reply, "results")),
                json_array_size(json_object_get(reply, "results")) == 1 ? ""
                                                                        : "s");
    json_decref(req);
    json_decref(reply);
    /* Let the nodes deliver SIGTERM and report the ends. */
    for (int i = 0; i < 50; i++) {
        json_t *q = json_pack("{s:[ss]}", "states", "RUNNING", "COMPLETING");
        json_t *r = NULL;
        size_t left = 0;
        if (cli_client_call(cl, PROTO_MSG_JOB_QUERY, q, &r, NULL, &e) == 0)
            left = json_array_size(json_object_get(r, "jobs"));
        json_decref(q);
        json_decref(r);
        if (left == 0)
            break;
        usleep(100000);
    }
    cli_client_close(cl);
}

/* SIGTERM all, wait, SIGKILL what is left; remove the pid files. */
static void down_stop(const struct local_dir *d, struct down_proc *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (kill(v[i].pid, SIGTERM) < 0 && errno != ESRCH)
            fprintf(stderr, "down: cannot signal %s (pid %ld): %s\n", v[i].name,
                    (long)v[i].pid, strerror(errno));
    for (int waited = 0; waited < DOWN_WAIT_MS; waited += 50) {
        size_t alive = 0;
        for (size_t i = 0; i < n; i++)
            alive += local_running(d, v[i].name) != 0;
        if (alive == 0)
            break;
        usleep(50000);
    }
    for (size_t i = 0; i < n; i++) {
        char *path = local_pid_file(d, v[i].name);
        if (local_running(d, v[i].name) != 0) {
            kill(v[i].pid, SIGKILL);
            fprintf(stderr,
                    "down: %s (pid %ld) ignored SIGTERM for %d s; "
                    "killed\n",
                    v[i].name, (long)v[i].pid, DOWN_WAIT_MS / 1000);
        } else {
            fprintf(stderr, "down: stopped %s (pid %ld)\n", v[i].name,
                    (long)v[i].pid);
        }
        unlink(path);
        free(path);
    }
}

enum { DOWN_DIR = 1, DOWN_CANCEL, DOWN_HELP };

static const struct opt_def down_opts[] = {
    {"dir", 'd', OPT_ARG, DOWN_DIR},
    {"cancel", 0, OPT_NOARG, DOWN_CANCEL},
    {"help", 'h', OPT_NOARG, DOWN_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_down(int argc, char **argv)
{
    const char *dir = LOCAL_DIR_DEFAULT, *arg;
    struct down_proc *v;
    struct local_dir d;
    struct opt_state st;
    bool cancel = false;
    struct err e;
    size_t n;
    int id, rc;

    cli_set_prog("sluice");
    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, down_opts, &id, &arg, &e)) > 0) {
        if (id == DOWN_HELP) {
            printf("usage: sluice down [--dir DIR] [--cancel]\n");
            return 0;
        }
        if (id == DOWN_DIR)
            dir = arg;
        cancel |= id == DOWN_CANCEL;
    }
    if (cli_opt_end(&st, rc, &e) < 0)
        return 2;
    if (local_dir_init(&d, dir, false, &e) < 0 || access(d.pids, F_OK) < 0) {
        cli_error("down: no local cluster in %s", dir);
        local_dir_clear(&d);
        return 1;
    }
    if (cancel && local_running(&d, LOCAL_CTLD_NAME) != 0)
        down_cancel(&d);
    v = down_list(&d, &n);
    if (n == 0)
        fprintf(stderr, "down: nothing is running in %s\n", d.dir);
    down_stop(&d, v, n);
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
    local_dir_clear(&d);
    return 0;
}
