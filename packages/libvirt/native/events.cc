#include "events.h"

#include <thread>

#include "worker.h"

namespace vlt {

std::shared_ptr<EventSink> EventSink::Create(Napi::Env env, Napi::Function fn) {
  auto sink = std::make_shared<EventSink>();
  // The finalizer runs when the function is released or when the environment is torn down; either
  // way Emit must stop touching it from then on.
  auto* weak = new std::weak_ptr<EventSink>(sink);
  sink->tsfn_ = Napi::ThreadSafeFunction::New(env, fn, "libvirt-events", 0, 1, weak, Finalized, static_cast<void*>(nullptr));
  return sink;
}

void EventSink::Finalized(Napi::Env, void*, std::weak_ptr<EventSink>* self) {
  if (auto sink = self->lock()) {
    std::lock_guard<std::mutex> lock(sink->mu_);
    sink->stopped_ = true;
  }
  delete self;
}

void EventSink::Emit(std::unique_ptr<EventData> data) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  EventData* raw = data.release();
  napi_status status = tsfn_.NonBlockingCall(raw, [](Napi::Env env, Napi::Function fn, EventData* ev) {
    std::unique_ptr<EventData> owned(ev);
    if (env == nullptr || fn.IsEmpty()) return;
    // Exceptions must not leave this C callback: JS refusing to run while the environment is torn down
    // would otherwise abort the process. (Listener errors are rethrown by the TypeScript side.)
    try {
      Napi::Object payload = Napi::Object::New(env);
      payload.Set("name", ev->name);
      payload.Set("uuid", ev->uuid);
      payload.Set("first", ev->first);
      payload.Set("second", ev->second);
      payload.Set("text", ev->text);
      payload.Set("number", ev->number);
      payload.Set("params", ValuesToJs(env, ev->params));
      fn.Call({Napi::String::New(env, ev->kind), payload});
    } catch (const Napi::Error&) {
    }
  });
  if (status != napi_ok) delete raw;
}

void EventSink::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  stopped_ = true;
  tsfn_.Release();
}

void EventSink::Ref(Napi::Env env) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stopped_) tsfn_.Ref(env);
}

void EventSink::Unref(Napi::Env env) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stopped_) tsfn_.Unref(env);
}

