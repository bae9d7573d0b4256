#include "dirtyrate.h"

#include "domain.h"

namespace vlt {

Napi::Value StartDirtyRateCalc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() ||
      !info[0].As<Napi::Object>().InstanceOf(env.GetInstanceData<AddonData>()->domainCtor.Value())) {
    return RejectedPromise(env, VIR_ERR_INVALID_ARG, VIR_FROM_DOM, "startDirtyRateCalc: first argument must be a domain");
  }
  // Seconds and mode bits are checked by libvirt itself (it names the bad value in its error).
  int seconds = info[1].IsNumber() ? info[1].As<Napi::Number>().Int32Value() : 1;
  unsigned flags = info[2].IsNumber() ? info[2].As<Napi::Number>().Uint32Value() : 0;
  NativeDomain* self = NativeDomain::Unwrap(info[0].As<Napi::Object>());
  return self->Run(info, [seconds, flags](virDomainPtr d) -> Builder {
    if (virDomainStartDirtyRateCalc(d, seconds, flags) < 0) ThrowLastError("cannot start dirty rate calculation");
    return nullptr;
  });
}

}  // namespace vlt
