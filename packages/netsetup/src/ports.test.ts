import { describe, expect, it } from 'vitest';
import { InvalidPortError } from './errors.js';
import { dportText, parsePort, parsePorts } from './ports.js';

describe('ports', () => {
  it('parses protocol, port and range; tcp by default', () => {
    expect(parsePorts('tcp:80, UDP:53,8080,sctp:9-12')).toEqual([
      { protocol: 'tcp', port: 80, portEnd: 0 },
      { protocol: 'udp', port: 53, portEnd: 0 },
      { protocol: 'tcp', port: 8080, portEnd: 0 },
      { protocol: 'sctp', port: 9, portEnd: 12 },
    ]);
    expect(parsePorts('')).toEqual([]);
    expect(dportText(parsePort('tcp:9-12'))).toBe('9-12');
    expect(dportText(parsePort('tcp:9-9'))).toBe('9');
  });

  it.each(['tcp:0', 'tcp:65536', 'icmp:1', 'tcp:', 'tcp:8x', 'tcp:90-80', 'tcp:-1', ':80'])('rejects %s', (spec) => {
    expect(() => parsePort(spec)).toThrow(InvalidPortError);
  });
});
