#include "worker.h"

#include <exception>

namespace vlt {

VirtErrorInfo CaptureLastError(const std::string& what) {
  VirtErrorInfo info;
  virErrorPtr err = virGetLastError();
  if (err != nullptr && err->code != VIR_ERR_OK) {
    info.code = err->code;
    info.domain = err->domain;
    info.level = err->level;
    info.message = err->message != nullptr ? err->message : what;
  } else {
    info.message = what;
  }
  virResetLastError();
  return info;
}

void ThrowLastError(const std::string& what) { throw VirtFailure{CaptureLastError(what)}; }

void ThrowError(int code, int domain, const std::string& message) {
  VirtErrorInfo info;
  info.code = code;
  info.domain = domain;
  info.message = message;
  throw VirtFailure{info};
}

Napi::Value MakeJsError(Napi::Env env, const VirtErrorInfo& info) {
  Napi::Error error = Napi::Error::New(env, info.message);
  Napi::Object obj = error.Value();
  obj.Set("libvirtCode", Napi::Number::New(env, info.code));
  obj.Set("libvirtDomain", Napi::Number::New(env, info.domain));
  obj.Set("libvirtLevel", Napi::Number::New(env, info.level));
  return obj;
}

Napi::Promise RejectedPromise(Napi::Env env, int code, int domain, const std::string& message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  VirtErrorInfo info;
  info.code = code;
  info.domain = domain;
  info.message = message;
  deferred.Reject(MakeJsError(env, info));
  return deferred.Promise();
}

PromiseWorker::PromiseWorker(Napi::Env env, Work work)
    : Napi::AsyncWorker(env, "libvirt"), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)) {}

Napi::Promise PromiseWorker::Start(Napi::Env env, Work work) {
  auto* worker = new PromiseWorker(env, std::move(work));
  Napi::Promise promise = worker->deferred_.Promise();
  worker->Queue();
  return promise;
}

void PromiseWorker::Execute() {
  try {
    builder_ = work_();
  } catch (const VirtFailure& failure) {
    failed_ = true;
    error_ = failure.info;
  } catch (const std::exception& e) {
    failed_ = true;
    error_.message = e.what();
  }
  // The work's captures hold libvirt references; dropping them here keeps a possibly blocking
  // last-reference close off the JS thread.
  work_ = nullptr;
}

void PromiseWorker::OnOK() {
  Napi::Env env = Env();
  if (failed_) {
    deferred_.Reject(MakeJsError(env, error_));
    return;
  }
  try {
    deferred_.Resolve(builder_ ? builder_(env) : env.Undefined());
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
  builder_ = nullptr;
}

}  // namespace vlt
