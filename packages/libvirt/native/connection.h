// NativeConnection: the JS object owning one virConnectPtr, its event callbacks and its domains.
#pragma once

#include <napi.h>

#include <memory>

#include "handles.h"
#include "worker.h"

namespace vlt {

class NativeConnection : public Napi::ObjectWrap<NativeConnection> {
 public:
  static Napi::Function Define(Napi::Env env);
  // connect(uri, readOnly, keepAliveInterval, keepAliveCount, onEvent) -> Promise<NativeConnection>
  static Napi::Value Connect(const Napi::CallbackInfo& info);

  explicit NativeConnection(const Napi::CallbackInfo& info);
  ~NativeConnection() override;

 private:
  using ConnWork = std::function<Builder(virConnectPtr)>;
  Napi::Value Run(const Napi::CallbackInfo& info, ConnWork work);
  // Frees everything this object owns; the blocking part runs on a pool thread when possible.
  Napi::Value CloseAll(Napi::Env env, bool async);

  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value Ref(const Napi::CallbackInfo& info);
  Napi::Value Unref(const Napi::CallbackInfo& info);
  Napi::Value IsAlive(const Napi::CallbackInfo& info);
  Napi::Value GetLibVersion(const Napi::CallbackInfo& info);
  Napi::Value GetVersion(const Napi::CallbackInfo& info);
  Napi::Value GetHostname(const Napi::CallbackInfo& info);
  Napi::Value GetCapabilities(const Napi::CallbackInfo& info);
  Napi::Value ListAllDomains(const Napi::CallbackInfo& info);
  Napi::Value DefineXML(const Napi::CallbackInfo& info);
  Napi::Value LookupByName(const Napi::CallbackInfo& info);
  Napi::Value LookupByUUID(const Napi::CallbackInfo& info);
  Napi::Value GetAllDomainStats(const Napi::CallbackInfo& info);

  std::shared_ptr<ConnState> state_;
};

}  // namespace vlt
