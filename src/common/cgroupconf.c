/*
 * cgroup.conf parsing with the slurm.conf lexer: Slurm's keys, checked,
 * into a struct cgroupconf; keys Sluice does not act on are warned about
 * with their place and ignored.
 */
#include "common/cgroupconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_int.h"
#include "common/value.h"
#include "common/xalloc.h"

/* Slurm cgroup.conf keys that Sluice accepts and does not act on. */
static const char *const ignored_keys[] = {
    "CgroupAutomount",    "CgroupReleaseAgentDir",
    "AllowedKmemSpace",   "AllowedSwapSpace",
    "ConstrainKmemSpace", "MaxKmemPercent",
    "MaxRAMPercent",      "MaxSwapPercent",
    "MemorySwappiness",   "MinKmemSpace",
    "MinRAMSpace",        "TaskAffinity",
    "IgnoreSystemd",      "IgnoreSystemdOnFailure",
    "EnableControllers",  "SystemdTimeout",
    "CgroupSlice",        "SignalChildrenProcesses",
};

static const struct {
    const char *name;
    enum cgroupconf_plugin value;
} plugins[] = {
    {"autodetect", CGROUPCONF_AUTO},
    {"cgroup/v1", CGROUPCONF_V1},
    {"cgroup/v2", CGROUPCONF_V2},
    {"disabled", CGROUPCONF_DISABLED},
};

struct cc_build {
    struct cgroupconf c;
    struct conf_diag *diag;
};

void cgroupconf_defaults(struct cgroupconf *c)
{
    memset(c, 0, sizeof(*c));
    c->plugin = CGROUPCONF_AUTO;
    snprintf(c->mountpoint, sizeof(c->mountpoint), "%s", CGROUPCONF_MOUNTPOINT);
    c->constrain_cores = true;
    c->constrain_ram = true;
    c->constrain_swap = true;
    c->constrain_devices = false;
    c->allowed_ram_pct = 100;
}

const char *cgroupconf_plugin_name(enum cgroupconf_plugin p)
{
    for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
        if (plugins[i].value == p)
            return plugins[i].name;
    return "?";
}

static int cc_bool(const char *key, const char *val, bool *out, struct err *e)
{
    if (value_parse_bool(val, out, e) < 0)
        return err_set(e, "%s=%.64s: expected yes or no", key, val);
    return 0;
}

/* One Key=Value: 0, -1 with e, or 1 for a key to warn about. */
static int cc_key(struct cgroupconf *c, const struct conf_pair *p,
                  struct err *e)
{
    const char *k = p->key, *v = p->value;
    uint64_t pct;

    if (strcasecmp(k, "CgroupPlugin") == 0) {
        for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
            if (strcasecmp(v, plugins[i].name) == 0) {
                c->plugin = plugins[i].value;
                return 0;
            }
        return err_set(e,
                       "CgroupPlugin=%.64s: expected autodetect, cgroup/v1, "
                       "cgroup/v2 or disabled",
                       v);
    }
    if (strcasecmp(k, "CgroupMountpoint") == 0) {
        if (v[0] != '/' || strlen(v) >= sizeof(c->mountpoint))
            return err_set(e,
                           "CgroupMountpoint=%.64s: expected an absolute "
                           "path",
                           v);
        snprintf(c->mountpoint, sizeof(c->mountpoint), "%s", v);
        return 0;
    }
    if (strcasecmp(k, "ConstrainCores") == 0)
        return cc_bool("ConstrainCores", v, &c->constrain_cores, e);
    if (strcasecmp(k, "ConstrainRAMSpace") == 0)
        return cc_bool("ConstrainRAMSpace", v, &c->constrain_ram, e);
    if (strcasecmp(k, "ConstrainSwapSpace") == 0)
        return cc_bool("ConstrainSwapSpace", v, &c->constrain_swap, e);
    if (strcasecmp(k, "ConstrainDevices") == 0)
        return cc_bool("ConstrainDevices", v, &c->constrain_devices, e);
    if (strcasecmp(k, "AllowedRAMSpace") == 0) {
        if (value_parse_u64(v, 1, 10000, &pct, e) < 0)
            return err_prefix(e, "AllowedRAMSpace=%.64s", v);
        c->allowed_ram_pct = (uint32_t)pct;
        return 0;
    }
    return 1;
}

static void cc_on_line(void *arg, const struct conf_line *ln)
{
    struct cc_build *b = arg;
    struct err e;
    bool known;

    for (size_t i = 0; i < ln->n; i++) {
        const struct conf_pair *p = &ln->pairs[i];
        int rc = cc_key(&b->c, p, &e);
        if (rc < 0) {
            conf_diag_add(b->diag, CONF_ERROR, ln->file, p->line, p->col, "%s",
                          e.text);
            continue;
        }
        if (rc == 0)
            continue;
        known = false;
        for (size_t k = 0; k < sizeof(ignored_keys) / sizeof(*ignored_keys);
             k++)
            known = known || strcasecmp(p->key, ignored_keys[k]) == 0;
        conf_diag_add(b->diag, CONF_WARNING, ln->file, p->line, p->col,
                      known ? "%.64s is not supported by Sluice; ignored"
                            : "unknown cgroup.conf key '%.64s' ignored",
                      p->key);
    }
}

static int cc_run(const char *path, const char *text, struct cgroupconf *c,
                  struct conf_diag *diag, struct err *e)
{
    struct conf_diag local;
    struct conf_strs names = {0};
    struct cc_build b = {.diag = diag ? diag : &local};
    struct conf_lex lx = {
        .diag = b.diag, .names = &names, .fn = cc_on_line, .arg = &b};
    size_t errs0, first;
    int rc = -1, saved = EINVAL;

    conf_diag_init(&local); /* before reading b.diag, which may be it */
    errs0 = b.diag->n_errors;
    first = b.diag->n;
    cgroupconf_defaults(&b.c);
    if (text == NULL) {
        if (conf_lex_file(&lx, path, NULL) < 0) {
            saved = errno;
            err_set(e, "cannot read %s: %s", path, strerror(errno));
            goto out;
        }
    } else {
        conf_lex_text(&lx, text, strlen(text), path);
    }
    if (b.diag->n_errors == errs0) {
        *c = b.c;
        rc = 0;
        goto out;
    }
    for (size_t i = first; i < b.diag->n; i++)
        if (b.diag->items[i].severity == CONF_ERROR) {
            const struct conf_diag_item *it = &b.diag->items[i];
            err_set(e, "%s:%d:%d: %s", it->file, it->line, it->col, it->text);
            break;
        }
out:
    conf_strs_free(&names);
    conf_diag_free(&local);
    if (rc < 0)
        errno = saved;
    return rc;
}

int cgroupconf_load(const char *path, struct cgroupconf *c,
                    struct conf_diag *diag, struct err *e)
{
    return cc_run(path, NULL, c, diag, e);
}

int cgroupconf_parse_string(const char *text, const char *name,
                            struct cgroupconf *c, struct conf_diag *diag,
                            struct err *e)
{
    return cc_run(name, text, c, diag, e);
}
