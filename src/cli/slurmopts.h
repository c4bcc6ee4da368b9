/*
 * The options of Slurm 22.05's sbatch, salloc and srun that have no
 * effect in Sluice: one table, shared by the three commands and by the
 * #SBATCH parser, so that each is accepted (a job Slurm would run is never
 * refused for one) with one warning line naming it and why.  Also the
 * nearest-name suggestion for a misspelled long option.
 */
#ifndef SLUICE_CLI_SLURMOPTS_H
#define SLUICE_CLI_SLURMOPTS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cli/opt.h"

/* Which commands take an option (a bit set). */
enum slurmopts_cmd {
    SLURMOPTS_SBATCH = 1,
    SLURMOPTS_SALLOC = 2,
    SLURMOPTS_SRUN = 4,
};

/* Option ids of warn-only options: SLURMOPTS_ID_BASE + their index in
 * slurmopts_warn_table (the same in every command's table). */
#define SLURMOPTS_ID_BASE 1000

/* One option that is accepted and has no effect. */
struct slurmopt_warn {
    const char *long_name; /* "switches" */
    int short_name;        /* 'S', or 0 */
    enum opt_arg arg;
    unsigned cmds;      /* SLURMOPTS_* bits */
    const char *reason; /* "no network topology" */
};

/* The table; it ends with an entry whose long_name is NULL. */
extern const struct slurmopt_warn slurmopts_warn_table[];

/*
 * slurmopts_table: base's entries, then the warn-only options of cmd whose
 * long name base does not have (their short letter only when base does
 * not use it), into buf (cap entries with the terminator).  Returns buf.
 */
const struct opt_def *slurmopts_table(const struct opt_def *base, unsigned cmd,
                                      struct opt_def *buf, size_t cap);

/* slurmopts_is_warn: whether id is a warn-only option's. */
bool slurmopts_is_warn(int id);

/* slurmopts_find: the id of the option named long_name in defs, or 0. */
int slurmopts_find(const struct opt_def *defs, const char *long_name);

/*
 * slurmopts_note: add the warning of warn-only option id to notes (a JSON
 * array of strings), unless it is there already:
 * "--switches has no effect in Sluice (no network topology)".
 */
void slurmopts_note(json_t *notes, int id);

/* slurmopts_help: to stdout, the warn-only options of table wrapped at
 * 76 columns under a heading ("-S, --core-spec", "--switches"). */
void slurmopts_help(const struct opt_def *table);

/* slurmopts_print: each note as "PROG: warning: NOTE" on stderr. */
void slurmopts_print(json_t *notes);

/*
 * slurmopts_nearest: the long name in defs nearest to word (a misspelled
 * option without its dashes) by edit distance, when it is close enough
 * to be a likely typo; NULL otherwise.
 */
const char *slurmopts_nearest(const struct opt_def *defs, const char *word);

/*
 * slurmopts_error: print an option error as Slurm does ("PROG: error:
 * unrecognized option '--ntask-per-node'"), then, for an unrecognized
 * long option (unknown: opt_state's unknown, "" for other errors),
 * "PROG: error: did you mean '--ntasks-per-node'?" when one is near.
 * help names the help command for the first line's "(see '...')" when
 * there is no suggestion.
 */
void slurmopts_error(const char *unknown, const struct opt_def *defs,
                     const char *text, const char *help);

#endif
