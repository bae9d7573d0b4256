// KubeVirt's api.Domain JSON (docs/domain-json.md) from the live domain XML, its state and the metadata cache.
// Nothing here names a libvirt element or a JSON key by hand: the XML is unmarshalled into api.DomainSpec with
// encoding/xml's rules and written out with encoding/json's, both driven by the field table in go-fields/.
import { parseXml } from '../xml/parse.js';
import { decodeGoXml } from './go-fields/decode-xml.js';
import { encodeGoJson } from './go-fields/encode-json.js';
import { currentDomainStatusOverlay } from './domain-status-overlay.js';
import type { DomainStatusOverlay } from './domain-status-overlay.js';
import type { KubeVirtMetadata } from './metadata.js';
import { lifecycleName, reasonName } from './state.js';

type Json = Record<string, unknown>;

/** The channel virt-handler reads for the AgentConnected condition. */
export const GUEST_AGENT_CHANNEL = 'org.qemu.guest_agent.0';

/** `<ns>_<name>` split at the first `_`; no `_` means namespace "default". */
export function splitDomainName(domainName: string): { namespace: string; name: string } {
  const i = domainName.indexOf('_');
  return i < 0
    ? { namespace: 'default', name: domainName }
    : { namespace: domainName.slice(0, i), name: domainName.slice(i + 1) };
}

interface SpecValue {
  Name?: string;
  Devices?: { Channels?: Array<{ Target?: { Name?: string; State?: string } }> };
  Metadata?: { KubeVirt?: unknown };
}

/** api.DomainSpec as a Go value: the XML unmarshalled, then the metadata from the cache as KubeVirt does. */
export function domainSpecValue(xml: string, metadata: KubeVirtMetadata): SpecValue {
  const spec = decodeGoXml('DomainSpec', parseXml(xml)) as SpecValue;
  spec.Metadata = { ...spec.Metadata, KubeVirt: metadata };
  return spec;
}

function applyChannelState(spec: SpecValue, state: string | undefined): void {
  if (state === undefined) return;
  for (const channel of spec.Devices?.Channels ?? []) {
    if (channel.Target?.Name === GUEST_AGENT_CHANNEL) channel.Target.State = state;
  }
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
  /** Guest-agent facts; when absent, the registered provider's (setDomainStatusOverlay). */
  overlay?: DomainStatusOverlay;
}

export function domainJson(input: DomainJsonInput): Json {
  const { namespace, name } = splitDomainName(input.domainName);
  const overlay = input.overlay ?? currentDomainStatusOverlay() ?? {};
  const spec: SpecValue = input.xml
    ? domainSpecValue(input.xml, input.metadata)
    : { Name: input.domainName, Metadata: { KubeVirt: input.metadata } };
  applyChannelState(spec, overlay.agentChannelState);
  const domain = {
    TypeMeta: { Kind: 'Domain', APIVersion: '1.2.2' },
    ObjectMeta: {
      Name: name,
      Namespace: namespace,
      UID: input.metadata.UID,
      DeletionTimestamp: input.deletionTimestamp,
    },
    Spec: spec,
    Status: {
      Status: input.nonExistent ? 'NoState' : lifecycleName(input.state),
      Reason: input.nonExistent ? 'NonExistent' : reasonName(input.state, input.reason),
      Interfaces: overlay.Interfaces,
      OSInfo: overlay.OSInfo,
      FSFreezeStatus: overlay.FSFreezeStatus,
    },
  };
  return encodeGoJson('Domain', domain) as Json;
}
