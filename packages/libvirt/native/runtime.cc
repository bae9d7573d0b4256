#include "runtime.h"

#include <libvirt/libvirt.h>

#include <cmath>
#include <string>

#include "domain.h"
#include "worker.h"

namespace vlt {

namespace {

unsigned UintAt(const Napi::CallbackInfo& info, size_t i) {
  return info[i].IsNumber() ? info[i].As<Napi::Number>().Uint32Value() : 0;
}

NativeDomain* Self(const Napi::CallbackInfo& info) {
  return NativeDomain::Unwrap(info.This().As<Napi::Object>());
}

// blockResize(disk, size, flags): `disk` is the target (vda) or the source path; `size` is in KiB unless
// flags has VIR_DOMAIN_BLOCK_RESIZE_BYTES. A double carries sizes up to 2^53 exactly.
Napi::Value BlockResize(const Napi::CallbackInfo& info) {
  std::string disk = info[0].ToString().Utf8Value();
  double size = info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : -1;
  unsigned flags = UintAt(info, 2);
  if (!(size >= 0) || std::floor(size) != size) {
    return RejectedPromise(info.Env(), VIR_ERR_INVALID_ARG, VIR_FROM_DOM, "blockResize: size must be a whole number >= 0");
  }
  auto bytes = static_cast<unsigned long long>(size);
  return Self(info)->Run(info, [disk, bytes, flags](virDomainPtr d) -> Builder {
    if (virDomainBlockResize(d, disk.c_str(), bytes, flags) < 0) ThrowLastError("cannot resize block device");
    return nullptr;
  });
}

// setVcpus(count, flags): virDomainSetVcpusFlags (hot-plugs or unplugs vCPUs with VIR_DOMAIN_AFFECT_LIVE).
Napi::Value SetVcpus(const Napi::CallbackInfo& info) {
  unsigned count = UintAt(info, 0);
  unsigned flags = UintAt(info, 1);
  return Self(info)->Run(info, [count, flags](virDomainPtr d) -> Builder {
    if (virDomainSetVcpusFlags(d, count, flags) < 0) ThrowLastError("cannot set vCPU count");
    return nullptr;
  });
}

// updateDevice(xml, flags): virDomainUpdateDeviceFlags (link state, a virtio-mem device's requested size).
Napi::Value UpdateDevice(const Napi::CallbackInfo& info) {
  std::string xml = info[0].ToString().Utf8Value();
  unsigned flags = UintAt(info, 1);
  return Self(info)->Run(info, [xml, flags](virDomainPtr d) -> Builder {
    if (virDomainUpdateDeviceFlags(d, xml.c_str(), flags) < 0) ThrowLastError("cannot update device");
    return nullptr;
  });
}

}  // namespace

void RegisterRuntimeMethods(Napi::Env env, Napi::Function domainCtor) {
  Napi::Object proto = domainCtor.Get("prototype").As<Napi::Object>();
  proto.Set("blockResize", Napi::Function::New(env, BlockResize, "blockResize"));
  proto.Set("setVcpus", Napi::Function::New(env, SetVcpus, "setVcpus"));
  proto.Set("updateDevice", Napi::Function::New(env, UpdateDevice, "updateDevice"));
}

}  // namespace vlt
