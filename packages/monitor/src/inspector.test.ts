import { describe, expect, it } from 'vitest';
import { closeInspector, splitNodeOptions, startedWithInspector, withoutInspectorOptions } from './inspector.js';

describe('NODE_OPTIONS and the inspector', () => {
  it('splits NODE_OPTIONS on spaces, keeping quoted words whole', () => {
    expect(splitNodeOptions('--a  --b="x y" "--c=\\"q\\""')).toEqual(['--a', '--b=x y', '--c="q"']);
    expect(splitNodeOptions('')).toEqual([]);
  });

  it('removes every option that opens or places an inspector, with a separate value, and keeps the rest', () => {
    const { env, removed } = withoutInspectorOptions({
      NODE_OPTIONS: '--inspect --max-old-space-size=64 --inspect-brk=0.0.0.0:1 --inspect-port 9230 --require "/a b.js"',
      PATH: '/bin',
    });
    expect(removed).toEqual(['--inspect', '--inspect-brk=0.0.0.0:1', '--inspect-port', '9230']);
    expect(env).toEqual({ NODE_OPTIONS: '--max-old-space-size=64 --require "/a b.js"', PATH: '/bin' });
  });

  it('drops NODE_OPTIONS when nothing else is left, and leaves an environment without inspector options as it is', () => {
    expect(withoutInspectorOptions({ NODE_OPTIONS: '--inspect-wait' }).env).toEqual({});
    const untouched = { NODE_OPTIONS: '--max-old-space-size=64 --inspector-nothing' };
    expect(withoutInspectorOptions(untouched)).toEqual({ env: untouched, removed: [] });
  });

  it('knows when an option may have opened the inspector', () => {
    expect(startedWithInspector(['--inspect=0'], undefined)).toBe(true);
    expect(startedWithInspector([], '--max-old-space-size=1 --inspect-brk')).toBe(true);
    expect(startedWithInspector(['--inspect-port=1'], '--max-old-space-size=1')).toBe(false);
  });

  it('has nothing to close in a process started without one', async () => {
    expect(await closeInspector(true)).toEqual({ wasOpen: false });
  });
});
