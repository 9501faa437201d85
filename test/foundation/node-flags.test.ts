import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { productionNodeFlags } from '../../src/config/node-flags.ts';

const root = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('production V8 flags', () => {
  const flags = productionNodeFlags.join(' ');

  it('are what npm start runs the server with', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(`node ${flags} scripts/start.ts`);
  });

  it('are the NODE_OPTIONS of the Docker image and of docker-compose.yml', () => {
    expect(read('Dockerfile')).toMatch(new RegExp(`^\\s+NODE_OPTIONS=${flags}\\s`, 'm'));
    expect(read('docker-compose.yml')).toMatch(new RegExp(`^\\s+NODE_OPTIONS: ${flags}$`, 'm'));
  });
});
