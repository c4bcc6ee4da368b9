/*
 * Unit tests for common/jwt: base64url against RFC 4648's vectors, tokens
 * issued and checked back, and every way a token can be wrong refused
 * with a reason: another key, a changed claim or signature, expiry, an
 * issue time in the future, "alg": "none", and text that is no token.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/jwt.h"
#include "common/xalloc.h"

static const char key_a[] = "0123456789abcdef0123456789abcdef";
static const char key_b[] = "fedcba9876543210fedcba9876543210";
#define NOW ((time_t)1800000000)

static void test_b64url(void **state)
{
    static const struct {
        const char *plain, *enc;
    } cases[] = {
        {"", ""},
        {"f", "Zg"},
        {"fo", "Zm8"},
        {"foo", "Zm9v"},
        {"foob", "Zm9vYg"},
        {"fooba", "Zm9vYmE"},
        {"foobar", "Zm9vYmFy"},
        {"\xfb\xff", "-_8"},
    };
    static const char *const bad[] = {"Z", "Zm9v=", "Zm 9", "Zm9v+", "Zh"};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *enc = b64url_encode(cases[i].plain, strlen(cases[i].plain));
        char *dec;
        size_t n;

        assert_string_equal(enc, cases[i].enc);
        assert_int_equal(b64url_decode(enc, strlen(enc), &dec, &n), 0);
        assert_int_equal(n, strlen(cases[i].plain));
        assert_memory_equal(dec, cases[i].plain, n);
        free(enc);
        free(dec);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *dec = NULL;
        size_t n;

        assert_int_equal(b64url_decode(bad[i], strlen(bad[i]), &dec, &n), -1);
        assert_null(dec);
    }
}

static struct jwt_key *key(const char *k)
{
    struct err e;
    struct jwt_key *j = jwt_key_from(k, strlen(k), &e);

    if (j == NULL)
        fail_msg("jwt_key_from: %s", e.text);
    return j;
}

static void test_round_trip(void **state)
{
    struct jwt_key *k = key(key_a);
    struct err e;
    char *tok, *user = NULL;
    time_t exp = 0;

    (void)state;
    tok = jwt_issue(k, "zhangsan", NOW, NOW + 60, &e);
    assert_non_null(tok);
    /* Slurm's header, compact, as every HS256 library writes it */
    assert_int_equal(strncmp(tok, "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", 37),
                     0);
    assert_int_equal(jwt_check(k, tok, NOW + 59, &user, &exp, &e), 0);
    assert_string_equal(user, "zhangsan");
    assert_int_equal(exp, NOW + 60);
    free(user);
    assert_int_equal(jwt_check(k, tok, NOW + 60, &user, &exp, &e), -1);
    assert_int_equal(errno, EACCES);
    assert_string_equal(e.text, "token expired 0 s ago");
    free(tok);
    assert_null(jwt_issue(k, "", NOW, NOW + 1, &e));
    jwt_key_free(k);
}

/* An unsigned token ("alg": "none" style): header.claims. */
static char *unsigned_token(const char *head, const char *claims)
{
    char *h = b64url_encode(head, strlen(head));
    char *c = b64url_encode(claims, strlen(claims));
    char *out = xasprintf("%s.%s.", h, c);

    free(h);
    free(c);
    return out;
}

static void test_refused(void **state)
{
    struct jwt_key *a = key(key_a), *b = key(key_b);
    char *tok = jwt_issue(a, "lisi", NOW, NOW + 600, NULL);
    char *other = jwt_issue(b, "lisi", NOW, NOW + 600, NULL);
    char *future = jwt_issue(a, "lisi", NOW + 3600, NOW + 7200, NULL);
    char *tampered = xstrdup(tok), *sig_cut = xstrdup(tok);
    char *none = unsigned_token("{\"alg\":\"none\",\"typ\":\"JWT\"}",
                                "{\"exp\":1900000000,\"sun\":\"root\"}");
    char *claims = strchr(tampered, '.') + 1;
    char long_tok[JWT_TOKEN_MAX + 10];
    struct {
        const char *tok, *why;
    } cases[] = {
        {other, "bad signature"},
        {tampered, "bad signature"},
        {sig_cut, "bad signature"},
        {future, "token issued in the future (\"iat\")"},
        {none, "malformed token: the header is not HS256"},
        {"", "malformed token: empty"},
        {"abc", "malformed token: not three parts"},
        {"a.b.c.d", "malformed token: not three parts"},
        {"!!.b.c", "malformed token: the header is not HS256"},
        {long_tok, "malformed token: too long"},
    };
    struct err e;

    (void)state;
    /* one claim character changed: the signature no longer matches */
    claims[3] = claims[3] == 'A' ? 'B' : 'A';
    sig_cut[strlen(sig_cut) - 2] = '\0';
    memset(long_tok, 'a', sizeof(long_tok) - 1);
    long_tok[sizeof(long_tok) - 1] = '\0';
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *user = NULL;
        time_t exp;

        errno = 0;
        assert_int_equal(jwt_check(a, cases[i].tok, NOW, &user, &exp, &e), -1);
        assert_int_equal(errno, EACCES);
        if (strcmp(e.text, cases[i].why) != 0)
            fail_msg("case %zu: \"%s\", wanted \"%s\"", i, e.text,
                     cases[i].why);
        assert_null(user);
    }
    free(tok);
    free(other);
    free(future);
    free(tampered);
    free(sig_cut);
    free(none);
    jwt_key_free(a);
    jwt_key_free(b);
}

static void test_key_file(void **state)
{
    char dir[] = "/tmp/test_jwt.XXXXXX", path[64];
    struct jwt_key *k;
    struct err e;
    FILE *fp;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/jwt_hs256.key", dir);
    fp = fopen(path, "w");
    fputs(key_a, fp);
    fclose(fp);
    chmod(path, 0644);
    assert_null(jwt_key_load(path, &e));
    assert_non_null(strstr(e.text, "must be mode 0600 (is 0644)"));
    chmod(path, 0400);
    k = jwt_key_load(path, &e);
    assert_non_null(k);
    jwt_key_free(k);
    fp = fopen(path, "w");
    fputs("short", fp);
    fclose(fp);
    assert_null(jwt_key_load(path, &e));
    assert_non_null(strstr(e.text, "the key has 5 bytes"));
    unlink(path);
    assert_null(jwt_key_load(path, &e));
    rmdir(dir);
}

static void test_param_key(void **state)
{
    char *p;

    (void)state;
    p = jwt_param_key("jwt_key=/etc/k");
    assert_string_equal(p, "/etc/k");
    free(p);
    p = jwt_param_key("disable_token_creation,jwt_key=/a/b");
    assert_string_equal(p, "/a/b");
    free(p);
    assert_null(jwt_param_key(""));
    assert_null(jwt_param_key("jwt_key="));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b64url),    cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),   cmocka_unit_test(test_key_file),
        cmocka_unit_test(test_param_key),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
