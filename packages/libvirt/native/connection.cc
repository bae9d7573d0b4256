#include "connection.h"

#include "domain.h"
#include "typed_params.h"

namespace vlt {

namespace {

Builder StringBuilder(char* owned, const char* what) {
  if (owned == nullptr) ThrowLastError(what);
  std::string copy(owned);
  free(owned);
  return [copy](Napi::Env env) -> Napi::Value { return Napi::String::New(env, copy); };
}

}  // namespace

Napi::Function NativeConnection::Define(Napi::Env env) {
  return DefineClass(env, "NativeConnection",
                     {
                         InstanceMethod<&NativeConnection::Close>("close"),
                         InstanceMethod<&NativeConnection::Ref>("ref"),
                         InstanceMethod<&NativeConnection::Unref>("unref"),
                         InstanceMethod<&NativeConnection::IsAlive>("isAlive"),
                         InstanceMethod<&NativeConnection::GetLibVersion>("getLibVersion"),
                         InstanceMethod<&NativeConnection::GetVersion>("getVersion"),
                         InstanceMethod<&NativeConnection::GetHostname>("getHostname"),
                         InstanceMethod<&NativeConnection::GetCapabilities>("getCapabilities"),
                         InstanceMethod<&NativeConnection::ListAllDomains>("listAllDomains"),
                         InstanceMethod<&NativeConnection::DefineXML>("defineXML"),
                         InstanceMethod<&NativeConnection::LookupByName>("lookupByName"),
                         InstanceMethod<&NativeConnection::LookupByUUID>("lookupByUUID"),
                         InstanceMethod<&NativeConnection::GetAllDomainStats>("getAllDomainStats"),
                     });
}

NativeConnection::NativeConnection(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<NativeConnection>(info), state_(std::make_shared<ConnState>()) {}

NativeConnection::~NativeConnection() {
  // A finalizer (GC, or environment teardown with the connection still open): free synchronously.
  try {
    CloseAll(Env(), false);
  } catch (...) {
  }
}

Napi::Value NativeConnection::Connect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string uri = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
  bool readOnly = info[1].ToBoolean();
  int interval = info[2].ToNumber().Int32Value();
  unsigned count = info[3].ToNumber().Uint32Value();
  if (!info[4].IsFunction()) throw Napi::TypeError::New(env, "connect: onEvent must be a function");
  StartEventLoop();
  std::shared_ptr<EventSink> sink = EventSink::Create(env, info[4].As<Napi::Function>());
  return PromiseWorker::Start(env, [=]() -> Builder {
    virConnectPtr conn =
        virConnectOpenAuth(uri.empty() ? nullptr : uri.c_str(), virConnectAuthPtrDefault, readOnly ? VIR_CONNECT_RO : 0);
    if (conn == nullptr) {
      sink->Stop();
      ThrowLastError("cannot connect to '" + uri + "'");
    }
    // Drivers without a transport do not support keepalive; only the remote driver needs it.
    if (interval > 0 && virConnectSetKeepAlive(conn, interval, count) < 0) virResetLastError();
    auto ids = std::make_shared<std::vector<int>>();
    try {
      RegisterEvents(conn, sink, ids.get());
    } catch (...) {
      sink->Stop();
      DeregisterEvents(conn, *ids);
      virConnectClose(conn);
      throw;
    }
    return [conn, ids, sink](Napi::Env env) -> Napi::Value {
      Napi::Object obj = env.GetInstanceData<AddonData>()->connectionCtor.New({});
      NativeConnection* self = Unwrap(obj);
      self->state_->conn = conn;
      HandleCounts::connections++;
      self->state_->sink = sink;
      self->state_->callbackIds = *ids;
      return obj;
    };
  });
}

Napi::Value NativeConnection::Run(const Napi::CallbackInfo& info, ConnWork work) {
  if (state_->conn == nullptr) return RejectedPromise(info.Env(), VIR_ERR_INVALID_CONN, VIR_FROM_NONE, "connection is closed");
  auto ref = std::make_shared<ConnRef>(state_->conn);
  return PromiseWorker::Start(info.Env(), [ref, work]() { return work(ref->get()); });
}

Napi::Value NativeConnection::CloseAll(Napi::Env env, bool async) {
  virConnectPtr conn = state_->conn;
  if (conn == nullptr) {
    if (!async) return env.Undefined();
    auto deferred = Napi::Promise::Deferred::New(env);
    deferred.Resolve(env.Undefined());
    return deferred.Promise();
  }
  state_->conn = nullptr;
  HandleCounts::connections--;
  std::vector<virDomainPtr> doms;
  for (NativeDomain* d : state_->domains) {
    virDomainPtr p = d->Detach();
    if (p != nullptr) doms.push_back(p);
  }
  state_->domains.clear();
  // Stopped first: no event reaches JS after close() returns, even one already being dispatched.
  if (state_->sink) state_->sink->Stop();
  std::vector<int> ids = state_->callbackIds;
  auto job = [conn, doms, ids]() {
    DeregisterEvents(conn, ids);
    for (virDomainPtr p : doms) virDomainFree(p);
    virConnectClose(conn);
  };
  if (!async) {
    job();
    return env.Undefined();
  }
  return PromiseWorker::Start(env, [job]() -> Builder {
    job();
    return nullptr;
  });
}

Napi::Value NativeConnection::Close(const Napi::CallbackInfo& info) { return CloseAll(info.Env(), true); }

Napi::Value NativeConnection::Ref(const Napi::CallbackInfo& info) {
  if (state_->sink) state_->sink->Ref(info.Env());
  return info.Env().Undefined();
}

Napi::Value NativeConnection::Unref(const Napi::CallbackInfo& info) {
  if (state_->sink) state_->sink->Unref(info.Env());
  return info.Env().Undefined();
}

Napi::Value NativeConnection::IsAlive(const Napi::CallbackInfo& info) {
  if (state_->conn == nullptr) {
    auto deferred = Napi::Promise::Deferred::New(info.Env());
    deferred.Resolve(Napi::Boolean::New(info.Env(), false));
    return deferred.Promise();
  }
  return Run(info, [](virConnectPtr c) -> Builder {
    int alive = virConnectIsAlive(c);
    if (alive < 0) virResetLastError();
    return [alive](Napi::Env env) -> Napi::Value { return Napi::Boolean::New(env, alive == 1); };
  });
}

Napi::Value NativeConnection::GetLibVersion(const Napi::CallbackInfo& info) {
  return Run(info, [](virConnectPtr c) -> Builder {
    unsigned long version = 0;
    if (virConnectGetLibVersion(c, &version) < 0) ThrowLastError("cannot get library version");
    return [version](Napi::Env env) -> Napi::Value { return Napi::Number::New(env, static_cast<double>(version)); };
  });
}

Napi::Value NativeConnection::GetVersion(const Napi::CallbackInfo& info) {
  return Run(info, [](virConnectPtr c) -> Builder {
    unsigned long version = 0;
    if (virConnectGetVersion(c, &version) < 0) ThrowLastError("cannot get hypervisor version");
    return [version](Napi::Env env) -> Napi::Value { return Napi::Number::New(env, static_cast<double>(version)); };
  });
}

Napi::Value NativeConnection::GetHostname(const Napi::CallbackInfo& info) {
  return Run(info, [](virConnectPtr c) { return StringBuilder(virConnectGetHostname(c), "cannot get hostname"); });
}

Napi::Value NativeConnection::GetCapabilities(const Napi::CallbackInfo& info) {
  return Run(info, [](virConnectPtr c) { return StringBuilder(virConnectGetCapabilities(c), "cannot get capabilities"); });
}

Napi::Value NativeConnection::ListAllDomains(const Napi::CallbackInfo& info) {
  unsigned flags = info[0].IsNumber() ? info[0].As<Napi::Number>().Uint32Value() : 0;
  auto state = state_;
  return Run(info, [flags, state](virConnectPtr c) -> Builder {
    virDomainPtr* list = nullptr;
    int n = virConnectListAllDomains(c, &list, flags);
    if (n < 0) ThrowLastError("cannot list domains");
    auto refs = std::make_shared<std::vector<std::shared_ptr<DomRef>>>();
    for (int i = 0; i < n; ++i) refs->push_back(std::make_shared<DomRef>(list[i]));
    free(list);
    return [refs, state](Napi::Env env) -> Napi::Value {
      Napi::Array arr = Napi::Array::New(env, refs->size());
      for (size_t i = 0; i < refs->size(); ++i) arr.Set(static_cast<uint32_t>(i), NativeDomain::Wrap(env, state, (*refs)[i]));
      return arr;
    };
  });
}

namespace {

Builder DomainBuilder(virDomainPtr dom, const std::shared_ptr<ConnState>& state, const std::string& what) {
  if (dom == nullptr) ThrowLastError(what);
  auto ref = std::make_shared<DomRef>(dom);
  return [ref, state](Napi::Env env) { return NativeDomain::Wrap(env, state, ref); };
}

}  // namespace

Napi::Value NativeConnection::DefineXML(const Napi::CallbackInfo& info) {
  std::string xml = info[0].ToString().Utf8Value();
  unsigned flags = info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 0;
  auto state = state_;
  return Run(info, [xml, flags, state](virConnectPtr c) {
    return DomainBuilder(virDomainDefineXMLFlags(c, xml.c_str(), flags), state, "cannot define domain");
  });
}

Napi::Value NativeConnection::LookupByName(const Napi::CallbackInfo& info) {
  std::string name = info[0].ToString().Utf8Value();
  auto state = state_;
  return Run(info, [name, state](virConnectPtr c) {
    return DomainBuilder(virDomainLookupByName(c, name.c_str()), state, "cannot look up domain '" + name + "'");
  });
}

Napi::Value NativeConnection::LookupByUUID(const Napi::CallbackInfo& info) {
  std::string uuid = info[0].ToString().Utf8Value();
  auto state = state_;
  return Run(info, [uuid, state](virConnectPtr c) {
    return DomainBuilder(virDomainLookupByUUIDString(c, uuid.c_str()), state, "cannot look up domain " + uuid);
  });
}

Napi::Value NativeConnection::GetAllDomainStats(const Napi::CallbackInfo& info) {
  unsigned stats = info[0].IsNumber() ? info[0].As<Napi::Number>().Uint32Value() : 0;
  unsigned flags = info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 0;
  return Run(info, [stats, flags](virConnectPtr c) -> Builder {
    virDomainStatsRecordPtr* records = nullptr;
    if (virConnectGetAllDomainStats(c, stats, &records, flags) < 0) ThrowLastError("cannot get domain stats");
    auto copy = std::make_shared<std::vector<StatsRecord>>(CopyStatsRecords(records));
    return [copy](Napi::Env env) -> Napi::Value { return StatsToJs(env, *copy); };
  });
}

}  // namespace vlt
