/* app/tui/tui_device.c: the device screen: what `cudojo doctor` knows
 * (toolkit, NVRTC, driver, GPUs, which backends work). The doctor opens a
 * CUDA context, which the design keeps out of the UI process, so it runs as
 * a child (`cudojo --json doctor`) whose output the manager's poll() reads:
 * the screen shows at once and fills in when the answer comes. */
#include "app/tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

typedef struct DevicePanel {
    Panel base;
    Tui *t;
    TextDoc *doc;
    TextScroll scroll;
    int fd;
    pid_t pid;
    StrBuf out;
} DevicePanel;

static const TuiKeyHelp DEVICE_HELP[] = {
    {"r", N_("ask again")},
    {"j/k ↑/↓ PgUp/PgDn", N_("scroll")},
    {"q Esc", N_("back")},
    {NULL, NULL},
};

static const char *jstr(const json_t *o, const char *k, const char *dflt) {
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : dflt;
}

static void kv(TextDoc *doc, const char *k, int role, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void kv(TextDoc *doc, const char *k, int role, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *v = xvasprintf(fmt, ap);
    va_end(ap);
    TextLine *l = text_doc_add_line(doc);
    char pad[96];
    text_line_addf(l, ROLE_BOLD, "  %s ", i18n_pad(pad, sizeof pad, k, 14, false));   /* columns, not bytes: CJK */
    text_line_add(l, role, v);
    free(v);
}

static void render_doctor(DevicePanel *dp, const json_t *j) {
    TextDoc *doc = dp->doc;
    const json_t *tk = json_object_get(j, "toolkit"), *nv = json_object_get(j, "nvrtc");
    const json_t *rt = json_object_get(j, "cudart"), *drv = json_object_get(j, "driver");
    text_doc_add_text(doc, ROLE_H2, "CUDA");
    kv(doc, _("toolkit"), json_is_true(json_object_get(tk, "found")) ? ROLE_NORMAL : ROLE_FAIL, "%s (%s)",
       jstr(tk, "version", "?"), jstr(tk, "path", "?"));
    if (json_is_true(json_object_get(nv, "works")))
        kv(doc, "NVRTC", ROLE_PASS, _("%s, compiles a test kernel in %.0f ms"), jstr(nv, "version", "?"),
           json_number_value(json_object_get(nv, "compile_ms")));
    else
        kv(doc, "NVRTC", ROLE_FAIL, "%s: %s", jstr(nv, "version", _("missing")), jstr(nv, "error", _("does not work")));
    kv(doc, _("CUDA runtime"), ROLE_NORMAL, "%s", jstr(rt, "version", "?"));
    kv(doc, _("driver"), ROLE_NORMAL, "%s", jstr(drv, "version", _("none")));
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, "GPUs");
    const json_t *gpus = json_object_get(j, "gpus");
    if (json_array_size(gpus) == 0) {
        char *why = i18n_message(jstr(j, "gpu_error", N_("no GPU found")));
        kv(doc, _("none"), ROLE_WARN, "%s", why);
        free(why);
    }
    size_t i;
    json_t *g;
    json_array_foreach(gpus, i, g) {
        char k[32];
        snprintf(k, sizeof k, "GPU %zu", i);
        kv(doc, k, ROLE_NORMAL, _("%s, compute capability %s, %lld SMs, %.1f GiB"), jstr(g, "name", "?"),
           jstr(g, "cc", "?"), (long long)json_integer_value(json_object_get(g, "sms")),
           json_number_value(json_object_get(g, "memory_gib")));
    }
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, _("Backends"));
    const json_t *bs = json_object_get(j, "backends");
    const char *names[] = {"cuda", "emu"};
    for (int b = 0; b < 2; b++) {
        const json_t *be = json_object_get(bs, names[b]);
        bool works = json_is_true(json_object_get(be, "works"));
        if (works) {
            kv(doc, names[b], ROLE_PASS, "%s", _("works"));
            continue;
        }
        char *why = i18n_message(jstr(be, "why", N_("unknown reason")));
        kv(doc, names[b], ROLE_FAIL, _("does not work: %s"), why);
        free(why);
    }
}

