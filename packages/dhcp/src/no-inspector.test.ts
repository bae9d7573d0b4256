import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What the entry does is tested in @virt-launcher/shared; here only that the CLI loads it before anything else.
describe('the CLI opens no inspector on SIGUSR1', () => {
  it('imports @virt-launcher/shared/no-inspector first', () => {
    const firstImport = /^import .*$/m.exec(readFileSync(join(import.meta.dirname, 'cli.ts'), 'utf8'))?.[0];
    expect(firstImport).toBe("import '@virt-launcher/shared/no-inspector';");
  });
});
