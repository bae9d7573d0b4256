#include "agent.h"

#include <libvirt/libvirt.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "domain.h"
#include "typed_params.h"
#include "worker.h"

namespace vlt {

namespace {

unsigned UintAt(const Napi::CallbackInfo& info, size_t i) {
  return info[i].IsNumber() ? info[i].As<Napi::Number>().Uint32Value() : 0;
}

NativeDomain* Self(const Napi::CallbackInfo& info) { return NativeDomain::Unwrap(info.This().As<Napi::Object>()); }

// A JS array of strings (or undefined/null) as a vector; anything else is reported by the caller.
bool StringsAt(const Napi::CallbackInfo& info, size_t i, std::vector<std::string>* out) {
  if (info[i].IsUndefined() || info[i].IsNull()) return true;
  if (!info[i].IsArray()) return false;
  Napi::Array arr = info[i].As<Napi::Array>();
  for (uint32_t k = 0; k < arr.Length(); k++) {
    Napi::Value v = arr.Get(k);
    if (!v.IsString()) return false;
    out->push_back(v.As<Napi::String>().Utf8Value());
  }
  return true;
}

// libvirt takes `const char**` lists; the strings stay owned by `values` for the duration of the call.
std::vector<const char*> CStrings(const std::vector<std::string>& values) {
  std::vector<const char*> out;
  for (const auto& s : values) out.push_back(s.c_str());
  return out;
}

Napi::Value Invalid(const Napi::CallbackInfo& info, const std::string& message) {
  return RejectedPromise(info.Env(), VIR_ERR_INVALID_ARG, VIR_FROM_DOM, message);
}

// getGuestInfo(types, flags): virDomainGetGuestInfo's typed parameters as one flat object
// ({ "os.id": "debian", "fs.count": 1, "fs.0.mountpoint": "/", ... }); the face shapes them.
Napi::Value GetGuestInfo(const Napi::CallbackInfo& info) {
  unsigned types = UintAt(info, 0);
  unsigned flags = UintAt(info, 1);
  return Self(info)->Run(info, [types, flags](virDomainPtr d) -> Builder {
    virTypedParameterPtr params = nullptr;
    int n = 0;
    if (virDomainGetGuestInfo(d, types, &params, &n, flags) < 0) ThrowLastError("cannot get guest info");
    auto values = std::make_shared<std::vector<StatValue>>();
    for (int i = 0; i < n; i++) values->push_back(CopyParam(params[i]));
    virTypedParamsFree(params, n);
    return [values](Napi::Env env) -> Napi::Value { return ValuesToJs(env, *values); };
  });
}

// fsFreeze(mountpoints, flags) / fsThaw(mountpoints, flags): the number of filesystems frozen or thawed;
// an empty list means every filesystem the agent knows.
Napi::Value FreezeOrThaw(const Napi::CallbackInfo& info, bool freeze) {
  auto mounts = std::make_shared<std::vector<std::string>>();
  if (!StringsAt(info, 0, mounts.get())) return Invalid(info, "mountpoints must be an array of strings");
  unsigned flags = UintAt(info, 1);
  return Self(info)->Run(info, [mounts, flags, freeze](virDomainPtr d) -> Builder {
    std::vector<const char*> list = CStrings(*mounts);
    const char** ptr = list.empty() ? nullptr : list.data();
    auto count = static_cast<unsigned>(list.size());
    int n = freeze ? virDomainFSFreeze(d, ptr, count, flags) : virDomainFSThaw(d, ptr, count, flags);
    if (n < 0) ThrowLastError(freeze ? "cannot freeze guest filesystems" : "cannot thaw guest filesystems");
    return [n](Napi::Env env) -> Napi::Value { return Napi::Number::New(env, n); };
  });
}

Napi::Value FSFreeze(const Napi::CallbackInfo& info) { return FreezeOrThaw(info, true); }
Napi::Value FSThaw(const Napi::CallbackInfo& info) { return FreezeOrThaw(info, false); }

// setTime(seconds, nseconds, flags): virDomainSetTime (VIR_DOMAIN_TIME_SYNC ignores the time given and
// makes the guest re-read its RTC).
Napi::Value SetTime(const Napi::CallbackInfo& info) {
  double seconds = info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : NAN;
  double nseconds = info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : NAN;
  if (!std::isfinite(seconds) || std::floor(seconds) != seconds) return Invalid(info, "setTime: seconds must be a whole number");
  if (!(nseconds >= 0 && nseconds < 1e9) || std::floor(nseconds) != nseconds) {
    return Invalid(info, "setTime: nseconds must be a whole number in [0, 999999999]");
  }
  auto secs = static_cast<long long>(seconds);
  auto nsecs = static_cast<unsigned int>(nseconds);
  unsigned flags = UintAt(info, 2);
  return Self(info)->Run(info, [secs, nsecs, flags](virDomainPtr d) -> Builder {
    if (virDomainSetTime(d, secs, nsecs, flags) < 0) ThrowLastError("cannot set guest time");
    return nullptr;
  });
}

// authorizedSSHKeysGet(user, flags): the lines of the user's authorized_keys file in the guest.
Napi::Value AuthorizedSSHKeysGet(const Napi::CallbackInfo& info) {
  if (!info[0].IsString()) return Invalid(info, "authorizedSSHKeysGet: user must be a string");
  std::string user = info[0].As<Napi::String>().Utf8Value();
  unsigned flags = UintAt(info, 1);
  return Self(info)->Run(info, [user, flags](virDomainPtr d) -> Builder {
    char** keys = nullptr;
    int n = virDomainAuthorizedSSHKeysGet(d, user.c_str(), &keys, flags);
    if (n < 0) ThrowLastError("cannot read the guest user's authorized SSH keys");
    auto copy = std::make_shared<std::vector<std::string>>();
    for (int i = 0; i < n; i++) {
      copy->push_back(keys[i]);
      free(keys[i]);
    }
    free(keys);
    return [copy](Napi::Env env) -> Napi::Value {
      Napi::Array arr = Napi::Array::New(env, copy->size());
      for (size_t i = 0; i < copy->size(); i++) arr.Set(static_cast<uint32_t>(i), (*copy)[i]);
      return arr;
    };
  });
}

// authorizedSSHKeysSet(user, keys, flags): replaces the file (APPEND adds, REMOVE deletes the given keys).
Napi::Value AuthorizedSSHKeysSet(const Napi::CallbackInfo& info) {
  if (!info[0].IsString()) return Invalid(info, "authorizedSSHKeysSet: user must be a string");
  std::string user = info[0].As<Napi::String>().Utf8Value();
  auto keys = std::make_shared<std::vector<std::string>>();
  if (!StringsAt(info, 1, keys.get())) return Invalid(info, "authorizedSSHKeysSet: keys must be an array of strings");
  unsigned flags = UintAt(info, 2);
  return Self(info)->Run(info, [user, keys, flags](virDomainPtr d) -> Builder {
    std::vector<const char*> list = CStrings(*keys);
    int rc = virDomainAuthorizedSSHKeysSet(d, user.c_str(), list.empty() ? nullptr : list.data(),
                                           static_cast<unsigned>(list.size()), flags);
    if (rc < 0) ThrowLastError("cannot set the guest user's authorized SSH keys");
    return nullptr;
  });
}

}  // namespace

void RegisterAgentMethods(Napi::Env env, Napi::Function domainCtor) {
  Napi::Object proto = domainCtor.Get("prototype").As<Napi::Object>();
  proto.Set("getGuestInfo", Napi::Function::New(env, GetGuestInfo, "getGuestInfo"));
  proto.Set("fsFreeze", Napi::Function::New(env, FSFreeze, "fsFreeze"));
  proto.Set("fsThaw", Napi::Function::New(env, FSThaw, "fsThaw"));
  proto.Set("setTime", Napi::Function::New(env, SetTime, "setTime"));
  proto.Set("authorizedSSHKeysGet", Napi::Function::New(env, AuthorizedSSHKeysGet, "authorizedSSHKeysGet"));
  proto.Set("authorizedSSHKeysSet", Napi::Function::New(env, AuthorizedSSHKeysSet, "authorizedSSHKeysSet"));
}

}  // namespace vlt
