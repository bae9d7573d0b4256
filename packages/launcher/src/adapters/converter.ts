// The one place that knows @virt-launcher/converter's face. It is loaded at the first SyncVirtualMachine, not at
// start-up (readiness does not need it); the literal specifier keeps the call type-checked against the real face.
import type * as Converter from '@virt-launcher/converter';

/** The converter's own generated ConverterContext: a field it renames or retypes breaks the launcher's build. */
export type ConverterContext = Converter.ConverterContext;
export type ConverterPaths = Converter.Paths;

export interface ConvertResult {
  domainXml: string;
  domainName: string;
}

export async function convertVmi(vmiJson: Buffer, context: ConverterContext): Promise<ConvertResult> {
  const face = await import('@virt-launcher/converter');
  return face.convertRequest({ vmiJson, context });
}

/** The QEMU binary the converter names as <emulator> for a guest of `arch` under cross-architecture emulation. */
export async function crossArchEmulator(arch: string): Promise<string | undefined> {
  const face = await import('@virt-launcher/converter');
  return face.crossArchEmulator(arch);
}
