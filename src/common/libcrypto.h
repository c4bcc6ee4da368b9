/*
 * The libcrypto functions Sluice uses, loaded with dlopen on first use
 * instead of linked.  libcrypto binds thousands of symbols when it is
 * loaded (it is built BIND_NOW): about 2.5 million instructions, most of
 * what an `sbatch` costs, paid by every process that links it, although a
 * CLI on the controller's unix socket signs nothing.  Now only processes
 * that create an auth context (or a key) load it.
 */
#ifndef SLUICE_LIBCRYPTO_H
#define SLUICE_LIBCRYPTO_H

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/err.h"

/* X-macro: every function used, typed by OpenSSL's own prototypes. */
#define LIBCRYPTO_FUNCS(X)                                                     \
    X(CRYPTO_memcmp)                                                           \
    X(EVP_DigestFinal_ex)                                                      \
    X(EVP_DigestInit_ex)                                                       \
    X(EVP_DigestUpdate)                                                        \
    X(EVP_MAC_CTX_free)                                                        \
    X(EVP_MAC_CTX_new)                                                         \
    X(EVP_MAC_fetch)                                                           \
    X(EVP_MAC_final)                                                           \
    X(EVP_MAC_free)                                                            \
    X(EVP_MAC_init)                                                            \
    X(EVP_MAC_update)                                                          \
    X(EVP_MD_CTX_free)                                                         \
    X(EVP_MD_CTX_new)                                                          \
    X(EVP_MD_fetch)                                                            \
    X(EVP_MD_free)                                                             \
    X(OPENSSL_cleanse)                                                         \
    X(OSSL_PARAM_construct_end)                                                \
    X(OSSL_PARAM_construct_utf8_string)                                        \
    X(RAND_bytes)

struct libcrypto {
#define LIBCRYPTO_MEMBER(name) __typeof__(name) *name;
    LIBCRYPTO_FUNCS(LIBCRYPTO_MEMBER)
#undef LIBCRYPTO_MEMBER
};

/*
 * libcrypto_load: the function table, loading libcrypto.so.N (the major
 * version these headers are from) on the first call; the table lives as
 * long as the process.  NULL with errno ELIBACC and e ("cannot load
 * libcrypto.so.3: ...") when the library or one of its functions is
 * missing.
 */
const struct libcrypto *libcrypto_load(struct err *e);

#endif
