/*
 * sluice import-slurm [--dir DIR] [--accounting DUMP] [-o OUTDIR]: Slurm's
 * slurm.conf, gres.conf and cgroup.conf (and a sacctmgr dump) turned into
 * Sluice's files in OUTDIR, with a report of every key changed, ignored or
 * not mapped, each with its file and line (docs/migrating-from-slurm.md).
 * The result is checked as `sluice check-config` checks it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/import_acct.h"
#include "cli/opt.h"
#include "common/conf.h"
#include "common/conf_import.h"
#include "common/fsmode.h"
#include "common/xalloc.h"

#define IMPORT_DEFAULT_DIR "/etc/slurm"
#define IMPORT_DEFAULT_OUT "sluice-import"
#define IMPORT_DEFAULT_USER "sluice"

struct imp {
    const char *dir, *out, *dump, *user;
    bool force;
};

/* One file written into OUTDIR. */
struct imp_file {
    const char *name; /* "sluice.conf" */
    mode_t mode;
    char *text; /* owned; NULL: not written */
};

enum { IM_DIR = 1, IM_ACCT, IM_OUT, IM_USER, IM_FORCE, IM_HELP };

static const struct opt_def import_opts[] = {
    {"dir", 'd', OPT_ARG, IM_DIR},
    {"accounting", 'a', OPT_ARG, IM_ACCT},
    {"output", 'o', OPT_ARG, IM_OUT},
    {"slurm-user", 0, OPT_ARG, IM_USER},
    {"force", 'f', OPT_NOARG, IM_FORCE},
    {"help", 'h', OPT_NOARG, IM_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

static int import_usage(FILE *fp, int rc)
{
    fprintf(fp,
            "usage: sluice import-slurm [--dir DIR] [--accounting DUMP] [-o "
            "OUTDIR]\n"
            "                           [--slurm-user USER] [--force]\n"
            "  -d, --dir DIR          Slurm's slurm.conf, gres.conf and "
            "cgroup.conf (%s)\n"
            "  -a, --accounting DUMP  also a `sacctmgr dump` file, as "
            "accounting.sh\n"
            "  -o, --output OUTDIR    where to write Sluice's files (%s)\n"
            "      --slurm-user USER  SlurmUser to write (%s; '' for none)\n"
            "  -f, --force            replace files OUTDIR has already\n",
            IMPORT_DEFAULT_DIR, IMPORT_DEFAULT_OUT, IMPORT_DEFAULT_USER);
    return rc;
}

static int import_parse(struct imp *im, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int rc, id;

    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, import_opts, &id, &arg, &e)) > 0) {
        if (id == IM_HELP) {
            opt_free(&st);
            return 0;
        }
        if (id == IM_DIR)
            im->dir = arg;
        else if (id == IM_ACCT)
            im->dump = arg;
        else if (id == IM_OUT)
            im->out = arg;
        else if (id == IM_USER)
            im->user = arg;
        else
            im->force = true;
    }
    return cli_opt_end(&st, rc, &e);
}

/* DIR/name, or name alone for ".", so that reports name it short. */
static char *in_dir(const char *dir, const char *name)
{
    if (strcmp(dir, ".") == 0)
        return xstrdup(name);
    return xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
                     name);
}

static int write_file(const char *path, const struct imp_file *f, bool force,
                      struct err *e)
{
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                (force ? O_TRUNC : O_EXCL);
    int fd = open(path, flags, f->mode);
    size_t len = strlen(f->text);

