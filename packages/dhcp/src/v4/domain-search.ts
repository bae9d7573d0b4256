// Option 119, domain search (RFC 3397): a list of RFC 1035 names with message compression, where pointers are
// offsets into the option's own (concatenated) data.
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** A name starting with a digit-only top label is not a domain a resolver can search (e.g. "1.2.3.4"). */
const TOP_LABEL = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** RFC 1035 name limit, in text form, without the trailing dot. */
const MAX_NAME_TEXT = 253;
/** Compression pointers hold 14 bits. */
const MAX_POINTER = 0x3fff;

/** Lower-cased labels of a valid search domain, or a reason it is invalid. */
export function domainLabels(name: string): { labels: string[] } | { reason: string } {
  const text = name.toLowerCase().replace(/\.$/, '');
  if (text === '') return { reason: 'empty name' };
  if (text.length > MAX_NAME_TEXT) return { reason: `longer than ${MAX_NAME_TEXT} characters` };
  const labels = text.split('.');
  for (const label of labels) {
    if (!LABEL.test(label)) return { reason: `bad label "${label}"` };
  }
  if (!TOP_LABEL.test(labels[labels.length - 1] ?? '')) return { reason: 'top-level label must start with a letter' };
  return { labels };
}

export function isValidSearchDomain(name: string): boolean {
  return 'labels' in domainLabels(name);
}

export function encodeDomainSearch(names: readonly string[]): Buffer {
  const out: number[] = [];
  const suffixOffsets = new Map<string, number>();
  for (const name of names) {
    const parsed = domainLabels(name);
    if ('reason' in parsed) {
      throw new DhcpEncodeError(`search domain "${name}": ${parsed.reason}`, 119);
    }
    const { labels } = parsed;
    let pointed = false;
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join('.');
      const known = suffixOffsets.get(suffix);
      if (known !== undefined) {
        out.push(0xc0 | (known >> 8), known & 0xff);
        pointed = true;
        break;
      }
      if (out.length <= MAX_POINTER) suffixOffsets.set(suffix, out.length);
      const label = labels[i] ?? '';
      out.push(label.length, ...Buffer.from(label, 'ascii'));
    }
    if (!pointed) out.push(0);
  }
  return Buffer.from(out);
}

/** Reads the names of an option 119 value; pointers must go backwards (no loops). */
export function decodeDomainSearch(data: Uint8Array): string[] {
  const names: string[] = [];
  let i = 0;
  while (i < data.length) {
    const labels: string[] = [];
    let at = i;
    let jumped = false;
    let textLength = 0;
    for (;;) {
      const len = data[at];
      if (len === undefined) throw new DhcpDecodeError('domain name runs past the option', at);
      if (len === 0) {
        if (!jumped) i = at + 1;
        break;
      }
      if ((len & 0xc0) === 0xc0) {
        const low = data[at + 1];
        if (low === undefined) throw new DhcpDecodeError('truncated compression pointer', at);
        const target = ((len & 0x3f) << 8) | low;
        if (target >= at) throw new DhcpDecodeError('compression pointer does not point backwards', at);
        if (!jumped) i = at + 2;
        jumped = true;
        at = target;
        continue;
      }
      if (len & 0xc0) throw new DhcpDecodeError(`reserved label type 0x${len.toString(16)}`, at);
      if (at + 1 + len > data.length) throw new DhcpDecodeError('label runs past the option', at);
      labels.push(Buffer.from(data.subarray(at + 1, at + 1 + len)).toString('latin1'));
      textLength += len + 1;
      if (textLength > 255) throw new DhcpDecodeError('domain name longer than 255 bytes', at);
      at += 1 + len;
    }
    names.push(labels.join('.'));
  }
  return names;
}
