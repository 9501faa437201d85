import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { productionNodeFlags } from '../../src/config/node-flags.ts';
import { serverEntry } from '../../scripts/build-state.ts';

const root = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('production V8 flags', () => {
  const flags = productionNodeFlags.join(' ');

  it('are what npm start runs the compiled server with, once the builds are fresh', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    // exec: the server replaces npm's shell, so a signal to npm (a process manager's stop) reaches it
    // instead of leaving it running on its own.
    expect(scripts.start).toBe(`node scripts/start.ts && exec node ${flags} ${serverEntry}`);
  });

  it("are on the Docker image's command line, and docker-compose.yml runs that command", () => {
    expect(read('Dockerfile')).toContain(`CMD ${JSON.stringify(['node', ...productionNodeFlags, serverEntry])}`.replaceAll(',', ', '));
    const nyckel = (parse(read('docker-compose.yml')) as { services: { nyckel: { command?: unknown; environment: Record<string, string> } } }).services.nyckel;
    expect(nyckel.command).toBeUndefined();
    expect(nyckel.environment.NODE_OPTIONS).toBeUndefined();
  });
});
