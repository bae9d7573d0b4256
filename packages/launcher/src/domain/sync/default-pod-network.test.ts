// A VMI that names no NIC gets the API's default masquerade NIC on the pod network; the launcher must plug that
// NIC into the pod's tap0 (managed='no') as it does a named one, or libvirt would create a tap a non-root pod
// cannot create. Checked through the real converter, so the decision and the emitted NIC are seen together.
import { describe, expect, it } from 'vitest';
import { convertVmi } from '../../adapters/converter.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { buildContext, interfacePlan } from './build-context.js';
import type { HostFacts } from './build-context.js';
import { defaultedNetworking } from './default-pod-network.js';
import { testHostFacts } from '../../testing/host-facts.js';

const flags = {
  ...parseFlags(['--run-root', '/tmp/vlt-default-pod-network', '--uid', 'uid-1', '--run-as-nonroot'], {}),
  allowEmulation: true,
};
const paths = resolvePaths(flags);

const facts = (tap0Mtu: number | undefined): HostFacts => testHostFacts({ tap0Mtu });

function vmiOf(devices: Record<string, unknown>, networks?: unknown[]) {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'plain', namespace: 'default', uid: 'uid-1' },
    spec: { domain: { resources: { requests: { memory: '64Mi' } }, devices }, ...(networks ? { networks } : {}) },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

async function domainXml(devices: Record<string, unknown>, tap0Mtu: number | undefined, networks?: unknown[]) {
  const view = vmiOf(devices, networks);
  return (await convertVmi(view.raw, buildContext(facts(tap0Mtu), view, undefined, flags, paths))).domainXml;
}

/** The <interface> elements of a domain XML, one string each. */
const nics = (xml: string): string[] => xml.match(/<interface\b[\s\S]*?<\/interface>/g) ?? [];

describe('the default pod NIC of a VMI that names none', () => {
  it('defaultedNetworking adds the masquerade NIC "default" on the pod network only when nothing is named', () => {
    expect(defaultedNetworking(vmiOf({}))).toEqual({
      interfaces: [{ name: 'default', masquerade: {} }],
      networks: [{ name: 'default', pod: {} }],
    });
    const named = vmiOf({ interfaces: [{ name: 'n1', bridge: {} }] }, [{ name: 'n1', pod: {} }]);
    expect(defaultedNetworking(named)).toEqual({ interfaces: named.interfaces, networks: named.networks });
    expect(defaultedNetworking(vmiOf({ autoattachPodInterface: false }))).toEqual({ interfaces: [], networks: [] });
    // A network without an interface is the VMI's own choice, not a missing one: no default is added.
    const networkOnly = vmiOf({}, [{ name: 'n1', pod: {} }]);
    expect(defaultedNetworking(networkOnly).interfaces).toEqual([]);
  });

  it('interfacePlan plugs the defaulted NIC into tap0 with its MTU, as a named one', () => {
    expect(interfacePlan(vmiOf({}), undefined, 1400)).toEqual({
      domainAttachmentByInterfaceName: { default: 'tap' },
      podInterfaces: { default: { tapName: 'tap0', mac: '', mtu: 1400 } },
    });
    expect(interfacePlan(vmiOf({ autoattachPodInterface: false }), undefined, 1400)).toEqual({
      domainAttachmentByInterfaceName: {},
      podInterfaces: {},
    });
  });

  it("the converted domain's only NIC targets the pod's tap0 with managed='no'", async () => {
    const [nic, ...others] = nics(await domainXml({}, 1400));
    expect(others).toEqual([]);
    expect(nic).toMatch(/<interface type=['"]ethernet['"]/);
    expect(nic).toMatch(/<target dev=['"]tap0['"] managed=['"]no['"]\s*\/>/);
    expect(nic).toMatch(/<mtu size=['"]1400['"]\s*\/>/);
    expect(nic).toMatch(/<alias name=['"]ua-default['"]\s*\/>/);
  });

  it('without a tap0 in the pod the default NIC is left to libvirt, and autoattachPodInterface=false has none', async () => {
    const [nic] = nics(await domainXml({}, undefined));
    expect(nic).toBeDefined();
    expect(nic).not.toMatch(/<target\b/);
    expect(nics(await domainXml({ autoattachPodInterface: false }, 1400))).toEqual([]);
  });
});
