// The face of @virt-launcher/dhcp: everything other packages may use is exported here.
export { startDhcpServer, type DhcpServer, type DhcpServerOptions } from './server.js';
export { decodeDhcpPacket, encodeDhcpPacket, type DhcpPacket, BROADCAST_FLAG, MAGIC_COOKIE } from './v4/packet.js';
export { Opt as DhcpOption, MessageType as DhcpMessageType, type Options as DhcpOptions } from './v4/options.js';
export { encodeDomainSearch, decodeDomainSearch, isValidSearchDomain } from './v4/domain-search.js';
export { encodeClasslessRoutes, decodeClasslessRoutes, type ClasslessRoute } from './v4/classless-routes.js';
export { decodeDhcpv6Message, encodeDhcpv6Message, type Dhcpv6Message } from './v6/message.js';
export {
  decodeNdMessage,
  encodeRouterAdvertisement,
  encodeRouterSolicitation,
  NdType,
  RA_MANAGED,
  RA_OTHER,
  PREFIX_ON_LINK,
  PREFIX_AUTONOMOUS,
  type NdMessage,
  type RouterAdvertisement,
} from './ra/packet.js';
export { prepareRa } from './ra/prepare.js';
export type { RaStats } from './ra/server.js';
export { DhcpDecodeError, DhcpEncodeError, DhcpConfigError, DhcpSocketError } from './errors.js';
// The configuration startDhcpServer takes is DhcpServerConfig of @virt-launcher/contracts (netsetup writes it).
