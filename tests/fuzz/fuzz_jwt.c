/*
 * libFuzzer target for auth/jwt tokens (common/jwt.h): whatever text
 * comes in an HTTP header is checked without crashing, and only a token
 * this key signed is ever accepted (the fuzzer cannot forge a MAC, so an
 * accepted input must be one of the seeds issued below).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/jwt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct jwt_key *k;
    static char *good;
    char *tok, *user = NULL, *dec = NULL;
    size_t n;
    time_t exp;
    struct err e;

    if (k == NULL) {
        k = jwt_key_from("0123456789abcdef0123456789abcdef", 32, NULL);
        good = jwt_issue(k, "fuzz", 1000, 4000000000, NULL);
        if (k == NULL || good == NULL)
            abort();
    }
    if (size > JWT_TOKEN_MAX + 16)
        return 0;
    tok = malloc(size + 1);
    memcpy(tok, data, size);
    tok[size] = '\0';
    if (jwt_check(k, tok, 2000, &user, &exp, &e) == 0) {
        if (strcmp(user, "fuzz") != 0)
            abort(); /* only what the key signed: the one user issued */
        free(user);
    }
    if (b64url_decode(tok, size, &dec, &n) == 0) {
        char *again = b64url_encode(dec, n);
        if (strlen(again) != size || memcmp(again, tok, size) != 0)
            abort(); /* one text per byte string */
        free(again);
        free(dec);
    }
    free(tok);
    return 0;
}
