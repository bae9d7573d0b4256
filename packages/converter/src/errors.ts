// Typed errors of the converter. Every rejection names the VMI field path and the offending value, so a
// person can find the line in their YAML.

export class ConversionError extends Error {
  override readonly name = 'ConversionError';
  constructor(
    /** Field path in the VMI (e.g. `spec.domain.memory.guest`), or `input` for unparsable text. */
    readonly field: string,
    /** The offending value as found (undefined when the field is missing). */
    readonly value: unknown,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** Renders a value the way error messages quote it: strings in JSON quotes, others as JSON. */
export function quote(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}
