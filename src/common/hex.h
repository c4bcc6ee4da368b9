/*
 * Lowercase hexadecimal for keys, nonces and MACs: the auth plugins and
 * the step I/O channel write and read their binary secrets this way.
 */
#ifndef SLUICE_HEX_H
#define SLUICE_HEX_H

#include <stddef.h>
#include <stdint.h>

/* hex_encode: 2*len lowercase digits and a NUL into out (2*len+1 bytes). */
void hex_encode(const uint8_t *p, size_t len, char *out);

/* hex_decode: exactly 2*len hex digits (either case) from s into out;
 * -1 on a bad digit (out may be partly written). s must hold 2*len
 * characters; the caller checks the length. */
int hex_decode(const char *s, size_t len, uint8_t *out);

#endif
