// Module entry: silences libvirt's default stderr error printer (errors reach JS as LibvirtError
// instead), starts the event loop thread and exports the two classes plus connect().
#include <napi.h>

#include "agent.h"
#include "connection.h"
#include "dirtyrate.h"
#include "disk_errors.h"
#include "domain.h"
#include "events.h"
#include "migration.h"
#include "runtime.h"

namespace {

void IgnoreError(void*, virErrorPtr) {}

Napi::Value Counts(const Napi::CallbackInfo& info) {
  Napi::Object obj = Napi::Object::New(info.Env());
  obj.Set("domainRefs", static_cast<double>(vlt::HandleCounts::domainRefs.load()));
  obj.Set("domainObjects", static_cast<double>(vlt::HandleCounts::domainObjects.load()));
  obj.Set("connections", static_cast<double>(vlt::HandleCounts::connections.load()));
  return obj;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  static std::once_flag once;
  std::call_once(once, [] {
    virInitialize();
    virSetErrorFunc(nullptr, IgnoreError);
  });
  vlt::StartEventLoop();
  auto* data = new vlt::AddonData();
  Napi::Function conn = vlt::NativeConnection::Define(env);
  Napi::Function dom = vlt::NativeDomain::Define(env);
  data->connectionCtor = Napi::Persistent(conn);
  data->domainCtor = Napi::Persistent(dom);
  vlt::RegisterAgentMethods(env, dom);
  vlt::RegisterRuntimeMethods(env, dom);
  env.SetInstanceData<vlt::AddonData>(data);
  exports.Set("NativeConnection", conn);
  exports.Set("NativeDomain", dom);
  exports.Set("handleCounts", Napi::Function::New(env, Counts, "handleCounts"));
  exports.Set("startDirtyRateCalc", Napi::Function::New(env, vlt::StartDirtyRateCalc, "startDirtyRateCalc"));
  exports.Set("migration", vlt::DefineMigration(env));
  exports.Set("getDiskErrors", Napi::Function::New(env, vlt::GetDiskErrors, "getDiskErrors"));
  exports.Set("connect", Napi::Function::New(env, vlt::NativeConnection::Connect, "connect"));
  return exports;
}

}  // namespace

NODE_API_MODULE(virt_native, Init)
