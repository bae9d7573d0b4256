// The fields virt-handler reads from GetDomain, built from a live-XML-shaped domain and decoded with Go's rules.
import { describe, expect, it } from 'vitest';
import { goDecode } from '../testing/go-decode.js';
import { domainJson } from './domain-json.js';
import { GoValueError } from './go-fields/encode-json.js';

const xml = `<domain type='qemu' id='1' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>ns_vm</name>
  <uuid>5a3c0000-0000-4000-8000-00000000000a</uuid>
  <metadata><kubevirt xmlns="http://kubevirt.io"><uid>from-xml</uid></kubevirt></metadata>
  <memory unit='KiB'>262144</memory>
  <currentMemory unit='KiB'>131072</currentMemory>
  <vcpu placement='static' current='1'>2</vcpu>
  <vcpus><vcpu id='0' enabled='yes' hotpluggable='no' order='1'/><vcpu id='1' enabled='no' hotpluggable='yes'/></vcpus>
  <iothreads>1</iothreads>
  <sysinfo type='smbios'><system><entry name='manufacturer'>KubeVirt</entry><entry name='family'>KubeVirt</entry></system></sysinfo>
  <os><type arch='x86_64' machine='pc-q35-7.2'>hvm</type><kernel>/k</kernel><cmdline>console=ttyS0</cmdline><boot dev='hd'/></os>
  <features><acpi/><apic/><vmport state='off'/></features>
  <cpu mode='custom' match='exact' check='full'><model fallback='forbid'>qemu64</model><topology sockets='1' dies='1' cores='2' threads='1'/><feature policy='require' name='x2apic'/></cpu>
  <clock offset='utc'><timer name='rtc' tickpolicy='catchup'/></clock>
  <on_reboot>restart</on_reboot>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' cache='none' queues='2'/>
      <source file='/var/run/kubevirt/disk.qcow2' index='1'/>
      <backingStore/>
      <target dev='vda' bus='virtio'/>
      <alias name='ua-containerdisk'/>
      <address type='pci' domain='0x0000' bus='0x04' slot='0x00' function='0x0'/>
    </disk>
    <controller type='usb' index='0' model='none'><alias name='usb'/></controller>
    <controller type='pci' index='1' model='pcie-root-port'><model name='pcie-root-port'/><target chassis='1' port='0x10'/><alias name='pci.1'/></controller>
    <filesystem type='mount' accessmode='passthrough'><driver type='virtiofs' queue='1024'/><source socket='/var/run/fs.sock'/><target dir='share'/><alias name='ua-share'/></filesystem>
    <interface type='ethernet'>
      <mac address='02:00:00:00:00:01'/>
      <target dev='tap0' managed='no'/>
      <model type='virtio-non-transitional'/>
      <driver name='vhost' queues='2'/>
      <link state='up'/>
      <mtu size='1500'/>
      <alias name='ua-default'/>
      <rom enabled='no'/>
    </interface>
    <serial type='unix'><source mode='bind' path='/var/run/serial0'/><target type='isa-serial' port='0'><model name='isa-serial'/></target><alias name='serial0'/></serial>
    <console type='unix'><source mode='bind' path='/var/run/serial0'/><target type='serial' port='0'/><alias name='serial0'/></console>
    <channel type='unix'><source mode='bind' path='/var/run/agent.sock'/><target type='virtio' name='org.qemu.guest_agent.0' state='disconnected'/><alias name='channel0'/></channel>
    <input type='mouse' bus='ps2'><alias name='input0'/></input>
    <graphics type='vnc' socket='/var/run/vnc'><listen type='socket' socket='/var/run/vnc'/></graphics>
    <video><model type='bochs' vram='16384' heads='1' primary='yes'/><alias name='video0'/></video>
    <hostdev mode='subsystem' type='pci' managed='no'><driver name='vfio'/><source><address domain='0x0000' bus='0x81' slot='0x00' function='0x1'/></source><alias name='ua-hostdevice-gpu'/></hostdev>
    <memballoon model='virtio-non-transitional' freePageReporting='on'><stats period='10'/><alias name='balloon0'/></memballoon>
  </devices>
  <qemu:commandline><qemu:arg value='-x'/></qemu:commandline>
</domain>`;

type AnyJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const metadata = {
  UID: 'vmi-uid',
  GracePeriod: { DeletionGracePeriodSeconds: 30, MarkedForGracefulShutdown: true },
};

