/*
 * Output formats shared by the CLI verbs: Slurm's durations and
 * timestamps, memory sizes, format strings of the squeue/sinfo kind
 * ("%.18i %.9P %-10j") with their column printing, and the one printer
 * of tables in columns (sacct, sacctmgr show, sshare, sluice report):
 * width, alignment, cutting, -p/-P delimiters and the header's dashes.
 */
#ifndef SLUICE_CLI_FMT_H
#define SLUICE_CLI_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/err.h"

#define FMT_BUFLEN 64

/*
 * fmt_duration: squeue's TIME: "M:SS", "H:MM:SS", "D-HH:MM:SS" ("0:00",
 * "5:07", "1:00:00", "3-00:00:00"); secs < 0 gives inf ("UNLIMITED" or
 * "infinite" as the caller wants).  Returns buf.
 */
char *fmt_duration(int64_t secs, const char *inf, char *buf, size_t len);
/* fmt_hms: scontrol's RunTime/TimeLimit: "HH:MM:SS" or "D-HH:MM:SS". */
char *fmt_hms(int64_t secs, char *buf, size_t len);
/* fmt_time: local "YYYY-MM-DDTHH:MM:SS"; t <= 0 gives none ("N/A",
 * "Unknown"). */
char *fmt_time(time_t t, const char *none, char *buf, size_t len);
/* fmt_mem: MiB as Slurm prints it: "64000M", "4G", "1T", "0" (always
 * "4096M" after fmt_set_noconvert(true): --noconvert). */
char *fmt_mem(uint64_t mib, char *buf, size_t len);
void fmt_set_noconvert(bool on);

/* One %-field of a format string: "%.18i" is right, width 18, 'i'. */
struct fmt_field {
    char letter;
    int width; /* 0: as wide as the value */
    bool right;
    bool autow;   /* "%#N": widened by fmt_spec_fit to its widest value */
    char *suffix; /* literal text after the field (owned) */
};

struct fmt_spec {
    char *prefix; /* literal text before the first field (owned) */
    struct fmt_field *fields;
    size_t n;
};

/*
 * fmt_spec_parse: parse s ("%.18i %.9P %8j %-10u %R"; "%%" is a percent
 * sign) allowing only letters in valid.  -1 with EINVAL and e naming the
 * bad field ("invalid field \"%z\" at column 5").  Free with fmt_spec_free.
 */
int fmt_spec_parse(const char *s, const char *valid, struct fmt_spec *out,
                   struct err *e);
void fmt_spec_free(struct fmt_spec *sp);

/*
 * fmt_spec_parse_names: squeue/sinfo -O: "JobID,Name:30,State:.10,Nodes: "
 * (each "name[:[.][size][suffix]]", names as lookup takes them: it
 * returns the field's code, > 0, or -1 for an unknown name).  Without
 * ":size" a field is dflt_width wide, left-justified; "name:" alone
 * prints the value whole.  -1 with EINVAL and e naming the bad field.
 */
typedef int (*fmt_name_fn)(const char *name, size_t len);
int fmt_spec_parse_names(const char *s, fmt_name_fn lookup, int dflt_width,
                         struct fmt_spec *out, struct err *e);

/*
 * fmt_cell: s in a column as Slurm prints it: right-justified or
 * left-justified to width and cut to width; width 0 prints s whole.
 */
void fmt_cell(FILE *fp, const char *s, int width, bool right);

/*
 * fmt_spec_print: one line: for each field, value(letter, ctx, buf, len)
 * (returns the text, buf or a static string) in its column.
 */
typedef const char *(*fmt_value_fn)(char letter, const void *ctx, char *buf,
                                    size_t len);
void fmt_spec_print(FILE *fp, const struct fmt_spec *sp, fmt_value_fn value,
                    const void *ctx);

/* fmt_spec_fit: widen sp's "%#" fields to the text value gives them for
 * ctx; call it with the header and every row before printing any. */
void fmt_spec_fit(struct fmt_spec *sp, fmt_value_fn value, const void *ctx);

/* How a column treats a value wider than it. */
enum fmt_cut {
    FMT_CUT_NONE, /* printed whole, pushing the rest of the line */
    FMT_CUT,      /* cut to the width (squeue, sinfo) */
    FMT_CUT_PLUS, /* cut to width - 1 and a '+' (sacct, sacctmgr) */
};

struct fmt_col {
    int width; /* 0: as wide as the value */
    bool left; /* left-justified (else right) */
    enum fmt_cut cut;
};

enum fmt_tab_mode {
    FMT_TAB_COLUMNS,   /* fixed-width columns, one blank between */
    FMT_TAB_PARSABLE,  /* -p/--parsable: "a|b|" */
    FMT_TAB_PARSABLE2, /* -P/--parsable2: "a|b" */
};

/* A table of n columns; cols borrowed.  The caller prints the header (or
 * not: --noheader) with fmt_tab_cell like any row. */
struct fmt_tab {
    FILE *fp;
    enum fmt_tab_mode mode;
    const struct fmt_col *cols;
    size_t n;
    bool trailing; /* columns: a blank after the last one too (sacct) */
};

/*
 * fmt_tab_cell: s as the i-th cell (0 <= i < t->n) of the current row
 * with its delimiter; the n-th ends the line.
 */
void fmt_tab_cell(const struct fmt_tab *t, size_t i, const char *s);
/* fmt_tab_rule: the dashes under a header, each as wide as its column;
 * nothing unless in columns. */
void fmt_tab_rule(const struct fmt_tab *t);

#endif
