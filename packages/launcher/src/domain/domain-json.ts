// KubeVirt's api.Domain JSON (docs/cmd-contract.md#payloads) from the live domain XML, its state and the metadata cache:
// Go field names (Spec.Devices.Interfaces[].MAC.MAC …), TypeMeta inlined, ObjectMeta from the domain name.
import { child, children, parseXml } from '../xml/parse.js';
import type { XmlElement } from '../xml/parse.js';
import type { KubeVirtMetadata } from './metadata.js';
import { lifecycleName, reasonName } from './state.js';

type Json = Record<string, unknown>;

/** `<ns>_<name>` split at the first `_`; no `_` means namespace "default". */
export function splitDomainName(domainName: string): { namespace: string; name: string } {
  const i = domainName.indexOf('_');
  return i < 0
    ? { namespace: 'default', name: domainName }
    : { namespace: domainName.slice(0, i), name: domainName.slice(i + 1) };
}

const attr = (el: XmlElement | undefined, name: string): string | undefined => el?.attrs[name];

function withoutUndefined(obj: Json): Json {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

function alias(el: XmlElement): Json | undefined {
  const name = attr(child(el, 'alias'), 'name');
  if (name === undefined) return undefined;
  return name.startsWith('ua-') ? { Name: name.slice(3), UserDefined: true } : { Name: name, UserDefined: false };
}

function address(el: XmlElement): Json | undefined {
  const a = child(el, 'address');
  if (!a) return undefined;
  return withoutUndefined({
    Type: a.attrs.type,
    Domain: a.attrs.domain,
    Bus: a.attrs.bus,
    Slot: a.attrs.slot,
    Function: a.attrs.function,
    Controller: a.attrs.controller,
    Unit: a.attrs.unit,
  });
}

function iface(el: XmlElement): Json {
  const source = child(el, 'source');
  const target = child(el, 'target');
  return withoutUndefined({
    Type: el.attrs.type,
    Source: source ? withoutUndefined({ Bridge: source.attrs.bridge, Network: source.attrs.network }) : undefined,
    Target: target ? withoutUndefined({ Device: target.attrs.dev, Managed: target.attrs.managed }) : undefined,
    Model: child(el, 'model') ? { Type: attr(child(el, 'model'), 'type') } : undefined,
    MAC: child(el, 'mac') ? { MAC: attr(child(el, 'mac'), 'address') } : undefined,
    MTU: child(el, 'mtu') ? { Size: attr(child(el, 'mtu'), 'size') } : undefined,
    Alias: alias(el),
    Address: address(el),
  });
}

function disk(el: XmlElement): Json {
  const source = child(el, 'source');
  const target = child(el, 'target');
  const driver = child(el, 'driver');
  return withoutUndefined({
    Device: el.attrs.device,
    Type: el.attrs.type,
    Source: source ? withoutUndefined({ File: source.attrs.file, Dev: source.attrs.dev }) : {},
    Target: withoutUndefined({ Bus: attr(target, 'bus'), Device: attr(target, 'dev') }),
    Driver: driver
      ? withoutUndefined({
          Name: driver.attrs.name,
          Type: driver.attrs.type,
          Cache: driver.attrs.cache,
          IO: driver.attrs.io,
        })
      : undefined,
    ReadOnly: child(el, 'readonly') ? {} : undefined,
    Serial: child(el, 'serial')?.text,
    Alias: alias(el),
    Address: address(el),
  });
}

function simple(el: XmlElement): Json {
  return withoutUndefined({ Type: el.attrs.type, Model: el.attrs.model, Index: el.attrs.index, Alias: alias(el) });
}

export function domainSpecFromXml(xml: string, metadata: KubeVirtMetadata): Json {
  const dom = parseXml(xml);
  const os = child(dom, 'os');
  const osType = child(os, 'type');
  const devices = child(dom, 'devices');
  const memory = child(dom, 'memory');
  const vcpu = child(dom, 'vcpu');
  return withoutUndefined({
    XMLName: { Space: '', Local: 'domain' },
    Type: dom.attrs.type,
    Name: child(dom, 'name')?.text,
    UUID: child(dom, 'uuid')?.text,
    Memory: memory ? { Value: Number(memory.text), Unit: memory.attrs.unit ?? 'KiB' } : undefined,
    VCPU: vcpu ? { Placement: vcpu.attrs.placement, CPUs: Number(vcpu.text) } : undefined,
    OS: {
      Type: withoutUndefined({ OS: osType?.text, Arch: attr(osType, 'arch'), Machine: attr(osType, 'machine') }),
    },
    Devices: withoutUndefined({
      Emulator: child(devices, 'emulator')?.text,
      Interfaces: children(devices, 'interface').map(iface),
      Disks: children(devices, 'disk').map(disk),
      Controllers: children(devices, 'controller').map(simple),
      Serials: children(devices, 'serial').map(simple),
      Consoles: children(devices, 'console').map(simple),
      Inputs: children(devices, 'input').map((i) => withoutUndefined({ Type: i.attrs.type, Bus: i.attrs.bus })),
    }),
    Metadata: { KubeVirt: metadata },
  });
}

export interface DomainJsonInput {
  domainName: string;
  xml: string | undefined;
  state: number;
  reason: number;
  metadata: KubeVirtMetadata;
  /** Set when the domain is gone (undefined/stopped): the handler's signal for deletion. */
  deletionTimestamp?: string;
  /** The domain does not exist any more: Status NoState, Reason NonExistent. */
  nonExistent?: boolean;
}

export function domainJson(input: DomainJsonInput): Json {
  const { namespace, name } = splitDomainName(input.domainName);
  const objectMeta: Json = { name, namespace, uid: input.metadata.UID, creationTimestamp: null };
  if (input.deletionTimestamp) objectMeta.deletionTimestamp = input.deletionTimestamp;
  const spec = input.xml
    ? domainSpecFromXml(input.xml, input.metadata)
    : { Name: input.domainName, Devices: {}, Metadata: { KubeVirt: input.metadata } };
  return {
    kind: 'Domain',
    apiVersion: '1.2.2',
    ObjectMeta: objectMeta,
    Spec: spec,
    Status: {
      Status: input.nonExistent ? 'NoState' : lifecycleName(input.state),
      Reason: input.nonExistent ? 'NonExistent' : reasonName(input.state, input.reason),
      Interfaces: null,
      OSInfo: {},
      FSFreezeStatus: {},
      GuestPanicInfo: null,
    },
  };
}