    if (fd < 0 && errno == EEXIST)
        return err_set(e,
                       "%s exists: remove it, or give --force to replace "
                       "it",
                       path);
    if (fd < 0)
        return err_set(e, "cannot write %s: %s", path, strerror(errno));
    if (fchmod(fd, f->mode) < 0 || write(fd, f->text, len) != (ssize_t)len ||
        close(fd) < 0) {
        err_set(e, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return 0;
}

static void print_item(FILE *fp, const struct import_item *it)
{
    fputs(it->file, fp);
    if (it->line > 0)
        fprintf(fp, ":%d", it->line);
    if (it->line > 0 && it->col > 0)
        fprintf(fp, ":%d", it->col);
    fprintf(fp, ": %s: %s\n", import_what_name(it->what), it->text);
}

static void print_report(FILE *fp, const struct import_report *r,
                         const char *out, const struct imp_file *files,
                         size_t n)
{
    size_t errs = import_report_count(r, IMPORT_ERROR);

    for (size_t i = 0; i < r->n; i++)
        print_item(fp, &r->items[i]);
    fprintf(fp,
            "import-slurm: %zu keys written as they were, %zu changed, %zu "
            "ignored, %zu not mapped; %zu warnings, %zu errors\n",
            r->kept, import_report_count(r, IMPORT_CHANGED),
            import_report_count(r, IMPORT_IGNORED),
            import_report_count(r, IMPORT_UNMAPPED),
            import_report_count(r, IMPORT_WARNING), errs);
    fprintf(fp, "import-slurm: wrote");
    for (size_t i = 0; i < n; i++)
        if (files[i].text != NULL)
            fprintf(fp, " %s/%s", out, files[i].name);
    fprintf(fp, " %s/import-report.txt\n", out);
    fprintf(fp, "import-slurm: sluice check-config -f %s/sluice.conf: %s\n",
            out,
            errs ? "errors (above): fix them before starting Sluice" : "valid");
}

/* What sluice check-config says beyond the file (gres.conf and
 * cgroup.conf beside it), as warnings at the place written. */
static void check_written(const char *path, struct import_report *r)
{
    struct conf_diag d;
    struct conf *c;

    conf_diag_init(&d);
    c = conf_load(path, NULL, NULL);
    if (c != NULL)
        check_config_extra(c, path, &d);
    for (size_t i = 0; i < d.n; i++)
        import_report_add(r,
                          d.items[i].severity == CONF_ERROR ? IMPORT_ERROR
                                                            : IMPORT_WARNING,
                          d.items[i].file, d.items[i].line, d.items[i].col,
                          "%s", d.items[i].text);
    conf_destroy(c);
    conf_diag_free(&d);
}

/* Every file, translated into files[] (sluice.conf, gres.conf,
 * cgroup.conf, accounting.sh); -1 after printing why. */
static int translate(const struct imp *im, struct import_report *r,
                     struct imp_file *files)
{
    char *src[3] = {in_dir(im->dir, "slurm.conf"), in_dir(im->dir, "gres.conf"),
                    in_dir(im->dir, "cgroup.conf")};
    char *names[3];
    struct import_opts o = {.slurm_user = im->user};
    struct err e;
    int rc = -1;

    for (int i = 0; i < 3; i++)
        names[i] = in_dir(im->out, files[i].name);
    o.out_name = names[0];
    if (import_slurm_conf(src[0], &o, r, &files[0].text, &e) < 0)
        goto out;
    o.out_name = names[1];
    if (access(src[1], F_OK) == 0 &&
        import_gres_conf(src[1], &o, r, &files[1].text, &e) < 0)
        goto out;
    o.out_name = names[2];
    if (import_cgroup_conf(access(src[2], F_OK) == 0 ? src[2] : NULL, &o, r,
                           &files[2].text, &e) < 0)
        goto out;
    if (im->dump != NULL && import_acct_dump(im->dump, r, &files[3].text, &e))
        goto out;
    rc = 0;
out:
    if (rc < 0)
        cli_error("%s", e.text);
    for (int i = 0; i < 3; i++) {
        free(src[i]);
        free(names[i]);
    }
    return rc;
}

static int write_all(const struct imp *im, struct import_report *r,
                     struct imp_file *files, size_t n)
{
    struct imp_file rep = {"import-report.txt", 0644, NULL};
    size_t len = 0;
    struct err e;
    char *path;
    FILE *fp;
    int rc = 0;

    if (fsmode_mkdir(im->out, 0755, &e) < 0) {
        cli_error("%s", e.text);
        return -1;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (files[i].text == NULL)
            continue;
        path = in_dir(im->out, files[i].name);
        rc = write_file(path, &files[i], im->force, &e);
        free(path);
    }
    if (rc == 0) { /* checked with the gres.conf and cgroup.conf beside */
        path = in_dir(im->out, "sluice.conf");
        check_written(path, r);
        free(path);
        fp = open_memstream(&rep.text, &len);
        print_report(fp, r, im->out, files, n);
        fclose(fp);
        path = in_dir(im->out, rep.name);
        rc = write_file(path, &rep, im->force, &e);
        free(path);
    }
    if (rc < 0)
        cli_error("%s", e.text);
    else
        fputs(rep.text, stdout);
    free(rep.text);
    return rc;
}

int cmd_import_slurm(int argc, char **argv)
{
    struct imp im = {IMPORT_DEFAULT_DIR, IMPORT_DEFAULT_OUT, NULL,
                     IMPORT_DEFAULT_USER, false};
    struct imp_file files[] = {
        {"sluice.conf", 0644, NULL},
        {"gres.conf", 0644, NULL},
        {"cgroup.conf", 0644, NULL},
        {"accounting.sh", 0755, NULL},
    };
    size_t n = sizeof(files) / sizeof(files[0]);
    struct import_report r;
    int rc;

    cli_set_prog(argv[0]);
    rc = import_parse(&im, argc, argv);
    if (rc <= 0)
        return rc == 0 ? import_usage(stdout, 0) : import_usage(stderr, 2);
    import_report_init(&r);
    rc = translate(&im, &r, files) < 0 || write_all(&im, &r, files, n) < 0 ||
         import_report_count(&r, IMPORT_ERROR) > 0;
    for (size_t i = 0; i < n; i++)
        free(files[i].text);
    import_report_free(&r);
    return rc;
}
