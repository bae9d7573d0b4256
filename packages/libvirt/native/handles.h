// Ownership of libvirt objects. Every virConnectPtr / virDomainPtr reference taken here is released
// exactly once: by the RAII holders below (pool threads) or by the JS objects' close/free/finalizer.
#pragma once

#include <napi.h>
#include <libvirt/libvirt.h>

#include <atomic>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "events.h"

namespace vlt {

class NativeDomain;

// Live-object counters, for leak tests: every increment has exactly one matching decrement.
struct HandleCounts {
  static std::atomic<long> domainRefs;     // DomRef holders alive (queued calls, results not yet wrapped)
  static std::atomic<long> domainObjects;  // NativeDomain objects still owning a virDomainPtr
  static std::atomic<long> connections;    // NativeConnection objects still owning a virConnectPtr
};

// State shared by a connection's JS object and the domains made from it. JS thread only.
struct ConnState {
  virConnectPtr conn = nullptr;  // the JS object's own reference; null once closed
  std::unordered_set<NativeDomain*> domains;
  std::shared_ptr<EventSink> sink;
  std::vector<int> callbackIds;
};

// One extra reference on a connection, held by a queued call for its whole life.
class ConnRef {
 public:
  explicit ConnRef(virConnectPtr conn) : conn_(conn) { virConnectRef(conn_); }
  ~ConnRef() { virConnectClose(conn_); }
  ConnRef(const ConnRef&) = delete;
  ConnRef& operator=(const ConnRef&) = delete;
  virConnectPtr get() const { return conn_; }

 private:
  virConnectPtr conn_;
};

// A domain reference: either one a queued call took, or one libvirt returned and nobody owns yet.
class DomRef {
 public:
  // Adopts `dom` (a reference libvirt handed out) and caches its name and UUID (no RPC).
  explicit DomRef(virDomainPtr dom);
  static std::shared_ptr<DomRef> Take(virDomainPtr dom);  // adds a reference
  ~DomRef();
  DomRef(const DomRef&) = delete;
  DomRef& operator=(const DomRef&) = delete;
  virDomainPtr get() const { return dom_; }
  virDomainPtr release();
  const std::string& name() const { return name_; }
  const std::string& uuid() const { return uuid_; }

 private:
  virDomainPtr dom_;
  std::string name_;
  std::string uuid_;
};

// Per-environment constructors, so native code can make JS objects of its classes.
struct AddonData {
  Napi::FunctionReference connectionCtor;
  Napi::FunctionReference domainCtor;
};

}  // namespace vlt
