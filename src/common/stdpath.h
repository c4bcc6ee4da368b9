/*
 * A batch job's output file names: Slurm's --output/--error patterns
 * (%j, %x, %u, %N, %A, %a, ...) expanded and made absolute with the job's
 * working directory.  One implementation for sluiced, which opens the
 * files, and the controller, which reads a job's output for the
 * dashboard (docs/rest-sluice.md).  Pure.
 */
#ifndef SLUICE_STDPATH_H
#define SLUICE_STDPATH_H

#include <stdbool.h>
#include <stdint.h>

/* The pattern of a job that gave none (Slurm's). */
#define STDPATH_DEFAULT "slurm-%j.out"
/* What %a is for a job that is not an array task, as Slurm prints it. */
#define STDPATH_NO_ARRAY_TASK 4294967294u

/* What the letters stand for (the strings borrowed, never NULL). */
struct stdpath_job {
    uint32_t job_id;
    bool is_array; /* array_job_id and array_task_id are set */
    uint32_t array_job_id;
    uint32_t array_task_id;
    const char *name; /* %x; "" when unnamed */
    const char *user; /* %u */
    const char *node; /* %N, cut at its first '.' */
};

/*
 * stdpath_expand: pattern with %j and %J (the job id: the batch script's
 * step is the job), %x (job name), %u (user), %N (short node name), %n
 * and %t (0: node and task of the batch script), %s ("batch"), %A (array
 * job id; the job id for other jobs), %a (array task id;
 * STDPATH_NO_ARRAY_TASK for other jobs), %% ('%').  A number between '%'
 * and the letter pads numbers with zeros to that width (%4j -> 0042, at
 * most 10).  Unknown letters stay as written.  A pattern containing '\'
 * is taken literally, backslashes removed (Slurm's rule).  New string,
 * caller frees.
 */
char *stdpath_expand(const char *pattern, const struct stdpath_job *j);

/*
 * stdpath_resolve: the file of pattern (NULL or "": STDPATH_DEFAULT)
 * expanded, relative to work_dir unless absolute.  New string, caller
 * frees.
 */
char *stdpath_resolve(const char *pattern, const struct stdpath_job *j,
                      const char *work_dir);

#endif
