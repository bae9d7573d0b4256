// parseVmi: text (JSON or YAML, as `kubectl get -o` prints it) -> validated, defaulted VMI.
import { parse as parseYaml } from 'yaml';
import { ConversionError } from '../errors.js';
import { applyDefaults } from './defaults.js';
import type { VirtualMachineInstance } from './types.js';
import { validateVmiObject } from './validate.js';

export interface ParseOptions {
  /** Architecture whose webhook defaults apply when spec.architecture is unset (default amd64). */
  architecture?: string;
  /**
   * Hold names to KubeVirt's admission rules (default true: DNS-1123 labels for disks and volumes). false
   * is for VMIs that never went through admission, such as KubeVirt's converter test inputs: names then
   * only have to be safe file names.
   */
  admission?: boolean;
}

function parseText(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed === '')
    throw new ConversionError('input', '', 'is empty: expected a VirtualMachineInstance in JSON or YAML');
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      throw new ConversionError('input', trimmed.slice(0, 40), `is not valid JSON (${(error as Error).message})`);
    }
  }
  try {
    return parseYaml(text, { prettyErrors: false });
  } catch (error) {
    const first = (error as Error).message.split('\n')[0];
    throw new ConversionError('input', trimmed.slice(0, 40), `is not valid YAML (${first})`);
  }
}

export function parseVmi(text: string, options: ParseOptions = {}): VirtualMachineInstance {
  const raw = validateVmiObject(parseText(text), options.admission ?? true);
  return applyDefaults(raw as unknown as VirtualMachineInstance, options.architecture);
}
