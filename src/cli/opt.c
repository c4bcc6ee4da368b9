/*
 * Option parsing without getopt's globals, so that the same table parses
 * argv and the #SBATCH lines of a script, and tests can run it freely.
 */
#include "cli/opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void opt_init(struct opt_state *st, int argc, char **argv, int first,
              bool permute)
{
    memset(st, 0, sizeof(*st));
    st->argc = argc;
    st->argv = argv;
    st->ind = first;
    st->permute = permute;
}

void opt_free(struct opt_state *st)
{
    free(st->operands);
    st->operands = NULL;
    st->n_operands = 0;
}

const char *opt_name(const struct opt_def *defs, int id, char *buf,
                     unsigned len)
{
    for (const struct opt_def *d = defs; d->id != 0; d++) {
        if (d->id != id)
            continue;
        if (d->long_name != NULL)
            snprintf(buf, len, "--%s", d->long_name);
        else
            snprintf(buf, len, "-%c", d->short_name);
        return buf;
    }
    snprintf(buf, len, "option %d", id);
    return buf;
}

/* The long option named by name[0..len): an exact match, else the only
 * option it is a prefix of. */
static const struct opt_def *find_long(struct opt_state *st,
                                       const struct opt_def *defs,
                                       const char *name, size_t len,
                                       struct err *e)
{
    const struct opt_def *found = NULL;
    int matches = 0;

    for (const struct opt_def *d = defs; d->id != 0; d++) {
        if (d->long_name == NULL || strncmp(d->long_name, name, len) != 0)
            continue;
        if (d->long_name[len] == '\0')
            return d;
        if (found == NULL || found->id != d->id)
            matches++;
        found = d;
    }
    if (matches == 1)
        return found;
    errno = EINVAL;
    if (matches == 0) {
        snprintf(st->unknown, sizeof(st->unknown), "%.*s", (int)len, name);
        err_set(e, "unrecognized option '--%.*s'", (int)len, name);
    } else
        err_set(e, "option '--%.*s' is ambiguous", (int)len, name);
    return NULL;
}

static int next_long(struct opt_state *st, const struct opt_def *defs, int *id,
                     const char **arg, struct err *e)
{
    const char *word = st->argv[st->ind++] + 2;
    const char *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    const struct opt_def *d = find_long(st, defs, word, len, e);

    if (d == NULL)
        return -1;
    *id = d->id;
    *arg = NULL;
    if (d->arg == OPT_NOARG) {
        if (eq != NULL) {
            errno = EINVAL;
            return err_set(e, "option '--%s' doesn't allow an argument",
                           d->long_name);
        }
        return 1;
    }
    if (eq != NULL) {
        *arg = eq + 1;
        return 1;
    }
    if (d->arg == OPT_OPTARG)
        return 1;
    if (st->ind >= st->argc) {
        errno = EINVAL;
        return err_set(e, "option '--%s' requires an argument", d->long_name);
    }
    *arg = st->argv[st->ind++];
    return 1;
}

static int next_short(struct opt_state *st, const struct opt_def *defs, int *id,
                      const char **arg, struct err *e)
{
    int c = (unsigned char)*st->short_rest++;
    const struct opt_def *d = defs;

    while (d->id != 0 && d->short_name != c)
        d++;
    if (d->id == 0) {
        st->short_rest = NULL;
        errno = EINVAL;
        return err_set(e, "invalid option -- '%c'", c);
    }
    *id = d->id;
    *arg = NULL;
    if (d->arg == OPT_NOARG) {
        if (*st->short_rest == '\0')
            st->short_rest = NULL;
        return 1;
    }
    if (*st->short_rest != '\0') {
        *arg = st->short_rest;
    } else if (d->arg == OPT_OPTARG) {
        /* nothing attached: no value */
    } else if (st->ind < st->argc) {
        *arg = st->argv[st->ind++];
    } else {
        st->short_rest = NULL;
        errno = EINVAL;
        return err_set(e, "option requires an argument -- '%c'", c);
    }
    st->short_rest = NULL;
    return 1;
}

