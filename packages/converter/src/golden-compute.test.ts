// Golden vectors from KubeVirt's compute configurator tests (testdata/kubevirt; COVERAGE-compute.md maps
// every test case of that folder to a vector or to the reason it has none). One configurator runs alone
// on the test's VMI with the test's options, as the Go test does. A positive vector compares the elements
// that configurator writes with expected.xml; a negative one (expected-error.txt) checks that the step
// refuses with a ConversionError naming the VMI field on its first line (and, when present, containing
// the text of its second line).
import { describe, expect, it } from 'vitest';
import { balloon } from './configurators/balloon.js';
import { channels } from './configurators/channels.js';
import { clock } from './configurators/clock.js';
import { consoleSerial } from './configurators/console.js';
import { controllers } from './configurators/controllers.js';
import type { Configurator } from './configurators/configurator.js';
import { cpu } from './configurators/cpu.js';
import { features } from './configurators/features.js';
import { graphics } from './configurators/graphics.js';
import { hostDevices } from './configurators/host-devices.js';
import { inputs } from './configurators/inputs.js';
import { iothreads } from './configurators/iothreads.js';
import { launchSecurity } from './configurators/launch-security.js';
import { memory } from './configurators/memory.js';
import { memoryBacking } from './configurators/memory-backing.js';
import { os } from './configurators/os.js';
import { panic } from './configurators/panic.js';
import { rng } from './configurators/rng.js';
import { qemuCommandline } from './configurators/qemu-commandline.js';
import { rebootPolicy } from './configurators/reboot-policy.js';
import { sound } from './configurators/sound.js';
import { sysinfo } from './configurators/sysinfo.js';
import { tpm } from './configurators/tpm.js';
import { usbRedirection } from './configurators/usb-redirection.js';
import { vsock } from './configurators/vsock.js';
import { watchdog } from './configurators/watchdog.js';
import { ConversionError } from './errors.js';
import { expectedRefusal, flatten, readGolden, runConfiguratorAlone, sortedAttrs, thrownBy } from './testing/golden.js';
import { parseXml, type Node } from './testing/xml-tree.js';

/**
 * vector folder, the configurator KubeVirt's test builds, and the elements it writes: `name` is a child
 * of <domain>, `devices/name` a child of <devices>, `os!type` is <os> without <type> (KubeVirt's OS step
 * leaves <type> to the architecture step, which this converter's os step folds in).
 */
