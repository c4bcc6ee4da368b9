/*
 * slurmrestd's job changes (docs/rest.md): POST job/submit (SUBMIT),
 * POST job/{job_id} (JOB_UPDATE, JOB_HOLD, JOB_RELEASE) and DELETE
 * job/{job_id} (JOB_CANCEL, with ?signal= as scancel -s).  The body is
 * mapped by common/slurmjson_desc.c, the one mapping of Slurm's job
 * description; the permission rules are the CLI's, since the same
 * handlers serve them as the token's user.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/proto.h"
#include "ctld/web/rest.h"

/* The body of POST and the like: a JSON object, else 400 and NULL. */
static json_t *body_object(struct web_req *wr)
{
    struct err e;
    json_t *body = web_req_json(wr, &e);

    if (body == NULL)
        web_reply_error(wr, 400, EINVAL, "%s", e.text);
    return body;
}

/* A warning as later Slurm versions write them: {"description", "source"}
 * ("jobs[0].nodes: Sluice allocates ..." comes from "jobs[0].nodes"). */
static json_t *warning(const char *text)
{
    const char *colon = strstr(text, ": ");

    return json_pack("{s:s, s:s%}", "description", text, "source", text,
                     colon ? (size_t)(colon - text) : strlen(text));
}

/* POST /slurm/v0.0.38/job/submit: {"script", "job": {...}} into SUBMIT. */
static void post_submit(struct web_req *wr)
{
    json_t *body, *notes, *spec, *reply, *out, *n;
    struct err e;
    size_t i;

    if (rest_check_query(wr, (const char *const[]){NULL}) < 0 ||
        (body = body_object(wr)) == NULL)
        return;
    notes = json_array();
    spec = slurmjson_job_submission(body, notes, &e);
    if (spec == NULL) {
        json_decref(notes);
        web_reply_error(wr, 400, EINVAL, "%s", e.text);
        return;
    }
    if (rest_call(wr, PROTO_MSG_SUBMIT, json_pack("{s:o}", "job", spec),
                  &reply) < 0) {
        json_decref(notes);
        return;
    }
    out = rest_ok(SLURMJSON_CTLD);
    json_array_foreach(notes, i, n) json_array_append_new(
        json_object_get(out, "warnings"), warning(json_string_value(n)));
    json_object_set(out, "job_id", json_object_get(reply, "job_id"));
    json_object_set_new(out, "step_id", json_string("batch"));
    json_object_set_new(out, "job_submit_user_msg", json_string(""));
    json_decref(reply);
    json_decref(notes);
    web_reply_json(wr, 200, out);
}

/* The status of a per-job error of JOB_CANCEL, JOB_HOLD or JOB_RELEASE
 * (docs/protocol.md, "Per-job answers": Slurm's words). */
static int per_job_status(const char *error)
{
    if (strstr(error, "permission denied") != NULL)
        return 403;
    if (strcmp(error, "Invalid job id specified") == 0)
        return 404;
    if (strstr(error, "completed") != NULL || strstr(error, "pending") != NULL)
        return 409;
    return 400;
}

/* A per-job request (body stolen) for the path's job: 0, or -1 once the
 * first job's error is answered with its status. */
static int per_job(struct web_req *wr, uint16_t type, json_t *body)
{
    json_t *reply, *r;
    const char *error = NULL;
    json_int_t id = 0;
    char text[300];
    size_t i;
    int status;

    if (rest_call(wr, type, body, &reply) < 0)
        return -1;
    json_array_foreach(json_object_get(reply, "results"), i, r)
    {
        error = json_string_value(json_object_get(r, "error"));
        id = json_integer_value(json_object_get(r, "job_id"));
        if (error != NULL)
            break;
    }
    if (json_array_size(json_object_get(reply, "results")) == 0)
        error = "Invalid job id specified";
    if (error == NULL) {
        json_decref(reply);
        return 0;
    }
    status = per_job_status(error);
    if (id > 0)
        snprintf(text, sizeof(text), "job %lld: %s", (long long)id, error);
    else
        snprintf(text, sizeof(text), "%s", error);
    web_reply_error(wr, status,
                    status == 403   ? EPERM
                    : status == 404 ? ENOENT
                    : status == 409 ? EBUSY
                                    : EINVAL,
                    "%s", text);
    json_decref(reply);
    return -1;
}

/* POST /slurm/v0.0.38/job/{job_id}: the job's properties that Sluice
 * changes (JOB_UPDATE), then hold (JOB_HOLD or JOB_RELEASE). */
static void post_update(struct web_req *wr)
{
    json_t *ref, *body, *set, *reply;
    struct err e;
    int hold;

    if (rest_check_query(wr, (const char *const[]){NULL}) < 0 ||
        (ref = rest_job_ref(wr)) == NULL)
        return;
    if ((body = body_object(wr)) == NULL) {
        json_decref(ref);
        return;
    }
    if (slurmjson_job_update(body, &set, &hold, &e) < 0) {
        json_decref(ref);
        web_reply_error(wr, 400, EINVAL, "%s", e.text);
        return;
    }
    if (json_object_size(set) > 0) {
        if (rest_call(wr, PROTO_MSG_JOB_UPDATE,
                      json_pack("{s:O, s:O}", "job_id", ref, "set", set),
                      &reply) < 0)
            goto done;
        json_decref(reply);
    }
    if (hold >= 0 &&
        per_job(wr, hold ? PROTO_MSG_JOB_HOLD : PROTO_MSG_JOB_RELEASE,
                json_pack("{s:[O]}", "job_ids", ref)) < 0)
        goto done;
    web_reply_json(wr, 200, rest_ok(SLURMJSON_CTLD));
done:
    json_decref(set);
    json_decref(ref);
}

/* DELETE /slurm/v0.0.38/job/{job_id}[?signal=SIG]: cancel the job, or
 * send it a signal, as scancel [-s SIG] does. */
static void delete_job(struct web_req *wr)
{
    static const char *const known[] = {"signal", NULL};
    const char *sig = web_req_query(wr, "signal");
    json_t *ref, *req;
    int n = 0;

    if (rest_check_query(wr, known) < 0)
        return;
    if (sig != NULL && (n = slurmjson_signal_parse(sig)) < 0) {
        web_reply_error(wr, 400, EINVAL,
                        "signal=%.32s: expected a signal name (USR1, SIGUSR1) "
                        "or number 1-64",
                        sig);
        return;
    }
    if ((ref = rest_job_ref(wr)) == NULL)
        return;
    req = json_pack("{s:[o]}", "job_ids", ref);
    if (n > 0)
        json_object_set_new(req, "signal", json_integer(n));
    if (per_job(wr, PROTO_MSG_JOB_CANCEL, req) == 0)
        web_reply_json(wr, 200, rest_ok(SLURMJSON_CTLD));
}

const struct web_route rest_job_routes[] = {
    {"POST", "/slurm/v0.0.38/job/submit", post_submit, 0},
    {"POST", "/slurm/v0.0.38/job/{job_id}", post_update, 0},
    {"DELETE", "/slurm/v0.0.38/job/{job_id}", delete_job, 0},
    {NULL, NULL, NULL, 0},
};
