// Domain and connection events: libvirt calls these on its default event loop thread; they are
// handed to the JS thread through one thread-safe function per connection.
#pragma once

#include <napi.h>
#include <libvirt/libvirt.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "typed_params.h"

namespace vlt {

struct EventData {
  // lifecycle | reboot | deviceAdded | deviceRemoved | agentLifecycle | memoryDeviceSizeChange | jobCompleted | ioError | close
  std::string kind;
  std::string name;
  std::string uuid;
  int first = 0;   // lifecycle event, agent state, close reason
  int second = 0;  // lifecycle detail, agent reason
  std::string text;  // device alias
  double number = 0;  // memory device size (KiB)
  std::vector<StatValue> params;  // job statistics
};

class EventSink {
 public:
  // JS thread: makes the sink and its thread-safe function calling `fn(kind, payload)`.
  static std::shared_ptr<EventSink> Create(Napi::Env env, Napi::Function fn);
  // Any thread. Dropped once stopped: the thread-safe function may already be released.
  void Emit(std::unique_ptr<EventData> data);
  // Any thread, idempotent: no event is delivered after it returns.
  void Stop();
  // JS thread only: whether a pending event keeps Node's loop alive.
  void Ref(Napi::Env env);
  void Unref(Napi::Env env);

 private:
  static void Finalized(Napi::Env env, void* data, std::weak_ptr<EventSink>* self);

  std::mutex mu_;
  bool stopped_ = false;
  Napi::ThreadSafeFunction tsfn_;
};

// Registers every domain event callback the face exposes (for all domains) and the close callback.
// Throws VirtFailure when a registration fails; ids of those that succeeded are kept in `ids`.
void RegisterEvents(virConnectPtr conn, const std::shared_ptr<EventSink>& sink, std::vector<int>* ids);
void DeregisterEvents(virConnectPtr conn, const std::vector<int>& ids);

// Starts libvirt's default event loop on its own thread (once per process). Must precede any
// connection, or the remote driver runs without keepalive and events.
void StartEventLoop();

}  // namespace vlt
