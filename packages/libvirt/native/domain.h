// NativeDomain: the JS object owning one virDomainPtr reference. Freed by free(), by its
// connection's close(), or by the GC finalizer, whichever comes first.
#pragma once

#include <napi.h>

#include <memory>

#include "handles.h"
#include "worker.h"

namespace vlt {

class NativeDomain : public Napi::ObjectWrap<NativeDomain> {
 public:
  static Napi::Function Define(Napi::Env env);
  // JS thread: wraps `ref` (taking its libvirt reference) into a new JS object.
  static Napi::Value Wrap(Napi::Env env, const std::shared_ptr<ConnState>& state, const std::shared_ptr<DomRef>& ref);

  explicit NativeDomain(const Napi::CallbackInfo& info);
  ~NativeDomain() override;
  // Returns the owned reference (for the connection's close to free off the JS thread).
  virDomainPtr Detach();

  using DomWork = std::function<Builder(virDomainPtr)>;
  // Runs `work` on this domain off the JS thread (public so calls kept in their own files, e.g.
  // dirtyrate.cc, can use it); rejects with INVALID_DOMAIN once the handle is freed.
  Napi::Value Run(const Napi::CallbackInfo& info, DomWork work);

 private:

  Napi::Value Name(const Napi::CallbackInfo& info);
  Napi::Value UUID(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);
  Napi::Value Create(const Napi::CallbackInfo& info);
  Napi::Value Shutdown(const Napi::CallbackInfo& info);
  Napi::Value Destroy(const Napi::CallbackInfo& info);
  Napi::Value Undefine(const Napi::CallbackInfo& info);
  Napi::Value Suspend(const Napi::CallbackInfo& info);
  Napi::Value Resume(const Napi::CallbackInfo& info);
  Napi::Value Reset(const Napi::CallbackInfo& info);
  Napi::Value Reboot(const Napi::CallbackInfo& info);
  Napi::Value GetState(const Napi::CallbackInfo& info);
  Napi::Value GetInfo(const Napi::CallbackInfo& info);
  Napi::Value GetXMLDesc(const Napi::CallbackInfo& info);
  Napi::Value GetStats(const Napi::CallbackInfo& info);
  Napi::Value AttachDevice(const Napi::CallbackInfo& info);
  Napi::Value DetachDevice(const Napi::CallbackInfo& info);
  Napi::Value QemuAgentCommand(const Napi::CallbackInfo& info);

  virDomainPtr dom_ = nullptr;
  std::string name_;
  std::string uuid_;
  std::shared_ptr<ConnState> state_;
};

}  // namespace vlt
