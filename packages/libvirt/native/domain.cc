#include "domain.h"

#include <libvirt/libvirt-qemu.h>

#include "typed_params.h"

namespace vlt {

std::atomic<long> HandleCounts::domainRefs{0};
std::atomic<long> HandleCounts::domainObjects{0};
std::atomic<long> HandleCounts::connections{0};

DomRef::DomRef(virDomainPtr dom) : dom_(dom) {
  HandleCounts::domainRefs++;
  const char* name = virDomainGetName(dom);
  if (name != nullptr) name_ = name;
  char uuid[VIR_UUID_STRING_BUFLEN];
  if (virDomainGetUUIDString(dom, uuid) == 0) uuid_ = uuid;
}

std::shared_ptr<DomRef> DomRef::Take(virDomainPtr dom) {
  virDomainRef(dom);
  return std::make_shared<DomRef>(dom);
}

DomRef::~DomRef() {
  HandleCounts::domainRefs--;
  if (dom_ != nullptr) virDomainFree(dom_);
}

virDomainPtr DomRef::release() {
  virDomainPtr dom = dom_;
  dom_ = nullptr;
  return dom;
}

namespace {

unsigned FlagsAt(const Napi::CallbackInfo& info, size_t i) {
  return info[i].IsNumber() ? info[i].As<Napi::Number>().Uint32Value() : 0;
}

Builder Done() { return nullptr; }

void Check(int rc, const char* what) {
  if (rc < 0) ThrowLastError(what);
}

}  // namespace

Napi::Function NativeDomain::Define(Napi::Env env) {
  return DefineClass(env, "NativeDomain",
                     {
                         InstanceAccessor<&NativeDomain::Name>("name"),
                         InstanceAccessor<&NativeDomain::UUID>("uuid"),
                         InstanceMethod<&NativeDomain::Free>("free"),
                         InstanceMethod<&NativeDomain::Create>("create"),
                         InstanceMethod<&NativeDomain::Shutdown>("shutdown"),
                         InstanceMethod<&NativeDomain::Destroy>("destroy"),
                         InstanceMethod<&NativeDomain::Undefine>("undefine"),
                         InstanceMethod<&NativeDomain::Suspend>("suspend"),
                         InstanceMethod<&NativeDomain::Resume>("resume"),
                         InstanceMethod<&NativeDomain::Reset>("reset"),
                         InstanceMethod<&NativeDomain::Reboot>("reboot"),
                         InstanceMethod<&NativeDomain::GetState>("getState"),
                         InstanceMethod<&NativeDomain::GetInfo>("getInfo"),
                         InstanceMethod<&NativeDomain::GetXMLDesc>("getXMLDesc"),
                         InstanceMethod<&NativeDomain::GetStats>("getStats"),
                         InstanceMethod<&NativeDomain::AttachDevice>("attachDevice"),
                         InstanceMethod<&NativeDomain::DetachDevice>("detachDevice"),
                         InstanceMethod<&NativeDomain::QemuAgentCommand>("qemuAgentCommand"),
                     });
}

Napi::Value NativeDomain::Wrap(Napi::Env env, const std::shared_ptr<ConnState>& state, const std::shared_ptr<DomRef>& ref) {
  Napi::Object obj = env.GetInstanceData<AddonData>()->domainCtor.New({});
  NativeDomain* self = Unwrap(obj);
  self->name_ = ref->name();
  self->uuid_ = ref->uuid();
  self->state_ = state;
  // A connection closed while the call was in flight: the handle is freed (by ~DomRef) and the
  // object stays unusable, like any domain of a closed connection.
  if (state->conn != nullptr) {
    self->dom_ = ref->release();
    HandleCounts::domainObjects++;
    state->domains.insert(self);
  }
  return obj;
}

NativeDomain::NativeDomain(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeDomain>(info) {}

NativeDomain::~NativeDomain() {
  if (state_) state_->domains.erase(this);
  if (dom_ != nullptr) {
    HandleCounts::domainObjects--;
    virDomainFree(dom_);
  }
}

virDomainPtr NativeDomain::Detach() {
  if (dom_ != nullptr) HandleCounts::domainObjects--;
  virDomainPtr dom = dom_;
  dom_ = nullptr;
  return dom;
}

Napi::Value NativeDomain::Run(const Napi::CallbackInfo& info, DomWork work) {
  if (dom_ == nullptr) {
    return RejectedPromise(info.Env(), VIR_ERR_INVALID_DOMAIN, VIR_FROM_DOM,
                           "domain handle of '" + name_ + "' was freed (free() or connection closed)");
  }
  auto ref = DomRef::Take(dom_);
  return PromiseWorker::Start(info.Env(), [ref, work]() { return work(ref->get()); });
}

Napi::Value NativeDomain::Name(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), name_); }
Napi::Value NativeDomain::UUID(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), uuid_); }

Napi::Value NativeDomain::Free(const Napi::CallbackInfo& info) {
  if (state_) state_->domains.erase(this);
  virDomainPtr dom = Detach();
  if (dom != nullptr) virDomainFree(dom);  // only drops a reference: the connection holds its own
  return info.Env().Undefined();
}

Napi::Value NativeDomain::Create(const Napi::CallbackInfo& info) {
  unsigned flags = FlagsAt(info, 0);
  return Run(info, [flags](virDomainPtr d) { return Check(virDomainCreateWithFlags(d, flags), "cannot start domain"), Done(); });
}

Napi::Value NativeDomain::Shutdown(const Napi::CallbackInfo& info) {
  unsigned flags = FlagsAt(info, 0);
  return Run(info, [flags](virDomainPtr d) { return Check(virDomainShutdownFlags(d, flags), "cannot shut down domain"), Done(); });
}

