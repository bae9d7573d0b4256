import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConverterContext, ConvertRequest, ConvertResponse } from './gen/virtlauncher/converter/v1/converter.js';
import { ConversionError } from './errors.js';
import { convertRequest } from './request.js';

const vmA = readFileSync(new URL('../examples/vm-a.yaml', import.meta.url), 'utf8');

describe('convertRequest', () => {
  it('survives the wire: encode, decode, convert', () => {
    const request = ConvertRequest.fromPartial({
      vmiJson: Buffer.from(vmA),
      context: ConverterContext.fromJSON({
        architecture: 'amd64',
        hypervisorDeviceAvailable: false,
        allowEmulation: true,
        libvirtVersion: '9.0.0',
        isBlockPVC: { root: true },
      }),
    });
    const decoded = ConvertRequest.decode(ConvertRequest.encode(request).finish());
    const response = ConvertResponse.decode(ConvertResponse.encode(convertRequest(decoded)).finish());
    expect(response.domainName).toBe('demo_vm-a');
    expect(response.domainXml).toContain('<domain type="qemu"');
    expect(response.domainXml).toContain('<source dev="/dev/root"/>');
    expect(response.domainXml).toContain('slots="1"');
  });
  it('JSON field names are KubeVirt’s lowerCamel ones', () => {
    const json = ConverterContext.toJSON(
      ConverterContext.fromPartial({
        isBlockPvc: { a: true },
        useLaunchSecuritySev: true,
        memBalloonStatsPeriod: 10,
        domainAttachmentByInterfaceName: { d: 'tap' },
      }),
    ) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual([
      'domainAttachmentByInterfaceName',
      'isBlockPVC',
      'memBalloonStatsPeriod',
      'useLaunchSecuritySEV',
    ]);
  });
  it('bad VMI text is a ConversionError', () => {
    expect(() => convertRequest(ConvertRequest.fromPartial({ vmiJson: Buffer.from('{}') }))).toThrow(ConversionError);
  });
});
