/* tests/kernels/test_doctor.c: the machine report behind `cudojo doctor`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/doctor.h"

static void doctor__reports_toolkit_nvrtc_and_versions__always(void **state) {
    (void)state;
    json_t *r = kernels_doctor();
    assert_non_null(r);
    json_t *nvrtc = json_object_get(r, "nvrtc");
    assert_true(json_is_true(json_object_get(nvrtc, "works")));
    assert_non_null(json_string_value(json_object_get(nvrtc, "version")));
    assert_true(json_real_value(json_object_get(nvrtc, "compile_ms")) > 0);
    json_t *tk = json_object_get(r, "toolkit");
    assert_true(json_is_true(json_object_get(tk, "found")));
    assert_non_null(json_string_value(json_object_get(tk, "version")));
    assert_non_null(json_string_value(json_object_get(tk, "include_dir")));
    assert_true(json_integer_value(json_object_get(json_object_get(r, "cudart"), "raw")) >= 12000);
    assert_true(json_is_null(json_object_get(json_object_get(r, "backends"), "emu")));
    json_decref(r);
}

static void doctor__says_why_gpu_backend_fails__when_no_gpu(void **state) {
    (void)state;
    json_t *r = kernels_doctor();
    json_t *cuda = json_object_get(json_object_get(r, "backends"), "cuda");
    if (json_is_true(json_object_get(cuda, "works"))) {
        assert_true(json_array_size(json_object_get(r, "gpus")) > 0);
        assert_non_null(json_string_value(json_object_get(json_array_get(json_object_get(r, "gpus"), 0), "name")));
        json_decref(r);
        skip();
    }
    const char *why = json_string_value(json_object_get(cuda, "why"));
    assert_non_null(why);
    assert_int_equal(strncmp(why, "no GPU: ", 8), 0);
    assert_non_null(json_string_value(json_object_get(r, "gpu_error")));
    assert_int_equal(json_array_size(json_object_get(r, "gpus")), 0);
    json_decref(r);
}

/* On a machine with no NVIDIA driver at all cudart says "CUDA driver version
 * is insufficient": the report says there is no driver instead. */
static void doctor__says_no_driver_found__when_none_is_installed(void **state) {
    (void)state;
    assert_string_equal(cuda_no_gpu_reason(35 /* cudaErrorInsufficientDriver */, false), CUDA_NO_DRIVER);
    assert_non_null(strstr(cuda_no_gpu_reason(35, true), "insufficient"));   /* an old driver: cudart is right */
    if (cuda_driver_installed()) skip();
    json_t *r = kernels_doctor();
    assert_true(json_is_false(json_object_get(r, "driver_installed")));
    const char *err = json_string_value(json_object_get(r, "gpu_error"));
    assert_non_null(err);
    assert_non_null(strstr(err, "no NVIDIA driver found"));
    const char *why = json_string_value(json_object_get(json_object_get(json_object_get(r, "backends"), "cuda"), "why"));
    assert_non_null(why);
    assert_null(strstr(why, "insufficient"));
    assert_non_null(strstr(why, "no NVIDIA driver found"));
    json_decref(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doctor__reports_toolkit_nvrtc_and_versions__always),
        cmocka_unit_test(doctor__says_why_gpu_backend_fails__when_no_gpu),
        cmocka_unit_test(doctor__says_no_driver_found__when_none_is_installed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