Napi::Value NativeDomain::Destroy(const Napi::CallbackInfo& info) {
  unsigned flags = FlagsAt(info, 0);
  return Run(info, [flags](virDomainPtr d) { return Check(virDomainDestroyFlags(d, flags), "cannot destroy domain"), Done(); });
}

Napi::Value NativeDomain::Undefine(const Napi::CallbackInfo& info) {
  unsigned flags = FlagsAt(info, 0);
  return Run(info, [flags](virDomainPtr d) { return Check(virDomainUndefineFlags(d, flags), "cannot undefine domain"), Done(); });
}

Napi::Value NativeDomain::Suspend(const Napi::CallbackInfo& info) {
  return Run(info, [](virDomainPtr d) { return Check(virDomainSuspend(d), "cannot suspend domain"), Done(); });
}

Napi::Value NativeDomain::Resume(const Napi::CallbackInfo& info) {
  return Run(info, [](virDomainPtr d) { return Check(virDomainResume(d), "cannot resume domain"), Done(); });
}

Napi::Value NativeDomain::Reset(const Napi::CallbackInfo& info) {
  return Run(info, [](virDomainPtr d) { return Check(virDomainReset(d, 0), "cannot reset domain"), Done(); });
}

Napi::Value NativeDomain::Reboot(const Napi::CallbackInfo& info) {
  unsigned flags = FlagsAt(info, 0);
  return Run(info, [flags](virDomainPtr d) { return Check(virDomainReboot(d, flags), "cannot reboot domain"), Done(); });
}

Napi::Value NativeDomain::GetState(const Napi::CallbackInfo& info) {
  return Run(info, [](virDomainPtr d) -> Builder {
    int state = 0, reason = 0;
    Check(virDomainGetState(d, &state, &reason, 0), "cannot get domain state");
    return [state, reason](Napi::Env env) -> Napi::Value {
      Napi::Object obj = Napi::Object::New(env);
      obj.Set("state", state);
      obj.Set("reason", reason);
      return obj;
    };
  });
}

Napi::Value NativeDomain::GetInfo(const Napi::CallbackInfo& info) {
  return Run(info, [](virDomainPtr d) -> Builder {
    virDomainInfo di;
    Check(virDomainGetInfo(d, &di), "cannot get domain info");
    return [di](Napi::Env env) -> Napi::Value {
      Napi::Object obj = Napi::Object::New(env);
      obj.Set("state", static_cast<double>(di.state));
      obj.Set("maxMemKiB", static_cast<double>(di.maxMem));
      obj.Set("memoryKiB", static_cast<double>(di.memory));
      obj.Set("nrVirtCpu", static_cast<double>(di.nrVirtCpu));
      obj.Set("cpuTimeNs", static_cast<double>(di.cpuTime));
      return obj;
    };
  });
}

Napi::Value NativeDomain::GetXMLDesc(const Napi::CallbackInfo& info) {
  unsigned flags = FlagsAt(info, 0);
  return Run(info, [flags](virDomainPtr d) -> Builder {
    char* xml = virDomainGetXMLDesc(d, flags);
    if (xml == nullptr) ThrowLastError("cannot get domain XML");
    std::string copy(xml);
    free(xml);
    return [copy](Napi::Env env) -> Napi::Value { return Napi::String::New(env, copy); };
  });
}

Napi::Value NativeDomain::GetStats(const Napi::CallbackInfo& info) {
  unsigned stats = FlagsAt(info, 0);
  unsigned flags = FlagsAt(info, 1);
  return Run(info, [stats, flags](virDomainPtr d) -> Builder {
    virDomainPtr doms[] = {d, nullptr};
    virDomainStatsRecordPtr* records = nullptr;
    Check(virDomainListGetStats(doms, stats, &records, flags), "cannot get domain stats");
    auto copy = std::make_shared<std::vector<StatsRecord>>(CopyStatsRecords(records));
    return [copy](Napi::Env env) -> Napi::Value { return StatsToJs(env, *copy); };
  });
}

Napi::Value NativeDomain::AttachDevice(const Napi::CallbackInfo& info) {
  std::string xml = info[0].ToString().Utf8Value();
  unsigned flags = FlagsAt(info, 1);
  return Run(info, [xml, flags](virDomainPtr d) {
    return Check(virDomainAttachDeviceFlags(d, xml.c_str(), flags), "cannot attach device"), Done();
  });
}

Napi::Value NativeDomain::DetachDevice(const Napi::CallbackInfo& info) {
  std::string xml = info[0].ToString().Utf8Value();
  unsigned flags = FlagsAt(info, 1);
  return Run(info, [xml, flags](virDomainPtr d) {
    return Check(virDomainDetachDeviceFlags(d, xml.c_str(), flags), "cannot detach device"), Done();
  });
}

Napi::Value NativeDomain::QemuAgentCommand(const Napi::CallbackInfo& info) {
  std::string cmd = info[0].ToString().Utf8Value();
  int timeout = info[1].IsNumber() ? info[1].As<Napi::Number>().Int32Value() : VIR_DOMAIN_QEMU_AGENT_COMMAND_DEFAULT;
  return Run(info, [cmd, timeout](virDomainPtr d) -> Builder {
    char* reply = virDomainQemuAgentCommand(d, cmd.c_str(), timeout, 0);
    if (reply == nullptr) ThrowLastError("guest agent command failed");
    std::string copy(reply);
    free(reply);
    return [copy](Napi::Env env) -> Napi::Value { return Napi::String::New(env, copy); };
  });
}

}  // namespace vlt
