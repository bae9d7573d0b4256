import { describe, expect, it } from 'vitest';
import { fingerprint, listTables, ownerComment, parseOwnerComment, tableShape } from './owner.js';

describe('owner record', () => {
  it('round-trips through the table comment and fits nft comment limit', () => {
    const record = {
      pod: 'pod1a2b3c4d5e6',
      bridge: 'k6t-1a2b3c4d5e6',
      tap: 'tap1a2b3c4d5e6',
      prior: '0',
      fingerprint: fingerprint('x'),
    };
    const comment = ownerComment(record);
    expect(comment.length).toBeLessThanOrEqual(128);
    expect(parseOwnerComment(comment)).toEqual(record);
    expect(parseOwnerComment('something else')).toBeUndefined();
    expect(parseOwnerComment(undefined)).toBeUndefined();
  });

  it("shape: chains and rule counts, the same for our text and for nft's listing", () => {
    const ours =
      'table ip nat {\n\tchain output {\n\t\ttype nat hook output priority -100; policy accept;\n\t\tip daddr { 127.0.0.1 } counter dnat to 10.0.2.2\n\t}\n\tchain KUBEVIRT_PREINBOUND {\n\t}\n}\n';
    const listed =
      'table ip nat {\n\tcomment "x"\n\tchain output {\n\t\ttype nat hook output priority -100; policy accept;\n\t\tip daddr 127.0.0.1 counter packets 3 bytes 180 dnat to 10.0.2.2\n\t}\n\n\tchain KUBEVIRT_PREINBOUND {\n\t}\n}\n';
    expect(tableShape(ours)).toBe('KUBEVIRT_PREINBOUND:0 output:1');
    expect(tableShape(listed)).toBe(tableShape(ours));
    expect(tableShape(listed.replace(/\t\tip daddr[^\n]*\n/, ''))).toBe('KUBEVIRT_PREINBOUND:0 output:0');
  });

  it('lists tables of an nft listing with their comments and text', () => {
    const listing =
      'table ip filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n' +
      'table ip nat {\n\tcomment "virt-netsetup/v1 pod=eth0"\n\tchain output {\n\t}\n}\n';
    const tables = listTables(listing);
    expect(tables.map((t) => [t.family, t.name, t.comment])).toEqual([
      ['ip', 'filter', undefined],
      ['ip', 'nat', 'virt-netsetup/v1 pod=eth0'],
    ]);
    expect(tables[1]!.text).toBe('table ip nat {\n\tcomment "virt-netsetup/v1 pod=eth0"\n\tchain output {\n\t}\n}\n');
  });
});
