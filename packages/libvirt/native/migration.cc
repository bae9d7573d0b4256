#include "migration.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "domain.h"
#include "typed_params.h"

namespace vlt {

namespace {

// The NativeDomain in argument 0, or null after rejecting `out` with an INVALID_ARG error naming the call.
NativeDomain* DomainArg(const Napi::CallbackInfo& info, const char* what, Napi::Value* out) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() ||
      !info[0].As<Napi::Object>().InstanceOf(env.GetInstanceData<AddonData>()->domainCtor.Value())) {
    *out = RejectedPromise(env, VIR_ERR_INVALID_ARG, VIR_FROM_DOM, std::string(what) + ": first argument must be a domain");
    return nullptr;
  }
  return NativeDomain::Unwrap(info[0].As<Napi::Object>());
}

// Typed parameters built on the JS thread and handed to the migration thread, which frees them.
struct MigrateParams {
  virTypedParameterPtr params = nullptr;
  int count = 0;
  int max = 0;
  ~MigrateParams() { virTypedParamsFree(params, count); }

  bool AddString(const char* field, const std::string& value) {
    return virTypedParamsAddString(&params, &count, &max, field, value.c_str()) == 0;
  }
};

// Copies each known field of the JS params object; a field of the wrong type is an INVALID_ARG naming it.
std::string ReadParams(const Napi::Object& obj, MigrateParams* p) {
  const std::pair<const char*, const char*> strings[] = {
      {"uri", VIR_MIGRATE_PARAM_URI},
      {"destName", VIR_MIGRATE_PARAM_DEST_NAME},
      {"destXml", VIR_MIGRATE_PARAM_DEST_XML},
      {"persistXml", VIR_MIGRATE_PARAM_PERSIST_XML},
      {"disksUri", VIR_MIGRATE_PARAM_DISKS_URI},
      {"compression", VIR_MIGRATE_PARAM_COMPRESSION},
  };
  for (const auto& [key, field] : strings) {
    Napi::Value v = obj.Get(key);
    if (v.IsUndefined() || v.IsNull()) continue;
    if (!v.IsString()) return std::string("params.") + key + " must be a string";
    if (!p->AddString(field, v.As<Napi::String>().Utf8Value())) return std::string("params.") + key + ": cannot add";
  }
  Napi::Value bw = obj.Get("bandwidthMiB");
  if (!bw.IsUndefined() && !bw.IsNull()) {
    if (!bw.IsNumber() || bw.As<Napi::Number>().DoubleValue() < 0) return "params.bandwidthMiB must be a number >= 0";
    auto mib = static_cast<unsigned long long>(bw.As<Napi::Number>().DoubleValue());
    if (virTypedParamsAddULLong(&p->params, &p->count, &p->max, VIR_MIGRATE_PARAM_BANDWIDTH, mib) < 0)
      return "params.bandwidthMiB: cannot add";
  }
  Napi::Value par = obj.Get("parallelConnections");
  if (!par.IsUndefined() && !par.IsNull()) {
    if (!par.IsNumber() || par.As<Napi::Number>().Int32Value() < 1) return "params.parallelConnections must be a number >= 1";
    if (virTypedParamsAddInt(&p->params, &p->count, &p->max, VIR_MIGRATE_PARAM_PARALLEL_CONNECTIONS,
                             par.As<Napi::Number>().Int32Value()) < 0)
      return "params.parallelConnections: cannot add";
  }
  Napi::Value disks = obj.Get("migrateDisks");
  if (!disks.IsUndefined() && !disks.IsNull()) {
    if (!disks.IsArray()) return "params.migrateDisks must be an array of disk targets";
    Napi::Array arr = disks.As<Napi::Array>();
    for (uint32_t i = 0; i < arr.Length(); ++i) {
      Napi::Value d = arr.Get(i);
      if (!d.IsString()) return "params.migrateDisks[" + std::to_string(i) + "] must be a string";
      if (!p->AddString(VIR_MIGRATE_PARAM_MIGRATE_DISKS, d.As<Napi::String>().Utf8Value()))
        return "params.migrateDisks: cannot add";
    }
  }
  return "";
}

// What the migration thread hands back to the JS thread.
struct MigrateOutcome {
  Napi::Promise::Deferred deferred;
  bool failed = false;
  VirtErrorInfo error;
};

