// Guest-agent calls of a domain (guest info, filesystem freeze/thaw, guest time, authorized SSH keys). Like
// runtime.cc they are added to NativeDomain's prototype, so the TypeScript face sees ordinary domain methods.
#pragma once

#include <napi.h>

namespace vlt {

void RegisterAgentMethods(Napi::Env env, Napi::Function domainCtor);

}  // namespace vlt
