/*
 * sluice share / sshare: the association tree with shares, usage and
 * fair-share factors in sshare's columns (Account, User, RawShares,
 * NormShares, RawUsage, EffectvUsage, FairShare; -l adds NormUsage and
 * LevelFS), or --json.  By default the accounts and the caller's own
 * associations; -a every user, -u/-A choose users and accounts.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/opt.h"
#include "common/proto.h"

enum { S_ALL = 1, S_LONG, S_ACCOUNTS, S_USERS, S_NOHEADER, S_JSON, S_HELP };

static const struct opt_def share_opts[] = {
    {"all", 'a', OPT_NOARG, S_ALL},
    {"long", 'l', OPT_NOARG, S_LONG},
    {"accounts", 'A', OPT_ARG, S_ACCOUNTS},
    {"users", 'u', OPT_ARG, S_USERS},
    {"noheader", 'n', OPT_NOARG, S_NOHEADER},
    {"json", 0, OPT_NOARG, S_JSON},
    {"help", 0, OPT_NOARG, S_HELP},
    {"usage", 0, OPT_NOARG, S_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

struct share_args {
    const char *accounts, *users;
    char me[256];
    bool all, lng, noheader, json;
};

static bool in_list(const char *list, const char *s)
{
    size_t n = strlen(s);

    for (const char *p = list; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, s, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static bool shown(const struct share_args *a, json_t *row)
{
    const char *acc = json_string_value(json_object_get(row, "account"));
    const char *user = json_string_value(json_object_get(row, "user"));

    if (a->accounts != NULL && !in_list(a->accounts, acc))
        return false;
    if (user == NULL)
        return true;
    if (a->users != NULL)
        return in_list(a->users, user);
    return a->all || strcmp(user, a->me) == 0;
}

/* v with digits decimals, or "" when it is not a number. */
static void num(char *buf, size_t len, json_t *v, int digits)
{
    if (json_is_number(v))
        snprintf(buf, len, "%.*f", digits, json_number_value(v));
    else
        buf[0] = '\0';
}

/* sshare's columns: Account and User cut, the numbers whole. */
static const struct fmt_col share_cols[] = {
    {20, true, FMT_CUT},       {10, false, FMT_CUT},
    {10, false, FMT_CUT_NONE}, {11, false, FMT_CUT_NONE},
    {11, false, FMT_CUT_NONE}, {13, false, FMT_CUT_NONE},
    {10, false, FMT_CUT_NONE}, {10, false, FMT_CUT_NONE}, /* -l: LevelFS */
};

static void share_row(const struct fmt_tab *t, json_t *row)
{
    char acc[64], rs[32], ns[32], ru[32], eu[32], fs[32], lfs[32];
    const char *user = json_string_value(json_object_get(row, "user"));
    int depth = (int)json_integer_value(json_object_get(row, "depth"));
    const char *cells[8] = {acc, user ? user : "", rs, ns, ru, eu, fs, lfs};

    snprintf(acc, sizeof(acc), "%*s%s", depth, "",
             json_string_value(json_object_get(row, "account")));
    snprintf(rs, sizeof(rs), "%lld",
             (long long)json_integer_value(json_object_get(row, "raw_shares")));
    num(ns, sizeof(ns), json_object_get(row, "norm_shares"), 6);
    num(ru, sizeof(ru), json_object_get(row, "raw_usage"), 0);
    num(eu, sizeof(eu), json_object_get(row, "effective_usage"), 6);
    num(fs, sizeof(fs), json_object_get(row, "fairshare"), 6);
    num(lfs, sizeof(lfs), json_object_get(row, "level_fs"), 6);
    for (size_t i = 0; i < t->n; i++)
        fmt_tab_cell(t, i, cells[i]);
}

static int share_print(const struct share_args *a, json_t *reply)
{
    static const char *const heads[] = {
        "Account",  "User",         "RawShares", "NormShares",
        "RawUsage", "EffectvUsage", "FairShare", "LevelFS",
    };
    struct fmt_tab t = {stdout, FMT_TAB_COLUMNS, share_cols, a->lng ? 8 : 7,
                        false};
    size_t i;
    json_t *row;

    if (a->json) {
        json_dumpf(reply, stdout, JSON_INDENT(2));
        putchar('\n');
        return 0;
    }
    if (!a->noheader) {
        for (i = 0; i < t.n; i++)
            fmt_tab_cell(&t, i, heads[i]);
        fmt_tab_rule(&t);
    }
    json_array_foreach(json_object_get(reply, "shares"), i, row)
    {
        if (shown(a, row))
            share_row(&t, row);
    }
    return 0;
}

static int share_parse(struct share_args *a, int argc, char **argv)
{
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
        case S_JSON:
            a->json = true;
            cli_set_raw(true); /* exact JSON out */
            break;
        case S_HELP:
            printf("Usage: %s [-a] [-l] [-A ACCOUNTS] [-u USERS] [-n] "
                   "[--json]\n",
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
    snprintf(a.me, sizeof(a.me), "%s", pw ? pw->pw_name : "");
    rc = share_parse(&a, argc, argv);
    if (rc <= 0)
        return rc < 0 ? 1 : 0;
    if (cli_call(PROTO_MSG_SHARE_QUERY, NULL, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    } else {
        rc = share_print(&a, reply);
    }
    json_decref(reply);
    cli_close();
    return rc;
}
