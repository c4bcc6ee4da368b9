/*
 * libFuzzer target for the frame decoder and the auth/key verifier: input
 * bytes are decoded as frames (in place and through an evbuffer), each
 * credential is verified against a fixed key at a fixed time, and every
 * body that parses must survive a re-encode unchanged.  Nothing may crash.
 *
 * The corpus in tests/fuzz/corpus/frame/ is written by this program:
 *   FUZZ_FRAME_WRITE_CORPUS=tests/fuzz/corpus/frame build-fuzz/fuzz_frame
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proto.h"

/* The corpus is signed with this key at this time, so it verifies. */
#define FUZZ_KEY "sluice-fuzz-key-0123456789abcdef0123456789abcdef\n"
#define FUZZ_NOW 1700000000

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct auth *fuzz_auth;

static time_t fuzz_clock(void)
{
    return FUZZ_NOW;
}

static void write_corpus_file(const char *dir, const char *name,
                              struct evbuffer *b)
{
    char path[1024];
    size_t len = evbuffer_get_length(b);
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fp = fopen(path, "wb");
    if (fp == NULL || fwrite(evbuffer_pullup(b, -1), 1, len, fp) != len ||
        fclose(fp) != 0) {
        perror(path);
        exit(1);
    }
    evbuffer_drain(b, len);
}

static void write_corpus(const char *dir)
{
    struct evbuffer *b = evbuffer_new();
    struct err e;
    json_t *job = json_pack(
        "{s:{s:s,s:s,s:s,s:i,s:[s],s:{s:s},s:n}}", "job", "name", "train",
        "script", "#!/bin/bash\n#SBATCH -p dev\nsrun python train.py\n",
        "partition", "dev", "time_limit_s", 3600, "argv", "train.sh",
        "environment", "PATH", "/usr/bin:/bin", "gres");
    json_t *err = proto_error_body(EPERM, "user 1000 may not cancel job 7");
    json_t *query = json_pack("{s:[i,i],s:[s],s:[s]}", "job_ids", 1, 2,
                              "states", "PENDING", "users", "alice");

    proto_encode_signed(fuzz_auth, PROTO_MSG_PING, 0, 1, NULL, b, &e);
    write_corpus_file(dir, "ping-signed", b);
    proto_encode_signed(fuzz_auth, PROTO_MSG_SUBMIT, 0, 2, job, b, &e);
    write_corpus_file(dir, "submit-signed", b);
    proto_encode_signed(NULL, PROTO_MSG_JOB_QUERY, 0, 3, query, b, &e);
    write_corpus_file(dir, "query-unsigned", b);
    proto_encode_signed(fuzz_auth, PROTO_MSG_JOB_CANCEL,
                        PROTO_F_REPLY | PROTO_F_ERROR, 4, err, b, &e);
    write_corpus_file(dir, "error-reply-signed", b);
    proto_encode_signed(fuzz_auth, PROTO_MSG_NODE_HEARTBEAT, 0, 5, query, b,
                        &e);
    proto_encode_signed(NULL, PROTO_MSG_PING, PROTO_F_REPLY, 6, NULL, b, &e);
    write_corpus_file(dir, "two-frames", b);
    struct proto_frame f = {.type = PROTO_MSG_PING,
                            .version = 2,
                            .seq = 7,
                            .cred = (char *)"MUNGE:AwQFAAAA:"};
    proto_encode(&f, b, &e);
    write_corpus_file(dir, "version-2", b);
    json_decref(job);
    json_decref(err);
    json_decref(query);
    evbuffer_free(b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[] = "/tmp/sluice-fuzz-frame.XXXXXX", path[64];
    const char *corpus = getenv("FUZZ_FRAME_WRITE_CORPUS");
    struct err e;
    int fd;

    (void)argc;
    (void)argv;
    if (mkdtemp(dir) == NULL)
        abort();
    snprintf(path, sizeof(path), "%s/key", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || write(fd, FUZZ_KEY, strlen(FUZZ_KEY)) < 0 || close(fd) < 0)
        abort();
    fuzz_auth = auth_create(AUTH_KEY, path, &e);
    unlink(path);
    rmdir(dir);
    if (fuzz_auth == NULL) {
        fprintf(stderr, "fuzz_frame: %s\n", e.text);
        abort();
    }
    auth_set_clock(fuzz_auth, fuzz_clock);
    auth_set_tags(fuzz_auth, "fuzz", "fuzz");
    auth_set_replay_max(fuzz_auth, 4096);
    if (corpus != NULL) {
        write_corpus(corpus);
        exit(0);
    }
    return 0;
}

/* A body that parsed must encode and decode to the same JSON. */
static void check_reencode(const struct proto_frame *f)
{
    struct evbuffer *b = evbuffer_new();
    struct proto_frame g = {0};
    struct err e;

    if (proto_encode(f, b, &e) < 0) {
        if (errno != EMSGSIZE) /* numbers may grow when re-printed */
            abort();
    } else if (proto_decode(b, NULL, &g, &e) != 1 ||
               !json_equal(f->body, g.body) || g.seq != f->seq ||
               g.type != f->type || g.flags != f->flags ||
               g.cred_len != f->cred_len) {
        abort();
    }
    proto_frame_clear(&g);
    evbuffer_free(b);
}

static void decode_in_place(const uint8_t *data, size_t size)
{
    size_t off = 0, consumed;
    struct proto_view v;
    struct auth_id who;
    struct err e;

    while (off < size) {
        if (proto_decode_buf(data + off, size - off, &consumed, &v, &e) <= 0)
            break;
        if (consumed == 0 || consumed > size - off)
            abort();
        auth_verify(fuzz_auth, v.cred, v.cred_len, v.type, v.seq, v.body,
                    v.body_len, &who, &e);
        struct proto_frame f = {0};
        if (proto_view_parse(&v, &f, &e) == 0)
            check_reencode(&f);
        proto_frame_clear(&f);
        off += consumed;
    }
}

static void decode_stream(const uint8_t *data, size_t size)
{
    struct evbuffer *in = evbuffer_new();
    struct proto_frame f;
    struct err e;

    evbuffer_add(in, data, size);
    for (;;) {
        size_t before = evbuffer_get_length(in);
        int rc = proto_decode(in, fuzz_auth, &f, &e);
        if (rc == 1) {
            if (!f.verified || !json_is_object(f.body))
                abort();
            proto_frame_clear(&f);
            continue;
        }
        if (rc == 0 || (errno != EACCES && errno != EPROTONOSUPPORT))
            break;
        if (evbuffer_get_length(in) >= before)
            abort(); /* a skipped frame must be gone */
    }
    evbuffer_free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct auth_id who;
    struct err e;

    decode_in_place(data, size);
    decode_stream(data, size);
    /* The whole input as a credential, for the credential parser. */
    auth_verify(fuzz_auth, (const char *)data, size, PROTO_MSG_PING, 1, "{}", 2,
                &who, &e);
    return 0;
}
