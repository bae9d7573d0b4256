// USB host devices from the USB device plugin (bus/device numbers) and PCI GPUs with a display: the parts of a
// host device the launcher fills from the device plugins' environment beyond plain PCI and mdev.
import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConversionError } from '../errors.js';
import { toDomainXml } from '../xml/domain-xml.js';
import { ConverterContext, HostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import { run, vmi } from '../testing/fixture.js';
import { hostDevices } from './host-devices.js';
import { unsupported } from './unsupported.js';

const usb = (bus: string, device: string) =>
  HostDevice.fromPartial({ type: 'usb', alias: 'usb-host-u1', usbBus: bus, usbDevice: device });

describe('USB and PCI-display host devices', () => {
  it('a USB device named by bus/device gets that source address and no managed attribute', () => {
    const d = run(hostDevices, vmi(), { genericHostDevices: [usb('1', '5')] });
    expect(d.devices.hostdevs).toEqual([
      { type: 'usb', source: { address: { bus: '1', device: '5' } }, alias: { name: 'ua-usb-host-u1' } },
    ]);
  });

  it('vendor/product USB devices are unchanged', () => {
    const d = run(hostDevices, vmi(), {
      genericHostDevices: [
        HostDevice.fromPartial({ type: 'usb', alias: 'x', usbVendor: '0x1234', usbProduct: '0x5678' }),
      ],
    });
    expect(d.devices.hostdevs[0]).toMatchObject({ managed: 'no', source: { vendor: '0x1234', product: '0x5678' } });
  });

  it.each([
    ['1', ''],
    ['', '5'],
    ["1'/>", '5'],
    ['1', '5 '],
    ['1000', '5'],
  ])('refuses bus %j device %j, naming the context field', (bus, device) => {
    let err: unknown;
    try {
      run(hostDevices, vmi(), { genericHostDevices: [usb(bus, device)] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConversionError);
    expect((err as ConversionError).field).toMatch(/^context\.genericHostDevices\[0\]\.usb(Bus|Device)$/);
  });

  it('a PCI GPU shows display and ramfb only when the context says so', () => {
    const pci = (display: boolean, ramfb: boolean) =>
      HostDevice.fromPartial({ type: 'pci', alias: 'gpu-g', pciAddress: '0000:65:00.0', display, ramfb });
    const d = run(hostDevices, vmi(), { gpuHostDevices: [pci(true, true), pci(true, false), pci(false, true)] });
    expect(d.devices.hostdevs.map((h) => [h.display, h.ramfb])).toEqual([
      ['on', 'on'],
      ['on', undefined],
      [undefined, undefined],
    ]);
  });

  it('a VMI host device is satisfied by its usb-host-<name> device, and the USB controller is added', () => {
    const v = vmi({ devices: { hostDevices: [{ name: 'u1', deviceName: 'kubevirt.io/storage' }] } });
    expect(() => run(unsupported, v, { genericHostDevices: [usb('1', '5')] })).not.toThrow();
    const domainXml = toDomainXml(
      convert(
        v,
        ConverterContext.fromPartial({
          allowEmulation: true,
          architecture: 'amd64',
          genericHostDevices: [usb('1', '5')],
        }),
      ),
    );
    expect(domainXml).toMatch(
      /<hostdev mode="subsystem" type="usb">\s*<source>\s*<address bus="1" device="5"\/>\s*<\/source>\s*<alias name="ua-usb-host-u1"\/>/,
    );
    expect(domainXml).toContain('<controller type="usb" index="0" model="qemu-xhci"/>');
  });
});
