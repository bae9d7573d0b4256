// The face of @virt-launcher/shared: Kubernetes and KubeVirt basics that several packages need the same way.
export {
  DNS1123_LABEL_MAX,
  DNS1123_SUBDOMAIN_MAX,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  isDns1123Label,
  isDns1123Subdomain,
} from './dns1123.js';
export {
  ceilValue,
  compareQuantities,
  isInteger,
  isNegative,
  parseQuantity,
  toBytes,
  type Quantity,
} from './quantity.js';
export { createLogger, silentLogger, type LogFields, type LogLevel, type Logger, type LoggerOptions } from './log.js';
export {
  bridgedNicName,
  fakeBridgeIp,
  secondaryNetworkHash,
  secondaryPodIfaceName,
  secondaryTapName,
} from './network-names.js';
export {
  buildPositionMap,
  lookupPosition,
  positionMapPath,
  PositionMapError,
  type PositionMap,
  type SourceMapV3,
} from './position-map.js';
export {
  DEFAULT_VM_CIDR,
  VmCidrError,
  formatAddress,
  hostAt,
  isGlobalUnicast,
  parseAddress,
  parseVmCidr,
  type Cidr,
  type Family,
} from './vm-cidr.js';
export {
  decodeVifCache,
  encodeVifCache,
  VIF_CACHE_ENCODE_PATH,
  VIF_CACHE_MAX_BYTES,
  VIF_CACHE_MAX_ROUTES,
  VifCacheError,
  type VifCacheAddress,
  type VifCacheDhcpConfig,
  type VifCacheRoute,
} from './kubevirt/vif-cache.js';
