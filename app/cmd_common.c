/* app/cmd_common.c: argument parsing shared by run, watch and verify, and
 * how the authors' commands name a pack's files. */
#include "app/cmd_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

void cmd_print_after_verdict(const RunResult *res, FILE *out, bool color) {
    for (const Diag *d = res->diags; d; d = d->next) {
        if (!d->code || strcmp(d->code, "after-verdict")) continue;
        StrBuf b;
        strbuf_init(&b);
        diag_format(d, &b, color);
        fputs(b.data ? b.data : "", out);
        strbuf_fini(&b);
    }
    run_result_print_after(res, out, color);
}

char *cmd_path_shown(const char *path) {
    char *abs = path_absolute(path);
    char *cwd = path_absolute(".");
    size_t n = strlen(cwd);
    char *shown = NULL;
    if (!strcmp(abs, cwd)) shown = xstrdup(".");
    else if (!strncmp(abs, cwd, n) && (abs[n] == '/' || !strcmp(cwd, "/"))) shown = xstrdup(abs + n + (abs[n] == '/'));
    free(cwd);
    if (!shown) return abs;
    free(abs);
    return shown;
}

int run_args_parse(RunArgs *ra, int argc, char **argv, const char *cmd) {
    memset(ra, 0, sizeof *ra);
    ra->positional = xcalloc((size_t)argc + 1, sizeof *ra->positional);
    ra->keys = xcalloc((size_t)argc + 1, sizeof *ra->keys);
    ra->values = xcalloc((size_t)argc + 1, sizeof *ra->values);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *kv = NULL;
        if (!strcmp(a, "--param") && i + 1 < argc) kv = argv[++i];
        else if (!strncmp(a, "--param=", 8)) kv = a + 8;
        if (kv) {
            const char *eq = strchr(kv, '=');
            if (!eq || eq == kv) {
                fprintf(stderr, _("cudojo %s: --param needs NAME=VALUE (got '%s')\n"), cmd, kv);
                run_args_fini(ra);
                return 2;
            }
            ra->keys[ra->n_params] = xstrndup(kv, (size_t)(eq - kv));
            ra->values[ra->n_params++] = xstrdup(eq + 1);
        } else if (!strcmp(a, "--file") && i + 1 < argc) {
            ra->file = argv[++i];
        } else if (!strncmp(a, "--file=", 7)) {
            ra->file = a + 7;
        } else if (!strcmp(cmd, "run") && (!strcmp(a, "--trace") || !strncmp(a, "--trace=", 8))) {
            const char *f = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : NULL;
            if (!f || !*f) {
                fprintf(stderr, _("cudojo %s: --trace needs a file name (e.g. --trace timeline.json)\n"), cmd);
                run_args_fini(ra);
                return 2;
            }
            ra->trace = f;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, _("cudojo %s: unknown option '%s' (see `cudojo %s --help`)\n"), cmd, a, cmd);
            run_args_fini(ra);
            return 2;
        } else {
            ra->positional[ra->n_positional++] = argv[i];
        }
    }
    return 0;
}

void run_args_fini(RunArgs *ra) {
    for (int i = 0; i < ra->n_params; i++) {
        free(ra->keys[i]);
        free(ra->values[i]);
    }
    free(ra->keys);
    free(ra->values);
    free(ra->positional);
    memset(ra, 0, sizeof *ra);
}
