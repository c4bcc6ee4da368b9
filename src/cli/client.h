/*
 * How the CLI talks to sluicectld (docs/protocol.md, "Conventions"): the
 * configuration named by SLUICE_CONF, the controller's unix socket when it
 * exists on this host, else TCP to SlurmctldHost:SlurmctldPort with a
 * credential of the configured AuthType.  Also the CLI's one way of
 * printing errors, in the face it was called under (sbatch or sluice).
 */
#ifndef SLUICE_CLI_CLIENT_H
#define SLUICE_CLI_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cli/opt.h"
#include "common/conf.h"
#include "common/err.h"

/*
 * cli_set_prog: name messages after argv0 of a verb: a Slurm name
 * ("sbatch") prints "sbatch: error: TEXT", anything else "sluice: TEXT".
 */
void cli_set_prog(const char *argv0);
/* cli_prog: "sbatch", or "sluice" for the sluice verbs. */
const char *cli_prog(void);
/* cli_slurm_face: called under a Slurm name. */
bool cli_slurm_face(void);
/* cli_error: one line on stderr in the current face. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * cli_opt_end: the one ending of every verb's option loop over st.  rc is
 * the loop's last result: opt_next's 0 or -1, or the verb's own -1 with e.
 * When rc is 0 and st stopped at an operand (not permuting), that operand
 * is an error: "unexpected argument \"x\"".  Frees st; prints an error
 * with cli_error.  Returns 1 when parsed, -1 after printing an error.
 */
int cli_opt_end(struct opt_state *st, int rc, struct err *e);
/* cli_warn: "sbatch: warning: TEXT" / "sluice: warning: TEXT". */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * cli_set_raw: raw true leaves cli_call's replies as the controller sent
 * them, for verbs that print JSON (--json: jansson escapes control
 * characters itself); by default every string in a reply is escaped with
 * utf8_escape, so that tables never carry a user's terminal escapes.
 */
void cli_set_raw(bool raw);
/* cli_escape_json: every string in v (keys too) escaped, in place. */
void cli_escape_json(json_t *v);
/* cli_conf_path: $SLUICE_CONF, else CONF_DEFAULT_PATH (static/env). */
const char *cli_conf_path(void);

struct cli_client;

/*
 * cli_client_open: load the configuration at conf_path and connect to its
 * controller (timeout_ms for the connect; < 0: MessageTimeout).  NULL with
 * e ("cannot reach sluicectld at 127.0.0.1:7817: Connection refused", or
 * the configuration's own error).  Free with cli_client_close.
 */
struct cli_client *cli_client_open(const char *conf_path, int timeout_ms,
                                   struct err *e);
/* cli_client_conf: the loaded configuration, owned by the client. */
const struct conf *cli_client_conf(const struct cli_client *c);
/*
 * cli_client_call: one request (req borrowed; NULL sends {}) and its reply
 * (*reply: new reference).  An error reply is -1 with errno its code and
 * the controller's message in e; a transport failure is -1 with
 * *transport set (when transport is not NULL) and the client unusable.
 */
int cli_client_call(struct cli_client *c, uint16_t type, json_t *req,
                    json_t **reply, bool *transport, struct err *e);
/* cli_client_close: accepts NULL. */
void cli_client_close(struct cli_client *c);
/*
 * cli_client_local_addr: this end's address of c's TCP connection to the
 * controller ("10.1.2.3", "fe80::1"), into buf: the address the cluster
 * reaches this host at.  -1 with EAFNOSUPPORT on the unix socket.
 */
int cli_client_local_addr(const struct cli_client *c, char *buf, size_t len);

/*
 * cli_call: cli_client_call on the process's connection to the controller
 * of cli_conf_path(), opened on first use.  When the controller cannot be
 * reached or the connection fails, prints one line ("sluice: cannot reach
 * sluicectld at 127.0.0.1:7817: Connection refused") and exits 1.  An
 * error reply returns -1 with errno and the message in e, for the verb to
 * put in its own words.
 */
int cli_call(uint16_t type, json_t *req, json_t **reply, struct err *e);
/*
 * cli_job_query: JOB_QUERY with the filters of req (borrowed), following
 * the controller's pages (next_after_job_id) to the end.  *jobs is a new
 * array.  An error reply is -1 with e, as cli_call.
 */
int cli_job_query(json_t *req, json_t **jobs, struct err *e);
/* cli_paged_query: the same for any request paged by after_job_id whose
 * replies carry "jobs" (JOB_QUERY, JOB_ACCT). */
int cli_paged_query(uint16_t type, json_t *req, json_t **jobs, struct err *e);
/* cli_cluster_name: ClusterName of the process's configuration, "" before
 * cli_call has loaded it or when unset (static). */
const char *cli_cluster_name(void);
/*
 * cli_json_schema: the argument of --json[=SCHEMA]: NULL (Slurm's v0.0.38
 * schema) or "sluice" (Sluice's own objects, docs/protocol.md); *sluice
 * says which.  -1 with EINVAL and e for anything else.
 */
int cli_json_schema(const char *arg, bool *sluice, struct err *e);
/* cli_json_sluice: whether the last cli_json_schema chose "sluice". */
bool cli_json_sluice(void);
/* cli_print_json: o indented on stdout with a newline; o is stolen. */
void cli_print_json(json_t *o);
/* cli_close: close the process's connection (atexit-safe). */
void cli_close(void);

#endif
