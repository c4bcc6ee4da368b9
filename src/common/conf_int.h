/*
 * Internals shared by the conf_*.c files and gresconf.c: the line lexer
 * (comments, quotes, continuations, Include) and the key tables that parse,
 * print and JSON-encode typed fields by offset.  Not for other modules.
 */
#ifndef SLUICE_CONF_INT_H
#define SLUICE_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"

/* A pool of strings (file names) that outlive the parse; owned by its
 * holder, freed with conf_strs_free. */
struct conf_strs {
    char **v;
    size_t n, cap;
};
/* conf_strs_add: an interned copy of s, owned by the pool. */
const char *conf_strs_add(struct conf_strs *p, const char *s);
void conf_strs_free(struct conf_strs *p);

/* One Key=Value of a logical line, with the place of its key. */
struct conf_pair {
    char *key;
    char *value;
    int line;
    int col;
};

struct conf_line {
    const char *file; /* owned by the lexer's name pool */
    struct conf_pair *pairs;
    size_t n, cap;
};

/* Called once per logical line with at least one pair (Include lines are
 * handled by the lexer).  Problems go into the diag; no return value. */
typedef void (*conf_line_fn)(void *arg, const struct conf_line *ln);

struct conf_lex {
    struct conf_diag *diag;
    struct conf_strs *names;
    conf_line_fn fn;
    void *arg;
    /* the Include chain: display names and real paths (NULL for text) */
    const char *stack_name[CONF_MAX_INCLUDE_DEPTH + 2];
    char *stack_real[CONF_MAX_INCLUDE_DEPTH + 2];
    int depth;
};

/* conf_lex_file: lex the file at path (depth 0 unless called for an
 * Include).  -1 with errno when it cannot be read (also in the diag, at
 * the place given by from, which may be NULL). */
int conf_lex_file(struct conf_lex *lx, const char *path,
                  const struct conf_loc *from);
/* conf_lex_text: lex text of len bytes named name. */
void conf_lex_text(struct conf_lex *lx, const char *text, size_t len,
                   const char *name);
/* conf_lex_dirname_join: path relative to the directory of file (for
 * Include and for gres.conf beside a config); caller frees. */
char *conf_lex_dirname_join(const char *file, const char *path);

/* Key tables: a field of kind K at offset off in the object. */
enum conf_kind {
    CK_STR,    /* char * */
    CK_U16,    /* uint16_t */
    CK_U32,    /* uint32_t */
    CK_BOOL,   /* bool */
    CK_BOOL01, /* bool printed as 1/0 (JobRequeue) */
    CK_TIME,   /* int64_t seconds */
    CK_MEM,    /* uint64_t MiB */
    CK_ENUM,   /* an enum, read and written as int */
    CK_CUSTOM, /* parse/print/json functions */
};

#define CKF_NOPRINT 0x1    /* an alias or a shorthand: parsed only */
#define CKF_OMIT_EMPTY 0x2 /* a string not printed while "" */
#define CKF_UNLIMITED 0x4  /* UNLIMITED/INFINITE accepted: the max */
#define CKF_LATE 0x8       /* applied after the other keys of its line */
#define CKF_OMIT_ZERO 0x10 /* a number (or enum) not printed while 0 */

struct conf_enum {
    const char *name; /* the first name of a value is its canonical one */
    int value;
};

struct conf_key {
    const char *name; /* canonical spelling */
    const char *json; /* JSON member; NULL: not in JSON */
    enum conf_kind kind;
    size_t off;
    uint64_t min, max;
    const struct conf_enum *enums; /* ends with a NULL name */
    int (*parse)(void *ctx, void *obj, const char *val, struct err *e);
    /* print: " Key=value" or lines of them, with prefix and suffix. */
    void (*print)(const void *obj, FILE *fp, const char *pre, const char *suf);
    json_t *(*to_json)(const void *obj);
    unsigned flags;
};

/* conf_key_find: the entry named name (case-insensitive) in a table ending
 * with a NULL name, or NULL. */
const struct conf_key *conf_key_find(const struct conf_key *tab,
                                     const char *name);
/* conf_key_set: parse val into the field; obj unchanged on error, where e
 * says "Key: what was wrong". */
int conf_key_set(const struct conf_key *k, void *ctx, void *obj,
                 const char *val, struct err *e);
/* conf_keys_print: pre Key=value suf for each printable key in order. */
void conf_keys_print(const struct conf_key *tab, const void *obj, FILE *fp,
                     const char *pre, const char *suf);
/* conf_keys_json: add each key with a json name to o. */
void conf_keys_json(const struct conf_key *tab, const void *obj, json_t *o);
/* conf_enum_parse / conf_enum_name: by table. */
int conf_enum_parse(const struct conf_enum *tab, const char *val, int *out,
                    struct err *e);
const char *conf_enum_name(const struct conf_enum *tab, int value);
/* conf_print_value: a value, quoted when it needs to be to parse back. */
void conf_print_value(FILE *fp, const char *val);
/* conf_time_json: seconds, or null for INFINITE. */
json_t *conf_time_json(int64_t secs);

extern const struct conf_enum conf_preempt_type_names[];
extern const struct conf_enum conf_node_state_names[];
extern const struct conf_enum conf_part_state_names[];
int conf_preempt_parse(const char *val, struct conf_preempt *out,
                       struct err *e);

/* Private part of struct conf. */
struct conf_node_tmpl {
    struct conf_node node;
    uint64_t set; /* bit i: key i of conf_node_keys was given */
};

struct conf_part_tmpl {
    struct conf_part part;
    uint64_t set;
};

struct conf_priv {
    struct conf_diag *diag;
    struct conf_strs names;       /* file names */
    struct gres_list **gres_pool; /* node GRES lists, shared */
    size_t n_gres_pool;
    size_t nodes_cap;   /* room in conf.nodes */
    size_t *node_index; /* hash of node names: index+1, 0 empty */
    size_t node_index_cap;
    struct conf_node_tmpl node_default;
    struct conf_part_tmpl part_default;
    struct conf_loc *cluster_loc; /* per conf_cluster_keys entry */
};

extern const struct conf_key conf_cluster_keys[];
extern const struct conf_key conf_node_keys[];
extern const struct conf_key conf_part_keys[];

/* conf_node.c */
void conf_node_line(struct conf *c, const struct conf_line *ln);
void conf_node_tmpl_init(struct conf_node_tmpl *t);
void conf_node_tmpl_free(struct conf_node_tmpl *t);
void conf_node_free(struct conf_node *n);
long conf_node_lookup(const struct conf *c, const char *name);
/* conf_part.c */
void conf_part_line(struct conf *c, const struct conf_line *ln);
void conf_part_tmpl_init(struct conf_part_tmpl *t);
void conf_part_tmpl_free(struct conf_part_tmpl *t);
void conf_part_free(struct conf_part *p);
/* conf_check.c: resolve partitions, fill effective values, warn. */
void conf_check(struct conf *c);
/* conf.c */
void conf_diag_at(const struct conf *c, enum conf_severity sev,
                  const struct conf_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool conf_list_has(const char *list, const char *item);

#endif
