/* base/i18n.h: the message catalogue for learner-facing text (English →
 * 简体中文), gettext's conventions without gettext's files.
 *
 * Text a learner reads is written in English in the source and wrapped:
 * _("passed") looks it up, N_("passed") only marks a string (a static
 * table's) that is looked up later with _(variable), and
 * P_(n, "%d attempt", "%d attempts") picks the singular or plural form.
 * The key is the English text itself, so English needs no catalogue and a
 * missing translation shows the English (format_arg lets the compiler check
 * printf arguments against the English). tests/base/test_i18n.c extracts
 * every marked string from app/, app/tui/ and base/ and fails when the
 * catalogue (base/i18n_zh.c) lacks one, or when a translation's printf
 * conversions differ from the English ones.
 *
 * Machine-readable output (--json, the progress store, the worker's
 * protocol) never goes through the catalogue. So a run's messages (a
 * check's, a finding's, the summary) are built in English by the worker
 * from formats marked N_(), and i18n_message translates the finished text
 * where it is shown: it finds the format the text was built from and
 * rebuilds it from the Chinese format with the same arguments. Terms follow
 * lessons/GLOSSARY.zh-CN.md. */
#ifndef CUDOJO_BASE_I18N_H
#define CUDOJO_BASE_I18N_H

#include <stdbool.h>
#include <stddef.h>

typedef struct I18nEntry {
    const char *en;     /* the English text, as written in _() */
    const char *zh;     /* its Chinese; the same printf conversions in the same order */
} I18nEntry;

/* True when the environment asks for Chinese messages: GNU's order,
 * LANGUAGE (first entry), then LC_ALL, LC_MESSAGES, LANG, starting "zh". */
bool i18n_locale_is_chinese(void);
/* True when the environment asks for UTF-8 text: LC_ALL, else LC_CTYPE,
 * else LANG, naming UTF-8 (a locale the machine may lack: then C.UTF-8). */
bool i18n_env_wants_utf8(void);
/* The language shown from now on (the TUI's L key); until it is set, the
 * environment's (i18n_locale_is_chinese). */
void i18n_set_chinese(bool zh);
bool i18n_chinese(void);
/* en in the language shown: its translation, or en itself. Never NULL for a
 * non-NULL en; the result lives as long as en or the catalogue. */
const char *i18n_text(const char *en) __attribute__((format_arg(1)));
/* one when n == 1 (English), else many; in Chinese many's translation. */
const char *i18n_plural(long long n, const char *one, const char *many)
    __attribute__((format_arg(2))) __attribute__((format_arg(3)));
/* A message built in English from a marked format (a check's message, an
 * emulator finding, a run's summary), in the language shown: in Chinese,
 * the catalogue's run-message format it matches is rebuilt from its
 * translation with the same arguments (each %s argument itself translated
 * when the catalogue has it); a message made of a matched format and more
 * text (" (in 3 launches)") is translated piece by piece; what matches
 * nothing is looked up whole, else stays English. Caller frees. */
char *i18n_message(const char *msg);
/* The catalogue, in source order (for tests): the texts looked up whole
 * (base/i18n_zh.c's, i18n_zh_screens.c's, i18n_zh_authors.c's), and the run messages'
 * formats that i18n_message matches (i18n_zh_run.c). */
const I18nEntry *i18n_catalogue(size_t *n);
const I18nEntry *i18n_message_formats(size_t *n);
/* Terminal columns of UTF-8 text: 2 for each CJK (East Asian wide)
 * character, 1 for others. */
int i18n_width(const char *s);
/* s padded with spaces to `width` columns (on the left when right), in
 * buf; text wider than width is kept whole. Returns buf. */
char *i18n_pad(char *buf, size_t n, const char *s, int width, bool right);
/* A time in microseconds as a person writes it: "850 ns", "12.3 µs",
 * "4.56 ms", "1.23 s" (three significant digits). Returns buf. */
char *i18n_format_us(double us, char *buf, size_t n);

#define _(s) i18n_text(s)
#define N_(s) (s)
#define P_(n, one, many) i18n_plural((n), (one), (many))

#endif