static void device_rebuild(DevicePanel *dp, const char *raw) {
    text_doc_free(&dp->doc);
    dp->doc = text_doc_new();
    Tui *t = dp->t;
    const char *bk = t->cli->backend == BACKEND_CUDA ? _("cuda (forced)")
                     : t->cli->backend == BACKEND_EMU ? _("emu (forced)")
                                                       : _("auto: the GPU when one works, else the emulator");
    text_doc_add_text(dp->doc, ROLE_H2, _("This workbench"));
    kv(dp->doc, _("backend"), ROLE_NORMAL, "%s", bk);
    kv(dp->doc, _("workspace"), ROLE_NORMAL, "%s", t->ws->dir);
    kv(dp->doc, _("lessons"), ROLE_NORMAL, "%s", t->ws->lessons_root);
    text_doc_add_line(dp->doc);
    if (!raw) {
        text_doc_add_text(dp->doc, ROLE_DIM, _("  asking the doctor…"));
        return;
    }
    json_error_t err;
    json_t *j = json_loads(raw, 0, &err);
    if (j && json_is_object(j)) {
        render_doctor(dp, j);
    } else {
        text_doc_add_text(dp->doc, ROLE_FAIL, _("  `cudojo doctor` gave no answer:"));
        const char *p = raw;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char *one = xstrndup(p, len);
            text_doc_addf(dp->doc, ROLE_DIM, "  %s", one);
            free(one);
            p += len + (nl ? 1 : 0);
        }
    }
    json_decref(j);
}

static void device_reap(DevicePanel *dp) {
    if (dp->fd >= 0) {
        tui_unwatch_fd(dp->t, dp->fd);
        close(dp->fd);
        dp->fd = -1;
    }
    if (dp->pid > 0) {
        kill(dp->pid, SIGKILL);
        while (waitpid(dp->pid, NULL, 0) < 0 && errno == EINTR) {}
        dp->pid = -1;
    }
}

static void device_readable(Tui *t, void *ctx) {
    DevicePanel *dp = ctx;
    (void)t;
    char buf[4096];
    for (;;) {
        ssize_t n = read(dp->fd, buf, sizeof buf);
        if (n > 0) {
            strbuf_append_n(&dp->out, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        break;   /* EOF: the doctor is done */
    }
    device_reap(dp);
    device_rebuild(dp, dp->out.data);
}

static void device_ask(DevicePanel *dp) {
    device_reap(dp);
    strbuf_reset(&dp->out);
    device_rebuild(dp, NULL);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        setpgid(0, 0);
        execl(exe, exe, "--json", "doctor", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    dp->pid = pid;
    dp->fd = p[0];
    tui_watch_fd(dp->t, dp->fd, device_readable, dp);
}

static void device_draw(Panel *p, Tui *t, int top, int h, int w) {
    DevicePanel *dp = (DevicePanel *)p;
    tui_draw_title(t, _("cudojo — Device"), dp->pid > 0 ? _("asking…") : NULL);
    text_scroll_draw(&dp->scroll, dp->doc, top, h, 0, w);
    tui_draw_status(t, _("r ask again  ? help  q back"));
}

static int device_key(Panel *p, Tui *t, int key) {
    DevicePanel *dp = (DevicePanel *)p;
    if (key == 'r') {
        device_ask(dp);
        return TUI_HANDLED;
    }
    return text_scroll_key(&dp->scroll, dp->doc, t, key);
}

static void device_free(Panel *p, Tui *t) {
    (void)t;
    DevicePanel *dp = (DevicePanel *)p;
    device_reap(dp);
    text_doc_free(&dp->doc);
    text_scroll_fini(&dp->scroll);
    strbuf_fini(&dp->out);
    free(dp);
}

Panel *tui_device_new(Tui *t) {
    DevicePanel *dp = xcalloc(1, sizeof *dp);
    dp->base = (Panel){.title = N_("Device"), .help = DEVICE_HELP, .draw = device_draw, .key = device_key,
                       .free = device_free};
    dp->t = t;
    dp->fd = -1;
    dp->pid = -1;
    strbuf_init(&dp->out);
    device_ask(dp);
    return &dp->base;
}
