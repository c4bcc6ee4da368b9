/*
 * scontrol: "scontrol [-o] [--json] show|hold|uhold|release|suspend|resume|
 * update ...",
 * each command served by the sluice verb that does the same.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/opt.h"

enum { SC_ONELINER = 1, SC_JSON, SC_HELP, SC_VERSION, SC_QUIET, SC_DETAILS };

static const struct opt_def scontrol_opts[] = {
    {"oneliner", 'o', OPT_NOARG, SC_ONELINER},
    {"json", 0, OPT_NOARG, SC_JSON},
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
           "  show job|node|partition [ID]\n"
           "  hold JOBID...       uhold JOBID...      release JOBID...\n"
           "  suspend JOBID...    resume JOBID...     (operators)\n"
           "  update JobId=ID [TimeLimit=T] [Partition=P] [JobName=N] "
           "[Priority=N] [Nice=N]\n"
           "  update NodeName=NODES State=DRAIN|DOWN|RESUME [Reason=TEXT]\n"
           "  version\n");
}

static int scontrol_dispatch(int n, char **w, bool json, bool oneliner)
{
    if (n == 0) {
        scontrol_help();
        return 2;
    }
    if (strcasecmp(w[0], "show") == 0)
        return show_run(n - 1, w + 1, json, oneliner);
    if (strcasecmp(w[0], "hold") == 0 || strcasecmp(w[0], "uhold") == 0)
        return hold_run(false, n - 1, w + 1);
    if (strcasecmp(w[0], "release") == 0)
        return hold_run(true, n - 1, w + 1);
    if (strcasecmp(w[0], "suspend") == 0)
        return suspend_run(false, n - 1, w + 1);
    if (strcasecmp(w[0], "resume") == 0)
        return suspend_run(true, n - 1, w + 1);
    if (strcasecmp(w[0], "update") == 0)
        return update_run(n - 1, w + 1);
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
    bool json = false, oneliner = false;
    const char *arg;
    struct err e;
    int id, rc;

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
    }
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
