// A raw ICMPv6 socket pinned to one device, for the router advertisement sender (src/ra/). Node has no raw
// sockets. The kernel filters by ICMPv6 type (ICMP6_FILTER) so only the wanted Neighbor Discovery messages wake
// the event loop, fills in the checksum, and reports each message's IPv6 hop limit: RFC 4861 makes a receiver
// drop ND messages whose hop limit is not 255 (they did not come from the link itself).
#include <napi.h>
#include <uv.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr size_t kMaxMessage = 65536;
constexpr int kMaxReadsPerWake = 64;

Napi::Error SysError(Napi::Env env, const char* syscall, int err) {
  Napi::Error e = Napi::Error::New(env, std::string(syscall) + ": " + std::strerror(err));
  e.Set("syscall", Napi::String::New(env, syscall));
  e.Set("errno", Napi::Number::New(env, err));
  return e;
}

class Icmp6Socket : public Napi::ObjectWrap<Icmp6Socket> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(env, "Icmp6Socket",
                                     {InstanceMethod("send", &Icmp6Socket::Send),
                                      InstanceMethod("close", &Icmp6Socket::Close),
                                      InstanceMethod("ifindex", &Icmp6Socket::IfIndex)});
    exports.Set("Icmp6Socket", cls);
    return exports;
  }

  // new Icmp6Socket(ifname, types: number[], joinGroups: string[], onMessage: (buf, addr, scopeId, hopLimit) => void)
  Icmp6Socket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Icmp6Socket>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 4 || !info[0].IsString() || !info[1].IsArray() || !info[2].IsArray() ||
        !info[3].IsFunction()) {
      Napi::TypeError::New(env, "Icmp6Socket(ifname, types, joinGroups, onMessage)").ThrowAsJavaScriptException();
      return;
    }
    std::string ifname = info[0].As<Napi::String>().Utf8Value();
    on_message_ = Napi::Persistent(info[3].As<Napi::Function>());
    ifindex_ = if_nametoindex(ifname.c_str());
    if (ifindex_ == 0) {
      SysError(env, "if_nametoindex", errno).ThrowAsJavaScriptException();
      return;
    }
    fd_ = socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6);
    if (fd_ < 0) {
      SysError(env, "socket(SOCK_RAW, IPPROTO_ICMPV6)", errno).ThrowAsJavaScriptException();
      return;
    }
    icmp6_filter filter;
    ICMP6_FILTER_SETBLOCKALL(&filter);
    Napi::Array types = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < types.Length(); i++) {
      Napi::Value t = types.Get(i);
      if (t.IsNumber()) ICMP6_FILTER_SETPASS(t.As<Napi::Number>().Uint32Value() & 0xff, &filter);
    }
    if (setsockopt(fd_, IPPROTO_ICMPV6, ICMP6_FILTER, &filter, sizeof filter) < 0) {
      Fail(env, "setsockopt(ICMP6_FILTER)");
      return;
    }
    if (setsockopt(fd_, SOL_SOCKET, SO_BINDTODEVICE, ifname.c_str(), ifname.size()) < 0) {
      Fail(env, "setsockopt(SO_BINDTODEVICE)");
      return;
    }
    int hops = 255;
    int one = 1;
    int zero = 0;
    // ND messages must leave with hop limit 255 (RFC 4861 §4), and we want to read the one of each arrival.
    if (setsockopt(fd_, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof hops) < 0 ||
        setsockopt(fd_, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof hops) < 0 ||
        setsockopt(fd_, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof one) < 0 ||
        setsockopt(fd_, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex_, sizeof ifindex_) < 0 ||
        // Our own advertisements must not come back to us as input.
        setsockopt(fd_, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero, sizeof zero) < 0) {
      Fail(env, "setsockopt(IPV6 hops/pktinfo)");
      return;
    }
    Napi::Array groups = info[2].As<Napi::Array>();
    for (uint32_t i = 0; i < groups.Length(); i++) {
      Napi::Value g = groups.Get(i);
      if (!g.IsString()) continue;
      ipv6_mreq mreq{};
      std::string text = g.As<Napi::String>().Utf8Value();
      if (inet_pton(AF_INET6, text.c_str(), &mreq.ipv6mr_multiaddr) != 1) {
        close(fd_);
        fd_ = -1;
        Napi::TypeError::New(env, "invalid IPv6 group " + text).ThrowAsJavaScriptException();
        return;
      }
      mreq.ipv6mr_interface = ifindex_;
      if (setsockopt(fd_, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mreq, sizeof mreq) < 0) {
        Fail(env, "setsockopt(IPV6_JOIN_GROUP)");
        return;
      }
    }
    uv_loop_t* loop = nullptr;
    napi_get_uv_event_loop(env, &loop);
    poll_ = new uv_poll_t;
    poll_->data = this;
    uv_poll_init(loop, poll_, fd_);
    uv_poll_start(poll_, UV_READABLE, OnReadable);
    Ref();
  }

  ~Icmp6Socket() override { Shutdown(); }

 private:
  void Fail(Napi::Env env, const char* syscall) {
    int err = errno;
    close(fd_);
    fd_ = -1;
    SysError(env, syscall, err).ThrowAsJavaScriptException();
  }

  static void OnReadable(uv_poll_t* handle, int status, int /*events*/) {
    auto* self = static_cast<Icmp6Socket*>(handle->data);
    if (status < 0 || self->fd_ < 0) return;
    self->Drain();
  }

  void Drain() {
    Napi::Env env = Env();
    for (int i = 0; i < kMaxReadsPerWake && fd_ >= 0; i++) {
      sockaddr_in6 from{};
      iovec iov{buffer_, sizeof buffer_};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
      msghdr msg{};
      msg.msg_name = &from;
      msg.msg_namelen = sizeof from;
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t n = recvmsg(fd_, &msg, 0);
      if (n < 0) return;
      int hop_limit = -1;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT) std::memcpy(&hop_limit, CMSG_DATA(c), sizeof hop_limit);
      }
      char addr[INET6_ADDRSTRLEN] = {0};
      inet_ntop(AF_INET6, &from.sin6_addr, addr, sizeof addr);
      Napi::HandleScope scope_guard(env);
      Napi::Buffer<uint8_t> buf = Napi::Buffer<uint8_t>::Copy(env, buffer_, static_cast<size_t>(n));
      on_message_.MakeCallback(Value(), {buf, Napi::String::New(env, addr), Napi::Number::New(env, from.sin6_scope_id),
                                         Napi::Number::New(env, hop_limit)});
      if (env.IsExceptionPending()) {
        Napi::Error e = env.GetAndClearPendingException();
        fprintf(stderr, "virt_dhcp_icmp6: handler threw: %s\n", e.Message().c_str());
      }
    }
  }

  // send(buf, addr) -> bytes sent; the scope is always this socket's device.
  Napi::Value Send(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (fd_ < 0) {
      Napi::Error::New(env, "socket is closed").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (info.Length() < 2 || !info[0].IsBuffer() || !info[1].IsString()) {
      Napi::TypeError::New(env, "send(buf, addr)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto buf = info[0].As<Napi::Buffer<uint8_t>>();
    std::string addr = info[1].As<Napi::String>().Utf8Value();
    sockaddr_in6 to{};
    to.sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, addr.c_str(), &to.sin6_addr) != 1) {
      Napi::TypeError::New(env, "invalid IPv6 address " + addr).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    to.sin6_scope_id = ifindex_;
    ssize_t n = sendto(fd_, buf.Data(), buf.Length(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
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

  int fd_ = -1;
  unsigned ifindex_ = 0;
  uv_poll_t* poll_ = nullptr;
  Napi::FunctionReference on_message_;
  uint8_t buffer_[kMaxMessage];
};

}  // namespace

Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return Icmp6Socket::Init(env, exports); }

NODE_API_MODULE(virt_dhcp_icmp6, InitModule)
