// parseVmi: text (JSON or YAML, as `kubectl get -o` prints it) -> validated, defaulted VMI.
import { parse as parseYaml } from 'yaml';
import { ConversionError } from '../errors.js';
import { applyDefaults } from './defaults.js';
import type { VirtualMachineInstance } from './types.js';
import { validateVmiObject } from './validate.js';

export interface ParseOptions {
  /** Architecture whose webhook defaults apply when spec.architecture is unset (default amd64). */
  architecture?: string;
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
  const raw = validateVmiObject(parseText(text));
  return applyDefaults(raw as unknown as VirtualMachineInstance, options.architecture);
}
