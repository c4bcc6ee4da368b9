/*
 * sluiced: the node daemon.  Reads the configuration, finds which node it
 * is, checks what it can report and where it spools, then (in the
 * background unless -D) connects to the controller and runs jobs.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/sdnotify.h"
#include "common/xalloc.h"
#include "noded/name.h"
#include "noded/noded.h"
#include "noded/resources.h"

struct opts {
    const char *conf_path;
    const char *node;
    const char *log_path;
    bool foreground;
    bool print_config; /* -C */
    int verbose;
};

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sluiced [-f CONFIG] [-N NODENAME] [-D] [-L LOGFILE] "
            "[-v]\n"
            "       sluiced -C [-f CONFIG] [-N NODENAME]\n"
            "  -C           print this machine's NodeName= and gres.conf "
            "lines, exit\n"
            "  -f CONFIG    configuration (default $SLUICE_CONF, else %s)\n"
            "  -N NODENAME  the NodeName to serve (default: this host's "
            "name)\n"
            "  -D           stay in the foreground\n"
            "  -L LOGFILE   log here (default: stderr with -D, else "
            "SPOOL/sluiced.log)\n"
            "  -v           more verbose (debug)\n",
            CONF_DEFAULT_PATH);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;

    o->conf_path = getenv("SLUICE_CONF");
    if (o->conf_path == NULL || o->conf_path[0] == '\0')
        o->conf_path = CONF_DEFAULT_PATH;
    while ((c = getopt_long(argc, argv, "Cf:N:DL:vhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'C':
            o->print_config = true;
            break;
        case 'f':
            o->conf_path = optarg;
            break;
        case 'N':
            o->node = optarg;
            break;
        case 'D':
            o->foreground = true;
            break;
        case 'L':
            o->log_path = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        case 'V':
            printf("sluiced %s\n", SLUICE_VERSION);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sluiced: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        return -1;
    }
    return 0;
}

static struct conf *load_conf(const char *path)
{
    struct conf_diag diag;
    struct conf *c;
    struct err e;

    conf_diag_init(&diag);
    c = conf_load(path, &diag, &e);
    if (c == NULL) {
        if (diag.n_errors > 0)
            conf_diag_print(&diag, stderr);
        else
            fprintf(stderr, "sluiced: %s\n", e.text);
    } else if (diag.n_warnings > 0) {
        conf_diag_print(&diag, stderr);
    }
    conf_diag_free(&diag);
    return c;
}

static char *host_name(void)
{
    char buf[HOST_NAME_MAX + 1];

    if (gethostname(buf, sizeof(buf)) < 0)
        return xstrdup("localhost");
    buf[sizeof(buf) - 1] = '\0';
    return xstrdup(buf);
}

static FILE *open_log(const char *path)
{
    struct err e;
    FILE *fp = log_open_private(path, &e);

    if (fp == NULL)
        fprintf(stderr, "sluiced: log file: %s\n", e.text);
    return fp;
}

/* Log file, pid file, background: what comes after the checks. */
static int become_daemon(struct noded *nd, const struct opts *o, int *pidfd)
{
    char *pidpath = xasprintf("%s/sluiced.pid", nd->spool);
    char *deflog = xasprintf("%s/sluiced.log", nd->spool);
    const char *log_path =
        o->log_path ? o->log_path : (o->foreground ? NULL : deflog);
    struct err e;
    int rc = -1;

    *pidfd = daemon_pidfile_lock(pidpath, "sluiced", &e);
    if (*pidfd < 0) {
        fprintf(stderr, "sluiced: %s\n", e.text);
        goto out;
    }
    if (log_path != NULL && (nd->logfp = open_log(log_path)) == NULL)
        goto out;
    if (log_path != NULL) /* absolute: the daemon runs in / */
        nd->log_path = realpath(log_path, NULL);
    if (log_path != NULL && nd->log_path == NULL)
        nd->log_path = xstrdup(log_path);
    if (!o->foreground && daemon_detach(&e) < 0) {
        fprintf(stderr, "sluiced: %s\n", e.text);
        goto out;
    }
    if (daemon_pidfile_write(*pidfd, &e) < 0) {
        fprintf(stderr, "sluiced: %s\n", e.text);
        goto out;
    }
    rc = 0;
out:
    free(pidpath);
    free(deflog);
    return rc;
}

/*
 * -C: what this machine has, as slurmd -C prints it: a NodeName= line to
 * paste into the configuration and the gres.conf lines for its GPUs.
 */
static int print_config(const struct opts *o)
{
    char *host = host_name();
    const char *node = o->node ? o->node : host;
    struct resources_topo t;
    struct resources r;
    struct err e;

    /* what went wrong is in the output; -v shows the details */
    log_set_level(o->verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR);
    if (o->node == NULL)
        host[strcspn(host, ".")] = '\0';
    if (resources_probe(o->conf_path, node, &r, &e) < 0) {
        fprintf(stderr, "sluiced: %s\n", e.text);
        free(host);
        return 1;
    }
    resources_topology(&t);
    printf("NodeName=%s CPUs=%u Boards=%u SocketsPerBoard=%u "
           "CoresPerSocket=%u ThreadsPerCore=%u RealMemory=%llu",
           node, t.cpus, t.boards, t.sockets / t.boards, t.cores_per_socket,
           t.threads_per_core, (unsigned long long)r.mem_mib);
    if (r.gres[0] != '\0')
        printf(" Gres=%s", r.gres);
    printf("\n");
    if (r.gpus.n > 0) {
        printf("# gres.conf (GPUs %s):\n",
               r.gpus.nvml ? "found by NVML" : "declared in gres.conf");
        gpu_print_gresconf(&r.gpus, node, stdout);
        gpu_print_details(&r.gpus, stdout);
    } else {
        printf("# no GPUs: %s\n", r.gpus.note);
    }
    resources_fini(&r);
    free(host);
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = {0};
    struct noded nd = {0};
    struct err e;
    int pidfd = -1, rc = 1;

    /* the spool holds scripts and launch requests: nothing this daemon
     * creates is for other users unless chmod'ed so (the job's own files
     * get the submitter's umask, supervisor.c) */
    umask(077);
    log_init("sluiced", LOG_LEVEL_INFO, NULL);
    if (parse_opts(argc, argv, &o) < 0)
        return 2;
    if (o.print_config)
        return print_config(&o);
    if (sdnotify_init(&e) < 0)
        fprintf(stderr, "sluiced: warning: %s\n", e.text);
    if ((nd.conf = load_conf(o.conf_path)) == NULL)
        return 1;
    nd.conf_path = o.conf_path;
    nd.hostname = host_name();
    if (name_resolve(nd.conf, o.conf_path, o.node, nd.hostname, &nd.node, &e) <
        0) {
        fprintf(stderr, "sluiced: %s\n", e.text);
        goto out;
    }
    nd.name = nd.node->name;
    if (noded_setup(&nd, &e) < 0) {
        fprintf(stderr, "sluiced: %s\n", e.text);
        goto out;
    }
    if (become_daemon(&nd, &o, &pidfd) < 0)
        goto out;
    log_init("sluiced", daemon_log_level(nd.conf->slurmd_debug, o.verbose),
             nd.logfp);
    if (nd.logfp == NULL)
        log_detect_journal();
    log_info("sluiced %s starting node=%s pid=%d config=%s", SLUICE_VERSION,
             nd.name, (int)getpid(), o.conf_path);
    daemon_cpu_priority_log(nd.conf->sluice_daemon_nice, true);
    if (noded_run(&nd, &e) < 0) {
        log_warnx("cannot start: %s", e.text);
        goto out;
    }
    log_info("stopped");
    rc = 0;
out:
    if (pidfd >= 0) {
        char *pidpath = xasprintf("%s/sluiced.pid", nd.spool);
        unlink(pidpath);
        free(pidpath);
        close(pidfd);
    }
    noded_fini(&nd);
    log_init("sluiced", LOG_LEVEL_INFO, NULL);
    if (nd.logfp != NULL)
        fclose(nd.logfp);
    free(nd.log_path);
    return rc;
}
