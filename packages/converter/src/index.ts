// The face of @virt-launcher/converter: everything other packages may use is exported here.
export { convert, CONFIGURATORS } from './builder.js';
export { toDomainXml } from './xml/domain-xml.js';
export { parseVmi, type ParseOptions } from './vmi/parse.js';
export { convertRequest } from './request.js';
export { hostContextDefaults, withDefaults, defaultPodInterfaces } from './context/host.js';
export { crossArchEmulator } from './context/cross-arch.js';
export { DEFAULT_PATHS, resolvePaths, type ResolvedPaths } from './context/paths.js';
export { ConversionError } from './errors.js';
export type { Domain } from './domain/types.js';
export type * as DomainTypes from './domain/types.js';
export type { VirtualMachineInstance } from './vmi/types.js';
export type * as VmiTypes from './vmi/types.js';
export {
  ConverterContext,
  ConvertRequest,
  ConvertResponse,
  Paths,
  PodInterface,
  DiskInfo,
  SMBios,
  EfiConfiguration,
  HostDevice,
  VolumeStatus,
} from './gen/virtlauncher/converter/v1/converter.js';
