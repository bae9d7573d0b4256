// Live migration calls (virDomainMigrateToURI3 and the job calls around it): free functions taking a
// NativeDomain, so the domain class stays untouched by this feature.
#pragma once

#include <napi.h>

namespace vlt {

// JS: migration.migrateToURI3(domain, destUri, params, flags): Promise<void>. The call blocks for the whole
// migration, so it runs on a thread of its own instead of the libuv pool (other calls keep their threads).
// params: { uri, destName, destXml, persistXml, bandwidthMiB, migrateDisks: string[], disksUri,
//           parallelConnections, compression } (every field optional).
// JS: migration.getJobStats(domain, flags): Promise<{ type: number, stats: Record<string, number|string|boolean> }>
// JS: migration.abortJob(domain), startPostCopy(domain), setMaxDowntime(domain, ms), setMaxSpeed(domain, MiBps)
Napi::Object DefineMigration(Napi::Env env);

}  // namespace vlt