const VECTORS: [string, Configurator, string[]][] = [
  ['watchdog-none-amd64', watchdog, ['devices/watchdog']],
  ['watchdog-none-arm64', watchdog, ['devices/watchdog']],
  ['watchdog-none-s390x', watchdog, ['devices/watchdog']],
  ['watchdog-arm64-refused', watchdog, ['devices/watchdog']],
  ['watchdog-amd64-no-type', watchdog, ['devices/watchdog']],
  ['watchdog-s390x-no-diag288', watchdog, ['devices/watchdog']],
  ['balloon-plain', balloon, ['devices/memballoon']],
  ['balloon-sev-iommu', balloon, ['devices/memballoon']],
  ['balloon-pv-iommu', balloon, ['devices/memballoon']],
  ['balloon-sev-pv-iommu', balloon, ['devices/memballoon']],
  ['balloon-free-page-reporting', balloon, ['devices/memballoon']],
  ['balloon-stats-period', balloon, ['devices/memballoon']],
  ['balloon-autoattach-off', balloon, ['devices/memballoon']],
  ['clock-none', clock, ['clock']],
  ['clock-utc-reset', clock, ['clock']],
  ['clock-hyperv-timer', clock, ['clock']],
  ['clock-all-timers', clock, ['clock']],
  ['clock-tsc-only', clock, ['clock']],
  ['clock-tsc-appended', clock, ['clock']],
  ['console-serial-autoattach-true', consoleSerial, ['devices/serial', 'devices/console']],
  ['console-autoattach-false', consoleSerial, ['devices/serial', 'devices/console']],
  ['sound-none', sound, ['devices/sound']],
  ['sound-ich9', sound, ['devices/sound']],
  ['sound-invalid-model', sound, ['devices/sound']],
  ['panic-none', panic, ['devices/panic']],
  ['rng-none', rng, ['devices/rng']],
  ['channels-guest-agent', channels, ['devices/channel']],
  ['channels-downwardmetrics', channels, ['devices/channel']],
  ['vsock-none', vsock, ['devices/vsock']],
  ['vsock-global', vsock, ['devices/vsock']],
  ['vsock-local', vsock, ['devices/vsock']],
  ['tpm-none', tpm, ['devices/tpm']],
  ['tpm-ephemeral', tpm, ['devices/tpm']],
  ['tpm-persistent', tpm, ['devices/tpm']],
  ['usbredir-none', usbRedirection, ['devices/redirdev']],
  ['usbredir-client-passthrough', usbRedirection, ['devices/redirdev']],
  ['reboot-policy-none', rebootPolicy, ['on_reboot']],
  ['reboot-policy-terminate', rebootPolicy, ['on_reboot']],
  ['reboot-policy-reboot', rebootPolicy, ['on_reboot']],
  ['iothreads-four', iothreads, ['iothreads']],
  ['iothreads-none', iothreads, ['iothreads']],
  ['hostdev-none', hostDevices, ['devices/hostdev']],
  ['hostdev-order', hostDevices, ['devices/hostdev']],
  ['sysinfo-empty', sysinfo, ['sysinfo']],
  ['sysinfo-uuid', sysinfo, ['sysinfo']],
  ['sysinfo-uuid-serial', sysinfo, ['sysinfo']],
  ['sysinfo-uuid-serial-smbios', sysinfo, ['sysinfo']],
  ['sysinfo-smbios', sysinfo, ['sysinfo']],
  ['sysinfo-all', sysinfo, ['sysinfo']],
  ['sysinfo-chassis', sysinfo, ['sysinfo']],
  ['qemu-cmd-ignition', qemuCommandline, ['qemu:commandline']],
  ['qemu-cmd-ignition-other-data', qemuCommandline, ['qemu:commandline']],
  ['qemu-cmd-ignition-empty', qemuCommandline, ['qemu:commandline']],
  ['qemu-cmd-seabios-above-threshold', qemuCommandline, ['qemu:commandline']],
  ['qemu-cmd-seabios-at-threshold', qemuCommandline, ['qemu:commandline']],
  ['qemu-cmd-seabios-arm64', qemuCommandline, ['qemu:commandline']],
  ['qemu-cmd-ignition-seabios', qemuCommandline, ['qemu:commandline']],
  ['launch-security-none-amd64', launchSecurity, ['launchSecurity']],
  ['launch-security-none-arm64', launchSecurity, ['launchSecurity']],
  ['launch-security-none-s390x', launchSecurity, ['launchSecurity']],
  ['launch-security-sev-es', launchSecurity, ['launchSecurity']],
  ['launch-security-tdx-refused', launchSecurity, ['launchSecurity']],
  ['memory-backing-none', memoryBacking, ['memoryBacking']],
  ['memory-backing-hugepages-memfd-off', memoryBacking, ['memoryBacking']],
  ['memory-backing-virtiofs', memoryBacking, ['memoryBacking']],
  ['memory-backing-passt', memoryBacking, ['memoryBacking']],
  ['memory-backing-hugepages-virtiofs', memoryBacking, ['memoryBacking']],
  ['memory-backing-hugepages-no-memfd', memoryBacking, ['memoryBacking']],
  ['memory-backing-virtiofs-no-memfd', memoryBacking, ['memoryBacking']],
  ['memory-request-64m', memory, ['memory', 'maxMemory']],
  ['memory-request-64mi', memory, ['memory', 'maxMemory']],
  ['memory-request-3g', memory, ['memory', 'maxMemory']],
  ['memory-request-3gi', memory, ['memory', 'maxMemory']],
  ['memory-request-45gi', memory, ['memory', 'maxMemory']],
  ['memory-request-2780gi', memory, ['memory', 'maxMemory']],
  ['memory-request-451231-bytes', memory, ['memory', 'maxMemory']],
  ['memory-request-float', memory, ['memory', 'maxMemory']],
  ['memory-negative-refused', memory, ['memory', 'maxMemory']],
  ['memory-maxguest-missing', memory, ['memory', 'maxMemory']],
  ['memory-maxguest-equal', memory, ['memory', 'maxMemory']],
  ['memory-maxguest-greater', memory, ['memory', 'maxMemory']],
  ['memory-guest-only', memory, ['memory', 'maxMemory']],
  ['memory-limit-only', memory, ['memory', 'maxMemory']],
  ['memory-request-over-limit', memory, ['memory', 'maxMemory']],
  ['memory-request-only', memory, ['memory', 'maxMemory']],
  ['memory-guest-over-request', memory, ['memory', 'maxMemory']],
  ['input-tablet-usb-amd64', inputs, ['devices/input']],
  ['input-tablet-usb-arm64', inputs, ['devices/input']],
  ['input-tablet-usb-s390x', inputs, ['devices/input']],
  ['input-tablet-virtio-arm64', inputs, ['devices/input']],
  ['input-tablet-virtio-s390x', inputs, ['devices/input']],
  ['input-bus-ps2-refused', inputs, ['devices/input']],
  ['input-type-keyboard-refused', inputs, ['devices/input']],
  ['input-amd64-autoattach-nil', inputs, ['devices/input']],
  ['input-amd64-autoattach-true', inputs, ['devices/input']],
  ['input-arm64-autoattach-true', inputs, ['devices/input']],
  ['input-s390x-autoattach-true', inputs, ['devices/input']],
  ['input-amd64-autoattach-false', inputs, ['devices/input']],
  ['input-arm64-autoattach-false', inputs, ['devices/input']],
  ['input-s390x-autoattach-false', inputs, ['devices/input']],
  ['graphics-autoattach-false-amd64', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-cross-arch-off', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-autoattach-false-arm64', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-autoattach-false-s390x', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vnc-arm64-autoattach-true', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vnc-s390x-autoattach-true', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vnc-amd64-autoattach-nil', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vnc-s390x-autoattach-nil', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-video-virtio-amd64-bochs', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-video-virtio-arm64-bochs', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-video-virtio-arm64', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-video-virtio-s390x-bochs', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-video-virtio-s390x', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vga-bios-bochs-off', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vga-bios-bochs-on', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-vga-efi-bochs-off', graphics, ['devices/video', 'devices/graphics']],
  ['graphics-bochs-efi', graphics, ['devices/video', 'devices/graphics']],
  ['controllers-no-usb-no-hotplug', controllers, ['devices/controller']],
  ['controllers-usb-no-hotplug', controllers, ['devices/controller']],
  ['controllers-no-usb-hotplug', controllers, ['devices/controller']],
  ['controllers-usb-hotplug', controllers, ['devices/controller']],
  ['controllers-scsi-disk-no-hotplug', controllers, ['devices/controller']],
  ['controllers-scsi-disk-hotplug', controllers, ['devices/controller']],
  ['controllers-scsi-disk-usb', controllers, ['devices/controller']],
  ['controllers-scsi-iothread-four-shared', controllers, ['devices/controller']],
  ['controllers-scsi-iothread-roll-over', controllers, ['devices/controller']],
  ['controllers-scsi-iothread-two-dedicated', controllers, ['devices/controller']],
  ['controllers-scsi-no-iothreads', controllers, ['devices/controller']],
  ['controllers-scsi-not-dedicated-with-iothreads', controllers, ['devices/controller']],
  ['controllers-pcihole64-unsupported-unset', controllers, ['devices/controller']],
  ['controllers-pcihole64-unsupported-true', controllers, ['devices/controller']],
  ['controllers-pcihole64-false', controllers, ['devices/controller']],
  ['controllers-pcihole64-true', controllers, ['devices/controller']],
  ['controllers-sev-iommu', controllers, ['devices/controller']],
  ['controllers-pv-iommu', controllers, ['devices/controller']],
  ['controllers-sev-iommu-iothread', controllers, ['devices/controller']],
  ['controllers-serial-console-true', controllers, ['devices/controller']],
  ['controllers-serial-console-false', controllers, ['devices/controller']],
  ['features-none', features, ['features']],
  ['features-acpi-nil', features, ['features']],
  ['features-acpi-on', features, ['features']],
  ['features-acpi-off', features, ['features']],
  ['features-smm-nil', features, ['features']],
  ['features-smm-on', features, ['features']],
  ['features-smm-off', features, ['features']],
  ['features-apic-nil', features, ['features']],
  ['features-apic-on', features, ['features']],
  ['features-apic-off', features, ['features']],
  ['features-kvm-visible', features, ['features']],
  ['features-pvspinlock-nil', features, ['features']],
  ['features-pvspinlock-on', features, ['features']],
  ['features-hyperv-passthrough-off', features, ['features']],
  ['features-hyperv-default-on', features, ['features']],
  ['features-hyperv-off', features, ['features']],
  ['features-hyperv-empty', features, ['features']],
  ['features-hyperv-over-passthrough', features, ['features']],
  ['features-vmport-off', features, ['features']],
  ['os-smbios-off', os, ['os!type']],
  ['os-smbios-sysinfo', os, ['os!type']],
  ['os-machine-type', os, ['os']],
  ['os-bootmenu-not-paused', os, ['os!type']],
  ['os-bios-useserial-off', os, ['os!type']],
  ['os-kernel-args-none', os, ['os!type']],
  ['os-kernel-args-no-container-refused', os, ['os!type']],
  ['os-efi-snp-refused', launchSecurity, ['launchSecurity']],
  ['os-efi-tdx-refused', launchSecurity, ['launchSecurity']],
  ['os-efi-auto-selection-arm64', os, ['os!type']],
  ['os-acpi-slic', os, ['os!type']],
  ['os-acpi-msdm', os, ['os!type']],
  ['os-acpi-slic-msdm', os, ['os!type']],
  ['os-acpi-volume-missing', os, ['os!type']],
  ['os-acpi-no-tables', os, ['os!type']],
  ['os-acpi-volume-not-secret', os, ['os!type']],
  ['cpu-no-spec', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-request-only', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-limit-only', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-model-host-model', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-mpx-custom', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-mpx-host-model', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-mpx-host-passthrough', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-mpx-user-feature', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-cross-arch-host-model', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-cross-arch-host-passthrough', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-cross-arch-no-model', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-cross-arch-custom-model', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-hugepages', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-hugepages-multi-vcpu', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-virtiofs', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-passt', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-none', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-explicit', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-memfd-annotation-false', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-hotplug', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-numa-no-memfd', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-hotplug', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-hotplug-unsupported', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-hotplug-no-max-sockets', cpu, ['cpu', 'vcpu', 'vcpus']],
  ['cpu-hotplug-first-socket', cpu, ['cpu', 'vcpu', 'vcpus']],
];

function pick(root: Node, paths: string[]): Node[] {
  return paths.flatMap((path) => {
    // `os!type`: <os> without its <type> child (see osWithoutType in golden-configurators.test.ts).
    const [kept, dropped] = path.split('!');
    if (dropped !== undefined) {
      return root.children
        .filter((c) => c.name === kept)
        .map((c) => ({ ...c, children: c.children.filter((g) => g.name !== dropped) }));
    }
    const [first, second] = path.split('/');
    const top = root.children.filter((c) => c.name === first);
    return second === undefined ? top : top.flatMap((t) => t.children.filter((c) => c.name === second));
  });
}

/**
 * The comparison form: whitespace-only text and xmlns declarations dropped, nothing else. Unlike the
 * older vectors' form, empty elements are kept: <acpi/>, <hugepages/> or an empty <sysinfo> are
 * what several KubeVirt cases assert.
 */
function exact(node: Node): Node {
  const children = node.children.map(exact);
  const attrs = Object.fromEntries(Object.entries(node.attrs).filter(([k]) => k !== 'xmlns'));
  return { name: node.name, attrs, children, text: children.length > 0 ? '' : node.text.trim() };
}

const EMPTY: Node = { name: 'fragment', attrs: {}, children: [], text: '' };

describe('golden vectors: KubeVirt compute configurator tests', () => {
  it.each(VECTORS)('%s', (vector, step, paths) => {
    const refusal = expectedRefusal(vector);
    if (refusal) {
      const err = thrownBy(() => runConfiguratorAlone(vector, step));
      expect(err).toBeInstanceOf(ConversionError);
      expect((err as ConversionError).field).toBe(refusal.field);
      if (refusal.text) expect((err as ConversionError).message).toContain(refusal.text);
      return;
    }
    const actual = exact({ ...EMPTY, children: pick(parseXml(runConfiguratorAlone(vector, step)), paths) });
    const expected = exact(parseXml(`<fragment>${readGolden(vector, 'expected.xml')}</fragment>`));
    expect(flatten(sortedAttrs(actual)).join('\n')).toEqual(flatten(sortedAttrs(expected)).join('\n'));
  });
});