Napi::Value MigrateToURI3(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Value rejected;
  NativeDomain* self = DomainArg(info, "migrateToURI3", &rejected);
  if (self == nullptr) return rejected;
  if (info.Length() < 3 || !info[1].IsString() || !info[2].IsObject()) {
    return RejectedPromise(env, VIR_ERR_INVALID_ARG, VIR_FROM_DOM, "migrateToURI3: expected (domain, destUri, params, flags)");
  }
  std::string destUri = info[1].As<Napi::String>().Utf8Value();
  unsigned flags = info[3].IsNumber() ? info[3].As<Napi::Number>().Uint32Value() : 0;
  auto params = std::make_shared<MigrateParams>();
  std::string bad = ReadParams(info[2].As<Napi::Object>(), params.get());
  if (!bad.empty()) return RejectedPromise(env, VIR_ERR_INVALID_ARG, VIR_FROM_DOM, "migrateToURI3: " + bad);

  // Run() takes a reference on a pool thread (quick); its builder then starts the long call on a thread of
  // its own and resolves Run's promise with that thread's promise.
  return self->Run(info, [destUri, flags, params](virDomainPtr d) -> Builder {
    virDomainRef(d);
    return [d, destUri, flags, params](Napi::Env env) -> Napi::Value {
      auto* outcome = new MigrateOutcome{Napi::Promise::Deferred::New(env)};
      Napi::Promise promise = outcome->deferred.Promise();
      auto done = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}),
                                                "libvirt-migrate", 0, 1);
      std::thread([d, destUri, flags, params, outcome, done]() mutable {
        if (virDomainMigrateToURI3(d, destUri.c_str(), params->params, params->count, flags) < 0) {
          outcome->failed = true;
          outcome->error = CaptureLastError("migration failed");
        }
        virDomainFree(d);
        done.BlockingCall(outcome, [](Napi::Env env, Napi::Function, MigrateOutcome* o) {
          if (o->failed) o->deferred.Reject(MakeJsError(env, o->error));
          else o->deferred.Resolve(env.Undefined());
          delete o;
        });
        done.Release();
      }).detach();
      return promise;
    };
  });
}

Napi::Value GetJobStats(const Napi::CallbackInfo& info) {
  Napi::Value rejected;
  NativeDomain* self = DomainArg(info, "getJobStats", &rejected);
  if (self == nullptr) return rejected;
  unsigned flags = info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 0;
  return self->Run(info, [flags](virDomainPtr d) -> Builder {
    int type = 0;
    virTypedParameterPtr params = nullptr;
    int n = 0;
    if (virDomainGetJobStats(d, &type, &params, &n, flags) < 0) ThrowLastError("cannot get job statistics");
    std::vector<StatValue> values;
    for (int i = 0; i < n; ++i) values.push_back(CopyParam(params[i]));
    virTypedParamsFree(params, n);
    return [type, values](Napi::Env env) -> Napi::Value {
      Napi::Object out = Napi::Object::New(env);
      out.Set("type", type);
      out.Set("stats", ValuesToJs(env, values));
      return out;
    };
  });
}

Napi::Value AbortJob(const Napi::CallbackInfo& info) {
  Napi::Value rejected;
  NativeDomain* self = DomainArg(info, "abortJob", &rejected);
  if (self == nullptr) return rejected;
  return self->Run(info, [](virDomainPtr d) -> Builder {
    if (virDomainAbortJob(d) < 0) ThrowLastError("cannot abort job");
    return nullptr;
  });
}

Napi::Value StartPostCopy(const Napi::CallbackInfo& info) {
  Napi::Value rejected;
  NativeDomain* self = DomainArg(info, "startPostCopy", &rejected);
  if (self == nullptr) return rejected;
  return self->Run(info, [](virDomainPtr d) -> Builder {
    if (virDomainMigrateStartPostCopy(d, 0) < 0) ThrowLastError("cannot start post-copy");
    return nullptr;
  });
}

Napi::Value SetMaxDowntime(const Napi::CallbackInfo& info) {
  Napi::Value rejected;
  NativeDomain* self = DomainArg(info, "setMaxDowntime", &rejected);
  if (self == nullptr) return rejected;
  auto ms = static_cast<unsigned long long>(info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : 0);
  return self->Run(info, [ms](virDomainPtr d) -> Builder {
    if (virDomainMigrateSetMaxDowntime(d, ms, 0) < 0) ThrowLastError("cannot set the maximum downtime");
    return nullptr;
  });
}

Napi::Value SetMaxSpeed(const Napi::CallbackInfo& info) {
  Napi::Value rejected;
  NativeDomain* self = DomainArg(info, "setMaxSpeed", &rejected);
  if (self == nullptr) return rejected;
  auto mib = static_cast<unsigned long>(info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : 0);
  return self->Run(info, [mib](virDomainPtr d) -> Builder {
    if (virDomainMigrateSetMaxSpeed(d, mib, 0) < 0) ThrowLastError("cannot set the migration bandwidth");
    return nullptr;
  });
}

}  // namespace

Napi::Object DefineMigration(Napi::Env env) {
  Napi::Object m = Napi::Object::New(env);
  m.Set("migrateToURI3", Napi::Function::New(env, MigrateToURI3, "migrateToURI3"));
  m.Set("getJobStats", Napi::Function::New(env, GetJobStats, "getJobStats"));
  m.Set("abortJob", Napi::Function::New(env, AbortJob, "abortJob"));
  m.Set("startPostCopy", Napi::Function::New(env, StartPostCopy, "startPostCopy"));
  m.Set("setMaxDowntime", Napi::Function::New(env, SetMaxDowntime, "setMaxDowntime"));
  m.Set("setMaxSpeed", Napi::Function::New(env, SetMaxSpeed, "setMaxSpeed"));
  return m;
}

}  // namespace vlt