namespace {

// Each registration owns one heap copy of the shared pointer; libvirt frees it through FreeSink
// when the callback is deregistered or the connection goes away.
using SinkHandle = std::shared_ptr<EventSink>;

void FreeSink(void* opaque) { delete static_cast<SinkHandle*>(opaque); }

std::unique_ptr<EventData> NewEvent(const char* kind, virDomainPtr dom) {
  auto ev = std::make_unique<EventData>();
  ev->kind = kind;
  const char* name = virDomainGetName(dom);
  if (name != nullptr) ev->name = name;
  char uuid[VIR_UUID_STRING_BUFLEN];
  if (virDomainGetUUIDString(dom, uuid) == 0) ev->uuid = uuid;
  return ev;
}

int OnLifecycle(virConnectPtr, virDomainPtr dom, int event, int detail, void* opaque) {
  auto ev = NewEvent("lifecycle", dom);
  ev->first = event;
  ev->second = detail;
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
  return 0;
}

void OnReboot(virConnectPtr, virDomainPtr dom, void* opaque) {
  (*static_cast<SinkHandle*>(opaque))->Emit(NewEvent("reboot", dom));
}

void OnDeviceRemoved(virConnectPtr, virDomainPtr dom, const char* alias, void* opaque) {
  auto ev = NewEvent("deviceRemoved", dom);
  ev->text = alias != nullptr ? alias : "";
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

void OnDeviceAdded(virConnectPtr, virDomainPtr dom, const char* alias, void* opaque) {
  auto ev = NewEvent("deviceAdded", dom);
  ev->text = alias != nullptr ? alias : "";
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

void OnAgentLifecycle(virConnectPtr, virDomainPtr dom, int state, int reason, void* opaque) {
  auto ev = NewEvent("agentLifecycle", dom);
  ev->first = state;
  ev->second = reason;
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

void OnMemoryDeviceSizeChange(virConnectPtr, virDomainPtr dom, const char* alias, unsigned long long size, void* opaque) {
  auto ev = NewEvent("memoryDeviceSizeChange", dom);
  ev->text = alias != nullptr ? alias : "";
  ev->number = static_cast<double>(size);
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

void OnJobCompleted(virConnectPtr, virDomainPtr dom, virTypedParameterPtr params, int nparams, void* opaque) {
  auto ev = NewEvent("jobCompleted", dom);
  for (int i = 0; i < nparams; ++i) ev->params.push_back(CopyParam(params[i]));
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

// I/O error with its reason (QEMU's `enospc`, or an errno-like text): `text` is the device alias, `first`
// the action libvirt took (virDomainEventIOErrorAction: pause, report, ...), params carry path and reason.
void OnIOErrorReason(virConnectPtr, virDomainPtr dom, const char* srcPath, const char* devAlias, int action,
                     const char* reason, void* opaque) {
  auto ev = NewEvent("ioError", dom);
  ev->text = devAlias != nullptr ? devAlias : "";
  ev->first = action;
  StatValue path;
  path.field = "srcPath";
  path.type = VIR_TYPED_PARAM_STRING;
  path.text = srcPath != nullptr ? srcPath : "";
  ev->params.push_back(path);
  StatValue why;
  why.field = "reason";
  why.type = VIR_TYPED_PARAM_STRING;
  why.text = reason != nullptr ? reason : "";
  ev->params.push_back(why);
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

void OnClose(virConnectPtr, int reason, void* opaque) {
  auto ev = std::make_unique<EventData>();
  ev->kind = "close";
  ev->first = reason;
  (*static_cast<SinkHandle*>(opaque))->Emit(std::move(ev));
}

struct Registration {
  int id;
  virConnectDomainEventGenericCallback cb;
};

}  // namespace

void RegisterEvents(virConnectPtr conn, const std::shared_ptr<EventSink>& sink, std::vector<int>* ids) {
  const Registration regs[] = {
      {VIR_DOMAIN_EVENT_ID_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(OnLifecycle)},
      {VIR_DOMAIN_EVENT_ID_REBOOT, VIR_DOMAIN_EVENT_CALLBACK(OnReboot)},
      {VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED, VIR_DOMAIN_EVENT_CALLBACK(OnDeviceRemoved)},
      {VIR_DOMAIN_EVENT_ID_DEVICE_ADDED, VIR_DOMAIN_EVENT_CALLBACK(OnDeviceAdded)},
      {VIR_DOMAIN_EVENT_ID_AGENT_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(OnAgentLifecycle)},
      {VIR_DOMAIN_EVENT_ID_MEMORY_DEVICE_SIZE_CHANGE, VIR_DOMAIN_EVENT_CALLBACK(OnMemoryDeviceSizeChange)},
      {VIR_DOMAIN_EVENT_ID_JOB_COMPLETED, VIR_DOMAIN_EVENT_CALLBACK(OnJobCompleted)},
      {VIR_DOMAIN_EVENT_ID_IO_ERROR_REASON, VIR_DOMAIN_EVENT_CALLBACK(OnIOErrorReason)},
  };
  for (const auto& reg : regs) {
    auto* handle = new SinkHandle(sink);
    int id = virConnectDomainEventRegisterAny(conn, nullptr, reg.id, reg.cb, handle, FreeSink);
    if (id < 0) {
      delete handle;
      ThrowLastError("cannot register domain event callback");
    }
    ids->push_back(id);
  }
  // Drivers without a transport (test:///) have no close callback; that is not an error for us.
  auto* handle = new SinkHandle(sink);
  if (virConnectRegisterCloseCallback(conn, OnClose, handle, FreeSink) < 0) {
    delete handle;
    virResetLastError();
  }
}

void DeregisterEvents(virConnectPtr conn, const std::vector<int>& ids) {
  for (int id : ids) virConnectDomainEventDeregisterAny(conn, id);
  virConnectUnregisterCloseCallback(conn, OnClose);
  virResetLastError();
}

void StartEventLoop() {
  static std::once_flag once;
  std::call_once(once, [] {
    virEventRegisterDefaultImpl();
    // Detached on purpose: it only waits in poll(), holds no JS handle, and ends with the process.
    std::thread([] {
      for (;;) {
        if (virEventRunDefaultImpl() < 0) {
          virResetLastError();
          std::this_thread::sleep_for(std::chrono::seconds(1));
        }
      }
    }).detach();
  });
}

}  // namespace vlt
