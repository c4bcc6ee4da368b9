/*
 * sluice share / sshare: the association tree with shares, usage and
 * fair-share factors in sshare's columns (Account, User, RawShares,
 * NormShares, RawUsage, EffectvUsage, FairShare; -l adds NormUsage,
 * LevelFS, GrpTRESMins and TRESRunMins; -o chooses), -p/-P, or --json.
 * By default the accounts and the caller's own associations; -a every
 * user, -u/-A choose users and accounts, -U users only.  Children are
 * indented one blank per level below root, as Slurm does.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/opt.h"
#include "cli/shareview.h"
#include "common/proto.h"

enum {
    S_ALL = 1,
    S_LONG,
    S_ACCOUNTS,
    S_USERS,
    S_USERS_ONLY,
    S_FORMAT,
    S_PARSABLE,
    S_PARSABLE2,
    S_PARTITION,
    S_NOHEADER,
    S_HELPFORMAT,
    S_JSON,
    S_HELP,
    S_IGNORED,
};

static const struct opt_def share_opts[] = {
    {"all", 'a', OPT_NOARG, S_ALL},
    {"long", 'l', OPT_NOARG, S_LONG},
    {"accounts", 'A', OPT_ARG, S_ACCOUNTS},
    {"users", 'u', OPT_ARG, S_USERS},
    {"Users", 'U', OPT_NOARG, S_USERS_ONLY},
    {"format", 'o', OPT_ARG, S_FORMAT},
    {"parsable", 'p', OPT_NOARG, S_PARSABLE},
    {"parsable2", 'P', OPT_NOARG, S_PARSABLE2},
    {"partition", 'm', OPT_NOARG, S_PARTITION},
    {"noheader", 'n', OPT_NOARG, S_NOHEADER},
    {"helpformat", 'e', OPT_NOARG, S_HELPFORMAT},
    {"json", 0, OPT_NOARG, S_JSON},
    {"clusters", 'M', OPT_ARG, S_IGNORED},
    {"verbose", 'v', OPT_NOARG, S_IGNORED},
    {"help", 0, OPT_NOARG, S_HELP},
    {"usage", 0, OPT_NOARG, S_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

struct share_args {
    struct shareview_args v;
    bool json;
};

static int share_parse(struct share_args *sa, int argc, char **argv)
{
    struct shareview_args *a = &sa->v;
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, share_opts, &id, &arg, &e)) > 0) {
        switch (id) {
        case S_ALL:
            a->all = true;
            break;
        case S_LONG:
            a->lng = true;
            break;
        case S_ACCOUNTS:
            a->accounts = arg;
            break;
        case S_USERS:
            a->users = arg;
            break;
        case S_NOHEADER:
            a->noheader = true;
            break;
        case S_USERS_ONLY:
            a->users_only = true;
            break;
        case S_FORMAT:
            a->format = arg;
            break;
        case S_PARSABLE:
            a->mode = FMT_TAB_PARSABLE;
            break;
        case S_PARSABLE2:
            a->mode = FMT_TAB_PARSABLE2;
            break;
        case S_PARTITION:
            a->partition = true;
            break;
        case S_HELPFORMAT:
            shareview_helpformat(stdout);
            opt_free(&st);
            return 0;
        case S_IGNORED:
            break;
        case S_JSON:
            sa->json = true;
            cli_set_raw(true); /* exact JSON out */
            break;
        case S_HELP:
            printf("Usage: %s [-a] [-l] [-U] [-m] [-A ACCOUNTS] [-u USERS] "
                   "[-o FIELDS] [-n] [-p|-P] [-e] [--json]\n",
                   cli_slurm_face() ? "sshare" : "sluice share");
            opt_free(&st);
            return 0;
        }
    }
    return cli_opt_end(&st, rc, &e);
}

int cmd_share(int argc, char **argv)
{
    struct share_args a = {0};
    struct passwd *pw = getpwuid(getuid());
    json_t *reply = NULL;
    struct err e;
    int rc;

    cli_set_prog(argv[0]);
    snprintf(a.v.me, sizeof(a.v.me), "%s", pw ? pw->pw_name : "");
    rc = share_parse(&a, argc, argv);
    if (rc <= 0)
        return rc < 0 ? 1 : 0;
    if (cli_call(PROTO_MSG_SHARE_QUERY, NULL, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    } else if (a.json) {
        json_dumpf(reply, stdout, JSON_INDENT(2));
        putchar('\n');
        rc = 0;
    } else if (shareview_print(stdout, &a.v, reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    } else {
        rc = 0;
    }
    json_decref(reply);
    cli_close();
    return rc;
}
