#include "disk_errors.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "domain.h"

namespace vlt {

Napi::Value GetDiskErrors(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() ||
      !info[0].As<Napi::Object>().InstanceOf(env.GetInstanceData<AddonData>()->domainCtor.Value())) {
    return RejectedPromise(env, VIR_ERR_INVALID_ARG, VIR_FROM_DOM, "getDiskErrors: first argument must be a domain");
  }
  NativeDomain* self = NativeDomain::Unwrap(info[0].As<Napi::Object>());
  return self->Run(info, [](virDomainPtr d) -> Builder {
    // First call: how many disks have an error; second: fetch them. A disk may clear in between, so
    // only the count the second call returns is used.
    int count = virDomainGetDiskErrors(d, nullptr, 0, 0);
    if (count < 0) ThrowLastError("cannot get disk errors");
    std::vector<std::pair<std::string, int>> errors;
    if (count > 0) {
      std::vector<virDomainDiskError> raw(static_cast<size_t>(count));
      int got = virDomainGetDiskErrors(d, raw.data(), static_cast<unsigned>(count), 0);
      if (got < 0) ThrowLastError("cannot get disk errors");
      for (int i = 0; i < got; ++i) {
        errors.emplace_back(raw[i].disk != nullptr ? raw[i].disk : "", raw[i].error);
        free(raw[i].disk);
      }
    }
    return [errors](Napi::Env env) -> Napi::Value {
      Napi::Array arr = Napi::Array::New(env, errors.size());
      for (size_t i = 0; i < errors.size(); ++i) {
        Napi::Object obj = Napi::Object::New(env);
        obj.Set("disk", errors[i].first);
        obj.Set("error", errors[i].second);
        arr.Set(static_cast<uint32_t>(i), obj);
      }
      return arr;
    };
  });
}

}  // namespace vlt
