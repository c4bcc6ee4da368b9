/*
 * sluiced's root context: the auth context from AuthType/AuthInfo, the
 * spool and resources at start, and the event loop with its subsystems
 * (the controller connection, the job table, signal events).
 */
#include "noded/noded.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sdnotify.h"
#include "common/xalloc.h"
#include "noded/conn.h"
#include "noded/jobs.h"
#include "noded/spool.h"
#include "noded/steps.h"

/* Boot time of the machine (btime of /proc/stat); 0 when unknown. */
static int64_t boot_time(void)
{
    FILE *fp = fopen("/proc/stat", "r");
    char line[256];
    long long t = 0;

    if (fp == NULL)
        return 0;
    while (fgets(line, sizeof(line), fp) != NULL)
        if (sscanf(line, "btime %lld", &t) == 1)
            break;
    fclose(fp);
    return t;
}

static int setup_spool(struct noded *nd, struct err *e)
{
    char *dir =
        spool_expand(nd->conf->slurmd_spool_dir, nd->name, nd->hostname);
    char real[PATH_MAX];

    if (spool_mkdirs(dir, e) < 0) {
        err_prefix(e, "SlurmdSpoolDir");
        free(dir);
        return -1;
    }
    if (realpath(dir, real) == NULL) {
        err_set(e, "SlurmdSpoolDir %s: %s", dir, strerror(errno));
        free(dir);
        return -1;
    }
    free(dir);
    nd->spool = xstrdup(real);
    return 0;
}

/* cgroup.conf beside the configuration (defaults without one), then the
 * node's cgroup. */
static int setup_cgroup(struct noded *nd, struct err *e)
{
    char *path = resources_dir_join(nd->conf->path, "cgroup.conf");
    struct cgroupconf cc;
    struct conf_diag diag;
    char line[600];
    int rc = 0;

    conf_diag_init(&diag);
    if (access(path, F_OK) < 0 && errno == ENOENT)
        cgroupconf_defaults(&cc);
    else
        rc = cgroupconf_load(path, &cc, &diag, e);
    for (size_t i = 0; i < diag.n; i++)
        if (diag.items[i].severity == CONF_WARNING)
            fprintf(stderr, "sluiced: %s\n",
                    conf_diag_format(&diag.items[i], line, sizeof(line)));
    conf_diag_free(&diag);
    free(path);
    /* a node that reports more CPUs than it has (config_overrides) pins
     * no job to cores (njobs_pick_cpus): its jobs need no cpuset cgroup */
    if (nd->res.cpus > nd->res.cpus_found)
        cc.constrain_cores = false;
    if (rc == 0)
        cgroup_setup(&nd->cg, &cc, nd->name, nd->spool);
    return rc;
}

/* Frames for this node alone, none signed before this start. */
static int setup_auth(struct noded *nd, struct err *e)
{
    char *tag = xasprintf("%s%s", AUTH_TAG_NODE_PREFIX, nd->name);
    char *path = xasprintf("%s/auth_floor", nd->spool);
    int rc;

    auth_set_tags(nd->auth, tag, AUTH_TAG_CTLD);
    rc = auth_floor_persist(nd->auth, path, e);
    free(tag);
    free(path);
    return rc;
}

int noded_setup(struct noded *nd, struct err *e)
{
    if (conf_slurm_user_uid(nd->conf, &nd->slurm_uid, e) < 0)
        return err_set(e,
                       "SlurmUser=%s is no user on this host: the controller "
                       "runs as that user, and sluiced would refuse its every "
                       "request (create the user, with the controller's uid)",
                       nd->conf->slurm_user);
    if (resources_detect(nd->conf, nd->node, false, &nd->res, e) < 0)
        return -1;
    if (setup_spool(nd, e) < 0)
        return -1;
    if ((nd->auth = auth_create_conf(nd->conf, e)) == NULL ||
        setup_auth(nd, e) < 0)
        return -1;
    if (setup_cgroup(nd, e) < 0)
        return -1;
    nd->boot_time = boot_time();
    if (spool_boot_id(nd->boot_id, e) < 0) {
        log_warnx("%s: jobs of an earlier boot cannot be told apart", e->text);
        nd->boot_id[0] = '\0';
    }
    return 0;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct noded *nd = arg;

    (void)what;
    log_info("signal=%s: stopping; running jobs stay with their supervisors",
             strsignal((int)sig));
    sdnotify_send("STOPPING=1");
    event_base_loopexit(nd->base, NULL);
}