/*
 * A test hook (docs/testing.md, "Man pages"): with SLUICE_LIST_OPTIONS in
 * the environment, the first table a command parses its arguments with is
 * printed, one option a line ("--job-name", "-J"), and the command exits
 * 0 before doing anything.  tests/man/options.sh checks that each option
 * the command accepts is in its man page; the table is the one the parser
 * uses, so no option can be accepted yet left out of the check.
 */
static void opt_list_and_exit(const struct opt_def *defs)
{
    for (const struct opt_def *d = defs; d->id != 0; d++) {
        if (d->long_name != NULL)
            printf("--%s\n", d->long_name);
        if (d->short_name != 0)
            printf("-%c\n", d->short_name);
    }
    exit(fflush(stdout) == 0 ? 0 : 1);
}

int opt_next(struct opt_state *st, const struct opt_def *defs, int *id,
             const char **arg, struct err *e)
{
    if (getenv("SLUICE_LIST_OPTIONS") != NULL)
        opt_list_and_exit(defs);
    for (;;) {
        const char *w;

        if (st->short_rest != NULL)
            return next_short(st, defs, id, arg, e);
        if (st->done || st->ind >= st->argc)
            break;
        w = st->argv[st->ind];
        if (strcmp(w, "--") == 0) {
            st->ind++;
            st->done = true;
            break;
        }
        if (w[0] == '-' && w[1] == '-')
            return next_long(st, defs, id, arg, e);
        if (w[0] == '-' && w[1] != '\0') {
            st->short_rest = w + 1;
            st->ind++;
            continue;
        }
        if (!st->permute) {
            st->done = true;
            return 0;
        }
        st->operands = xreallocarray(st->operands, (size_t)st->n_operands + 1,
                                     sizeof(*st->operands));
        st->operands[st->n_operands++] = st->argv[st->ind++];
    }
    /* After "--" every remaining word is an operand. */
    while (st->permute && st->ind < st->argc) {
        st->operands = xreallocarray(st->operands, (size_t)st->n_operands + 1,
                                     sizeof(*st->operands));
        st->operands[st->n_operands++] = st->argv[st->ind++];
    }
    return 0;
}

/* Append c to the word being built in *buf (length *len, capacity *cap). */
static void word_putc(char **buf, size_t *len, size_t *cap, char c)
{
    if (*len + 2 > *cap) {
        *cap = *cap ? *cap * 2 : 32;
        *buf = xrealloc(*buf, *cap);
    }
    (*buf)[(*len)++] = c;
    (*buf)[*len] = '\0';
}

static void words_push(char ***words, int *n, char *w)
{
    *words = xreallocarray(*words, (size_t)*n + 2, sizeof(**words));
    (*words)[(*n)++] = w;
    (*words)[*n] = NULL;
}

/* One word starting at *pp (not a blank); *pp is left after it. */
static char *split_word(const char **pp, struct err *e)
{
    const char *p = *pp;
    char *buf = NULL, quote = 0;
    size_t len = 0, cap = 0;

    word_putc(&buf, &len, &cap, '\0');
    len = 0;
    for (; *p != '\0'; p++) {
        if (quote == 0 && (*p == ' ' || *p == '\t' || *p == '\n'))
            break;
        if (quote == 0 && (*p == '\'' || *p == '"')) {
            quote = *p;
        } else if (quote != 0 && *p == quote) {
            quote = 0;
        } else if (*p == '\\' && quote != '\'' && p[1] != '\0') {
            word_putc(&buf, &len, &cap, *++p);
        } else {
            word_putc(&buf, &len, &cap, *p);
        }
    }
    *pp = p;
    if (quote != 0) {
        free(buf);
        errno = EINVAL;
        err_set(e, "unterminated %s quote", quote == '"' ? "double" : "single");
        return NULL;
    }
    return buf;
}

char **opt_split(const char *line, int *n, struct err *e)
{
    char **words = xcalloc(1, sizeof(*words));
    const char *p = line;

    *n = 0;
    for (;;) {
        char *w;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0' || *p == '#')
            break;
        if ((w = split_word(&p, e)) == NULL) {
            opt_split_free(words);
            return NULL;
        }
        words_push(&words, n, w);
    }
    return words;
}

void opt_split_free(char **words)
{
    if (words == NULL)
        return;
    for (char **w = words; *w != NULL; w++)
        free(*w);
    free(words);
}
