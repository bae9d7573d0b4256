// Runs one libvirt call on a libuv pool thread and settles a promise on the JS thread.
// libvirt keeps its last error per thread, so the error is captured on the pool thread that failed.
#pragma once

#include <napi.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <functional>
#include <string>

namespace vlt {

// A copy of libvirt's virError, safe to carry across threads.
struct VirtErrorInfo {
  int code = VIR_ERR_INTERNAL_ERROR;
  int domain = VIR_FROM_NONE;
  int level = VIR_ERR_ERROR;
  std::string message;
};

// Thrown on a pool thread when a libvirt call fails; carries the captured error.
struct VirtFailure {
  VirtErrorInfo info;
};

// Copies and clears the calling thread's last libvirt error. `what` is used when libvirt set none.
VirtErrorInfo CaptureLastError(const std::string& what);
[[noreturn]] void ThrowLastError(const std::string& what);
[[noreturn]] void ThrowError(int code, int domain, const std::string& message);

// A JS Error carrying { code, domain, level } that the TypeScript face turns into a LibvirtError.
Napi::Value MakeJsError(Napi::Env env, const VirtErrorInfo& info);
Napi::Promise RejectedPromise(Napi::Env env, int code, int domain, const std::string& message);

// The work returns a builder; the builder runs on the JS thread and makes the resolved value.
using Builder = std::function<Napi::Value(Napi::Env)>;
using Work = std::function<Builder()>;

class PromiseWorker : public Napi::AsyncWorker {
 public:
  static Napi::Promise Start(Napi::Env env, Work work);

 protected:
  PromiseWorker(Napi::Env env, Work work);
  void Execute() override;
  void OnOK() override;

 private:
  Napi::Promise::Deferred deferred_;
  Work work_;
  Builder builder_;
  bool failed_ = false;
  VirtErrorInfo error_;
};

}  // namespace vlt
