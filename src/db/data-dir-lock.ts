import { linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time on an embedded database. PGlite keeps the database in the memory of the
 * process that opened it and writes it back to DATA_DIR on its own schedule: a second process on
 * the same directory (a CLI next to the running server) sees stale data, its writes are lost when
 * the first one writes, and the files can be corrupted. So the process that opens PGlite holds a
 * lock file in DATA_DIR naming its pid; the next one refuses to open while that pid lives.
 */
export const lockFileName = 'pglite.lock';

/** Refused open of an embedded database another process has open: the message says what to do. */
export class DataDirLockedError extends Error {
  readonly dataDir: string;
  readonly pid: number;

  constructor(dataDir: string, pid: number) {
    super(
      `Nyckel is already running with the embedded database in ${dataDir} (pid ${pid}). Stop it first, ` +
        'or set DATABASE_URL to a PostgreSQL server: the embedded database can be opened by one process at a time. ' +
        `(If process ${pid} is not Nyckel, delete ${join(dataDir, lockFileName)}.)`,
    );
    this.name = 'DataDirLockedError';
    this.dataDir = dataDir;
    this.pid = pid;
  }
}

/** Lock files this process holds: removed on clean close, and at exit if a close never came. */
const held = new Set<string>();
let removeAtExit = false;

/**
 * Takes the lock of `dataDir` or throws DataDirLockedError; answers the function that releases it.
 * A lock whose process is gone (killed, crashed, the machine restarted) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, lockFileName);
  for (;;) {
    if (placeLock(path)) break;
    const owner = lockOwner(path);
    if (owner !== undefined) throw new DataDirLockedError(dataDir, owner);
    // Stale. Two processes taking over the same stale file at the same instant could both win;
    // that needs a crash followed by two simultaneous starts, and is accepted.
    rmSync(path, { force: true });
  }
  held.add(path);
  if (!removeAtExit) {
    removeAtExit = true;
    process.on('exit', () => held.forEach(release));
  }
  return () => release(path);
}

/**
 * Puts a lock file holding this process's pid at `path`, unless one is there: written under a
 * name of its own, then hard-linked into place, which fails if `path` exists. So of two processes
 * starting at once exactly one places it, and no one ever reads a lock file without its pid.
 */
function placeLock(path: string): boolean {
  const own = `${path}.${process.pid}`;
  writeFileSync(own, `${process.pid}\n`);
  try {
    linkSync(own, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    rmSync(own, { force: true });
  }
}

function release(path: string): void {
  if (!held.delete(path)) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone (DATA_DIR deleted under us): nothing left to release.
  }
}

/**
 * For the processes that open the database (the server, the CLIs): a locked directory ends the
 * process with the message and 75 (EX_TEMPFAIL: try again once the other one stopped), never with a
 * stack trace. Any other error is thrown on.
 */
export function exitIfDataDirLocked(error: unknown): never {
  if (error instanceof DataDirLockedError) {
    process.stderr.write(`nyckel: ${error.message}\n`);
    process.exit(75);
  }
  throw error;
}

/** The live process holding the lock file at `path`, or undefined when it is stale. */
function lockOwner(path: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
  } catch (error) {
    // Released between our create and this read: stale as far as we are concerned, try again.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // No pid: not a lock file placeLock wrote (those hold one from the start).
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // Our own pid in a file we do not hold: written by an earlier process that got the same pid
  // (a restarted container, where the server's pid is the same on every start).
  if (pid === process.pid) return held.has(path) ? pid : undefined;
  return isAlive(pid) ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user, which still holds the directory.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
