// A UDP socket pinned to one network device (SO_BINDTODEVICE), driven by libuv's poll on the Node main loop.
// Node's dgram cannot bind to a device; without it a broadcast reply follows the pod's default route, which on a
// launcher pod is eth0, not the bridge the guest sits on. Polling on the main loop (instead of a reader thread
// plus a thread-safe function) keeps every callback on the JS thread and needs no locking.
#include <napi.h>
#include <uv.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <net/if.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr size_t kMaxDatagram = 65536;
// Bounded so a flood cannot starve the rest of the event loop within one wake-up.
constexpr int kMaxReadsPerWake = 64;

Napi::Error SysError(Napi::Env env, const char* syscall, int err) {
  std::string msg = std::string(syscall) + ": " + std::strerror(err);
  Napi::Error e = Napi::Error::New(env, msg);
  e.Set("syscall", Napi::String::New(env, syscall));
  e.Set("errno", Napi::Number::New(env, err));
  return e;
}

class BoundUdpSocket : public Napi::ObjectWrap<BoundUdpSocket> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(env, "BoundUdpSocket",
                                     {InstanceMethod("send", &BoundUdpSocket::Send),
                                      InstanceMethod("close", &BoundUdpSocket::Close),
                                      InstanceMethod("ifindex", &BoundUdpSocket::IfIndex)});
    exports.Set("BoundUdpSocket", cls);
    return exports;
  }

  // new BoundUdpSocket(family: 4|6, ifname: string, port: number, onMessage: (buf, addr, port, scopeId) => void,
  //                    joinGroup?: string)
  BoundUdpSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BoundUdpSocket>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 4 || !info[0].IsNumber() || !info[1].IsString() || !info[2].IsNumber() ||
        !info[3].IsFunction()) {
      Napi::TypeError::New(env, "BoundUdpSocket(family, ifname, port, onMessage[, joinGroup])")
          .ThrowAsJavaScriptException();
      return;
    }
    family_ = info[0].As<Napi::Number>().Int32Value() == 6 ? AF_INET6 : AF_INET;
    std::string ifname = info[1].As<Napi::String>().Utf8Value();
    int port = info[2].As<Napi::Number>().Int32Value();
    on_message_ = Napi::Persistent(info[3].As<Napi::Function>());

    ifindex_ = if_nametoindex(ifname.c_str());
    if (ifindex_ == 0) {
      SysError(env, "if_nametoindex", errno).ThrowAsJavaScriptException();
      return;
    }
    fd_ = socket(family_, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
      SysError(env, "socket", errno).ThrowAsJavaScriptException();
      return;
    }
    int one = 1;
    // SO_REUSEADDR lets a second server (another bridge of the same pod) bind the same port on its own device.
    if (setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) { Fail(env, "setsockopt(SO_REUSEADDR)"); return; }
    if (family_ == AF_INET && setsockopt(fd_, SOL_SOCKET, SO_BROADCAST, &one, sizeof one) < 0) {
      Fail(env, "setsockopt(SO_BROADCAST)");
      return;
      }
    if (family_ == AF_INET6 && setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0) {
      Fail(env, "setsockopt(IPV6_V6ONLY)");
      return;
      }
    // A larger receive queue rides out bursts (a guest flood, a slow moment of the event loop) without losing
    // the one REQUEST that matters; the kernel caps it at net.core.rmem_max.
    int rcvbuf = 1 << 20;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (setsockopt(fd_, SOL_SOCKET, SO_BINDTODEVICE, ifname.c_str(), ifname.size()) < 0) {
      Fail(env, "setsockopt(SO_BINDTODEVICE)");
      return;
      }

    if (family_ == AF_INET) {
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(port);
      sa.sin_addr.s_addr = htonl(INADDR_ANY);
      if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) { Fail(env, "bind"); return; }
    } else {
      sockaddr_in6 sa{};
      sa.sin6_family = AF_INET6;
      sa.sin6_port = htons(port);
      sa.sin6_addr = in6addr_any;
      if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) { Fail(env, "bind"); return; }
      if (info.Length() >= 5 && info[4].IsString()) {
        ipv6_mreq mreq{};
        std::string group = info[4].As<Napi::String>().Utf8Value();
        if (inet_pton(AF_INET6, group.c_str(), &mreq.ipv6mr_multiaddr) != 1) {
          close(fd_);
          fd_ = -1;
          Napi::TypeError::New(env, "invalid IPv6 group " + group).ThrowAsJavaScriptException();
          return;
        }
        mreq.ipv6mr_interface = ifindex_;
        if (setsockopt(fd_, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mreq, sizeof mreq) < 0) {
          Fail(env, "setsockopt(IPV6_JOIN_GROUP)");
          return;
          }
      }
    }

    uv_loop_t* loop = nullptr;
    napi_get_uv_event_loop(env, &loop);
    poll_ = new uv_poll_t;
    poll_->data = this;
    uv_poll_init(loop, poll_, fd_);
    uv_poll_start(poll_, UV_READABLE, OnReadable);
    // The poll keeps the process alive; the JS object must outlive it, so hold a strong reference until close().
    Ref();
  }

  ~BoundUdpSocket() override { Shutdown(); }

 private:
  void Fail(Napi::Env env, const char* syscall) {
    int err = errno;
    close(fd_);
    fd_ = -1;
    SysError(env, syscall, err).ThrowAsJavaScriptException();
  }

  static void OnReadable(uv_poll_t* handle, int status, int /*events*/) {
    auto* self = static_cast<BoundUdpSocket*>(handle->data);
    if (status < 0 || self->fd_ < 0) return;
    self->Drain();
  }

  void Drain() {
    Napi::Env env = Env();
    for (int i = 0; i < kMaxReadsPerWake && fd_ >= 0; i++) {
      sockaddr_storage from{};
      socklen_t fromlen = sizeof from;
      ssize_t n = recvfrom(fd_, buffer_, sizeof buffer_, 0, reinterpret_cast<sockaddr*>(&from), &fromlen);
      if (n < 0) return;  // EAGAIN ends the batch; other errors are transient for UDP (e.g. ICMP-induced).
      char addr[INET6_ADDRSTRLEN] = {0};
      int port = 0;
      uint32_t scope = 0;
      if (from.ss_family == AF_INET) {
        auto* s = reinterpret_cast<sockaddr_in*>(&from);
        inet_ntop(AF_INET, &s->sin_addr, addr, sizeof addr);
        port = ntohs(s->sin_port);
      } else if (from.ss_family == AF_INET6) {
        auto* s = reinterpret_cast<sockaddr_in6*>(&from);
        inet_ntop(AF_INET6, &s->sin6_addr, addr, sizeof addr);
        port = ntohs(s->sin6_port);
        scope = s->sin6_scope_id;
      }
      Napi::HandleScope scope_guard(env);
      Napi::Buffer<uint8_t> buf = Napi::Buffer<uint8_t>::Copy(env, buffer_, static_cast<size_t>(n));
      // MakeCallback (not Call) so promise jobs queued by the handler run right after it, as for any libuv callback.
      on_message_.MakeCallback(Value(), {buf, Napi::String::New(env, addr), Napi::Number::New(env, port),
                                         Napi::Number::New(env, scope)});
      if (env.IsExceptionPending()) {
        // The JS side catches everything; an escaped exception must still not take the server down.
        Napi::Error e = env.GetAndClearPendingException();
        fprintf(stderr, "virt_dhcp_socket: handler threw: %s\n", e.Message().c_str());
      }
    }
  }

  // send(buf, addr, port, scopeId?) -> bytes sent; throws on failure.
  Napi::Value Send(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (fd_ < 0) {
      Napi::Error::New(env, "socket is closed").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (info.Length() < 3 || !info[0].IsBuffer() || !info[1].IsString() || !info[2].IsNumber()) {
      Napi::TypeError::New(env, "send(buf, addr, port[, scopeId])").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto buf = info[0].As<Napi::Buffer<uint8_t>>();
    std::string addr = info[1].As<Napi::String>().Utf8Value();
    int port = info[2].As<Napi::Number>().Int32Value();
    sockaddr_storage to{};
    socklen_t tolen = 0;
    if (family_ == AF_INET) {
      auto* s = reinterpret_cast<sockaddr_in*>(&to);
      s->sin_family = AF_INET;
      s->sin_port = htons(port);
      if (inet_pton(AF_INET, addr.c_str(), &s->sin_addr) != 1) {
        Napi::TypeError::New(env, "invalid IPv4 address " + addr).ThrowAsJavaScriptException();
        return env.Undefined();
      }
      tolen = sizeof *s;
    } else {
      auto* s = reinterpret_cast<sockaddr_in6*>(&to);
      s->sin6_family = AF_INET6;
      s->sin6_port = htons(port);
      if (inet_pton(AF_INET6, addr.c_str(), &s->sin6_addr) != 1) {
        Napi::TypeError::New(env, "invalid IPv6 address " + addr).ThrowAsJavaScriptException();
        return env.Undefined();
      }
      s->sin6_scope_id = info.Length() >= 4 && info[3].IsNumber() ? info[3].As<Napi::Number>().Uint32Value() : 0;
      if (s->sin6_scope_id == 0) s->sin6_scope_id = ifindex_;
      tolen = sizeof *s;
    }
    ssize_t n = sendto(fd_, buf.Data(), buf.Length(), 0, reinterpret_cast<sockaddr*>(&to), tolen);
    if (n < 0) {
      SysError(env, "sendto", errno).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    return Napi::Number::New(env, static_cast<double>(n));
  }

  Napi::Value IfIndex(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), ifindex_); }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    bool was_open = fd_ >= 0;
    Shutdown();
    if (was_open) Unref();
    return info.Env().Undefined();
  }

  void Shutdown() {
    if (poll_ != nullptr) {
      uv_poll_stop(poll_);
      uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
      poll_ = nullptr;
    }
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
  }

  int family_ = AF_INET;
  int fd_ = -1;
  unsigned ifindex_ = 0;
  uv_poll_t* poll_ = nullptr;
  Napi::FunctionReference on_message_;
  uint8_t buffer_[kMaxDatagram];
};

}  // namespace

Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return BoundUdpSocket::Init(env, exports); }

NODE_API_MODULE(virt_dhcp_socket, InitModule)