/* SIGHUP: reopen the log file (after logrotate moved it). */
static void on_hup(evutil_socket_t sig, short what, void *arg)
{
    struct noded *nd = arg;
    FILE *fp;

    (void)sig;
    (void)what;
    if (nd->log_path == NULL)
        return;
    if ((fp = log_open_private(nd->log_path, NULL)) == NULL) {
        log_warn("SIGHUP: cannot reopen %s", nd->log_path);
        return;
    }
    log_init("sluiced", log_get_level(), fp);
    if (nd->logfp != NULL)
        fclose(nd->logfp);
    nd->logfp = fp;
    log_info("SIGHUP: log reopened");
}

static void log_resources(const struct noded *nd)
{
    const struct resources *r = &nd->res;
    char line[1200];

    if (r->overrides)
        log_info("node=%s config_overrides: reporting the configured "
                 "cpus=%u mem_mib=%llu (found cpus=%u mem_mib=%llu)",
                 nd->name, r->cpus, (unsigned long long)r->mem_mib,
                 r->cpus_found, (unsigned long long)r->mem_mib_found);
    else
        log_info("node=%s cpus=%u mem_mib=%llu", nd->name, r->cpus,
                 (unsigned long long)r->mem_mib);
    log_info("node=%s gres=\"%s\" gres_conf=%s gpus=%zu%s spool=%s", nd->name,
             r->gres, r->gres_conf ? r->gres_conf : "(none)", r->gpus.n,
             r->gpus.nvml ? " (nvml)" : "", nd->spool);
    if (r->gpus.note[0] != '\0')
        log_warnx("node=%s gres_note=\"%s\"", nd->name, r->gpus.note);
    cgroup_describe(&nd->cg, line, sizeof(line));
    if (nd->cg.version == CGROUP_NONE)
        log_warnx("node=%s cgroup=%s; jobs are contained by their process "
                  "group only: a process that leaves it outlives its job, "
                  "and memory, CPUs and devices are not fenced",
                  nd->name, line);
    else
        log_info("node=%s cgroup=%s", nd->name, line);
}

int noded_run(struct noded *nd, struct err *e)
{
    signal(SIGPIPE, SIG_IGN);
    nd->base = event_base_new();
    if (nd->base == NULL)
        return err_set(e, "cannot create an event loop");
    log_resources(nd);
    health_look(nd);
    if ((nd->conn = conn_create(nd, e)) == NULL)
        return -1;
    if ((nd->jobs = njobs_create(nd, e)) == NULL)
        return -1;
    if ((nd->steps = nsteps_create(nd, e)) == NULL)
        return -1;
    nd->sig_term = evsignal_new(nd->base, SIGTERM, on_signal, nd);
    nd->sig_int = evsignal_new(nd->base, SIGINT, on_signal, nd);
    nd->sig_hup = evsignal_new(nd->base, SIGHUP, on_hup, nd);
    event_add(nd->sig_term, NULL);
    event_add(nd->sig_int, NULL);
    event_add(nd->sig_hup, NULL);
    conn_start(nd->conn);
    /* ready: jobs are adopted and the controller is being dialled (its
     * absence must not hold up the node's start) */
    if (sdnotify_send("READY=1") < 0)
        log_warn("cannot tell systemd that start-up is done");
    event_base_dispatch(nd->base);
    return 0;
}

void noded_fini(struct noded *nd)
{
    conn_destroy(nd->conn); /* fails pending requests: jobs still there */
    nd->conn = NULL;
    nsteps_destroy(nd->steps);
    nd->steps = NULL;
    njobs_destroy(nd->jobs);
    nd->jobs = NULL;
    if (nd->sig_term != NULL)
        event_free(nd->sig_term);
    if (nd->sig_int != NULL)
        event_free(nd->sig_int);
    if (nd->sig_hup != NULL)
        event_free(nd->sig_hup);
    if (nd->base != NULL)
        event_base_free(nd->base);
    nd->base = NULL;
    auth_destroy(nd->auth);
    if (nd->cg.version != CGROUP_NONE)
        cgroup_node_cleanup(&nd->cg); /* only when no job is left in it */
    resources_fini(&nd->res);
    free(nd->spool);
    free(nd->hostname);
    conf_destroy(nd->conf);
}
