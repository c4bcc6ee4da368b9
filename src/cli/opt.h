/*
 * A table-driven option parser for the CLI verbs, used both for argv and
 * for the words of #SBATCH lines.  It behaves like getopt_long (--opt=val,
 * --opt val, unique prefixes of long names, -t10, -t 10, clustered flags)
 * but keeps no global state and reports errors as text in a struct err.
 */
#ifndef SLUICE_CLI_OPT_H
#define SLUICE_CLI_OPT_H

#include <stdbool.h>

#include "common/err.h"

enum opt_arg {
    OPT_NOARG,  /* --hold */
    OPT_ARG,    /* --time=10, --time 10, -t10, -t 10 */
    OPT_OPTARG, /* --nice or --nice=10 (only with '='; -n10 for a short) */
};

/* One option; a table ends with an entry whose id is 0. */
struct opt_def {
    const char *long_name; /* "job-name", or NULL */
    int short_name;        /* 'J', or 0 */
    enum opt_arg arg;
    int id; /* > 0, returned by opt_next */
};

/* Parser state over argv[first..argc).  Operands are collected when
 * permuting (scancel 5 -u x); otherwise parsing stops at the first one. */
struct opt_state {
    int argc;
    char **argv;
    int ind;                /* next argv element to look at */
    const char *short_rest; /* the rest of a cluster like -Hv */
    bool permute;
    bool done;       /* "--" seen or (not permuting) an operand reached */
    char **operands; /* when permuting: borrowed from argv; array owned */
    int n_operands;
    /* after "unrecognized option '--foo'": "foo" (for a suggestion) */
    char unknown[128];
};

/* opt_init: argv is borrowed and must outlive st. */
void opt_init(struct opt_state *st, int argc, char **argv, int first,
              bool permute);
/* opt_free: release the operand array (accepts a zeroed state). */
void opt_free(struct opt_state *st);

/*
 * opt_next: the next option: 1 with *id and *arg (borrowed from argv; NULL
 * when there is none); 0 at the end; -1 with getopt's words in e
 * ("unrecognized option '--foo'", "option '--time' requires an argument").
 * At the end, when not permuting, st->ind is the first operand.
 */
int opt_next(struct opt_state *st, const struct opt_def *defs, int *id,
             const char **arg, struct err *e);

/* opt_name: "--job-name" or "-J" for messages (static or from defs). */
const char *opt_name(const struct opt_def *defs, int id, char *buf,
                     unsigned len);

/*
 * opt_split: split a line into words as a shell would for simple cases:
 * blanks separate words, '...' and "..." quote (backslash escapes in
 * double quotes and outside quotes), an unquoted word starting with '#'
 * ends the line.  Returns a NULL-terminated array of fresh strings (free
 * with opt_split_free) and *n; NULL with e on an unterminated quote.
 */
char **opt_split(const char *line, int *n, struct err *e);
void opt_split_free(char **words);

#endif
