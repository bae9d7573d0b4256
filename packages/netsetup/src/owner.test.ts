import { describe, expect, it } from 'vitest';
import { fingerprint, listTables, ownerComment, parseOwnerComment } from './owner.js';

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
