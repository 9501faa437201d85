import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
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
    const lock = readLock(path);
    // Released between our try and this read: try again.
    if (lock === undefined) continue;
    if (isHeld(path, lock.pid)) throw new DataDirLockedError(dataDir, lock.pid);
    removeStaleLock(path, lock.text);
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
 * starting at once exactly one places it, and no one ever reads a lock file without its pid. A
 * random second line tells this lock from any other with the same pid (see removeStaleLock).
 */
function placeLock(path: string): boolean {
  const own = `${path}.${process.pid}`;
  writeFileSync(own, `${process.pid}\n${randomBytes(8).toString('hex')}\n`);
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

/** The lock file at `path` as read: its text, and the pid in it (NaN when none). Undefined when there is none. */
function readLock(path: string): { text: string; pid: number } | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    return { text, pid: Number.parseInt(text, 10) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether the lock file at `path` naming `pid` is held by a live process, or is stale. */
function isHeld(path: string, pid: number): boolean {
  // No pid: not a lock file placeLock wrote (those hold one from the start).
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Our own pid in a file we do not hold: written by an earlier process that got the same pid
  // (a restarted container, where the server's pid is the same on every start).
  if (pid === process.pid) return held.has(path);
  return isAlive(pid);
}

/**
 * Removes the stale lock file that was read (its text, unique to each lock placed), and never
 * another: two processes taking over one stale file at once would otherwise both remove "it", the
 * second removing the lock the first had just placed, and both would open the database. The file
 * is moved aside under a name of this process's own (rename is atomic, so only one process moves
 * any one file) and read: when it is not the file that was read, it is another process's fresh
 * lock, and is put back (a link, which fails only if yet another lock took its place meanwhile).
 * Exported for its test.
 */
export function removeStaleLock(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    // Gone already: taken over and released by another process, or released by its owner.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
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
