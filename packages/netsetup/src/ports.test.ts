import { describe, expect, it } from 'vitest';
import { InvalidPortError } from './errors.js';
import { dportText, parsePort, parsePorts, portRangeSpec } from './ports.js';

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
    // A one-port range stays a range: KubeVirt writes a portRanges entry as start-end.
    expect(dportText(parsePort('tcp:9-9'))).toBe('9-9');
  });

  it('a VMI portRanges entry becomes a range of its lower-cased protocol', () => {
    expect(portRangeSpec({ protocol: 'UDP', start: 5000, end: 5010 })).toEqual({
      protocol: 'udp',
      port: 5000,
      portEnd: 5010,
    });
    expect(portRangeSpec({ protocol: 'TCP', start: 22, end: 22 })).toEqual({ protocol: 'tcp', port: 22, portEnd: 22 });
  });

  it.each([
    [{ protocol: 'SCTP', start: 1, end: 2 }, /SCTP.*not TCP or UDP/],
    [{ protocol: '', start: 1, end: 2 }, /not TCP or UDP/],
    [{ protocol: 'TCP', start: 0, end: 2 }, /0 is outside 1..65535/],
    [{ protocol: 'TCP', start: 10, end: 65536 }, /65536 is outside/],
    [{ protocol: 'TCP', start: 10, end: 9 }, /range end 9 is below its start 10/],
  ])('refuses the range %j', (range, message) => {
    expect(() => portRangeSpec(range)).toThrow(InvalidPortError);
    expect(() => portRangeSpec(range)).toThrow(message);
  });

  it.each(['tcp:0', 'tcp:65536', 'icmp:1', 'tcp:', 'tcp:8x', 'tcp:90-80', 'tcp:-1', ':80'])('rejects %s', (spec) => {
    expect(() => parsePort(spec)).toThrow(InvalidPortError);
  });
});
