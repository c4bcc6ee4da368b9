/*
 * UTF-8 for text that crosses a trust boundary: cutting a string into a
 * fixed buffer without splitting a character (jansson refuses invalid
 * UTF-8, so a split character would make json_string() return NULL), and
 * escaping control characters before a terminal or a log file sees them.
 */
#ifndef SLUICE_UTF8_H
#define SLUICE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * utf8_seq: the length (1-4) of the well-formed UTF-8 character at s, of
 * which n bytes are available; 0 when the bytes there are not one (a bad
 * byte, an overlong form, a surrogate, above U+10FFFF, or a character cut
 * short by n, in which case *cut is set when cut is not NULL).
 */
size_t utf8_seq(const char *s, size_t n, bool *cut);

/*
 * utf8_fix: make the NUL-terminated s valid UTF-8 in place, for text that
 * snprintf may have cut: a character cut short at the end is dropped, and
 * every other byte that is not part of a well-formed character becomes
 * '?'.  Returns s.
 */
char *utf8_fix(char *s);

/*
 * utf8_copy: copy src into buf (size bytes, > 0) as snprintf("%s") would,
 * but cut on a character boundary, and valid UTF-8 (utf8_fix).  Returns
 * buf.
 */
char *utf8_copy(char *buf, size_t size, const char *src);

/* utf8_needs_escape: s holds a byte that utf8_escape would change. */
bool utf8_needs_escape(const char *s);

/*
 * utf8_escape: s for display on a terminal or in a one-line log entry: C0
 * controls and DEL in caret notation ("\033" gives "^[", "\n" gives "^J",
 * DEL gives "^?"), C1 controls (U+0080-U+009F) and bytes that are not
 * UTF-8 as '?'; everything else, including all other UTF-8, unchanged.
 * Returns a new string (caller frees); s NULL gives NULL.
 */
char *utf8_escape(const char *s);

/*
 * utf8_escape_buf: utf8_escape into buf (size bytes, > 0), cut on an
 * escape and character boundary when it does not fit.  Returns buf.
 */
char *utf8_escape_buf(const char *s, char *buf, size_t size);

#endif
