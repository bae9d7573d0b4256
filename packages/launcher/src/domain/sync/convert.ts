// Step 2 of SyncVMI: VMI + context -> domain XML through @virt-launcher/converter.
import { convertVmi } from '../../adapters/converter.js';
import type { ConverterContext, ConvertResult } from '../../adapters/converter.js';
import { InvalidRequestError } from '../../errors.js';
import type { VmiView } from '../../vmi.js';

export async function convertToDomain(vmi: VmiView, context: ConverterContext): Promise<ConvertResult> {
  const result = await convertVmi(vmi.raw, context);
  if (result.domainName !== vmi.domainName) {
    // The name is the handle for every later RPC; a mismatch would orphan the domain.
    throw new InvalidRequestError(
      `converter named the domain ${result.domainName}, expected ${vmi.domainName}`,
      'metadata.name',
    );
  }
  return result;
}
