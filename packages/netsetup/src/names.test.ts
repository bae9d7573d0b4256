import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from './errors.js';
import { checkIfname } from './names.js';

describe('checkIfname', () => {
  it('accepts the names KubeVirt uses', () => {
    for (const name of ['eth0', 'k6t-eth0', 'tap0', 'pod16477688c0e', 'net1', 'a.b_c-d@e']) {
      expect(checkIfname(name, 'pod interface')).toBe(name);
    }
  });

  it.each(['', 'x'.repeat(16), 'eth 0', 'a/b', 'a:b', '.', '..', 'a"b', "a'b", 'a#b', 'a\\b', 'a\nb'])(
    'refuses %j (Linux refuses it, or ip -batch would read it as quoting or a comment)',
    (name) => {
      expect(() => checkIfname(name, 'pod interface')).toThrow(InvalidRequestError);
      expect(() => checkIfname(name, 'pod interface')).toThrow(/pod interface name/);
    },
  );
});
