/*
 * scontrol: "scontrol [-o] [--json] show|hold|uhold|release|suspend|resume|
 * update|requeue|requeuehold|top|ping|reconfigure|setdebug|token ...",
 * each command served by the sluice verb that does the same; "show
 * hostnames" and "show hostlist" are answered here, without the controller.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/opt.h"
#include "common/hostlist.h"

enum { SC_ONELINER = 1, SC_JSON, SC_HELP, SC_VERSION, SC_QUIET, SC_DETAILS };

static const struct opt_def scontrol_opts[] = {
    {"oneliner", 'o', OPT_NOARG, SC_ONELINER},
    {"json", 0, OPT_OPTARG, SC_JSON},
    {"help", 'h', OPT_NOARG, SC_HELP},
    {"usage", 0, OPT_NOARG, SC_HELP},
    {"version", 'V', OPT_NOARG, SC_VERSION},
    {"quiet", 'Q', OPT_NOARG, SC_QUIET},
    {"details", 'd', OPT_NOARG, SC_DETAILS},
    {NULL, 0, OPT_NOARG, 0},
};

static void scontrol_help(void)
{
    printf("Usage: scontrol [-o] [--json] COMMAND\n"
           "  show job|node|partition [ID]   show step [JOBID[.STEP]]\n"
           "  show hostnames [LIST]   show hostlist[sorted] LIST|FILE\n"
           "  hold JOBID...       uhold JOBID...      release JOBID...\n"
           "  suspend JOBID...    resume JOBID...     (operators)\n"
           "  update JobId=ID [TimeLimit=T] [Partition=P] [JobName=N] "
           "[Priority=N] [Nice=N]\n"
           "  update NodeName=NODES State=DRAIN|DOWN|RESUME|UNDRAIN|IDLE "
           "[Reason=TEXT]\n"
           "  requeue JOBID...    requeuehold [State=SpecialExit] JOBID...\n"
           "  top JOBID[,JOBID...]  ping   show config   reconfigure\n"
           "  setdebug LEVEL      (the controller's log level until the next "
           "reconfigure)\n"
           "  create reservation KEY=VALUE...   show reservation [NAME]\n"
           "  update ReservationName=NAME KEY=VALUE...\n"
           "  delete ReservationName=NAME\n"
           "  token [lifespan=SECONDS] [username=NAME]   (REST API)\n"
           "  version\n");
}

/* hostlist_read: the names in a file, separated by white space or commas
 * (each may be an expression), pushed onto hl. */
static int hostlist_read(struct hostlist *hl, const char *path, struct err *e)
{
    FILE *fp = fopen(path, "r");
    char word[HOSTLIST_MAX_NAME + 1];
    int c, len = 0, rc = 0;

    if (fp == NULL)
        return err_set(e, "%s: %s", path, strerror(errno));
    do {
        c = getc(fp);
        if (c != EOF && c != ',' && c != ' ' && c != '\t' && c != '\n' &&
            c != '\r') {
            if (len == HOSTLIST_MAX_NAME) {
                rc = err_set(e, "%s: a name is over %d characters", path,
                             HOSTLIST_MAX_NAME);
                break;
            }
            word[len++] = (char)c;
        } else if (len > 0) {
            word[len] = '\0';
            len = 0;
            if ((rc = hostlist_push(hl, word, e)) < 0) {
                err_prefix(e, "%s", path);
                break;
            }
        }
    } while (c != EOF);
    fclose(fp);
    return rc;
}

/* "scontrol show hostnames [LIST]": each name of LIST (default the job's
 * nodes) on a line of its own, as scripts iterate over them. */
static int show_hostnames(int n, char **w)
{
    const char *expr = n > 0 ? w[0] : getenv("SLURM_JOB_NODELIST");
    struct hostlist *hl;
    struct err e;

    if (n > 1) {
        cli_error("usage: show hostnames [LIST]");
        return 2;
    }
    if (expr == NULL)
        expr = getenv("SLURM_NODELIST");
    if (expr == NULL) {
        cli_error("No nodelist specified and SLURM_JOB_NODELIST is not set");
        return 1;
    }
    if ((hl = hostlist_expand(expr, &e)) == NULL) {
        cli_error("%s", e.text);
        return 1;
    }
    for (size_t i = 0; i < hostlist_count(hl); i++)
        printf("%s\n", hostlist_nth(hl, i));
    hostlist_destroy(hl);
    return 0;
}

/* "scontrol show hostlist[sorted] LIST": the names (or the names in the
 * file LIST, when it starts with "/" or "./") as one expression. */
static int show_hostlist(int n, char **w, bool sorted)
{
    struct hostlist *hl;
    struct err e;
    char *s;
    int rc;

    if (n != 1) {
        cli_error("usage: show hostlist%s LIST|FILE", sorted ? "sorted" : "");
        return 2;
    }
    hl = hostlist_create();
    if (w[0][0] == '/' || strncmp(w[0], "./", 2) == 0)
        rc = hostlist_read(hl, w[0], &e);
    else
        rc = hostlist_push(hl, w[0], &e);
    if (rc < 0) {
        cli_error("%s", e.text);
        hostlist_destroy(hl);
        return 1;
    }
    if (sorted)
        hostlist_sort_uniq(hl);
    s = hostlist_compress(hl);
    printf("%s\n", s);
    free(s);
    hostlist_destroy(hl);
    return 0;
}

