// virt_preload.node: maps the libvirt client libraries on a libuv worker thread, so that the main thread can do
// other work while the dynamic loader maps and relocates them (~58 shared objects, 30-90 ms on two busy cores).
// The binding (virt_native.node) loaded afterwards finds them mapped already. Plain C on Node-API, linked against
// no libvirt library itself: loading this file is cheap, whatever the machine has installed.
#include <dlfcn.h>
#include <stdio.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIBRARIES 8
#define MAX_NAME 256
#define MAX_ERROR 512

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  size_t count;
  char names[MAX_LIBRARIES][MAX_NAME];
  char error[MAX_ERROR];
} preload_job;

// On the worker thread: each library is opened and its handle kept for the life of the process (never dlclose'd:
// the binding relies on it staying mapped, and the loader's reference count keeps one copy either way).
static void open_libraries(napi_env env, void *data) {
  preload_job *job = data;
  (void)env;
  for (size_t i = 0; i < job->count; i++) {
    if (dlopen(job->names[i], RTLD_LAZY | RTLD_LOCAL) == NULL) {
      const char *reason = dlerror();
      snprintf(job->error, sizeof job->error, "%s", reason ? reason : job->names[i]);
      return;
    }
  }
}

static void settle(napi_env env, napi_status status, void *data) {
  preload_job *job = data;
  if (status == napi_ok && job->error[0] == '\0') {
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    napi_resolve_deferred(env, job->deferred, undefined);
  } else {
    napi_value message, error;
    napi_create_string_utf8(env, job->error[0] ? job->error : "preload cancelled", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_async_work(env, job->work);
  free(job);
}

static napi_value throw_type_error(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

// preload(names: string[]): Promise<void>
static napi_value preload(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) {
    return throw_type_error(env, "preload: expected an array of library names");
  }
  bool is_array = false;
  uint32_t length = 0;
  napi_is_array(env, argv[0], &is_array);
  if (!is_array || napi_get_array_length(env, argv[0], &length) != napi_ok || length == 0 || length > MAX_LIBRARIES) {
    return throw_type_error(env, "preload: expected an array of 1 to 8 library names");
  }
  preload_job *job = calloc(1, sizeof *job);
  if (job == NULL) return throw_type_error(env, "preload: out of memory");
  job->count = length;
  for (uint32_t i = 0; i < length; i++) {
    napi_value element;
    size_t written = 0;
    napi_get_element(env, argv[0], i, &element);
    napi_valuetype type;
    napi_typeof(env, element, &type);
    if (type != napi_string ||
        napi_get_value_string_utf8(env, element, job->names[i], MAX_NAME, &written) != napi_ok ||
        written == 0 || written >= MAX_NAME - 1) {
      free(job);
      return throw_type_error(env, "preload: a library name must be a non-empty string under 255 bytes");
    }
  }
  napi_value promise, resource_name;
  napi_create_promise(env, &job->deferred, &promise);
  napi_create_string_utf8(env, "virt-launcher:preload", NAPI_AUTO_LENGTH, &resource_name);
  if (napi_create_async_work(env, NULL, resource_name, open_libraries, settle, job, &job->work) != napi_ok ||
      napi_queue_async_work(env, job->work) != napi_ok) {
    napi_value message, error;
    napi_create_string_utf8(env, "preload: could not queue the work", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
    free(job);
  }
  return promise;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "preload", NAPI_AUTO_LENGTH, preload, NULL, &fn);
  napi_set_named_property(env, exports, "preload", fn);
  return exports;
}
