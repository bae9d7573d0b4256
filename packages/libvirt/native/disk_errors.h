// Disk errors QEMU reported (virDomainGetDiskErrors): a free function taking a NativeDomain, like
// dirtyrate.h, so the domain class stays untouched by this feature.
#pragma once

#include <napi.h>

namespace vlt {

// JS: getDiskErrors(domain: NativeDomain): Promise<Array<{ disk: string, error: number }>>.
Napi::Value GetDiskErrors(const Napi::CallbackInfo& info);

}  // namespace vlt