/* show_local: the show commands that need no controller; -1 for others. */
static int show_local(int n, char **w)
{
    if (n < 1)
        return -1;
    if (strcasecmp(w[0], "hostnames") == 0)
        return show_hostnames(n - 1, w + 1);
    if (strcasecmp(w[0], "hostlist") == 0)
        return show_hostlist(n - 1, w + 1, false);
    if (strcasecmp(w[0], "hostlistsorted") == 0)
        return show_hostlist(n - 1, w + 1, true);
    return -1;
}

static int scontrol_dispatch(int n, char **w, bool json, bool oneliner)
{
    int rc;

    if (n == 0) {
        scontrol_help();
        return 2;
    }
    if (strcasecmp(w[0], "show") == 0) {
        if ((rc = show_local(n - 1, w + 1)) >= 0)
            return rc;
        if (n == 2 && (strcasecmp(w[1], "config") == 0 ||
                       strcasecmp(w[1], "configuration") == 0))
            return show_config_run(0, NULL);
        if (n >= 2 && strlen(w[1]) >= 3 &&
            (strncasecmp(w[1], "reservations", strlen(w[1])) == 0))
            return resv_show_run(n - 2, w + 2, json, oneliner);
        return show_run(n - 1, w + 1, json, oneliner);
    }
    if (strcasecmp(w[0], "hold") == 0 || strcasecmp(w[0], "uhold") == 0)
        return hold_run(false, n - 1, w + 1);
    if (strcasecmp(w[0], "release") == 0)
        return hold_run(true, n - 1, w + 1);
    if (strcasecmp(w[0], "suspend") == 0)
        return suspend_run(false, n - 1, w + 1);
    if (strcasecmp(w[0], "resume") == 0)
        return suspend_run(true, n - 1, w + 1);
    if (strcasecmp(w[0], "update") == 0) {
        if (n >= 2 && (strncasecmp(w[1], "ReservationName=", 16) == 0 ||
                       strncasecmp(w[1], "Reservation=", 12) == 0))
            return resv_update_run(n - 1, w + 1);
        return update_run(n - 1, w + 1);
    }
    if (strcasecmp(w[0], "create") == 0)
        return resv_create_run(n - 1, w + 1);
    if (strcasecmp(w[0], "delete") == 0)
        return resv_delete_run(n - 1, w + 1);
    if (strcasecmp(w[0], "requeue") == 0)
        return requeue_run(false, n - 1, w + 1);
    if (strcasecmp(w[0], "requeuehold") == 0)
        return requeue_run(true, n - 1, w + 1);
    if (strcasecmp(w[0], "ping") == 0)
        return ping_run(n - 1, w + 1);
    if (strcasecmp(w[0], "reconfigure") == 0 ||
        strcasecmp(w[0], "reconfig") == 0)
        return reconfigure_run(n - 1, w + 1);
    if (strcasecmp(w[0], "setdebug") == 0)
        return setdebug_run(n - 1, w + 1);
    if (strcasecmp(w[0], "top") == 0)
        return top_run(n - 1, w + 1);
    if (strcasecmp(w[0], "token") == 0)
        return token_run(n - 1, w + 1);
    if (strcasecmp(w[0], "version") == 0) {
        printf("sluice %s\n", SLUICE_VERSION);
        return 0;
    }
    if (strcasecmp(w[0], "help") == 0) {
        scontrol_help();
        return 0;
    }
    cli_error("invalid command \"%s\" (see 'scontrol --help')", w[0]);
    return 2;
}

int cmd_scontrol(int argc, char **argv)
{
    struct opt_state st;
    bool json = false, oneliner = false, sluice;
    const char *arg;
    struct err e;
    int id, rc, details = 0;

    cli_set_prog(argv[0]);
    /* Options may come anywhere, as with getopt: "show job 5 -o". */
    opt_init(&st, argc, argv, 1, true);
    while ((rc = opt_next(&st, scontrol_opts, &id, &arg, &e)) > 0) {
        if (id == SC_HELP || id == SC_VERSION) {
            if (id == SC_HELP)
                scontrol_help();
            else
                printf("sluice %s\n", SLUICE_VERSION);
            opt_free(&st);
            return 0;
        }
        json |= id == SC_JSON;
        oneliner |= id == SC_ONELINER;
        details += id == SC_DETAILS;
        if (id == SC_JSON && cli_json_schema(arg, &sluice, &e) < 0) {
            rc = -1;
            break;
        }
    }
    show_set_detail(details);
    if (rc < 0) {
        cli_opt_end(&st, rc, &e);
        return 2;
    }
    cli_set_raw(json); /* exact JSON out */
    rc = scontrol_dispatch(st.n_operands, st.operands, json, oneliner);
    opt_free(&st);
    cli_close();
    return rc;
}
