// Go's net.IP, net.IPMask and []byte as encoding/json carries them: an IP as its text (net.ParseIP on the way
// in, IP.String on the way out), a mask or a MAC as standard base64 of its bytes.

/** 16 bytes, as net.ParseIP returns every address (an IPv4 one in its ::ffff:a.b.c.d form); undefined if not one. */
export function parseGoIp(text: string): Uint8Array | undefined {
  if (!text.includes(':')) {
    const v4 = parseIpv4(text);
    return v4 && Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
  }
  return parseIpv6(text);
}

/** Dotted decimal, each part 0-255 without a leading zero (Go refuses "010.0.0.1" since 1.17). */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^(?:0|[1-9]\d{0,2})$/.test(p) ? Number(p) : 256));
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIpv4(p);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // An embedded IPv4 address may only end the text.
  if (halves.length === 2 && head.length > 0 && halves[0]!.includes('.')) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return Uint8Array.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

export function isIpv4Mapped(ip: Uint8Array): boolean {
  return ip.length === 16 && ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
}

/** IP.String: dotted decimal for an IPv4 address, else RFC 5952 (longest run of 2+ zero groups as "::"). */
export function goIpString(ip: Uint8Array): string {
  if (ip.length === 4) return ip.join('.');
  if (isIpv4Mapped(ip)) return ip.slice(12).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (ip[2 * i]! << 8) | ip[2 * i + 1]!);
  let best = { start: -1, len: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.len) best = { start: i, len: j - i };
    i = Math.max(j, i + 1);
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.len < 2) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.len).join(':')}`;
}

/** The prefix length of a mask of contiguous leading ones; undefined for any other mask. */
export function maskPrefixLength(mask: Uint8Array): number | undefined {
  let bits = 0;
  let seenZero = false;
  for (const b of mask) {
    for (let bit = 7; bit >= 0; bit -= 1) {
      const one = ((b >> bit) & 1) === 1;
      if (one && seenZero) return undefined;
      if (one) bits += 1;
      else seenZero = true;
    }
  }
  return bits;
}

/** net.CIDRMask(prefix, 8 * length). */
export function cidrMask(prefix: number, length: 4 | 16): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => {
    const ones = Math.min(8, Math.max(0, prefix - 8 * i));
    return (0xff << (8 - ones)) & 0xff;
  });
}

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** base64.StdEncoding.DecodeString as encoding/json uses it (padding required; CR and LF are skipped). */
export function decodeGoBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (!STD_BASE64.test(compact)) return undefined;
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

export function encodeGoBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
