// The face of @virt-launcher/ephemeral-disk: everything other packages may use is exported here.
// The launcher calls these in its preStartHook; requests and results are the virtlauncher.disk.v1 types.
export * from './gen/virtlauncher/disk/v1/disk.js';
export { createWriteLayer, writeLayerPath, type WriteLayerOptions } from './write-layer.js';
export { createEmptyDisk, emptyDiskPath } from './empty-disk.js';
export { createHostDisk, planHostDiskSize, type SpacePlan } from './host-disk.js';
export { createCloudInitIso, cloudInitIsoPath } from './cloud-init.js';
export { defaultHostname } from './cloud-init-data.js';
export { createConfigIso, createSysprepIso, configIsoRequestFor, type ConfigVolumeKind } from './config-iso.js';
export {
  inspectImage,
  acceptedBackingFormat,
  clearImageFactsCache,
  DEFAULT_INSPECT_LIMITS,
  type ImageFacts,
  type InspectLimits,
} from './image.js';
export { detectIsoTool, validateIsoLabel, type IsoTool } from './iso.js';
export { validateVolumeName, validateNamespace, validateObjectName } from './names.js';
export { parseCapacity, alignDownToMiB } from './quantity.js';
export { formatLogLine, type ProgressEvent, type ProgressListener, type CallOptions } from './progress.js';
export * from './errors.js';
export { readAccessCredentialKeys } from './access-credentials.js';
export { createEmptyIso } from './empty-iso.js';
export {
  createMetricsDisk,
  writeMetrics,
  readMetricsDisk,
  metricsBody,
  METRICS_DISK_SIZE,
  MetricsDiskError,
  type Metric,
  type MetricContext,
  type MetricType,
} from './metrics-disk.js';
export { createIgnitionFile, ignitionPath, IGNITION_FILE } from './ignition.js';
