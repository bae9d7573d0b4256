import { describe, expect, it } from 'vitest';
import { domainJson, splitDomainName } from './domain-json.js';
import { reasonName, lifecycleName, isDown } from './state.js';
import { parseXml, XmlParseError } from '../xml/parse.js';
import { errorMessage } from '../errors.js';
import { preloadLibvirt } from '../adapters/libvirt.js';

const xml = `<?xml version="1.0"?>
<domain type='qemu' id='3'>
  <name>ns_vm</name>
  <uuid>0b2e6c6e-0000-4000-8000-000000000001</uuid>
  <memory unit='KiB'>131072</memory>
  <vcpu placement='static'>1</vcpu>
  <os><type arch='x86_64' machine='pc-q35-7.2'>hvm</type></os>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <!-- a comment -->
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' cache='none'/>
      <source file='/var/run/a &amp; b.qcow2'/>
      <target dev='vda' bus='virtio'/>
      <alias name='ua-containerdisk'/>
    </disk>
    <interface type='ethernet'>
      <mac address='02:00:00:00:00:01'/>
      <target dev='tap0' managed='no'/>
      <model type='virtio-non-transitional'/>
      <alias name='net0'/>
    </interface>
  </devices>
</domain>`;

describe('domain JSON', () => {
  it('uses Go field names, splits the name and takes metadata from the cache', () => {
    const json = domainJson({ domainName: 'ns_vm', xml, state: 1, reason: 1, metadata: { UID: 'u1' } }) as {
      kind: string;
      ObjectMeta: Record<string, unknown>;
      Spec: { Devices: { Disks: Array<Record<string, unknown>>; Interfaces: Array<Record<string, unknown>> } } & Record<
        string,
        unknown
      >;
      Status: Record<string, unknown>;
    };
    expect(json.kind).toBe('Domain');
    expect(json.ObjectMeta).toMatchObject({ name: 'vm', namespace: 'ns', uid: 'u1' });
    expect(json.Spec.UUID).toBe('0b2e6c6e-0000-4000-8000-000000000001');
    expect(json.Spec.Memory).toEqual({ Value: 131072, Unit: 'KiB' });
    expect(json.Spec.Devices.Disks[0]).toMatchObject({
      Source: { File: '/var/run/a & b.qcow2' },
      Target: { Bus: 'virtio', Device: 'vda' },
      Alias: { Name: 'containerdisk', UserDefined: true },
    });
    expect(json.Spec.Devices.Interfaces[0]).toMatchObject({
      MAC: { MAC: '02:00:00:00:00:01' },
      Target: { Device: 'tap0', Managed: 'no' },
      Alias: { Name: 'net0', UserDefined: false },
    });
    expect(json.Spec.Metadata).toEqual({
      KubeVirt: {
        UID: 'u1',
        GracePeriod: null,
        Migration: null,
        Backup: null,
        AccessCredential: null,
        MemoryDump: null,
      },
    });
    expect(json.Status).toMatchObject({ Status: 'Running', Reason: 'Unknown' });
  });

  it('reports a vanished domain as NoState/NonExistent with a deletionTimestamp', () => {
    const json = domainJson({
      domainName: 'vm',
      xml: undefined,
      state: 0,
      reason: 0,
      metadata: { UID: '' },
      nonExistent: true,
      deletionTimestamp: '2026-01-01T00:00:00.000Z',
    }) as { ObjectMeta: Record<string, unknown>; Status: Record<string, unknown> };
    expect(json.ObjectMeta).toMatchObject({
      namespace: 'default',
      name: 'vm',
      deletionTimestamp: '2026-01-01T00:00:00Z', // metav1.Time: whole seconds
    });
    expect(json.Status).toMatchObject({ Status: 'NoState', Reason: 'NonExistent' });
  });

  it('maps libvirt states and reasons to KubeVirt strings', () => {
    expect(lifecycleName(3)).toBe('Paused');
    expect(reasonName(3, 5)).toBe('IOError');
    expect(reasonName(5, 2)).toBe('Destroyed');
    expect(reasonName(6, 1)).toBe('Panicked');
    expect(reasonName(1, 1)).toBe('Unknown');
    expect(lifecycleName(4)).toBe('ShuttingDown');
    expect([0, 1, 3, 4, 5, 6].map(isDown)).toEqual([true, false, false, true, true, true]);
    expect(splitDomainName('a_b_c')).toEqual({ namespace: 'a', name: 'b_c' });
  });

  it('rejects broken XML with a typed error', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(XmlParseError);
    expect(() => parseXml('<a>')).toThrow(XmlParseError);
  });

  it('formats libvirt errors exactly like KubeVirt', async () => {
    const { LibvirtError, ErrorCode, ErrorDomain } = await preloadLibvirt();
    const err = new LibvirtError(
      "Domain not found: no domain with matching name 'x'",
      ErrorCode.NO_DOMAIN,
      ErrorDomain.QEMU,
    );
    expect(errorMessage(err)).toBe(
      "LibvirtError(Code=42, Domain=10, Message='Domain not found: no domain with matching name 'x'')",
    );
    // Only the binding's class counts: an error that merely looks like one is rendered as a plain error.
    const lookAlike = Object.assign(new Error('look-alike'), { name: 'LibvirtError', code: 42, domain: 10 });
    expect(errorMessage(lookAlike)).toBe('look-alike');
    expect(errorMessage(new Error('plain'))).toBe('plain');
  });
});
