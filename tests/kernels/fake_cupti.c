/* tests/kernels/fake_cupti.c: a stand-in libcupti.so.13 for test_inject, so
 * the injection library's glue (InitializeInjection, kernels/cuda/cupti.c's
 * hooks, the exit handler's flush) runs without a GPU.
 *
 * Built by mk/inject.mk as $(BUILD)/inject/fake/libcupti.so.13 with that
 * soname: a process that loads it first gets it from cupti.c's
 * dlopen("libcupti.so.13"). The test drives it through fake_cupti_api (one
 * runtime API callback) and fake_cupti_record (an activity record handed
 * over at the next flush). Records sit in the buffer as [size][bytes],
 * 8-byte aligned. Not part of cudojo. */
#include <cupti.h>
#include <stdlib.h>
#include <string.h>

static CUpti_CallbackFunc g_cb;
static void *g_cb_user;
static CUpti_BuffersCallbackRequestFunc g_req;
static CUpti_BuffersCallbackCompleteFunc g_done;
static unsigned char g_pending[1 << 16];
static size_t g_pending_len;
static uint64_t g_clock = 1000000;
static int g_enabled[64];

void fake_cupti_api(uint32_t cbid, int site, const char *name, const void *params, int rc, uint32_t corr,
                    const char *symbol);
void fake_cupti_record(const void *rec, size_t size);
int fake_cupti_enabled(int kind);

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *user) {
    *sub = (CUpti_SubscriberHandle)&g_cb;
    g_cb = cb;
    g_cb_user = user;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain) {
    (void)enable, (void)sub;
    return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                    CUpti_BuffersCallbackCompleteFunc done) {
    g_req = req;
    g_done = done;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
    if ((int)kind >= 0 && (int)kind < 64) g_enabled[kind] = 1;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str) {
    *str = result ? "CUPTI_ERROR_FAKE" : "CUPTI_SUCCESS";
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    if (!g_pending_len || !g_req || !g_done) return CUPTI_SUCCESS;
    uint8_t *buf = NULL;
    size_t size = 0, max = 0;
    g_req(&buf, &size, &max);
    if (!buf || size < g_pending_len) return CUPTI_ERROR_UNKNOWN;
    memcpy(buf, g_pending, g_pending_len);
    size_t valid = g_pending_len;
    g_pending_len = 0;
    g_done(NULL, 0, buf, size, valid);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
    size_t off = 0;
    if (*record) {
        unsigned char *prev = (unsigned char *)*record - sizeof(size_t);
        size_t len;
        memcpy(&len, prev, sizeof len);
        off = (size_t)(prev - buffer) + sizeof(size_t) + ((len + 7) & ~(size_t)7);
    }
    if (off + sizeof(size_t) >= valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)(buffer + off + sizeof(size_t));
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *dropped) {
    (void)ctx, (void)stream;
    *dropped = 2;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *t) {
    *t = g_clock += 1000;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext ctx, CUstream stream, uint8_t per_thread, uint32_t *id) {
    (void)ctx, (void)per_thread;
    *id = stream ? 100 + (uint32_t)((uintptr_t)stream & 0xff) : 7;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext ctx, uint32_t *id) {
    (void)ctx;
    *id = 1;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext ctx, uint32_t *id) {
    (void)ctx;
    *id = 0;
    return CUPTI_SUCCESS;
}

/* ---- for the test ---- */

void fake_cupti_api(uint32_t cbid, int site, const char *name, const void *params, int rc, uint32_t corr,
                    const char *symbol) {
    if (!g_cb) return;
    CUpti_CallbackData cb = {.callbackSite = (CUpti_ApiCallbackSite)site, .functionName = name,
                             .functionParams = params, .functionReturnValue = &rc, .symbolName = symbol,
                             .context = (CUcontext)(uintptr_t)0x1000, .correlationId = corr};
    g_cb(g_cb_user, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cb);
}

void fake_cupti_record(const void *rec, size_t size) {
    if (g_pending_len + sizeof size + size + 8 > sizeof g_pending) return;
    memcpy(g_pending + g_pending_len, &size, sizeof size);
    memcpy(g_pending + g_pending_len + sizeof size, rec, size);
    g_pending_len += sizeof size + ((size + 7) & ~(size_t)7);
}

int fake_cupti_enabled(int kind) {
    return kind >= 0 && kind < 64 && g_enabled[kind];
}
