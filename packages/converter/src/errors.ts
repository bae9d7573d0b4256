// Typed errors of the converter. Every rejection names the VMI field path and the offending value, so a
// person can find the line in their YAML. Input text is never echoed raw: control characters, line and
// paragraph separators and bidirectional overrides in it are written as JSON-style escapes, so an error
// line cannot move the terminal's cursor, split a log line or reorder what a reader sees.

// C0 controls, DEL and C1 controls, U+2028/U+2029, and the bidi embedding/override/isolate marks.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** Replaces every unsafe character with its JSON escape (`\n`, `\u001b`, `\u2028`, …). */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class ConversionError extends Error {
  override readonly name = 'ConversionError';
  constructor(
    /** Field path in the VMI (e.g. `spec.domain.memory.guest`), or `input` for unparsable text. */
    readonly field: string,
    /** The offending value as found (undefined when the field is missing). */
    readonly value: unknown,
    message: string,
  ) {
    super(escapeControls(`${field}: ${message}`));
  }
}

/** Renders a value the way error messages quote it: strings in JSON quotes, others as JSON. */
export function quote(value: unknown): string {
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  // JSON.stringify leaves U+2028/U+2029 and bidi marks as they are: escape them too.
  text = escapeControls(text);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