describe('GetDomain JSON from the live XML', () => {
  const json = domainJson({ domainName: 'ns_vm', xml, state: 1, reason: 1, metadata }) as AnyJson;

  it('decodes into api.Domain with Go rules: every key known, every value of the right type', () => {
    expect(() => goDecode('Domain', JSON.stringify(json))).not.toThrow();
  });

  it('fills what the handler reads: features, channels with state, memory, CPU, vCPUs', () => {
    const spec = json.Spec;
    expect(spec.Features).toEqual({
      ACPI: {},
      APIC: {},
      Hyperv: null,
      SMM: null,
      KVM: null,
      PVSpinlock: null,
      PMU: null,
      VMPort: { State: 'off' },
    });
    expect(spec.Devices.Channels).toEqual([
      {
        Type: 'unix',
        Source: { Mode: 'bind', Path: '/var/run/agent.sock' },
        Target: { Name: 'org.qemu.guest_agent.0', Type: 'virtio', Address: '', Port: 0, State: 'disconnected' },
      },
    ]);
    expect(spec.CurrentMemory).toEqual({ Value: 131072, Unit: 'KiB' });
    expect(spec.Memory).toEqual({ Value: 262144, Unit: 'KiB' });
    expect(spec.VCPU).toEqual({ Placement: 'static', CPUs: 2 });
    expect(spec.VCPUs.VCPU).toEqual([
      { ID: 0, Enabled: 'yes', Hotpluggable: 'no', Order: 1 },
      { ID: 1, Enabled: 'no', Hotpluggable: 'yes', Order: 0 },
    ]);
    expect(spec.CPU).toEqual({
      Mode: 'custom',
      Model: 'qemu64',
      Features: [{ Name: 'x2apic', Policy: 'require' }],
      Topology: { Sockets: 1, Cores: 2, Threads: 1 },
      NUMA: null,
    });
    expect(spec.IOThreads).toEqual({ IOThreads: 1 });
    expect(spec.SysInfo.System).toEqual([
      { Name: 'manufacturer', Value: 'KubeVirt' },
      { Name: 'family', Value: 'KubeVirt' },
    ]);
    expect(spec.OnReboot).toBe('restart');
  });

  it('fills devices: video, filesystems, host devices, interface queues and link state, aliases', () => {
    const dev = json.Spec.Devices;
    expect(dev.Video).toEqual([{ Model: { Type: 'bochs', Heads: 1, Ram: null, VRam: 16384, VGAMem: null } }]);
    expect(dev.Filesystems[0]).toMatchObject({
      Type: 'mount',
      Driver: { Type: 'virtiofs', Queue: '1024' },
      Source: { Dir: '', Socket: '/var/run/fs.sock' },
      Target: { Dir: 'share' },
    });
    expect(dev.HostDevices[0]).toMatchObject({
      XMLName: { Space: '', Local: 'hostdev' },
      Type: 'pci',
      Mode: 'subsystem',
      Managed: 'no',
      Source: { Address: { Domain: '0x0000', Bus: '0x81', Slot: '0x00', Function: '0x1' } },
      Alias: { Name: 'hostdevice-gpu', UserDefined: true },
    });
    expect(dev.Interfaces[0]).toMatchObject({
      XMLName: { Space: '', Local: 'interface' },
      Driver: { Name: 'vhost', Queues: 2, IOMMU: '' },
      LinkState: { State: 'up' },
      MTU: { Size: '1500' },
      Rom: { Enabled: 'no' },
      Alias: { Name: 'default', UserDefined: true },
      BootOrder: null,
    });
    expect(dev.Disks[0]).toMatchObject({ Driver: { Queues: 2, Cache: 'none' }, Alias: { Name: 'containerdisk' } });
    expect(dev.Controllers[1]).toMatchObject({
      Type: 'pci',
      Index: '1',
      Model: 'pcie-root-port',
      Alias: { Name: 'pci.1' },
    });
    expect(dev.Ballooning).toMatchObject({
      Model: 'virtio-non-transitional',
      Stats: { Period: 10 },
      FreePageReporting: 'on',
    });
    expect(dev.Graphics[0]).toMatchObject({ Type: 'vnc', Listen: { Type: 'socket', Socket: '/var/run/vnc' } });
    // Go's decoder matches `qemu:commandline` against local names only, so it never fills QEMUCmd (nor XmlNS).
    expect(json.Spec.QEMUCmd).toBeNull();
    expect(json.Spec.XmlNS).toBe('');
  });

  it('takes the kubevirt metadata from the cache, with a slot for every block', () => {
    expect(json.Spec.Metadata.KubeVirt).toEqual({
      UID: 'vmi-uid',
      GracePeriod: { DeletionGracePeriodSeconds: 30, DeletionTimestamp: null, MarkedForGracefulShutdown: true },
      Migration: null,
      Backup: null,
      AccessCredential: null,
      MemoryDump: null,
    });
  });

  it('has the Status slots and takes the guest-agent overlay', () => {
    expect(json.Status).toEqual({
      Status: 'Running',
      Reason: 'Unknown',
      Interfaces: null,
      OSInfo: {
        Name: '',
        KernelRelease: '',
        Version: '',
        PrettyName: '',
        VersionId: '',
        KernelVersion: '',
        Machine: '',
        Id: '',
      },
      FSFreezeStatus: { Status: '' },
      GuestPanicInfo: null,
      PanicCount: 0,
    });
    const withAgent = domainJson({
      domainName: 'ns_vm',
      xml,
      state: 1,
      reason: 1,
      metadata,
      overlay: {
        Interfaces: [{ Mac: '02:00:00:00:00:01', Ip: '10.0.2.2', IPs: ['10.0.2.2'], InterfaceName: 'eth0' }],
        OSInfo: { Name: 'Demo', Id: 'demo' },
        agentChannelState: 'connected',
      },
    }) as AnyJson;
    expect(() => goDecode('Domain', withAgent)).not.toThrow();
    expect(withAgent.Status.Interfaces).toEqual([
      { Mac: '02:00:00:00:00:01', Ip: '10.0.2.2', IPs: ['10.0.2.2'], InterfaceName: 'eth0' },
    ]);
    expect(withAgent.Status.OSInfo).toMatchObject({ Name: 'Demo', Id: 'demo', Version: '' });
    expect(withAgent.Spec.Devices.Channels[0].Target.State).toBe('connected');
  });

  it('refuses XML whose numbers are not numbers, naming the field', () => {
    const bad = xml.replace("<memory unit='KiB'>262144</memory>", "<memory unit='KiB'>lots</memory>");
    expect(() => domainJson({ domainName: 'ns_vm', xml: bad, state: 1, reason: 1, metadata })).toThrow(GoValueError);
    expect(() => domainJson({ domainName: 'ns_vm', xml: bad, state: 1, reason: 1, metadata })).toThrow(
      /DomainSpec\.Memory\.Value: "lots"/,
    );
  });
});
